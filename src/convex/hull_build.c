/*
 * Quickhull in 3D (Barber, Dobkin & Huhdanpaa 1996) for mq_convex_create.
 *
 * Robustness:
 *   - the points are scaled by a power of two (exact) so that the largest
 *     |coordinate| is in [0.5, 1): inputs of 1e-30 and of 1e30 run the same
 *     arithmetic, and one absolute tolerance HULL_EPS serves every scale;
 *   - whether a point is outside is decided on its height above a face's
 *     plane measured, where it is within 2 HULL_EPS, from the face's corner
 *     nearest to it (dist()): the rounding is then that of the short
 *     distance, not of the extent (the visible region of an eye keeps the
 *     quick height: measured from the nearest corner, a grid cloud's eye met
 *     a horizon that was not one loop and was dropped);
 *   - a point is "outside" when it is more than HULL_EPS above a face's
 *     plane, or above a plane by less but farther than HULL_EPS from the
 *     hull's triangles near it (see assign(): on a sliver's rim the plane
 *     distance says little); duplicates, coplanar points and points a
 *     rounding away from the hull never create faces (they are inside the
 *     result to within HULL_EPS of the extent);
 *   - the visible region is grown from the face the eye point belongs to
 *     across neighbours the eye is above; if its horizon is not one simple
 *     loop (possible only for points within rounding of several planes at
 *     once), it is grown again with thresholds of +HULL_EPS and -HULL_EPS,
 *     and if that fails too the eye point is dropped rather than the hull
 *     broken;
 *   - fewer than 4 affinely independent points (to within HULL_EPS) is an
 *     error naming which: one point, a line, a plane.
 * The result is finalised in convex.c: vertex subset, planes, edges.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "core/minmax.h"
#include "convex/convex_build.h"
#include "core/alloc.h"
#include "core/diag.h"

#define NONE UINT32_MAX

typedef struct qh_face {
    uint32_t v[3];
    uint32_t nb[3]; /* face across edge (v[i], v[(i+1)%3]) */
    double n[3], d; /* unit normal, offset n . v[0] */
    uint32_t outside;
    uint32_t stamp;
    uint32_t dead; /* 0 alive; 1 dead (in the free list) */
    uint32_t next_free;
} qh_face;

typedef struct qh_u32 {
    uint32_t *p;
    size_t n, cap;
} qh_u32;

typedef struct qh {
    const mq_allocator *a;
    size_t np;
    double (*p)[3];  /* scaled points */
    uint32_t *next;  /* outside-set links */
    uint32_t *start; /* per point: new face whose horizon edge starts there */
    qh_face *f;
    size_t nf, fcap;
    uint32_t free_head;
    uint32_t stamp;
    qh_u32 work, visible, horizon, stack, near;
} qh;

static bool u32_push(qh *h, qh_u32 *v, uint32_t x)
{
    if (v->n == v->cap) {
        size_t cap = v->cap ? v->cap * 2 : 64, bytes;
        if (!mq_mul_size(cap, sizeof(uint32_t), &bytes))
            return false;
        uint32_t *q = mq_realloc(h->a, v->p, v->cap * sizeof(uint32_t), bytes, 16);
        if (!q)
            return false;
        v->p = q;
        v->cap = cap;
    }
    v->p[v->n++] = x;
    return true;
}

static void u32_free(qh *h, qh_u32 *v)
{
    mq_free(h->a, v->p, v->cap * sizeof(uint32_t));
    v->p = NULL;
    v->n = v->cap = 0;
}

