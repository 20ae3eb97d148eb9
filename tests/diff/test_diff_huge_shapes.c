/*
 * Huge shapes against single meshes (bvh.h, obbtree.h: shapes of any finite
 * size are answered exactly): on the test meshes, spheres, capsules, OBBs
 * and AABBs of sizes 1e6 .. 3.4e38 (the largest float) whose part near the
 * mesh is moderate, through the BVH and the OBB tree, against a double-precision
 * oracle run on each shape's MODERATE TWIN: the same shape cut down to a
 * region ten mesh sizes across, which meets exactly the same triangles (the
 * oracle's double arithmetic would round at the huge shape's scale):
 *   - a sphere, or a capsule of huge radius, centred on the mesh: everything;
 *   - a thin capsule from a point on the mesh out to a point `size` away in a
 *     random direction (its line passes exactly through the mesh, as no line
 *     with both ends far away can in float, but for the axis-aligned ones),
 *     or along a world axis with both ends `size` away (ends at +-3.4e38:
 *     b - a overflows float);
 *   - a thin slab (OBB of half extents size, thin, size on random axes)
 *     through a point of the mesh, or a box of huge half extents: everything;
 *   - an AABB huge on one side of each axis (a "half-space" corner through a
 *     point of the mesh), or +-FLT_MAX: everything.
 * Answers may differ from the oracle only inside the band of touching,
 * 1e-6 of the twin case's scale (docs/robustness.md, "Tolerances"); the callback, array
 * and any forms must agree. Shapes with an infinite field are invalid and
 * must match nothing (types.h). MQ_TEST_SEED changes the shapes,
 * MQ_HUGE_REPS the shapes per kind, size and mesh.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <float.h>

#include "oracle.h"
#include "test_diff_obbtree_common.h"

#if defined(__OPTIMIZE__)
#define SCALE_DOWN 1
#else
#define SCALE_DOWN 4
#endif

#define BAND 1e-6

typedef enum kind { SPHERE, CAPSULE, OBB, AABB, KINDS } kind;
static const char *const kind_names[KINDS] = {"sphere", "capsule", "obb", "aabb"};
/* BY_PRIM (the primitive on every triangle) is not a method judged here: the
 * primitives decide a huge shape at its own scale (primitives.h); it serves
 * the invalid-shape check. */
enum { BY_BVH, BY_TREE, METHODS, BY_PRIM = METHODS };
static const char *const method_names[METHODS + 1] = {"bvh", "obbtree", "primitive"};

typedef struct shape {
    kind k;
    union {
        mq_sphere s;
        mq_capsule c;
        mq_obb o;
        mq_aabb a;
    };
} shape;

/* The moderate twin, in double (ends and half extents need not be floats). */
typedef struct twin {
    kind k;
    bool everything; /* holds the whole mesh: the oracle is every triangle */
    oracle_v3 a, b;  /* sphere: a = centre; capsule: the axis */
    double r;
    oracle_box box; /* OBB and AABB */
} twin;

/* One mesh and what the oracle reads of it. */
typedef struct mesh_case {
    const char *name;
    mq_mesh *mesh;
    mq_bvh *bvh;
    mq_obbtree *tree;
    gen_tri_boxes tb;
    oracle_tri *ot;
    mq_aabb box;
    double D;
} mesh_case;

static size_t reps(void)
{
    const char *s = getenv("MQ_HUGE_REPS");
    return s && *s ? (size_t)strtoul(s, NULL, 10) : (SCALE_DOWN > 1 ? 1 : 3);
}

static const char *const meshes[] = {"suzanne.obj", "spot.obj", "teapot.obj", "fandisk.obj", "stanford-bunny.obj"};
#define MESH_COUNT (sizeof meshes / sizeof meshes[0])

static void mesh_case_load(const char *name, mesh_case *m)
{
    memset(m, 0, sizeof *m);
    m->name = name;
    m->mesh = mq_test_load_mesh(name);
    assert_int_equal(mq_bvh_build(m->mesh, NULL, &m->bvh, NULL), MQ_OK);
    assert_int_equal(mq_obbtree_build(m->mesh, NULL, &m->tree, NULL), MQ_OK);
    m->D = gen_bounds(m->mesh, &m->box);
    m->tb = gen_tri_boxes_make(m->mesh);
    m->ot = malloc(m->tb.count * sizeof *m->ot + 1);
    for (size_t i = 0; i < m->tb.count; i++)
        m->ot[i] = oracle_tri_from_mq(&m->tb.tris[i]);
}

