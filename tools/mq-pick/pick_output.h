/*
 * mq-pick's answer writers: a table for people, JSON lines and CSV for
 * programs, and the binary .hits / .occl files of ../shared/FORMATS.md.
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

/* One any-hit answer. */
bool pick_write_occlusion(pick_writer *w, size_t ray_index, bool occluded);

/* A CSV field, quoted when it holds a separator, quote or line break. */
void pick_csv_string(mqt_textbuf *b, const char *s);

/* Writes out the buffered JSON / CSV text; false if any write failed. Call before closing `out`. */
bool pick_writer_flush(pick_writer *w);

#endif
