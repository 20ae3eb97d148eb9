/*
 * Scene shape casts (scene.h "Shape casts") against brute force over the
 * instances with the per-mesh casts of casts.h.
 *
 * The oracle: every instance's mesh is BAKED into the world (each vertex
 * A v + t in double, rounded to float; translations stay within +-12 so the
 * rounding is that of the instance-centred frame to a few ulp) and gets its
 * own BVH; a cast is answered by mq_bvh_{sphere,capsule,convex}_cast of the
 * world shape (in float; a convex rebuilt from its placed vertices) on every
 * mask-matching baked mesh, smallest t first. This holds for every transform
 * kind: rigid, uniform, non-uniform, mirrored, sheared.
 *
 * Agreement: hit / miss the same except for grazing sphere and capsule casts
 * (the oracle hits with the radius grown by 1e-5 of the scene scale and
 * misses with it shrunk); t within 2e-5 of the scene scale (over |dir|); the
 * scene's instance and triangle are the oracle's, or the oracle's time for
 * them is within that band too. For spheres and capsules the reported
 * contact is checked in double against the reported world triangle:
 * distance(shape at t, triangle) = radius and the point lies on the
 * triangle, within the band. Also: masks, initial overlap against
 * mq_scene_overlap_any, zero motion, invalid inputs and boxes rejected,
 * batches equal to single casts on 1, 2 and 4 threads; the scene moved
 * 1e7 from the origin gives the same answers.
 * MQ_TEST_SEED changes the scene and the casts.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <meshquery/meshquery.h>

#include "oracle.h"
#include "test_support.h"

#if defined(__OPTIMIZE__)
#define CASTS 400
#else
#define CASTS 80
#endif

#define NI 12
#define SCALE 30.0 /* the scene's size: the tolerance bands are relative to it */
#define BAND (2e-5 * SCALE)

static const char *const mesh_names[] = {"spot.obj", "suzanne.obj", "teapot.obj", "fandisk.obj"};
#define NM (sizeof mesh_names / sizeof mesh_names[0])

typedef struct world_inst {
    int mesh;
    mq_xform xf;
    uint32_t mask, id;
    mq_mesh *baked;
    mq_bvh *baked_bvh;
    double centre[3];
} world_inst;

static struct {
    mq_mesh *mesh[NM];
    mq_bvh *bvh[NM];
    mq_obbtree *obt[NM];
    world_inst in[NI];
    mq_scene *scene;
    mq_convex *hull[3];
    mq_test_rng rng;
} W;

static void quat_matrix(const double q[4], double r[3][3])
{
    double w = q[0], x = q[1], y = q[2], z = q[3];
    r[0][0] = 1 - 2 * (y * y + z * z), r[0][1] = 2 * (x * y - z * w), r[0][2] = 2 * (x * z + y * w);
    r[1][0] = 2 * (x * y + z * w), r[1][1] = 1 - 2 * (x * x + z * z), r[1][2] = 2 * (y * z - x * w);
    r[2][0] = 2 * (x * z - y * w), r[2][1] = 2 * (y * z + x * w), r[2][2] = 1 - 2 * (x * x + y * y);
}

/* Instance i's transform: kinds cycle rigid, uniform, non-uniform, mirror, shear;
 * the mesh is scaled to about 4 units across. */
static mq_xform make_xf(int i, const mq_mesh *m)
{
    mq_aabb b;
    const float *p = mq_mesh_positions(m);
    for (int k = 0; k < 3; k++)
        b.min[k] = INFINITY, b.max[k] = -INFINITY;
    for (size_t v = 0; v < mq_mesh_vertex_count(m); v++)
        for (int k = 0; k < 3; k++)
            b.min[k] = fminf(b.min[k], p[3 * v + k]), b.max[k] = fmaxf(b.max[k], p[3 * v + k]);
    double diag = 0;
    for (int k = 0; k < 3; k++)
        diag += (double)(b.max[k] - b.min[k]) * (b.max[k] - b.min[k]);
    diag = sqrt(diag);
    double q[4], r[3][3], s[3] = {1, 1, 1}, sh = 0.0;
    mq_test_rng_quat(&W.rng, q);
    quat_matrix(q, r);
    int kind = i % 5;
    double u = kind == 0 ? 1.0 : 4.0 / diag * mq_test_rng_range(&W.rng, 0.7, 1.4);
    if (kind == 0)
        u = 4.0 / diag; /* rigid up to the one uniform scale that sizes it */
    for (int k = 0; k < 3; k++)
        s[k] = u;
    if (kind == 2 || kind == 3)
        for (int k = 0; k < 3; k++)
            s[k] = u * exp(mq_test_rng_range(&W.rng, log(0.5), log(2.0)));
    if (kind == 3)
        s[i % 3] = -s[i % 3];
    if (kind == 4)
        sh = 0.4;
    mq_xform xf;
    for (int a = 0; a < 3; a++) {
        for (int c = 0; c < 3; c++) {
            /* A = R * (S + shear of x by y) */
            double v = 0.0;
            for (int k = 0; k < 3; k++) {
                double mk = (k == c ? s[k] : 0.0) + (k == 0 && c == 1 ? sh * s[0] : 0.0);
                v += r[a][k] * mk;
            }
            xf.m[a][c] = v;
        }
        xf.m[a][3] = mq_test_rng_range(&W.rng, -10.0, 10.0);
    }
    /* centre the mesh's box on the translation */
    double mc[3] = {0.5 * (b.min[0] + b.max[0]), 0.5 * (b.min[1] + b.max[1]), 0.5 * (b.min[2] + b.max[2])};
    for (int a = 0; a < 3; a++)
        xf.m[a][3] -= xf.m[a][0] * mc[0] + xf.m[a][1] * mc[1] + xf.m[a][2] * mc[2];
    return xf;
}

