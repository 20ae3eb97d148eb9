#include "pick_output.h"

#include <math.h>
#include <stdlib.h>
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

/* Room for the keys and numbers of a record between two of its texts (its source, its names):
 * at most about 350 chars, whole words overwriting up to MQT_WIDE_CHARS beyond them. */
#define NUMBERS_ROOM 512

/* "[x,y,z]" or "[x,y]". */
static char *put_json_floats(char *p, const float *v, int n)
{
    *p++ = '[';
    for (int i = 0; i < n; i++) {
        if (i)
            *p++ = ',';
        p = mqt_put_float(p, v[i]);
    }
    *p++ = ']';
    return p;
}

/* What a record says of its source: JSON ,"file":"..." and ,"instance":N; CSV the file field and ,N. */
static void source_text(mqt_textbuf *b, const pick_writer *w, uint32_t instance)
{
    const char *path = w->sources[instance].path;
    if (w->format == PICK_JSON) {
        MQT_TB_LIT(b, ",\"file\":");
        mqt_tb_json_string(b, path);
        if (w->name_instance)
            MQT_TB_LIT(b, ",\"instance\":");
    } else {
        pick_csv_string(b, path);
        if (w->name_instance)
            mqt_tb_char(b, ',');
    }
    if (w->name_instance)
        mqt_tb_u64(b, instance);
}

/* A group, object or material name with its JSON key, or as a CSV field after its comma. */
static void name_text(mqt_textbuf *b, const pick_writer *w, mq_name_kind kind, const char *name)
{
    static const char *const keys[3] = {",\"group\":", ",\"object\":", ",\"material\":"};
    if (w->format == PICK_JSON) {
        mqt_tb_str(b, keys[kind]);
        mqt_tb_json_string(b, name);
    } else {
        mqt_tb_char(b, ',');
        pick_csv_string(b, name);
    }
}

static void put_piece(mqt_textbuf *b, const pick_source_text *t, uint32_t piece)
{
    mqt_tb_mem(b, t->chars + t->cut[piece], t->cut[piece + 1] - t->cut[piece]);
}

/* source_text, escaped now or copied from st. */
static void put_source(mqt_textbuf *b, const pick_writer *w, const pick_source_text *st, uint32_t instance)
{
    if (st)
        put_piece(b, st, 0);
    else
        source_text(b, w, instance);
}

/* The three name_texts of a hit's triangle (the hit carries their ids), escaped now or copied from st. */
static void put_names(mqt_textbuf *b, const pick_writer *w, const pick_source_text *st, const mq_hit *h,
                      uint32_t instance)
{
    const uint32_t ids[3] = {h->group, h->object, h->material};
    for (int k = 0; k < 3; k++) {
        if (st)
            put_piece(b, st, st->first_name[k] + ids[k]);
        else
            name_text(b, w, (mq_name_kind)k, mq_mesh_name(w->sources[instance].mesh, (mq_name_kind)k, ids[k]));
    }
}

/* The opening of every JSON record: {"ray":N,"rank":R */
static void put_ray_rank(mqt_textbuf *b, size_t ray, size_t rank)
{
    char *p = mqt_tb_room(b, NUMBERS_ROOM);
    p = MQT_PUT_LIT(p, "{\"ray\":");
    p = mqt_put_u64(p, ray);
    p = MQT_PUT_LIT(p, ",\"rank\":");
    p = mqt_put_u64(p, rank);
    mqt_tb_wrote(b, p);
}

/* A hit on a triangle of the face whose `f` statement is at `line`. The numbers are written
 * straight into the buffer (one room check for several of them). */
static void write_json_hit(pick_writer *w, const pick_source_text *st, size_t ray, size_t rank, const mq_hit *h,
                           uint32_t instance, uint64_t line)
{
    mqt_textbuf *b = w->text;
    put_ray_rank(b, ray, rank);
    put_source(b, w, st, instance);
    char *p = mqt_tb_room(b, NUMBERS_ROOM);
    p = MQT_PUT_LIT(p, ",\"face\":");
    p = mqt_put_u64(p, h->face);
    p = MQT_PUT_LIT(p, ",\"line\":");
    p = mqt_put_u64(p, line);
    p = MQT_PUT_LIT(p, ",\"triangle\":");
    p = mqt_put_u64(p, h->triangle);
    mqt_tb_wrote(b, p);
    put_names(b, w, st, h, instance);
    p = mqt_tb_room(b, NUMBERS_ROOM);
    p = MQT_PUT_LIT(p, ",\"t\":");
    p = mqt_put_float(p, h->t);
    p = MQT_PUT_LIT(p, ",\"point\":");
    p = put_json_floats(p, h->point, 3);
    p = MQT_PUT_LIT(p, ",\"normal\":");
    p = put_json_floats(p, h->normal, 3);
    float bary[2] = {h->u, h->v};
    p = MQT_PUT_LIT(p, ",\"barycentric\":");
    p = put_json_floats(p, bary, 2);
    p = h->back_face ? MQT_PUT_LIT(p, ",\"back_face\":true") : MQT_PUT_LIT(p, ",\"back_face\":false");
    if (h->has_shading_normal) {
        p = MQT_PUT_LIT(p, ",\"shading_normal\":");
        p = put_json_floats(p, h->shading_normal, 3);
    }
    if (h->has_uv) {
        p = MQT_PUT_LIT(p, ",\"uv\":");
        p = put_json_floats(p, h->uv, 2);
    }
    mqt_tb_wrote(b, MQT_PUT_LIT(p, "}\n"));
}