static void mesh_case_free(mesh_case *m)
{
    free(m->ot);
    gen_tri_boxes_free(&m->tb);
    mq_obbtree_destroy(m->tree);
    mq_bvh_destroy(m->bvh);
    mq_mesh_destroy(m->mesh);
}

/* ------------------------------------------------------------------------- */
/* Shapes and their twins                                                    */
/* ------------------------------------------------------------------------- */

/* A point on a random triangle of the mesh (a corner, an edge or inside), in float. */
static void point_on_mesh(mq_test_rng *r, const mesh_case *m, float out[3])
{
    const mq_triangle *t = &m->tb.tris[mq_test_rng_u64(r) % m->tb.count];
    double u = mq_test_rng_unit(r), v = mq_test_rng_unit(r);
    if (u + v > 1.0)
        u = 1.0 - u, v = 1.0 - v;
    if (mq_test_rng_u64(r) % 4 == 0)
        u = v = 0.0;
    for (int k = 0; k < 3; k++)
        out[k] = (float)(t->v[0][k] + u * ((double)t->v[1][k] - t->v[0][k]) + v * ((double)t->v[2][k] - t->v[0][k]));
}

/* Half the time 0 (a line, a plane), else the sizes of docs/formats.md. */
static float thin_size(mq_test_rng *r, double D)
{
    return mq_test_rng_unit(r) < 0.2 ? 0.0f : gen_size(r, D);
}

static oracle_v3 v3d(const float v[3])
{
    return oracle_v3_f(v);
}

static void make_sphere(mq_test_rng *r, const mesh_case *m, double big, shape *s, twin *t)
{
    point_on_mesh(r, m, s->s.center);
    s->s.radius = (float)big;
    t->a = v3d(s->s.center);
    t->everything = true;
}

static void make_capsule(mq_test_rng *r, const mesh_case *m, double big, double reach, shape *s, twin *t)
{
    float p[3];
    double d[3];
    point_on_mesh(r, m, p);
    mq_test_rng_unit_vector(r, d);
    double u = mq_test_rng_unit(r);
    if (u < 0.25) { /* fat: a short axis on the mesh, a huge radius */
        for (int k = 0; k < 3; k++)
            s->c.a[k] = p[k], s->c.b[k] = (float)(p[k] + 0.1 * m->D * d[k]);
        s->c.radius = (float)big;
        t->everything = true;
        return;
    }
    s->c.radius = thin_size(r, m->D);
    t->r = s->c.radius;
    if (u < 0.6) { /* from the mesh out to `big` away: the line through p is exact */
        for (int k = 0; k < 3; k++)
            s->c.a[k] = p[k], s->c.b[k] = (float)(p[k] + big * d[k]);
        oracle_v3 a = v3d(s->c.a), dir = oracle_normalize(oracle_sub(v3d(s->c.b), a));
        t->a = a;
        t->b = oracle_madd(a, dir, reach);
        return;
    }
    /* along a world axis, both ends far: p's other two coordinates stay exact */
    int axis = (int)(mq_test_rng_u64(r) % 3);
    for (int k = 0; k < 3; k++)
        s->c.a[k] = s->c.b[k] = p[k];
    s->c.a[axis] = (float)(p[axis] - big);
    s->c.b[axis] = (float)(p[axis] + big);
    t->a = t->b = v3d(p);
    double *ta = &t->a.x, *tb = &t->b.x;
    ta[axis] -= reach;
    tb[axis] += reach;
}

