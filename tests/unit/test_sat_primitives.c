/*
 * Separating-axis overlap tests: box–box, triangle–box, triangle–triangle and
 * 2D. Hand-made cases use exactly representable coordinates so "touching" is
 * exact; every overlapping case has a separated neighbour (and vice versa) so a
 * test fails if the answer is constant or off by more than the documented
 * tolerance. Each family ends with a randomized self-check against a simple,
 * independent method written here (edge clipping / integer SAT in exact
 * arithmetic); the 100k-case differential suite lives in tests/diff/.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <meshquery/meshquery.h>

#include "primitives/sat_internal.h"
#include "test_support.h"

static const double PI = 3.14159265358979323846;

/* Fails with the case index, so a randomized failure can be replayed. */
#define CHECK(cond, ...)                                                                                               \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            print_error(__VA_ARGS__);                                                                                  \
            print_error("\n");                                                                                         \
            fail_msg("%s", #cond);                                                                                     \
        }                                                                                                              \
    } while (0)

/* ------------------------------------------------------------------------- */
/* Constructors                                                               */
/* ------------------------------------------------------------------------- */

static mq_aabb aabb(float x0, float y0, float z0, float x1, float y1, float z1)
{
    mq_aabb b = {{x0, y0, z0}, {x1, y1, z1}};
    return b;
}

/* OBB with axes given as rows: axes[k] = (m[k][0], m[k][1], m[k][2]). */
static mq_obb obb_axes(float cx, float cy, float cz, float hx, float hy, float hz, const float m[3][3])
{
    mq_obb b;
    b.center[0] = cx, b.center[1] = cy, b.center[2] = cz;
    b.half[0] = hx, b.half[1] = hy, b.half[2] = hz;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            b.axes[i][j] = m[i][j];
    return b;
}

