/*
 * Clash detection and instance distance (clash.h) against brute force:
 *   - mq_scene_distance on small meshes under random affine placements
 *     against every triangle pair in double (0 when the pair's corners,
 *     mapped to the world shifted by instance a's translation and rounded to
 *     float, intersect by mq_overlap_triangle_triangle; otherwise the least
 *     vertex-triangle and edge-edge distance from tests/support/oracle.c);
 *   - mq_scene_clash on scenes of mixed meshes from data/ and random
 *     placements (some unit cubes exactly touching) against the all-pairs
 *     loop over instances, for d = 0 and d > 0; the same answer, bit for bit,
 *     for 1, 2 and 3 threads; masks and the filter; triangle pairs within d;
 *   - the same clash lists and instance distances, witnesses included, bit
 *     for bit at every ISA level the build and the CPU have;
 *   - every allocation failing in turn: MQ_ERR_OUT_OF_MEMORY and no leak.
 * A large scene (MQ_CLASH_LARGE instances, default 2,000) is timed and
 * printed, not asserted on.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <meshquery/meshquery.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

#include "core/isa.h"
#include "oracle.h"
#include "test_support.h"

/* ---- meshes ---- */

#define N_MESHES 6

typedef struct fixture {
    mq_mesh *mesh[N_MESHES];
    mq_bvh *bvh[N_MESHES];
    mq_obbtree *obb[N_MESHES];
    double diag[N_MESHES]; /* bounding box diagonal */
} fixture;

static const float cube_pos[] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1};
static const uint32_t cube_idx[] = {0, 2, 1, 0, 3, 2, 4, 5, 6, 4, 6, 7, 0, 1, 5, 0, 5, 4,
                                    1, 2, 6, 1, 6, 5, 2, 3, 7, 2, 7, 6, 3, 0, 4, 3, 4, 7};

/* A UV sphere of radius 0.5: 8 x 6 quads, poles collapsed. */
static mq_mesh *uv_sphere(void)
{
    enum { NU = 8, NV = 6 };
    float pos[(NU + 1) * (NV + 1) * 3];
    uint32_t idx[NU * NV * 6];
    size_t nv = 0, ni = 0;
    for (int j = 0; j <= NV; j++)
        for (int i = 0; i <= NU; i++) {
            double th = M_PI * j / NV, ph = 2 * M_PI * i / NU;
            pos[nv * 3 + 0] = (float)(0.5 * sin(th) * cos(ph));
            pos[nv * 3 + 1] = (float)(0.5 * sin(th) * sin(ph));
            pos[nv * 3 + 2] = (float)(0.5 * cos(th));
            nv++;
        }
    for (int j = 0; j < NV; j++)
        for (int i = 0; i < NU; i++) {
            uint32_t a = (uint32_t)(j * (NU + 1) + i), b = a + 1, c = a + NU + 1, d = c + 1;
            uint32_t q[6] = {a, c, b, b, c, d};
            memcpy(idx + ni, q, sizeof q);
            ni += 6;
        }
    mq_mesh *m = NULL;
    assert_int_equal(mq_mesh_create(pos, nv, idx, ni / 3, NULL, &m, NULL), MQ_OK);
    return m;
}

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    assert_int_equal(mq_mesh_create(cube_pos, 8, cube_idx, 12, NULL, &f->mesh[0], NULL), MQ_OK);
    f->mesh[1] = uv_sphere();
    f->mesh[2] = mq_test_load_mesh("suzanne.obj");
    f->mesh[3] = mq_test_load_mesh("spot.obj");
    f->mesh[4] = mq_test_load_mesh("teapot.obj");
    f->mesh[5] = mq_test_load_mesh("stanford-bunny.obj");
    mq_bvh_def bd = mq_default_bvh_def();
    for (int i = 0; i < N_MESHES; i++) {
        assert_int_equal(mq_bvh_build(f->mesh[i], &bd, &f->bvh[i], NULL), MQ_OK);
        assert_int_equal(mq_obbtree_build(f->mesh[i], NULL, &f->obb[i], NULL), MQ_OK);
        mq_aabb b;
        const float *p = mq_mesh_positions(f->mesh[i]);
        size_t n = mq_mesh_vertex_count(f->mesh[i]);
        for (int k = 0; k < 3; k++) {
            b.min[k] = INFINITY;
            b.max[k] = -INFINITY;
        }
        for (size_t v = 0; v < n; v++)
            for (int k = 0; k < 3; k++) {
                b.min[k] = fminf(b.min[k], p[3 * v + k]);
                b.max[k] = fmaxf(b.max[k], p[3 * v + k]);
            }
        double d2 = 0;
        for (int k = 0; k < 3; k++)
            d2 += ((double)b.max[k] - b.min[k]) * ((double)b.max[k] - b.min[k]);
        f->diag[i] = sqrt(d2);
    }
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    for (int i = 0; i < N_MESHES; i++) {
        mq_bvh_destroy(f->bvh[i]);
        mq_obbtree_destroy(f->obb[i]);
        mq_mesh_destroy(f->mesh[i]);
    }
    free(f);
    return 0;
}

