/*
 * Saved hierarchies (meshquery/saved.h): round trips on every test mesh
 * (identical arena, mesh and bit-identical query answers), every single-byte
 * corruption and every truncation of a small file rejected, header checks,
 * forged files (checksums recomputed) rejected or safe, allocation failures at
 * every allocation without leaks, and I/O faults (missing files, directories,
 * read-only directories, /dev/full, a full disk, short reads, read errors, a
 * file that shrinks while it is read, pipes) with clean errors and no
 * temporary file left behind; then the corruption, forgery, allocation and
 * I/O tests again with the sections read a few bytes at a time and by several
 * threads (mq_saved_tune), as large files are. Mapped loads (mq_*_load_mapped)
 * go through the round trips, refits, truncations, byte flips of files on
 * disk and allocation failures too, their arrays checked to lie in the
 * mapping and every mapping checked to be gone after destroy or failure.
 *
 * With MQ_SAVED_WRITE_CORPUS=DIR set, the seed files of tests/fuzz/corpus_load
 * are (re)written into DIR (not the v1_* and regress_* ones: files of format
 * version 1 and past findings).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <meshquery/meshquery.h>

#include "bvh/bvh_internal.h"
#include "bvh/leaf_pack.h"
#include "obbtree/obbtree_internal.h"
#include "saved/saved_format.h"
#include "mesh/mesh_internal.h"
#include "test_support.h"

/* ------------------------------------------------------------------------- */
/* Fixtures                                                                  */
/* ------------------------------------------------------------------------- */

/* A small OBJ that uses every mesh attribute: colours, uvs, normals, groups,
 * objects, materials, a polygon (face_of_tri), lines. */
static char *rich_text(size_t *len)
{
    size_t cap = 1 << 15, n = 0;
    char *t = malloc(cap);
    assert_non_null(t);
    for (int i = 0; i < 24; i++)
        n += (size_t)snprintf(t + n, cap - n, "v %d %d %d 0.25 0.5 0.75\n", i % 5, i / 5, (i * 7) % 3);
    n += (size_t)snprintf(t + n, cap - n, "vt 0 0\nvt 1 0\nvt 0 1\nvn 0 0 1\nvn 0 1 0\n");
    for (int i = 0; i < 12; i++)
        n += (size_t)snprintf(t + n, cap - n, "g grp%d\nusemtl mat%d\no obj%d\nf %d/1/1 %d/2/2 %d/3\n", i % 4, i % 3,
                              i % 2, 1 + i, 2 + i, 7 + i);
    n += (size_t)snprintf(t + n, cap - n, "f 1 2 8 7 6\nf 3//1 4//1 9//2\n");
    *len = n;
    return t;
}

static mq_mesh *rich_mesh(const mq_allocator *a)
{
    size_t len;
    char *text = rich_text(&len);
    mq_obj_options o = mq_default_obj_options();
    o.allocator = a;
    mq_mesh *m = NULL;
    mq_diag d;
    if (mq_obj_load_memory(text, len, "rich.obj", &o, &m, NULL, &d) != MQ_OK)
        fail_msg("rich.obj: %s", d.message);
    free(text);
    return m;
}

static mq_bvh *build_bvh(const mq_mesh *m, uint32_t threads)
{
    mq_bvh_def def = mq_default_bvh_def();
    def.threads = threads;
    mq_bvh *b = NULL;
    mq_diag d;
    if (mq_bvh_build(m, &def, &b, &d) != MQ_OK)
        fail_msg("bvh build: %s", d.message);
    return b;
}

static mq_obbtree *build_tree(const mq_mesh *m)
{
    mq_obbtree *t = NULL;
    mq_diag d;
    if (mq_obbtree_build(m, NULL, &t, &d) != MQ_OK)
        fail_msg("obbtree build: %s", d.message);
    return t;
}

static void save_bvh_mem(const mq_bvh *b, void **data, size_t *size)
{
    mq_diag d;
    if (mq_bvh_save_memory(b, NULL, data, size, &d) != MQ_OK)
        fail_msg("bvh save: %s", d.message);
}

static void save_tree_mem(const mq_obbtree *t, void **data, size_t *size)
{
    mq_diag d;
    if (mq_obbtree_save_memory(t, NULL, data, size, &d) != MQ_OK)
        fail_msg("obbtree save: %s", d.message);
}

/* A scratch directory under TMPDIR, removed (with its files) at the end. */
static char g_dir[512];

static int make_dir(void **state)
{
    (void)state;
    const char *tmp = getenv("TMPDIR");
    snprintf(g_dir, sizeof g_dir, "%s/mq_saved_XXXXXX", tmp && *tmp ? tmp : "/tmp");
    return mkdtemp(g_dir) ? 0 : -1;
}

static void remove_tree(const char *path)
{
    DIR *d = opendir(path);
    if (!d) {
        unlink(path);
        return;
    }
    chmod(path, 0755);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char child[1024];
        snprintf(child, sizeof child, "%s/%s", path, e->d_name);
        remove_tree(child);
    }
    closedir(d);
    rmdir(path);
}

static int remove_dir(void **state)
{
    (void)state;
    remove_tree(g_dir);
    return 0;
}

static const char *scratch(const char *name)
{
    static char buf[4][1024];
    static int slot;
    char *p = buf[slot++ & 3];
    snprintf(p, sizeof buf[0], "%s/%s", g_dir, name);
    return p;
}

/* Entries of a directory whose name contains `part`. */
static int count_entries(const char *dir, const char *part)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        n += strstr(e->d_name, part) != NULL;
    closedir(d);
    return n;
}

static void write_file(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, size, f), size);
    assert_int_equal(fclose(f), 0);
}

static void *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    void *p = malloc((size_t)n + 1);
    assert_int_equal(fread(p, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *size = (size_t)n;
    return p;
}

/* ------------------------------------------------------------------------- */
/* Equality                                                                  */
/* ------------------------------------------------------------------------- */

static void same_bytes(const void *a, const void *b, size_t n, const char *what)
{
    if ((a == NULL) != (b == NULL))
        fail_msg("%s: present in one mesh only", what);
    if (a && n && memcmp(a, b, n) != 0)
        fail_msg("%s differ", what);
}

static void same_mesh(const mq_mesh *a, const mq_mesh *b)
{
    assert_int_equal(a->vertex_count, b->vertex_count);
    assert_int_equal(a->triangle_count, b->triangle_count);
    assert_int_equal(a->face_count, b->face_count);
    assert_int_equal(a->normal_count, b->normal_count);
    assert_int_equal(a->texcoord_count, b->texcoord_count);
    size_t v = a->vertex_count, t = a->triangle_count, f = a->face_count;
    same_bytes(a->positions, b->positions, v * 12, "positions");
    same_bytes(a->indices, b->indices, t * 12, "indices");
    same_bytes(a->face_of_tri, b->face_of_tri, t * 4, "face_of_tri");
    same_bytes(a->face_line32, b->face_line32, f * 4, "face lines");
    if (!a->face_line32)
        same_bytes(a->face_line64, b->face_line64, f * 8, "64-bit face lines");
    for (int k = 0; k < 3; k++) {
        assert_int_equal(a->names[k].count, b->names[k].count);
        if (a->names[k].count) {
            assert_int_equal(a->names[k].chars_size, b->names[k].chars_size);
            same_bytes(a->names[k].chars, b->names[k].chars, a->names[k].chars_size, "name chars");
            same_bytes(a->names[k].offsets, b->names[k].offsets, a->names[k].count * sizeof(size_t), "name offsets");
        }
        same_bytes(a->face_names[k].ids, b->face_names[k].ids, f * 4, "face name ids");
        if (!a->face_names[k].ids)
            assert_int_equal(a->face_names[k].uniform, b->face_names[k].uniform);
    }
    same_bytes(a->normals, b->normals, a->normal_count * 12, "normals");
    same_bytes(a->corner_normals, b->corner_normals, t * 12, "corner normals");
    same_bytes(a->texcoords, b->texcoords, a->texcoord_count * 8, "texcoords");
    same_bytes(a->corner_texcoords, b->corner_texcoords, t * 12, "corner texcoords");
    same_bytes(a->colors, b->colors, v * 12, "colors");
}

static void same_bvh(const mq_bvh *a, const mq_bvh *b)
{
    assert_int_equal(a->root, b->root);
    assert_memory_equal(a->root_box, b->root_box, sizeof a->root_box);
    assert_int_equal(a->arena_bytes, b->arena_bytes);
    if (a->arena_bytes)
        assert_memory_equal(a->arena, b->arena, a->arena_bytes);
    assert_int_equal(a->node_count, b->node_count);
    assert_int_equal(a->block_count, b->block_count);
    assert_int_equal(a->leaf_count, b->leaf_count);
    assert_int_equal(a->max_depth, b->max_depth);
    assert_true(b->owned_mesh != NULL && b->mesh == b->owned_mesh);
    assert_ptr_equal(mq_bvh_mesh(b), b->owned_mesh);
    same_mesh(a->mesh, b->mesh);
}

static void same_tree(const mq_obbtree *a, const mq_obbtree *b)
{
    assert_int_equal(a->fit, b->fit);
    assert_int_equal(a->leaf_size, b->leaf_size);
    assert_int_equal(a->depth, b->depth);
    assert_int_equal(a->node_count, b->node_count);
    assert_int_equal(a->tri_count, b->tri_count);
    assert_memory_equal(&a->magnitude, &b->magnitude, sizeof a->magnitude);
    if (a->node_count)
        assert_memory_equal(a->nodes, b->nodes, a->node_count * sizeof *a->nodes);
    if (a->tri_count) {
        assert_memory_equal(a->tris, b->tris, a->tri_count * sizeof *a->tris);
        assert_memory_equal(a->ids, b->ids, a->tri_count * sizeof *a->ids);
    }
    assert_true(b->owned_mesh != NULL && b->mesh == b->owned_mesh);
    same_mesh(a->mesh, b->mesh);
}

/* Mapped loads: where mmap exists, the large arrays lie in the object's mapping. */
#if defined(__unix__) || defined(__APPLE__)
#define MAPPING 1
#endif

#if defined(MAPPING)
static bool in_mapping(const void *p, const void *map, size_t bytes)
{
    return p && (uintptr_t)p >= (uintptr_t)map && (uintptr_t)p - (uintptr_t)map < bytes;
}

static void mapped_mesh(const mq_mesh *m, const void *map, size_t bytes)
{
    assert_true(m->vertex_count == 0 || in_mapping(m->positions, map, bytes));
    assert_true(m->triangle_count == 0 || in_mapping(m->indices, map, bytes));
    assert_true(!m->colors || in_mapping(m->colors, map, bytes));
    assert_true(!m->corner_normals || in_mapping(m->corner_normals, map, bytes));
}
#endif

static void mapped_bvh(const mq_bvh *b)
{
#if defined(MAPPING)
    assert_non_null(b->map);
    assert_true(!b->arena_bytes || in_mapping(b->arena, b->map, b->map_bytes));
    assert_int_equal((uintptr_t)b->arena % 64, 0);
    mapped_mesh(b->mesh, b->map, b->map_bytes);
#else
    (void)b;
#endif
}

static void mapped_tree(const mq_obbtree *t)
{
#if defined(MAPPING)
    assert_non_null(t->map);
    assert_true(!t->node_count ||
                (in_mapping(t->nodes, t->map, t->map_bytes) && in_mapping(t->ids, t->map, t->map_bytes)));
    mapped_mesh(t->mesh, t->map, t->map_bytes);
#else
    (void)t;
#endif
}

/* Mappings of `path` in this process (Linux: /proc/self/maps; elsewhere 0). */
static int mappings_of(const char *path)
{
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f)
        return 0;
    char line[2048];
    int n = 0;
    size_t len = strlen(path);
    while (fgets(line, sizeof line, f)) {
        size_t l = strlen(line);
        while (l && (line[l - 1] == '\n' || line[l - 1] == ' '))
            line[--l] = '\0';
        if (l >= len && strcmp(line + l - len, path) == 0)
            n++;
    }
    fclose(f);
    return n;
}