static int setup(void **state)
{
    (void)state;
    mq_test_rng_seed(&W.rng, mq_test_seed(0x5ca57ca57ULL));
    for (size_t m = 0; m < NM; m++) {
        W.mesh[m] = mq_test_load_mesh(mesh_names[m]);
        assert_int_equal(mq_bvh_build(W.mesh[m], NULL, &W.bvh[m], NULL), MQ_OK);
        assert_int_equal(mq_obbtree_build(W.mesh[m], NULL, &W.obt[m], NULL), MQ_OK);
    }
    assert_int_equal(mq_scene_create(NULL, &W.scene, NULL), MQ_OK);
    for (int i = 0; i < NI; i++) {
        world_inst *in = &W.in[i];
        in->mesh = i % (int)NM;
        in->xf = make_xf(i, W.mesh[in->mesh]);
        in->mask = 1u << (i % 3);
        mq_instance_def d = mq_default_instance_def();
        if (i % 2)
            d.obbtree = W.obt[in->mesh];
        else
            d.bvh = W.bvh[in->mesh];
        d.transform = in->xf;
        d.mask = in->mask;
        d.user_id = 1000u + (uint64_t)i;
        assert_int_equal(mq_scene_add(W.scene, &d, &in->id, NULL), MQ_OK);
        /* the baked world copy */
        const mq_mesh *m = W.mesh[in->mesh];
        size_t nv = mq_mesh_vertex_count(m);
        const float *p = mq_mesh_positions(m);
        float *wp = malloc(nv * 3 * sizeof *wp);
        assert_non_null(wp);
        for (size_t v = 0; v < nv; v++) {
            double pv[3] = {p[3 * v], p[3 * v + 1], p[3 * v + 2]}, w[3];
            mq_xform_apply_point(&in->xf, pv, w);
            for (int k = 0; k < 3; k++)
                wp[3 * v + k] = (float)w[k];
        }
        assert_int_equal(mq_mesh_create(wp, nv, mq_mesh_indices(m), mq_mesh_triangle_count(m), NULL, &in->baked, NULL),
                         MQ_OK);
        free(wp);
        assert_int_equal(mq_bvh_build(in->baked, NULL, &in->baked_bvh, NULL), MQ_OK);
        for (int k = 0; k < 3; k++)
            in->centre[k] = in->xf.m[k][3];
    }
    assert_int_equal(mq_scene_commit(W.scene, NULL), MQ_OK);
    for (int h = 0; h < 3; h++) {
        float c[3] = {0, 0, 0};
        W.hull[h] = NULL;
        /* hulls about 0.5 .. 1.5 across, around their own origin */
        float pts[3 * 24];
        int n = 6 + 6 * h;
        for (int i = 0; i < n; i++) {
            double u[3];
            mq_test_rng_unit_vector(&W.rng, u);
            double rad = mq_test_rng_range(&W.rng, 0.25, 0.75);
            for (int k = 0; k < 3; k++)
                pts[3 * i + k] = c[k] + (float)(rad * u[k]);
        }
        assert_int_equal(mq_convex_create(pts, (size_t)n, NULL, &W.hull[h], NULL), MQ_OK);
    }
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    mq_scene_destroy(W.scene);
    for (int i = 0; i < NI; i++) {
        mq_bvh_destroy(W.in[i].baked_bvh);
        mq_mesh_destroy(W.in[i].baked);
    }
    for (size_t m = 0; m < NM; m++) {
        mq_obbtree_destroy(W.obt[m]);
        mq_bvh_destroy(W.bvh[m]);
        mq_mesh_destroy(W.mesh[m]);
    }
    for (int h = 0; h < 3; h++)
        mq_convex_destroy(W.hull[h]);
    return 0;
}

/* ---- the oracle -------------------------------------------------------------- */

typedef struct ohit {
    bool hit;
    double t;
    uint32_t instance, triangle;
    double per_inst[NI]; /* each instance's time (INFINITY: none) */
    uint32_t per_tri[NI];
} ohit;

/* The placed convex rebuilt in the world (float vertices). */
static mq_convex *placed_hull(const mq_dconvex *c)
{
    mq_dshape s = mq_dshape_convex(*c);
    (void)s;
    double r[3][3];
    double q[4], n = 0;
    for (int k = 0; k < 4; k++)
        n += c->rotation[k] * c->rotation[k];
    for (int k = 0; k < 4; k++)
        q[k] = c->rotation[k] / sqrt(n);
    quat_matrix(q, r);
    size_t nv = mq_convex_vertex_count(c->convex);
    const float *v = mq_convex_vertices(c->convex);
    float *w = malloc(nv * 3 * sizeof *w);
    assert_non_null(w);
    for (size_t i = 0; i < nv; i++)
        for (int a = 0; a < 3; a++)
            w[3 * i + a] =
                (float)(r[a][0] * v[3 * i] + r[a][1] * v[3 * i + 1] + r[a][2] * v[3 * i + 2] + c->translation[a]);
    mq_convex *out = NULL;
    assert_int_equal(mq_convex_create(w, nv, NULL, &out, NULL), MQ_OK);
    free(w);
    return out;
}