/* ---- placements ---- */

/* A random placement of mesh `m` scaled to a diagonal of about `size`, centred near c. */
static mq_instance_def random_def(const fixture *f, mq_test_rng *r, int m, const double c[3], double size)
{
    mq_instance_def d = mq_default_instance_def();
    if (mq_test_rng_unit(r) < 0.5)
        d.bvh = f->bvh[m];
    else
        d.obbtree = f->obb[m];
    double q[4], s = size / f->diag[m];
    mq_test_rng_quat(r, q);
    mq_dvec3 sc = {s, s, s};
    double u = mq_test_rng_unit(r);
    if (u < 0.15) { /* some stretched or mirrored */
        sc[0] *= 1.6;
        sc[2] *= u < 0.07 ? -1.0 : 0.7;
    }
    d.transform = mq_xform_from_trs(c, q, sc);
    return d;
}

/* ---- the triangle brute force ---- */

static void world_tri(const mq_scene *s, uint32_t id, uint32_t t, const double shift[3], oracle_tri *out)
{
    mq_instance_def d;
    assert_true(mq_scene_instance(s, id, &d));
    const mq_mesh *m = d.bvh ? mq_bvh_mesh(d.bvh) : mq_obbtree_mesh(d.obbtree);
    mq_triangle tri;
    mq_mesh_get_triangle(m, t, &tri);
    for (int v = 0; v < 3; v++) {
        double w[3];
        for (int r = 0; r < 3; r++)
            w[r] = d.transform.m[r][0] * tri.v[v][0] + d.transform.m[r][1] * tri.v[v][1] +
                   d.transform.m[r][2] * tri.v[v][2] + (d.transform.m[r][3] - shift[r]);
        out->v[v] = oracle_v3_make(w[0], w[1], w[2]);
    }
}

/* The distance of two triangles in the shifted world, as clash.h defines it. */
static double tri_distance(const oracle_tri *a, const oracle_tri *b)
{
    mq_triangle fa, fb;
    for (int v = 0; v < 3; v++) {
        oracle_v3_to_f(a->v[v], fa.v[v]);
        oracle_v3_to_f(b->v[v], fb.v[v]);
    }
    if (mq_overlap_triangle_triangle(&fa, &fb))
        return 0.0;
    double best = INFINITY, u, v, s, t;
    for (int i = 0; i < 3; i++) {
        best = fmin(best, oracle_dist2_point_triangle(a->v[i], b, &u, &v));
        best = fmin(best, oracle_dist2_point_triangle(b->v[i], a, &u, &v));
        for (int j = 0; j < 3; j++)
            best = fmin(best,
                        oracle_dist2_segment_segment(a->v[i], a->v[(i + 1) % 3], b->v[j], b->v[(j + 1) % 3], &s, &t));
    }
    return sqrt(best);
}

static double coord(oracle_v3 v, int k)
{
    return k == 0 ? v.x : k == 1 ? v.y : v.z;
}

