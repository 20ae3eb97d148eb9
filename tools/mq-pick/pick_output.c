#include "pick_output.h"

#include <math.h>
#include <string.h>

#include "rayfile.h"

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

pick_format pick_format_for(const char *out_path, const char *forced)
{
    if (forced)
        return !strcmp(forced, "json") ? PICK_JSON : !strcmp(forced, "csv") ? PICK_CSV : PICK_TABLE;
    if (ends_with(out_path, ".hits"))
        return PICK_HITS;
    if (ends_with(out_path, ".occl"))
        return PICK_OCCL;
    if (ends_with(out_path, ".json") || ends_with(out_path, ".jsonl") || ends_with(out_path, ".ndjson"))
        return PICK_JSON;
    if (ends_with(out_path, ".csv"))
        return PICK_CSV;
    return PICK_TABLE;
}

void pick_csv_string(mqt_textbuf *b, const char *s)
{
    if (!strpbrk(s, ",\"\n\r")) {
        mqt_tb_str(b, s);
        return;
    }
    mqt_tb_char(b, '"');
    for (const char *p = s; *p; p++) {
        if (*p == '"')
            mqt_tb_char(b, '"');
        mqt_tb_char(b, *p);
    }
    mqt_tb_char(b, '"');
}

/* "[x,y,z]" or "[x,y]". */
static void json_floats(mqt_textbuf *b, const float *v, int n)
{
    mqt_tb_char(b, '[');
    for (int i = 0; i < n; i++) {
        if (i)
            mqt_tb_char(b, ',');
        mqt_tb_float(b, v[i]);
    }
    mqt_tb_char(b, ']');
}

static void write_json_hit(pick_writer *w, size_t ray, size_t rank, const mq_hit *h, uint32_t instance)
{
    const pick_source *s = &w->sources[instance];
    mq_triangle_source src;
    mq_mesh_triangle_source(s->mesh, h->triangle, &src);
    mqt_textbuf *b = w->text;
    mqt_tb_str(b, "{\"ray\":");
    mqt_tb_u64(b, ray);
    mqt_tb_str(b, ",\"rank\":");
    mqt_tb_u64(b, rank);
    mqt_tb_str(b, ",\"file\":");
    mqt_tb_json_string(b, s->path);
    if (w->name_instance) {
        mqt_tb_str(b, ",\"instance\":");
        mqt_tb_u64(b, instance);
    }
    mqt_tb_str(b, ",\"face\":");
    mqt_tb_u64(b, src.face);
    mqt_tb_str(b, ",\"line\":");
    mqt_tb_u64(b, src.line);
    mqt_tb_str(b, ",\"triangle\":");
    mqt_tb_u64(b, h->triangle);
    mqt_tb_str(b, ",\"group\":");
    mqt_tb_json_string(b, src.group);
    mqt_tb_str(b, ",\"object\":");
    mqt_tb_json_string(b, src.object);
    mqt_tb_str(b, ",\"material\":");
    mqt_tb_json_string(b, src.material);
    mqt_tb_str(b, ",\"t\":");
    mqt_tb_float(b, h->t);
    mqt_tb_str(b, ",\"point\":");
    json_floats(b, h->point, 3);
    mqt_tb_str(b, ",\"normal\":");
    json_floats(b, h->normal, 3);
    float bary[2] = {h->u, h->v};
    mqt_tb_str(b, ",\"barycentric\":");
    json_floats(b, bary, 2);
    mqt_tb_str(b, h->back_face ? ",\"back_face\":true" : ",\"back_face\":false");
    if (h->has_shading_normal) {
        mqt_tb_str(b, ",\"shading_normal\":");
        json_floats(b, h->shading_normal, 3);
    }
    if (h->has_uv) {
        mqt_tb_str(b, ",\"uv\":");
        json_floats(b, h->uv, 2);
    }
    mqt_tb_str(b, "}\n");
}

static void csv_float(mqt_textbuf *b, float x)
{
    mqt_tb_char(b, ',');
    mqt_tb_float(b, x);
}

