/*
 * The OBJ reader's entry points and the order of its passes (obj_internal.h):
 * check the encoding, cut the text into chunks, count, allocate the mesh
 * exactly, parse, then finish names, colours and concave polygons.
 */
#include <string.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/diag.h"
#include "obj/obj_internal.h"
#include "obj/obj_source.h"
#include "obj/obj_split.h"
#include "mesh/mesh_internal.h"

/* Below this size one thread is faster than starting more. */
#define OBJ_PARALLEL_MIN_BYTES ((size_t)1 << 20)
/* Chunks per thread: enough that uneven chunks (vertex text parses slower than
 * face text) even out. */
#define OBJ_CHUNKS_PER_THREAD 8
#define OBJ_MAX_AUTO_THREADS 16u
#define OBJ_MAX_THREADS 64u
/* Counts must fit the 32-bit indices (MQ_NO_INDEX = UINT32_MAX is reserved);
 * face lines are kept in 32 bits while they fit. */
static const obj_limits real_limits = {(uint64_t)UINT32_MAX - 1, UINT32_MAX};

mq_obj_options mq_default_obj_options(void)
{
    mq_obj_options o;
    memset(&o, 0, sizeof o);
    o.max_face_vertices = MQ_OBJ_DEFAULT_MAX_FACE_VERTICES;
    return o;
}

static unsigned thread_count(const mq_obj_options *o, size_t size)
{
    if (o->threads)
        return o->threads < OBJ_MAX_THREADS ? o->threads : OBJ_MAX_THREADS;
    if (size < OBJ_PARALLEL_MIN_BYTES)
        return 1;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    if (cpus < 1)
        return 1;
    return (unsigned)cpus < OBJ_MAX_AUTO_THREADS ? (unsigned)cpus : OBJ_MAX_AUTO_THREADS;
}

/* Everything a load owns until it hands the mesh over. */
typedef struct obj_run {
    obj_load load;
    char *tail;
    size_t tail_size;
    size_t chunk_capacity;
    mq_mesh *mesh;
} obj_run;

static void free_run(obj_run *r)
{
    const mq_allocator *a = r->load.alloc;
    for (size_t i = 0; i < r->load.chunk_count; i++) {
        obj_chunk *c = &r->load.chunks[i];
        mq_free(a, c->events, c->event_capacity * sizeof *c->events);
        mq_free(a, c->colors, (size_t)c->count.v * 3 * sizeof(float));
    }
    mq_free(a, r->load.chunks, r->chunk_capacity * sizeof *r->load.chunks);
    mq_free(a, r->tail, r->tail_size);
    mq_free(a, r->load.out.polygons, (size_t)r->load.out.total.polygons * sizeof(obj_polygon));
    mq_mesh_destroy(r->mesh); /* NULL once handed over */
}

static mq_status make_chunks(obj_run *r, const char *data, size_t size, mq_diag *diag)
{
    obj_load *L = &r->load;
    const mq_allocator *a = L->alloc;
    size_t region = mq_obj_last_statement_end(data, size);
    size_t pieces = L->threads > 1 ? (size_t)L->threads * OBJ_CHUNKS_PER_THREAD : 1;
    r->chunk_capacity = pieces + 1;
    L->chunks = mq_alloc_zero(a, r->chunk_capacity * sizeof *L->chunks, 64);
    const char **b = mq_alloc(a, pieces * sizeof *b * 2, 16);
    if (!L->chunks || !b) {
        mq_free(a, b, pieces * sizeof *b * 2);
        return mq_diag_set(diag, MQ_ERR_OUT_OF_MEMORY, L->name, 0, 0, "out of memory splitting the file");
    }
    size_t n = mq_obj_split(data, region, pieces, b, b + pieces);
    for (size_t i = 0; i < n; i++) {
        L->chunks[i].begin = b[i];
        L->chunks[i].end = b[pieces + i];
    }
    mq_free(a, b, pieces * sizeof *b * 2);
    L->chunk_count = n;
    if (region < size) {
        size_t text;
        r->tail = mq_obj_copy_tail(data + region, size - region, a, &r->tail_size, &text);
        if (!r->tail)
            return mq_diag_set(diag, MQ_ERR_OUT_OF_MEMORY, L->name, 0, 0, "out of memory splitting the file");
        L->chunks[n].begin = r->tail;
        L->chunks[n].end = r->tail + text; /* the '\0' after it stays outside, as a sentinel */
        L->chunk_count = n + 1;
    }
    return MQ_OK;
}