static double brute_distance(const mq_scene *s, uint32_t a, uint32_t b)
{
    mq_instance_def da, db;
    assert_true(mq_scene_instance(s, a, &da) && mq_scene_instance(s, b, &db));
    const mq_mesh *ma = da.bvh ? mq_bvh_mesh(da.bvh) : mq_obbtree_mesh(da.obbtree);
    const mq_mesh *mb = db.bvh ? mq_bvh_mesh(db.bvh) : mq_obbtree_mesh(db.obbtree);
    double shift[3] = {da.transform.m[0][3], da.transform.m[1][3], da.transform.m[2][3]};
    size_t na = mq_mesh_triangle_count(ma), nb = mq_mesh_triangle_count(mb);
    oracle_tri *tb = malloc(nb * sizeof *tb);
    for (size_t j = 0; j < nb; j++)
        world_tri(s, b, (uint32_t)j, shift, &tb[j]);
    /* every pair, except those whose boxes are already farther apart than the best so far */
    double best = INFINITY;
    for (size_t i = 0; i < na; i++) {
        oracle_tri ta;
        world_tri(s, a, (uint32_t)i, shift, &ta);
        for (size_t j = 0; j < nb; j++) {
            double gap2 = 0.0;
            for (int k = 0; k < 3; k++) {
                double alo = fmin(fmin(coord(ta.v[0], k), coord(ta.v[1], k)), coord(ta.v[2], k));
                double ahi = fmax(fmax(coord(ta.v[0], k), coord(ta.v[1], k)), coord(ta.v[2], k));
                double blo = fmin(fmin(coord(tb[j].v[0], k), coord(tb[j].v[1], k)), coord(tb[j].v[2], k));
                double bhi = fmax(fmax(coord(tb[j].v[0], k), coord(tb[j].v[1], k)), coord(tb[j].v[2], k));
                double g = fmax(alo - bhi, blo - ahi);
                if (g > 0.0)
                    gap2 += g * g;
            }
            if (gap2 > best * best)
                continue;
            best = fmin(best, tri_distance(&ta, &tb[j]));
        }
    }
    free(tb);
    return best;
}

static void test_distance_brute(void **state)
{
    fixture *f = *state;
    mq_test_rng r;
    mq_test_rng_seed(&r, mq_test_seed(0xC1A5401));
    int zero = 0, n = 0;
    for (int it = 0; it < 60; it++) {
        mq_scene *s = NULL;
        assert_int_equal(mq_scene_create(NULL, &s, NULL), MQ_OK);
        uint32_t ids[2];
        for (int k = 0; k < 2; k++) {
            int m = it < 56 ? (int)(mq_test_rng_u64(&r) % 2) : 2; /* cube, sphere; a few suzannes */
            double c[3] = {mq_test_rng_range(&r, -0.6, 0.6), mq_test_rng_range(&r, -0.6, 0.6),
                           mq_test_rng_range(&r, -0.6, 0.6)};
            if (it % 10 == 9)
                for (int e = 0; e < 3; e++)
                    c[e] += 1e6; /* far from the origin */
            mq_instance_def d = random_def(f, &r, m, c, 1.0);
            assert_int_equal(mq_scene_add(s, &d, &ids[k], NULL), MQ_OK);
        }
        assert_int_equal(mq_scene_commit(s, NULL), MQ_OK);
        mq_instance_distance got;
        assert_true(mq_scene_distance(s, ids[0], ids[1], INFINITY, &got));
        double want = brute_distance(s, ids[0], ids[1]);
        double scale = 1e6 * (it % 10 == 9) + 2.0;
        assert_true(fabs(got.distance - want) <= 1e-9 * scale);
        double pd = sqrt((got.point_a[0] - got.point_b[0]) * (got.point_a[0] - got.point_b[0]) +
                         (got.point_a[1] - got.point_b[1]) * (got.point_a[1] - got.point_b[1]) +
                         (got.point_a[2] - got.point_b[2]) * (got.point_a[2] - got.point_b[2]));
        assert_true(fabs(pd - got.distance) <= 1e-9 * scale);
        /* the witness triangles are at that distance */
        double shift[3];
        mq_instance_def da;
        mq_scene_instance(s, ids[0], &da);
        for (int e = 0; e < 3; e++)
            shift[e] = da.transform.m[e][3];
        oracle_tri ta, tb;
        world_tri(s, ids[0], got.triangle_a, shift, &ta);
        world_tri(s, ids[1], got.triangle_b, shift, &tb);
        assert_true(fabs(tri_distance(&ta, &tb) - got.distance) <= 1e-9 * scale);
        /* max_distance below it: nothing; at it: found */
        if (got.distance > 0) {
            assert_false(mq_scene_distance(s, ids[0], ids[1], got.distance * 0.999, NULL));
            zero += 0;
        } else {
            zero++;
        }
        assert_true(mq_scene_distance(s, ids[0], ids[1], got.distance, NULL));
        /* the arguments swapped: the same measurement (in the lower instance's
         * frame), its sides swapped */
        mq_instance_distance rev;
        assert_true(mq_scene_distance(s, ids[1], ids[0], INFINITY, &rev));
        assert_true(rev.distance == got.distance);
        assert_int_equal(rev.triangle_a, got.triangle_b);
        assert_int_equal(rev.triangle_b, got.triangle_a);
        assert_memory_equal(rev.point_a, got.point_b, sizeof rev.point_a);
        assert_memory_equal(rev.point_b, got.point_a, sizeof rev.point_b);
        n++;
        mq_scene_destroy(s);
    }
    printf("  %d pairs, %d intersecting\n", n, zero);
    assert_true(zero > 5 && zero < n - 5);
}

