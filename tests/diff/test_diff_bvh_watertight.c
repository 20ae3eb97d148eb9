/*
 * Watertightness of the whole pipeline (conservative node test + watertight
 * leaf test) on closed meshes: a million random rays from points inside
 * spot.obj, from inside spot moved to 1e5 (where floats are 2^-7 apart), and
 * from inside a finely tessellated sphere, must all hit, with every traversal
 * kernel. Rays aimed exactly at the sphere's vertices too. MQ_WATERTIGHT_RAYS
 * sets the number of rays per mesh for the active kernel (default 1e6; the
 * issue's stress run is 1e7).
 * Plus the refit path against brute force on perturbed vertices.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "test_diff_bvh_common.h"
#include "bvh/kernels/trace.h"

/* Rays per mesh for the active kernel (a tenth for the others). */
static size_t inside_rays(void)
{
    const char *env = getenv("MQ_WATERTIGHT_RAYS");
    long long n = env ? atoll(env) : 0;
    return n > 0 ? (size_t)n : 1000000;
}

/* Parity of brute-force crossings along three random directions, all odd:
 * the point is inside (any disagreement: treat as not inside). */
static bool inside_by_parity(const mq_mesh *m, const double p[3], mq_test_rng *g)
{
    bf_hits hits = {0};
    bool inside = true;
    for (int k = 0; k < 3 && inside; k++) {
        double d[3];
        mq_test_rng_unit_vector(g, d);
        mq_ray r;
        bvh_set_ray(&r, p, d, 0.0f, INFINITY);
        bf_all(m, NULL, &r, false, &hits);
        inside = hits.count % 2 == 1;
    }
    free(hits.h);
    return inside;
}

/* `count` points inside the closed mesh, by rejection sampling in its box. */
static void interior_points(const mq_mesh *m, const bvh_box *b, mq_test_rng *g, double (*pts)[3], int count)
{
    int found = 0;
    for (int tries = 0; found < count && tries < 100000; tries++) {
        double p[3];
        for (int k = 0; k < 3; k++)
            p[k] = mq_test_rng_range(g, b->lo[k], b->hi[k]);
        if (inside_by_parity(m, p, g))
            memcpy(pts[found++], p, sizeof p);
    }
    assert_int_equal(found, count);
}

/* Shoots `n` rays from the given interior points in random directions with
 * the batch API; returns how many escaped (closest or any-hit missing). */
static size_t escapes(const mq_bvh *bvh, double (*pts)[3], int npts, size_t n, mq_test_rng *g)
{
    const size_t chunk = 1u << 16;
    mq_ray *rays = malloc(chunk * sizeof *rays);
    mq_hit *hits = malloc(chunk * sizeof *hits);
    bool *occ = malloc(chunk);
    assert_true(rays && hits && occ);
    size_t missed = 0;
    for (size_t done = 0; done < n; done += chunk) {
        size_t c = n - done < chunk ? n - done : chunk;
        for (size_t i = 0; i < c; i++) {
            double d[3];
            mq_test_rng_unit_vector(g, d);
            bvh_set_ray(&rays[i], pts[(done + i) % (size_t)npts], d, 0.0f, INFINITY);
        }
        size_t h = mq_bvh_raycast_closest_batch(bvh, rays, c, NULL, 2, hits);
        size_t o = mq_bvh_raycast_any_batch(bvh, rays, c, NULL, 2, occ);
        missed += (c - h) + (c - o);
    }
    free(rays);
    free(hits);
    free(occ);
    return missed;
}

/* Every available kernel, the active one on all rays and the others on a share. */
static void check_closed(const mq_mesh *m, double (*pts)[3], int npts, const char *what)
{
    mq_bvh *bvh = NULL;
    assert_int_equal(mq_bvh_build(m, NULL, &bvh, NULL), MQ_OK);
    mq_test_rng g;
    mq_test_rng_seed(&g, mq_test_seed(77));
    static const mq_isa isas[] = {MQ_ISA_AVX2, MQ_ISA_SSE2, MQ_ISA_SCALAR};
    bool first = true;
    for (int k = 0; k < 3; k++) {
        if (mq_isa_override(isas[k]) != isas[k])
            continue; /* not in this build or on this CPU */
        size_t n = first ? inside_rays() : inside_rays() / 10;
        size_t missed = escapes(bvh, pts, npts, n, &g);
        printf("[ info ] %s: %zu rays from inside, kernel %s: %zu escaped\n", what, n, mq_isa_name(isas[k]), missed);
        assert_int_equal(missed, 0);
        first = false;
    }
    mq_isa_override_clear();
    mq_bvh_destroy(bvh);
}