static const float IDENTITY[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
/* 90 degrees about z, exactly: x -> y, y -> -x. */
static const float ROT90Z[3][3] = {{0, 1, 0}, {-1, 0, 0}, {0, 0, 1}};

static mq_obb obb(float cx, float cy, float cz, float hx, float hy, float hz)
{
    return obb_axes(cx, cy, cz, hx, hy, hz, IDENTITY);
}

/* OBB rotated by `angle` radians about the unit axis (ax, ay, az). */
static mq_obb obb_rot(float cx, float cy, float cz, float hx, float hy, float hz, double angle, double ax, double ay,
                      double az)
{
    vec3 c = {cx, cy, cz}, h = {hx, hy, hz};
    double s = sin(angle / 2);
    float q[4] = {(float)cos(angle / 2), (float)(ax * s), (float)(ay * s), (float)(az * s)};
    mq_obb b;
    mq_obb_from_quat(c, h, q, &b);
    return b;
}

static mq_triangle tri(float ax, float ay, float az, float bx, float by, float bz, float cx, float cy, float cz)
{
    mq_triangle t = {{{ax, ay, az}, {bx, by, bz}, {cx, cy, cz}}};
    return t;
}

static mq_rect2 rect2(float cx, float cy, float hx, float hy, float ux, float uy, float vx, float vy)
{
    mq_rect2 r = {{cx, cy}, {hx, hy}, {{ux, uy}, {vx, vy}}};
    return r;
}

/* Both argument orders, for symmetric predicates. */
static bool tt(const mq_triangle *a, const mq_triangle *b)
{
    bool ab = mq_overlap_triangle_triangle(a, b), ba = mq_overlap_triangle_triangle(b, a);
    assert_true(ab == ba);
    return ab;
}

static bool oo(const mq_obb *a, const mq_obb *b)
{
    bool ab = mq_overlap_obb_obb(a, b), ba = mq_overlap_obb_obb(b, a);
    assert_true(ab == ba);
    return ab;
}

static bool rr(const mq_rect2 *a, const mq_rect2 *b)
{
    bool ab = mq_overlap_rect2_rect2(a, b), ba = mq_overlap_rect2_rect2(b, a);
    assert_true(ab == ba);
    return ab;
}

/* ------------------------------------------------------------------------- */
/* Independent double-precision oracles (clipping; no separating axes)         */
/* ------------------------------------------------------------------------- */

typedef struct dbox {
    double c[3], h[3], u[3][3];
} dbox;

static dbox dbox_of_obb(const mq_obb *b)
{
    dbox d;
    for (int i = 0; i < 3; i++) {
        d.c[i] = b->center[i];
        d.h[i] = b->half[i];
        for (int j = 0; j < 3; j++)
            d.u[i][j] = b->axes[i][j];
    }
    return d;
}

static double ddot(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* Corner `s` (bit k = sign along axis k) of the box grown by g. */
static void dbox_corner(const dbox *b, double g, int s, double out[3])
{
    for (int j = 0; j < 3; j++) {
        out[j] = b->c[j];
        for (int k = 0; k < 3; k++)
            out[j] += ((s >> k) & 1 ? 1.0 : -1.0) * (b->h[k] + g) * b->u[k][j];
    }
}

/* Liang–Barsky: does segment [p,q] meet the box grown by g (in its own frame)? */
static bool seg_meets_box(const double p[3], const double q[3], const dbox *b, double g)
{
    double t0 = 0.0, t1 = 1.0;
    for (int k = 0; k < 3; k++) {
        double dp[3] = {p[0] - b->c[0], p[1] - b->c[1], p[2] - b->c[2]};
        double dq[3] = {q[0] - p[0], q[1] - p[1], q[2] - p[2]};
        double o = ddot(b->u[k], dp), d = ddot(b->u[k], dq), h = b->h[k] + g;
        if (fabs(d) < 1e-300) {
            if (fabs(o) > h)
                return false;
            continue;
        }
        double ta = (-h - o) / d, tb = (h - o) / d;
        if (ta > tb) {
            double tmp = ta;
            ta = tb;
            tb = tmp;
        }
        t0 = fmax(t0, ta);
        t1 = fmin(t1, tb);
        if (t0 > t1)
            return false;
    }
    return true;
}

/* Does segment [p,q] cross triangle v (Cramer's rule; parallel counts as a miss)? */
static bool seg_meets_tri(const double p[3], const double q[3], double v[3][3])
{
    double e1[3], e2[3], d[3], s[3], h[3], qv[3];
    for (int j = 0; j < 3; j++) {
        e1[j] = v[1][j] - v[0][j];
        e2[j] = v[2][j] - v[0][j];
        d[j] = q[j] - p[j];
        s[j] = p[j] - v[0][j];
    }
    h[0] = d[1] * e2[2] - d[2] * e2[1];
    h[1] = d[2] * e2[0] - d[0] * e2[2];
    h[2] = d[0] * e2[1] - d[1] * e2[0];
    double det = ddot(e1, h);
    if (fabs(det) < 1e-12)
        return false;
    double u = ddot(s, h) / det;
    qv[0] = s[1] * e1[2] - s[2] * e1[1];
    qv[1] = s[2] * e1[0] - s[0] * e1[2];
    qv[2] = s[0] * e1[1] - s[1] * e1[0];
    double w = ddot(d, qv) / det, t = ddot(e2, qv) / det;
    return u >= 0 && w >= 0 && u + w <= 1 && t >= 0 && t <= 1;
}

static const int BOX_EDGES[12][2] = {{0, 1}, {2, 3}, {4, 5}, {6, 7}, {0, 2}, {1, 3},
                                     {4, 6}, {5, 7}, {0, 4}, {1, 5}, {2, 6}, {3, 7}};

/* Two convex solids meet iff an edge of one meets the other (a vertex of the
 * intersection lies on an edge of one of them). */
static bool oracle_box_box(const dbox *a, const dbox *b, double g)
{
    for (int pass = 0; pass < 2; pass++) {
        const dbox *x = pass ? b : a, *y = pass ? a : b;
        for (int e = 0; e < 12; e++) {
            double p[3], q[3];
            dbox_corner(x, g, BOX_EDGES[e][0], p);
            dbox_corner(x, g, BOX_EDGES[e][1], q);
            if (seg_meets_box(p, q, y, g))
                return true;
        }
    }
    return false;
}

static bool oracle_tri_box(double v[3][3], const dbox *b, double g)
{
    for (int i = 0; i < 3; i++)
        if (seg_meets_box(v[i], v[(i + 1) % 3], b, g))
            return true;
    for (int e = 0; e < 12; e++) {
        double p[3], q[3];
        dbox_corner(b, g, BOX_EDGES[e][0], p);
        dbox_corner(b, g, BOX_EDGES[e][1], q);
        if (seg_meets_tri(p, q, v))
            return true;
    }
    return false;
}

static void random_obb(mq_test_rng *rng, double spread, mq_obb *out)
{
    double q[4];
    mq_test_rng_quat(rng, q);
    vec3 c, h;
    for (int i = 0; i < 3; i++) {
        c[i] = (float)mq_test_rng_range(rng, -spread, spread);
        h[i] = (float)mq_test_rng_range(rng, 0.05, 1.5);
    }
    float qf[4] = {(float)q[0], (float)q[1], (float)q[2], (float)q[3]};
    mq_obb_from_quat(c, h, qf, out);
}

/* ------------------------------------------------------------------------- */
/* AABB–AABB                                                                  */
/* ------------------------------------------------------------------------- */

static void aabb_aabb_cases(void **state)
{
    (void)state;
    mq_aabb u = aabb(0, 0, 0, 1, 1, 1);
    mq_aabb cases_true[] = {
        aabb(1, 0, 0, 2, 1, 1),                      /* face touching */
        aabb(1, 1, 0, 2, 2, 1),                      /* edge touching */
        aabb(1, 1, 1, 2, 2, 2),                      /* vertex touching */
        aabb(0.5f, 0.5f, 0.5f, 3, 3, 3),             /* overlap */
        aabb(0.25f, 0.25f, 0.25f, 0.5f, 0.5f, 0.5f), /* inside */
        aabb(-1, -1, -1, 2, 2, 2),                   /* around */
        aabb(0, 0, 0, 1, 1, 1),                      /* identical */
        aabb(0.5f, 0.5f, 1, 0.5f, 0.5f, 1),          /* a point on the top face */
        aabb(-1, 0.5f, 0.5f, 2, 0.5f, 0.5f),         /* a segment through the box */
    };
    for (size_t i = 0; i < sizeof cases_true / sizeof cases_true[0]; i++) {
        CHECK(mq_overlap_aabb_aabb(&u, &cases_true[i]), "true case %zu", i);
        CHECK(mq_overlap_aabb_aabb(&cases_true[i], &u), "true case %zu swapped", i);
    }
    float above1 = nextafterf(1.0f, 2.0f);
    mq_aabb cases_false[] = {
        aabb(above1, 0, 0, 2, 1, 1), /* one ulp past face contact */
        aabb(above1, above1, above1, 2, 2, 2), aabb(0, 0, 3, 1, 1, 4),
        aabb(-2, -2, -2, -1, -1, -1),          aabb(0.5f, 0.5f, above1, 0.5f, 0.5f, above1),
    };
    for (size_t i = 0; i < sizeof cases_false / sizeof cases_false[0]; i++) {
        CHECK(!mq_overlap_aabb_aabb(&u, &cases_false[i]), "false case %zu", i);
        CHECK(!mq_overlap_aabb_aabb(&cases_false[i], &u), "false case %zu swapped", i);
    }
}

static void aabb_aabb_invalid(void **state)
{
    (void)state;
    mq_aabb u = aabb(0, 0, 0, 1, 1, 1);
    mq_aabb bad[] = {
        aabb(NAN, 0, 0, 1, 1, 1),      aabb(0, 0, 0, 1, NAN, 1),     aabb(-INFINITY, 0, 0, 1, 1, 1),
        aabb(0, 0, 0, INFINITY, 1, 1), aabb(0.6f, 0, 0, 0.4f, 1, 1), /* empty: min > max */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK(!mq_overlap_aabb_aabb(&u, &bad[i]), "invalid %zu", i);
        CHECK(!mq_overlap_aabb_aabb(&bad[i], &u), "invalid %zu swapped", i);
    }
    assert_false(mq_overlap_aabb_aabb(NULL, &u));
    assert_true(mq_overlap_aabb_aabb(&u, &u));
}

/* ------------------------------------------------------------------------- */
/* OBB–OBB and AABB–OBB                                                       */
/* ------------------------------------------------------------------------- */

static void obb_touching_exactly(void **state)
{
    (void)state;
    mq_obb a = obb(0, 0, 0, 1, 1, 1);
    float gap = nextafterf(2.0f, 3.0f);
    /* Face, edge and vertex contact with exact (axis-permuting) rotations. */
    mq_obb face = obb_axes(2, 0.5f, -0.25f, 1, 1, 1, ROT90Z);
    mq_obb edge = obb_axes(2, 2, 0.5f, 1, 1, 0.5f, ROT90Z);
    mq_obb vert = obb_axes(2, 2, 2, 1, 1, 1, ROT90Z);
    assert_true(oo(&a, &face));
    assert_true(oo(&a, &edge));
    assert_true(oo(&a, &vert));
    face.center[0] = gap;
    edge.center[1] = gap;
    vert.center[2] = gap;
    assert_false(oo(&a, &face));
    assert_false(oo(&a, &edge));
    assert_false(oo(&a, &vert));

    /* Flat boxes (zero half extent) are closed sets too. */
    mq_obb sheet = obb(0, 0, 1, 3, 3, 0);
    assert_true(oo(&a, &sheet));
    sheet.center[2] = nextafterf(1.0f, 2.0f);
    assert_false(oo(&a, &sheet));
    mq_obb point = obb(1, 1, 1, 0, 0, 0);
    assert_true(oo(&a, &point));
    point.center[0] = nextafterf(1.0f, 2.0f);
    assert_false(oo(&a, &point));
    assert_true(oo(&point, &point));
}

static void obb_containment_and_coincidence(void **state)
{
    (void)state;
    mq_obb a = obb_rot(1, 2, 3, 2, 3, 4, 0.7, 0.6, 0.8, 0);
    mq_obb inner = obb_rot(1.1f, 2.1f, 2.9f, 0.1f, 0.2f, 0.1f, 1.9, 0, 0, 1);
    assert_true(oo(&a, &a));
    assert_true(oo(&a, &inner));
    /* The same inner box far away is apart. */
    inner.center[0] = 20;
    assert_false(oo(&a, &inner));
}

/*
 * Two unit cubes: A turned 45° about z, B turned 45° about y. A's extreme
 * vertical edge (x = √2, y = 0) and B's extreme horizontal edge (x = c - √2,
 * z = 0) cross at right angles; for c slightly above 2√2 the only separating
 * axis is x = z × y, an edge-edge axis. The test proves that claim with its
 * own face-axis check before using it.
 */
static double face_axis_gap(const mq_obb *a, const mq_obb *b, const float *axis)
{
    double L[3] = {axis[0], axis[1], axis[2]}, t = 0, r = 0;
    for (int j = 0; j < 3; j++)
        t += ((double)b->center[j] - a->center[j]) * L[j];
    for (int k = 0; k < 3; k++) {
        double da = 0, db = 0;
        for (int j = 0; j < 3; j++) {
            da += (double)a->axes[k][j] * L[j];
            db += (double)b->axes[k][j] * L[j];
        }
        r += a->half[k] * fabs(da) + b->half[k] * fabs(db);
    }
    return fabs(t) - r;
}

static void obb_separated_only_by_edge_axis(void **state)
{
    (void)state;
    const float r = 0.70710678f;
    const float az[3][3] = {{r, r, 0}, {-r, r, 0}, {0, 0, 1}};
    const float ay[3][3] = {{r, 0, -r}, {0, 1, 0}, {r, 0, r}};
    const double contact = 2.0 * sqrt(2.0);
    for (int side = -1; side <= 1; side += 2) {
        double delta = side * 1e-3;
        mq_obb a = obb_axes(0, 0, 0, 1, 1, 1, az);
        mq_obb b = obb_axes((float)(contact + delta), 0, 0, 1, 1, 1, ay);
        for (int k = 0; k < 3; k++) {
            assert_true(face_axis_gap(&a, &b, a.axes[k]) < -0.5);
            assert_true(face_axis_gap(&a, &b, b.axes[k]) < -0.5);
        }
        CHECK(oo(&a, &b) == (side < 0), "side %d", side);
        /* Same through the AABB entry point, after turning the scene so A is axis-aligned. */
        mq_aabb ab = aabb(-1, -1, -1, 1, 1, 1);
        mq_obb b2 = obb_rot(0, 0, 0, 1, 1, 1, 0, 1, 0, 0);
        /* B's frame in A's frame: rotate by -45° about z. */
        double cz = cos(-PI / 4), sz = sin(-PI / 4);
        for (int k = 0; k < 3; k++) {
            double x = b.axes[k][0], y = b.axes[k][1];
            b2.axes[k][0] = (float)(cz * x - sz * y);
            b2.axes[k][1] = (float)(sz * x + cz * y);
            b2.axes[k][2] = b.axes[k][2];
        }
        b2.center[0] = (float)(cz * b.center[0]);
        b2.center[1] = (float)(sz * b.center[0]);
        b2.center[2] = 0;
        CHECK(mq_overlap_aabb_obb(&ab, &b2) == (side < 0), "aabb side %d", side);
    }
}

/*
 * Near-parallel edges: B is A's frame turned by at most 1e-6 rad about a random
 * axis, so the nine edge-edge axes are nearly degenerate (six nearly zero).
 * Centres are placed along A's axes at f * (hA + hB): |f| <= 0.99 overlaps
 * (by construction, far beyond any rounding), |f| = 1.01 on one axis is apart.
 * Ericson's float SAT without its epsilon on |R| calls about a quarter of the
 * overlapping pairs separated; we must get all of them, both ways.
 */
static void obb_near_parallel_edges(void **state)
{
    (void)state;
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(71));
    for (int n = 0; n < 3000; n++) {
        double q[4], u[3];
        mq_test_rng_quat(&rng, q);
        mq_test_rng_unit_vector(&rng, u);
        double angle = mq_test_rng_range(&rng, -1e-6, 1e-6), s = sin(angle / 2), w = cos(angle / 2);
        double dq[4] = {w, u[0] * s, u[1] * s, u[2] * s}; /* B's rotation: dq * q (w, x, y, z) */
        double qb[4] = {dq[0] * q[0] - dq[1] * q[1] - dq[2] * q[2] - dq[3] * q[3],
                        dq[0] * q[1] + dq[1] * q[0] + dq[2] * q[3] - dq[3] * q[2],
                        dq[0] * q[2] - dq[1] * q[3] + dq[2] * q[0] + dq[3] * q[1],
                        dq[0] * q[3] + dq[1] * q[2] - dq[2] * q[1] + dq[3] * q[0]};
        double base = n % 4 == 0 ? 0 : mq_test_rng_range(&rng, -100, 100);
        vec3 ca = {(float)base, (float)(0.5 * base), (float)-base}, ha, hb;
        for (int i = 0; i < 3; i++) {
            ha[i] = (float)exp(mq_test_rng_range(&rng, -3, 3));
            hb[i] = (float)exp(mq_test_rng_range(&rng, -3, 3));
        }
        float qa[4] = {(float)q[0], (float)q[1], (float)q[2], (float)q[3]};
        float qbf[4] = {(float)qb[0], (float)qb[1], (float)qb[2], (float)qb[3]};
        mq_obb a;
        mq_obb_from_quat(ca, ha, qa, &a);
        double f[3];
        for (int k = 0; k < 3; k++) {
            f[k] = mq_test_rng_range(&rng, -0.99, 0.99);
            if (n % 3 == 0) /* the faces nearly touch: the hardest case for the edge axes */
                f[k] = f[k] > 0 ? 0.99 : -0.99;
        }
        for (int pass = 0; pass < 2; pass++) {
            if (pass == 1)
                f[n % 3] = f[n % 3] > 0 ? 1.01 : -1.01;
            vec3 cb;
            for (int j = 0; j < 3; j++) {
                double c = ca[j];
                for (int k = 0; k < 3; k++)
                    c += f[k] * ((double)ha[k] + hb[k]) * a.axes[k][j];
                cb[j] = (float)c;
            }
            mq_obb b;
            mq_obb_from_quat(cb, hb, qbf, &b);
            CHECK(oo(&a, &b) == (pass == 0), "case %d pass %d", n, pass);
        }
    }
    /* Face contact with B turned about the contact normal: still exactly touching. */
    mq_obb a = obb(0, 0, 0, 1, 2, 3);
    mq_obb b = obb_rot(2, 0.5f, 0.25f, 1, 2, 3, 1e-7, 1, 0, 0);
    assert_true(b.axes[0][0] == 1.0f && b.axes[0][1] == 0.0f && b.axes[0][2] == 0.0f);
    assert_true(oo(&a, &b));
    b.center[0] = nextafterf(2.0f, 3.0f);
    assert_false(oo(&a, &b));
    /* Turned 1e-7 about y: B's near face tilts by 3e-7 into A. */
    b = obb_rot(2, 0, 0, 1, 2, 3, 1e-7, 0, 1, 0);
    assert_true(oo(&a, &b));
    b.center[0] = 2 + 1e-5f;
    assert_false(oo(&a, &b));
}

/* Gap of two boxes along an arbitrary axis, in double (independent of the library). */
static double axis_gap(const mq_obb *a, const mq_obb *b, const double L[3])
{
    double t = 0, r = 0;
    for (int j = 0; j < 3; j++)
        t += ((double)b->center[j] - a->center[j]) * L[j];
    for (int k = 0; k < 3; k++) {
        double da = 0, db = 0;
        for (int j = 0; j < 3; j++) {
            da += (double)a->axes[k][j] * L[j];
            db += (double)b->axes[k][j] * L[j];
        }
        r += a->half[k] * fabs(da) + b->half[k] * fabs(db);
    }
    return (fabs(t) - r) / sqrt(L[0] * L[0] + L[1] * L[1] + L[2] * L[2]);
}

/*
 * Separated ONLY along a nearly degenerate edge axis, by less than the rounding
 * band of the fast edge-axis evaluation: two rods of half length 10 and half
 * width 1; B is turned by 1e-7 rad about r = (0,1,1)/√2, so x_A x x_B ∝ r, and
 * B's tilt (10 * 1e-7 along y and z) keeps every face axis overlapping. B sits
 * along r just past contact. The test checks all of that itself.
 */
static void obb_separated_only_by_near_parallel_edges(void **state)
{
    (void)state;
    const double r = 0.70710678118654752;
    mq_obb a = obb(0, 0, 0, 10, 1, 1);
    mq_obb b = obb_rot(0, 0, 0, 10, 1, 1, 1e-7, 0, r, r);
    double L[3];
    for (int k = 0; k < 3; k++) /* x_A x x_B, exact in double */
        L[k] = (double)a.axes[0][(k + 1) % 3] * b.axes[0][(k + 2) % 3] -
               (double)a.axes[0][(k + 2) % 3] * b.axes[0][(k + 1) % 3];
    /* Contact along r is at centre (0, 2, 2); walk B out one float step at a
     * time to the first separated position. */
    float c = 1.9999f;
    b.center[1] = b.center[2] = c;
    for (int step = 0; step < 10000 && axis_gap(&a, &b, L) <= 0; step++) {
        c = nextafterf(c, 3.0f);
        b.center[1] = b.center[2] = c;
    }
    double gap = axis_gap(&a, &b, L);
    assert_true(gap > 0 && gap < 1e-6);
    int separating = 0;
    for (int i = 0; i < 3; i++) {
        double n[3];
        for (int j = 0; j < 3; j++)
            n[j] = a.axes[i][j];
        separating += axis_gap(&a, &b, n) > 0;
        for (int j = 0; j < 3; j++)
            n[j] = b.axes[i][j];
        separating += axis_gap(&a, &b, n) > 0;
        for (int j = 0; j < 3; j++) {
            double x[3];
            for (int k = 0; k < 3; k++)
                x[k] = (double)a.axes[i][(k + 1) % 3] * b.axes[j][(k + 2) % 3] -
                       (double)a.axes[i][(k + 2) % 3] * b.axes[j][(k + 1) % 3];
            if (x[0] != 0 || x[1] != 0 || x[2] != 0)
                separating += axis_gap(&a, &b, x) > 0;
        }
    }
    assert_int_equal(separating, 1);
    assert_false(oo(&a, &b));
    /* One step back they touch or overlap. */
    b.center[1] = b.center[2] = nextafterf(c, 0.0f);
    assert_true(oo(&a, &b));
}

static void obb_invalid(void **state)
{
    (void)state;
    mq_obb good = obb(0, 0, 0, 1, 1, 1);
    mq_obb bad[7];
    for (int i = 0; i < 7; i++)
        bad[i] = good;
    bad[0].center[1] = NAN;
    bad[1].half[2] = -0.5f;
    bad[2].half[0] = INFINITY;
    bad[3].axes[0][0] = 1.01f;                                     /* not unit */
    bad[4].axes[1][0] = 0.01f;                                     /* not orthogonal: |dot| = 0.01 */
    bad[5].axes[2][0] = bad[5].axes[2][1] = bad[5].axes[2][2] = 0; /* zero axis */
    bad[6].axes[1][2] = NAN;
    for (int i = 0; i < 7; i++) {
        CHECK(!mq_overlap_obb_obb(&good, &bad[i]), "invalid %d", i);
        CHECK(!mq_overlap_obb_obb(&bad[i], &good), "invalid %d swapped", i);
        mq_aabb u = aabb(-1, -1, -1, 1, 1, 1);
        CHECK(!mq_overlap_aabb_obb(&u, &bad[i]), "aabb vs invalid %d", i);
    }
    mq_aabb empty = aabb(0, 0, 0, -1, 1, 1), nan_box = aabb(0, 0, 0, NAN, 1, 1);
    assert_false(mq_overlap_aabb_obb(&empty, &good));
    assert_false(mq_overlap_aabb_obb(&nan_box, &good));
    assert_false(mq_overlap_obb_obb(NULL, &good));
    assert_true(mq_overlap_obb_obb(&good, &good));

    /* Within MQ_OBB_AXIS_TOLERANCE the box is valid and is the parallelepiped its
     * axes span: here axis 2 leans by 2^-11 toward x, so the top face's corner
     * (1 + 2^-11, 1, 1) is in the box and (1 + 2^-10, 1, 1) is not. */
    mq_obb lean = good;
    lean.axes[2][0] = 0x1p-11f;
    assert_true(mq_obb_is_valid(&lean));
    mq_obb probe = obb(1 + 0x1p-11f + 0.5f, 1, 1, 0.5f, 0, 0);
    assert_true(oo(&lean, &probe));
    probe.center[0] = nextafterf(1 + 0x1p-11f, 2.0f) + 0.5f;
    assert_false(oo(&lean, &probe));
}

/*
 * A sheared box (axis 2 leans by 2^-11, within MQ_OBB_AXIS_TOLERANCE) is the
 * parallelepiped its axes span. A point 3.7e-4 outside its leaning face is
 * inside the slab of axes[0], and the probe's own axes are turned, so only the
 * true face normal axes[1] x axes[2] can separate it.
 */
static void obb_sheared_face_normal(void **state)
{
    (void)state;
    mq_obb lean = obb(0, 0, 0, 1, 1, 1);
    lean.axes[2][0] = 0x1p-11f;
    assert_true(mq_obb_is_valid(&lean));
    mq_obb out = obb_rot(1 + 0x1p-13f, 0, -0.5f, 0, 0, 0, 0.9, 0.48, 0.6, 0.64);
    mq_obb in = out;
    in.center[0] = 1 - 0x1p-11f; /* the face is at x = 1 - 2^-12 there */
    assert_false(oo(&lean, &out));
    assert_true(oo(&lean, &in));
    mq_triangle tout = tri(out.center[0], 0, -0.5f, out.center[0], 0, -0.5f, out.center[0], 0, -0.5f);
    mq_triangle tin = tri(in.center[0], 0, -0.5f, in.center[0], 0, -0.5f, in.center[0], 0, -0.5f);
    assert_false(mq_overlap_triangle_obb(&tout, &lean));
    assert_true(mq_overlap_triangle_obb(&tin, &lean));
}

/* AABB–OBB agrees with AABB–AABB on world-axis boxes and with OBB–OBB after an exact conversion. */
static void aabb_obb_consistency(void **state)
{
    (void)state;
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(72));
    int hits = 0;
    for (int n = 0; n < 2000; n++) {
        float v[12];
        for (int i = 0; i < 12; i++) /* quarter-integers: exact centres, frequent touching */
            v[i] = (float)floor(mq_test_rng_range(&rng, -8, 9)) / 4.0f;
        mq_aabb a = aabb(fminf(v[0], v[3]), fminf(v[1], v[4]), fminf(v[2], v[5]), fmaxf(v[0], v[3]), fmaxf(v[1], v[4]),
                         fmaxf(v[2], v[5]));
        mq_aabb b = aabb(fminf(v[6], v[9]), fminf(v[7], v[10]), fminf(v[8], v[11]), fmaxf(v[6], v[9]),
                         fmaxf(v[7], v[10]), fmaxf(v[8], v[11]));
        mq_obb ob, oa;
        mq_obb_from_aabb(&b, &ob);
        mq_obb_from_aabb(&a, &oa);
        bool expect = mq_overlap_aabb_aabb(&a, &b);
        hits += expect;
        CHECK(mq_overlap_aabb_obb(&a, &ob) == expect, "case %d", n);
        CHECK(oo(&oa, &ob) == expect, "case %d obb", n);
    }
    assert_true(hits > 200 && hits < 1800);
}