static void make_obb(mq_test_rng *r, const mesh_case *m, double big, double reach, shape *s, twin *t)
{
    double q[4];
    mq_test_rng_quat(r, q);
    vec3 c, h = {(float)big, (float)big, (float)big};
    float qf[4] = {(float)q[0], (float)q[1], (float)q[2], (float)q[3]};
    point_on_mesh(r, m, c);
    bool slab = mq_test_rng_unit(r) < 0.8;
    int thin = (int)(mq_test_rng_u64(r) % 3);
    if (slab)
        h[thin] = thin_size(r, m->D);
    mq_obb_from_quat(c, h, qf, &s->o);
    t->everything = !slab;
    t->box = oracle_box_from_obb(&s->o);
    for (int i = 0; i < 3; i++)
        if (i != thin)
            t->box.h[i] = reach;
}

static void make_aabb(mq_test_rng *r, const mesh_case *m, double big, double reach, shape *s, twin *t)
{
    float c[3];
    point_on_mesh(r, m, c);
    if (mq_test_rng_unit(r) < 0.15) { /* everything, up to the largest floats */
        for (int k = 0; k < 3; k++)
            s->a.min[k] = -(float)big, s->a.max[k] = (float)big;
        t->everything = true;
        return;
    }
    mq_aabb tw;
    for (int k = 0; k < 3; k++) { /* one side huge, the other thin, on each axis */
        bool low = mq_test_rng_unit(r) < 0.5;
        float h = thin_size(r, m->D);
        s->a.min[k] = low ? (float)(c[k] - big) : c[k] - h;
        s->a.max[k] = low ? c[k] + h : (float)(c[k] + big);
        tw.min[k] = low ? (float)(c[k] - reach) : s->a.min[k];
        tw.max[k] = low ? s->a.max[k] : (float)(c[k] + reach);
    }
    t->box = oracle_box_from_aabb(&tw);
}

static void make_shape(mq_test_rng *r, const mesh_case *m, kind k, double big, shape *s, twin *t)
{
    double reach = 10.0 * m->D + 10.0 * fmax(oracle_maxabs(v3d(m->box.min)), oracle_maxabs(v3d(m->box.max)));
    memset(s, 0, sizeof *s);
    memset(t, 0, sizeof *t);
    s->k = t->k = k;
    switch (k) {
    case SPHERE:
        make_sphere(r, m, big, s, t);
        break;
    case CAPSULE:
        make_capsule(r, m, big, reach, s, t);
        break;
    case OBB:
        make_obb(r, m, big, reach, s, t);
        break;
    default:
        make_aabb(r, m, big, reach, s, t);
    }
}

/* ------------------------------------------------------------------------- */
/* Oracle                                                                    */
/* ------------------------------------------------------------------------- */

/* Signed separation of the twin and a triangle (negative: overlapping). */
static double twin_sep(const twin *t, const oracle_tri *tri)
{
    switch (t->k) {
    case SPHERE:
        return sqrt(oracle_dist2_point_triangle_direct(t->a, tri)) - t->r;
    case CAPSULE:
        return sqrt(oracle_dist2_segment_triangle_direct(t->a, t->b, tri)) - t->r;
    default: {
        oracle_hull hb = oracle_hull_box(&t->box), ht = oracle_hull_tri(tri);
        return oracle_separation(&hb, &ht, false, NULL);
    }
    }
}

static bool twin_overlaps(const twin *t, const oracle_tri *tri)
{
    switch (t->k) {
    case SPHERE:
        return oracle_dist2_point_triangle_direct(t->a, tri) <= t->r * t->r;
    case CAPSULE:
        return oracle_dist2_segment_triangle_direct(t->a, t->b, tri) <= t->r * t->r;
    default:
        return oracle_overlap_triangle_box(tri, &t->box);
    }
}

static void twin_bounds(const twin *t, double lo[3], double hi[3])
{
    if (t->k == SPHERE || t->k == CAPSULE) {
        double a[3] = {t->a.x, t->a.y, t->a.z}, b[3] = {t->b.x, t->b.y, t->b.z};
        for (int k = 0; k < 3; k++)
            lo[k] = fmin(a[k], b[k]) - t->r, hi[k] = fmax(a[k], b[k]) + t->r;
        return;
    }
    oracle_v3 v[8];
    oracle_box_vertices(&t->box, v);
    for (int k = 0; k < 3; k++)
        lo[k] = INFINITY, hi[k] = -INFINITY;
    for (int i = 0; i < 8; i++) {
        double p[3] = {v[i].x, v[i].y, v[i].z};
        for (int k = 0; k < 3; k++)
            lo[k] = fmin(lo[k], p[k]), hi[k] = fmax(hi[k], p[k]);
    }
}

