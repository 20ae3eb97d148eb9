/*
 * Quickhull in 3D (Barber, Dobkin & Huhdanpaa 1996) for mq_convex_create.
 *
 * Robustness: every decision of which side of a face's plane a point is on is
 * exact (core/orient3d.h: the determinant of the face's corners and the
 * point, in double while its error bound allows, else in expansions). So the
 * hull is convex at every step, the faces an eye point sees form one disk
 * whose horizon is one loop, and every input point ends inside the result or
 * on it: duplicates and points exactly on a face or an edge create no faces,
 * a point a rounding error outside does. Only the choices that any answer
 * serves (which outside point is farthest, which face an outside point is
 * filed under, the first tetrahedron) use rounded heights.
 * The points are first scaled by a power of two (exact) so that the largest
 * |coordinate| is in [0.5, 1): inputs of 1e-30 and of 1e30 run the same
 * arithmetic, and no product of three coordinate differences overflows or
 * underflows. Fewer than 4 affinely independent points (to within HULL_EPS
 * of that scale) is an error naming which: one point, a line, a plane.
 * The result is finalised in convex.c: vertex subset, planes, edges.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "convex/convex_build.h"
#include "core/alloc.h"
#include "core/diag.h"
#include "core/minmax.h"
#include "core/orient3d.h"

#define NONE UINT32_MAX

typedef struct qh_face {
    uint32_t v[3];
    uint32_t nb[3];        /* face across edge (v[i], v[(i+1)%3]) */
    mq_orient_plane plane; /* from corner v[anchor], the one opposite the longest edge */
    double at[3];          /* that corner's point */
    double far_bound;      /* the plane's error bound for any point of the cloud */
    double inv_len;        /* 1 / |plane.n| (0 when it rounds to 0): heights */
    uint32_t anchor;
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
    qh_u32 work, visible, horizon, stack;
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

/* Point p's height above face f's plane, as rounded. */
static inline double height(const qh_face *f, const double p[3])
{
    return mq_orient_plane_det(&f->plane, f->at, p) * f->inv_len;
}

/* Which side of face f's plane point p is on, exactly: +1 above (outside),
 * 0 on it, -1 below. *up gets p's height above the plane as rounded. */
static inline int side(const qh *h, const qh_face *f, const double p[3], double *up)
{
    double det = mq_orient_plane_det(&f->plane, f->at, p);
    *up = det * f->inv_len;
    if (det > f->far_bound)
        return 1;
    if (det < -f->far_bound)
        return -1;
    double bound = mq_orient_plane_bound(&f->plane, f->at, p);
    if (det > bound)
        return 1;
    if (det < -bound)
        return -1;
    return mq_orient3d_exact(f->at, h->p[f->v[(f->anchor + 1) % 3]], h->p[f->v[(f->anchor + 2) % 3]], p);
}

/* The plane of face f from its corners, taken at the corner opposite the
 * longest edge: for a needle (a far corner and two near ones) the rounded
 * normal is then nearest the true one, and its error bound smallest. */
static void face_plane(const qh *h, qh_face *f)
{
    double l[3];
    for (int i = 0; i < 3; i++) {
        double e[3];
        sub3(h->p[f->v[(i + 2) % 3]], h->p[f->v[(i + 1) % 3]], e);
        l[i] = dot3(e, e); /* the edge opposite corner i */
    }
    f->anchor = l[0] >= l[1] && l[0] >= l[2] ? 0 : l[1] >= l[2] ? 1 : 2;
    memcpy(f->at, h->p[f->v[f->anchor]], sizeof f->at);
    mq_orient_plane_init(&f->plane, f->at, h->p[f->v[(f->anchor + 1) % 3]], h->p[f->v[(f->anchor + 2) % 3]]);
    f->far_bound = mq_orient_plane_reach_bound(&f->plane, 2.0); /* every coordinate is in [-1, 1] */
    double len = sqrt(dot3(f->plane.n, f->plane.n));
    f->inv_len = len > 0.0 ? 1.0 / len : 0.0;
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
    face_plane(h, f);
    return id;
}

static void face_kill(qh *h, uint32_t id)
{
    h->f[id].dead = 1;
    h->f[id].next_free = h->free_head;
    h->free_head = id;
}