static void obb_random_vs_clipping(void **state)
{
    (void)state;
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(73));
    int counts[2] = {0, 0}, skipped = 0;
    for (int n = 0; n < 4000; n++) {
        mq_obb a, b;
        random_obb(&rng, 1.5, &a);
        random_obb(&rng, 1.5, &b);
        dbox da = dbox_of_obb(&a), db = dbox_of_obb(&b);
        bool lo = oracle_box_box(&da, &db, -1e-4), hi = oracle_box_box(&da, &db, 1e-4);
        if (lo != hi) {
            skipped++;
            continue;
        }
        counts[lo]++;
        CHECK(oo(&a, &b) == lo, "case %d: expected %d", n, lo);
        if (n % 4 == 0) { /* the AABB entry point, with A's world bounds as the AABB */
            mq_aabb wa = aabb(a.center[0] - a.half[0], a.center[1] - a.half[1], a.center[2] - a.half[2],
                              a.center[0] + a.half[0], a.center[1] + a.half[1], a.center[2] + a.half[2]);
            mq_obb ow;
            mq_obb_from_aabb(&wa, &ow);
            dbox dw = dbox_of_obb(&ow);
            bool wlo = oracle_box_box(&dw, &db, -1e-4), whi = oracle_box_box(&dw, &db, 1e-4);
            if (wlo == whi)
                CHECK(mq_overlap_aabb_obb(&wa, &b) == wlo, "case %d aabb: expected %d", n, wlo);
        }
    }
    assert_true(counts[0] > 500 && counts[1] > 500);
    assert_true(skipped < 100);
}