static void spot_is_watertight(void **state)
{
    (void)state;
    mq_mesh *m = mq_test_load_mesh("spot.obj");
    bvh_box b = bvh_mesh_box(m);
    mq_test_rng g;
    mq_test_rng_seed(&g, 3);
    double pts[64][3];
    interior_points(m, &b, &g, pts, 64);
    check_closed(m, pts, 64, "spot.obj");
    mq_mesh_destroy(m);
}

/* A lat-long unit sphere with shared vertices (closed): `rings` x `segs`. */
static mq_mesh *make_sphere(int rings, int segs)
{
    size_t nv = 2 + (size_t)(rings - 1) * segs, nt = 2 * (size_t)segs * (rings - 1);
    float *p = malloc(nv * 3 * sizeof *p);
    uint32_t *idx = malloc(nt * 3 * sizeof *idx);
    assert_true(p && idx);
    p[0] = 0, p[1] = 0, p[2] = 1;
    p[3] = 0, p[4] = 0, p[5] = -1;
    for (int r = 1; r < rings; r++)
        for (int s = 0; s < segs; s++) {
            double th = 3.141592653589793 * r / rings, ph = 6.283185307179586 * s / segs;
            float *v = p + 3 * (2 + (size_t)(r - 1) * segs + s);
            v[0] = (float)(sin(th) * cos(ph)), v[1] = (float)(sin(th) * sin(ph)), v[2] = (float)cos(th);
        }
    size_t t = 0;
#define V(r, s) ((uint32_t)(2 + (size_t)((r)-1) * segs + (size_t)((s) % segs)))
    for (int s = 0; s < segs; s++) {
        uint32_t a[3] = {0, V(1, s), V(1, s + 1)}, c[3] = {1, V(rings - 1, s + 1), V(rings - 1, s)};
        memcpy(idx + 3 * t++, a, sizeof a);
        memcpy(idx + 3 * t++, c, sizeof c);
    }
    for (int r = 1; r < rings - 1; r++)
        for (int s = 0; s < segs; s++) {
            uint32_t q0 = V(r, s), q1 = V(r, s + 1), q2 = V(r + 1, s + 1), q3 = V(r + 1, s);
            uint32_t tri[6] = {q0, q3, q2, q0, q2, q1};
            memcpy(idx + 3 * t, tri, sizeof tri);
            t += 2;
        }
#undef V
    assert_int_equal(t, nt);
    mq_mesh *m = NULL;
    assert_int_equal(mq_mesh_create(p, nv, idx, nt, NULL, &m, NULL), MQ_OK);
    free(p);
    free(idx);
    return m;
}

/* spot translated to (1e5, -1e5, 1e5) in float: coarse but still closed. */
static void far_spot_is_watertight(void **state)
{
    (void)state;
    mq_mesh *src = mq_test_load_mesh("spot.obj");
    size_t nv = mq_mesh_vertex_count(src), nt = mq_mesh_triangle_count(src);
    float *p = malloc(nv * 3 * sizeof *p);
    assert_non_null(p);
    const float offset[3] = {1e5f, -1e5f, 1e5f};
    for (size_t i = 0; i < nv * 3; i++)
        p[i] = mq_mesh_positions(src)[i] + offset[i % 3];
    mq_mesh *m = NULL;
    assert_int_equal(mq_mesh_create(p, nv, mq_mesh_indices(src), nt, NULL, &m, NULL), MQ_OK);
    free(p);
    mq_mesh_destroy(src);
    bvh_box b = bvh_mesh_box(m);
    mq_test_rng g;
    mq_test_rng_seed(&g, 5);
    double pts[64][3];
    interior_points(m, &b, &g, pts, 64);
    check_closed(m, pts, 64, "spot.obj at 1e5");
    mq_mesh_destroy(m);
}

