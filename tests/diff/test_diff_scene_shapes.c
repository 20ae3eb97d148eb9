/*
 * Scene shape queries, closest point and instance-vs-instance collision vs a
 * double-precision brute force (scene.h "Answers").
 *
 * The scene: ~36 instances of the test meshes (data/), half on
 * BVHs and half on OBB trees, with rigid, uniformly and non-uniformly scaled,
 * mirrored and sheared transforms, and random masks. The oracle maps every
 * triangle of every instance to the world in double (w = A v + t) and decides
 * with double-precision methods of tests/support/oracle.h (projection
 * distances, golden-section segment distances, the vertex-inside/edge-crosses-
 * face polytope test): nothing of the implementation's float primitives.
 *
 * An answer may differ from the oracle only inside the tolerance band of
 * touching: |signed separation| <= 1e-6 of the case's scale, the largest
 * coordinate in the instance-centred frame (scene.h "Large worlds"); every
 * disagreement outside it is a failure. Checked too: callback, array and any
 * forms agree; batches equal single queries on 1, 2 and 8 threads; invalid
 * shapes match nothing; the same instances 1e7 away from the origin give
 * bit-identical answers for shapes given relative to them.
 * MQ_TEST_SEED changes the scene and the queries; MQ_SCENE_QUERIES the count per kind.
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
#define SCALE_DOWN 1
#else
#define SCALE_DOWN 5
#endif

#define BAND 1e-6

#include <time.h>
static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ------------------------------------------------------------------------- */
/* The world                                                                 */
/* ------------------------------------------------------------------------- */

typedef struct mesh_entry {
    const char *name;
    mq_mesh *mesh;
    mq_bvh *bvh;
    mq_obbtree *obt;
    double center[3], diag;
} mesh_entry;

typedef struct inst {
    int mesh;
    bool obb;
    mq_xform xf;
    uint32_t mask, id;
    size_t nt;
    oracle_tri *wt;  /* world triangles */
    double (*wb)[6]; /* their boxes: lo xyz, hi xyz */
    bool *ok;        /* finite */
    double lo[3], hi[3];
} inst;

#define MAX_MESHES 8
#define MAX_INST 48

static struct world {
    mesh_entry m[MAX_MESHES];
    size_t nm;
    inst in[MAX_INST];
    size_t ni;
    mq_scene *scene;
    mq_test_rng rng;
} W;

static const char *const mesh_names[] = {"spot.obj",   "suzanne.obj", "woody.obj",         "cow.obj",
                                         "teapot.obj", "fandisk.obj", "stanford-bunny.obj"};

static void add_mesh(mq_mesh *m, const char *name)
{
    mesh_entry *e = &W.m[W.nm++];
    e->name = name;
    e->mesh = m;
    assert_int_equal(mq_bvh_build(m, NULL, &e->bvh, NULL), MQ_OK);
    assert_int_equal(mq_obbtree_build(m, NULL, &e->obt, NULL), MQ_OK);
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    const float *p = mq_mesh_positions(m);
    for (size_t i = 0; i < mq_mesh_vertex_count(m); i++)
        for (int k = 0; k < 3; k++)
            lo[k] = fmin(lo[k], p[3 * i + k]), hi[k] = fmax(hi[k], p[3 * i + k]);
    double d2 = 0;
    for (int k = 0; k < 3; k++)
        e->center[k] = 0.5 * (lo[k] + hi[k]), d2 += (hi[k] - lo[k]) * (hi[k] - lo[k]);
    e->diag = sqrt(d2);
}

/* The rotation matrix of a unit quaternion w, x, y, z. */
static void quat_matrix(const double q[4], double r[3][3])
{
    double w = q[0], x = q[1], y = q[2], z = q[3];
    r[0][0] = 1 - 2 * (y * y + z * z), r[0][1] = 2 * (x * y - z * w), r[0][2] = 2 * (x * z + y * w);
    r[1][0] = 2 * (x * y + z * w), r[1][1] = 1 - 2 * (x * x + z * z), r[1][2] = 2 * (y * z - x * w);
    r[2][0] = 2 * (x * z - y * w), r[2][1] = 2 * (y * z + x * w), r[2][2] = 1 - 2 * (x * x + y * y);
}

enum { XF_RIGID, XF_UNIFORM, XF_NONUNIFORM, XF_MIRROR, XF_SHEAR, XF_KINDS };
static const char *const xf_names[XF_KINDS] = {"rigid", "uniform", "nonuniform", "mirror", "shear"};