static double dot3(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void sub3(const double a[3], const double b[3], double o[3])
{
    o[0] = a[0] - b[0];
    o[1] = a[1] - b[1];
    o[2] = a[2] - b[2];
}

static void cross3(const double a[3], const double b[3], double o[3])
{
    o[0] = a[1] * b[2] - a[2] * b[1];
    o[1] = a[2] * b[0] - a[0] * b[2];
    o[2] = a[0] * b[1] - a[1] * b[0];
}

/* Point p's height above face f's plane, quickly: off by a few roundings of
 * the points' extent. */
static double height(const qh_face *f, const double p[3])
{
    return dot3(f->n, p) - f->d;
}

/* The same measured from the face's corner nearest to p: off only by
 * roundings of that distance. Kept out of line so that dist(), inlined in the
 * loops over faces, stays one dot product and a compare. */
static __attribute__((noinline)) double height_near(const qh *h, const qh_face *f, const double p[3])
{
    double e[3];
    sub3(p, h->p[f->v[0]], e);
    double best = dot3(e, e);
    for (int k = 1; k < 3; k++) {
        double x[3];
        sub3(p, h->p[f->v[k]], x);
        double l = dot3(x, x);
        if (l < best) {
            best = l;
            memcpy(e, x, sizeof e);
        }
    }
    return dot3(f->n, e);
}

/* Point i's height above face f's plane where its sign or its size against
 * HULL_EPS decides: near the plane it is measured from the nearest corner, so
 * that a point a hair above a needle face's plane, next to its short edge, is
 * seen above it (the quick height's rounding, at the far corner's scale, can
 * be thousands of times that hair). */
static inline double dist(const qh *h, const qh_face *f, uint32_t i)
{
    double d = height(f, h->p[i]);
    return fabs(d) > 2.0 * MQ_HULL_EPS ? d : height_near(h, f, h->p[i]);
}

/* (b - a) x (c - a), computed from the two edges at the corner opposite the
 * longest edge: for a needle (a far point and two near ones) the cross
 * product of the two long edges loses the short edge's direction to
 * rounding. Returns that corner (a point of the plane). */
static uint32_t plane_cross(const qh *h, uint32_t a, uint32_t b, uint32_t c, double n[3])
{
    const uint32_t v[3] = {a, b, c};
    double l[3];
    for (int i = 0; i < 3; i++) {
        double e[3];
        sub3(h->p[v[(i + 2) % 3]], h->p[v[(i + 1) % 3]], e);
        l[i] = dot3(e, e); /* the edge opposite corner i */
    }
    int o = l[0] >= l[1] && l[0] >= l[2] ? 0 : l[1] >= l[2] ? 1 : 2;
    double e1[3], e2[3];
    sub3(h->p[v[(o + 1) % 3]], h->p[v[o]], e1);
    sub3(h->p[v[(o + 2) % 3]], h->p[v[o]], e2);
    cross3(e1, e2, n);
    return v[o];
}

/* A face slot (from the free list or appended); NONE when out of memory. */
static uint32_t face_new(qh *h, uint32_t a, uint32_t b, uint32_t c)
{
    uint32_t id;
    if (h->free_head != NONE) {
        id = h->free_head;
        h->free_head = h->f[id].next_free;
    } else {
        if (h->nf == h->fcap) {
            size_t cap = h->fcap * 2, bytes;
            if (cap > NONE / 2 || !mq_mul_size(cap, sizeof(qh_face), &bytes))
                return NONE;
            qh_face *q = mq_realloc(h->a, h->f, h->fcap * sizeof(qh_face), bytes, 16);
            if (!q)
                return NONE;
            h->f = q;
            h->fcap = cap;
        }
        id = (uint32_t)h->nf++;
    }
    qh_face *f = &h->f[id];
    f->v[0] = a;
    f->v[1] = b;
    f->v[2] = c;
    f->nb[0] = f->nb[1] = f->nb[2] = NONE;
    f->outside = NONE;
    f->stamp = 0;
    f->dead = 0;
    f->next_free = NONE;
    double n[3];
    uint32_t o = plane_cross(h, a, b, c, n);
    double len = sqrt(dot3(n, n));
    if (len > 0.0) {
        for (int k = 0; k < 3; k++)
            f->n[k] = n[k] / len;
    } else {
        f->n[0] = f->n[1] = f->n[2] = 0.0;
    }
    f->d = dot3(f->n, h->p[o]);
    return id;
}

static void face_kill(qh *h, uint32_t id)
{
    h->f[id].dead = 1;
    h->f[id].next_free = h->free_head;
    h->free_head = id;
}

/* Squared distance from point q to triangle (a, b, c) (Ericson, "Real-Time
 * Collision Detection", 5.1.5: the Voronoi region of the closest feature). */
static double tri_dist2(const double q[3], const double a[3], const double b[3], const double c[3])
{
    double ab[3], ac[3], ap[3], bp[3], cp[3], x[3];
    sub3(b, a, ab);
    sub3(c, a, ac);
    sub3(q, a, ap);
    double d1 = dot3(ab, ap), d2 = dot3(ac, ap);
    if (d1 <= 0.0 && d2 <= 0.0) {
        sub3(q, a, x);
        return dot3(x, x);
    }
    sub3(q, b, bp);
    double d3 = dot3(ab, bp), d4 = dot3(ac, bp);
    if (d3 >= 0.0 && d4 <= d3) {
        sub3(q, b, x);
        return dot3(x, x);
    }
    double vc = d1 * d4 - d3 * d2;
    if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0) {
        double t = d1 / (d1 - d3);
        for (int k = 0; k < 3; k++)
            x[k] = q[k] - (a[k] + t * ab[k]);
        return dot3(x, x);
    }
    sub3(q, c, cp);
    double d5 = dot3(ab, cp), d6 = dot3(ac, cp);
    if (d6 >= 0.0 && d5 <= d6) {
        sub3(q, c, x);
        return dot3(x, x);
    }
    double vb = d5 * d2 - d1 * d6;
    if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0) {
        double t = d2 / (d2 - d6);
        for (int k = 0; k < 3; k++)
            x[k] = q[k] - (a[k] + t * ac[k]);
        return dot3(x, x);
    }
    double va = d3 * d6 - d5 * d4;
    if (va <= 0.0 && d4 - d3 >= 0.0 && d5 - d6 >= 0.0) {
        double t = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        for (int k = 0; k < 3; k++)
            x[k] = q[k] - (b[k] + t * (c[k] - b[k]));
        return dot3(x, x);
    }
    double den = va + vb + vc;
    if (!(den > 0.0)) /* a degenerate triangle: counted as far (the caller then
                         errs towards keeping the point) */
        return DBL_MAX;
    double v = vb / den, w = vc / den;
    for (int k = 0; k < 3; k++)
        x[k] = q[k] - (a[k] + v * ab[k] + w * ac[k]);
    return dot3(x, x);
}