/* The internal entry point: `slack` makes the test keep boxes that are that close. */
static void sat_box_slack(void **state)
{
    (void)state;
    mq_obb a = obb(0, 0, 0, 1, 1, 1), b = obb_rot(2.01f, 0, 0, 1, 1, 1, 0.3, 1, 0, 0);
    mq_sat_box sa, sb;
    mq_sat_box_from_obb(&a, &sa);
    mq_sat_box_from_obb(&b, &sb);
    assert_false(mq_sat_box_box(&sa, &sb));
    sa.slack = 0.02; /* B's nearest point is 0.01 away along x */
    assert_true(mq_sat_box_box(&sa, &sb));
    sa.slack = 0.002;
    assert_false(mq_sat_box_box(&sa, &sb));
}

/* ------------------------------------------------------------------------- */
/* Triangle–box                                                               */
/* ------------------------------------------------------------------------- */

static void triangle_aabb_cases(void **state)
{
    (void)state;
    mq_aabb box = aabb(-1, -1, -1, 1, 1, 1);
    struct {
        mq_triangle t;
        bool expect;
    } cases[] = {
        {tri(0, 0, 0, 0.5f, 0, 0, 0, 0.5f, 0), true},                          /* inside */
        {tri(-5, -5, 0, 5, -5, 0, 0, 5, 0), true},                             /* slices through, no vertex inside */
        {tri(-5, -5, 1, 5, -5, 1, 0, 5, 1), true},                             /* lies on the top face plane */
        {tri(-5, -5, 1.0078125f, 5, -5, 1.0078125f, 0, 5, 1.0078125f), false}, /* just above it */
        {tri(0, 0, 1, -1, -1, 3, 1, -1, 3), true},                             /* vertex touching the top face */
        {tri(0, 0, 1.0078125f, -1, -1, 3, 1, -1, 3), false},
        {tri(2, 0, -3, 2, 0, 3, 0, 2, 0), true}, /* edge x+y=2 touches box edge (1,1,z) */
        {tri(2.0078125f, 0, -3, 2.0078125f, 0, 3, 0, 2.0078125f, 0), false},
        {tri(3, 0, 0, 0, 3, 0, 0, 0, 3), true},                             /* plane x+y+z=3 touches corner (1,1,1) */
        {tri(3.0078125f, 0, 0, 0, 3.0078125f, 0, 0, 0, 3.0078125f), false}, /* only the normal separates */
        {tri(-3, -3, -3, 3, 3, 3, 3, 3, 3.5f), true},                       /* pierced by one edge */
        {tri(5, 5, 5, 6, 5, 5, 5, 6, 5), false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        CHECK(mq_overlap_triangle_aabb(&cases[i].t, &box) == cases[i].expect, "case %zu", i);
}

/*
 * Triangle in z = 0 whose edge runs along direction (1,-1,0) past the box edge
 * (1,1,z) at x + y = 2 + d. The box normals and the triangle normal all see
 * overlap; only edge x box-axis (1,-1,0) x z separates when d > 0.
 */
static void triangle_aabb_separated_only_by_edge_axis(void **state)
{
    (void)state;
    mq_aabb box = aabb(-1, -1, -1, 1, 1, 1);
    const float ds[] = {-0.0078125f, 0.0f, 0.0078125f};
    for (int i = 0; i < 3; i++) {
        float d = ds[i];
        mq_triangle t = tri(3, -1 + d, 0, -1 + d, 3, 0, 3, 3, 0);
        CHECK(mq_overlap_triangle_aabb(&t, &box) == (d <= 0), "d = %g", (double)d);
        mq_obb ob;
        mq_obb_from_aabb(&box, &ob);
        CHECK(mq_overlap_triangle_obb(&t, &ob) == (d <= 0), "obb d = %g", (double)d);
    }
}

static void triangle_box_degenerate(void **state)
{
    (void)state;
    mq_aabb box = aabb(-1, -1, -1, 1, 1, 1);
    /* Segments (two equal vertices, or three collinear). */
    mq_triangle seg_through = tri(-3, 0.5f, 0.5f, 3, 0.5f, 0.5f, 3, 0.5f, 0.5f);
    mq_triangle seg_collinear = tri(-3, -3, 0, 0, 0, 0, 3, 3, 0);
    /* Passes the box edge (1,1,z) at x + y = 2 + d: only segment x z separates. */
    mq_triangle seg_touch = tri(3, -1, 0, -1, 3, 0, 1, 1, 0);
    mq_triangle seg_miss = tri(3, -0.9921875f, 0, -0.9921875f, 3, 0, -0.9921875f, 3, 0);
    mq_triangle point_in = tri(1, 1, 1, 1, 1, 1, 1, 1, 1);
    mq_triangle point_out = tri(1, 1, 1.0078125f, 1, 1, 1.0078125f, 1, 1, 1.0078125f);
    assert_true(mq_overlap_triangle_aabb(&seg_through, &box));
    assert_true(mq_overlap_triangle_aabb(&seg_collinear, &box));
    assert_true(mq_overlap_triangle_aabb(&seg_touch, &box));
    assert_false(mq_overlap_triangle_aabb(&seg_miss, &box));
    assert_true(mq_overlap_triangle_aabb(&point_in, &box));
    assert_false(mq_overlap_triangle_aabb(&point_out, &box));
    /* A segment parallel to a box edge, 2^-7 outside it on the diagonal. */
    mq_triangle seg_par = tri(1.0078125f, 1, -5, 1.0078125f, 1, 5, 1.0078125f, 1, 5);
    assert_false(mq_overlap_triangle_aabb(&seg_par, &box));
    seg_par.v[0][0] = seg_par.v[1][0] = seg_par.v[2][0] = 1;
    assert_true(mq_overlap_triangle_aabb(&seg_par, &box));
    /* Flat and point boxes. */
    mq_aabb flat = aabb(-1, -1, 0, 1, 1, 0), dot = aabb(0.25f, 0.25f, 0, 0.25f, 0.25f, 0);
    mq_triangle t = tri(-2, -2, -1, 2, -2, 1, 0, 2, 0);
    assert_true(mq_overlap_triangle_aabb(&t, &flat));
    mq_triangle t2 = tri(0, 0, 0, 1, 0, 0, 0, 1, 0);
    assert_true(mq_overlap_triangle_aabb(&t2, &dot));
    dot.min[2] = dot.max[2] = 0x1p-20f;
    assert_false(mq_overlap_triangle_aabb(&t2, &dot));
}

static void triangle_obb_cases(void **state)
{
    (void)state;
    /* Cube turned 45° about z: its corner reaches x = √2 ≈ 1.41421. */
    mq_obb box = obb_rot(0, 0, 0, 1, 1, 1, PI / 4, 0, 0, 1);
    mq_triangle near = tri(1.414f, -1, -1, 1.414f, 1, 0, 1.414f, -1, 1);
    mq_triangle far = tri(1.4143f, -1, -1, 1.4143f, 1, 0, 1.4143f, -1, 1);
    assert_true(mq_overlap_triangle_obb(&near, &box));
    assert_false(mq_overlap_triangle_obb(&far, &box));
    /* Touching a face exactly with exact axes. */
    mq_obb b90 = obb_axes(0, 0, 0, 1, 2, 3, ROT90Z); /* world extents 2 x 1 x 3 */
    mq_triangle on = tri(2, -5, -5, 2, 5, -5, 2, 0, 5);
    mq_triangle off = tri(2.0078125f, -5, -5, 2.0078125f, 5, -5, 2.0078125f, 0, 5);
    assert_true(mq_overlap_triangle_obb(&on, &b90));
    assert_false(mq_overlap_triangle_obb(&off, &b90));
    /* Invalid input. */
    mq_triangle nan_tri = tri(0, 0, NAN, 1, 0, 0, 0, 1, 0), inf_tri = tri(0, 0, 0, INFINITY, 0, 0, 0, 1, 0);
    mq_triangle ok = tri(0, 0, 0, 1, 0, 0, 0, 1, 0);
    mq_obb bad = box;
    bad.half[1] = -1;
    mq_aabb u = aabb(-1, -1, -1, 1, 1, 1), empty = aabb(1, -1, -1, -1, 1, 1);
    assert_false(mq_overlap_triangle_obb(&nan_tri, &box));
    assert_false(mq_overlap_triangle_obb(&inf_tri, &box));
    assert_false(mq_overlap_triangle_obb(&ok, &bad));
    assert_false(mq_overlap_triangle_aabb(&nan_tri, &u));
    assert_false(mq_overlap_triangle_aabb(&ok, &empty));
    assert_false(mq_overlap_triangle_aabb(NULL, &u));
    assert_true(mq_overlap_triangle_aabb(&ok, &u));
    assert_true(mq_overlap_triangle_obb(&ok, &box));
}

static void triangle_box_random_vs_clipping(void **state)
{
    (void)state;
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(74));
    int counts[2] = {0, 0}, skipped = 0;
    for (int n = 0; n < 4000; n++) {
        mq_obb b;
        random_obb(&rng, 0.5, &b);
        mq_triangle t;
        double v[3][3];
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) {
                /* Sometimes a sliver or a segment. */
                double x = mq_test_rng_range(&rng, -2.5, 2.5);
                if (n % 7 == 0 && i == 2)
                    x = 0.5 * (v[0][j] + v[1][j]);
                t.v[i][j] = (float)x;
                v[i][j] = t.v[i][j];
            }
        dbox db = dbox_of_obb(&b);
        bool lo = oracle_tri_box(v, &db, -1e-4), hi = oracle_tri_box(v, &db, 1e-4);
        if (lo != hi) {
            skipped++;
            continue;
        }
        counts[lo]++;
        CHECK(mq_overlap_triangle_obb(&t, &b) == lo, "case %d: expected %d", n, lo);
        /* And against the box's world-aligned bounds through the AABB entry point. */
        mq_aabb wa = aabb(b.center[0] - b.half[0], b.center[1] - b.half[1], b.center[2] - b.half[2],
                          b.center[0] + b.half[0], b.center[1] + b.half[1], b.center[2] + b.half[2]);
        mq_obb ow;
        mq_obb_from_aabb(&wa, &ow);
        dbox dw = dbox_of_obb(&ow);
        bool wlo = oracle_tri_box(v, &dw, -1e-4), whi = oracle_tri_box(v, &dw, 1e-4);
        if (wlo == whi)
            CHECK(mq_overlap_triangle_aabb(&t, &wa) == wlo, "case %d aabb: expected %d", n, wlo);
    }
    assert_true(counts[0] > 500 && counts[1] > 500);
    assert_true(skipped < 100);
}