/* Every field of two hit records, bit for bit (not the struct padding). */
#define SAME_FIELD(x, y, f)                                                                                            \
    do {                                                                                                               \
        if (memcmp(&(x)->f, &(y)->f, sizeof((x)->f)) != 0)                                                             \
            fail_msg("hit field %s differs (ray %zu)", #f, ray_no);                                                    \
    } while (0)

static void same_hit(const mq_hit *x, const mq_hit *y, size_t ray_no)
{
    SAME_FIELD(x, y, t);
    SAME_FIELD(x, y, point);
    SAME_FIELD(x, y, normal);
    SAME_FIELD(x, y, u);
    SAME_FIELD(x, y, v);
    SAME_FIELD(x, y, triangle);
    SAME_FIELD(x, y, face);
    SAME_FIELD(x, y, back_face);
    SAME_FIELD(x, y, has_shading_normal);
    SAME_FIELD(x, y, has_uv);
    SAME_FIELD(x, y, shading_normal);
    SAME_FIELD(x, y, uv);
    SAME_FIELD(x, y, group);
    SAME_FIELD(x, y, object);
    SAME_FIELD(x, y, material);
}

static void mesh_bounds(const mq_mesh *m, float lo[3], float hi[3])
{
    for (int k = 0; k < 3; k++)
        lo[k] = INFINITY, hi[k] = -INFINITY;
    const float *p = mq_mesh_positions(m);
    for (size_t i = 0; i < mq_mesh_vertex_count(m); i++)
        for (int k = 0; k < 3; k++)
            if (isfinite(p[3 * i + k])) {
                lo[k] = fminf(lo[k], p[3 * i + k]);
                hi[k] = fmaxf(hi[k], p[3 * i + k]);
            }
    for (int k = 0; k < 3; k++)
        if (!(lo[k] <= hi[k]))
            lo[k] = -1, hi[k] = 1;
}

/* Rays from around the mesh towards random points of its box, and (every third)
 * towards a random vertex, so edges and vertices get hit too. */
static void random_ray(mq_test_rng *rng, const mq_mesh *m, const float lo[3], const float hi[3], mq_ray *r)
{
    float c[3], ext = 0.0f;
    for (int k = 0; k < 3; k++) {
        c[k] = 0.5f * (lo[k] + hi[k]);
        ext = fmaxf(ext, hi[k] - lo[k]);
    }
    double dir[3];
    mq_test_rng_unit_vector(rng, dir);
    float target[3];
    size_t nv = mq_mesh_vertex_count(m);
    if (nv && mq_test_rng_u64(rng) % 3 == 0) {
        const float *p = mq_mesh_positions(m) + 3 * (mq_test_rng_u64(rng) % nv);
        memcpy(target, p, sizeof target);
    } else {
        for (int k = 0; k < 3; k++)
            target[k] = (float)mq_test_rng_range(rng, lo[k], hi[k]);
    }
    for (int k = 0; k < 3; k++) {
        r->origin[k] = c[k] + (float)(dir[k] * 1.5 * ext);
        r->dir[k] = target[k] - r->origin[k];
    }
    r->tmin = 0.0f;
    r->tmax = INFINITY;
}

static void same_bvh_answers(const mq_bvh *a, const mq_bvh *b, size_t rays, uint64_t seed)
{
    mq_test_rng rng;
    mq_test_rng_seed(&rng, seed);
    float lo[3], hi[3];
    mesh_bounds(a->mesh, lo, hi);
    mq_hit ha[8], hb[8];
    for (size_t i = 0; i < rays; i++) {
        mq_ray r;
        random_ray(&rng, a->mesh, lo, hi, &r);
        mq_ray_query q = mq_default_ray_query();
        q.cull_back_faces = (i & 4) != 0;
        memset(ha, 0, sizeof ha);
        memset(hb, 0, sizeof hb);
        bool xa = mq_bvh_raycast_closest(a, &r, &q, &ha[0]), xb = mq_bvh_raycast_closest(b, &r, &q, &hb[0]);
        assert_int_equal(xa, xb);
        same_hit(&ha[0], &hb[0], i);
        assert_int_equal(mq_bvh_raycast_any(a, &r, &q), mq_bvh_raycast_any(b, &r, &q));
        if (i % 8 == 0) {
            memset(ha, 0, sizeof ha);
            memset(hb, 0, sizeof hb);
            size_t na = mq_bvh_raycast_all(a, &r, &q, ha, 8), nb = mq_bvh_raycast_all(b, &r, &q, hb, 8);
            assert_int_equal(na, nb);
            for (size_t k = 0; k < na && k < 8; k++)
                same_hit(&ha[k], &hb[k], i);
        }
    }
}

static bool collect_id(uint32_t tri, void *user)
{
    uint32_t *c = user;
    c[0]++;
    c[1] = c[1] * 31u + tri; /* order-sensitive: the same tree reports in the same order */
    return true;
}

static void same_tree_answers(const mq_obbtree *a, const mq_obbtree *b, size_t queries, uint64_t seed)
{
    mq_test_rng rng;
    mq_test_rng_seed(&rng, seed);
    float lo[3], hi[3];
    mesh_bounds(a->mesh, lo, hi);
    float ext = fmaxf(hi[0] - lo[0], fmaxf(hi[1] - lo[1], hi[2] - lo[2]));
    for (size_t i = 0; i < queries; i++) {
        mq_ray r;
        random_ray(&rng, a->mesh, lo, hi, &r);
        mq_hit ha, hb;
        memset(&ha, 0, sizeof ha);
        memset(&hb, 0, sizeof hb);
        assert_int_equal(mq_obbtree_raycast_closest(a, &r, NULL, &ha), mq_obbtree_raycast_closest(b, &r, NULL, &hb));
        same_hit(&ha, &hb, i);
        mq_sphere s;
        for (int k = 0; k < 3; k++)
            s.center[k] = (float)mq_test_rng_range(&rng, lo[k], hi[k]);
        s.radius = (float)mq_test_rng_range(&rng, 0.0, 0.2 * ext);
        uint32_t ca[2] = {0, 0}, cb[2] = {0, 0};
        mq_obbtree_overlap(a, &(mq_shape){MQ_SHAPE_SPHERE, {.sphere = s}}, collect_id, ca);
        mq_obbtree_overlap(b, &(mq_shape){MQ_SHAPE_SPHERE, {.sphere = s}}, collect_id, cb);
        assert_memory_equal(ca, cb, sizeof ca);
        mq_aabb box;
        for (int k = 0; k < 3; k++) {
            float x = (float)mq_test_rng_range(&rng, lo[k], hi[k]), w = (float)mq_test_rng_range(&rng, 0, 0.2 * ext);
            box.min[k] = x - w;
            box.max[k] = x + w;
        }
        ca[0] = ca[1] = cb[0] = cb[1] = 0;
        mq_obbtree_overlap(a, &(mq_shape){MQ_SHAPE_AABB, {.aabb = box}}, collect_id, ca);
        mq_obbtree_overlap(b, &(mq_shape){MQ_SHAPE_AABB, {.aabb = box}}, collect_id, cb);
        assert_memory_equal(ca, cb, sizeof ca);
        mq_point_hit pa, pb;
        memset(&pa, 0, sizeof pa);
        memset(&pb, 0, sizeof pb);
        assert_int_equal(mq_obbtree_closest_point(a, s.center, INFINITY, &pa),
                         mq_obbtree_closest_point(b, s.center, INFINITY, &pb));
        assert_memory_equal(&pa, &pb, sizeof pa);
    }
}

/* ------------------------------------------------------------------------- */
/* Round trips                                                               */
/* ------------------------------------------------------------------------- */

static size_t g_meshes_done;

static void round_trip_mesh(const mq_mesh *m, const char *name, size_t rays)
{
    mq_diag d;
    mq_bvh *bvh = build_bvh(m, 0);
    mq_obbtree *tree = build_tree(m);

    /* Memory. */
    void *data;
    size_t size;
    save_bvh_mem(bvh, &data, &size);
    assert_int_equal((uintptr_t)data % 64, 0);
    mq_bvh *lb = NULL;
    if (mq_bvh_load_memory(data, size, NULL, &lb, &d) != MQ_OK)
        fail_msg("%s: bvh load: %s", name, d.message);
    same_bvh(bvh, lb);
    if (mq_bvh_validate(lb, &d) != MQ_OK)
        fail_msg("%s: loaded bvh invalid: %s", name, d.message);
    same_bvh_answers(bvh, lb, rays, 1234);
    /* A loaded BVH saves to the very same bytes. */
    void *again;
    size_t again_size;
    save_bvh_mem(lb, &again, &again_size);
    assert_int_equal(again_size, size);
    assert_memory_equal(again, data, size);
    mq_saved_free(again, again_size, NULL);

    /* File. */
    const char *path = scratch("round.mqh");
    if (mq_bvh_save(bvh, path, &d) != MQ_OK)
        fail_msg("%s: bvh save: %s", name, d.message);
    size_t fsize;
    void *fdata = read_file(path, &fsize);
    assert_int_equal(fsize, size);
    assert_memory_equal(fdata, data, size);
    free(fdata);
    mq_bvh *fb = NULL;
    if (mq_bvh_load(path, NULL, &fb, &d) != MQ_OK)
        fail_msg("%s: bvh load file: %s", name, d.message);
    same_bvh(bvh, fb);
    same_bvh_answers(bvh, fb, rays / 4, 99);
    mq_bvh_destroy(fb);
    /* Mapped: the same BVH, the same answers, the same bytes saved again. */
    fb = NULL;
    if (mq_bvh_load_mapped(path, NULL, &fb, &d) != MQ_OK)
        fail_msg("%s: bvh load mapped: %s", name, d.message);
    mapped_bvh(fb);
    same_bvh(bvh, fb);
    same_bvh_answers(bvh, fb, rays / 4, 98);
    save_bvh_mem(fb, &again, &again_size);
    assert_int_equal(again_size, size);
    assert_memory_equal(again, data, size);
    mq_saved_free(again, again_size, NULL);
    mq_bvh_destroy(fb);
    assert_int_equal(mappings_of(path), 0);
    mq_bvh_destroy(lb);
    mq_saved_free(data, size, NULL);

    /* OBB tree, memory and file. */
    save_tree_mem(tree, &data, &size);
    mq_obbtree *lt = NULL;
    if (mq_obbtree_load_memory(data, size, NULL, &lt, &d) != MQ_OK)
        fail_msg("%s: obbtree load: %s", name, d.message);
    same_tree(tree, lt);
    same_tree_answers(tree, lt, rays / 2, 4321);
    if (mq_obbtree_save(tree, path, &d) != MQ_OK)
        fail_msg("%s: obbtree save: %s", name, d.message);
    mq_obbtree *ft = NULL;
    if (mq_obbtree_load(path, NULL, &ft, &d) != MQ_OK)
        fail_msg("%s: obbtree load file: %s", name, d.message);
    same_tree(tree, ft);
    same_tree_answers(tree, ft, rays / 8, 77);
    mq_obbtree_destroy(ft);
    ft = NULL;
    if (mq_obbtree_load_mapped(path, NULL, &ft, &d) != MQ_OK)
        fail_msg("%s: obbtree load mapped: %s", name, d.message);
    mapped_tree(ft);
    same_tree(tree, ft);
    same_tree_answers(tree, ft, rays / 8, 78);
    mq_obbtree_destroy(ft);
    assert_int_equal(mappings_of(path), 0);
    mq_obbtree_destroy(lt);
    mq_saved_free(data, size, NULL);
    assert_int_equal(count_entries(g_dir, ".tmp-"), 0);
    unlink(path);

    mq_obbtree_destroy(tree);
    mq_bvh_destroy(bvh);
    g_meshes_done++;
}

static void round_trip_dir(const char *dir, size_t *count)
{
    DIR *d = opendir(dir);
    if (!d)
        fail_msg("cannot open %s", dir);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t n = strlen(e->d_name);
        if (n < 5 || strcmp(e->d_name + n - 4, ".obj") != 0)
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(path, &st) != 0 || st.st_size > 50 * 1024 * 1024) /* keep CI short */
            continue;
        mq_mesh *m = NULL;
        mq_diag dg;
        if (mq_obj_load(path, NULL, &m, NULL, &dg) != MQ_OK)
            fail_msg("%s: %s", path, dg.message);
        round_trip_mesh(m, e->d_name, 3000);
        mq_mesh_destroy(m);
        ++*count;
    }
    closedir(d);
}

