/*
 * libFuzzer target for loading saved hierarchies (meshquery/saved.h).
 *
 * Each input is loaded from memory four times: as a BVH and as an OBB tree,
 * first as is (the checksums reject almost every mutation) and then with every
 * checksum recomputed (mq_saved_fix_checksums), so that mutations reach the
 * structural checks (read in small chunks for odd sizes, so the checks that
 * run as the data streams in see it arrive in pieces, and for one size in four
 * by several threads). Whatever loads must:
 *   - save again to exactly the bytes that were loaded (checksums fixed; a
 *     version 1 file to the same file in version 2),
 *   - answer a few raycasts, overlaps, closest points, a self-collision, the
 *     statistics, mq_bvh_validate and a refit without crashing (ASan/UBSan),
 *   - be destroyed without leaks.
 * The input with its checksums fixed is also written to a file and loaded
 * mapped (mq_*_load_mapped): the same verdicts as from memory, and whatever
 * loads is used and destroyed in the same way (its arrays in the mapping).
 * Seeds (tests/fuzz/corpus_load) are small valid files of both kinds, written
 * by tests/unit/test_saved.c with MQ_SAVED_WRITE_CORPUS=DIR (format version 2,
 * some with small checksum blocks), version 1 files (v1_*, written before
 * version 2) and past findings (regress_*).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <meshquery/primitives.h>
#include <meshquery/saved.h>

#include "saved/saved_format.h"

#define CHECK(cond)                                                                                                    \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            fprintf(stderr, "fuzz_load: check failed (line %d): %s\n", __LINE__, #cond);                               \
            abort();                                                                                                   \
        }                                                                                                              \
    } while (0)

/* Rays and shapes around the mesh's first vertices (whatever the values are). */
static void probe_points(const mq_mesh *m, float pts[4][3])
{
    size_t n = mq_mesh_vertex_count(m);
    const float *p = mq_mesh_positions(m);
    for (int i = 0; i < 4; i++)
        for (int k = 0; k < 3; k++)
            pts[i][k] = n ? p[3 * ((size_t)i * 7 % n) + k] : (float)(i + k);
}

/* What was loaded saves to the same bytes: with the same checksum block size,
 * and a version 1 file as the version 2 file of the same sections. */
static void resave_same(const void *data, size_t size, bool tree, const void *obj)
{
    mq_saved_header h;
    CHECK(size >= sizeof h);
    memcpy(&h, data, sizeof h);
    uint8_t *want = malloc(size);
    CHECK(want != NULL);
    memcpy(want, data, size);
    if (h.version == 1) {
        h.version = MQ_SAVED_FORMAT_VERSION;
        h.block_log2 = MQ_SAVED_BLOCK_LOG2_DEFAULT;
        memcpy(want, &h, sizeof h);
        CHECK(mq_saved_fix_checksums(want, size));
    }
    const uint32_t block_log2 = mq_saved_tune.block_log2;
    mq_saved_tune.block_log2 = h.block_log2;
    void *again = NULL;
    size_t again_size = 0;
    mq_status st = tree ? mq_obbtree_save_memory(obj, NULL, &again, &again_size, NULL)
                        : mq_bvh_save_memory(obj, NULL, &again, &again_size, NULL);
    mq_saved_tune.block_log2 = block_log2;
    CHECK(st == MQ_OK);
    CHECK(again_size == size && memcmp(again, want, size) == 0);
    mq_saved_free(again, again_size, NULL);
    free(want);
}

static void use_bvh(mq_bvh *b, const void *data, size_t size)
{
    resave_same(data, size, false, b);
    float pts[4][3];
    probe_points(mq_bvh_mesh(b), pts);
    mq_ray rays[8];
    for (int i = 0; i < 8; i++) {
        mq_ray *r = &rays[i];
        for (int k = 0; k < 3; k++) {
            r->origin[k] = pts[i & 3][k] + (float)((i * 3 + k) % 5) - 2.0f;
            r->dir[k] = pts[(i + 1) & 3][k] - r->origin[k] + (k == i % 3 ? 0.5f : 0.0f);
        }
        r->tmin = i == 7 ? -INFINITY : 0.0f;
        r->tmax = INFINITY;
    }
    mq_ray_query q = mq_default_ray_query();
    for (int i = 0; i < 8; i++) {
        mq_hit h[4];
        q.cull_back_faces = i & 1;
        mq_bvh_raycast_closest(b, &rays[i], &q, &h[0]);
        mq_bvh_raycast_any(b, &rays[i], &q);
        mq_bvh_raycast_all(b, &rays[i], &q, h, 4);
    }
    mq_hit hits[8];
    bool occl[8];
    mq_bvh_raycast_closest_batch(b, rays, 8, NULL, 1, hits);
    mq_bvh_raycast_any_batch(b, rays, 8, NULL, 1, occl);
    mq_bvh_stats st;
    mq_bvh_get_stats(b, &st);
    mq_bvh_validate(b, NULL);
    CHECK(mq_bvh_refit(b, NULL, NULL) == MQ_OK);
    mq_bvh_raycast_closest(b, &rays[0], NULL, &hits[0]);
}

