/*
 * mq-pick's answer writers: a table for people, JSON lines and CSV for
 * programs, and the binary .hits / .occl files of docs/formats.md.
 */
#ifndef MQ_PICK_OUTPUT_H
#define MQ_PICK_OUTPUT_H

#include <stdio.h>

#include <meshquery/bvh.h>

#include "textfmt.h"

typedef enum pick_format {
    PICK_TABLE,
    PICK_JSON,
    PICK_CSV,
    PICK_HITS, /* binary: float32 t + uint32 triangle per ray */
    PICK_OCCL  /* binary: uint8 per ray */
} pick_format;

/* Where the triangles of one instance (a mesh argument) come from. */
typedef struct pick_source {
    const char *path;        /* named in every JSON / CSV record */
    const mq_mesh *mesh;     /* for the face, line and names of a triangle */
    uint32_t first_triangle; /* .hits / .overlaps id of its triangle 0: the triangles of the instances before */
} pick_source;

typedef struct pick_writer {
    FILE *out;
    pick_format format;
    const pick_source *sources; /* indexed by instance; one (instance 0) for a single mesh */
    bool name_instance;         /* several meshes or a placement: records name the instance */
    bool wrote_header;
    mqt_textbuf *text; /* JSON and CSV records go through this buffer (see pick_writer_flush) */
} pick_writer;

/* Chooses the format from an explicit flag, else from the extension of `out_path`. */
pick_format pick_format_for(const char *out_path, const char *forced);

/* One closest hit (or miss: hit == NULL) of ray `ray_index` on `instance`; `rank` numbers the
 * hits of one ray in --all mode (0 for the closest). Returns false on a write error. */
bool pick_write_hit(pick_writer *w, size_t ray_index, size_t rank, const mq_hit *hit, uint32_t instance);

/*
 * The text of a source's JSON / CSV records that is the same for every hit, escaped once
 * instead of once per hit: the file (and instance), and each group, object and material
 * name with its key. Piece k is chars[cut[k], cut[k + 1]); piece 0 is the file, then the
 * names, kind by kind, name id order (first_name[kind] is the piece of a kind's name 0).
 */
typedef struct pick_source_text {
    char *chars;
    size_t *cut;
    uint32_t first_name[3]; /* indexed by mq_name_kind */
} pick_source_text;

/* The texts of w's sources 0..count-1 for w's format (JSON or CSV); NULL when out of memory. */
pick_source_text *pick_source_texts_new(const pick_writer *w, uint32_t count);
void pick_source_texts_free(pick_source_text *texts, uint32_t count);

/*
 * The records of rays first..first+count-1, exactly as pick_write_hit(w, i, 0, hit, instance)
 * would write them (JSON or CSV; a miss where hits[i].triangle == MQ_NO_TRIANGLE; instances
 * NULL: all 0), with texts from pick_source_texts_new (covering every instance used). Write
 * errors show in w->text->failed.
 */
void pick_write_hit_records(pick_writer *w, const pick_source_text *texts, const mq_hit *hits,
                            const uint32_t *instances, size_t first, size_t count);

/* One any-hit answer. */
bool pick_write_occlusion(pick_writer *w, size_t ray_index, bool occluded);

/* A CSV field, quoted when it holds a separator, quote or line break. */
void pick_csv_string(mqt_textbuf *b, const char *s);

/* Writes out the buffered JSON / CSV text; false if any write failed. Call before closing `out`. */
bool pick_writer_flush(pick_writer *w);

#endif