static void round_trip_every_mesh(void **state)
{
    (void)state;
    size_t count = 0;
    round_trip_dir(MQ_DATA_DIR, &count);
    print_message("round trips on %zu meshes\n", count);
    assert_true(count >= 7); /* the meshes of data/SOURCES.md */
}

static void round_trip_special_meshes(void **state)
{
    (void)state;
    /* Rich OBJ metadata. */
    mq_mesh *m = rich_mesh(NULL);
    assert_non_null(m->face_of_tri);
    assert_non_null(m->corner_normals);
    assert_non_null(m->colors);
    round_trip_mesh(m, "rich", 2000);
    mq_mesh_destroy(m);
    /* No triangles at all. */
    const float p0[3] = {0, 0, 0};
    assert_int_equal(mq_mesh_create(p0, 1, NULL, 0, NULL, &m, NULL), MQ_OK);
    round_trip_mesh(m, "empty", 10);
    mq_mesh_destroy(m);
    /* Non-finite corners: the OBB tree leaves them out, the BVH keeps them unhittable. */
    const float p[15] = {0, 0, 0, 1, 0, 0, 0, 1, 0, NAN, 0, 0, 1, 1, INFINITY};
    const uint32_t idx[9] = {0, 1, 2, 0, 3, 1, 4, 1, 2};
    assert_int_equal(mq_mesh_create(p, 5, idx, 3, NULL, &m, NULL), MQ_OK);
    round_trip_mesh(m, "nonfinite", 200);
    mq_mesh_destroy(m);
}

/* A loaded BVH can be refitted (its arena is writable and its own). */
static void refit_a_loaded_bvh(void **state)
{
    (void)state;
    mq_mesh *m = rich_mesh(NULL);
    mq_bvh *b = build_bvh(m, 1);
    void *data;
    size_t size;
    save_bvh_mem(b, &data, &size);
    mq_bvh *l = NULL;
    assert_int_equal(mq_bvh_load_memory(data, size, NULL, &l, NULL), MQ_OK);
    size_t nv = mq_mesh_vertex_count(m);
    float *moved = malloc(nv * 12);
    for (size_t i = 0; i < 3 * nv; i++)
        moved[i] = mq_mesh_positions(m)[i] * 2.0f + 1.0f;
    assert_int_equal(mq_bvh_refit(b, moved, NULL), MQ_OK);
    assert_int_equal(mq_bvh_refit(l, moved, NULL), MQ_OK);
    assert_memory_equal(b->arena, l->arena, b->arena_bytes);

    /* Mapped: refit writes private copies of the pages, never the file; two
     * mappings of one file are independent; the file may be removed (or
     * replaced by a save) while mapped; destroy in either order. */
    const char *path = scratch("refit.mqh");
    write_file(path, data, size);
    mq_bvh *m1 = NULL, *m2 = NULL;
    assert_int_equal(mq_bvh_load_mapped(path, NULL, &m1, NULL), MQ_OK);
    assert_int_equal(mq_bvh_load_mapped(path, NULL, &m2, NULL), MQ_OK);
    mapped_bvh(m1);
    mapped_bvh(m2);
#if defined(MAPPING)
    assert_int_equal(mappings_of(path), 2);
#endif
    assert_int_equal(mq_bvh_refit(m1, moved, NULL), MQ_OK);
    assert_memory_equal(b->arena, m1->arena, b->arena_bytes);
    assert_int_equal(mq_bvh_validate(m1, NULL), MQ_OK);
    size_t fsize;
    void *fdata = read_file(path, &fsize);
    assert_int_equal(fsize, size);
    assert_memory_equal(fdata, data, size); /* the file is untouched */
    free(fdata);
    mq_bvh *orig = NULL;
    assert_int_equal(mq_bvh_load_memory(data, size, NULL, &orig, NULL), MQ_OK);
    same_bvh(orig, m2);                                  /* the other mapping is untouched */
    assert_int_equal(mq_bvh_save(b, path, NULL), MQ_OK); /* replaced under both mappings */
    same_bvh(orig, m2);
    unlink(path);
    same_bvh_answers(orig, m2, 500, 5);
    same_bvh_answers(b, m1, 500, 6);
    mq_bvh_destroy(m2);
    same_bvh_answers(b, m1, 100, 7);
    mq_bvh_destroy(m1);
    mq_bvh_destroy(orig);
    assert_int_equal(mappings_of(path), 0);

    free(moved);
    mq_bvh_destroy(l);
    mq_bvh_destroy(b);
    mq_saved_free(data, size, NULL);
    mq_mesh_destroy(m);
}

/* ------------------------------------------------------------------------- */
/* Corruption                                                                */
/* ------------------------------------------------------------------------- */

