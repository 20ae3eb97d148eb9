/*
 * save_hierarchy — build once, save, load fast.
 *
 *   ./build/examples/save_hierarchy data/spot.obj spot.mqh
 *
 * Loads an OBJ file and builds a BVH, saves it (with its mesh) to a file, loads
 * it back and checks that the loaded BVH answers 10,000 rays exactly as the
 * built one, hit records included. Then does the same for an OBB tree through
 * a memory block (mq_obbtree_save_memory / mq_obbtree_load_memory) with sphere
 * overlaps. A loaded hierarchy owns its mesh: destroying it frees both.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <meshquery/meshquery.h>
#include <meshquery/saved.h>

static double now_ms(void)
{
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int fail(const char *what, const mq_diag *diag)
{
    fprintf(stderr, "%s: %s%s%s\n", what, diag->path, diag->path[0] ? ": " : "", diag->message);
    return 1;
}

/* A reproducible pseudo-random float in [lo, hi]. */
static float rnd(unsigned *state, float lo, float hi)
{
    *state = *state * 1664525u + 1013904223u;
    return lo + (hi - lo) * (float)(*state >> 8) / 16777216.0f;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s MESH.obj OUT.mqh\n", argv[0]);
        return 2;
    }
    mq_diag diag;
    mq_mesh *mesh = NULL;
    mq_bvh *built = NULL, *loaded = NULL;
    if (mq_obj_load(argv[1], NULL, &mesh, NULL, &diag) != MQ_OK)
        return fail("load", &diag);

    double t0 = now_ms();
    if (mq_bvh_build(mesh, NULL, &built, &diag) != MQ_OK)
        return fail("build", &diag);
    double t1 = now_ms();
    if (mq_bvh_save(built, argv[2], &diag) != MQ_OK) /* atomic: temporary file, then rename */
        return fail("save", &diag);
    double t2 = now_ms();
    if (mq_bvh_load(argv[2], NULL, &loaded, &diag) != MQ_OK)
        return fail("load saved", &diag);
    double t3 = now_ms();
    FILE *f = fopen(argv[2], "rb");
    long bytes = -1;
    if (f && fseek(f, 0, SEEK_END) == 0)
        bytes = ftell(f);
    if (f)
        fclose(f);
    printf("BVH over %zu triangles: build %.2f ms, save %.2f ms (%ld bytes), load %.2f ms\n",
           mq_mesh_triangle_count(mesh), t1 - t0, t2 - t1, bytes, t3 - t2);

    /* The loaded BVH owns a copy of the mesh and answers bit for bit alike. */
    const mq_mesh *loaded_mesh = mq_bvh_mesh(loaded);
    mq_obb box;
    mq_obbtree *probe = NULL;
    if (mq_obbtree_build(mesh, NULL, &probe, &diag) != MQ_OK)
        return fail("build OBB tree", &diag);
    mq_obbtree_root(probe, &box);
    unsigned seed = 12345u;
    size_t hits = 0, differ = 0;
    for (int i = 0; i < 10000; i++) {
        mq_ray ray = {{0}, 0.0f, {0}, INFINITY};
        for (int k = 0; k < 3; k++) {
            float r = box.half[0] + box.half[1] + box.half[2];
            ray.origin[k] = box.center[k] + rnd(&seed, -2.0f * r, 2.0f * r);
            ray.dir[k] = box.center[k] + rnd(&seed, -box.half[k], box.half[k]) - ray.origin[k];
        }
        mq_hit a, b;
        bool ha = mq_bvh_raycast_closest(built, &ray, NULL, &a);
        bool hb = mq_bvh_raycast_closest(loaded, &ray, NULL, &b);
        hits += ha;
        if (ha != hb || (ha && (a.triangle != b.triangle || a.t != b.t || a.face != b.face ||
                                memcmp(a.point, b.point, sizeof a.point) != 0)))
            differ++;
    }
    printf("BVH: 10000 rays, %zu hits, %zu differences (loaded mesh: %zu triangles)\n", hits, differ,
           mq_mesh_triangle_count(loaded_mesh));

    /* The OBB tree through a memory block. */
    void *block = NULL;
    size_t size = 0;
    mq_obbtree *tree_loaded = NULL;
    if (mq_obbtree_save_memory(probe, NULL, &block, &size, &diag) != MQ_OK)
        return fail("save OBB tree", &diag);
    if (mq_obbtree_load_memory(block, size, NULL, &tree_loaded, &diag) != MQ_OK)
        return fail("load OBB tree", &diag);
    mq_saved_free(block, size, NULL); /* the loaded tree keeps nothing of the block */
    size_t overlap_differ = 0, overlaps = 0;
    for (int i = 0; i < 1000; i++) {
        mq_sphere s;
        for (int k = 0; k < 3; k++)
            s.center[k] = box.center[k] + rnd(&seed, -box.half[k], box.half[k]);
        s.radius = rnd(&seed, 0.0f, 0.2f * box.half[0]);
        mq_shape shape = mq_shape_sphere(s);
        size_t na = mq_obbtree_overlap_array(probe, &shape, NULL, 0);
        size_t nb = mq_obbtree_overlap_array(tree_loaded, &shape, NULL, 0);
        overlaps += na;
        overlap_differ += na != nb;
    }
    printf("OBB tree: %zu-byte block, 1000 spheres, %zu overlaps, %zu differences\n", size, overlaps, overlap_differ);

    int ok = differ == 0 && overlap_differ == 0 && hits > 0;
    printf("%s\n", ok ? "saved and loaded hierarchies give identical answers" : "MISMATCH");
    mq_obbtree_destroy(tree_loaded); /* frees its own mesh too */
    mq_obbtree_destroy(probe);
    mq_bvh_destroy(loaded); /* frees its own mesh too */
    mq_bvh_destroy(built);
    mq_mesh_destroy(mesh);
    remove(argv[2]);
    return ok ? 0 : 1;
}