/* grow: added to the radius (sphere / capsule). */
static void oracle_cast(const mq_dshape *s, const double dir[3], double tmax, uint32_t mask, double grow, ohit *o)
{
    o->hit = false;
    o->t = INFINITY;
    o->instance = MQ_NO_INSTANCE;
    o->triangle = MQ_NO_TRIANGLE;
    float d[3] = {(float)dir[0], (float)dir[1], (float)dir[2]};
    mq_convex *hull = s->kind == MQ_SHAPE_CONVEX ? placed_hull(&s->u.convex) : NULL;
    for (int i = 0; i < NI; i++) {
        o->per_inst[i] = INFINITY;
        o->per_tri[i] = MQ_NO_TRIANGLE;
        if (!(W.in[i].mask & mask))
            continue;
        mq_cast_hit h;
        bool hit;
        if (s->kind == MQ_SHAPE_SPHERE) {
            mq_sphere sp = {{(float)s->u.sphere.center[0], (float)s->u.sphere.center[1], (float)s->u.sphere.center[2]},
                            (float)fmax(0.0, s->u.sphere.radius + grow)};
            hit = mq_bvh_sphere_cast(W.in[i].baked_bvh, &sp, d, (float)tmax, &h);
        } else if (s->kind == MQ_SHAPE_CAPSULE) {
            mq_capsule cp = {{(float)s->u.capsule.a[0], (float)s->u.capsule.a[1], (float)s->u.capsule.a[2]},
                             {(float)s->u.capsule.b[0], (float)s->u.capsule.b[1], (float)s->u.capsule.b[2]},
                             (float)fmax(0.0, s->u.capsule.radius + grow)};
            hit = mq_bvh_capsule_cast(W.in[i].baked_bvh, &cp, d, (float)tmax, &h);
        } else {
            hit = mq_bvh_convex_cast(W.in[i].baked_bvh, hull, d, (float)tmax, &h);
        }
        if (!hit)
            continue;
        o->per_inst[i] = h.t;
        o->per_tri[i] = h.triangle;
        if (h.t < o->t) {
            o->hit = true;
            o->t = h.t;
            o->instance = W.in[i].id;
            o->triangle = h.triangle;
        }
    }
    mq_convex_destroy(hull);
}

/* ---- random casts ------------------------------------------------------------ */

static mq_dshape random_shape(int kind, double start[3])
{
    double u[3];
    mq_test_rng_unit_vector(&W.rng, u);
    double r = mq_test_rng_range(&W.rng, 0.05, 0.8);
    if (kind == 0) {
        mq_dsphere s = {{start[0], start[1], start[2]}, r};
        return mq_dshape_sphere(s);
    }
    if (kind == 1) {
        double l = mq_test_rng_range(&W.rng, 0.0, 1.5);
        mq_dcapsule c = {{start[0] - l * u[0], start[1] - l * u[1], start[2] - l * u[2]},
                         {start[0] + l * u[0], start[1] + l * u[1], start[2] + l * u[2]},
                         r};
        return mq_dshape_capsule(c);
    }
    mq_dconvex c;
    c.convex = W.hull[mq_test_rng_u64(&W.rng) % 3];
    mq_test_rng_quat(&W.rng, c.rotation);
    for (int k = 0; k < 3; k++)
        c.translation[k] = start[k];
    return mq_dshape_convex(c);
}

/* Double check of a sphere / capsule contact against the world triangle. */
static void check_contact(const mq_dshape *s, const double dir[3], const mq_scene_cast_hit *h)
{
    const world_inst *in = NULL;
    for (int i = 0; i < NI; i++)
        if (W.in[i].id == h->instance)
            in = &W.in[i];
    assert_non_null(in);
    assert_int_equal(h->user_id, 1000u + (uint64_t)(in - W.in));
    mq_triangle lt;
    mq_mesh_get_triangle(W.mesh[in->mesh], h->triangle, &lt);
    oracle_tri wt;
    for (int c = 0; c < 3; c++) {
        double pv[3] = {lt.v[c][0], lt.v[c][1], lt.v[c][2]}, w[3];
        mq_xform_apply_point(&in->xf, pv, w);
        wt.v[c] = oracle_v3_make(w[0], w[1], w[2]);
    }
    oracle_v3 pt = oracle_v3_make(h->point[0], h->point[1], h->point[2]);
    assert_true(oracle_dist2_point_triangle(pt, &wt, NULL, NULL) <= BAND * BAND);
    double nl = sqrt(h->normal[0] * h->normal[0] + h->normal[1] * h->normal[1] + h->normal[2] * h->normal[2]);
    assert_true(fabs(nl - 1.0) < 1e-9);
    if (s->kind == MQ_SHAPE_CONVEX) {
        /* the placed hull touches the triangle moved back by t * dir */
        mq_convex *hull = placed_hull(&s->u.convex);
        mq_triangle back;
        for (int c = 0; c < 3; c++) {
            back.v[c][0] = (float)(wt.v[c].x - h->t * dir[0]);
            back.v[c][1] = (float)(wt.v[c].y - h->t * dir[1]);
            back.v[c][2] = (float)(wt.v[c].z - h->t * dir[2]);
        }
        double d = mq_convex_triangle_distance(hull, &back, NULL, NULL);
        mq_convex_destroy(hull);
        assert_true(d >= 0.0 && d <= BAND);
        return;
    }
    double d2, r;
    if (s->kind == MQ_SHAPE_SPHERE) {
        oracle_v3 c = oracle_v3_make(s->u.sphere.center[0] + h->t * dir[0], s->u.sphere.center[1] + h->t * dir[1],
                                     s->u.sphere.center[2] + h->t * dir[2]);
        d2 = oracle_dist2_point_triangle(c, &wt, NULL, NULL);
        r = s->u.sphere.radius;
    } else {
        oracle_v3 a = oracle_v3_make(s->u.capsule.a[0] + h->t * dir[0], s->u.capsule.a[1] + h->t * dir[1],
                                     s->u.capsule.a[2] + h->t * dir[2]);
        oracle_v3 b = oracle_v3_make(s->u.capsule.b[0] + h->t * dir[0], s->u.capsule.b[1] + h->t * dir[1],
                                     s->u.capsule.b[2] + h->t * dir[2]);
        d2 = oracle_dist2_segment_triangle(a, b, &wt, NULL, NULL, NULL);
        r = s->u.capsule.radius;
    }
    if (h->initially_overlapping)
        assert_true(sqrt(d2) <= r + BAND);
    else
        assert_true(fabs(sqrt(d2) - r) <= BAND);
}