/* ------------------------------------------------------------------------- */
/* Triangle–triangle                                                          */
/* ------------------------------------------------------------------------- */

static void tri_tri_general_position(void **state)
{
    (void)state;
    mq_triangle a = tri(0, 0, 0, 4, 0, 0, 0, 4, 0);
    /* Crossing: B pierces A's interior. */
    mq_triangle pierce = tri(1, 1, -1, 1, 1, 1, 2, 0.5f, 1);
    assert_true(tt(&a, &pierce));
    /* Apart: above A's plane. */
    mq_triangle above = tri(1, 1, 0.5f, 2, 1, 1, 1, 2, 1);
    assert_false(tt(&a, &above));
    /* Vertex of B touching A's face interior. */
    mq_triangle vtx = tri(1, 1, 0, 2, 1, 1, 1, 2, 1);
    assert_true(tt(&a, &vtx));
    vtx.v[0][2] = 0x1p-20f;
    assert_false(tt(&a, &vtx));
    /* Edge of B crossing edge of A (a single point) with B otherwise above. */
    mq_triangle xedge = tri(2, -1, 0, 2, 1, 0, 2, 0, 3);
    assert_true(tt(&a, &xedge));
    xedge.v[0][2] = xedge.v[1][2] = 0x1p-20f;
    assert_false(tt(&a, &xedge));
    /* Shared vertex only. */
    mq_triangle shared = tri(4, 0, 0, 5, 0, 1, 5, 1, 1);
    assert_true(tt(&a, &shared));
    /* Edge lying in A's plane, crossing A. */
    mq_triangle in_plane_edge = tri(-1, 1, 0, 5, 1, 0, 2, 1, 3);
    assert_true(tt(&a, &in_plane_edge));
    /* Edge in A's plane but outside A (beyond the hypotenuse). */
    mq_triangle in_plane_out = tri(3, 3, 0, 5, 1.5f, 0, 4, 4, 3);
    assert_false(tt(&a, &in_plane_out));
    /* B's line passes A's plane inside A, but B's segment stops short. */
    mq_triangle short_of = tri(1, 1, 0.25f, 1, 1, 2, 2, 2, 2);
    assert_false(tt(&a, &short_of));
    /* Triangles crossing like a chain link: each pierces the other. */
    mq_triangle link = tri(1, -1, -1, 1, -1, 1, 1, 3, 0);
    assert_true(tt(&a, &link));
    /* Parallel planes. */
    mq_triangle par = tri(0, 0, 1, 4, 0, 1, 0, 4, 1);
    assert_false(tt(&a, &par));
}