static void tessellated_sphere_is_watertight(void **state)
{
    (void)state;
    mq_mesh *m = make_sphere(256, 512); /* 261,120 triangles */
    mq_test_rng g;
    mq_test_rng_seed(&g, 4);
    double pts[64][3];
    for (int i = 0; i < 64; i++) {
        double u[3];
        mq_test_rng_unit_vector(&g, u);
        double r = i == 0 ? 0.0 : mq_test_rng_range(&g, 0.0, 0.9);
        for (int k = 0; k < 3; k++)
            pts[i][k] = r * u[k];
    }
    check_closed(m, pts, 64, "sphere 256x512");

    /* From the centre straight at every vertex: through the vertex exactly. */
    mq_bvh *bvh = NULL;
    assert_int_equal(mq_bvh_build(m, NULL, &bvh, NULL), MQ_OK);
    const float *p = mq_mesh_positions(m);
    size_t missed = 0;
    for (size_t v = 0; v < mq_mesh_vertex_count(m); v++) {
        mq_ray r = {{0, 0, 0}, 0.0f, {p[3 * v], p[3 * v + 1], p[3 * v + 2]}, INFINITY};
        mq_hit h;
        if (!mq_bvh_raycast_closest(bvh, &r, NULL, &h) || !(fabsf(h.t - 1.0f) < 1e-5f))
            missed++;
        size_t n = mq_bvh_raycast_all(bvh, &r, NULL, NULL, 0);
        if (n != 1)
            missed++;
    }
    assert_int_equal(missed, 0);
    mq_bvh_destroy(bvh);
    mq_mesh_destroy(m);
}

/* Refit to randomly moved vertices, then closest hits against brute force
 * on the moved positions. */
static void refit_against_brute_force(void **state)
{
    (void)state;
    mq_mesh *m = mq_test_load_mesh("cow.obj");
    bvh_box b = bvh_mesh_box(m);
    mq_bvh *bvh = NULL;
    assert_int_equal(mq_bvh_build(m, NULL, &bvh, NULL), MQ_OK);
    size_t nv = mq_mesh_vertex_count(m);
    float *moved = malloc(nv * 3 * sizeof *moved);
    assert_non_null(moved);
    mq_test_rng g;
    mq_test_rng_seed(&g, mq_test_seed(21));
    for (int round = 0; round < 3; round++) {
        const float *p = mq_mesh_positions(m);
        for (size_t i = 0; i < 3 * nv; i++) /* up to 2% of the diagonal, growing per round */
            moved[i] = p[i] + (float)(mq_test_rng_range(&g, -1, 1) * 0.007 * b.diag * (round + 1));
        assert_int_equal(mq_bvh_refit(bvh, moved, NULL), MQ_OK);
        assert_int_equal(mq_bvh_validate(bvh, NULL), MQ_OK);
        bf_hits bf = {0};
        int bad = 0;
        for (int i = 0; i < 3000; i++) {
            mq_ray r;
            bvh_ray_mixed(&g, &b, (size_t)i, &r);
            bf_all(m, moved, &r, false, &bf);
            mq_hit h;
            bool hit = mq_bvh_raycast_closest(bvh, &r, NULL, &h);
            if (hit != (bf.count > 0)) {
                bad += !bvh_near_ends(&b, &r, hit ? h.t : bf.h[0].t);
                continue;
            }
            if (hit) {
                double tol = bvh_tol(&b, bf.h[0].t);
                bad += !(fabs(h.t - bf.h[0].t) <= tol && bf_has_near(&bf, h.triangle, h.t, tol));
            }
        }
        free(bf.h);
        assert_int_equal(bad, 0);
    }
    free(moved);
    mq_bvh_destroy(bvh);
    mq_mesh_destroy(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(spot_is_watertight),
        cmocka_unit_test(far_spot_is_watertight),
        cmocka_unit_test(tessellated_sphere_is_watertight),
        cmocka_unit_test(refit_against_brute_force),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