/* Puts point i into the outside set of the face of `faces` it is farthest
 * above. Outside means more than HULL_EPS above a face's plane, or above one
 * by less but farther than HULL_EPS from the hull's surface: by a sharp edge
 * (a sliver's rim, where two faces meet at an angle a of nearly 180 degrees)
 * a point can be within HULL_EPS of both planes and still HULL_EPS /
 * sin(a / 2) away from the hull, so the plane distance alone would leave it
 * out. For such a point the triangles are searched from `faces` across
 * neighbours whose plane it is above or within HULL_EPS below (the faces it
 * is above, among them the one nearest to it, are connected) until one is
 * within HULL_EPS of it.
 * Returns 1 when the point is outside (assigned), 0 when inside, -1 when the
 * search's stack cannot grow (out of memory). */
static int assign(qh *h, const uint32_t *faces, size_t count, uint32_t i)
{
    /* the farthest face by the quick height; measured again near the planes,
     * where the quick one's rounding could pick the wrong face or side */
    double best = -DBL_MAX;
    uint32_t bf = NONE;
    for (size_t k = 0; k < count; k++) {
        double d = height(&h->f[faces[k]], h->p[i]);
        if (d > best) {
            best = d;
            bf = faces[k];
        }
    }
    if (best < -2.0 * MQ_HULL_EPS)
        return 0;
    if (!(best > 2.0 * MQ_HULL_EPS)) {
        best = 0.0;
        bf = NONE;
        for (size_t k = 0; k < count; k++) {
            double d = dist(h, &h->f[faces[k]], i);
            if (d > best) {
                best = d;
                bf = faces[k];
            }
        }
    }
    if (bf == NONE)
        return 0;
    if (best <= MQ_HULL_EPS) {
        h->stamp++;
        h->near.n = 0;
        for (size_t k = 0; k < count; k++)
            if (dist(h, &h->f[faces[k]], i) > -MQ_HULL_EPS && h->f[faces[k]].stamp != h->stamp) {
                h->f[faces[k]].stamp = h->stamp;
                if (!u32_push(h, &h->near, faces[k]))
                    return -1;
            }
        while (h->near.n) {
            const qh_face *f = &h->f[h->near.p[--h->near.n]];
            if (tri_dist2(h->p[i], h->p[f->v[0]], h->p[f->v[1]], h->p[f->v[2]]) <= MQ_HULL_EPS * MQ_HULL_EPS)
                return 0; /* within HULL_EPS of the hull's surface */
            for (int e = 0; e < 3; e++) {
                uint32_t g = f->nb[e];
                if (g != NONE && h->f[g].stamp != h->stamp && dist(h, &h->f[g], i) > -MQ_HULL_EPS) {
                    h->f[g].stamp = h->stamp;
                    if (!u32_push(h, &h->near, g))
                        return -1;
                }
            }
        }
    }
    h->next[i] = h->f[bf].outside;
    h->f[bf].outside = i;
    return 1;
}