static void tri_tri_coplanar(void **state)
{
    (void)state;
    mq_triangle a = tri(0, 0, 0, 4, 0, 0, 0, 4, 0);
    struct {
        mq_triangle b;
        bool expect;
    } cases[] = {
        {tri(1, 1, 0, 5, 1, 0, 1, 5, 0), true},                 /* overlapping */
        {tri(3, 3, 0, 6, 3, 0, 3, 6, 0), false},                /* disjoint, beyond the hypotenuse */
        {tri(2, 2, 0, 6, 2, 0, 2, 6, 0), true},                 /* vertex on the hypotenuse */
        {tri(4, 0, 0, 8, 0, 0, 4, 4, 0), true},                 /* shared vertex (4,0) */
        {tri(0, 0, 0, 4, 0, 0, 2, -3, 0), true},                /* shared edge, other side */
        {tri(0, 0, 0, 4, 0, 0, 0, 4, 0), true},                 /* identical */
        {tri(0.5f, 0.5f, 0, 1, 0.5f, 0, 0.5f, 1, 0), true},     /* inside */
        {tri(-10, -10, 0, 20, -10, 0, -10, 20, 0), true},       /* around */
        {tri(1, -1, 0, 2, -1, 0, 1.5f, -0.0078125f, 0), false}, /* just below the x axis */
        {tri(1, -1, 0, 2, -1, 0, 1.5f, 0, 0), true},            /* touching it from below */
        {tri(-1, 2, 0, 5, 2, 0, 5, 2.5f, 0), true},             /* edge crossing two edges, no vertex inside */
        {tri(2.5f, 2.5f, 0, 3, 2.5f, 0, 2.5f, 3, 0), false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        CHECK(tt(&a, &cases[i].b) == cases[i].expect, "case %zu", i);
    /* The same in planes tilted so that no coordinate is constant: z = x - 2y. */
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        mq_triangle ta = a, tb = cases[i].b;
        for (int k = 0; k < 3; k++) {
            ta.v[k][2] = ta.v[k][0] - 2 * ta.v[k][1];
            tb.v[k][2] = tb.v[k][0] - 2 * tb.v[k][1];
        }
        CHECK(tt(&ta, &tb) == cases[i].expect, "tilted case %zu", i);
    }
}

static void tri_tri_degenerate(void **state)
{
    (void)state;
    mq_triangle a = tri(0, 0, 0, 4, 0, 0, 0, 4, 0);
    /* Segments (two forms: repeated vertex, three collinear points). */
    mq_triangle seg_pierce = tri(1, 1, -1, 1, 1, 1, 1, 1, 1);
    mq_triangle seg_pierce3 = tri(1, 1, -1, 1, 1, 0.5f, 1, 1, 2);
    mq_triangle seg_miss = tri(3, 3, -1, 3, 3, 1, 3, 3, 1);
    mq_triangle seg_in_plane = tri(-1, 1, 0, 5, 1, 0, 2, 1, 0);
    mq_triangle seg_in_plane_out = tri(3, 3, 0, 5, 1.5f, 0, 4, 2.25f, 0);
    mq_triangle seg_touch_edge = tri(2, 2, 0, 3, 3, 0, 3, 3, 0); /* endpoint on the hypotenuse */
    mq_triangle seg_end_on_face = tri(1, 1, 0, 1, 1, 3, 1, 1, 3);
    mq_triangle seg_end_above = tri(1, 1, 0x1p-20f, 1, 1, 3, 1, 1, 3);
    assert_true(tt(&a, &seg_pierce));
    assert_true(tt(&a, &seg_pierce3));
    assert_false(tt(&a, &seg_miss));
    assert_true(tt(&a, &seg_in_plane));
    assert_false(tt(&a, &seg_in_plane_out));
    assert_true(tt(&a, &seg_touch_edge));
    assert_true(tt(&a, &seg_end_on_face));
    assert_false(tt(&a, &seg_end_above));
    /* Points. */
    mq_triangle p_in = tri(1, 1, 0, 1, 1, 0, 1, 1, 0), p_edge = tri(2, 2, 0, 2, 2, 0, 2, 2, 0);
    mq_triangle p_vertex = tri(4, 0, 0, 4, 0, 0, 4, 0, 0),
                p_out = tri(2.0078125f, 2, 0, 2.0078125f, 2, 0, 2.0078125f, 2, 0);
    mq_triangle p_above = tri(1, 1, 0x1p-20f, 1, 1, 0x1p-20f, 1, 1, 0x1p-20f);
    assert_true(tt(&a, &p_in));
    assert_true(tt(&a, &p_edge));
    assert_true(tt(&a, &p_vertex));
    assert_false(tt(&a, &p_out));
    assert_false(tt(&a, &p_above));
    /* Segment vs segment, point vs segment, point vs point. */
    mq_triangle s1 = tri(0, 0, 0, 2, 2, 2, 2, 2, 2);
    mq_triangle s_cross = tri(0, 2, 2, 2, 0, 0, 2, 0, 0); /* crosses s1 at (1,1,1) */
    mq_triangle s_skew = tri(0, 2, 2.0078125f, 2, 0, 0.0078125f, 2, 0, 0.0078125f);
    mq_triangle s_collinear_overlap = tri(1, 1, 1, 3, 3, 3, 3, 3, 3);
    mq_triangle s_collinear_touch = tri(2, 2, 2, 3, 3, 3, 3, 3, 3);
    mq_triangle s_collinear_apart = tri(2.0078125f, 2.0078125f, 2.0078125f, 3, 3, 3, 3, 3, 3);
    mq_triangle s_parallel = tri(0, 0, 1, 2, 2, 3, 2, 2, 3);
    mq_triangle pt_on = tri(0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f);
    mq_triangle pt_off = tri(0.5f, 0.5f, 0.5078125f, 0.5f, 0.5f, 0.5078125f, 0.5f, 0.5f, 0.5078125f);
    mq_triangle pt_beyond =
        tri(2.0078125f, 2.0078125f, 2.0078125f, 2.0078125f, 2.0078125f, 2.0078125f, 2.0078125f, 2.0078125f, 2.0078125f);
    assert_true(tt(&s1, &s_cross));
    assert_false(tt(&s1, &s_skew));
    assert_true(tt(&s1, &s_collinear_overlap));
    assert_true(tt(&s1, &s_collinear_touch));
    assert_false(tt(&s1, &s_collinear_apart));
    assert_false(tt(&s1, &s_parallel));
    assert_true(tt(&s1, &pt_on));
    assert_false(tt(&s1, &pt_off));
    assert_false(tt(&s1, &pt_beyond));
    assert_true(tt(&pt_on, &pt_on));
    assert_false(tt(&pt_on, &pt_off));
    /* Collinear points along an axis where the hull ends are not v0/v1. */
    mq_triangle mixed = tri(1, 1, 1, 0, 0, 0, 2, 2, 2); /* hull is [0, 2] along the diagonal */
    assert_true(tt(&mixed, &pt_beyond) == false);
    assert_true(tt(&mixed, &s_collinear_touch));
}

static void tri_tri_invalid(void **state)
{
    (void)state;
    mq_triangle a = tri(0, 0, 0, 4, 0, 0, 0, 4, 0);
    mq_triangle n1 = a, n2 = a, n3 = a;
    n1.v[0][0] = NAN;
    n2.v[2][1] = INFINITY;
    n3.v[1][2] = -INFINITY;
    assert_false(tt(&a, &n1));
    assert_false(tt(&a, &n2));
    assert_false(tt(&a, &n3));
    assert_false(mq_overlap_triangle_triangle(NULL, &a));
    assert_true(tt(&a, &a));
}

/*
 * Exactness where double alone is not enough: coordinates near 2^22 on the
 * plane z = 3x - 2y. Coplanarity and "touching at a vertex" must be exact; a
 * vertex lifted by one unit (3e-7 relative) must separate.
 */
static void tri_tri_exact_large_coordinates(void **state)
{
    (void)state;
    const float m = 131071.0f; /* odd, so nothing is a power-of-two multiple */
    mq_triangle a = tri(0, 0, 0, 8 * m, 0, 24 * m, 0, 8 * m, -16 * m);
    mq_triangle touch = tri(4 * m, 4 * m, 4 * m, 9 * m, 5 * m, 17 * m + 1, 5 * m, 9 * m, -3 * m + 1);
    assert_true(tt(&a, &touch)); /* B's first vertex sits on A's hypotenuse; others above the plane */
    touch.v[0][2] += 1;
    assert_false(tt(&a, &touch));
    /* A vertical edge through the hypotenuse point (4m, 4m): touches A there;
     * one unit further out in x it misses (the plane there is at z = 4m + 3). */
    mq_triangle spike = tri(4 * m, 4 * m, 4 * m - 1, 4 * m, 4 * m, 4 * m + 1, 9 * m, 5 * m, 17 * m + 1);
    assert_true(tt(&a, &spike));
    spike = tri(4 * m + 1, 4 * m, 4 * m + 2, 4 * m + 1, 4 * m, 4 * m + 4, 9 * m, 5 * m, 17 * m + 1);
    assert_false(tt(&a, &spike));
    /* Coplanar, edge-touching along the hypotenuse. */
    mq_triangle cop = tri(4 * m, 4 * m, 4 * m, 8 * m, 8 * m, 8 * m, 8 * m, 0, 24 * m);
    assert_true(tt(&a, &cop));
    mq_triangle cop_out = tri(4 * m + 1, 4 * m + 1, 4 * m + 1, 8 * m, 8 * m, 8 * m, 8 * m, 1, 24 * m - 2);
    assert_false(tt(&a, &cop_out)); /* shifted one unit outward; still coplanar */
}

/* Exact integer SAT over every axis any configuration can need (sound for any
 * axis, complete when at least one triangle has area: face normals, edge x
 * edge, and in-plane normals n x e). */
typedef struct itri {
    int64_t v[3][3];
} itri;

static void icross(int64_t out[3], const int64_t a[3], const int64_t b[3])
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

static bool iseparates(const itri *a, const itri *b, const int64_t L[3])
{
    int64_t alo = INT64_MAX, ahi = INT64_MIN, blo = INT64_MAX, bhi = INT64_MIN;
    for (int i = 0; i < 3; i++) {
        int64_t pa = a->v[i][0] * L[0] + a->v[i][1] * L[1] + a->v[i][2] * L[2];
        int64_t pb = b->v[i][0] * L[0] + b->v[i][1] * L[1] + b->v[i][2] * L[2];
        alo = pa < alo ? pa : alo, ahi = pa > ahi ? pa : ahi;
        blo = pb < blo ? pb : blo, bhi = pb > bhi ? pb : bhi;
    }
    return ahi < blo || bhi < alo;
}

static bool int_oracle(const itri *a, const itri *b, bool *valid)
{
    int64_t ea[3][3], eb[3][3], na[3], nb[3], L[3];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            ea[i][j] = a->v[(i + 1) % 3][j] - a->v[i][j];
            eb[i][j] = b->v[(i + 1) % 3][j] - b->v[i][j];
        }
    icross(na, ea[0], ea[1]);
    icross(nb, eb[0], eb[1]);
    *valid = na[0] || na[1] || na[2] || nb[0] || nb[1] || nb[2];
    if (iseparates(a, b, na) || iseparates(a, b, nb))
        return false;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            icross(L, ea[i], eb[j]);
            if (iseparates(a, b, L))
                return false;
        }
    for (int i = 0; i < 3; i++) {
        const int64_t *e[2] = {ea[i], eb[i]};
        for (int k = 0; k < 2; k++) {
            icross(L, na, e[k]);
            if (iseparates(a, b, L))
                return false;
            icross(L, nb, e[k]);
            if (iseparates(a, b, L))
                return false;
        }
    }
    return true;
}

static mq_triangle to_float(const itri *t, float scale)
{
    mq_triangle f;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            f.v[i][j] = (float)t->v[i][j] * scale;
    return f;
}

/* Small-integer triangles: touching, coplanar and degenerate configurations
 * are common, and the integer SAT above decides them exactly. */
static void tri_tri_random_vs_integer_sat(void **state)
{
    (void)state;
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(75));
    int counts[2] = {0, 0}, coplanar = 0;
    for (int n = 0; n < 20000; n++) {
        itri a, b;
        int range = n % 3 == 0 ? 2 : 4;
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) {
                a.v[i][j] = (int64_t)floor(mq_test_rng_range(&rng, -range, range + 1));
                b.v[i][j] = (int64_t)floor(mq_test_rng_range(&rng, -range, range + 1));
            }
        if (n % 5 == 0) /* force a common plane z = x - y */
            for (int i = 0; i < 3; i++) {
                a.v[i][2] = a.v[i][0] - a.v[i][1];
                b.v[i][2] = b.v[i][0] - b.v[i][1];
            }
        bool valid;
        bool expect = int_oracle(&a, &b, &valid);
        if (!valid)
            continue;
        coplanar += n % 5 == 0;
        counts[expect]++;
        /* Power-of-two and odd scales keep every relation exact in float. */
        float scale = n % 2 ? 0.125f : 3.0f;
        mq_triangle fa = to_float(&a, scale), fb = to_float(&b, scale);
        CHECK(tt(&fa, &fb) == expect, "case %d: expected %d", n, expect);
        /* Vertex order must not matter. */
        mq_triangle ra = tri(fa.v[2][0], fa.v[2][1], fa.v[2][2], fa.v[1][0], fa.v[1][1], fa.v[1][2], fa.v[0][0],
                             fa.v[0][1], fa.v[0][2]);
        CHECK(tt(&ra, &fb) == expect, "case %d reversed", n);
    }
    assert_true(counts[0] > 2000 && counts[1] > 2000 && coplanar > 1000);
}

/* Coplanar triangles with coordinates up to ~2^22 on a tilted plane (the
 * orient3d filter cannot decide: the exact path must say "coplanar"),
 * checked against an exact 2D integer SAT in (x, y). */
static bool int_sat_2d(int64_t a[3][2], int64_t b[3][2])
{
    for (int pass = 0; pass < 2; pass++) {
        int64_t(*p)[2] = pass ? b : a;
        for (int e = 0; e < 3; e++) {
            int64_t L[2] = {-(p[(e + 1) % 3][1] - p[e][1]), p[(e + 1) % 3][0] - p[e][0]};
            int64_t alo = INT64_MAX, ahi = INT64_MIN, blo = INT64_MAX, bhi = INT64_MIN;
            for (int i = 0; i < 3; i++) {
                int64_t pa = a[i][0] * L[0] + a[i][1] * L[1], pb = b[i][0] * L[0] + b[i][1] * L[1];
                alo = pa < alo ? pa : alo, ahi = pa > ahi ? pa : ahi;
                blo = pb < blo ? pb : blo, bhi = pb > bhi ? pb : bhi;
            }
            if (ahi < blo || bhi < alo)
                return false;
        }
    }
    return true;
}