typedef struct small_files {
    mq_mesh *mesh;
    mq_bvh *bvh;
    mq_obbtree *tree;
    void *bvh_data, *tree_data;
    size_t bvh_size, tree_size;
} small_files;

static void small_make(small_files *s)
{
    s->mesh = rich_mesh(NULL);
    mq_bvh_def def = mq_default_bvh_def();
    def.threads = 1;
    def.max_leaf_size = 2; /* several leaves, blocks with padding lanes */
    assert_int_equal(mq_bvh_build(s->mesh, &def, &s->bvh, NULL), MQ_OK);
    mq_obbtree_def od = mq_default_obbtree_def();
    od.max_leaf_size = 1;
    assert_int_equal(mq_obbtree_build(s->mesh, &od, &s->tree, NULL), MQ_OK);
    save_bvh_mem(s->bvh, &s->bvh_data, &s->bvh_size);
    save_tree_mem(s->tree, &s->tree_data, &s->tree_size);
}

static void small_free(small_files *s)
{
    mq_saved_free(s->bvh_data, s->bvh_size, NULL);
    mq_saved_free(s->tree_data, s->tree_size, NULL);
    mq_obbtree_destroy(s->tree);
    mq_bvh_destroy(s->bvh);
    mq_mesh_destroy(s->mesh);
}

static mq_status load_any(const void *data, size_t size, bool tree, mq_diag *d)
{
    if (tree) {
        mq_obbtree *t = (mq_obbtree *)1;
        mq_status st = mq_obbtree_load_memory(data, size, NULL, &t, d);
        if (st != MQ_OK)
            assert_null(t);
        mq_obbtree_destroy(t);
        return st;
    }
    mq_bvh *b = (mq_bvh *)1;
    mq_status st = mq_bvh_load_memory(data, size, NULL, &b, d);
    if (st != MQ_OK)
        assert_null(b);
    mq_bvh_destroy(b);
    return st;
}

static void every_byte_flip_is_rejected(void **state)
{
    (void)state;
    small_files s;
    small_make(&s);
    print_message("small files: BVH %zu bytes, OBB tree %zu bytes\n", s.bvh_size, s.tree_size);
    static const unsigned char flips[] = {0x01, 0x80, 0xFF};
    size_t loads = 0;
    for (int kind = 0; kind < 2; kind++) {
        unsigned char *data = kind ? s.tree_data : s.bvh_data;
        size_t size = kind ? s.tree_size : s.bvh_size;
        for (size_t i = 0; i < size; i++)
            for (size_t f = 0; f < sizeof flips; f++) {
                data[i] ^= flips[f];
                mq_diag d;
                mq_status st = load_any(data, size, kind, &d);
                data[i] ^= flips[f];
                loads++;
                if (st == MQ_OK)
                    fail_msg("%s: byte %zu ^ 0x%02x accepted", kind ? "obbtree" : "bvh", i, flips[f]);
                if (st != MQ_ERR_CORRUPT && st != MQ_ERR_UNSUPPORTED)
                    fail_msg("byte %zu: %s (%s)", i, mq_status_string(st), d.message);
                if (st == MQ_ERR_CORRUPT && !strstr(d.message, "byte "))
                    fail_msg("byte %zu: message without an offset: %s", i, d.message);
            }
        assert_int_equal(load_any(data, size, kind, NULL), MQ_OK);
    }
    print_message("%zu corrupted loads rejected\n", loads);
    small_free(&s);
}

static void every_truncation_is_rejected(void **state)
{
    (void)state;
    small_files s;
    small_make(&s);
    for (int kind = 0; kind < 2; kind++) {
        const unsigned char *data = kind ? s.tree_data : s.bvh_data;
        size_t size = kind ? s.tree_size : s.bvh_size;
        unsigned char *copy = malloc(size + 64);
        memcpy(copy, data, size);
        for (size_t n = 0; n < size; n++) {
            /* An exact-size heap copy, so ASan sees any read past the end. */
            unsigned char *cut = malloc(n ? n : 1);
            memcpy(cut, data, n);
            mq_diag d;
            mq_status st = load_any(cut, n, kind, &d);
            free(cut);
            if (st != MQ_ERR_CORRUPT)
                fail_msg("truncated to %zu of %zu: %s (%s)", n, size, mq_status_string(st), d.message);
        }
        /* Trailing bytes. */
        memset(copy + size, 0, 64);
        mq_diag d;
        assert_int_equal(load_any(copy, size + 1, kind, &d), MQ_ERR_CORRUPT);
        assert_non_null(strstr(d.message, "after the end"));
        /* Truncated files on disk. */
        const char *path = scratch("cut.mqh");
        for (size_t n = 0; n < size; n += 1 + n / 3)
            for (int mapped = 0; mapped < 2; mapped++) {
                write_file(path, data, n);
                mq_status st;
                if (kind) {
                    mq_obbtree *t;
                    st = mapped ? mq_obbtree_load_mapped(path, NULL, &t, &d) : mq_obbtree_load(path, NULL, &t, &d);
                } else {
                    mq_bvh *b;
                    st = mapped ? mq_bvh_load_mapped(path, NULL, &b, &d) : mq_bvh_load(path, NULL, &b, &d);
                }
                if (st != MQ_ERR_CORRUPT)
                    fail_msg("file truncated to %zu (mapped %d): %s (%s)", n, mapped, mq_status_string(st), d.message);
                assert_string_equal(d.path, path);
                assert_int_equal(mappings_of(path), 0);
            }
        unlink(path);
        free(copy);
    }
    small_free(&s);
}

/* Every byte of a mapped file damaged in turn is rejected (and unmapped). */
static void every_byte_flip_in_a_mapped_file(void **state)
{
    (void)state;
    small_files s;
    small_make(&s);
    const char *path = scratch("flip.mqh");
    for (int kind = 0; kind < 2; kind++) {
        unsigned char *data = kind ? s.tree_data : s.bvh_data;
        size_t size = kind ? s.tree_size : s.bvh_size;
        for (size_t i = 0; i < size; i++) {
            data[i] ^= 0x41;
            write_file(path, data, size);
            data[i] ^= 0x41;
            mq_diag d;
            mq_status st;
            if (kind) {
                mq_obbtree *t = (mq_obbtree *)1;
                st = mq_obbtree_load_mapped(path, NULL, &t, &d);
                if (st != MQ_OK)
                    assert_null(t);
                mq_obbtree_destroy(t);
            } else {
                mq_bvh *b = (mq_bvh *)1;
                st = mq_bvh_load_mapped(path, NULL, &b, &d);
                if (st != MQ_OK)
                    assert_null(b);
                mq_bvh_destroy(b);
            }
            if (st != MQ_ERR_CORRUPT && st != MQ_ERR_UNSUPPORTED)
                fail_msg("mapped %s: byte %zu: %s (%s)", kind ? "obbtree" : "bvh", i, mq_status_string(st), d.message);
            assert_int_equal(mappings_of(path), 0);
        }
    }
    unlink(path);
    small_free(&s);
}

static void header_checks(void **state)
{
    (void)state;
    small_files s;
    small_make(&s);
    unsigned char *data = s.bvh_data;
    size_t size = s.bvh_size;
    mq_saved_header h;
    memcpy(&h, data, sizeof h);
    mq_diag d;

    /* Wrong magic. */
    data[1] = 'X';
    assert_int_equal(load_any(data, size, false, &d), MQ_ERR_CORRUPT);
    assert_non_null(strstr(d.message, "magic"));
    data[1] = 'M';
    /* Other byte order. */
    uint32_t swapped = MQ_SAVED_BOM_SWAPPED;
    memcpy(data + offsetof(mq_saved_header, bom), &swapped, 4);
    assert_int_equal(load_any(data, size, false, &d), MQ_ERR_UNSUPPORTED);
    assert_non_null(strstr(d.message, "byte order"));
    memcpy(data, &h, sizeof h);
    /* A version from the future, even with valid checksums. */
    uint32_t v = MQ_SAVED_FORMAT_VERSION + 1;
    memcpy(data + offsetof(mq_saved_header, version), &v, 4);
    mq_saved_fix_checksums(data, size);
    assert_int_equal(load_any(data, size, false, &d), MQ_ERR_UNSUPPORTED);
    assert_non_null(strstr(d.message, "newer"));
    memcpy(data, &h, sizeof h);
    assert_int_equal(load_any(data, size, false, NULL), MQ_OK);
    /* Checksum block sizes outside 2^6..2^30, and a block size in a version 1 header. */
    static const struct {
        uint32_t version, block_log2;
    } blocks[] = {{2, 0}, {2, 5}, {2, 31}, {2, 0xFFFFFFFFu}, {1, 18}};
    unsigned char *orig = malloc(size);
    memcpy(orig, data, size);
    for (size_t i = 0; i < sizeof blocks / sizeof blocks[0]; i++) {
        memcpy(data + offsetof(mq_saved_header, version), &blocks[i].version, 4);
        memcpy(data + offsetof(mq_saved_header, block_log2), &blocks[i].block_log2, 4);
        mq_saved_fix_checksums(data, size);
        assert_int_equal(load_any(data, size, false, &d), MQ_ERR_CORRUPT);
        assert_non_null(strstr(d.message, blocks[i].version == 1 ? "reserved" : "checksum blocks"));
        memcpy(data, orig, size);
    }
    free(orig);
    assert_int_equal(load_any(data, size, false, NULL), MQ_OK);
    /* The other kind of hierarchy. */
    assert_int_equal(load_any(s.tree_data, s.tree_size, false, &d), MQ_ERR_INVALID_ARG);
    assert_int_equal(load_any(data, size, true, &d), MQ_ERR_INVALID_ARG);
    assert_non_null(strstr(d.message, "BVH"));
    /* Not a saved file at all. */
    const char *text = "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n0123456789012345678901234567890123456789";
    assert_int_equal(load_any(text, strlen(text), false, &d), MQ_ERR_CORRUPT);
    /* NULL arguments. */
    mq_bvh *b;
    assert_int_equal(mq_bvh_load_memory(data, size, NULL, NULL, NULL), MQ_ERR_INVALID_ARG);
    assert_int_equal(mq_bvh_load_memory(NULL, 10, NULL, &b, NULL), MQ_ERR_INVALID_ARG);
    assert_int_equal(mq_bvh_load(NULL, NULL, &b, NULL), MQ_ERR_INVALID_ARG);
    void *p;
    size_t n;
    assert_int_equal(mq_bvh_save_memory(NULL, NULL, &p, &n, NULL), MQ_ERR_INVALID_ARG);
    assert_null(p);
    assert_int_equal(mq_bvh_save(s.bvh, NULL, NULL), MQ_ERR_INVALID_ARG);
    assert_int_equal(mq_obbtree_save(NULL, "x", NULL), MQ_ERR_INVALID_ARG);
    mq_saved_free(NULL, 0, NULL);
    small_free(&s);
}