static int inst_index(uint32_t id)
{
    for (int i = 0; i < NI; i++)
        if (W.in[i].id == id)
            return i;
    return -1;
}

static void test_against_oracle(void **state)
{
    (void)state;
    int hits = 0, grazes = 0, initial = 0, masked = 0;
    for (int n = 0; n < CASTS; n++) {
        int kind = n % 3;
        /* start in a shell around the scene, aim near a random instance (or anywhere) */
        double start[3], dir[3], u[3];
        mq_test_rng_unit_vector(&W.rng, u);
        double rad = n % 7 == 0 ? mq_test_rng_range(&W.rng, 0.0, 12.0) : 22.0;
        for (int k = 0; k < 3; k++)
            start[k] = rad * u[k];
        const world_inst *aim = &W.in[mq_test_rng_u64(&W.rng) % NI];
        double len = 0.0;
        for (int k = 0; k < 3; k++) {
            dir[k] = aim->centre[k] + mq_test_rng_range(&W.rng, -1.5, 1.5) - start[k];
            len += dir[k] * dir[k];
        }
        len = sqrt(len);
        double speed = n % 5 == 0 ? 1.0 / len : mq_test_rng_range(&W.rng, 0.5, 2.0) / len; /* |dir| */
        for (int k = 0; k < 3; k++)
            dir[k] *= speed;
        double tmax = n % 4 == 0 ? INFINITY : mq_test_rng_range(&W.rng, 0.6, 2.0) * len / (speed * len);
        uint32_t mask = n % 6 == 0 ? (1u << (mq_test_rng_u64(&W.rng) % 3)) : 0xFFFFFFFFu;
        masked += mask != 0xFFFFFFFFu;
        mq_scene_query q = mq_default_scene_query();
        q.mask = mask;
        mq_dshape s = random_shape(kind, start);
        mq_scene_cast_hit h;
        bool hit = mq_scene_shape_cast(W.scene, &s, dir, tmax, &q, &h);
        ohit o;
        oracle_cast(&s, dir, tmax, mask, 0.0, &o);
        double dl = sqrt(dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2]);
        double tband = BAND / dl;
        if (hit != o.hit) {
            /* only a graze: the oracle hits with a larger and misses with a smaller shape */
            bool graze = false;
            if (kind != 2) {
                ohit lo, hi;
                oracle_cast(&s, dir, tmax, mask, BAND, &hi);
                oracle_cast(&s, dir, tmax, mask, -BAND, &lo);
                graze = hi.hit && !lo.hit;
            } else if (hit) {
                /* the convex hit within its tolerance near tmax: the oracle's own time */
                graze = h.t >= tmax - tband;
            }
            if (!graze)
                fail_msg("cast %d (kind %d): scene %s, oracle %s (scene t %.9g inst %u, oracle t %.9g inst %u)", n,
                         kind, hit ? "hit" : "miss", o.hit ? "hit" : "miss", h.t, h.instance, o.t, o.instance);
            grazes++;
            continue;
        }
        if (!hit) {
            assert_true(isinf(h.t) && h.instance == MQ_NO_INSTANCE && h.triangle == MQ_NO_TRIANGLE);
            continue;
        }
        hits++;
        initial += h.initially_overlapping;
        assert_true(h.t >= 0.0 && h.t <= tmax);
        if (!(fabs(h.t - o.t) <= tband))
            fail_msg("cast %d (kind %d): t %.9g vs oracle %.9g (inst %u/%u tri %u/%u)", n, kind, h.t, o.t, h.instance,
                     o.instance, h.triangle, o.triangle);
        int si = inst_index(h.instance);
        assert_true(si >= 0);
        assert_true((W.in[si].mask & mask) != 0);
        /* the scene's instance: the oracle's time for it is within the band */
        assert_true(fabs(o.per_inst[si] - h.t) <= tband);
        assert_int_equal(h.initially_overlapping, h.t == 0.0);
        check_contact(&s, dir, &h);
    }
    printf("casts %d: hits %d (initially overlapping %d), grazes %d, masked %d\n", CASTS, hits, initial, grazes,
           masked);
    assert_true(hits > CASTS / 4 && hits < CASTS);
}