static void tri_tri_random_coplanar_large(void **state)
{
    (void)state;
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(76));
    int counts[2] = {0, 0};
    for (int n = 0; n < 3000; n++) {
        int64_t a[3][2], b[3][2];
        int64_t m = n % 2 ? 131071 : 1;
        int64_t range = n % 2 ? 8 : (1 << 20);
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 2; j++) {
                a[i][j] = m * (int64_t)floor(mq_test_rng_range(&rng, (double)-range, (double)range + 1));
                b[i][j] = m * (int64_t)floor(mq_test_rng_range(&rng, (double)-range, (double)range + 1));
            }
        int64_t area_a = (a[1][0] - a[0][0]) * (a[2][1] - a[0][1]) - (a[1][1] - a[0][1]) * (a[2][0] - a[0][0]);
        int64_t area_b = (b[1][0] - b[0][0]) * (b[2][1] - b[0][1]) - (b[1][1] - b[0][1]) * (b[2][0] - b[0][0]);
        if (area_a == 0 || area_b == 0)
            continue;
        bool expect = int_sat_2d(a, b);
        counts[expect]++;
        mq_triangle fa, fb;
        for (int i = 0; i < 3; i++) {
            fa.v[i][0] = (float)a[i][0], fa.v[i][1] = (float)a[i][1];
            fa.v[i][2] = (float)(3 * a[i][0] - 2 * a[i][1]) / 2.0f; /* < 2^24 in magnitude: exact */
            fb.v[i][0] = (float)b[i][0], fb.v[i][1] = (float)b[i][1];
            fb.v[i][2] = (float)(3 * b[i][0] - 2 * b[i][1]) / 2.0f;
        }
        CHECK(tt(&fa, &fb) == expect, "case %d: expected %d", n, expect);
        /* Lifting B off the plane by a hair (one float ulp) never lets it touch. */
        for (int i = 0; i < 3; i++)
            fb.v[i][2] = nextafterf(fb.v[i][2], INFINITY);
        CHECK(!tt(&fa, &fb), "case %d lifted", n);
    }
    assert_true(counts[0] > 300 && counts[1] > 300);
}

/*
 * Exact 2D orientation with general floats: coordinates of magnitude 2^15..2^30
 * (multiples of 2^-8, exponents 16 apart) make the double products inexact. A
 * point rounded to float from a triangle edge lies within an ulp of it and
 * must be classified exactly;
 * the oracle is the same predicate in 128-bit integers on the coordinates
 * scaled by 2^8.
 */
__extension__ typedef __int128 i128;

static i128 scaled(float x)
{
    return (i128)ldexp(x, 8);
}

static int orient2d_i128(const float *a, const float *b, const float *c)
{
    i128 d = (scaled(a[0]) - scaled(c[0])) * (scaled(b[1]) - scaled(c[1])) -
             (scaled(a[1]) - scaled(c[1])) * (scaled(b[0]) - scaled(c[0]));
    return (d > 0) - (d < 0);
}

static float wide_float(mq_test_rng *rng)
{
    double mag = ldexp(1.0, 15 + (int)floor(mq_test_rng_range(rng, 0, 16)));
    return (float)(mq_test_rng_range(rng, 1, 2) * mag * (mq_test_rng_unit(rng) < 0.5 ? -1 : 1));
}

static void tri_tri_exact_orient2d(void **state)
{
    (void)state;
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(78));
    int counts[2] = {0, 0};
    for (int n = 0; n < 5000; n++) {
        mq_triangle a;
        for (int i = 0; i < 3; i++)
            a.v[i][0] = wide_float(&rng), a.v[i][1] = wide_float(&rng), a.v[i][2] = 0;
        double s = mq_test_rng_range(&rng, 0.1, 0.9);
        float p[3] = {(float)(a.v[0][0] + s * ((double)a.v[1][0] - a.v[0][0])),
                      (float)(a.v[0][1] + s * ((double)a.v[1][1] - a.v[0][1])), 0};
        if (fabsf(p[0]) < 32768.0f || fabsf(p[1]) < 32768.0f) /* keep the 2^-8 grid */
            continue;
        int o[3] = {orient2d_i128(a.v[0], a.v[1], a.v[2]), 0, 0};
        if (o[0] == 0)
            continue;
        o[0] = orient2d_i128(a.v[0], a.v[1], p);
        o[1] = orient2d_i128(a.v[1], a.v[2], p);
        o[2] = orient2d_i128(a.v[2], a.v[0], p);
        bool expect = !((o[0] > 0 || o[1] > 0 || o[2] > 0) && (o[0] < 0 || o[1] < 0 || o[2] < 0));
        counts[expect]++;
        mq_triangle pt = tri(p[0], p[1], 0, p[0], p[1], 0, p[0], p[1], 0);
        CHECK(tt(&a, &pt) == expect, "case %d: expected %d", n, expect);
    }
    assert_true(counts[0] > 1000 && counts[1] > 1000);

    /* Where double alone fails (cf. Kettner et al., "Classroom examples of
     * robustness problems"): p - r spans 2^31 .. 2^-24, 55 bits, so in double
     * the three points below all look exactly on the edge y = x. */
    const float big = 0x1p31f, tiny = 0x1p-24f;
    mq_triangle upper = tri(-big, -big, 0, big, big, 0, -big, big, 0); /* y >= x */
    mq_triangle p_in = tri(0.5f, 0.5f + tiny, 0, 0.5f, 0.5f + tiny, 0, 0.5f, 0.5f + tiny, 0);
    mq_triangle p_on = tri(0.5f, 0.5f, 0, 0.5f, 0.5f, 0, 0.5f, 0.5f, 0);
    mq_triangle p_out = tri(0.5f + tiny, 0.5f, 0, 0.5f + tiny, 0.5f, 0, 0.5f + tiny, 0.5f, 0);
    assert_true(tt(&upper, &p_in));
    assert_true(tt(&upper, &p_on));
    assert_false(tt(&upper, &p_out));
    /* The same as segments crossing the edge's line, and as a coplanar triangle. */
    mq_triangle s_out = tri(0.5f + tiny, 0.5f, 0, 4, 0, 0, 4, 0, 0);
    mq_triangle t_out = tri(0.5f + tiny, 0.5f, 0, 4, 0, 0, 4, 1, 0);
    assert_false(tt(&upper, &s_out));
    assert_false(tt(&upper, &t_out));
    t_out.v[0][0] = 0.5f;
    assert_true(tt(&upper, &t_out));

    /* Here plain double even gets the sign wrong (it computes -2048; the exact
     * value is positive), a value 2^-52 of the terms that the filter bound must
     * not trust. p is 2^-42 above the edge's line y = x (1 + 2^-20): inside. */
    mq_triangle steep = tri(-big, -big - 2048, 0, big, big + 2048, 0, -big, big, 0);
    const float px = 0.5f - 4 * tiny, py = 0.5f + 4 * tiny;
    mq_triangle p_hair = tri(px, py, 0, px, py, 0, px, py, 0);
    double l = ((double)-big - px) * ((double)(big + 2048) - py), r = ((double)(-big - 2048) - py) * ((double)big - px);
    assert_true(l - r < 0); /* what plain double says */
    assert_true(tt(&steep, &p_hair));
}

/* ------------------------------------------------------------------------- */
/* 2D                                                                         */
/* ------------------------------------------------------------------------- */

static void aabb2_cases(void **state)
{
    (void)state;
    mq_aabb2 a = {{0, 0}, {1, 1}};
    mq_aabb2 touch_edge = {{1, 0.5f}, {2, 2}}, touch_corner = {{1, 1}, {2, 2}}, inside = {{0.25f, 0.25f}, {0.5f, 0.5f}};
    mq_aabb2 apart = {{nextafterf(1, 2), 0}, {2, 1}}, apart_y = {{0, -2}, {1, -0.5f}};
    mq_aabb2 nan_box = {{0, NAN}, {1, 1}}, empty = {{0, 1}, {1, 0}}, inf_box = {{-INFINITY, 0}, {1, 1}};
    assert_true(mq_overlap_aabb2_aabb2(&a, &touch_edge));
    assert_true(mq_overlap_aabb2_aabb2(&touch_corner, &a));
    assert_true(mq_overlap_aabb2_aabb2(&a, &inside));
    assert_true(mq_overlap_aabb2_aabb2(&inside, &a));
    assert_false(mq_overlap_aabb2_aabb2(&a, &apart));
    assert_false(mq_overlap_aabb2_aabb2(&apart_y, &a));
    assert_false(mq_overlap_aabb2_aabb2(&a, &nan_box));
    assert_false(mq_overlap_aabb2_aabb2(&empty, &a));
    assert_false(mq_overlap_aabb2_aabb2(&a, &inf_box));
    assert_false(mq_overlap_aabb2_aabb2(NULL, &a));
}

static void rect2_cases(void **state)
{
    (void)state;
    mq_rect2 a = rect2(0, 0, 1, 1, 1, 0, 0, 1);
    /* Exact contact: edge, corner, with a 90°-turned rectangle. */
    mq_rect2 edge = rect2(2.5f, 0.5f, 1, 1.5f, 0, 1, -1, 0); /* world half extents 1.5 x 1 */
    mq_rect2 corner = rect2(2, 2, 1, 1, 0, 1, -1, 0);
    assert_true(rr(&a, &edge));
    assert_true(rr(&a, &corner));
    edge.center[0] = nextafterf(2.5f, 3.0f);
    corner.center[1] = nextafterf(2.0f, 3.0f);
    assert_false(rr(&a, &edge));
    assert_false(rr(&a, &corner));
    /* Containment, coincidence, degenerate (segment / point) rectangles. */
    mq_rect2 inner = rect2(0.25f, -0.25f, 0.1f, 0.2f, 0.6f, 0.8f, -0.8f, 0.6f);
    mq_rect2 seg = rect2(0, 1, 3, 0, 1, 0, 0, 1), pt = rect2(1, 1, 0, 0, 1, 0, 0, 1);
    assert_true(rr(&a, &inner));
    assert_true(rr(&a, &a));
    assert_true(rr(&a, &seg));
    assert_true(rr(&a, &pt));
    seg.center[1] = pt.center[1] = nextafterf(1.0f, 2.0f);
    assert_false(rr(&a, &seg));
    assert_false(rr(&a, &pt));
}

/*
 * Square A (world axes) and square B turned 45°, B's centre on the diagonal at
 * (1+s, 1+s). A's axes never separate them for s < 1.41; B's edge normal
 * (the diagonal) separates iff s > 1/√2.
 */