/* The case's scale: the largest |coordinate| of the twin and the triangle. */
static double case_scale(const twin *t, const oracle_tri *tri)
{
    double lo[3], hi[3], s = 0.0;
    twin_bounds(t, lo, hi);
    for (int k = 0; k < 3; k++)
        s = fmax(s, fmax(fabs(lo[k]), fabs(hi[k])));
    for (int v = 0; v < 3; v++)
        s = fmax(s, oracle_maxabs(tri->v[v]));
    return s;
}

/* Every triangle the twin overlaps, ascending. */
static size_t oracle_all(const mesh_case *m, const twin *t, uint32_t *out)
{
    size_t n = 0;
    if (t->everything) {
        for (size_t i = 0; i < m->tb.count; i++)
            out[n++] = (uint32_t)i;
        return n;
    }
    double lo[3], hi[3];
    twin_bounds(t, lo, hi);
    double margin = 1e-5 * (1.0 + m->D);
    for (size_t i = 0; i < m->tb.count; i++) {
        const mq_aabb *b = &m->tb.boxes[i];
        bool near = true;
        for (int k = 0; k < 3; k++)
            near = near && b->min[k] <= hi[k] + margin && b->max[k] >= lo[k] - margin;
        if (near && twin_overlaps(t, &m->ot[i]))
            out[n++] = (uint32_t)i;
    }
    return n;
}

/* ------------------------------------------------------------------------- */
/* The implementation                                                        */
/* ------------------------------------------------------------------------- */

static bool prim(const shape *s, const mq_triangle *t)
{
    switch (s->k) {
    case SPHERE:
        return mq_overlap_sphere_triangle(&s->s, t);
    case CAPSULE:
        return mq_overlap_capsule_triangle(&s->c, t);
    case OBB:
        return mq_overlap_triangle_obb(t, &s->o);
    default:
        return mq_overlap_triangle_aabb(t, &s->a);
    }
}

static size_t by_bvh(const mq_bvh *b, const shape *s, uint32_t *out, size_t cap)
{
    switch (s->k) {
    case SPHERE:
        return mq_bvh_overlap_array(b, &(mq_shape){MQ_SHAPE_SPHERE, {.sphere = s->s}}, out, cap);
    case CAPSULE:
        return mq_bvh_overlap_array(b, &(mq_shape){MQ_SHAPE_CAPSULE, {.capsule = s->c}}, out, cap);
    case OBB:
        return mq_bvh_overlap_array(b, &(mq_shape){MQ_SHAPE_OBB, {.obb = s->o}}, out, cap);
    default:
        return mq_bvh_overlap_array(b, &(mq_shape){MQ_SHAPE_AABB, {.aabb = s->a}}, out, cap);
    }
}

static bool any_bvh(const mq_bvh *b, const shape *s)
{
    switch (s->k) {
    case SPHERE:
        return mq_bvh_overlap_any(b, &(mq_shape){MQ_SHAPE_SPHERE, {.sphere = s->s}});
    case CAPSULE:
        return mq_bvh_overlap_any(b, &(mq_shape){MQ_SHAPE_CAPSULE, {.capsule = s->c}});
    case OBB:
        return mq_bvh_overlap_any(b, &(mq_shape){MQ_SHAPE_OBB, {.obb = s->o}});
    default:
        return mq_bvh_overlap_any(b, &(mq_shape){MQ_SHAPE_AABB, {.aabb = s->a}});
    }
}

static size_t by_tree(const mq_obbtree *t, const shape *s, uint32_t *out, size_t cap)
{
    switch (s->k) {
    case SPHERE:
        return mq_obbtree_overlap_array(t, &(mq_shape){MQ_SHAPE_SPHERE, {.sphere = s->s}}, out, cap);
    case CAPSULE:
        return mq_obbtree_overlap_array(t, &(mq_shape){MQ_SHAPE_CAPSULE, {.capsule = s->c}}, out, cap);
    case OBB:
        return mq_obbtree_overlap_array(t, &(mq_shape){MQ_SHAPE_OBB, {.obb = s->o}}, out, cap);
    default:
        return mq_obbtree_overlap_array(t, &(mq_shape){MQ_SHAPE_AABB, {.aabb = s->a}}, out, cap);
    }
}