static void count_task(void *ctx, size_t i)
{
    obj_chunk *c = &((obj_load *)ctx)->chunks[i];
    mq_obj_count_chunk(c->begin, c->end, &c->count);
}

static void parse_task(void *ctx, size_t i)
{
    mq_obj_parse_chunk(ctx, i);
}

static void add_counts(obj_counts *sum, const obj_counts *c)
{
    sum->lines += c->lines;
    sum->v += c->v;
    sum->vt += c->vt;
    sum->vn += c->vn;
    sum->faces += c->faces;
    sum->tris += c->tris;
    sum->polygons += c->polygons;
    sum->l += c->l;
    sum->p += c->p;
}

static mq_status check_limits(const obj_load *L, mq_diag *diag)
{
    const obj_counts *t = &L->out.total;
    const struct {
        uint64_t n;
        const char *what;
    } c[] = {{t->v, "vertices"},
             {t->vt, "texture coordinates"},
             {t->vn, "normals"},
             {t->faces, "faces"},
             {t->tris, "triangles"}};
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++)
        if (c[i].n > L->max_count || c[i].n > SIZE_MAX / 16)
            return mq_diag_set(diag, MQ_ERR_LIMIT, L->name, 0, 0,
                               "the file has %llu %s; meshes index them with 32 bits (at most %llu)",
                               (unsigned long long)c[i].n, c[i].what, (unsigned long long)L->max_count);
    return MQ_OK;
}

/* Pass 1 and the offsets it gives every chunk. */
static mq_status count_pass(obj_load *L, mq_diag *diag)
{
    mq_obj_parallel(L->threads, L->chunk_count, count_task, L);
    obj_counts sum = {0};
    for (size_t i = 0; i < L->chunk_count; i++) {
        L->chunks[i].base = sum;
        add_counts(&sum, &L->chunks[i].count);
    }
    L->out.total = sum;
    return check_limits(L, diag);
}

static bool alloc_array(const mq_allocator *a, void *dst, size_t count, size_t elem)
{
    void *p = count ? mq_alloc(a, count * elem, 64) : NULL;
    memcpy(dst, &p, sizeof p);
    return p || !count;
}

/* The mesh and every array the parse pass writes, sized by the counts. */
static mq_status allocate(obj_run *r, mq_diag *diag)
{
    obj_load *L = &r->load;
    const mq_allocator *a = L->alloc;
    const obj_counts *t = &L->out.total;
    mq_mesh *m = r->mesh = mq_mesh_alloc_empty(a);
    if (!m)
        return mq_diag_set(diag, MQ_ERR_OUT_OF_MEMORY, L->name, 0, 0, "out of memory for the mesh");
    m->vertex_count = t->v;
    m->triangle_count = t->tris;
    m->face_count = t->faces;
    m->normal_count = t->vn;
    m->texcoord_count = t->vt;
    bool long_lines = t->lines + 1 > L->max_line32;
    bool ok = alloc_array(a, &m->positions, t->v, 3 * sizeof(float)) &&
              alloc_array(a, &m->indices, t->tris, 3 * sizeof(uint32_t)) &&
              alloc_array(a, &m->normals, t->vn, 3 * sizeof(float)) &&
              alloc_array(a, &m->texcoords, t->vt, 2 * sizeof(float)) &&
              alloc_array(a, &m->face_of_tri, t->tris != t->faces ? t->tris : 0, sizeof(uint32_t)) &&
              alloc_array(a, &m->face_line32, long_lines ? 0 : t->faces, sizeof(uint32_t)) &&
              alloc_array(a, &m->face_line64, long_lines ? t->faces : 0, sizeof(uint64_t)) &&
              alloc_array(a, &m->corner_normals, t->vn ? t->tris : 0, 3 * sizeof(uint32_t)) &&
              alloc_array(a, &m->corner_texcoords, t->vt ? t->tris : 0, 3 * sizeof(uint32_t)) &&
              alloc_array(a, &L->out.polygons, t->polygons, sizeof(obj_polygon));
    if (!ok)
        return mq_diag_set(diag, MQ_ERR_OUT_OF_MEMORY, L->name, 0, 0,
                           "out of memory for a mesh of %llu vertices and %llu triangles", (unsigned long long)t->v,
                           (unsigned long long)t->tris);
    obj_output *o = &L->out;
    o->positions = m->positions;
    o->texcoords = m->texcoords;
    o->normals = m->normals;
    o->indices = m->indices;
    o->corner_texcoords = m->corner_texcoords;
    o->corner_normals = m->corner_normals;
    o->face_of_tri = m->face_of_tri;
    o->face_line32 = m->face_line32;
    o->face_line64 = m->face_line64;
    return MQ_OK;
}