static int edge_index(const qh_face *f, uint32_t a, uint32_t b)
{
    for (int i = 0; i < 3; i++)
        if (f->v[i] == a && f->v[(i + 1) % 3] == b)
            return i;
    return -1;
}

static mq_status initial_simplex(qh *h, uint32_t out[4], mq_diag *diag)
{
    uint32_t ext[6] = {0, 0, 0, 0, 0, 0};
    for (uint32_t i = 1; i < h->np; i++)
        for (int k = 0; k < 3; k++) {
            if (h->p[i][k] < h->p[ext[2 * k]][k])
                ext[2 * k] = i;
            if (h->p[i][k] > h->p[ext[2 * k + 1]][k])
                ext[2 * k + 1] = i;
        }
    double best = -1.0;
    uint32_t a = 0, b = 0;
    for (int i = 0; i < 6; i++)
        for (int j = i + 1; j < 6; j++) {
            double d[3];
            sub3(h->p[ext[i]], h->p[ext[j]], d);
            double l = dot3(d, d);
            if (l > best) {
                best = l;
                a = ext[i];
                b = ext[j];
            }
        }
    if (!(sqrt(best) > MQ_HULL_EPS))
        return mq_diag_set(diag, MQ_ERR_INVALID_ARG, NULL, 0, 0,
                           "convex hull: the %zu points all lie at one point (fewer than 4 affinely independent)",
                           h->np);
    double ab[3];
    sub3(h->p[b], h->p[a], ab);
    double lab = sqrt(dot3(ab, ab));
    best = -1.0;
    uint32_t c = NONE;
    for (uint32_t i = 0; i < h->np; i++) {
        double ap[3], x[3];
        sub3(h->p[i], h->p[a], ap);
        cross3(ap, ab, x);
        double l = sqrt(dot3(x, x)) / lab;
        if (l > best) {
            best = l;
            c = i;
        }
    }
    if (!(best > MQ_HULL_EPS))
        return mq_diag_set(diag, MQ_ERR_INVALID_ARG, NULL, 0, 0,
                           "convex hull: the %zu points all lie on one line (fewer than 4 affinely independent)",
                           h->np);
    double n[3];
    uint32_t o = plane_cross(h, a, b, c, n);
    double ln = sqrt(dot3(n, n));
    for (int k = 0; k < 3; k++)
        n[k] /= ln;
    best = -1.0;
    uint32_t d = NONE;
    for (uint32_t i = 0; i < h->np; i++) {
        double ap[3];
        sub3(h->p[i], h->p[o], ap);
        double l = fabs(dot3(ap, n));
        if (l > best) {
            best = l;
            d = i;
        }
    }
    if (!(best > MQ_HULL_EPS) || d == a || d == b || d == c)
        return mq_diag_set(diag, MQ_ERR_INVALID_ARG, NULL, 0, 0,
                           "convex hull: the %zu points all lie on one plane (fewer than 4 affinely independent)",
                           h->np);
    out[0] = a;
    out[1] = b;
    out[2] = c;
    out[3] = d;
    return MQ_OK;
}

