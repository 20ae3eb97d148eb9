/*
 * The OBJ reader's moving parts and how they meet.
 *
 * A load runs in passes over line-aligned chunks of the text, each pass on all
 * threads at once (obj_threads.c):
 *   1. count (obj_count.c): how many v, vt, vn, faces, triangles, polygons,
 *      l, p and lines each chunk holds. Prefix sums of these give every chunk
 *      its offsets in the final arrays, which are then allocated exactly once.
 *   2. parse (obj_parse.c): each chunk writes its positions, normals, texture
 *      coordinates and fan-triangulated faces straight into the final arrays,
 *      and records its name statements (g, o, usemtl) as events.
 *   3. finish (obj_reader.c, obj_names.c, obj_polygons.c): name events become name
 *      tables and per-face ids; polygons with more than 3 corners are checked for
 *      convexity and the concave ones re-cut by ear clipping (triangulate.c),
 *      which needs every position in place first.
 * Two passes cost a fast counting scan but give exact allocations (peak memory
 * = the text + the final mesh) and let threads write without any merge step.
 */
#ifndef MQ_OBJ_OBJ_INTERNAL_H
#define MQ_OBJ_OBJ_INTERNAL_H

#include <meshquery/obj.h>
#include <stdatomic.h>

/* What the counting pass finds in a chunk (and, summed, where a chunk starts). */
typedef struct obj_counts {
    uint64_t lines; /* line ends, continuations included */
    uint64_t v, vt, vn;
    uint64_t faces;
    uint64_t tris;     /* sum of (corners - 2) over faces with >= 3 corners */
    uint64_t polygons; /* faces with more than 3 corners */
    uint64_t l, p;
} obj_counts;

/* A face with more than 3 corners, fan-triangulated by the parse pass. */
typedef struct obj_polygon {
    uint32_t first_tri;
    uint32_t corners;
} obj_polygon;

/* A g / o / usemtl statement: applies to faces from `face` on. */
typedef struct obj_name_event {
    const char *text; /* raw statement text after the keyword (normalised later) */
    size_t length;
    uint64_t face; /* global index of the first face it applies to */
    uint8_t kind;  /* mq_name_kind */
} obj_name_event;

/* One corner of a face being parsed: 0-based indices, MQ_NO_INDEX when absent. */
typedef struct obj_corner {
    uint32_t v, vt, vn;
} obj_corner;

/* The final arrays every chunk writes into, at its own offsets. */
typedef struct obj_output {
    float *positions;
    float *texcoords;
    float *normals;
    uint32_t *indices;
    uint32_t *corner_texcoords; /* NULL when the file has no vt */
    uint32_t *corner_normals;   /* NULL when the file has no vn */
    uint32_t *face_of_tri;      /* NULL when every face is a triangle */
    uint32_t *face_line32;      /* one of the two, by the file's line count */
    uint64_t *face_line64;
    obj_polygon *polygons;
    obj_counts total;
} obj_output;

/* A chunk of text and everything the passes learn about it. */
typedef struct obj_chunk {
    const char *begin, *end; /* whole statements; end is after a line end (see obj_reader.c) */
    obj_counts count;        /* pass 1 */
    obj_counts base;         /* sum of the counts of the chunks before it */
    /* pass 2 */
    obj_name_event *events;
    size_t event_count, event_capacity;
    float *colors; /* 3 per vertex of this chunk, allocated at its first coloured vertex */
    uint64_t colored, non_finite, ignored, unknown, first_unknown_line;
    mq_diag unknown_diag; /* where the chunk's first unknown statement is (see obj_reader.c's not_obj) */
    bool used_vt, used_vn;
    mq_status status;
    mq_diag diag;
} obj_chunk;

/* The whole load. */
typedef struct obj_load {
    const mq_allocator *alloc;
    mq_obj_options options;
    const char *name; /* path or memory name, for diagnostics */
    obj_chunk *chunks;
    size_t chunk_count;
    obj_output out;
    unsigned threads;
    uint64_t max_count;         /* most elements of one kind: UINT32_MAX - 1 (tests lower it) */
    uint64_t max_line32;        /* face lines beyond this are stored in 64 bits: UINT32_MAX (tests lower it) */
    atomic_size_t first_failed; /* lowest failed chunk so far: later chunks stop early */
} obj_load;

/* Limits that depend on 32-bit ranges, lowered by tests to reach what only
 * files with billions of elements or lines would otherwise reach. */
typedef struct obj_limits {
    uint64_t max_count;  /* most elements of one kind */
    uint64_t max_line32; /* the last line number stored in 32 bits */
} obj_limits;

/* mq_obj_load_memory with other limits (NULL: the real ones). */
mq_status mq_obj_load_memory_limited(const void *data, size_t size, const char *name, const mq_obj_options *options,
                                     const obj_limits *limits, mq_mesh **out, mq_obj_stats *stats, mq_diag *diag);

/* Pass 1 on one chunk. */
void mq_obj_count_chunk(const char *p, const char *end, obj_counts *c);

/* Pass 2 on one chunk; fills the chunk's status and diag on failure. */
void mq_obj_parse_chunk(obj_load *load, size_t chunk);

/* Fills diag with a parse error at `at` inside the statement whose line starts
 * at `stmt` (line `stmt_line`), adding the file name, line and column. `end` is
 * the end of the input when the statement is in the last chunk (the message
 * then says when nothing but blanks follows: a truncated file), else NULL.
 * Returns `status`. */
mq_status mq_obj_error_at(mq_diag *diag, mq_status status, const char *name, const char *stmt, uint64_t stmt_line,
                          const char *at, const char *end, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 8, 9)))
#endif
    ;

/* Copies the token at p (up to a blank or line end, at most `cap`-1 bytes, with
 * unprintable bytes as '?') into buf, for messages. */
void mq_obj_token_text(const char *p, char *buf, size_t cap);

/* Runs fn(ctx, task) for task in [0, tasks) on up to `threads` threads (the
 * caller's included), handing out tasks in increasing order. Returns the number
 * of threads that ran (fewer when threads could not be started). */
unsigned mq_obj_parallel(unsigned threads, size_t tasks, void (*fn)(void *ctx, size_t task), void *ctx);

/* Name events of all chunks -> the mesh's name tables and per-face ids. */
mq_status mq_obj_resolve_names(obj_load *load, mq_mesh *mesh, mq_diag *diag);

/* Re-cuts the concave polygons among out.polygons; counts them. */
mq_status mq_obj_triangulate_polygons(obj_load *load, uint64_t *concave, mq_diag *diag);

#endif