/* A ray that hits nothing: {"ray":N,"rank":R[,"file":...],"hit":false}, the file when there is
 * only one (as the CSV miss). Hits carry no "hit" key: any record with a "face" is a hit. */
static void write_json_miss(pick_writer *w, const pick_source_text *st, size_t ray, size_t rank)
{
    mqt_textbuf *b = w->text;
    put_ray_rank(b, ray, rank);
    if (!w->name_instance)
        put_source(b, w, st, 0);
    MQT_TB_LIT(b, ",\"hit\":false}\n");
}

/* ",x" */
static char *put_csv_float(char *p, float x)
{
    *p++ = ',';
    return mqt_put_float(p, x);
}

/* A hit as write_json_hit, or a miss (h == NULL, line unused). */
static void write_csv_hit(pick_writer *w, const pick_source_text *st, size_t ray, size_t rank, const mq_hit *h,
                          uint32_t instance, uint64_t line)
{
    mqt_textbuf *b = w->text;
    if (!w->wrote_header) {
        mqt_tb_str(b, w->name_instance ? "ray,rank,file,instance," : "ray,rank,file,");
        MQT_TB_LIT(b, "face,line,triangle,group,object,material,t,px,py,pz,nx,ny,nz,u,v,back_face\n");
        w->wrote_header = true;
    }
    char *p = mqt_tb_room(b, NUMBERS_ROOM);
    p = mqt_put_u64(p, ray);
    *p++ = ',';
    p = mqt_put_u64(p, rank);
    *p++ = ',';
    mqt_tb_wrote(b, p);
    if (!h) { /* a miss: the file when there is only one, nothing else */
        if (w->name_instance) {
            MQT_TB_LIT(b, ",,,,,,,,inf,,,,,,,,,\n");
        } else {
            put_source(b, w, st, 0);
            MQT_TB_LIT(b, ",,,,,,,inf,,,,,,,,,\n");
        }
        return;
    }
    put_source(b, w, st, instance);
    p = mqt_tb_room(b, NUMBERS_ROOM);
    *p++ = ',';
    p = mqt_put_u64(p, h->face);
    *p++ = ',';
    p = mqt_put_u64(p, line);
    *p++ = ',';
    p = mqt_put_u64(p, h->triangle);
    mqt_tb_wrote(b, p);
    put_names(b, w, st, h, instance);
    p = mqt_tb_room(b, NUMBERS_ROOM);
    p = put_csv_float(p, h->t);
    for (int k = 0; k < 3; k++)
        p = put_csv_float(p, h->point[k]);
    for (int k = 0; k < 3; k++)
        p = put_csv_float(p, h->normal[k]);
    p = put_csv_float(p, h->u);
    p = put_csv_float(p, h->v);
    mqt_tb_wrote(b, h->back_face ? MQT_PUT_LIT(p, ",1\n") : MQT_PUT_LIT(p, ",0\n"));
}