/* Files point i under the face of `faces` it is farthest above (by the
 * rounded height, among the faces it is exactly above); a point above none of
 * them is inside the hull or on it, and is left out. */
static void assign(qh *h, const uint32_t *faces, size_t count, uint32_t i)
{
    double best = -DBL_MAX;
    uint32_t bf = NONE;
    for (size_t k = 0; k < count; k++) {
        double up;
        if (side(h, &h->f[faces[k]], h->p[i], &up) > 0 && up > best) {
            best = up;
            bf = faces[k];
        }
    }
    if (bf == NONE)
        return;
    h->next[i] = h->f[bf].outside;
    h->f[bf].outside = i;
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
    /* the fourth corner: farthest from the plane of a, b, c, and off it exactly */
    qh_face base = {.v = {a, b, c}};
    face_plane(h, &base);
    best = -1.0;
    uint32_t d = NONE;
    for (uint32_t i = 0; i < h->np; i++) {
        double up;
        if (side(h, &base, h->p[i], &up) != 0 && fabs(up) > best) {
            best = fabs(up);
            d = i;
        }
    }
    if (!(best > MQ_HULL_EPS))
        return mq_diag_set(diag, MQ_ERR_INVALID_ARG, NULL, 0, 0,
                           "convex hull: the %zu points all lie on one plane (fewer than 4 affinely independent)",
                           h->np);
    out[0] = a;
    out[1] = b;
    out[2] = c;
    out[3] = d;
    return MQ_OK;
}

/* The faces eye point `eye` is above, grown across neighbours from face fi
 * (which it is above), into h->visible, and their horizon edges (face * 3 +
 * edge) into h->horizon, in no order. The side tests are exact, so these
 * faces form one disk: every new face meets an old one at a convex edge.
 * Returns false when out of memory. */
static bool visible_region(qh *h, uint32_t fi, uint32_t eye)
{
    h->stamp++;
    h->visible.n = h->stack.n = h->horizon.n = 0;
    h->f[fi].stamp = h->stamp;
    if (!u32_push(h, &h->stack, fi))
        return false;
    while (h->stack.n) {
        uint32_t g = h->stack.p[--h->stack.n];
        if (!u32_push(h, &h->visible, g))
            return false;
        for (int e = 0; e < 3; e++) {
            uint32_t nb = h->f[g].nb[e];
            double up;
            if (h->f[nb].stamp != h->stamp && side(h, &h->f[nb], h->p[eye], &up) > 0) {
                h->f[nb].stamp = h->stamp;
                if (!u32_push(h, &h->stack, nb))
                    return false;
            }
        }
    }
    for (size_t k = 0; k < h->visible.n; k++) {
        const qh_face *g = &h->f[h->visible.p[k]];
        for (int e = 0; e < 3; e++)
            if (h->f[g->nb[e]].stamp != h->stamp && !u32_push(h, &h->horizon, h->visible.p[k] * 3u + (uint32_t)e))
                return false;
    }
    return true;
}

/* Whether the horizon is one simple loop: each corner starts one horizon edge
 * and walking from end to start visits them all. It always is when the side
 * tests are exact; checked all the same, since a broken loop would break the
 * hull's links (the build then fails with MQ_ERR_UNSUPPORTED, never seen on
 * the tests' and fuzzers' clouds). Leaves h->start all NONE. */
static bool horizon_is_loop(qh *h)
{
    size_t nh = h->horizon.n;
    bool simple = nh >= 3;
    for (size_t k = 0; k < nh; k++) {
        const qh_face *g = &h->f[h->horizon.p[k] / 3];
        uint32_t a = g->v[h->horizon.p[k] % 3];
        if (h->start[a] != NONE)
            simple = false;
        h->start[a] = (uint32_t)k;
    }
    if (simple) {
        size_t walked = 0;
        uint32_t k = 0;
        do {
            const qh_face *g = &h->f[h->horizon.p[k] / 3];
            k = h->start[g->v[(h->horizon.p[k] % 3 + 1) % 3]];
            walked++;
        } while (k != NONE && k != 0 && walked <= nh);
        simple = k == 0 && walked == nh;
    }
    for (size_t k = 0; k < nh; k++) {
        const qh_face *g = &h->f[h->horizon.p[k] / 3];
        h->start[g->v[h->horizon.p[k] % 3]] = NONE;
    }
    return simple;
}