/* Every vertex-centred sphere overlaps at t = 0; the cast agrees with the overlap query. */
static void test_initial_overlap(void **state)
{
    (void)state;
    for (int n = 0; n < 60; n++) {
        const world_inst *in = &W.in[n % NI];
        const mq_mesh *m = W.mesh[in->mesh];
        size_t v = mq_test_rng_u64(&W.rng) % mq_mesh_vertex_count(m);
        const float *p = mq_mesh_positions(m) + 3 * v;
        double pv[3] = {p[0], p[1], p[2]}, w[3];
        mq_xform_apply_point(&in->xf, pv, w);
        /* around the vertex (touching it) and near it, possibly apart */
        double off = n % 2 ? 0.0 : mq_test_rng_range(&W.rng, -0.05, 0.05);
        mq_dsphere sp = {{w[0] + off, w[1], w[2]}, 0.02};
        mq_dshape s = mq_dshape_sphere(sp);
        double dir[3] = {0, 0, 0}, dir2[3] = {0.1, -0.2, 0.3};
        mq_scene_cast_hit h;
        bool hit0 = mq_scene_shape_cast(W.scene, &s, dir, 5.0, NULL, &h);
        assert_int_equal(hit0, mq_scene_overlap_any(W.scene, &s, NULL));
        if (hit0) {
            assert_true(h.t == 0.0 && h.initially_overlapping);
            assert_true(mq_scene_shape_cast(W.scene, &s, dir2, 5.0, NULL, &h));
            assert_true(h.t == 0.0 && h.initially_overlapping);
        }
        if (off == 0.0)
            assert_true(hit0);
        /* a capsule through the vertex */
        mq_dcapsule cp = {{w[0] - 0.3, w[1], w[2]}, {w[0] + 0.3, w[1], w[2]}, 0.0};
        mq_dshape c = mq_dshape_capsule(cp);
        bool chit = mq_scene_shape_cast(W.scene, &c, dir2, 0.0, NULL, &h);
        assert_int_equal(chit, mq_scene_overlap_any(W.scene, &c, NULL));
        if (off == 0.0)
            assert_true(chit && h.initially_overlapping);
    }
}

static void test_invalid(void **state)
{
    (void)state;
    /* straight down onto instance 0's centre (its box is centred there) */
    const double *c0 = W.in[0].centre;
    mq_dsphere sp = {{c0[0], c0[1], c0[2] + 30.0}, 0.3};
    mq_dshape s = mq_dshape_sphere(sp);
    double down[3] = {0, 0, -1}, nan3[3] = {NAN, 0, 0}, inf3[3] = {INFINITY, 0, 0};
    mq_scene_cast_hit h;
    assert_true(mq_scene_shape_cast(W.scene, &s, down, INFINITY, NULL, &h)); /* reaches the scene */
    assert_false(mq_scene_shape_cast(NULL, &s, down, INFINITY, NULL, &h));
    assert_false(mq_scene_shape_cast(W.scene, NULL, down, INFINITY, NULL, &h));
    assert_false(mq_scene_shape_cast(W.scene, &s, NULL, INFINITY, NULL, &h));
    assert_false(mq_scene_shape_cast(W.scene, &s, nan3, INFINITY, NULL, &h));
    assert_false(mq_scene_shape_cast(W.scene, &s, inf3, INFINITY, NULL, &h));
    assert_false(mq_scene_shape_cast(W.scene, &s, down, NAN, NULL, &h));
    assert_false(mq_scene_shape_cast(W.scene, &s, down, -1.0, NULL, &h));
    assert_true(isinf(h.t) && h.instance == MQ_NO_INSTANCE && h.triangle == MQ_NO_TRIANGLE);
    assert_true(isnan(h.point[0]) && h.normal[0] == 0.0 && !h.initially_overlapping);
    /* not far enough: misses */
    assert_false(mq_scene_shape_cast(W.scene, &s, down, 1.0, NULL, &h));
    /* bad shapes */
    mq_dshape bad = s;
    bad.u.sphere.radius = -1.0;
    assert_false(mq_scene_shape_cast(W.scene, &bad, down, INFINITY, NULL, &h));
    bad.u.sphere.radius = NAN;
    assert_false(mq_scene_shape_cast(W.scene, &bad, down, INFINITY, NULL, &h));
    bad = s;
    bad.u.sphere.center[1] = NAN;
    assert_false(mq_scene_shape_cast(W.scene, &bad, down, INFINITY, NULL, &h));
    /* boxes are rejected, even ones covering everything */
    mq_daabb big = {{-1e3, -1e3, -1e3}, {1e3, 1e3, 1e3}};
    mq_dshape box = mq_dshape_aabb(big);
    assert_true(mq_scene_overlap_any(W.scene, &box, NULL));
    assert_false(mq_scene_shape_cast(W.scene, &box, down, INFINITY, NULL, &h));
    mq_dobb ob = {{0, 0, 0}, {1e3, 1e3, 1e3}, {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}};
    box = mq_dshape_obb(ob);
    assert_false(mq_scene_shape_cast(W.scene, &box, down, INFINITY, NULL, &h));
    mq_dshape unknown = s;
    unknown.kind = (mq_shape_kind)99;
    assert_false(mq_scene_shape_cast(W.scene, &unknown, down, INFINITY, NULL, &h));
    mq_dconvex cx = {W.hull[0], {c0[0], c0[1], c0[2] + 30.0}, {0, 0, 0, 0}}; /* zero quaternion */
    mq_dshape cs = mq_dshape_convex(cx);
    assert_false(mq_scene_shape_cast(W.scene, &cs, down, INFINITY, NULL, &h));
    cx.convex = NULL;
    cx.rotation[0] = 1.0;
    cs = mq_dshape_convex(cx);
    assert_false(mq_scene_shape_cast(W.scene, &cs, down, INFINITY, NULL, &h));
    /* a mask nothing has */
    mq_scene_query q = mq_default_scene_query();
    q.mask = 1u << 20;
    assert_false(mq_scene_shape_cast(W.scene, &s, down, INFINITY, &q, &h));
    /* zero-radius sphere is a ray of the centre; a far start (1e30) meets nothing near */
    mq_dsphere far = {{0, 0, 1e30}, 0.5};
    mq_dshape fs = mq_dshape_sphere(far);
    assert_false(mq_scene_shape_cast(W.scene, &fs, down, 1e29, NULL, &h));
    /* NULL out is allowed */
    assert_true(mq_scene_shape_cast(W.scene, &s, down, INFINITY, NULL, NULL));
    /* an empty scene */
    mq_scene *empty = NULL;
    assert_int_equal(mq_scene_create(NULL, &empty, NULL), MQ_OK);
    assert_false(mq_scene_shape_cast(empty, &s, down, INFINITY, NULL, &h));
    mq_scene_destroy(empty);
}