/* Pass 2; the first error in file order wins. */
static mq_status parse_pass(obj_load *L, mq_diag *diag)
{
    atomic_init(&L->first_failed, SIZE_MAX);
    mq_obj_parallel(L->threads, L->chunk_count, parse_task, L);
    for (size_t i = 0; i < L->chunk_count; i++) {
        if (L->chunks[i].status != MQ_OK) {
            if (diag)
                *diag = L->chunks[i].diag;
            return L->chunks[i].status;
        }
    }
    return MQ_OK;
}

/* Gathers the chunks' vertex colours, when any vertex has one. */
static mq_status gather_colors(obj_run *r, mq_diag *diag)
{
    obj_load *L = &r->load;
    bool any = false;
    for (size_t i = 0; i < L->chunk_count; i++)
        any |= L->chunks[i].colors != NULL;
    if (!any)
        return MQ_OK;
    mq_mesh *m = r->mesh;
    if (!alloc_array(L->alloc, &m->colors, m->vertex_count, 3 * sizeof(float)))
        return mq_diag_set(diag, MQ_ERR_OUT_OF_MEMORY, L->name, 0, 0, "out of memory for vertex colours");
    for (size_t i = 0; i < L->chunk_count; i++) {
        const obj_chunk *c = &L->chunks[i];
        float *dst = m->colors + 3 * c->base.v;
        size_t n = (size_t)c->count.v * 3;
        if (c->colors)
            memcpy(dst, c->colors, n * sizeof(float));
        else
            for (size_t k = 0; k < n; k++)
                dst[k] = 1.0f;
    }
    return MQ_OK;
}

/* Corner index arrays no face used are dropped (a file may list normals that
 * its faces never reference). */
static void drop_unused_corners(obj_run *r)
{
    bool vt = false, vn = false;
    for (size_t i = 0; i < r->load.chunk_count; i++) {
        vt |= r->load.chunks[i].used_vt;
        vn |= r->load.chunks[i].used_vn;
    }
    mq_mesh *m = r->mesh;
    size_t bytes = m->triangle_count * 3 * sizeof(uint32_t);
    if (!vt) {
        mq_free(r->load.alloc, m->corner_texcoords, bytes);
        m->corner_texcoords = r->load.out.corner_texcoords = NULL;
    }
    if (!vn) {
        mq_free(r->load.alloc, m->corner_normals, bytes);
        m->corner_normals = r->load.out.corner_normals = NULL;
    }
}

static void fill_stats(const obj_run *r, size_t bytes, uint64_t concave, mq_obj_stats *s)
{
    const obj_load *L = &r->load;
    const obj_counts *t = &L->out.total;
    memset(s, 0, sizeof *s);
    s->bytes = bytes;
    s->lines = t->lines;
    s->vertices = t->v;
    s->texcoords = t->vt;
    s->normals = t->vn;
    s->faces = t->faces;
    s->triangles = t->tris;
    s->clipped_faces = concave;
    s->line_elements = t->l;
    s->point_elements = t->p;
    for (size_t i = 0; i < L->chunk_count; i++) {
        const obj_chunk *c = &L->chunks[i];
        s->colored_vertices += c->colored;
        s->non_finite_values += c->non_finite;
        s->ignored_statements += c->ignored;
        if (c->unknown && !s->unknown_statements)
            s->first_unknown_line = c->first_unknown_line;
        s->unknown_statements += c->unknown;
    }
    const mq_mesh *m = r->mesh;
    s->groups = m->names[MQ_NAME_GROUP].count ? m->names[MQ_NAME_GROUP].count - 1 : 0;
    s->objects = m->names[MQ_NAME_OBJECT].count ? m->names[MQ_NAME_OBJECT].count - 1 : 0;
    s->materials = m->names[MQ_NAME_MATERIAL].count ? m->names[MQ_NAME_MATERIAL].count - 1 : 0;
    s->threads = L->threads;
}

static mq_status run_passes(obj_run *r, const char *data, size_t size, mq_diag *diag, uint64_t *concave)
{
    mq_status st;
    if ((st = make_chunks(r, data, size, diag)) != MQ_OK || (st = count_pass(&r->load, diag)) != MQ_OK ||
        (st = allocate(r, diag)) != MQ_OK || (st = parse_pass(&r->load, diag)) != MQ_OK ||
        (st = gather_colors(r, diag)) != MQ_OK)
        return st;
    drop_unused_corners(r);
    if ((st = mq_obj_resolve_names(&r->load, r->mesh, diag)) != MQ_OK)
        return st;
    return mq_obj_triangulate_polygons(&r->load, concave, diag);
}