/* One quickhull step: the farthest point of face fi's outside set joins the hull. */
static mq_status add_eye(qh *h, uint32_t fi)
{
    /* the eye: the farthest point of the outside set by the rounded height
     * (every point there is exactly above fi; which of two within rounding is
     * farther does not matter) */
    uint32_t eye = NONE, prev_best = NONE, prev = NONE;
    double best = -DBL_MAX;
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
    if (!visible_region(h, fi, eye))
        return MQ_ERR_OUT_OF_MEMORY;
    if (!horizon_is_loop(h))
        return MQ_ERR_UNSUPPORTED; /* cannot happen with exact sides: a bug, said rather than hidden */
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
        assign(h, h->visible.p, h->visible.n, i);
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
     * ways), so one exact test orients them all: the fourth corner, exactly
     * off the first face's plane (initial_simplex), must be below it. */
    static const int tf[4][3] = {{0, 1, 2}, {0, 3, 1}, {1, 3, 2}, {2, 3, 0}};
    uint32_t fid[4];
    st = MQ_ERR_OUT_OF_MEMORY;
    for (int i = 0; i < 4; i++) {
        fid[i] = face_new(&h, t[tf[i][0]], t[tf[i][1]], t[tf[i][2]]);
        if (fid[i] == NONE)
            goto fail;
    }
    double up;
    if (side(&h, &h.f[fid[0]], h.p[t[3]], &up) > 0)
        for (int i = 0; i < 4; i++) {
            qh_face *f = &h.f[fid[i]];
            uint32_t v1 = f->v[1];
            f->v[1] = f->v[2];
            f->v[2] = v1;
            face_plane(&h, f);
        }
    for (int i = 0; i < 4; i++)
        for (int e = 0; e < 3; e++) {
            uint32_t a0 = h.f[fid[i]].v[e], a1 = h.f[fid[i]].v[(e + 1) % 3];
            for (int j = 0; j < 4; j++)
                if (j != i && edge_index(&h.f[fid[j]], a1, a0) >= 0)
                    h.f[fid[i]].nb[e] = fid[j];
        }
    for (uint32_t i = 0; i < count; i++)
        if (i != t[0] && i != t[1] && i != t[2] && i != t[3])
            assign(&h, fid, 4, i);
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
    /* the alive faces out, numbered in order (kept in `stamp`), with their
     * neighbours */
    size_t nt = 0;
    for (size_t i = 0; i < h.nf; i++)
        if (!h.f[i].dead)
            h.f[i].stamp = (uint32_t)nt++;
    res->tris = mq_alloc(a, nt * 3 * sizeof(uint32_t), 16);
    res->nbrs = mq_alloc(a, nt * 3 * sizeof(uint32_t), 16);
    if (!res->tris || !res->nbrs) {
        mq_free(a, res->tris, nt * 3 * sizeof(uint32_t));
        mq_free(a, res->nbrs, nt * 3 * sizeof(uint32_t));
        memset(res, 0, sizeof *res);
        st = MQ_ERR_OUT_OF_MEMORY;
        goto fail;
    }
    res->nt = nt;
    for (size_t i = 0; i < h.nf; i++)
        if (!h.f[i].dead) {
            uint32_t k = h.f[i].stamp;
            memcpy(&res->tris[3 * k], h.f[i].v, sizeof(uint32_t[3]));
            for (int e = 0; e < 3; e++)
                res->nbrs[3 * k + e] = h.f[h.f[i].nb[e]].stamp;
        }
    qh_free(&h);
    return MQ_OK;
fail:
    qh_free(&h);
    if (st == MQ_ERR_OUT_OF_MEMORY)
        mq_diag_set(diag, st, NULL, 0, 0, "convex hull: out of memory");
    else if (st == MQ_ERR_UNSUPPORTED)
        mq_diag_set(diag, st, NULL, 0, 0, "convex hull: internal error: a horizon that is not one loop");
    return st;
}