/* Forged files: each byte changed and every checksum recomputed, so the
 * structural checks must catch it; whatever loads must query safely (ASan). */
static void run_queries_bvh(mq_bvh *b)
{
    float lo[3], hi[3];
    mesh_bounds(mq_bvh_mesh(b), lo, hi);
    mq_test_rng rng;
    mq_test_rng_seed(&rng, 5);
    for (int i = 0; i < 16; i++) {
        mq_ray r;
        random_ray(&rng, mq_bvh_mesh(b), lo, hi, &r);
        mq_hit h[4];
        mq_bvh_raycast_closest(b, &r, NULL, h);
        mq_bvh_raycast_any(b, &r, NULL);
        mq_bvh_raycast_all(b, &r, NULL, h, 4);
    }
    mq_bvh_stats st;
    mq_bvh_get_stats(b, &st);
    mq_bvh_validate(b, NULL);
    assert_int_equal(mq_bvh_refit(b, NULL, NULL), MQ_OK);
}

static void run_queries_tree(const mq_obbtree *t)
{
    float lo[3], hi[3];
    mesh_bounds(mq_obbtree_mesh(t), lo, hi);
    mq_test_rng rng;
    mq_test_rng_seed(&rng, 6);
    for (int i = 0; i < 8; i++) {
        mq_ray r;
        random_ray(&rng, mq_obbtree_mesh(t), lo, hi, &r);
        mq_hit h;
        mq_obbtree_raycast_closest(t, &r, NULL, &h);
        mq_sphere s = {{r.origin[0] * 0.1f, r.origin[1] * 0.1f, r.origin[2] * 0.1f}, 1.0f};
        uint32_t ids[8];
        mq_obbtree_overlap_array(t, &(mq_shape){MQ_SHAPE_SPHERE, {.sphere = s}}, ids, 8);
        mq_point_hit ph;
        mq_obbtree_closest_point(t, s.center, INFINITY, &ph);
    }
    mq_rigid xf = {{1, 0, 0, 0}, {0.1f, 0.2f, 0.3f}}; /* no rotation (w, x, y, z) */
    mq_obbtree_collide_array(t, t, &xf, NULL, 0);
}

static void forged_files_are_rejected_or_safe(void **state)
{
    (void)state;
    small_files s;
    small_make(&s);
    size_t accepted = 0, total = 0;
    for (int kind = 0; kind < 2; kind++) {
        const unsigned char *orig = kind ? s.tree_data : s.bvh_data;
        size_t size = kind ? s.tree_size : s.bvh_size;
        unsigned char *data = malloc(size);
        for (size_t i = 0; i < size; i++)
            for (int f = 0; f < 2; f++) {
                memcpy(data, orig, size);
                data[i] ^= f ? 0xFF : 0x01;
                mq_saved_fix_checksums(data, size);
                total++;
                if (kind) {
                    mq_obbtree *t = NULL;
                    if (mq_obbtree_load_memory(data, size, NULL, &t, NULL) == MQ_OK) {
                        accepted++;
                        run_queries_tree(t);
                        mq_obbtree_destroy(t);
                    }
                } else {
                    mq_bvh *b = NULL;
                    if (mq_bvh_load_memory(data, size, NULL, &b, NULL) == MQ_OK) {
                        accepted++;
                        run_queries_bvh(b);
                        mq_bvh_destroy(b);
                    }
                }
            }
        free(data);
    }
    /* Accepted forgeries change only floats (coordinates, boxes, timing), never structure. */
    print_message("%zu of %zu forged files load (float payload changes)\n", accepted, total);
    small_free(&s);
}