/* Linear part for a kind, scaled so the mesh is about `size` across. */
static void make_linear(mq_test_rng *rng, int kind, double size, double a[3][3])
{
    double q[4], r[3][3], s[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    mq_test_rng_quat(rng, q);
    quat_matrix(q, r);
    switch (kind) {
    case XF_RIGID:
        size = 1.0;
        break;
    case XF_NONUNIFORM:
    case XF_MIRROR:
        for (int i = 0; i < 3; i++)
            s[i][i] = exp(mq_test_rng_range(rng, log(0.4), log(2.5)));
        if (kind == XF_MIRROR) {
            int i = (int)(mq_test_rng_u64(rng) % 3);
            s[i][i] = -s[i][i];
        }
        break;
    case XF_SHEAR:
        s[0][1] = mq_test_rng_range(rng, -0.8, 0.8);
        s[1][2] = mq_test_rng_range(rng, -0.8, 0.8);
        s[0][2] = mq_test_rng_range(rng, -0.5, 0.5);
        break;
    default:
        break;
    }
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            a[i][j] = size * (r[i][0] * s[0][j] + r[i][1] * s[1][j] + r[i][2] * s[2][j]);
}

static void world_point(const mq_xform *x, const float v[3], oracle_v3 *out)
{
    double w[3];
    for (int i = 0; i < 3; i++)
        w[i] = x->m[i][0] * v[0] + x->m[i][1] * v[1] + x->m[i][2] * v[2] + x->m[i][3];
    *out = oracle_v3_make(w[0], w[1], w[2]);
}

static void inst_fill(inst *I)
{
    const mq_mesh *m = W.m[I->mesh].mesh;
    I->nt = mq_mesh_triangle_count(m);
    I->wt = malloc(I->nt * sizeof *I->wt);
    I->wb = malloc(I->nt * sizeof *I->wb);
    I->ok = malloc(I->nt * sizeof *I->ok);
    for (int k = 0; k < 3; k++)
        I->lo[k] = INFINITY, I->hi[k] = -INFINITY;
    for (size_t t = 0; t < I->nt; t++) {
        mq_triangle tri;
        mq_mesh_get_triangle(m, (uint32_t)t, &tri);
        bool ok = true;
        for (int v = 0; v < 3; v++) {
            world_point(&I->xf, tri.v[v], &I->wt[t].v[v]);
            ok = ok && oracle_v3_finite(I->wt[t].v[v]);
        }
        I->ok[t] = ok;
        if (!ok)
            continue;
        for (int k = 0; k < 3; k++) {
            double c[3];
            for (int v = 0; v < 3; v++)
                c[v] = k == 0 ? I->wt[t].v[v].x : k == 1 ? I->wt[t].v[v].y : I->wt[t].v[v].z;
            I->wb[t][k] = fmin(fmin(c[0], c[1]), c[2]);
            I->wb[t][3 + k] = fmax(fmax(c[0], c[1]), c[2]);
            I->lo[k] = fmin(I->lo[k], I->wb[t][k]);
            I->hi[k] = fmax(I->hi[k], I->wb[t][3 + k]);
        }
    }
}

static uint32_t add_instance(mq_scene *scene, inst *I)
{
    mq_instance_def d = mq_default_instance_def();
    if (I->obb)
        d.obbtree = W.m[I->mesh].obt;
    else
        d.bvh = W.m[I->mesh].bvh;
    d.transform = I->xf;
    d.mask = I->mask;
    d.user_id = 1000u + (uint64_t)(I - W.in);
    uint32_t id;
    assert_int_equal(mq_scene_add(scene, &d, &id, NULL), MQ_OK);
    return id;
}

static int setup(void **state)
{
    (void)state;
    mq_test_rng_seed(&W.rng, mq_test_seed(0x5CE2E));
    for (size_t i = 0; i < sizeof mesh_names / sizeof *mesh_names; i++)
        add_mesh(mq_test_load_mesh(mesh_names[i]), mesh_names[i]);
    assert_int_equal(mq_scene_create(NULL, &W.scene, NULL), MQ_OK);
    size_t bunnies = 0;
    for (size_t i = 0; i < 36; i++) {
        inst *I = &W.in[W.ni];
        I->mesh = (int)(i % W.nm);
        if (strcmp(W.m[I->mesh].name, "stanford-bunny.obj") == 0 && bunnies++ >= 2)
            I->mesh = 0;
        I->obb = (i / XF_KINDS) % 2 == 1;
        int kind = (int)(i % XF_KINDS);
        double a[3][3], pos[3];
        /* about 1.5 across (rigid instances keep the mesh's own size) */
        make_linear(&W.rng, kind, 1.5 / W.m[I->mesh].diag * exp(mq_test_rng_range(&W.rng, log(0.7), log(1.4))), a);
        for (int k = 0; k < 3; k++)
            pos[k] = mq_test_rng_range(&W.rng, -3.0, 3.0);
        for (int r = 0; r < 3; r++) {
            for (int c = 0; c < 3; c++)
                I->xf.m[r][c] = a[r][c];
            I->xf.m[r][3] = pos[r] - (a[r][0] * W.m[I->mesh].center[0] + a[r][1] * W.m[I->mesh].center[1] +
                                      a[r][2] * W.m[I->mesh].center[2]);
        }
        I->mask = 1u << (mq_test_rng_u64(&W.rng) % 4);
        inst_fill(I);
        I->id = add_instance(W.scene, I);
        W.ni++;
    }
    assert_int_equal(mq_scene_commit(W.scene, NULL), MQ_OK);
    size_t tris = 0;
    for (size_t i = 0; i < W.ni; i++)
        tris += W.in[i].nt;
    fprintf(stderr, "  scene: %zu instances of %zu meshes, %zu triangles\n", W.ni, W.nm, tris);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    mq_scene_destroy(W.scene);
    for (size_t i = 0; i < W.ni; i++) {
        free(W.in[i].wt);
        free(W.in[i].wb);
        free(W.in[i].ok);
    }
    for (size_t i = 0; i < W.nm; i++) {
        mq_bvh_destroy(W.m[i].bvh);
        mq_obbtree_destroy(W.m[i].obt);
        mq_mesh_destroy(W.m[i].mesh);
    }
    return 0;
}

static const inst *inst_of_id(uint32_t id)
{
    for (size_t i = 0; i < W.ni; i++)
        if (W.in[i].id == id)
            return &W.in[i];
    return NULL;
}

static size_t queries_per_kind(size_t base)
{
    const char *s = getenv("MQ_SCENE_QUERIES");
    return s && *s ? (size_t)strtoul(s, NULL, 10) : base / SCALE_DOWN;
}

/* ------------------------------------------------------------------------- */
/* Oracle                                                                    */
/* ------------------------------------------------------------------------- */

static oracle_v3 dv(const double v[3])
{
    return oracle_v3_make(v[0], v[1], v[2]);
}

static oracle_box obox_of(const mq_dshape *s)
{
    oracle_box b;
    if (s->kind == MQ_SHAPE_OBB) {
        b.c = dv(s->u.obb.center);
        for (int i = 0; i < 3; i++) {
            b.ax[i] = dv(s->u.obb.axes[i]);
            b.h[i] = s->u.obb.half[i];
        }
    } else {
        const mq_daabb *a = &s->u.aabb;
        b.c =
            oracle_v3_make(0.5 * (a->min[0] + a->max[0]), 0.5 * (a->min[1] + a->max[1]), 0.5 * (a->min[2] + a->max[2]));
        b.ax[0] = oracle_v3_make(1, 0, 0), b.ax[1] = oracle_v3_make(0, 1, 0), b.ax[2] = oracle_v3_make(0, 0, 1);
        for (int i = 0; i < 3; i++)
            b.h[i] = 0.5 * (a->max[i] - a->min[i]);
    }
    return b;
}

static void shape_box(const mq_dshape *s, double lo[3], double hi[3])
{
    for (int k = 0; k < 3; k++) {
        switch (s->kind) {
        case MQ_SHAPE_SPHERE:
            lo[k] = s->u.sphere.center[k] - s->u.sphere.radius, hi[k] = s->u.sphere.center[k] + s->u.sphere.radius;
            break;
        case MQ_SHAPE_CAPSULE:
            lo[k] = fmin(s->u.capsule.a[k], s->u.capsule.b[k]) - s->u.capsule.radius;
            hi[k] = fmax(s->u.capsule.a[k], s->u.capsule.b[k]) + s->u.capsule.radius;
            break;
        case MQ_SHAPE_OBB: {
            double e = 0;
            for (int i = 0; i < 3; i++)
                e += fabs(s->u.obb.axes[i][k]) * s->u.obb.half[i];
            lo[k] = s->u.obb.center[k] - e, hi[k] = s->u.obb.center[k] + e;
            break;
        }
        default:
            lo[k] = s->u.aabb.min[k], hi[k] = s->u.aabb.max[k];
        }
    }
}

/* Signed separation of the shape and a world triangle (negative: overlapping;
 * for boxes only its sign and magnitude near 0 matter). */
static double oracle_sep(const mq_dshape *s, const oracle_tri *t)
{
    switch (s->kind) {
    case MQ_SHAPE_SPHERE:
        return sqrt(oracle_dist2_point_triangle_direct(dv(s->u.sphere.center), t)) - s->u.sphere.radius;
    case MQ_SHAPE_CAPSULE:
        return sqrt(oracle_dist2_segment_triangle_direct(dv(s->u.capsule.a), dv(s->u.capsule.b), t)) -
               s->u.capsule.radius;
    default: {
        oracle_box b = obox_of(s);
        oracle_hull hb = oracle_hull_box(&b), ht = oracle_hull_tri(t);
        return oracle_separation(&hb, &ht, false, NULL);
    }
    }
}

static bool oracle_overlaps(const mq_dshape *s, const oracle_tri *t)
{
    switch (s->kind) {
    case MQ_SHAPE_SPHERE: {
        double r = s->u.sphere.radius;
        return oracle_dist2_point_triangle_direct(dv(s->u.sphere.center), t) <= r * r;
    }
    case MQ_SHAPE_CAPSULE: {
        double r = s->u.capsule.radius;
        return oracle_dist2_segment_triangle_direct(dv(s->u.capsule.a), dv(s->u.capsule.b), t) <= r * r;
    }
    default: {
        oracle_box b = obox_of(s);
        return oracle_overlap_triangle_box(t, &b);
    }
    }
}

/* The case's scale: largest coordinate of shape and triangle relative to the instance. */
static double case_scale(const inst *I, const mq_dshape *s, const oracle_tri *t)
{
    oracle_v3 o = oracle_v3_make(I->xf.m[0][3], I->xf.m[1][3], I->xf.m[2][3]);
    double lo[3], hi[3];
    shape_box(s, lo, hi);
    double m = 0;
    for (int v = 0; v < 3; v++)
        m = fmax(m, oracle_maxabs(oracle_sub(t->v[v], o)));
    m = fmax(m, oracle_maxabs(oracle_sub(dv(lo), o)));
    m = fmax(m, oracle_maxabs(oracle_sub(dv(hi), o)));
    for (int k = 0; k < 3; k++)
        m = fmax(m, hi[k] - lo[k]);
    return m;
}

static bool box_meets(const double *b6, const double lo[3], const double hi[3], double margin)
{
    for (int k = 0; k < 3; k++)
        if (b6[k] > hi[k] + margin || b6[3 + k] < lo[k] - margin)
            return false;
    return true;
}

static int cmp_pair(const void *a, const void *b)
{
    const mq_instance_triangle *x = a, *y = b;
    if (x->instance != y->instance)
        return x->instance < y->instance ? -1 : 1;
    return x->triangle < y->triangle ? -1 : x->triangle > y->triangle;
}

/* Every (instance, triangle) the oracle says overlaps (mask-matching instances). */
static size_t oracle_overlap_all(const mq_dshape *s, uint32_t mask, mq_instance_triangle *out, size_t cap)
{
    double lo[3], hi[3];
    shape_box(s, lo, hi);
    double margin = 1e-5 * (1.0 + fmax(fmax(hi[0] - lo[0], hi[1] - lo[1]), hi[2] - lo[2]));
    size_t n = 0;
    for (size_t i = 0; i < W.ni; i++) {
        const inst *I = &W.in[i];
        double ib[6] = {I->lo[0], I->lo[1], I->lo[2], I->hi[0], I->hi[1], I->hi[2]};
        if (!(I->mask & mask) || !box_meets(ib, lo, hi, margin))
            continue;
        for (size_t t = 0; t < I->nt; t++)
            if (I->ok[t] && box_meets(I->wb[t], lo, hi, margin) && oracle_overlaps(s, &I->wt[t])) {
                assert_true(n < cap);
                out[n++] = (mq_instance_triangle){I->id, (uint32_t)t};
            }
    }
    qsort(out, n, sizeof *out, cmp_pair);
    return n;
}

/* ------------------------------------------------------------------------- */
/* Query generation                                                          */
/* ------------------------------------------------------------------------- */

static const oracle_tri *random_world_tri(mq_test_rng *r, const inst **which)
{
    for (;;) {
        const inst *I = &W.in[mq_test_rng_u64(r) % W.ni];
        size_t t = mq_test_rng_u64(r) % I->nt;
        if (I->ok[t]) {
            if (which)
                *which = I;
            return &I->wt[t];
        }
    }
}

static oracle_v3 point_on(mq_test_rng *r, const oracle_tri *t)
{
    double u = mq_test_rng_unit(r), v = mq_test_rng_unit(r);
    if (u + v > 1)
        u = 1 - u, v = 1 - v;
    int mode = (int)(mq_test_rng_u64(r) % 4);
    if (mode == 0)
        return t->v[mq_test_rng_u64(r) % 3];
    if (mode == 1)
        v = 0;
    return oracle_madd(oracle_madd(t->v[0], oracle_sub(t->v[1], t->v[0]), u), oracle_sub(t->v[2], t->v[0]), v);
}

static void random_center(mq_test_rng *r, double c[3])
{
    if (mq_test_rng_unit(r) < 0.3) {
        for (int k = 0; k < 3; k++)
            c[k] = mq_test_rng_range(r, -4.5, 4.5);
        return;
    }
    oracle_v3 p = point_on(r, random_world_tri(r, NULL));
    double d[3], len = 0.3 * mq_test_rng_unit(r);
    mq_test_rng_unit_vector(r, d);
    c[0] = p.x + len * d[0], c[1] = p.y + len * d[1], c[2] = p.z + len * d[2];
}

static double random_size(mq_test_rng *r)
{
    return mq_test_rng_unit(r) < 0.1 ? 0.0 : exp(mq_test_rng_range(r, log(0.003), log(0.2)));
}

static void random_axes(mq_test_rng *r, double ax[3][3])
{
    double q[4], m[3][3];
    mq_test_rng_quat(r, q);
    quat_matrix(q, m);
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 3; k++)
            ax[i][k] = m[k][i];
}