static void write_table_hit(pick_writer *w, size_t ray, size_t rank, const mq_hit *h, uint32_t instance)
{
    FILE *f = w->out;
    if (!w->wrote_header) {
        fprintf(f, "%6s %4s %12s %9s %8s %9s  %-28s %-30s %s\n", "ray", "rank", "t", "triangle", "face", "line",
                "point", "normal", "group/object/material");
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
    fprintf(f, "%6zu %4zu %12.7g %9u %8u %9llu  %-28s %-30s %s/%s/%s", ray, rank, h->t, h->triangle, src.face,
            (unsigned long long)src.line, point, normal, src.group[0] ? src.group : "-",
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
    case PICK_CSV: {
        uint64_t line = hit ? mq_mesh_face_line(w->sources[instance].mesh, hit->face) : 0;
        if (w->format == PICK_CSV)
            write_csv_hit(w, NULL, ray_index, rank, hit, instance, line);
        else if (hit)
            write_json_hit(w, NULL, ray_index, rank, hit, instance, line);
        else
            write_json_miss(w, NULL, ray_index, rank);
        return !w->text->failed; /* nothing but the buffer writes to out */
    }
    case PICK_TABLE:
        write_table_hit(w, ray_index, rank, hit, instance);
        break;
    case PICK_OCCL:
        return false; /* rejected when the options are read */
    }
    return !ferror(w->out) && !w->text->failed;
}

/* The length of b's text so far (b in memory). */
static size_t text_length(mqt_textbuf *b)
{
    mqt_tb_flush(b);
    return b->mem_len;
}

/* The pieces of w's source `instance`, made with the writers' own functions (so they are
 * the same text), in b (in memory). */
static bool build_source_text(pick_source_text *t, const pick_writer *w, uint32_t instance, mqt_textbuf *b)
{
    const mq_mesh *mesh = w->sources[instance].mesh;
    uint32_t pieces = 1;
    for (int k = 0; k < 3; k++) {
        t->first_name[k] = pieces;
        pieces += mq_mesh_name_count(mesh, (mq_name_kind)k);
    }
    t->cut = malloc(((size_t)pieces + 1) * sizeof *t->cut);
    if (!t->cut)
        return false;
    mqt_tb_init(b, NULL);
    t->cut[0] = 0;
    source_text(b, w, instance);
    for (int k = 0; k < 3; k++)
        for (uint32_t id = 0; id < mq_mesh_name_count(mesh, (mq_name_kind)k); id++) {
            t->cut[t->first_name[k] + id] = text_length(b);
            name_text(b, w, (mq_name_kind)k, mq_mesh_name(mesh, (mq_name_kind)k, id));
        }
    t->cut[pieces] = text_length(b);
    t->chars = malloc(b->mem_len ? b->mem_len : 1);
    if (t->chars && b->mem_len)
        memcpy(t->chars, b->mem, b->mem_len);
    return t->chars != NULL && !b->failed;
}

pick_source_text *pick_source_texts_new(const pick_writer *w, uint32_t count)
{
    pick_source_text *texts = calloc(count, sizeof *texts);
    mqt_textbuf *b = calloc(1, sizeof *b);
    bool ok = texts && b;
    for (uint32_t i = 0; i < count && ok; i++)
        ok = build_source_text(&texts[i], w, i, b);
    if (b)
        mqt_tb_free_memory(b);
    free(b);
    if (!ok) {
        pick_source_texts_free(texts, count);
        return NULL;
    }
    return texts;
}

void pick_source_texts_free(pick_source_text *texts, uint32_t count)
{
    for (uint32_t i = 0; texts && i < count; i++) {
        free(texts[i].chars);
        free(texts[i].cut);
    }
    free(texts);
}

/* The lines of hits' faces are looked up this many at a time: each lookup likely misses the
 * cache (random faces), and issued together, before any formatting, the misses overlap
 * instead of queuing. (The face and the name ids come with the hit.) */
#define LOOKUP_BATCH 16

void pick_write_hit_records(pick_writer *w, const pick_source_text *texts, const mq_hit *hits,
                            const uint32_t *instances, size_t first, size_t count)
{
    uint64_t line[LOOKUP_BATCH];
    for (size_t at = first; at < first + count; at += LOOKUP_BATCH) {
        size_t k = first + count - at < LOOKUP_BATCH ? first + count - at : LOOKUP_BATCH;
        for (size_t i = 0; i < k; i++)
            if (hits[at + i].triangle != MQ_NO_TRIANGLE)
                line[i] = mq_mesh_face_line(w->sources[instances ? instances[at + i] : 0].mesh, hits[at + i].face);
        for (size_t i = 0; i < k; i++) {
            const mq_hit *h = hits[at + i].triangle != MQ_NO_TRIANGLE ? &hits[at + i] : NULL;
            uint32_t instance = instances ? instances[at + i] : 0;
            if (w->format == PICK_CSV)
                write_csv_hit(w, &texts[instance], at + i, 0, h, instance, h ? line[i] : 0);
            else if (h)
                write_json_hit(w, &texts[instance], at + i, 0, h, instance, line[i]);
            else
                write_json_miss(w, &texts[0], at + i, 0);
        }
    }
}

bool pick_write_occlusion(pick_writer *w, size_t ray_index, bool occluded)
{
    switch (w->format) {
    case PICK_OCCL: {
        unsigned char b = occluded ? 1 : 0;
        return fwrite(&b, 1, 1, w->out) == 1;
    }
    case PICK_JSON:
        MQT_TB_LIT(w->text, "{\"ray\":");
        mqt_tb_u64(w->text, ray_index);
        if (occluded)
            MQT_TB_LIT(w->text, ",\"occluded\":true}\n");
        else
            MQT_TB_LIT(w->text, ",\"occluded\":false}\n");
        return !w->text->failed; /* nothing but the buffer writes to out */
    case PICK_CSV:
        if (!w->wrote_header) {
            MQT_TB_LIT(w->text, "ray,occluded\n");
            w->wrote_header = true;
        }
        mqt_tb_u64(w->text, ray_index);
        if (occluded)
            MQT_TB_LIT(w->text, ",1\n");
        else
            MQT_TB_LIT(w->text, ",0\n");
        return !w->text->failed;
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

bool pick_writer_flush(pick_writer *w)
{
    return mqt_tb_flush(w->text);
}