/* Specific structural forgeries, each with its own message. */
static void structural_forgeries(void **state)
{
    (void)state;
    small_files s;
    small_make(&s);
    mq_saved_reader r;
    assert_int_equal(mq_saved_open_memory(&r, s.bvh_data, s.bvh_size, MQ_SAVED_KIND_BVH, NULL), MQ_OK);
    uint64_t arena_at = mq_saved_offset_of(&r, MQ_SEC_BVH_ARENA), idx_at = mq_saved_offset_of(&r, MQ_SEC_INDICES);
    unsigned char *copy = malloc(s.bvh_size);
    struct {
        uint64_t at;
        uint32_t value;
        const char *expect;
    } cases[] = {
        {idx_at + 8, 100000u, "vertex index"},
        {idx_at + 4, (uint32_t)mq_mesh_vertex_count(s.mesh), "vertex index"}, /* one past the end */
        {arena_at + (uint64_t)s.bvh->root * 32 + offsetof(mq_node8, child), 0x7FFFFFF0u, "beyond"},
        {arena_at + (uint64_t)s.bvh->root * 32 + offsetof(mq_node8, child), s.bvh->root, "overlaps"},
        {arena_at + (uint64_t)s.bvh->root * 32 + offsetof(mq_node8, child), 0x80000000u, "overlaps"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        memcpy(copy, s.bvh_data, s.bvh_size);
        memcpy(copy + cases[c].at, &cases[c].value, 4);
        mq_saved_fix_checksums(copy, s.bvh_size);
        mq_diag d;
        assert_int_equal(load_any(copy, s.bvh_size, false, &d), MQ_ERR_CORRUPT);
        if (!strstr(d.message, cases[c].expect))
            fail_msg("case %zu: %s", c, d.message);
    }
    /* An empty slot with a box that the traversal would enter. */
    memcpy(copy, s.bvh_data, s.bvh_size);
    const mq_node8 *root = mq_arena_node(s.bvh->arena, s.bvh->root);
    int slot = -1;
    for (int i = 0; i < 8; i++)
        if (root->child[i] == MQ_REF_EMPTY)
            slot = i;
    if (slot >= 0) {
        float zero = 0.0f;
        memcpy(copy + arena_at + (uint64_t)s.bvh->root * 32 + 4 * (uint64_t)slot, &zero, 4);
        mq_saved_fix_checksums(copy, s.bvh_size);
        mq_diag d;
        assert_int_equal(load_any(copy, s.bvh_size, false, &d), MQ_ERR_CORRUPT);
        assert_non_null(strstr(d.message, "empty child slot"));
    }
    /* Triangle ids in the leaves: one lane made a copy of another leaf's, one
     * lane turned into padding (its triangle is then in no leaf). */
    uint32_t leaves[64], nleaves = 0, todo[64], ntodo = 0;
    todo[ntodo++] = s.bvh->root;
    while (ntodo && nleaves < 64) {
        const mq_node8 *n = mq_arena_node(s.bvh->arena, todo[--ntodo]);
        for (int i = 0; i < 8; i++)
            if (n->child[i] != MQ_REF_EMPTY && mq_ref_is_leaf(n->child[i]) && nleaves < 64)
                leaves[nleaves++] = n->child[i];
            else if (n->child[i] != MQ_REF_EMPTY && !mq_ref_is_leaf(n->child[i]) && ntodo < 64)
                todo[ntodo++] = n->child[i];
    }
    uint32_t two = UINT32_MAX; /* a leaf whose lane 1 holds a second triangle */
    for (uint32_t i = 0; i < nleaves && two == UINT32_MAX; i++)
        if (!mq_block_lane_is_pad(mq_arena_leaf(s.bvh->arena, leaves[i]), 1))
            two = leaves[i];
    assert_true(two != UINT32_MAX && nleaves >= 2);
    uint32_t other = leaves[0] == two ? leaves[1] : leaves[0];
    uint64_t lane1_at = arena_at + (uint64_t)mq_ref_leaf_unit(two) * 32 + offsetof(mq_tri_block, id) + 4;
    struct {
        uint32_t value;
        const char *expect;
    } lanes[] = {
        {mq_arena_leaf(s.bvh->arena, other)->id[0], "two leaf lanes"},
        {mq_arena_leaf(s.bvh->arena, two)->id[0], "in no leaf"},
        {(uint32_t)mq_mesh_triangle_count(s.mesh), "beyond the mesh"},
    };
    for (size_t c = 0; c < sizeof lanes / sizeof lanes[0]; c++) {
        memcpy(copy, s.bvh_data, s.bvh_size);
        memcpy(copy + lane1_at, &lanes[c].value, 4);
        mq_saved_fix_checksums(copy, s.bvh_size);
        mq_diag d;
        assert_int_equal(load_any(copy, s.bvh_size, false, &d), MQ_ERR_CORRUPT);
        if (!strstr(d.message, lanes[c].expect))
            fail_msg("lane case %zu: %s", c, d.message);
    }
    free(copy);
    /* OBB tree: a right child pointing back at the root (a cycle). */
    assert_int_equal(mq_saved_open_memory(&r, s.tree_data, s.tree_size, MQ_SAVED_KIND_OBBTREE, NULL), MQ_OK);
    uint64_t nodes_at = mq_saved_offset_of(&r, MQ_SEC_OBB_NODES);
    copy = malloc(s.tree_size);
    memcpy(copy, s.tree_data, s.tree_size);
    uint32_t zero = 0;
    memcpy(copy + nodes_at + offsetof(mq_obbtree_node, data), &zero, 4);
    mq_saved_fix_checksums(copy, s.tree_size);
    mq_diag d;
    assert_int_equal(load_any(copy, s.tree_size, true, &d), MQ_ERR_CORRUPT);
    assert_non_null(strstr(d.message, "right child"));
    free(copy);
    small_free(&s);
}

/* ------------------------------------------------------------------------- */
/* Allocation failures                                                       */
/* ------------------------------------------------------------------------- */

typedef struct counting {
    pthread_mutex_t lock;
    long allocs, fail_at;
    long long live;
    bool failed;
} counting;

static void *count_alloc(size_t size, size_t align, void *user)
{
    counting *c = user;
    pthread_mutex_lock(&c->lock);
    long n = ++c->allocs;
    bool fail = n == c->fail_at;
    c->failed |= fail;
    if (!fail)
        c->live += (long long)size;
    pthread_mutex_unlock(&c->lock);
    if (fail)
        return NULL;
    void *p = NULL;
    if (posix_memalign(&p, align < sizeof(void *) ? sizeof(void *) : align, size))
        abort();
    return p;
}

static void count_free(void *ptr, size_t size, void *user)
{
    counting *c = user;
    pthread_mutex_lock(&c->lock);
    c->live -= (long long)size;
    pthread_mutex_unlock(&c->lock);
    free(ptr);
}

static void every_allocation_failure(void **state)
{
    (void)state;
    small_files s;
    small_make(&s);
    counting c = {PTHREAD_MUTEX_INITIALIZER, 0, 0, 0, false};
    mq_allocator a = {count_alloc, count_free, &c};
    const char *path = scratch("alloc.mqh");
    for (int kind = 0; kind < 2; kind++)
        for (int source = 0; source < 4; source++) { /* save_memory, load_memory, load file, load mapped */
            long fail_at;
            if (source >= 2)
                assert_int_equal(kind ? mq_obbtree_save(s.tree, path, NULL) : mq_bvh_save(s.bvh, path, NULL), MQ_OK);
            for (fail_at = 1;; fail_at++) {
                c.allocs = 0;
                c.fail_at = fail_at;
                c.failed = false;
                mq_diag d;
                mq_status st;
                if (source == 0) {
                    void *data = (void *)1;
                    size_t size = 1;
                    st = kind ? mq_obbtree_save_memory(s.tree, &a, &data, &size, &d)
                              : mq_bvh_save_memory(s.bvh, &a, &data, &size, &d);
                    if (st == MQ_OK) {
                        assert_memory_equal(data, kind ? s.tree_data : s.bvh_data, size);
                        mq_saved_free(data, size, &a);
                    } else {
                        assert_null(data);
                        assert_int_equal(size, 0);
                    }
                } else if (kind) {
                    mq_obbtree *t = (mq_obbtree *)1;
                    st = source == 1   ? mq_obbtree_load_memory(s.tree_data, s.tree_size, &a, &t, &d)
                         : source == 2 ? mq_obbtree_load(path, &a, &t, &d)
                                       : mq_obbtree_load_mapped(path, &a, &t, &d);
                    if (st == MQ_OK) {
                        same_tree(s.tree, t);
                        if (source == 3)
                            mapped_tree(t);
                        mq_obbtree_destroy(t);
                    } else {
                        assert_null(t);
                    }
                } else {
                    mq_bvh *b = (mq_bvh *)1;
                    st = source == 1   ? mq_bvh_load_memory(s.bvh_data, s.bvh_size, &a, &b, &d)
                         : source == 2 ? mq_bvh_load(path, &a, &b, &d)
                                       : mq_bvh_load_mapped(path, &a, &b, &d);
                    if (st == MQ_OK) {
                        same_bvh(s.bvh, b);
                        if (source == 3)
                            mapped_bvh(b);
                        mq_bvh_destroy(b);
                    } else {
                        assert_null(b);
                    }
                }
                if (c.live != 0)
                    fail_msg("kind %d source %d: failing allocation %ld leaked %lld bytes", kind, source, fail_at,
                             c.live);
                if (mappings_of(path) != 0)
                    fail_msg("kind %d source %d: failing allocation %ld left the file mapped", kind, source, fail_at);
                if (st == MQ_OK) {
                    assert_false(c.failed);
                    break;
                }
                if (st != MQ_ERR_OUT_OF_MEMORY || !c.failed)
                    fail_msg("failing allocation %ld gave %s: %s", fail_at, mq_status_string(st), d.message);
                assert_non_null(strstr(d.message, "out of memory"));
            }
            print_message("%s %s: %ld allocations, each failure handled\n", kind ? "obbtree" : "bvh",
                          source == 0   ? "save_memory"
                          : source == 1 ? "load_memory"
                          : source == 2 ? "load"
                                        : "load_mapped",
                          fail_at - 1);
        }
    unlink(path);
    small_free(&s);
}

/* ------------------------------------------------------------------------- */
/* I/O faults                                                                */
/* ------------------------------------------------------------------------- */

static void missing_and_special_paths(void **state)
{
    (void)state;
    small_files s;
    small_make(&s);
    mq_bvh *b;
    mq_diag d;
    assert_int_equal(mq_bvh_load(scratch("does-not-exist.mqh"), NULL, &b, &d), MQ_ERR_IO);
    assert_null(b);
    assert_non_null(strstr(d.message, "No such file"));
    assert_int_equal(mq_bvh_load(g_dir, NULL, &b, &d), MQ_ERR_IO);
    assert_non_null(strstr(d.message, "directory"));
    assert_int_equal(mq_bvh_load_mapped(scratch("does-not-exist.mqh"), NULL, &b, &d), MQ_ERR_IO);
    assert_null(b);
    assert_non_null(strstr(d.message, "No such file"));
    assert_int_equal(mq_bvh_load_mapped(g_dir, NULL, &b, &d), MQ_ERR_IO);
    assert_non_null(strstr(d.message, "directory"));
    mq_obbtree *t;
    assert_int_equal(mq_obbtree_load_mapped(g_dir, NULL, &t, &d), MQ_ERR_IO);
    assert_null(t);
    assert_int_equal(mq_bvh_load_mapped(NULL, NULL, &b, &d), MQ_ERR_INVALID_ARG);
    assert_int_equal(mq_bvh_load_mapped(g_dir, NULL, NULL, &d), MQ_ERR_INVALID_ARG);
    /* Saving over a directory, into a missing directory. */
    assert_int_equal(mq_bvh_save(s.bvh, g_dir, &d), MQ_ERR_IO);
    assert_int_equal(mq_bvh_save(s.bvh, scratch("no/such/dir/x.mqh"), &d), MQ_ERR_IO);
    assert_non_null(strstr(d.message, "No such file"));
    assert_int_equal(count_entries(g_dir, ".tmp-"), 0);
    /* /dev/full is not a regular file: refused, and nothing created beside it. */
    if (mq_test_file_exists("/dev/full")) {
        int before = count_entries("/dev", "full.tmp-");
        assert_int_equal(mq_bvh_save(s.bvh, "/dev/full", &d), MQ_ERR_IO);
        assert_non_null(strstr(d.message, "not a regular file"));
        assert_int_equal(count_entries("/dev", "full.tmp-"), before);
        struct stat st;
        assert_int_equal(stat("/dev/full", &st), 0);
        assert_true(S_ISCHR(st.st_mode));
    }
    /* A path whose parent is a regular file: no temporary file can be made
     * beside the target, whoever runs the test (root included). The file is
     * left as it was. */
    const char *plain = scratch("plain-file");
    write_file(plain, "abc", 3);
    char beneath[1100];
    snprintf(beneath, sizeof beneath, "%s/x.mqh", plain);
    assert_int_equal(mq_bvh_save(s.bvh, beneath, &d), MQ_ERR_IO);
    assert_non_null(strstr(d.message, "Not a directory"));
    struct stat pst;
    assert_int_equal(stat(plain, &pst), 0);
    assert_true(S_ISREG(pst.st_mode));
    assert_int_equal(pst.st_size, 3);
    assert_int_equal(count_entries(g_dir, ".tmp-"), 0);
    unlink(plain);
    /* A read-only directory: refused with the system's reason when the user
     * may not write into it; a user who may (root) gets a complete save that
     * loads back. Either way no temporary file is left. */
    const char *ro = scratch("readonly");
    assert_int_equal(mkdir(ro, 0755), 0);
    chmod(ro, 0555);
    char probe[1100], target[1100];
    snprintf(probe, sizeof probe, "%s/probe", ro);
    snprintf(target, sizeof target, "%s/x.mqh", ro);
    int fd = open(probe, O_WRONLY | O_CREAT, 0644);
    if (fd >= 0) {
        close(fd);
        assert_int_equal(unlink(probe), 0);
        assert_int_equal(mq_bvh_save(s.bvh, target, &d), MQ_OK);
        assert_int_equal(mq_bvh_load(target, NULL, &b, &d), MQ_OK);
        same_bvh(s.bvh, b);
        mq_bvh_destroy(b);
        assert_int_equal(count_entries(ro, ""), 3); /* ., .. and x.mqh */
        assert_int_equal(unlink(target), 0);
    } else {
        assert_int_equal(mq_bvh_save(s.bvh, target, &d), MQ_ERR_IO);
        assert_non_null(strstr(d.message, "ermission"));
        assert_int_equal(count_entries(ro, ""), 2); /* . and .. */
    }
    chmod(ro, 0755);
    small_free(&s);
}

/* Fault-injecting system calls. */
static long g_write_budget; /* bytes the disk accepts before ENOSPC; <0: unlimited */
static int g_fsync_errno;

static ssize_t full_write(int fd, const void *buf, size_t n)
{
    if (g_write_budget >= 0 && (long)n > g_write_budget) {
        if (g_write_budget == 0) {
            errno = ENOSPC;
            return -1;
        }
        n = (size_t)g_write_budget; /* a short write first, then ENOSPC */
    }
    ssize_t w = write(fd, buf, n);
    if (w > 0 && g_write_budget >= 0)
        g_write_budget -= w;
    return w;
}

static int failing_fsync(int fd)
{
    if (g_fsync_errno) {
        errno = g_fsync_errno;
        return -1;
    }
    return fsync(fd);
}

static void full_disk_leaves_nothing_behind(void **state)
{
    (void)state;
    small_files s;
    small_make(&s);
    const char *path = scratch("target.mqh");
    write_file(path, "old contents", 12);
    mq_saved_sys saved = mq_saved_sys_calls;
    mq_saved_sys_calls.write = full_write;
    mq_saved_sys_calls.fsync = failing_fsync;
    for (long budget = 0; budget < (long)s.bvh_size; budget += 1 + budget / 2) {
        g_write_budget = budget;
        g_fsync_errno = 0;
        mq_diag d;
        assert_int_equal(mq_bvh_save(s.bvh, path, &d), MQ_ERR_IO);
        assert_non_null(strstr(d.message, "No space"));
        assert_string_equal(d.path, path);
        assert_int_equal(count_entries(g_dir, ".tmp-"), 0);
    }
    g_write_budget = -1;
    g_fsync_errno = EIO;
    mq_diag d;
    assert_int_equal(mq_obbtree_save(s.tree, path, &d), MQ_ERR_IO);
    assert_non_null(strstr(d.message, "flush"));
    assert_int_equal(count_entries(g_dir, ".tmp-"), 0);
    mq_saved_sys_calls = saved;
    size_t n;
    char *old = read_file(path, &n);
    assert_int_equal(n, 12);
    assert_memory_equal(old, "old contents", 12);
    free(old);
    /* And with a working disk the target is replaced. */
    assert_int_equal(mq_bvh_save(s.bvh, path, &d), MQ_OK);
    void *now = read_file(path, &n);
    assert_int_equal(n, s.bvh_size);
    assert_memory_equal(now, s.bvh_data, n);
    free(now);
    unlink(path);
    small_free(&s);
}

static int g_read_mode; /* 0 normal, 1 short reads, 2 EIO after the header, 3 shrink the file */
static const char *g_shrink_path;
static int g_reads;

static ssize_t faulty_read(int fd, void *buf, size_t n)
{
    __atomic_add_fetch(&g_reads, 1, __ATOMIC_RELAXED);
    switch (g_read_mode) {
    case 1:
        return read(fd, buf, n < 7 ? n : 7);
    case 2:
        if (g_reads > 2) {
            errno = EIO;
            return -1;
        }
        return read(fd, buf, n);
    case 3:
        if (g_reads == 3) /* between the stat (at open) and the read of the sections */
            assert_int_equal(truncate(g_shrink_path, 300), 0);
        return read(fd, buf, n);
    default:
        return read(fd, buf, n);
    }
}

/* The same faults for the positioned reads of large sections (several threads). */
static ssize_t faulty_pread(int fd, void *buf, size_t n, off_t offset)
{
    int reads = __atomic_add_fetch(&g_reads, 1, __ATOMIC_RELAXED);
    switch (g_read_mode) {
    case 1:
        return pread(fd, buf, n < 7 ? n : 7, offset);
    case 2:
        if (reads > 2) {
            errno = EIO;
            return -1;
        }
        return pread(fd, buf, n, offset);
    case 3:
        if (reads == 3 && truncate(g_shrink_path, 300) != 0)
            abort();
        return pread(fd, buf, n, offset);
    default:
        return pread(fd, buf, n, offset);
    }
}

static void read_faults(void **state)
{
    (void)state;
    small_files s;
    small_make(&s);
    const char *path = scratch("read.mqh");
    mq_saved_sys saved = mq_saved_sys_calls;
    mq_saved_sys_calls.read = faulty_read;
    mq_saved_sys_calls.pread = faulty_pread;
    for (int mode = 1; mode <= 3; mode++) {
        write_file(path, s.bvh_data, s.bvh_size);
        g_read_mode = mode;
        g_reads = 0;
        g_shrink_path = path;
        mq_bvh *b = NULL;
        mq_diag d;
        mq_status st = mq_bvh_load(path, NULL, &b, &d);
        if (mode == 1) {
            assert_int_equal(st, MQ_OK);
            same_bvh(s.bvh, b);
            mq_bvh_destroy(b);
            assert_true(g_reads > 100);
        } else {
            assert_int_equal(st, MQ_ERR_IO);
            assert_null(b);
            assert_string_equal(d.path, path);
            assert_non_null(strstr(d.message, mode == 2 ? "Input/output error" : "shrink"));
        }
    }
    mq_saved_sys_calls = saved;
    unlink(path);
    small_free(&s);
}

typedef struct pipe_writer {
    int fd;
    const void *data;
    size_t len;
} pipe_writer;

static void *write_pipe(void *arg)
{
    pipe_writer *w = arg;
    const char *p = w->data;
    for (size_t done = 0; done < w->len;) {
        ssize_t n = write(w->fd, p + done, w->len - done);
        if (n <= 0)
            break;
        done += (size_t)n;
    }
    close(w->fd);
    return NULL;
}

/* A pipe has no size to check up front: its end is found while reading. */
static void loading_from_a_pipe(void **state)
{
    (void)state;
    if (!mq_test_file_exists("/proc/self/fd/0"))
        skip();
    signal(SIGPIPE, SIG_IGN);
    small_files s;
    small_make(&s);
    for (int kind = 0; kind < 2; kind++) {
        const void *data = kind ? s.tree_data : s.bvh_data;
        size_t size = kind ? s.tree_size : s.bvh_size;
        unsigned char *longer = malloc(size + 16);
        memcpy(longer, data, size);
        memset(longer + size, 7, 16);
        size_t lens[3] = {size, size / 2, size + 16};
        mq_status want[3] = {MQ_OK, MQ_ERR_CORRUPT, MQ_ERR_CORRUPT};
        for (int i = 0; i < 3; i++) {
            int fds[2];
            assert_int_equal(pipe(fds), 0);
            pipe_writer w = {fds[1], longer, lens[i]};
            pthread_t writer;
            assert_int_equal(pthread_create(&writer, NULL, write_pipe, &w), 0);
            char path[64];
            snprintf(path, sizeof path, "/proc/self/fd/%d", fds[0]);
            mq_obbtree *t = NULL;
            mq_bvh *b = NULL;
            mq_diag d;
            mq_status st = kind ? mq_obbtree_load(path, NULL, &t, &d) : mq_bvh_load(path, NULL, &b, &d);
            close(fds[0]); /* a writer still blocked gets EPIPE (ignored below) */
            pthread_join(writer, NULL);
            if (st != want[i])
                fail_msg("%s pipe case %d: %s (%s)", kind ? "obbtree" : "bvh", i, mq_status_string(st), d.message);
            if (t)
                same_tree(s.tree, t);
            if (b)
                same_bvh(s.bvh, b);
            mq_obbtree_destroy(t);
            mq_bvh_destroy(b);
        }
        free(longer);
    }
    small_free(&s);
}

/* ------------------------------------------------------------------------- */
/* Format version 1                                                          */
/* ------------------------------------------------------------------------- */

/* A version 2 file made a version 1 file: same sections, one checksum stream each. */
static void to_version1(unsigned char *data, size_t size)
{
    uint32_t one = 1, zero = 0;
    memcpy(data + offsetof(mq_saved_header, version), &one, 4);
    memcpy(data + offsetof(mq_saved_header, block_log2), &zero, 4);
    assert_true(mq_saved_fix_checksums(data, size));
}

/* Files of version 1 (written before per-block checksums) still load, from
 * memory and from files, and every damaged byte of one is still rejected. */
static void version1_files_load(void **state)
{
    (void)state;
    small_files s;
    small_make(&s);
    for (int kind = 0; kind < 2; kind++) {
        size_t size = kind ? s.tree_size : s.bvh_size;
        unsigned char *data = malloc(size);
        memcpy(data, kind ? s.tree_data : s.bvh_data, size);
        to_version1(data, size);
        assert_memory_not_equal(data, kind ? s.tree_data : s.bvh_data, size);
        const char *path = scratch("v1.mqh");
        write_file(path, data, size);
        mq_diag d;
        if (kind) {
            mq_obbtree *t = NULL;
            if (mq_obbtree_load_memory(data, size, NULL, &t, &d) != MQ_OK)
                fail_msg("v1 obbtree: %s", d.message);
            same_tree(s.tree, t);
            mq_obbtree_destroy(t);
            assert_int_equal(mq_obbtree_load(path, NULL, &t, &d), MQ_OK);
            same_tree(s.tree, t);
            mq_obbtree_destroy(t);
            assert_int_equal(mq_obbtree_load_mapped(path, NULL, &t, &d), MQ_OK);
            mapped_tree(t);
            same_tree(s.tree, t);
            mq_obbtree_destroy(t);
        } else {
            mq_bvh *b = NULL;
            if (mq_bvh_load_memory(data, size, NULL, &b, &d) != MQ_OK)
                fail_msg("v1 bvh: %s", d.message);
            same_bvh(s.bvh, b);
            /* Saved again, it is a version 2 file: the bytes this library writes. */
            void *again;
            size_t again_size;
            save_bvh_mem(b, &again, &again_size);
            assert_int_equal(again_size, size);
            assert_memory_equal(again, s.bvh_data, size);
            mq_saved_free(again, again_size, NULL);
            mq_bvh_destroy(b);
            assert_int_equal(mq_bvh_load(path, NULL, &b, &d), MQ_OK);
            same_bvh(s.bvh, b);
            mq_bvh_destroy(b);
            assert_int_equal(mq_bvh_load_mapped(path, NULL, &b, &d), MQ_OK);
            mapped_bvh(b);
            same_bvh(s.bvh, b);
            mq_bvh_destroy(b);
        }
        for (size_t i = 0; i < size; i++) {
            data[i] ^= 0x10;
            mq_status st = load_any(data, size, kind, &d);
            data[i] ^= 0x10;
            if (st != MQ_ERR_CORRUPT && st != MQ_ERR_UNSUPPORTED)
                fail_msg("v1 %s: byte %zu: %s", kind ? "obbtree" : "bvh", i, mq_status_string(st));
        }
        unlink(path);
        free(data);
    }
    small_free(&s);
}

/* ------------------------------------------------------------------------- */
/* Chunked and parallel reading                                              */
/* ------------------------------------------------------------------------- */

static int g_preads;

static ssize_t counting_pread(int fd, void *buf, size_t n, off_t offset)
{
    __atomic_add_fetch(&g_preads, 1, __ATOMIC_RELAXED);
    return pread(fd, buf, n, offset);
}

/* The tests above again with the small files read a few bytes at a time (so
 * the arena walk and the id checks see their data arrive in many pieces,
 * nodes and leaves split across them) and, from memory blocks and regular
 * files, by several threads copying while the caller checksums and checks in
 * order: every answer, rejection, fault and allocation failure must come out
 * the same. */
static void small_chunks_and_threads(void **state)
{
    const mq_saved_tuning saved = mq_saved_tune;
    static const mq_saved_tuning tunings[] = {
        {64, UINT64_MAX, 1, 6}, /* one thread, 64-byte chunks and checksum blocks */
        {192, 200, 3, 7},       /* sections from 200 bytes by 3 threads, 128-byte blocks; smaller ones by the caller */
        {64, 0, 2, 8},          /* every section by 2 threads, a 256-byte block at a time */
    };
    for (size_t i = 0; i < sizeof tunings / sizeof tunings[0]; i++) {
        mq_saved_tune = tunings[i];
        print_message("chunk %zu, parallel from %llu bytes, %u threads, checksum blocks of 2^%u\n", tunings[i].chunk,
                      (unsigned long long)tunings[i].parallel_min, tunings[i].threads, tunings[i].block_log2);
        /* Large sections are read with pread, by several threads. */
        small_files s;
        small_make(&s);
        const char *path = scratch("par.mqh");
        assert_int_equal(mq_bvh_save(s.bvh, path, NULL), MQ_OK);
        mq_saved_sys sys = mq_saved_sys_calls;
        mq_saved_sys_calls.pread = counting_pread;
        g_preads = 0;
        mq_bvh *b = NULL;
        assert_int_equal(mq_bvh_load(path, NULL, &b, NULL), MQ_OK);
        same_bvh(s.bvh, b);
        mq_bvh_destroy(b);
        mq_saved_sys_calls = sys;
        assert_true((g_preads > 0) == (tunings[i].threads > 1));
        unlink(path);
        small_free(&s);

        round_trip_special_meshes(state);
        every_byte_flip_is_rejected(state);
        every_truncation_is_rejected(state);
        every_byte_flip_in_a_mapped_file(state);
        refit_a_loaded_bvh(state);
        forged_files_are_rejected_or_safe(state);
        structural_forgeries(state);
        every_allocation_failure(state);
        read_faults(state);
        loading_from_a_pipe(state);
        version1_files_load(state);
    }
    mq_saved_tune = saved;
}

/* ------------------------------------------------------------------------- */
/* Fuzz seeds                                                                */
/* ------------------------------------------------------------------------- */

static void write_seed(const char *dir, const char *name, const void *data, size_t size)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    assert_true(size < 50 * 1024);
    write_file(path, data, size);
}