static bool any_tree(const mq_obbtree *t, const shape *s)
{
    switch (s->k) {
    case SPHERE:
        return mq_obbtree_overlap_any(t, &(mq_shape){MQ_SHAPE_SPHERE, {.sphere = s->s}});
    case CAPSULE:
        return mq_obbtree_overlap_any(t, &(mq_shape){MQ_SHAPE_CAPSULE, {.capsule = s->c}});
    case OBB:
        return mq_obbtree_overlap_any(t, &(mq_shape){MQ_SHAPE_OBB, {.obb = s->o}});
    default:
        return mq_obbtree_overlap_any(t, &(mq_shape){MQ_SHAPE_AABB, {.aabb = s->a}});
    }
}

/* The ids one method reports, ascending; false when its forms disagree. */
static bool implementation(const mesh_case *m, const shape *s, int method, uint32_t *out, size_t *n)
{
    size_t cap = m->tb.count;
    switch (method) {
    case BY_BVH:
        *n = by_bvh(m->bvh, s, out, cap);
        assert_true(*n <= cap);
        qsort(out, *n, sizeof *out, gen_cmp_u32);
        return any_bvh(m->bvh, s) == (*n > 0);
    case BY_TREE:
        *n = by_tree(m->tree, s, out, cap);
        assert_true(*n <= cap);
        qsort(out, *n, sizeof *out, gen_cmp_u32);
        return any_tree(m->tree, s) == (*n > 0);
    default:
        *n = 0;
        for (size_t i = 0; i < cap; i++)
            if (prim(s, &m->tb.tris[i]))
                out[(*n)++] = (uint32_t)i;
        return true;
    }
}

/* ------------------------------------------------------------------------- */
/* Judging                                                                   */
/* ------------------------------------------------------------------------- */

typedef struct tally {
    size_t queries, pairs, disagree, in_band, wrong, form_failures;
    double max_rel;
} tally;

static void print_shape(const shape *s)
{
    const float *f = (const float *)&s->s;
    size_t n = s->k == SPHERE ? 4 : s->k == CAPSULE ? 7 : s->k == OBB ? 15 : 6;
    fprintf(stderr, "    %s", kind_names[s->k]);
    for (size_t i = 0; i < n; i++)
        fprintf(stderr, " %a", (double)f[i]);
    fprintf(stderr, "\n");
}

/* Compares the sorted answer with the oracle's; each disagreement is judged
 * by the band. */
static void judge(const mesh_case *m, const shape *s, const twin *t, int method, const uint32_t *got, size_t ng,
                  const uint32_t *want, size_t nw, tally *ty)
{
    size_t i = 0, j = 0;
    while (i < ng || j < nw) {
        int c = i == ng ? 1 : j == nw ? -1 : (got[i] < want[j] ? -1 : got[i] > want[j]);
        if (c == 0) {
            i++, j++;
            continue;
        }
        uint32_t id = c < 0 ? got[i++] : want[j++];
        ty->disagree++;
        const oracle_tri *tri = &m->ot[id];
        if (c < 0 && !t->everything && twin_overlaps(t, tri)) /* skipped by the oracle's prefilter */
            continue;
        /* a shape holding the whole mesh holds every triangle deep inside */
        double rel = t->everything ? INFINITY : fabs(twin_sep(t, tri)) / case_scale(t, tri);
        ty->max_rel = fmax(ty->max_rel, rel);
        if (rel <= BAND) {
            ty->in_band++;
        } else if (ty->wrong++ < 4) {
            fprintf(stderr, "  WRONG %s %s on %s: triangle %u: %s %d, oracle %d (|sep|/scale %.3g)\n", kind_names[s->k],
                    method_names[method], m->name, id, method_names[method], c<0, c> 0, rel);
            print_shape(s);
        }
    }
}