/* A random shape of a kind; one in four touches a random triangle (up to a
 * relative jitter of 1e-9..1e-4, or exactly in double). */
static void random_shape(mq_test_rng *r, mq_shape_kind kind, mq_dshape *s)
{
    s->kind = kind;
    double c[3];
    random_center(r, c);
    bool touch = mq_test_rng_unit(r) < 0.25;
    const oracle_tri *t = random_world_tri(r, NULL);
    double jit = oracle_jitter(r, 1.0);
    if (touch) { /* the centre near the triangle to touch */
        oracle_v3 p = point_on(r, t);
        double d[3], len = 0.1 * mq_test_rng_unit(r);
        mq_test_rng_unit_vector(r, d);
        c[0] = p.x + len * d[0], c[1] = p.y + len * d[1], c[2] = p.z + len * d[2];
    }
    switch (kind) {
    case MQ_SHAPE_SPHERE:
        memcpy(s->u.sphere.center, c, sizeof c);
        s->u.sphere.radius = random_size(r);
        if (touch) {
            double d = sqrt(oracle_dist2_point_triangle_direct(dv(c), t));
            s->u.sphere.radius = fmax(0.0, d * (1 + jit));
        }
        break;
    case MQ_SHAPE_CAPSULE: {
        double d[3], len = 2 * random_size(r);
        mq_test_rng_unit_vector(r, d);
        for (int k = 0; k < 3; k++)
            s->u.capsule.a[k] = c[k], s->u.capsule.b[k] = c[k] + len * d[k];
        s->u.capsule.radius = random_size(r);
        if (touch) {
            double e = sqrt(oracle_dist2_segment_triangle_direct(dv(s->u.capsule.a), dv(s->u.capsule.b), t));
            s->u.capsule.radius = fmax(0.0, e * (1 + jit));
        }
        break;
    }
    case MQ_SHAPE_OBB:
        random_axes(r, s->u.obb.axes);
        for (int k = 0; k < 3; k++)
            s->u.obb.half[k] = random_size(r);
        memcpy(s->u.obb.center, c, sizeof c);
        if (touch) { /* a zero-size box on a vertex, or a box whose corner is there */
            oracle_v3 v = t->v[mq_test_rng_u64(r) % 3];
            double h = mq_test_rng_unit(r) < 0.5 ? 0.0 : 1.0;
            for (int k = 0; k < 3; k++)
                s->u.obb.half[k] *= h;
            oracle_v3 off = oracle_v3_make(0, 0, 0);
            for (int i = 0; i < 3; i++)
                off = oracle_madd(off, dv(s->u.obb.axes[i]), s->u.obb.half[i]);
            s->u.obb.center[0] = v.x + off.x * (1 + jit), s->u.obb.center[1] = v.y + off.y * (1 + jit);
            s->u.obb.center[2] = v.z + off.z * (1 + jit);
        }
        break;
    default:
        for (int k = 0; k < 3; k++) {
            double h = random_size(r);
            s->u.aabb.min[k] = c[k] - h, s->u.aabb.max[k] = c[k] + h;
        }
        if (touch) { /* min corner on a vertex (exactly, or a jitter away) */
            oracle_v3 v = t->v[mq_test_rng_u64(r) % 3];
            double vv[3] = {v.x, v.y, v.z};
            bool zero = mq_test_rng_unit(r) < 0.3;
            for (int k = 0; k < 3; k++) {
                double h = zero ? 0.0 : s->u.aabb.max[k] - s->u.aabb.min[k];
                s->u.aabb.min[k] = vv[k] + jit * 1e-1 * h;
                s->u.aabb.max[k] = s->u.aabb.min[k] + h;
            }
        }
    }
}

static uint32_t random_mask(mq_test_rng *r)
{
    return mq_test_rng_unit(r) < 0.4 ? 0xFFFFFFFFu : (uint32_t)(mq_test_rng_u64(r) & 15u);
}

/* ------------------------------------------------------------------------- */
/* Shape overlaps                                                            */
/* ------------------------------------------------------------------------- */

static const char *const kind_names[] = {"sphere", "capsule", "obb", "aabb"};