/* One quickhull step: the farthest point of face fi's outside set joins the hull. */
static mq_status add_eye(qh *h, uint32_t fi)
{
    /* the eye: farthest point of the outside set (by the quick height: every
     * point there is above fi, and which of two within rounding is farther
     * does not matter) */
    uint32_t eye = NONE, prev_best = NONE, prev = NONE;
    double best = -1.0;
    for (uint32_t i = h->f[fi].outside; i != NONE; prev = i, i = h->next[i]) {
        double d = height(&h->f[fi], h->p[i]);
        if (d > best) {
            best = d;
            eye = i;
            prev_best = prev;
        }
    }
    if (prev_best == NONE)
        h->f[fi].outside = h->next[eye];
    else
        h->next[prev_best] = h->next[eye];

    /* The visible region, grown across neighbours from fi: the faces the eye
     * is above (plane distance > 0), so that the eye is on or below every
     * face left and each horizon edge of the new hull is convex. Its horizon
     * must be one simple loop (each vertex starts one horizon edge, and
     * walking from end to start visits them all). Rounding can break that
     * only for an eye within rounding of several nearly coplanar planes: then
     * once more with the faces the eye is at most HULL_EPS above left out,
     * and once more with the faces it is within HULL_EPS below counted in
     * (they are replaced by nearly coplanar ones); if still not, the eye is
     * dropped. */
    bool simple = false;
    for (int pass = 0; pass < 3 && !simple; pass++) {
        double threshold = pass == 0 ? 0.0 : pass == 1 ? MQ_HULL_EPS : -MQ_HULL_EPS;
        h->stamp++;
        h->visible.n = h->stack.n = h->horizon.n = 0;
        h->f[fi].stamp = h->stamp;
        if (!u32_push(h, &h->stack, fi))
            return MQ_ERR_OUT_OF_MEMORY;
        while (h->stack.n) {
            uint32_t g = h->stack.p[--h->stack.n];
            if (!u32_push(h, &h->visible, g))
                return MQ_ERR_OUT_OF_MEMORY;
            for (int e = 0; e < 3; e++) {
                uint32_t nb = h->f[g].nb[e];
                if (h->f[nb].stamp == h->stamp)
                    continue;
                if (height(&h->f[nb], h->p[eye]) > threshold) {
                    h->f[nb].stamp = h->stamp;
                    if (!u32_push(h, &h->stack, nb))
                        return MQ_ERR_OUT_OF_MEMORY;
                }
            }
        }
        simple = true;
        for (size_t k = 0; k < h->visible.n; k++) {
            const qh_face *g = &h->f[h->visible.p[k]];
            for (int e = 0; e < 3; e++)
                if (h->f[g->nb[e]].stamp != h->stamp) {
                    uint32_t a = g->v[e];
                    if (h->start[a] != NONE)
                        simple = false;
                    h->start[a] = (uint32_t)h->horizon.n; /* the horizon edge starting at a */
                    if (!u32_push(h, &h->horizon, h->visible.p[k] * 3u + (uint32_t)e))
                        return MQ_ERR_OUT_OF_MEMORY;
                }
        }
        size_t nh = h->horizon.n, walked = 0;
        if (simple && nh >= 3) {
            uint32_t k = 0;
            do {
                const qh_face *g = &h->f[h->horizon.p[k] / 3];
                uint32_t b = g->v[(h->horizon.p[k] % 3 + 1) % 3];
                k = h->start[b];
                walked++;
            } while (k != NONE && k != 0 && walked <= nh);
            simple = k == 0 && walked == nh;
        } else {
            simple = false;
        }
        for (size_t k = 0; k < nh; k++) {
            const qh_face *g = &h->f[h->horizon.p[k] / 3];
            h->start[g->v[h->horizon.p[k] % 3]] = NONE;
        }
    }
    if (!simple) {
        if (h->f[fi].outside != NONE && !u32_push(h, &h->work, fi))
            return MQ_ERR_OUT_OF_MEMORY;
        return MQ_OK; /* the eye is dropped (see the file comment) */
    }
    /* gather the outside points of the visible faces, then kill the faces */
    uint32_t pool = NONE;
    for (size_t k = 0; k < h->visible.n; k++) {
        qh_face *g = &h->f[h->visible.p[k]];
        for (uint32_t i = g->outside, nx; i != NONE; i = nx) {
            nx = h->next[i];
            h->next[i] = pool;
            pool = i;
        }
        g->outside = NONE;
    }
    /* new faces (a, b, eye) over each horizon edge (a, b); the visible faces'
     * slots are reused only after the horizon has been read */
    size_t nh = h->horizon.n;
    h->stack.n = 0;
    for (size_t k = 0; k < nh; k++) {
        uint32_t code = h->horizon.p[k];
        const qh_face *g = &h->f[code / 3];
        int e = (int)(code % 3);
        uint32_t a = g->v[e], b = g->v[(e + 1) % 3], other = g->nb[e];
        if (!u32_push(h, &h->stack, a) || !u32_push(h, &h->stack, b) || !u32_push(h, &h->stack, other))
            return MQ_ERR_OUT_OF_MEMORY;
    }
    for (size_t k = 0; k < h->visible.n; k++)
        face_kill(h, h->visible.p[k]);
    h->visible.n = 0; /* now: the new faces */
    for (size_t k = 0; k < nh; k++) {
        uint32_t a = h->stack.p[3 * k], b = h->stack.p[3 * k + 1], other = h->stack.p[3 * k + 2];
        uint32_t nf = face_new(h, a, b, eye);
        if (nf == NONE || !u32_push(h, &h->visible, nf))
            return MQ_ERR_OUT_OF_MEMORY;
        h->f[nf].nb[0] = other;
        int oe = edge_index(&h->f[other], b, a);
        if (oe >= 0)
            h->f[other].nb[oe] = nf;
        h->start[a] = nf;
    }
    for (size_t k = 0; k < h->visible.n; k++) {
        uint32_t nf = h->visible.p[k];
        uint32_t b = h->f[nf].v[1];
        uint32_t g = h->start[b];
        h->f[nf].nb[1] = g;
        h->f[g].nb[2] = nf;
    }
    for (size_t k = 0; k < h->visible.n; k++)
        h->start[h->f[h->visible.p[k]].v[0]] = NONE;
    /* the gathered points go to the new faces, or are inside now */
    for (uint32_t i = pool, nx; i != NONE; i = nx) {
        nx = h->next[i];
        if (assign(h, h->visible.p, h->visible.n, i) < 0)
            return MQ_ERR_OUT_OF_MEMORY;
    }
    for (size_t k = 0; k < h->visible.n; k++)
        if (h->f[h->visible.p[k]].outside != NONE && !u32_push(h, &h->work, h->visible.p[k]))
            return MQ_ERR_OUT_OF_MEMORY;
    return MQ_OK;
}