static void huge_shapes_match_oracle(void **state)
{
    (void)state;
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(0x4B16E5));
    const double bigs[] = {1e6, 1e12, 1e18, 1e30, 1e37, 3.4e38};
    tally ty[KINDS][METHODS];
    memset(ty, 0, sizeof ty);
    size_t loaded = 0, n_reps = reps();
    for (size_t mi = 0; mi < MESH_COUNT; mi++) {
        if (SCALE_DOWN > 1 && strcmp(meshes[mi], "stanford-bunny.obj") == 0)
            continue; /* sanitizers: the smaller meshes are enough */
        mesh_case m;
        mesh_case_load(meshes[mi], &m);
        loaded++;
        uint32_t *got = malloc(m.tb.count * sizeof *got + 1), *want = malloc(m.tb.count * sizeof *want + 1);
        for (int k = 0; k < KINDS; k++)
            for (size_t b = 0; b < sizeof bigs / sizeof bigs[0]; b++)
                for (size_t rep = 0; rep < n_reps; rep++) {
                    shape s;
                    twin t;
                    make_shape(&rng, &m, (kind)k, bigs[b], &s, &t);
                    size_t nw = oracle_all(&m, &t, want);
                    for (int method = 0; method < METHODS; method++) {
                        size_t ng;
                        tally *y = &ty[k][method];
                        y->queries++;
                        y->pairs += nw;
                        if (!implementation(&m, &s, method, got, &ng))
                            y->form_failures++;
                        judge(&m, &s, &t, method, got, ng, want, nw, y);
                    }
                }
        free(got);
        free(want);
        mesh_case_free(&m);
    }
    size_t wrong = 0, forms = 0;
    for (int k = 0; k < KINDS; k++)
        for (int method = 0; method < METHODS; method++) {
            const tally *y = &ty[k][method];
            fprintf(stderr,
                    "  %-7s %-9s %zu queries, %zu pairs: disagreements %zu (in band %zu, max |sep|/scale %.2g), "
                    "wrong %zu, form failures %zu\n",
                    kind_names[k], method_names[method], y->queries, y->pairs, y->disagree, y->in_band, y->max_rel,
                    y->wrong, y->form_failures);
            wrong += y->wrong;
            forms += y->form_failures;
        }
    fprintf(stderr, "  %zu meshes; total wrong answers %zu, form failures %zu\n", loaded, wrong, forms);
    assert_int_equal(wrong, 0);
    assert_int_equal(forms, 0);
}

/* An infinite field makes a shape invalid (types.h): it matches nothing,
 * however much of the mesh its finite part would cover. */
static void infinite_shapes_match_nothing(void **state)
{
    (void)state;
    mesh_case m;
    mesh_case_load("spot.obj", &m);
    float c[3];
    for (int k = 0; k < 3; k++)
        c[k] = 0.5f * m.box.min[k] + 0.5f * m.box.max[k];
    shape s[5];
    memset(s, 0, sizeof s);
    s[0].k = SPHERE;
    memcpy(s[0].s.center, c, sizeof c);
    s[0].s.radius = INFINITY;
    s[1].k = CAPSULE;
    memcpy(s[1].c.a, c, sizeof c);
    memcpy(s[1].c.b, c, sizeof c);
    s[1].c.b[0] = INFINITY;
    s[2].k = OBB;
    mq_obb_from_quat(c, (vec3){INFINITY, 0.01f, INFINITY}, (const float[4]){1, 0, 0, 0}, &s[2].o);
    s[3].k = AABB; /* half-infinite */
    for (int k = 0; k < 3; k++)
        s[3].a.min[k] = -FLT_MAX, s[3].a.max[k] = FLT_MAX;
    s[3].a.max[1] = INFINITY;
    s[4].k = AABB; /* its finite twin sees the whole mesh */
    for (int k = 0; k < 3; k++)
        s[4].a.min[k] = -FLT_MAX, s[4].a.max[k] = FLT_MAX;
    uint32_t *got = malloc(m.tb.count * sizeof *got);
    for (int i = 0; i < 5; i++)
        for (int method = 0; method <= BY_PRIM; method++) {
            size_t n;
            assert_true(implementation(&m, &s[i], method, got, &n));
            assert_int_equal(n, i == 4 ? m.tb.count : 0);
        }
    free(got);
    mesh_case_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(huge_shapes_match_oracle),
        cmocka_unit_test(infinite_shapes_match_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