static size_t impl_array(const mq_dshape *s, const mq_scene_query *q, mq_instance_triangle *out, size_t cap)
{
    return mq_scene_overlap_array(W.scene, s, q, out, cap);
}

static bool impl_any(const mq_scene *scene, const mq_dshape *s, const mq_scene_query *q)
{
    return mq_scene_overlap_any(scene, s, q);
}

typedef struct stop_after {
    size_t calls, limit;
    bool bad_instance;
} stop_after;

static bool count_stop(uint32_t instance, uint32_t tri, void *user)
{
    stop_after *s = user;
    const inst *I = inst_of_id(instance);
    if (!I || tri >= I->nt)
        s->bad_instance = true;
    return ++s->calls < s->limit;
}

static size_t impl_callback(const mq_dshape *s, const mq_scene_query *q, stop_after *st)
{
    return mq_scene_overlap(W.scene, s, q, count_stop, st);
}

static void print_shape(const mq_dshape *s)
{
    const double *f = (const double *)&s->u;
    size_t n = s->kind == MQ_SHAPE_SPHERE ? 4 : s->kind == MQ_SHAPE_CAPSULE ? 7 : s->kind == MQ_SHAPE_OBB ? 15 : 6;
    fprintf(stderr, "    %s", kind_names[s->kind]);
    for (size_t i = 0; i < n; i++)
        fprintf(stderr, " %a", f[i]);
    fprintf(stderr, "\n");
}

typedef struct tally {
    size_t queries, nonempty, pairs, disagree, in_band, mismatches, form_failures;
    double max_sep;
} tally;

/* Compares two sorted lists; each disagreement is judged by the band. */
static void judge(const mq_dshape *s, const mq_instance_triangle *got, size_t ng, const mq_instance_triangle *want,
                  size_t nw, tally *t)
{
    size_t i = 0, j = 0;
    while (i < ng || j < nw) {
        int c = i == ng ? 1 : j == nw ? -1 : cmp_pair(&got[i], &want[j]);
        if (c == 0) {
            i++, j++;
            continue;
        }
        const mq_instance_triangle *p = c < 0 ? &got[i++] : &want[j++];
        const inst *I = inst_of_id(p->instance);
        t->disagree++;
        if (!I || p->triangle >= I->nt || !I->ok[p->triangle]) {
            t->mismatches++;
            continue;
        }
        const oracle_tri *tri = &I->wt[p->triangle];
        double sep = oracle_sep(s, tri), sc = case_scale(I, s, tri);
        double rel = fabs(sep) / sc;
        t->max_sep = fmax(t->max_sep, rel);
        /* an extra answer the prefilter skipped: decide it now */
        bool oracle_says = oracle_overlaps(s, tri);
        if (c < 0 && oracle_says)
            continue;
        if (rel <= BAND)
            t->in_band++;
        else if (t->mismatches++ < 8) {
            fprintf(stderr, "  MISMATCH %s: instance %u (%s, %s) triangle %u: impl %d oracle %d, sep %.3g (rel %.3g)\n",
                    kind_names[s->kind], p->instance, W.m[I->mesh].name, I->obb ? "obb" : "bvh", p->triangle, c < 0,
                    oracle_says, sep, rel);
            print_shape(s);
        }
    }
}

/* Prints one kind's tally and adds its failures to the test's. */
static void report_tally(const char *what, int kind, const tally *t, size_t *mism, size_t *forms)
{
    fprintf(stderr,
            "  %s%-7s %zu queries: %zu non-empty, %zu pairs; disagreements %zu (in band %zu, max |sep|/scale %.2g), "
            "mismatches %zu, form failures %zu\n",
            what, kind_names[kind], t->queries, t->nonempty, t->pairs, t->disagree, t->in_band, t->max_sep,
            t->mismatches, t->form_failures);
    *mism += t->mismatches;
    *forms += t->form_failures;
}

static void check_shape(const mq_dshape *s, uint32_t mask, tally *t, mq_instance_triangle *got,
                        mq_instance_triangle *want, size_t cap)
{
    mq_scene_query q = mq_default_scene_query();
    q.mask = mask;
    size_t ng = impl_array(s, &q, got, cap);
    assert_true(ng <= cap);
    qsort(got, ng, sizeof *got, cmp_pair);
    size_t nw = oracle_overlap_all(s, mask, want, cap);
    t->queries++;
    t->nonempty += nw > 0;
    t->pairs += nw;
    judge(s, got, ng, want, nw, t);
    /* forms: duplicates, callback count with early stop, any */
    for (size_t i = 1; i < ng; i++)
        if (cmp_pair(&got[i - 1], &got[i]) == 0)
            t->form_failures++;
    stop_after st = {0, ng / 2 + 1, false};
    size_t calls = impl_callback(s, &q, &st);
    if (calls != (ng ? ng / 2 + 1 : 0) || st.bad_instance)
        t->form_failures++;
    if (impl_any(W.scene, s, &q) != (ng > 0))
        t->form_failures++;
    if (impl_array(s, &q, NULL, 0) != ng)
        t->form_failures++;
}

static void shapes_match_brute_force(void **state)
{
    (void)state;
    double t_start = now_s();
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(0x5CE2F));
    size_t per_kind = queries_per_kind(2500), cap = 1u << 20;
    mq_instance_triangle *got = malloc(cap * sizeof *got), *want = malloc(cap * sizeof *want);
    size_t mism = 0, forms = 0;
    for (int kind = 0; kind < 4; kind++) {
        tally t = {0};
        for (size_t i = 0; i < per_kind; i++) {
            mq_dshape s;
            random_shape(&rng, (mq_shape_kind)kind, &s);
            check_shape(&s, random_mask(&rng), &t, got, want, cap);
        }
        report_tally("", kind, &t, &mism, &forms);
    }
    free(got);
    free(want);
    assert_int_equal(mism, 0);
    assert_int_equal(forms, 0);
    fprintf(stderr, "  (shapes_match_brute_force: %.2f s)\n", now_s() - t_start);
}

static void invalid_shapes_match_nothing(void **state)
{
    (void)state;
    double t_start = now_s();
    mq_dshape s[8];
    memset(s, 0, sizeof s);
    s[0].kind = MQ_SHAPE_SPHERE, s[0].u.sphere.radius = NAN;
    s[1].kind = MQ_SHAPE_SPHERE, s[1].u.sphere.radius = -1.0;
    s[2].kind = MQ_SHAPE_SPHERE, s[2].u.sphere.radius = INFINITY;
    s[3].kind = MQ_SHAPE_CAPSULE, s[3].u.capsule.radius = 100, s[3].u.capsule.b[1] = NAN;
    s[4].kind = MQ_SHAPE_OBB;
    for (int k = 0; k < 3; k++)
        s[4].u.obb.half[k] = 100, s[4].u.obb.axes[k][k] = 1.01; /* not unit */
    s[5].kind = MQ_SHAPE_OBB;
    for (int k = 0; k < 3; k++)
        s[5].u.obb.half[k] = 100, s[5].u.obb.axes[k][k] = 1.0;
    s[5].u.obb.half[1] = -1.0;
    s[6].kind = MQ_SHAPE_AABB;
    for (int k = 0; k < 3; k++)
        s[6].u.aabb.min[k] = -100, s[6].u.aabb.max[k] = 100;
    s[6].u.aabb.min[2] = 101; /* min > max */
    s[7].kind = MQ_SHAPE_AABB;
    for (int k = 0; k < 3; k++)
        s[7].u.aabb.min[k] = -100, s[7].u.aabb.max[k] = 100;
    s[7].u.aabb.max[0] = INFINITY;
    for (int i = 0; i < 8; i++) {
        assert_false(impl_any(W.scene, &s[i], NULL));
        assert_int_equal(impl_array(&s[i], NULL, NULL, 0), 0);
    }
    /* and the valid twin of the OBB does see the scene */
    s[4].u.obb.axes[0][0] = s[4].u.obb.axes[1][1] = s[4].u.obb.axes[2][2] = 1.0;
    assert_true(impl_any(W.scene, &s[4], NULL));
    uint64_t counts[8];
    bool any[8];
    uint64_t sum = mq_scene_overlap_count_batch(W.scene, s, 8, NULL, 2, counts);
    for (int i = 0; i < 8; i++)
        assert_true(i == 4 ? counts[i] > 0 : counts[i] == 0);
    assert_int_equal(sum, counts[4]);
    mq_scene_overlap_any_batch(W.scene, s, 8, NULL, 2, any);
    for (int i = 0; i < 8; i++)
        assert_int_equal(any[i], i == 4);
    double p[3] = {NAN, 0, 0}, q[3] = {0, 0, 0};
    assert_false(mq_scene_closest_point(W.scene, p, INFINITY, NULL, NULL));
    assert_false(mq_scene_closest_point(W.scene, q, -1.0, NULL, NULL));
    assert_false(mq_scene_closest_point(W.scene, q, NAN, NULL, NULL));
    fprintf(stderr, "  (invalid_shapes_match_nothing: %.2f s)\n", now_s() - t_start);
}