/* The same instances and casts 1e7 away from the origin: the same answers to
 * the band (scene.h "Large worlds": the casts are advanced and centred in double). */
static void test_far(void **state)
{
    (void)state;
    const double off[3] = {1e7, -1e7, 5e6};
    mq_scene *far = NULL;
    assert_int_equal(mq_scene_create(NULL, &far, NULL), MQ_OK);
    for (int i = 0; i < NI; i++) {
        mq_instance_def d;
        assert_true(mq_scene_instance(W.scene, W.in[i].id, &d));
        for (int k = 0; k < 3; k++)
            d.transform.m[k][3] += off[k];
        uint32_t id;
        assert_int_equal(mq_scene_add(far, &d, &id, NULL), MQ_OK);
        assert_int_equal(id, W.in[i].id);
    }
    assert_int_equal(mq_scene_commit(far, NULL), MQ_OK);
    int hits = 0;
    for (int n = 0; n < 90; n++) {
        double start[3], u[3], dir[3];
        mq_test_rng_unit_vector(&W.rng, u);
        for (int k = 0; k < 3; k++)
            start[k] = 20.0 * u[k];
        mq_dshape s = random_shape(n % 3, start), sf = s;
        const world_inst *aim = &W.in[n % NI];
        for (int k = 0; k < 3; k++)
            dir[k] = aim->centre[k] - start[k] + mq_test_rng_range(&W.rng, -1, 1);
        for (int k = 0; k < 3; k++) {
            if (s.kind == MQ_SHAPE_SPHERE)
                sf.u.sphere.center[k] += off[k];
            else if (s.kind == MQ_SHAPE_CAPSULE)
                sf.u.capsule.a[k] += off[k], sf.u.capsule.b[k] += off[k];
            else
                sf.u.convex.translation[k] += off[k];
        }
        mq_scene_cast_hit a, b;
        bool ha = mq_scene_shape_cast(W.scene, &s, dir, 2.0, NULL, &a);
        bool hb = mq_scene_shape_cast(far, &sf, dir, 2.0, NULL, &b);
        assert_int_equal(ha, hb);
        if (!ha)
            continue;
        hits++;
        double dl = sqrt(dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2]);
        assert_true(fabs(a.t - b.t) <= 1e-6 * SCALE / dl);
        assert_int_equal(a.instance, b.instance);
        /* a different triangle touched at (nearly) the same time may touch
         * elsewhere; a convex meeting a face flat has no unique contact point */
        for (int k = 0; k < 3 && a.triangle == b.triangle && s.kind != MQ_SHAPE_CONVEX; k++)
            if (!(fabs(a.point[k] + off[k] - b.point[k]) <= 1e-5 * SCALE))
                fail_msg("far %d kind %d: point %.9g vs %.9g (t %.12g %.12g tri %u %u)", n, s.kind, a.point[k],
                         b.point[k] - off[k], a.t, b.t, a.triangle, b.triangle);
    }
    assert_true(hits > 20);
    mq_scene_destroy(far);
}

static void test_batch(void **state)
{
    (void)state;
    enum { N = 90 };
    mq_dshape shapes[N];
    mq_dvec3 dirs[N];
    mq_scene_cast_hit single[N], batch[N];
    size_t nhit = 0;
    for (int i = 0; i < N; i++) {
        double start[3], u[3];
        mq_test_rng_unit_vector(&W.rng, u);
        for (int k = 0; k < 3; k++)
            start[k] = 20.0 * u[k];
        shapes[i] = random_shape(i % 3, start);
        const world_inst *aim = &W.in[i % NI];
        for (int k = 0; k < 3; k++)
            dirs[i][k] = aim->centre[k] - start[k] + mq_test_rng_range(&W.rng, -1, 1);
    }
    for (int i = 0; i < N; i++)
        nhit += mq_scene_shape_cast(W.scene, &shapes[i], dirs[i], 1.0, NULL, &single[i]);
    assert_true(nhit > N / 3);
    uint32_t threads[] = {1, 2, 4};
    for (int t = 0; t < 3; t++) {
        memset(batch, 0xAB, sizeof batch);
        assert_int_equal(
            mq_scene_shape_cast_batch(W.scene, shapes, (const mq_dvec3 *)dirs, N, 1.0, NULL, threads[t], batch), nhit);
        for (int i = 0; i < N; i++) {
            assert_true(batch[i].t == single[i].t || (isinf(batch[i].t) && isinf(single[i].t)));
            assert_int_equal(batch[i].instance, single[i].instance);
            assert_int_equal(batch[i].triangle, single[i].triangle);
            if (!isinf(single[i].t))
                assert_memory_equal(batch[i].point, single[i].point, sizeof(mq_dvec3));
        }
    }
    assert_int_equal(mq_scene_shape_cast_batch(W.scene, shapes, (const mq_dvec3 *)dirs, N, 1.0, NULL, 2, NULL), nhit);
    assert_int_equal(mq_scene_shape_cast_batch(W.scene, NULL, (const mq_dvec3 *)dirs, N, 1.0, NULL, 2, batch), 0);
}