#ifdef MQ_HULL_DEBUG
/* -DMQ_HULL_DEBUG: the neighbour links checked after every step. */
#include <stdio.h>
#include <stdlib.h>
static void qh_check(const qh *h, uint32_t eye)
{
    for (size_t i = 0; i < h->nf; i++) {
        const qh_face *f = &h->f[i];
        if (f->dead)
            continue;
        for (int e = 0; e < 3; e++) {
            uint32_t nb = f->nb[e];
            if (nb == NONE || nb >= h->nf || h->f[nb].dead || edge_index(&h->f[nb], f->v[(e + 1) % 3], f->v[e]) < 0 ||
                h->f[nb].nb[edge_index(&h->f[nb], f->v[(e + 1) % 3], f->v[e])] != i) {
                fprintf(stderr, "after eye %u: face %zu edge %d (%u,%u) -> %u broken\n", eye, i, e, f->v[e],
                        f->v[(e + 1) % 3], nb);
                abort();
            }
        }
    }
}
#endif

static void qh_free(qh *h)
{
    mq_free(h->a, h->p, h->np * sizeof(double[3]));
    mq_free(h->a, h->next, h->np * sizeof(uint32_t));
    mq_free(h->a, h->start, h->np * sizeof(uint32_t));
    mq_free(h->a, h->f, h->fcap * sizeof(qh_face));
    u32_free(h, &h->work);
    u32_free(h, &h->visible);
    u32_free(h, &h->horizon);
    u32_free(h, &h->stack);
    u32_free(h, &h->near);
}