static void rect2_separated_only_by_second_axis(void **state)
{
    (void)state;
    const float r = 0.70710678f;
    mq_rect2 a = rect2(0, 0, 1, 1, 1, 0, 0, 1);
    for (int i = 0; i < 2; i++) {
        float s = i ? 0.75f : 0.65f;
        mq_rect2 b = rect2(1 + s, 1 + s, 1, 1, r, r, -r, r);
        /* A's own axes: B reaches down to x, y = 1 + s - √2 < 1, so they overlap there. */
        assert_true(1 + s - 2 * r < 1);
        CHECK(mq_overlap_rect2_rect2(&a, &b) == (i == 0), "s = %g", (double)s);
        CHECK(mq_overlap_rect2_rect2(&b, &a) == (i == 0), "s = %g swapped", (double)s);
    }
}

static void rect2_invalid(void **state)
{
    (void)state;
    mq_rect2 a = rect2(0, 0, 1, 1, 1, 0, 0, 1);
    mq_rect2 bad[] = {
        rect2(NAN, 0, 1, 1, 1, 0, 0, 1),  rect2(0, 0, -1, 1, 1, 0, 0, 1),   rect2(0, 0, 1, INFINITY, 1, 0, 0, 1),
        rect2(0, 0, 1, 1, 1.1f, 0, 0, 1), rect2(0, 0, 1, 1, 1, 0, 0.1f, 1), rect2(0, 0, 1, 1, 0, 0, 0, 1),
        rect2(0, 0, 1, 1, 1, 0, 0, NAN),
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK(!mq_overlap_rect2_rect2(&a, &bad[i]), "invalid %zu", i);
        CHECK(!mq_overlap_rect2_rect2(&bad[i], &a), "invalid %zu swapped", i);
    }
    assert_false(mq_overlap_rect2_rect2(NULL, &a));
}

/* Oracle: parallelograms (grown by g) meet iff a vertex of one is in the other or two edges cross.
 */
static void rect_corners(const mq_rect2 *r, double g, double out[4][2])
{
    static const int sx[4] = {-1, 1, 1, -1}, sy[4] = {-1, -1, 1, 1};
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 2; j++)
            out[i][j] =
                r->center[j] + sx[i] * (r->half[0] + g) * r->axes[0][j] + sy[i] * (r->half[1] + g) * r->axes[1][j];
}

static double cross2(const double o[2], const double a[2], const double b[2])
{
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
}

static bool in_quad(double q[4][2], const double p[2])
{
    bool pos = false, neg = false;
    for (int i = 0; i < 4; i++) {
        double c = cross2(q[i], q[(i + 1) % 4], p);
        pos |= c > 0, neg |= c < 0;
    }
    return !(pos && neg);
}

static bool oracle_rect(const mq_rect2 *a, const mq_rect2 *b, double g)
{
    double qa[4][2], qb[4][2];
    rect_corners(a, g, qa);
    rect_corners(b, g, qb);
    for (int i = 0; i < 4; i++)
        if (in_quad(qb, qa[i]) || in_quad(qa, qb[i]))
            return true;
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            const double *p = qa[i], *q = qa[(i + 1) % 4], *r = qb[j], *s = qb[(j + 1) % 4];
            if (cross2(p, q, r) * cross2(p, q, s) < 0 && cross2(r, s, p) * cross2(r, s, q) < 0)
                return true;
        }
    return false;
}

static void rect2_random_vs_polygon(void **state)
{
    (void)state;
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(77));
    int counts[2] = {0, 0};
    for (int n = 0; n < 4000; n++) {
        mq_rect2 r[2];
        for (int k = 0; k < 2; k++) {
            double ang = mq_test_rng_range(&rng, 0, 6.283185307179586);
            r[k] = rect2((float)mq_test_rng_range(&rng, -2, 2), (float)mq_test_rng_range(&rng, -2, 2),
                         (float)mq_test_rng_range(&rng, 0.05, 1.5), (float)mq_test_rng_range(&rng, 0.05, 1.5),
                         (float)cos(ang), (float)sin(ang), (float)-sin(ang), (float)cos(ang));
        }
        bool lo = oracle_rect(&r[0], &r[1], -1e-4), hi = oracle_rect(&r[0], &r[1], 1e-4);
        if (lo != hi)
            continue;
        counts[lo]++;
        CHECK(rr(&r[0], &r[1]) == lo, "case %d: expected %d", n, lo);
    }
    assert_true(counts[0] > 500 && counts[1] > 500);
}

/* ------------------------------------------------------------------------- */
/* Extreme magnitudes: nothing overflows or underflows (see the precision notes) */
/* ------------------------------------------------------------------------- */

static void extreme_magnitudes(void **state)
{
    (void)state;
    const float H = 0x1p125f, S = 0x1p-140f;
    /* Boxes touching at x = 2^126, then one ulp apart; the same at subnormal scale. */
    for (int scale = 0; scale < 2; scale++) {
        float h = scale ? S : H;
        mq_obb a = obb(h, 0, 0, h, h, h);
        mq_obb b = obb_axes(3 * h, h, 0, h, h, h, ROT90Z);
        assert_true(oo(&a, &b));
        b.center[0] = nextafterf(3 * h, INFINITY);
        assert_false(oo(&a, &b));
        mq_aabb ab = aabb(0, -h, -h, 2 * h, h, h);
        assert_false(mq_overlap_aabb_obb(&ab, &b));
        b.center[0] = 3 * h;
        assert_true(mq_overlap_aabb_obb(&ab, &b));
        /* Triangle with a vertex on the box face x = 2h. */
        mq_triangle t = tri(2 * h, 0, 0, 4 * h, h, 0, 4 * h, -h, h);
        assert_true(mq_overlap_triangle_aabb(&t, &ab));
        assert_true(mq_overlap_triangle_obb(&t, &a));
        t.v[0][0] = nextafterf(2 * h, INFINITY);
        assert_false(mq_overlap_triangle_aabb(&t, &ab));
        assert_false(mq_overlap_triangle_obb(&t, &a));
        /* Triangles: a vertex on the hypotenuse x + y = 4h, then lifted by the
         * smallest subnormal (an exponent range of 2^275 inside one predicate). */
        mq_triangle ta = tri(0, 0, 0, 4 * h, 0, 0, 0, 4 * h, 0);
        mq_triangle tb = tri(2 * h, 2 * h, 0, 4 * h, 4 * h, h, 2 * h, 4 * h, 2 * h);
        assert_true(tt(&ta, &tb));
        tb.v[0][2] = 0x1p-149f;
        assert_false(tt(&ta, &tb));
        /* Dipped below instead, B meets z = 0 in a segment starting at the dipped
         * vertex and heading away from A (x + y grows): still disjoint, exactly. */
        tb.v[0][2] = -0x1p-149f;
        assert_false(tt(&ta, &tb));
        /* Moved one ulp inward along x as well, it now crosses A. */
        tb.v[0][0] = nextafterf(2 * h, 0);
        assert_true(tt(&ta, &tb));
        /* Rectangles. */
        mq_rect2 ra = rect2(h, 0, h, h, 1, 0, 0, 1), rb = rect2(3 * h, 0, h, h, 0, 1, -1, 0);
        assert_true(rr(&ra, &rb));
        rb.center[0] = nextafterf(3 * h, INFINITY);
        assert_false(rr(&ra, &rb));
    }
    /* Whole-range boxes and triangles. */
    mq_aabb all = aabb(-FLT_MAX, -FLT_MAX, -FLT_MAX, FLT_MAX, FLT_MAX, FLT_MAX);
    mq_obb big = obb(0, 0, 0, FLT_MAX, FLT_MAX, FLT_MAX), dot = obb(FLT_MAX, -FLT_MAX, 0, 0, 0, 0);
    mq_triangle huge = tri(-FLT_MAX, -FLT_MAX, 0, FLT_MAX, -FLT_MAX, 0, 0, FLT_MAX, FLT_MAX);
    assert_true(mq_overlap_aabb_obb(&all, &dot));
    assert_true(oo(&big, &dot));
    assert_true(mq_overlap_triangle_aabb(&huge, &all));
    assert_true(mq_overlap_triangle_obb(&huge, &big));
    assert_true(tt(&huge, &huge));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(aabb_aabb_cases),
        cmocka_unit_test(aabb_aabb_invalid),
        cmocka_unit_test(obb_touching_exactly),
        cmocka_unit_test(obb_containment_and_coincidence),
        cmocka_unit_test(obb_separated_only_by_edge_axis),
        cmocka_unit_test(obb_near_parallel_edges),
        cmocka_unit_test(obb_separated_only_by_near_parallel_edges),
        cmocka_unit_test(obb_invalid),
        cmocka_unit_test(obb_sheared_face_normal),
        cmocka_unit_test(aabb_obb_consistency),
        cmocka_unit_test(obb_random_vs_clipping),
        cmocka_unit_test(sat_box_slack),
        cmocka_unit_test(triangle_aabb_cases),
        cmocka_unit_test(triangle_aabb_separated_only_by_edge_axis),
        cmocka_unit_test(triangle_box_degenerate),
        cmocka_unit_test(triangle_obb_cases),
        cmocka_unit_test(triangle_box_random_vs_clipping),
        cmocka_unit_test(tri_tri_general_position),
        cmocka_unit_test(tri_tri_coplanar),
        cmocka_unit_test(tri_tri_degenerate),
        cmocka_unit_test(tri_tri_invalid),
        cmocka_unit_test(tri_tri_exact_large_coordinates),
        cmocka_unit_test(tri_tri_random_vs_integer_sat),
        cmocka_unit_test(tri_tri_random_coplanar_large),
        cmocka_unit_test(tri_tri_exact_orient2d),
        cmocka_unit_test(aabb2_cases),
        cmocka_unit_test(rect2_cases),
        cmocka_unit_test(rect2_separated_only_by_second_axis),
        cmocka_unit_test(rect2_invalid),
        cmocka_unit_test(rect2_random_vs_polygon),
        cmocka_unit_test(extreme_magnitudes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