/* Not a test: run only with MQ_SAVED_WRITE_CORPUS=DIR (see main). */
static void write_corpus(void **state)
{
    (void)state;
    const char *dir = getenv("MQ_SAVED_WRITE_CORPUS");
    small_files s;
    small_make(&s);
    write_seed(dir, "bvh_rich", s.bvh_data, s.bvh_size);
    write_seed(dir, "obb_rich", s.tree_data, s.tree_size);
    small_free(&s);
    /* The same with 128-byte checksum blocks: many blocks per section. */
    const mq_saved_tuning normal = mq_saved_tune;
    mq_saved_tune.block_log2 = 7;
    small_make(&s);
    write_seed(dir, "bvh_rich_blocks128", s.bvh_data, s.bvh_size);
    write_seed(dir, "obb_rich_blocks128", s.tree_data, s.tree_size);
    small_free(&s);
    mq_saved_tune = normal;
    /* A cube from arrays: no names, no face map, one leaf and a few. */
    const float p[24] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1};
    const uint32_t idx[36] = {0, 2, 1, 0, 3, 2, 4, 5, 6, 4, 6, 7, 0, 1, 5, 0, 5, 4,
                              2, 3, 7, 2, 7, 6, 1, 2, 6, 1, 6, 5, 0, 4, 7, 0, 7, 3};
    mq_mesh *m;
    assert_int_equal(mq_mesh_create(p, 8, idx, 12, NULL, &m, NULL), MQ_OK);
    for (uint32_t leaf = 1; leaf <= 16; leaf *= 4) {
        mq_bvh_def def = mq_default_bvh_def();
        def.max_leaf_size = leaf;
        def.threads = 1;
        mq_bvh *b;
        assert_int_equal(mq_bvh_build(m, &def, &b, NULL), MQ_OK);
        void *data;
        size_t size;
        save_bvh_mem(b, &data, &size);
        char name[32];
        snprintf(name, sizeof name, "bvh_cube_leaf%u", leaf);
        write_seed(dir, name, data, size);
        mq_saved_free(data, size, NULL);
        mq_bvh_destroy(b);
        mq_obbtree_def od = mq_default_obbtree_def();
        od.max_leaf_size = leaf;
        od.fit = (mq_obb_fit)(leaf % 3);
        mq_obbtree *t;
        assert_int_equal(mq_obbtree_build(m, &od, &t, NULL), MQ_OK);
        save_tree_mem(t, &data, &size);
        snprintf(name, sizeof name, "obb_cube_leaf%u", leaf);
        write_seed(dir, name, data, size);
        mq_saved_free(data, size, NULL);
        mq_obbtree_destroy(t);
    }
    mq_mesh_destroy(m);
    /* Empty meshes. */
    assert_int_equal(mq_mesh_create(p, 1, NULL, 0, NULL, &m, NULL), MQ_OK);
    mq_bvh *b = build_bvh(m, 1);
    mq_obbtree *t = build_tree(m);
    void *data;
    size_t size;
    save_bvh_mem(b, &data, &size);
    write_seed(dir, "bvh_empty", data, size);
    mq_saved_free(data, size, NULL);
    save_tree_mem(t, &data, &size);
    write_seed(dir, "obb_empty", data, size);
    mq_saved_free(data, size, NULL);
    mq_obbtree_destroy(t);
    mq_bvh_destroy(b);
    mq_mesh_destroy(m);
    /* suzanne (about 1000 triangles) when it fits the 50 KB limit; else a subset. */
    mq_mesh *sz = NULL;
    if (mq_obj_load(mq_test_data_file("suzanne.obj"), NULL, &sz, NULL, NULL) == MQ_OK) {
        size_t nt = mq_mesh_triangle_count(sz) < 200 ? mq_mesh_triangle_count(sz) : 200;
        assert_int_equal(
            mq_mesh_create(mq_mesh_positions(sz), mq_mesh_vertex_count(sz), mq_mesh_indices(sz), nt, NULL, &m, NULL),
            MQ_OK);
        b = build_bvh(m, 1);
        save_bvh_mem(b, &data, &size);
        if (size < 50 * 1024)
            write_seed(dir, "bvh_suzanne200", data, size);
        mq_saved_free(data, size, NULL);
        mq_bvh_destroy(b);
        mq_mesh_destroy(m);
        mq_mesh_destroy(sz);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(round_trip_every_mesh),
        cmocka_unit_test(round_trip_special_meshes),
        cmocka_unit_test(refit_a_loaded_bvh),
        cmocka_unit_test(every_byte_flip_is_rejected),
        cmocka_unit_test(every_truncation_is_rejected),
        cmocka_unit_test(every_byte_flip_in_a_mapped_file),
        cmocka_unit_test(header_checks),
        cmocka_unit_test(forged_files_are_rejected_or_safe),
        cmocka_unit_test(structural_forgeries),
        cmocka_unit_test(every_allocation_failure),
        cmocka_unit_test(missing_and_special_paths),
        cmocka_unit_test(full_disk_leaves_nothing_behind),
        cmocka_unit_test(read_faults),
        cmocka_unit_test(loading_from_a_pipe),
        cmocka_unit_test(version1_files_load),
        cmocka_unit_test(small_chunks_and_threads),
    };
    int failed = cmocka_run_group_tests(tests, make_dir, remove_dir);
    /* Writing the fuzz corpus is a chore on request, not a test: MQ_SAVED_WRITE_CORPUS=DIR. */
    const char *corpus = getenv("MQ_SAVED_WRITE_CORPUS");
    if (corpus && *corpus) {
        const struct CMUnitTest chores[] = {
            cmocka_unit_test(write_corpus),
        };
        failed += cmocka_run_group_tests(chores, make_dir, remove_dir);
    }
    return failed;
}