/* ---- scenes ---- */

/* n random instances in a cube of side `side`, plus a row of 6 unit cubes touching face to face. */
static mq_scene *random_scene(const fixture *f, mq_test_rng *r, int n, double side, const mq_allocator *alloc)
{
    mq_scene *s = NULL;
    assert_int_equal(mq_scene_create(alloc, &s, NULL), MQ_OK);
    uint32_t id;
    for (int i = 0; i < n; i++) {
        double c[3];
        for (int k = 0; k < 3; k++)
            c[k] = mq_test_rng_range(r, 0, side);
        int m = (int)(mq_test_rng_u64(r) % N_MESHES);
        if (m == 5 && mq_test_rng_unit(r) < 0.7) /* fewer bunnies */
            m = 2;
        mq_instance_def d = random_def(f, r, m, c, mq_test_rng_range(r, 0.5, 1.5));
        d.mask = 1u << (i % 3);
        d.user_id = (uint64_t)i;
        assert_int_equal(mq_scene_add(s, &d, &id, NULL), MQ_OK);
    }
    for (int k = 0; k < 6; k++) {
        mq_instance_def d = mq_default_instance_def();
        d.bvh = f->bvh[0];
        d.transform.m[0][3] = side + 3.0 + k;
        d.transform.m[1][3] = -4.0;
        d.transform.m[2][3] = 0.5;
        assert_int_equal(mq_scene_add(s, &d, &id, NULL), MQ_OK);
    }
    assert_int_equal(mq_scene_commit(s, NULL), MQ_OK);
    return s;
}

typedef struct ref_pair {
    uint32_t a, b;
    double distance;
} ref_pair;

typedef struct filter_arg {
    int calls;
} filter_arg;

static bool skip_some(uint32_t a, uint32_t b, void *user)
{
    ((filter_arg *)user)->calls++;
    return (a + b) % 3 != 0;
}

/* The all-pairs loop: every a < b with matching masks, not filtered, at distance <= d. */
static size_t all_pairs(const mq_scene *s, double d, uint32_t mask, bool filtered, ref_pair **out)
{
    size_t n = mq_scene_instance_count(s), k = 0, cap = 64;
    ref_pair *v = malloc(cap * sizeof *v);
    for (uint32_t a = 0; a < n; a++) {
        mq_instance_def da;
        assert_true(mq_scene_instance(s, a, &da));
        if (!(da.mask & mask))
            continue;
        for (uint32_t b = a + 1; b < n; b++) {
            mq_instance_def db;
            assert_true(mq_scene_instance(s, b, &db));
            if (!(db.mask & mask) || (filtered && (a + b) % 3 == 0))
                continue;
            mq_instance_distance r;
            if (!mq_scene_distance(s, a, b, d, &r))
                continue;
            if (k == cap)
                v = realloc(v, (cap *= 2) * sizeof *v);
            v[k++] = (ref_pair){a, b, r.distance};
        }
    }
    *out = v;
    return k;
}