/* Casts `s` up to tmax; on a hit after t = 0, asserts that the cast again
 * with tmax = t finds the same t. True when it checked one. */
static bool recast_at_hit_time(const mq_scene *sc, const mq_dshape *s, const mq_dvec3 dir, double tmax)
{
    mq_scene_cast_hit h, again;
    if (!mq_scene_shape_cast(sc, s, dir, tmax, NULL, &h) || h.t == 0.0)
        return false;
    assert_true(mq_scene_shape_cast(sc, s, dir, h.t, NULL, &again));
    assert_true(again.t == h.t);
    return true;
}

/* A cast again with tmax = its own t finds that t (scene.h). Points (zero
 * radius) aimed at the corners of a tetrahedron with integer corners, placed
 * by integer transforms: the instance's world box then ends exactly at the
 * corner the point reaches, and the float cast's time, a few ulp early, must
 * not leave the sweep's box short of the instance. */
static void test_recast_at_hit_time(void **state)
{
    (void)state;
    const float pos[] = {0, 0, 0, 4, 0, 0, 0, 4, 0, 0, 0, 6.5f};
    const uint32_t idx[] = {0, 1, 2, 0, 1, 3, 3, 0, 2, 3, 1, 2};
    mq_mesh *m = NULL;
    mq_bvh *b = NULL;
    mq_scene *sc = NULL;
    assert_int_equal(mq_mesh_create(pos, 4, idx, 4, NULL, &m, NULL), MQ_OK);
    assert_int_equal(mq_bvh_build(m, NULL, &b, NULL), MQ_OK);
    int checked = 0;
    for (int n = 0; n < 40; n++) {
        assert_int_equal(mq_scene_create(NULL, &sc, NULL), MQ_OK);
        mq_instance_def d = mq_default_instance_def();
        d.bvh = b;
        uint32_t id;
        do {
            for (int r = 0; r < 3; r++)
                for (int c = 0; c < 4; c++)
                    d.transform.m[r][c] = (double)mq_test_rng_int(&W.rng, 8);
        } while (mq_scene_add(sc, &d, &id, NULL) != MQ_OK);
        assert_int_equal(mq_scene_commit(sc, NULL), MQ_OK);
        for (int v = 0; v < 4; v++) {
            double p[3] = {pos[3 * v], pos[3 * v + 1], pos[3 * v + 2]}, w[3], u[3];
            mq_xform_apply_point(&d.transform, p, w);
            mq_test_rng_unit_vector(&W.rng, u);
            double step = (double)(1 + llabs(mq_test_rng_int(&W.rng, 15)));
            mq_dsphere sp = {{w[0] - step * u[0], w[1] - step * u[1], w[2] - step * u[2]}, 0.0};
            mq_dshape s = mq_dshape_sphere(sp);
            mq_dvec3 dir = {step * u[0] * 8.0, step * u[1] * 8.0, step * u[2] * 8.0};
            checked += recast_at_hit_time(sc, &s, dir, 1.0);
        }
        mq_scene_destroy(sc);
    }
    assert_true(checked > 40);
    mq_bvh_destroy(b);
    mq_mesh_destroy(m);
}

/* The same promise where the float cast's triangle sticks out of the
 * instance's world box: a triangle scaled by 1e7 + 0.75 has its float
 * corners at 1e7 + 1, a quarter beyond the box, and spheres moving
 * diagonally past the box's corner touch that corner's rounding. */
static void test_recast_beyond_world_box(void **state)
{
    (void)state;
    const float pos[] = {-1, -1, 0, 1, -1, 0, -1, 1, 0};
    const uint32_t idx[] = {0, 1, 2};
    mq_mesh *m = NULL;
    mq_bvh *b = NULL;
    mq_scene *sc = NULL;
    assert_int_equal(mq_mesh_create(pos, 3, idx, 1, NULL, &m, NULL), MQ_OK);
    assert_int_equal(mq_bvh_build(m, NULL, &b, NULL), MQ_OK);
    assert_int_equal(mq_scene_create(NULL, &sc, NULL), MQ_OK);
    mq_instance_def d = mq_default_instance_def();
    d.bvh = b;
    for (int r = 0; r < 3; r++)
        d.transform.m[r][r] = 1e7 + 0.75;
    uint32_t id;
    assert_int_equal(mq_scene_add(sc, &d, &id, NULL), MQ_OK);
    assert_int_equal(mq_scene_commit(sc, NULL), MQ_OK);
    int checked = 0;
    for (int i = 0; i < 400; i++) {
        mq_dsphere sp = {{-(1e7 + 2.0) + (i / 20) * 0.02, -1e7 + (i % 20) * 0.1, 0.0}, 0.1};
        mq_dshape s = mq_dshape_sphere(sp);
        mq_dvec3 dir = {1.0, -1.0, 0.0};
        checked += recast_at_hit_time(sc, &s, dir, 10.0);
    }
    assert_true(checked > 100);
    mq_scene_destroy(sc);
    mq_bvh_destroy(b);
    mq_mesh_destroy(m);
}