/*
 * Shapes far larger than the instances (a box of +-1e300 meaning "everything",
 * a capsule along a line of length 1e39 or from a triangle out to 1e39, a
 * slab 1e12 wide): each is checked
 * against the oracle on its moderate twin, the same shape cut down to a
 * region ten scene sizes across, which meets exactly the same triangles (the
 * oracle's double arithmetic would overflow on the huge one).
 */
static bool huge_twin(mq_test_rng *r, int kind, double big, double reach, mq_dshape *huge, mq_dshape *twin)
{
    const oracle_tri *t = random_world_tri(r, NULL);
    oracle_v3 p = point_on(r, t);
    double c[3] = {p.x, p.y, p.z}, d[3];
    mq_test_rng_unit_vector(r, d);
    huge->kind = twin->kind = (mq_shape_kind)kind;
    switch (kind) {
    case MQ_SHAPE_SPHERE: /* everything within reach: every triangle */
        memcpy(huge->u.sphere.center, c, sizeof c);
        huge->u.sphere.radius = big;
        *twin = *huge;
        twin->u.sphere.radius = reach;
        return true;
    case MQ_SHAPE_CAPSULE: {
        double form = mq_test_rng_unit(r);
        if (form < 1.0 / 3.0) { /* fat: everything within reach */
            for (int k = 0; k < 3; k++)
                huge->u.capsule.a[k] = c[k], huge->u.capsule.b[k] = c[k] + random_size(r) * d[k];
            huge->u.capsule.radius = big;
            *twin = *huge;
            twin->u.capsule.radius = reach;
            return true;
        }
        if (form < 2.0 / 3.0) {
            /* A thin ray from c, on a triangle, out to `big`: one end inside
             * an instance, the other far away. The twin follows the direction
             * the rounded far end defines, out to `reach`. */
            double u[3], n = 0.0;
            for (int k = 0; k < 3; k++) {
                huge->u.capsule.a[k] = c[k];
                huge->u.capsule.b[k] = c[k] + big * d[k];
                u[k] = (huge->u.capsule.b[k] - c[k]) / big;
                n += u[k] * u[k];
            }
            *twin = *huge;
            for (int k = 0; k < 3; k++)
                twin->u.capsule.b[k] = c[k] + reach * u[k] / sqrt(n);
            huge->u.capsule.radius = twin->u.capsule.radius = random_size(r);
            break;
        }
        /* A thin line through c, as far as doubles allow: its ends round by
         * up to an ulp of `big`, so the twin follows the line the ends
         * define (its midpoint is exact, its direction good to 1e-16). */
        for (int k = 0; k < 3; k++) {
            huge->u.capsule.a[k] = c[k] - big * d[k];
            huge->u.capsule.b[k] = c[k] + big * d[k];
        }
        double mid[3], u[3], n = 0.0;
        for (int k = 0; k < 3; k++) {
            mid[k] = 0.5 * huge->u.capsule.a[k] + 0.5 * huge->u.capsule.b[k];
            u[k] = (0.5 * huge->u.capsule.b[k] - 0.5 * huge->u.capsule.a[k]) / big;
            n += u[k] * u[k];
        }
        for (int k = 0; k < 3; k++) {
            twin->u.capsule.a[k] = mid[k] - reach * u[k] / sqrt(n);
            twin->u.capsule.b[k] = mid[k] + reach * u[k] / sqrt(n);
        }
        huge->u.capsule.radius = twin->u.capsule.radius = random_size(r);
        break;
    }
    case MQ_SHAPE_OBB: /* a thin slab through the scene, on random axes */
        random_axes(r, huge->u.obb.axes);
        memcpy(huge->u.obb.center, c, sizeof c);
        *twin = *huge;
        for (int k = 0; k < 3; k++) {
            huge->u.obb.half[k] = k == 1 ? random_size(r) : big;
            twin->u.obb.half[k] = k == 1 ? huge->u.obb.half[k] : reach;
        }
        break;
    default: /* a half-space-like box: huge on one side of each axis */
        for (int k = 0; k < 3; k++) {
            bool low = mq_test_rng_unit(r) < 0.5;
            double h = random_size(r);
            huge->u.aabb.min[k] = low ? c[k] - big : c[k] - h;
            huge->u.aabb.max[k] = low ? c[k] + h : c[k] + big;
            twin->u.aabb.min[k] = low ? c[k] - reach : c[k] - h;
            twin->u.aabb.max[k] = low ? c[k] + h : c[k] + reach;
        }
    }
    return false;
}

/* Every (instance, triangle) of the mask-matching instances: the oracle of a
 * shape holding the whole scene (no need to test 1e5 pairs one by one). */
static size_t all_triangles(uint32_t mask, mq_instance_triangle *out, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < W.ni; i++)
        for (size_t t = 0; t < W.in[i].nt && (W.in[i].mask & mask); t++)
            if (W.in[i].ok[t]) {
                assert_true(n < cap);
                out[n++] = (mq_instance_triangle){W.in[i].id, (uint32_t)t};
            }
    qsort(out, n, sizeof *out, cmp_pair);
    return n;
}

static void huge_shapes_match_brute_force(void **state)
{
    (void)state;
    double t_start = now_s();
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(0x4B16E));
    mq_daabb b;
    assert_true(mq_scene_bounds(W.scene, &b));
    double size = 0.0;
    for (int k = 0; k < 3; k++)
        size = fmax(size, fmax(fabs(b.min[k]), fabs(b.max[k])));
    double reach = 10.0 * size;
    const double bigs[] = {1e12, 1e30, 1e39, 1e300, 1e307};
    size_t cap = 1u << 20, mism = 0, forms = 0;
    mq_instance_triangle *got = malloc(cap * sizeof *got), *want = malloc(cap * sizeof *want);
    for (int kind = 0; kind < 4; kind++) {
        tally t = {0};
        for (size_t i = 0; i < (SCALE_DOWN > 1 ? 1 : 10); i++) { /* each size twice (sanitizers: once, 1e12) */
            mq_dshape huge, twin;
            double big = bigs[i % 5] * mq_test_rng_range(&rng, 1.0, 1.5);
            bool everything = huge_twin(&rng, kind, big, reach, &huge, &twin);
            mq_scene_query q = mq_default_scene_query();
            q.mask = random_mask(&rng);
            size_t ng = impl_array(&huge, &q, got, cap);
            assert_true(ng <= cap);
            qsort(got, ng, sizeof *got, cmp_pair);
            size_t nw = everything ? all_triangles(q.mask, want, cap) : oracle_overlap_all(&twin, q.mask, want, cap);
            t.queries++;
            t.nonempty += nw > 0;
            t.pairs += nw;
            judge(&twin, got, ng, want, nw, &t);
            if (impl_any(W.scene, &huge, &q) != (ng > 0))
                t.form_failures++;
        }
        report_tally("huge ", kind, &t, &mism, &forms);
    }
    free(got);
    free(want);
    assert_int_equal(mism, 0);
    assert_int_equal(forms, 0);
    fprintf(stderr, "  (huge_shapes_match_brute_force: %.2f s)\n", now_s() - t_start);
}