static void use_tree(const mq_obbtree *t, const void *data, size_t size)
{
    resave_same(data, size, true, t);
    float pts[4][3];
    probe_points(mq_obbtree_mesh(t), pts);
    for (int i = 0; i < 4; i++) {
        mq_ray r;
        for (int k = 0; k < 3; k++) {
            r.origin[k] = pts[i][k] - 3.0f;
            r.dir[k] = 1.0f + (float)k;
        }
        r.tmin = 0.0f;
        r.tmax = INFINITY;
        mq_hit h;
        mq_obbtree_raycast_closest(t, &r, NULL, &h);
        mq_obbtree_raycast_any(t, &r, NULL);
        mq_sphere s = {{pts[i][0], pts[i][1], pts[i][2]}, 1.0f};
        uint32_t ids[4];
        mq_obbtree_overlap_array(t, &(mq_shape){MQ_SHAPE_SPHERE, {.sphere = s}}, ids, 4);
        mq_capsule c = {
            {pts[i][0], pts[i][1], pts[i][2]}, {pts[(i + 1) & 3][0], pts[(i + 1) & 3][1], pts[(i + 1) & 3][2]}, 0.5f};
        mq_obbtree_overlap_array(t, &(mq_shape){MQ_SHAPE_CAPSULE, {.capsule = c}}, ids, 4);
        mq_aabb box = {{pts[i][0] - 1, pts[i][1] - 1, pts[i][2] - 1}, {pts[i][0] + 1, pts[i][1] + 1, pts[i][2] + 1}};
        mq_obbtree_overlap_array(t, &(mq_shape){MQ_SHAPE_AABB, {.aabb = box}}, ids, 4);
        mq_obb ob;
        vec3 half = {1.0f, 0.5f, 0.25f};
        const float rot[4] = {0.9f, 0.1f, 0.2f, 0.3f}; /* w, x, y, z */
        mq_obb_from_quat(s.center, half, rot, &ob);
        mq_obbtree_overlap_array(t, &(mq_shape){MQ_SHAPE_OBB, {.obb = ob}}, ids, 4);
        mq_point_hit ph;
        mq_obbtree_closest_point(t, s.center, INFINITY, &ph);
    }
    mq_rigid xf = {{1.0f, 0.0f, 0.0f, 0.0f}, {0.25f, 0.0f, 0.0f}}; /* no rotation (w, x, y, z) */
    mq_tri_pair pairs[4];
    mq_obbtree_collide_array(t, t, &xf, pairs, 4);
    mq_obbtree_stats st;
    mq_obbtree_get_stats(t, &st);
    mq_obb root;
    mq_obbtree_root(t, &root);
}

/* Loads the input from memory as both kinds; with `path`, also from that
 * file (holding the same bytes) mapped, which must give the same verdicts. */
static void try_load(const uint8_t *data, size_t size, const char *path)
{
    mq_bvh *b = NULL;
    mq_diag d;
    mq_status st = mq_bvh_load_memory(data, size, NULL, &b, &d);
    CHECK((st == MQ_OK) == (b != NULL));
    if (b) {
        use_bvh(b, data, size);
        mq_bvh_destroy(b);
    }
    if (path) {
        mq_bvh *mb = NULL;
        mq_status mst = mq_bvh_load_mapped(path, NULL, &mb, &d);
        CHECK(mst == st && (mst == MQ_OK) == (mb != NULL));
        if (mb) {
            use_bvh(mb, data, size);
            mq_bvh_destroy(mb);
        }
    }
    mq_obbtree *t = NULL;
    st = mq_obbtree_load_memory(data, size, NULL, &t, &d);
    CHECK((st == MQ_OK) == (t != NULL));
    if (t) {
        use_tree(t, data, size);
        mq_obbtree_destroy(t);
    }
    if (path) {
        mq_obbtree *mt = NULL;
        mq_status mst = mq_obbtree_load_mapped(path, NULL, &mt, &d);
        CHECK(mst == st && (mst == MQ_OK) == (mt != NULL));
        if (mt) {
            use_tree(mt, data, size);
            mq_obbtree_destroy(mt);
        }
    }
}

static char g_path[64];

static void remove_file(void)
{
    unlink(g_path);
}

/* A file of this process holding the bytes, or NULL when it cannot be written. */
static const char *as_file(const uint8_t *data, size_t size)
{
    if (!g_path[0]) {
        const char *dir = getenv("TMPDIR");
        snprintf(g_path, sizeof g_path, "%.40s/fuzz_load.%ld", dir && strlen(dir) < 40 ? dir : "/tmp", (long)getpid());
        atexit(remove_file);
    }
    FILE *f = fopen(g_path, "wb");
    if (!f)
        return NULL;
    bool ok = fwrite(data, 1, size, f) == size;
    ok &= fclose(f) == 0;
    return ok ? g_path : NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size); /* libFuzzer calls it */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* An exact-size heap copy, so that ASan sees any read beyond the end. */
    uint8_t *copy = malloc(size ? size : 1);
    if (!copy)
        return 0;
    if (size)
        memcpy(copy, data, size);
    else
        copy[0] = 0; /* never read; keeps the compiler from seeing uninitialised memory passed on */
    try_load(copy, size, NULL);
    if (mq_saved_fix_checksums(copy, size)) {
        /* Odd sizes: sections arrive in 64..512-byte chunks, so the arena
         * walk and the id checks run on data that comes in pieces; and one
         * size in four, sections from 256 bytes are copied and checksummed by
         * 2 threads (whole checksum blocks of the header's size at a time). */
        const mq_saved_tuning normal = mq_saved_tune;
        if (size & 1)
            mq_saved_tune.chunk = (size_t)64 << ((size >> 1) % 4);
        if ((size & 3) == 3) {
            mq_saved_tune.parallel_min = 256;
            mq_saved_tune.threads = 2;
        }
        try_load(copy, size, as_file(copy, size));
        mq_saved_tune = normal;
    }
    free(copy);
    return 0;
}