mq_status mq_hull_build(const float *points, size_t count, const mq_allocator *a, mq_hull_result *res, mq_diag *diag)
{
    memset(res, 0, sizeof *res);
    qh h;
    memset(&h, 0, sizeof h);
    h.a = a;
    h.free_head = NONE;
    double scale = 0.0;
    for (size_t i = 0; i < count; i++)
        for (int k = 0; k < 3; k++) {
            float x = points[3 * i + k];
            if (!isfinite(x))
                return mq_diag_set(diag, MQ_ERR_INVALID_ARG, NULL, 0, 0,
                                   "convex hull: point %zu has a non-finite coordinate", i);
            scale = mq_fmax(scale, fabs((double)x));
        }
    if (scale == 0.0)
        return mq_diag_set(diag, MQ_ERR_INVALID_ARG, NULL, 0, 0,
                           "convex hull: the %zu points all lie at one point (fewer than 4 affinely independent)",
                           count);
    int ex;
    frexp(scale, &ex);
    double s = ldexp(1.0, -ex); /* scale * s in [0.5, 1) */
    h.np = count;
    h.p = mq_alloc(a, count * sizeof(double[3]), 16);
    h.next = mq_alloc(a, count * sizeof(uint32_t), 16);
    h.start = mq_alloc(a, count * sizeof(uint32_t), 16);
    h.fcap = 64;
    h.f = mq_alloc(a, h.fcap * sizeof(qh_face), 16);
    mq_status st = MQ_ERR_OUT_OF_MEMORY;
    if (!h.p || !h.next || !h.start || !h.f)
        goto fail;
    for (size_t i = 0; i < count; i++) {
        for (int k = 0; k < 3; k++)
            h.p[i][k] = (double)points[3 * i + k] * s;
        h.next[i] = NONE;
        h.start[i] = NONE;
    }
    uint32_t t[4] = {0, 0, 0, 0};
    st = initial_simplex(&h, t, diag);
    if (st != MQ_OK)
        goto fail;
    /* The tetrahedron. Its four faces are wound alike (each edge runs both
     * ways), so one test orients them all: the fourth corner, more than
     * HULL_EPS from the first face's plane (initial_simplex), must be below
     * it. A test per face (the centroid below each plane) can fail on a
     * sliver's side faces, whose distance to the centroid is below rounding,
     * and a face wound against its neighbours has edges with no twin. */
    static const int tf[4][3] = {{0, 1, 2}, {0, 3, 1}, {1, 3, 2}, {2, 3, 0}};
    uint32_t fid[4];
    st = MQ_ERR_OUT_OF_MEMORY;
    for (int i = 0; i < 4; i++) {
        fid[i] = face_new(&h, t[tf[i][0]], t[tf[i][1]], t[tf[i][2]]);
        if (fid[i] == NONE)
            goto fail;
    }
    if (dist(&h, &h.f[fid[0]], t[3]) > 0.0)
        for (int i = 0; i < 4; i++) {
            qh_face *f = &h.f[fid[i]];
            uint32_t v1 = f->v[1];
            f->v[1] = f->v[2];
            f->v[2] = v1;
            for (int k = 0; k < 3; k++)
                f->n[k] = -f->n[k];
            f->d = -f->d;
        }
    for (int i = 0; i < 4; i++)
        for (int e = 0; e < 3; e++) {
            uint32_t a0 = h.f[fid[i]].v[e], a1 = h.f[fid[i]].v[(e + 1) % 3];
            for (int j = 0; j < 4; j++)
                if (j != i && edge_index(&h.f[fid[j]], a1, a0) >= 0)
                    h.f[fid[i]].nb[e] = fid[j];
        }
    for (uint32_t i = 0; i < count; i++)
        if (i != t[0] && i != t[1] && i != t[2] && i != t[3] && assign(&h, fid, 4, i) < 0)
            goto fail;
    for (int i = 0; i < 4; i++)
        if (h.f[fid[i]].outside != NONE && !u32_push(&h, &h.work, fid[i]))
            goto fail;
#ifdef MQ_HULL_DEBUG
    qh_check(&h, 99999);
#endif
    while (h.work.n) {
        uint32_t fi = h.work.p[--h.work.n];
        if (h.f[fi].dead || h.f[fi].outside == NONE)
            continue;
        st = add_eye(&h, fi);
        if (st != MQ_OK)
            goto fail;
#ifdef MQ_HULL_DEBUG
        qh_check(&h, 0);
#endif
    }
    /* the alive faces out */
    size_t nt = 0;
    for (size_t i = 0; i < h.nf; i++)
        nt += h.f[i].dead ? 0 : 1;
    res->tris = mq_alloc(a, nt * 3 * sizeof(uint32_t), 16);
    if (!res->tris) {
        st = MQ_ERR_OUT_OF_MEMORY;
        goto fail;
    }
    res->nt = nt;
    size_t k = 0;
    for (size_t i = 0; i < h.nf; i++)
        if (!h.f[i].dead) {
            memcpy(&res->tris[3 * k], h.f[i].v, sizeof(uint32_t[3]));
            k++;
        }
    qh_free(&h);
    return MQ_OK;
fail:
    qh_free(&h);
    if (st == MQ_ERR_OUT_OF_MEMORY)
        mq_diag_set(diag, st, NULL, 0, 0, "convex hull: out of memory");
    return st;
}