static void check_same(const mq_clash_list *l, const ref_pair *ref, size_t n)
{
    assert_int_equal(mq_clash_list_count(l), n);
    for (size_t i = 0; i < n; i++) {
        const mq_clash *c = mq_clash_list_get(l, i);
        assert_int_equal(c->instance_a, ref[i].a);
        assert_int_equal(c->instance_b, ref[i].b);
        assert_true(c->distance == ref[i].distance);
    }
}

/* The same records, witnesses and triangle pairs, bit for bit. */
static void check_lists_equal(const mq_clash_list *l, const mq_clash_list *l1)
{
    size_t n = mq_clash_list_count(l);
    assert_int_equal(n, mq_clash_list_count(l1));
    for (size_t i = 0; i < n; i++) {
        assert_memory_equal(mq_clash_list_get(l, i), mq_clash_list_get(l1, i), sizeof(mq_clash));
        size_t p0, p1;
        const mq_clash_tri_pair *a = mq_clash_list_pairs(l, i, &p0), *b = mq_clash_list_pairs(l1, i, &p1);
        assert_int_equal(p0, p1);
        if (p0)
            assert_memory_equal(a, b, p0 * sizeof *a);
    }
}

static void check_thread_invariant(const mq_scene *s, const mq_clash_options *o0, const mq_clash_list *l1)
{
    for (uint32_t t = 2; t <= 3; t++) {
        mq_clash_options o = *o0;
        o.threads = t;
        mq_clash_list *l = NULL;
        assert_int_equal(mq_scene_clash(s, &o, &l, NULL), MQ_OK);
        check_lists_equal(l, l1);
        mq_clash_list_destroy(l);
    }
}

/* Clash lists and instance distances (witnesses included) are the same bit
 * for bit at every ISA level this build and CPU have (core/isa.h): the
 * distance walk's SIMD node bounds take the scalar code's operations lane by
 * lane. */
static void test_isa_invariant(void **state)
{
    fixture *f = *state;
    mq_test_rng r;
    mq_test_rng_seed(&r, mq_test_seed(0x15A1));
    mq_scene *s = random_scene(f, &r, 200, cbrt(200.0) * 1.1, NULL);
    const double clearances[] = {0.0, 0.05};
    mq_clash_list *ref[2] = {NULL, NULL};
    mq_instance_distance dref[40];
    bool found[40];
    int levels = 0;
    for (int kn = MQ_ISA_SCALAR; kn <= MQ_ISA_AVX2; kn++) {
        if (mq_isa_override((mq_isa)kn) != (mq_isa)kn)
            continue; /* not in this build or on this CPU */
        levels++;
        for (int di = 0; di < 2; di++) {
            mq_clash_options o = mq_default_clash_options();
            o.clearance = clearances[di];
            o.threads = 1;
            o.max_triangle_pairs = 4;
            mq_clash_list *l = NULL;
            assert_int_equal(mq_scene_clash(s, &o, &l, NULL), MQ_OK);
            if (!ref[di]) {
                ref[di] = l;
                continue;
            }
            check_lists_equal(l, ref[di]);
            mq_clash_list_destroy(l);
        }
        for (uint32_t i = 0; i < 40; i++) {
            mq_instance_distance got;
            memset(&got, 0, sizeof got);
            bool ok = mq_scene_distance(s, i, 199 - i, INFINITY, &got);
            if (levels == 1) {
                found[i] = ok;
                dref[i] = got;
                continue;
            }
            assert_int_equal(ok, found[i]);
            assert_memory_equal(&got, &dref[i], sizeof got);
        }
    }
    mq_isa_override_clear();
    printf("  %d ISA levels, %zu and %zu clashes\n", levels, mq_clash_list_count(ref[0]), mq_clash_list_count(ref[1]));
    assert_true(levels >= 1 && mq_clash_list_count(ref[0]) > 20);
    mq_clash_list_destroy(ref[0]);
    mq_clash_list_destroy(ref[1]);
    mq_scene_destroy(s);
}