/* A triangle whose instance-centred corners overflow float (scene.h "Shapes
 * of any finite size") meets no cast, of any kind, and no overlap; a finite
 * triangle of the same instance still does, and a ray, tested in the mesh
 * frame, hits the overflowing one. Triangle 0 runs from the origin to
 * (1e30, 0, 0) in the plane y = 0 of the mesh, and the instance scales by
 * 1e10; triangle 1 is a small one in the plane x = 0 around y = 10 (world
 * y = 1e11). */
static void test_triangle_beyond_float(void **state)
{
    (void)state;
    const float pos[] = {0, 0, -1, 1e30f, 0, -1, 0, 0, 1, 0, 9, -1, 0, 11, -1, 0, 10, 1};
    const uint32_t idx[] = {0, 1, 2, 3, 4, 5};
    const float cube[] = {-1, -1, -1, 1, -1, -1, -1, 1, -1, 1, 1, -1, -1, -1, 1, 1, -1, 1, -1, 1, 1, 1, 1, 1};
    mq_mesh *m = NULL;
    mq_bvh *b = NULL;
    mq_scene *sc = NULL;
    mq_convex *hull = NULL;
    assert_int_equal(mq_mesh_create(pos, 6, idx, 2, NULL, &m, NULL), MQ_OK);
    assert_int_equal(mq_bvh_build(m, NULL, &b, NULL), MQ_OK);
    assert_int_equal(mq_convex_create(cube, 8, NULL, &hull, NULL), MQ_OK);
    assert_int_equal(mq_scene_create(NULL, &sc, NULL), MQ_OK);
    mq_instance_def d = mq_default_instance_def();
    d.bvh = b;
    for (int r = 0; r < 3; r++)
        d.transform.m[r][r] = 1e10;
    uint32_t id;
    assert_int_equal(mq_scene_add(sc, &d, &id, NULL), MQ_OK);
    assert_int_equal(mq_scene_commit(sc, NULL), MQ_OK);
    /* shapes starting 1e9 to the side of the plane x = 0 at y = 0 (where only
     * triangle 0 lies) and at y = 1e11 (triangle 1), moving across it */
    for (int row = 0; row < 2; row++) {
        double y = row ? 1e11 : 0.0;
        mq_dsphere sp = {{-1e9, y, 0.0}, 1e8};
        mq_dcapsule cp = {{-1e9, y, -1e8}, {-1e9, y, 1e8}, 1e8};
        mq_dconvex cv = {hull, {-1e9, y, 0.0}, {0, 0, 0, 1}};
        mq_dshape shapes[3] = {mq_dshape_sphere(sp), mq_dshape_capsule(cp), mq_dshape_convex(cv)};
        mq_dvec3 dir = {1.0, 0.0, 0.0};
        for (int k = 0; k < 3; k++) {
            mq_scene_cast_hit h;
            bool hit = mq_scene_shape_cast(sc, &shapes[k], dir, 2e10, NULL, &h);
            if (row == 0) {
                if (hit)
                    fail_msg("kind %d: hit triangle %u at t %g, point %g %g %g", shapes[k].kind, h.triangle, h.t,
                             h.point[0], h.point[1], h.point[2]);
                mq_dvec3 zero = {0, 0, 0};
                assert_false(mq_scene_shape_cast(sc, &shapes[k], zero, 0.0, NULL, &h));
                continue;
            }
            assert_true(hit);
            assert_int_equal(h.triangle, 1);
            assert_true(h.t > 0.0 && h.t <= 1e9);
            for (int c = 0; c < 3; c++)
                assert_true(isfinite(h.point[c]));
        }
    }
    /* at rest inside triangle 0's (overflowing) extent, 4e9 past its finite
     * edge: no overlap either */
    mq_dsphere across = {{5e9, 0.0, 0.0}, 1e9};
    mq_dshape sa = mq_dshape_sphere(across);
    assert_false(mq_scene_overlap_any(sc, &sa, NULL));
    /* the ray meets triangle 0 in the mesh frame */
    mq_dray ray = {{5e9, 1.0, 0.0}, 0.0, {0.0, -1.0, 0.0}, INFINITY};
    mq_scene_hit rh;
    assert_true(mq_scene_raycast_closest(sc, &ray, NULL, &rh));
    assert_int_equal(rh.triangle, 0);
    mq_scene_destroy(sc);
    mq_convex_destroy(hull);
    mq_bvh_destroy(b);
    mq_mesh_destroy(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_against_oracle),
        cmocka_unit_test(test_initial_overlap),
        cmocka_unit_test(test_invalid),
        cmocka_unit_test(test_far),
        cmocka_unit_test(test_batch),
        cmocka_unit_test(test_recast_at_hit_time),
        cmocka_unit_test(test_recast_beyond_world_box),
        cmocka_unit_test(test_triangle_beyond_float),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