/* ------------------------------------------------------------------------- */
/* Closest point                                                             */
/* ------------------------------------------------------------------------- */

typedef struct oracle_closest {
    double d;
    uint32_t instance, triangle;
} oracle_closest;

static double box_dist2(const double *b6, oracle_v3 p)
{
    double pp[3] = {p.x, p.y, p.z}, d2 = 0;
    for (int k = 0; k < 3; k++) {
        double e = fmax(fmax(b6[k] - pp[k], pp[k] - b6[3 + k]), 0.0);
        d2 += e * e;
    }
    return d2;
}

static oracle_closest oracle_closest_point(oracle_v3 p, uint32_t mask)
{
    oracle_closest best = {INFINITY, MQ_NO_INSTANCE, MQ_NO_TRIANGLE};
    double best2 = INFINITY;
    for (size_t i = 0; i < W.ni; i++) {
        const inst *I = &W.in[i];
        double ib[6] = {I->lo[0], I->lo[1], I->lo[2], I->hi[0], I->hi[1], I->hi[2]};
        if (!(I->mask & mask) || box_dist2(ib, p) > best2 * (1 + 1e-9))
            continue;
        for (size_t t = 0; t < I->nt; t++) {
            if (!I->ok[t] || box_dist2(I->wb[t], p) > best2 * (1 + 1e-9))
                continue;
            double d2 = oracle_dist2_point_triangle_direct(p, &I->wt[t]);
            if (d2 < best2) {
                best2 = d2;
                best = (oracle_closest){sqrt(d2), I->id, (uint32_t)t};
            }
        }
    }
    return best;
}

static void random_query_point(mq_test_rng *r, double p[3])
{
    if (mq_test_rng_unit(r) < 0.2) {
        for (int k = 0; k < 3; k++)
            p[k] = mq_test_rng_range(r, -20, 20);
        return;
    }
    oracle_v3 q = point_on(r, random_world_tri(r, NULL));
    double d[3], len = mq_test_rng_unit(r) < 0.2 ? 0.0 : 0.3 * mq_test_rng_unit(r) * mq_test_rng_unit(r);
    mq_test_rng_unit_vector(r, d);
    p[0] = q.x + len * d[0], p[1] = q.y + len * d[1], p[2] = q.z + len * d[2];
}

static double random_max_distance(mq_test_rng *r)
{
    return mq_test_rng_unit(r) < 0.5 ? INFINITY : exp(mq_test_rng_range(r, log(0.01), log(1.0)));
}

static void closest_matches_brute_force(void **state)
{
    (void)state;
    double t_start = now_s();
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(0x5CE30));
    size_t n = queries_per_kind(3000), found = 0, in_band = 0, failures = 0, ties = 0;
    double max_err = 0;
    for (size_t i = 0; i < n; i++) {
        double p[3];
        random_query_point(&rng, p);
        double maxd = random_max_distance(&rng);
        uint32_t mask = random_mask(&rng);
        mq_scene_query q = mq_default_scene_query();
        q.mask = mask;
        mq_scene_point_hit h;
        memset(&h, 0xAB, sizeof h);
        bool f = mq_scene_closest_point(W.scene, p, maxd, &q, &h);
        oracle_closest o = oracle_closest_point(dv(p), mask);
        bool of = o.instance != MQ_NO_INSTANCE && o.d <= maxd;
        found += f;
        /* the scale: coordinates relative to the answer's instance */
        const inst *I = inst_of_id(f ? h.instance : o.instance);
        double sc = 1.0;
        if (I) {
            oracle_v3 t0 = oracle_v3_make(I->xf.m[0][3], I->xf.m[1][3], I->xf.m[2][3]);
            sc = fmax(oracle_maxabs(oracle_sub(dv(p), t0)), fmax(I->hi[0] - I->lo[0], 1e-300));
        }
        double tol = 2e-6 * sc;
        bool ok = true;
        if (f != of) {
            ok = fabs(o.d - maxd) <= tol;
            in_band += ok;
        } else if (f) {
            const inst *H = inst_of_id(h.instance);
            ok = H && h.triangle < H->nt && H->ok[h.triangle] && (H->mask & mask) &&
                 h.user_id == 1000u + (uint64_t)(H - W.in);
            if (ok) {
                double err = fabs(h.distance - o.d);
                max_err = fmax(max_err, err / sc);
                /* the reported point: on the reported triangle, at the reported distance */
                double on = sqrt(oracle_dist2_point_triangle_direct(dv(h.point), &H->wt[h.triangle]));
                double dd = oracle_dist(dv(h.point), dv(p));
                double mine = sqrt(oracle_dist2_point_triangle_direct(dv(p), &H->wt[h.triangle]));
                ok = err <= tol && on <= tol && fabs(dd - h.distance) <= tol && mine <= o.d + tol && h.distance <= maxd;
                if (ok && (h.instance != o.instance || h.triangle != o.triangle))
                    ties++; /* another triangle within the tolerance: a tie */
            }
        }
        if (!ok && failures++ < 8)
            fprintf(stderr, "  CLOSEST p (%a %a %a) max %g mask %x: impl %d %u/%u d=%.17g, oracle %d %u/%u d=%.17g\n",
                    p[0], p[1], p[2], maxd, mask, f, f ? h.instance : 0, f ? h.triangle : 0, f ? h.distance : 0, of,
                    o.instance, o.triangle, o.d);
    }
    fprintf(stderr,
            "  closest: %zu points, %zu found; found/not-found in band %zu, tie picks %zu, max distance error "
            "%.2g of scale, failures %zu\n",
            n, found, in_band, ties, max_err, failures);
    assert_int_equal(failures, 0);
    fprintf(stderr, "  (closest_matches_brute_force: %.2f s)\n", now_s() - t_start);
}

/* ------------------------------------------------------------------------- */
/* Batches                                                                   */
/* ------------------------------------------------------------------------- */