/* Text that makes no triangle and holds a statement the reader does not know
 * (an STL or PLY file, prose) is not taken for an empty mesh: the error names
 * the first unknown statement. A file of only comments, vertices or known
 * statements still loads with 0 triangles. */
static mq_status not_obj(const obj_load *L, mq_diag *diag)
{
    if (L->out.total.tris)
        return MQ_OK;
    for (size_t i = 0; i < L->chunk_count; i++)
        if (L->chunks[i].unknown) {
            if (diag)
                *diag = L->chunks[i].unknown_diag;
            return MQ_ERR_PARSE;
        }
    return MQ_OK;
}

/* Loads text that is known to be there (data may be a mapping or the user's buffer). */
static mq_status load_text(const char *data, size_t size, const char *name, const mq_obj_options *options,
                           const obj_limits *limits, mq_mesh **out, mq_obj_stats *stats, mq_diag *diag)
{
    size_t bytes = size;
    mq_status st = mq_obj_check_encoding(&data, &size, name, diag);
    if (st != MQ_OK)
        return st;
    obj_run r;
    memset(&r, 0, sizeof r);
    r.load.options = *options;
    if (!r.load.options.max_face_vertices)
        r.load.options.max_face_vertices = MQ_OBJ_DEFAULT_MAX_FACE_VERTICES;
    r.load.alloc = options->allocator;
    r.load.name = name;
    r.load.threads = thread_count(options, size);
    r.load.max_count = limits->max_count;
    r.load.max_line32 = limits->max_line32;
    uint64_t concave = 0;
    st = run_passes(&r, data, size, diag, &concave);
    if (st == MQ_OK)
        st = not_obj(&r.load, diag);
    if (st == MQ_OK) {
        if (stats)
            fill_stats(&r, bytes, concave, stats);
        *out = r.mesh;
        r.mesh = NULL;
    }
    free_run(&r);
    return st;
}

/* Common argument checks; fills defaults. */
static mq_status begin(const mq_obj_options **options, mq_obj_options *defaults, mq_mesh **out, mq_obj_stats *stats,
                       mq_diag *diag)
{
    mq_diag_clear(diag);
    if (stats)
        memset(stats, 0, sizeof *stats);
    if (!out)
        return mq_diag_set(diag, MQ_ERR_INVALID_ARG, NULL, 0, 0, "out is NULL");
    *out = NULL;
    if (!*options) {
        *defaults = mq_default_obj_options();
        *options = defaults;
    }
    return MQ_OK;
}

mq_status mq_obj_load_memory_limited(const void *data, size_t size, const char *name, const mq_obj_options *options,
                                     const obj_limits *limits, mq_mesh **out, mq_obj_stats *stats, mq_diag *diag)
{
    mq_obj_options defaults;
    mq_status st = begin(&options, &defaults, out, stats, diag);
    if (st != MQ_OK)
        return st;
    if (!name)
        name = "<memory>";
    if (!data && size)
        return mq_diag_set(diag, MQ_ERR_INVALID_ARG, name, 0, 0, "data is NULL but size is %zu", size);
    return load_text(data ? data : "", size, name, options, limits ? limits : &real_limits, out, stats, diag);
}

mq_status mq_obj_load_memory(const void *data, size_t size, const char *name, const mq_obj_options *options,
                             mq_mesh **out, mq_obj_stats *stats, mq_diag *diag)
{
    return mq_obj_load_memory_limited(data, size, name, options, NULL, out, stats, diag);
}

mq_status mq_obj_load(const char *path, const mq_obj_options *options, mq_mesh **out, mq_obj_stats *stats,
                      mq_diag *diag)
{
    mq_obj_options defaults;
    mq_status st = begin(&options, &defaults, out, stats, diag);
    if (st != MQ_OK)
        return st;
    if (!path)
        return mq_diag_set(diag, MQ_ERR_INVALID_ARG, NULL, 0, 0, "path is NULL");
    obj_source src;
    if ((st = mq_obj_source_open(&src, path, options->allocator, diag)) != MQ_OK)
        return st;
    st = load_text(src.data, src.size, path, options, &real_limits, out, stats, diag);
    mq_obj_source_close(&src, options->allocator);
    return st;
}