static void write_csv_hit(pick_writer *w, size_t ray, size_t rank, const mq_hit *h, uint32_t instance)
{
    mqt_textbuf *b = w->text;
    if (!w->wrote_header) {
        mqt_tb_str(b, w->name_instance ? "ray,rank,file,instance," : "ray,rank,file,");
        mqt_tb_str(b, "face,line,triangle,group,object,material,t,px,py,pz,nx,ny,nz,u,v,back_face\n");
        w->wrote_header = true;
    }
    mqt_tb_u64(b, ray);
    mqt_tb_char(b, ',');
    mqt_tb_u64(b, rank);
    mqt_tb_char(b, ',');
    if (!h) {
        if (!w->name_instance)
            pick_csv_string(b, w->sources[0].path);
        mqt_tb_str(b, w->name_instance ? ",,,,,,,,inf,,,,,,,,,\n" : ",,,,,,,inf,,,,,,,,,\n");
        return;
    }
    const pick_source *s = &w->sources[instance];
    pick_csv_string(b, s->path);
    if (w->name_instance) {
        mqt_tb_char(b, ',');
        mqt_tb_u64(b, instance);
    }
    mq_triangle_source src;
    mq_mesh_triangle_source(s->mesh, h->triangle, &src);
    mqt_tb_char(b, ',');
    mqt_tb_u64(b, src.face);
    mqt_tb_char(b, ',');
    mqt_tb_u64(b, src.line);
    mqt_tb_char(b, ',');
    mqt_tb_u64(b, h->triangle);
    mqt_tb_char(b, ',');
    pick_csv_string(b, src.group);
    mqt_tb_char(b, ',');
    pick_csv_string(b, src.object);
    mqt_tb_char(b, ',');
    pick_csv_string(b, src.material);
    csv_float(b, h->t);
    for (int k = 0; k < 3; k++)
        csv_float(b, h->point[k]);
    for (int k = 0; k < 3; k++)
        csv_float(b, h->normal[k]);
    csv_float(b, h->u);
    csv_float(b, h->v);
    mqt_tb_str(b, h->back_face ? ",1\n" : ",0\n");
}

static void write_table_hit(pick_writer *w, size_t ray, size_t rank, const mq_hit *h, uint32_t instance)
{
    FILE *f = w->out;
    if (!w->wrote_header) {
        fprintf(f, "%6s %4s %12s %9s %8s %9s  %-28s %-30s %s\n", "ray", "rank", "t", "triangle", "face",
                "line", "point", "normal", "group/object/material");
        w->wrote_header = true;
    }
    if (!h) {
        fprintf(f, "%6zu %4s %12s %9s %8s %9s  (no hit)\n", ray, "-", "inf", "-", "-", "-");
        return;
    }
    const pick_source *s = &w->sources[instance];
    mq_triangle_source src;
    mq_mesh_triangle_source(s->mesh, h->triangle, &src);
    char point[64], normal[64];
    snprintf(point, sizeof point, "(%.5g, %.5g, %.5g)", h->point[0], h->point[1], h->point[2]);
    snprintf(normal, sizeof normal, "(%.4f, %.4f, %.4f)", h->normal[0], h->normal[1], h->normal[2]);
    fprintf(f, "%6zu %4zu %12.7g %9u %8u %9llu  %-28s %-30s %s/%s/%s", ray, rank, h->t, h->triangle,
            src.face, (unsigned long long)src.line, point, normal, src.group[0] ? src.group : "-",
            src.object[0] ? src.object : "-", src.material[0] ? src.material : "-");
    if (w->name_instance)
        fprintf(f, "  instance %u %s", instance, s->path);
    fputc('\n', f);
}

bool pick_write_hit(pick_writer *w, size_t ray_index, size_t rank, const mq_hit *hit, uint32_t instance)
{
    switch (w->format) {
    case PICK_HITS:
        return mqt_write_hit_record(w->out, hit ? hit->t : (float)INFINITY,
                                    hit ? w->sources[instance].first_triangle + hit->triangle : MQT_NO_HIT);
    case PICK_JSON:
        if (hit)
            write_json_hit(w, ray_index, rank, hit, instance);
        break;
    case PICK_CSV:
        write_csv_hit(w, ray_index, rank, hit, instance);
        break;
    case PICK_TABLE:
        write_table_hit(w, ray_index, rank, hit, instance);
        break;
    case PICK_OCCL:
        return false; /* rejected when the options are read */
    }
    return !ferror(w->out) && !w->text->failed;
}

bool pick_write_occlusion(pick_writer *w, size_t ray_index, bool occluded)
{
    switch (w->format) {
    case PICK_OCCL: {
        unsigned char b = occluded ? 1 : 0;
        return fwrite(&b, 1, 1, w->out) == 1;
    }
    case PICK_JSON:
        mqt_tb_str(w->text, "{\"ray\":");
        mqt_tb_u64(w->text, ray_index);
        mqt_tb_str(w->text, occluded ? ",\"occluded\":true}\n" : ",\"occluded\":false}\n");
        break;
    case PICK_CSV:
        if (!w->wrote_header) {
            mqt_tb_str(w->text, "ray,occluded\n");
            w->wrote_header = true;
        }
        mqt_tb_u64(w->text, ray_index);
        mqt_tb_str(w->text, occluded ? ",1\n" : ",0\n");
        break;
    case PICK_TABLE:
        if (!w->wrote_header) {
            fprintf(w->out, "%6s  %s\n", "ray", "occluded");
            w->wrote_header = true;
        }
        fprintf(w->out, "%6zu  %s\n", ray_index, occluded ? "yes" : "no");
        break;
    case PICK_HITS:
        return false; /* rejected when the options are read */
    }
    return !ferror(w->out) && !w->text->failed;
}

bool pick_writer_flush(pick_writer *w) { return mqt_tb_flush(w->text); }