static void test_scenes(void **state)
{
    fixture *f = *state;
    mq_test_rng r;
    mq_test_rng_seed(&r, mq_test_seed(0xC1A5402));
    const int sizes[] = {40, 300};
    const double clearances[] = {0.0, 0.05, 0.4};
    size_t total = 0, touching_seen = 0;
    for (int si = 0; si < 2; si++) {
        int n = sizes[si];
        mq_scene *s = random_scene(f, &r, n, cbrt((double)n) * 1.6, NULL);
        for (int di = 0; di < 3; di++) {
            double d = clearances[di];
            ref_pair *ref;
            size_t nref = all_pairs(s, d, 0xFFFFFFFFu, false, &ref);
            mq_clash_options o = mq_default_clash_options();
            o.clearance = d;
            o.threads = 1;
            o.max_triangle_pairs = 3;
            mq_clash_list *l = NULL;
            assert_int_equal(mq_scene_clash(s, &o, &l, NULL), MQ_OK);
            check_same(l, ref, nref);
            printf("  %d instances, d = %g: %zu clashes\n", n + 6, d, nref);
            total += nref;
            /* the touching cubes: each with the next, at distance 0 */
            for (size_t i = 0; i < nref; i++)
                if (ref[i].a >= (uint32_t)n && ref[i].b == ref[i].a + 1) {
                    touching_seen++;
                    assert_true(ref[i].distance == 0.0);
                }
            /* the triangle pairs: within d, at most 3, and at least one */
            for (size_t i = 0; i < nref; i++) {
                size_t np;
                const mq_clash_tri_pair *p = mq_clash_list_pairs(l, i, &np);
                const mq_clash *c = mq_clash_list_get(l, i);
                assert_true(np >= 1 && np <= 3 && np == c->pair_count);
                mq_instance_def da;
                mq_scene_instance(s, c->instance_a, &da);
                double shift[3] = {da.transform.m[0][3], da.transform.m[1][3], da.transform.m[2][3]};
                for (size_t k = 0; k < np; k++) {
                    assert_true(p[k].distance <= d);
                    oracle_tri ta, tb;
                    world_tri(s, c->instance_a, p[k].triangle_a, shift, &ta);
                    world_tri(s, c->instance_b, p[k].triangle_b, shift, &tb);
                    assert_true(fabs(tri_distance(&ta, &tb) - p[k].distance) <= 1e-9 * (1.0 + cbrt(n) * 2));
                }
            }
            check_thread_invariant(s, &o, l);
            mq_clash_list_destroy(l);
            free(ref);
            /* masks and the filter */
            filter_arg fa = {0};
            o.mask = 0x5;
            o.filter = skip_some;
            o.filter_user = &fa;
            o.max_triangle_pairs = 0;
            nref = all_pairs(s, d, 0x5, true, &ref);
            assert_int_equal(mq_scene_clash(s, &o, &l, NULL), MQ_OK);
            check_same(l, ref, nref);
            assert_true(fa.calls >= (int)nref);
            assert_null(mq_clash_list_pairs(l, 0, NULL));
            mq_clash_list_destroy(l);
            free(ref);
        }
        mq_scene_destroy(s);
    }
    assert_true(total > 100);
    assert_int_equal(touching_seen, 2 * 3 * 5);
}

/* Two instances whose world boxes are 17.875 apart, farther than the
 * clearance (8.625), yet at distance 0 by clash.h's definition: their only
 * point lies at x = 3.2e9 in the lower instance's shifted world, where float
 * spacing is 256, so the two round together. The clash list must hold the
 * pair (fuzz_clash found it missing: candidates came from the exact boxes). */