static void batches_equal_single_queries(void **state)
{
    (void)state;
    double t_start = now_s();
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(0x5CE31));
    size_t n = queries_per_kind(2000);
    mq_dshape *shapes = malloc(n * sizeof *shapes);
    mq_dvec3 *pts = malloc(n * sizeof *pts);
    bool *any_ref = malloc(n), *any = malloc(n), *found_ref = malloc(n), *found = malloc(n);
    uint64_t *cnt_ref = malloc(n * sizeof *cnt_ref), *cnt = malloc(n * sizeof *cnt);
    mq_scene_point_hit *hit_ref = calloc(n, sizeof *hit_ref), *hit = calloc(n, sizeof *hit);
    mq_scene_query q = mq_default_scene_query();
    q.mask = 0x7;
    uint64_t total_ref = 0;
    size_t any_total = 0, found_total = 0;
    for (size_t i = 0; i < n; i++) {
        random_shape(&rng, (mq_shape_kind)(i % 4), &shapes[i]);
        random_query_point(&rng, pts[i]);
        any_ref[i] = impl_any(W.scene, &shapes[i], &q);
        any_total += any_ref[i];
        cnt_ref[i] = 0;
        stop_after st = {0, SIZE_MAX, false};
        mq_scene_query qq = q;
        switch (shapes[i].kind) {
        case MQ_SHAPE_SPHERE:
            cnt_ref[i] = mq_scene_overlap(W.scene, &shapes[i], &qq, count_stop, &st);
            break;
        default:
            cnt_ref[i] = impl_array(&shapes[i], &qq, NULL, 0);
        }
        total_ref += cnt_ref[i];
        found_ref[i] = mq_scene_closest_point(W.scene, pts[i], 0.5, &q, &hit_ref[i]);
        found_total += found_ref[i];
    }
    static const uint32_t threads[] = {1, 2, 8};
    for (size_t k = 0; k < 3; k++) {
        memset(any, 0, n);
        memset(found, 0, n);
        memset(hit, 0, n * sizeof *hit);
        assert_int_equal(mq_scene_overlap_any_batch(W.scene, shapes, n, &q, threads[k], any), any_total);
        assert_int_equal(mq_scene_overlap_count_batch(W.scene, shapes, n, &q, threads[k], cnt), total_ref);
        assert_int_equal(
            mq_scene_closest_point_batch(W.scene, (const mq_dvec3 *)pts, n, 0.5, &q, threads[k], hit, found),
            found_total);
        size_t bad = 0;
        for (size_t i = 0; i < n; i++) {
            bad += any[i] != any_ref[i] || cnt[i] != cnt_ref[i] || found[i] != found_ref[i];
            if (found_ref[i])
                bad += memcmp(&hit[i], &hit_ref[i], sizeof hit[i]) != 0;
        }
        fprintf(stderr,
                "  batches on %u threads: %zu shapes (%zu overlap, %llu pairs), %zu points (%zu found): %zu differ\n",
                threads[k], n, any_total, (unsigned long long)total_ref, n, found_total, bad);
        assert_int_equal(bad, 0);
    }
    free(shapes), free(pts), free(any_ref), free(any), free(found_ref), free(found);
    free(cnt_ref), free(cnt), free(hit_ref), free(hit);
    fprintf(stderr, "  (batches_equal_single_queries: %.2f s)\n", now_s() - t_start);
}

/* ------------------------------------------------------------------------- */
/* Collisions                                                                */
/* ------------------------------------------------------------------------- */

static int cmp_tri_pair(const void *a, const void *b)
{
    const mq_tri_pair *x = a, *y = b;
    if (x->a != y->a)
        return x->a < y->a ? -1 : 1;
    return x->b < y->b ? -1 : x->b > y->b;
}

static size_t oracle_collide(const inst *A, const inst *B, mq_tri_pair *out, size_t cap)
{
    double ab[6] = {A->lo[0], A->lo[1], A->lo[2], A->hi[0], A->hi[1], A->hi[2]};
    double bb[6] = {B->lo[0], B->lo[1], B->lo[2], B->hi[0], B->hi[1], B->hi[2]};
    double margin = 1e-9;
    uint32_t *la = malloc(A->nt * sizeof *la), *lb = malloc(B->nt * sizeof *lb);
    size_t na = 0, nb = 0, n = 0;
    for (size_t t = 0; t < A->nt; t++)
        if (A->ok[t] && box_meets(A->wb[t], bb, bb + 3, margin))
            la[na++] = (uint32_t)t;
    for (size_t t = 0; t < B->nt; t++)
        if (B->ok[t] && box_meets(B->wb[t], ab, ab + 3, margin))
            lb[nb++] = (uint32_t)t;
    for (size_t i = 0; i < na; i++)
        for (size_t j = 0; j < nb; j++) {
            const double *x = A->wb[la[i]];
            if (!box_meets(B->wb[lb[j]], x, x + 3, margin))
                continue;
            if (oracle_overlap_triangle_triangle(&A->wt[la[i]], &B->wt[lb[j]])) {
                assert_true(n < cap);
                out[n++] = (mq_tri_pair){la[i], lb[j]};
            }
        }
    free(la);
    free(lb);
    qsort(out, n, sizeof *out, cmp_tri_pair);
    return n;
}

typedef struct pair_count {
    size_t calls, limit;
} pair_count;

static bool pair_stop(uint32_t a, uint32_t b, void *user)
{
    (void)a;
    (void)b;
    pair_count *c = user;
    return ++c->calls < c->limit;
}

static void collide_matches_brute_force(void **state)
{
    (void)state;
    double t_start = now_s();
    size_t cap = 1u << 21, pairs_checked = 0, total = 0, disagree = 0, in_band = 0, mism = 0, forms = 0;
    double max_sep = 0;
    mq_tri_pair *got = malloc(cap * sizeof *got), *want = malloc(cap * sizeof *want);
    size_t limit = 26 / SCALE_DOWN + 4;
    for (size_t i = 0; i < W.ni && pairs_checked < limit; i++)
        for (size_t j = i; j < W.ni && pairs_checked < limit; j++) {
            const inst *A = &W.in[i], *B = &W.in[j];
            if (A->nt > 7000 || B->nt > 7000)
                continue;
            bool meet = true;
            for (int k = 0; k < 3; k++)
                meet = meet && A->lo[k] <= B->hi[k] && B->lo[k] <= A->hi[k];
            if (!meet || (i == j && A->nt > 1500))
                continue;
            pairs_checked++;
            size_t ng = mq_scene_collide_array(W.scene, A->id, B->id, got, cap);
            assert_true(ng <= cap);
            qsort(got, ng, sizeof *got, cmp_tri_pair);
            size_t nw = oracle_collide(A, B, want, cap);
            total += nw;
            pair_count pc = {0, ng / 2 + 1};
            if (mq_scene_collide(W.scene, A->id, B->id, pair_stop, &pc) != (ng ? ng / 2 + 1 : 0))
                forms++;
            size_t a = 0, b = 0;
            oracle_v3 t0 = oracle_v3_make(A->xf.m[0][3], A->xf.m[1][3], A->xf.m[2][3]);
            while (a < ng || b < nw) {
                int c = a == ng ? 1 : b == nw ? -1 : cmp_tri_pair(&got[a], &want[b]);
                if (c == 0) {
                    a++, b++;
                    continue;
                }
                const mq_tri_pair *p = c < 0 ? &got[a++] : &want[b++];
                disagree++;
                const oracle_tri *ta = &A->wt[p->a], *tb = &B->wt[p->b];
                oracle_hull ha = oracle_hull_tri(ta), hb = oracle_hull_tri(tb);
                double sep = oracle_separation(&ha, &hb, false, NULL), sc = 0;
                for (int v = 0; v < 3; v++)
                    sc = fmax(sc,
                              fmax(oracle_maxabs(oracle_sub(ta->v[v], t0)), oracle_maxabs(oracle_sub(tb->v[v], t0))));
                max_sep = fmax(max_sep, fabs(sep) / sc);
                if (fabs(sep) <= BAND * sc)
                    in_band++;
                else if (mism++ < 8)
                    fprintf(stderr, "  COLLIDE MISMATCH %u (%s %s %s) vs %u (%s %s %s): pair %u/%u impl %d sep %.3g\n",
                            A->id, W.m[A->mesh].name, A->obb ? "obb" : "bvh", xf_names[i % XF_KINDS], B->id,
                            W.m[B->mesh].name, B->obb ? "obb" : "bvh", xf_names[j % XF_KINDS], p->a, p->b, c < 0, sep);
            }
        }
    fprintf(stderr,
            "  collide: %zu instance pairs, %zu triangle pairs; disagreements %zu (in band %zu, max |sep|/scale %.2g), "
            "mismatches %zu, form failures %zu\n",
            pairs_checked, total, disagree, in_band, max_sep, mism, forms);
    free(got);
    free(want);
    assert_true(pairs_checked > 3 && total > 0);
    assert_int_equal(mism, 0);
    assert_int_equal(forms, 0);
    fprintf(stderr, "  (collide_matches_brute_force: %.2f s)\n", now_s() - t_start);
}

/* ------------------------------------------------------------------------- */
/* Large worlds                                                              */
/* ------------------------------------------------------------------------- */

/* Three instances near the origin, and the same three moved by T: shapes given
 * relative to the placement (float offsets: T + offset is exact in double)
 * give the same triangles, closest points the same triangles and distances,
 * and collisions the same pairs. */
