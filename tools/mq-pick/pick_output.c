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

/* JSON string with the escapes RFC 8259 requires. */
static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(f, "\\u%04x", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

/* CSV field, quoted when it holds a separator, quote or line break. */
static void csv_string(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\n\r")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (const char *p = s; *p; p++) {
        if (*p == '"')
            fputc('"', f);
        fputc(*p, f);
    }
    fputc('"', f);
}

static void write_json_hit(pick_writer *w, size_t ray, size_t rank, const mq_hit *h)
{
    mq_triangle_source src;
    mq_mesh_triangle_source(w->mesh, h->triangle, &src);
    FILE *f = w->out;
    fprintf(f, "{\"ray\":%zu,\"rank\":%zu,\"file\":", ray, rank);
    json_string(f, w->mesh_path);
    fprintf(f, ",\"face\":%u,\"line\":%llu,\"triangle\":%u,\"group\":", src.face,
            (unsigned long long)src.line, h->triangle);
    json_string(f, src.group);
    fputs(",\"object\":", f);
    json_string(f, src.object);
    fputs(",\"material\":", f);
    json_string(f, src.material);
    fprintf(f, ",\"t\":%.9g,\"point\":[%.9g,%.9g,%.9g],\"normal\":[%.9g,%.9g,%.9g]", h->t, h->point[0],
            h->point[1], h->point[2], h->normal[0], h->normal[1], h->normal[2]);
    fprintf(f, ",\"barycentric\":[%.9g,%.9g],\"back_face\":%s", h->u, h->v, h->back_face ? "true" : "false");
    if (h->has_shading_normal)
        fprintf(f, ",\"shading_normal\":[%.9g,%.9g,%.9g]", h->shading_normal[0], h->shading_normal[1],
                h->shading_normal[2]);
    if (h->has_uv)
        fprintf(f, ",\"uv\":[%.9g,%.9g]", h->uv[0], h->uv[1]);
    fputs("}\n", f);
}

static void write_csv_hit(pick_writer *w, size_t ray, size_t rank, const mq_hit *h)
{
    FILE *f = w->out;
    if (!w->wrote_header) {
        fputs("ray,rank,file,face,line,triangle,group,object,material,t,px,py,pz,nx,ny,nz,u,v,back_face\n", f);
        w->wrote_header = true;
    }
    if (!h) {
        fprintf(f, "%zu,%zu,", ray, rank);
        csv_string(f, w->mesh_path);
        fputs(",,,,,,,inf,,,,,,,,,\n", f);
        return;
    }
    mq_triangle_source src;
    mq_mesh_triangle_source(w->mesh, h->triangle, &src);
    fprintf(f, "%zu,%zu,", ray, rank);
    csv_string(f, w->mesh_path);
    fprintf(f, ",%u,%llu,%u,", src.face, (unsigned long long)src.line, h->triangle);
    csv_string(f, src.group);
    fputc(',', f);
    csv_string(f, src.object);
    fputc(',', f);
    csv_string(f, src.material);
    fprintf(f, ",%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%d\n", h->t, h->point[0], h->point[1],
            h->point[2], h->normal[0], h->normal[1], h->normal[2], h->u, h->v, h->back_face ? 1 : 0);
}

static void write_table_hit(pick_writer *w, size_t ray, size_t rank, const mq_hit *h)
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
    mq_triangle_source src;
    mq_mesh_triangle_source(w->mesh, h->triangle, &src);
    char point[64], normal[64];
    snprintf(point, sizeof point, "(%.5g, %.5g, %.5g)", h->point[0], h->point[1], h->point[2]);
    snprintf(normal, sizeof normal, "(%.4f, %.4f, %.4f)", h->normal[0], h->normal[1], h->normal[2]);
    fprintf(f, "%6zu %4zu %12.7g %9u %8u %9llu  %-28s %-30s %s/%s/%s\n", ray, rank, h->t, h->triangle,
            src.face, (unsigned long long)src.line, point, normal, src.group[0] ? src.group : "-",
            src.object[0] ? src.object : "-", src.material[0] ? src.material : "-");
}

bool pick_write_hit(pick_writer *w, size_t ray_index, size_t rank, const mq_hit *hit)
{
    switch (w->format) {
    case PICK_HITS:
        return mqt_write_hit_record(w->out, hit ? hit->t : (float)INFINITY, hit ? hit->triangle : MQT_NO_HIT);
    case PICK_JSON:
        if (hit)
            write_json_hit(w, ray_index, rank, hit);
        break;
    case PICK_CSV:
        write_csv_hit(w, ray_index, rank, hit);
        break;
    case PICK_TABLE:
        write_table_hit(w, ray_index, rank, hit);
        break;
    case PICK_OCCL:
        return false; /* rejected when the options are read */
    }
    return !ferror(w->out);
}

bool pick_write_occlusion(pick_writer *w, size_t ray_index, bool occluded)
{
    switch (w->format) {
    case PICK_OCCL: {
        unsigned char b = occluded ? 1 : 0;
        return fwrite(&b, 1, 1, w->out) == 1;
    }
    case PICK_JSON:
        fprintf(w->out, "{\"ray\":%zu,\"occluded\":%s}\n", ray_index, occluded ? "true" : "false");
        break;
    case PICK_CSV:
        if (!w->wrote_header) {
            fputs("ray,occluded\n", w->out);
            w->wrote_header = true;
        }
        fprintf(w->out, "%zu,%d\n", ray_index, occluded ? 1 : 0);
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
    return !ferror(w->out);
}