static void test_rounding_candidates(void **state)
{
    (void)state;
    const float pos[] = {-1.25f, -0.625f, 534484096.0f};
    const uint32_t idx[] = {0, 0, 0};
    mq_mesh *m = NULL;
    mq_bvh *b = NULL;
    mq_scene *s = NULL;
    assert_int_equal(mq_mesh_create(pos, 1, idx, 1, NULL, &m, NULL), MQ_OK);
    assert_int_equal(mq_bvh_build(m, NULL, &b, NULL), MQ_OK);
    assert_int_equal(mq_scene_create(NULL, &s, NULL), MQ_OK);
    const double tx[2] = {-11.875, 6.0};
    uint32_t ids[2];
    for (int i = 0; i < 2; i++) {
        mq_instance_def d = mq_default_instance_def();
        d.bvh = b;
        double a[3][4] = {{0, 0, 6, tx[i]}, {6, 0, 0, 6}, {0, 6, 0, 6}};
        memcpy(d.transform.m, a, sizeof a);
        assert_int_equal(mq_scene_add(s, &d, &ids[i], NULL), MQ_OK);
    }
    assert_int_equal(mq_scene_commit(s, NULL), MQ_OK);
    mq_instance_distance dist;
    assert_true(mq_scene_distance(s, ids[0], ids[1], 8.625, &dist));
    assert_true(dist.distance == 0.0);
    mq_clash_options o = mq_default_clash_options();
    o.clearance = 8.625;
    mq_clash_list *l = NULL;
    assert_int_equal(mq_scene_clash(s, &o, &l, NULL), MQ_OK);
    assert_int_equal(mq_clash_list_count(l), 1);
    const mq_clash *c = mq_clash_list_get(l, 0);
    assert_int_equal(c->instance_a, ids[0]);
    assert_int_equal(c->instance_b, ids[1]);
    assert_true(c->distance == 0.0);
    mq_clash_list_destroy(l);
    mq_scene_destroy(s);
    mq_bvh_destroy(b);
    mq_mesh_destroy(m);
}

static void test_args(void **state)
{
    fixture *f = *state;
    mq_scene *s = NULL;
    mq_clash_list *l = (mq_clash_list *)1;
    assert_int_equal(mq_scene_clash(NULL, NULL, &l, NULL), MQ_ERR_INVALID_ARG);
    assert_null(l);
    assert_int_equal(mq_scene_create(NULL, &s, NULL), MQ_OK);
    /* an empty scene: an empty list */
    assert_int_equal(mq_scene_clash(s, NULL, &l, NULL), MQ_OK);
    assert_int_equal(mq_clash_list_count(l), 0);
    assert_null(mq_clash_list_get(l, 0));
    mq_clash_list_destroy(l);
    mq_clash_options o = mq_default_clash_options();
    const double bad[] = {-1.0, NAN, INFINITY};
    for (int i = 0; i < 3; i++) {
        o.clearance = bad[i];
        mq_diag dg;
        assert_int_equal(mq_scene_clash(s, &o, &l, &dg), MQ_ERR_INVALID_ARG);
        assert_null(l);
    }
    uint32_t a, b;
    mq_instance_def d = mq_default_instance_def();
    d.bvh = f->bvh[0];
    assert_int_equal(mq_scene_add(s, &d, &a, NULL), MQ_OK);
    d.transform.m[0][3] = 3.0;
    assert_int_equal(mq_scene_add(s, &d, &b, NULL), MQ_OK);
    assert_false(mq_scene_distance(s, a, b, 1.0, NULL)); /* not committed yet */
    assert_int_equal(mq_scene_commit(s, NULL), MQ_OK);
    mq_instance_distance r;
    assert_true(mq_scene_distance(s, a, b, INFINITY, &r));
    assert_true(r.distance == 2.0 && r.point_a[0] == 1.0 && r.point_b[0] == 3.0);
    assert_false(mq_scene_distance(s, a, b, 1.99, NULL));
    assert_true(mq_scene_distance(s, a, b, 2.0, NULL));
    assert_false(mq_scene_distance(s, a, b, -1.0, NULL));
    assert_false(mq_scene_distance(s, a, b, NAN, NULL));
    assert_false(mq_scene_distance(s, a, 7, INFINITY, NULL));
    assert_true(mq_scene_distance(s, a, a, 0.0, &r) && r.distance == 0.0);
    /* clearance 2 takes them in, just below does not */
    o = mq_default_clash_options();
    o.clearance = 2.0;
    assert_int_equal(mq_scene_clash(s, &o, &l, NULL), MQ_OK);
    assert_int_equal(mq_clash_list_count(l), 1);
    mq_clash_list_destroy(l);
    o.clearance = 1.9999;
    assert_int_equal(mq_scene_clash(s, &o, &l, NULL), MQ_OK);
    assert_int_equal(mq_clash_list_count(l), 0);
    mq_clash_list_destroy(l);
    mq_clash_list_destroy(NULL);
    mq_scene_destroy(s);
}