static void large_world_is_exact(void **state)
{
    (void)state;
    double t_start = now_s();
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(0x5CE32));
    static const double T[3] = {1e7, -2.5e7, 3e7};
    mq_scene *s0, *s1;
    assert_int_equal(mq_scene_create(NULL, &s0, NULL), MQ_OK);
    assert_int_equal(mq_scene_create(NULL, &s1, NULL), MQ_OK);
    uint32_t ids0[3], ids1[3];
    for (int i = 0; i < 3; i++) {
        const mesh_entry *e = &W.m[i == 2 && W.nm > 1 ? 1 : 0];
        double a[3][3];
        make_linear(&rng, i == 0 ? XF_RIGID : i == 1 ? XF_SHEAR : XF_MIRROR, 1.5 / e->diag, a);
        if (i == 0)
            make_linear(&rng, XF_UNIFORM, 1.5 / e->diag, a);
        mq_instance_def d = mq_default_instance_def();
        if (i == 1)
            d.obbtree = e->obt;
        else
            d.bvh = e->bvh;
        for (int r = 0; r < 3; r++) {
            for (int c = 0; c < 3; c++)
                d.transform.m[r][c] = a[r][c];
            d.transform.m[r][3] = (double)(i * 3 + r) * 0.125; /* dyadic: T + it is exact */
        }
        assert_int_equal(mq_scene_add(s0, &d, &ids0[i], NULL), MQ_OK);
        for (int r = 0; r < 3; r++)
            d.transform.m[r][3] += T[r];
        assert_int_equal(mq_scene_add(s1, &d, &ids1[i], NULL), MQ_OK);
        assert_int_equal(ids0[i], ids1[i]);
    }
    assert_int_equal(mq_scene_commit(s0, NULL), MQ_OK);
    assert_int_equal(mq_scene_commit(s1, NULL), MQ_OK);
    size_t cap = 1u << 18, n = queries_per_kind(2000), diff = 0, nonempty = 0;
    mq_instance_triangle *g0 = malloc(cap * sizeof *g0), *g1 = malloc(cap * sizeof *g1);
    mq_scene *scene_save = W.scene;
    for (size_t i = 0; i < n; i++) {
        mq_dshape sh0, sh1;
        sh0.kind = (mq_shape_kind)(i % 4);
        float c[3], h[3], b[3];
        for (int k = 0; k < 3; k++) { /* multiples of 2^-20: T + them is exact in double */
            c[k] = (float)(ldexp(floor(ldexp(mq_test_rng_range(&rng, -0.5, 1.5), 20)), -20));
            h[k] = (float)(ldexp(floor(ldexp(mq_test_rng_unit(&rng) * 0.3, 20)), -20));
            b[k] = c[k] + (float)(ldexp(floor(ldexp(mq_test_rng_range(&rng, -0.3, 0.3), 20)), -20));
        }
        double ax[3][3];
        random_axes(&rng, ax);
        switch (sh0.kind) {
        case MQ_SHAPE_SPHERE:
            for (int k = 0; k < 3; k++)
                sh0.u.sphere.center[k] = c[k];
            sh0.u.sphere.radius = h[0];
            break;
        case MQ_SHAPE_CAPSULE:
            for (int k = 0; k < 3; k++)
                sh0.u.capsule.a[k] = c[k], sh0.u.capsule.b[k] = b[k];
            sh0.u.capsule.radius = h[1];
            break;
        case MQ_SHAPE_OBB:
            for (int k = 0; k < 3; k++) {
                sh0.u.obb.center[k] = c[k], sh0.u.obb.half[k] = h[k];
                for (int j = 0; j < 3; j++)
                    sh0.u.obb.axes[k][j] = ax[k][j];
            }
            break;
        default:
            for (int k = 0; k < 3; k++)
                sh0.u.aabb.min[k] = c[k] - h[k], sh0.u.aabb.max[k] = c[k] + h[k];
        }
        sh1 = sh0;
        for (int k = 0; k < 3; k++) {
            switch (sh0.kind) {
            case MQ_SHAPE_SPHERE:
                sh1.u.sphere.center[k] += T[k];
                break;
            case MQ_SHAPE_CAPSULE:
                sh1.u.capsule.a[k] += T[k], sh1.u.capsule.b[k] += T[k];
                break;
            case MQ_SHAPE_OBB:
                sh1.u.obb.center[k] += T[k];
                break;
            default:
                sh1.u.aabb.min[k] += T[k], sh1.u.aabb.max[k] += T[k];
            }
        }
        W.scene = s0;
        size_t n0 = impl_array(&sh0, NULL, g0, cap);
        W.scene = s1;
        size_t n1 = impl_array(&sh1, NULL, g1, cap);
        qsort(g0, n0, sizeof *g0, cmp_pair);
        qsort(g1, n1, sizeof *g1, cmp_pair);
        nonempty += n0 > 0;
        bool same = n0 == n1 && memcmp(g0, g1, n0 * sizeof *g0) == 0;
        /* closest points from the same relative point */
        double p0[3] = {c[0], c[1], c[2]}, p1[3] = {c[0] + T[0], c[1] + T[1], c[2] + T[2]};
        mq_scene_point_hit h0, h1;
        bool f0 = mq_scene_closest_point(s0, p0, INFINITY, NULL, &h0);
        bool f1 = mq_scene_closest_point(s1, p1, INFINITY, NULL, &h1);
        same = same && f0 && f1 && h0.instance == h1.instance && h0.triangle == h1.triangle &&
               h0.distance == h1.distance && h0.u == h1.u && h0.v == h1.v;
        for (int k = 0; k < 3; k++)
            same = same && fabs((h1.point[k] - T[k]) - h0.point[k]) <= 1e-8;
        if (!same && diff++ < 5) {
            fprintf(stderr, "  LARGE WORLD differs: %zu vs %zu overlaps, closest %u/%u %.17g vs %u/%u %.17g\n", n0, n1,
                    h0.instance, h0.triangle, h0.distance, h1.instance, h1.triangle, h1.distance);
            print_shape(&sh0);
        }
    }
    W.scene = scene_save;
    /* collisions between the three */
    size_t pairs = 0;
    mq_tri_pair *c0 = malloc(cap * sizeof *c0), *c1 = malloc(cap * sizeof *c1);
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) {
            size_t m0 = mq_scene_collide_array(s0, ids0[a], ids0[b], c0, cap);
            size_t m1 = mq_scene_collide_array(s1, ids1[a], ids1[b], c1, cap);
            qsort(c0, m0, sizeof *c0, cmp_tri_pair);
            qsort(c1, m1, sizeof *c1, cmp_tri_pair);
            pairs += m0;
            if (m0 != m1 || memcmp(c0, c1, m0 * sizeof *c0) != 0) {
                fprintf(stderr, "  LARGE WORLD collide %d/%d: %zu vs %zu pairs\n", a, b, m0, m1);
                diff++;
            }
        }
    fprintf(stderr, "  large world: %zu shape + closest queries (%zu non-empty), %zu collision pairs; %zu differ\n", n,
            nonempty, pairs, diff);
    free(g0), free(g1), free(c0), free(c1);
    mq_scene_destroy(s0);
    mq_scene_destroy(s1);
    assert_true(nonempty > n / 10 && pairs > 0);
    assert_int_equal(diff, 0);
    fprintf(stderr, "  (large_world_is_exact: %.2f s)\n", now_s() - t_start);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(shapes_match_brute_force),      cmocka_unit_test(invalid_shapes_match_nothing),
        cmocka_unit_test(huge_shapes_match_brute_force), cmocka_unit_test(closest_matches_brute_force),
        cmocka_unit_test(batches_equal_single_queries),  cmocka_unit_test(collide_matches_brute_force),
        cmocka_unit_test(large_world_is_exact),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
