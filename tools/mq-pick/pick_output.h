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

typedef struct pick_writer {
    FILE *out;
    pick_format format;
    const char *mesh_path; /* named in every JSON / CSV record */
    const mq_mesh *mesh;
    bool wrote_header;
    mqt_textbuf *text; /* JSON and CSV records go through this buffer (see pick_writer_flush) */
} pick_writer;

/* Chooses the format from an explicit flag, else from the extension of `out_path`. */
pick_format pick_format_for(const char *out_path, const char *forced);

/* One closest hit (or miss: hit == NULL) of ray `ray_index`; `rank` numbers the hits of
 * one ray in --all mode (0 for the closest). Returns false on a write error. */
bool pick_write_hit(pick_writer *w, size_t ray_index, size_t rank, const mq_hit *hit);

/* One any-hit answer. */
bool pick_write_occlusion(pick_writer *w, size_t ray_index, bool occluded);

/* Writes out the buffered JSON / CSV text; false if any write failed. Call before closing `out`. */
bool pick_writer_flush(pick_writer *w);

#endif