/* ---- allocation failure ---- */

typedef struct counting {
    long allocs, fail_at;
    long long live;
} counting;

static void *count_alloc(size_t size, size_t align, void *user)
{
    counting *c = user;
    if (++c->allocs == c->fail_at)
        return NULL;
    c->live += (long long)size;
    void *p = NULL;
    if (posix_memalign(&p, align < sizeof(void *) ? sizeof(void *) : align, size))
        abort();
    return p;
}

static void count_free(void *ptr, size_t size, void *user)
{
    counting *c = user;
    c->live -= (long long)size;
    free(ptr);
}

static void test_alloc_failures(void **state)
{
    fixture *f = *state;
    counting c = {0, 0, 0};
    mq_allocator a = {count_alloc, count_free, &c};
    mq_test_rng r;
    mq_test_rng_seed(&r, 77);
    mq_scene *s = random_scene(f, &r, 300, 10.0, &a); /* enough candidates for the array to grow */
    mq_clash_options o = mq_default_clash_options();
    o.clearance = 0.1;
    o.max_triangle_pairs = 2;
    mq_clash_list *ref = NULL;
    assert_int_equal(mq_scene_clash(s, &o, &ref, NULL), MQ_OK);
    long long base = c.live;
    int failures = 0;
    for (long k = 1;; k++) {
        c.allocs = 0;
        c.fail_at = k;
        mq_clash_list *l = NULL;
        mq_status st = mq_scene_clash(s, &o, &l, NULL);
        if (st == MQ_OK) {
            assert_int_equal(mq_clash_list_count(l), mq_clash_list_count(ref));
            mq_clash_list_destroy(l);
            assert_true(c.live == base);
            break;
        }
        assert_int_equal(st, MQ_ERR_OUT_OF_MEMORY);
        assert_null(l);
        assert_true(c.live == base);
        failures++;
    }
    printf("  %d allocations failed in turn\n", failures);
    assert_true(failures >= 6);
    c.fail_at = 0;
    mq_clash_list_destroy(ref);
    mq_scene_destroy(s);
    assert_true(c.live == 0);
}

/* ---- a large scene, timed ---- */

static void test_large(void **state)
{
    fixture *f = *state;
    const char *env = getenv("MQ_CLASH_LARGE");
    int n = env ? atoi(env) : 2000;
    if (n < 10)
        n = 10;
    mq_test_rng r;
    mq_test_rng_seed(&r, 99);
    struct timespec t0, t1, t2;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    mq_scene *s = random_scene(f, &r, n, cbrt((double)n) * 1.6, NULL);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    mq_clash_options o = mq_default_clash_options();
    o.threads = 1;
    mq_clash_list *l1 = NULL;
    assert_int_equal(mq_scene_clash(s, &o, &l1, NULL), MQ_OK);
    clock_gettime(CLOCK_MONOTONIC, &t2);
    printf("  %d instances: scene %.3f s, clash (1 thread) %.3f s, %zu clashes\n", n + 6,
           (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec),
           (double)(t2.tv_sec - t1.tv_sec) + 1e-9 * (double)(t2.tv_nsec - t1.tv_nsec), mq_clash_list_count(l1));
    assert_true(mq_clash_list_count(l1) > (size_t)n / 10);
    check_thread_invariant(s, &o, l1);
    mq_clash_list_destroy(l1);
    mq_scene_destroy(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_args),
        cmocka_unit_test(test_distance_brute),
        cmocka_unit_test(test_scenes),
        cmocka_unit_test(test_alloc_failures),
        cmocka_unit_test(test_large),
        cmocka_unit_test(test_isa_invariant),
        cmocka_unit_test(test_rounding_candidates),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
