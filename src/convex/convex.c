/*
 * mq_convex: creation from points (the hull from hull_build.c, then the
 * stored form of convex_internal.h), placement, accessors.
 *
 * Planes: neighbouring hull triangles that are exactly coplanar (core/
 * orient3d.h) are merged into one plane (a box's faces are 6 planes, not 12);
 * triangles only nearly coplanar keep their own, so that no plane is tilted
 * by a neighbour's corners. Each plane's offset is the largest n . v over its
 * own triangles' corners, and over all vertices while planes x vertices stays
 * below 4e6: then the polytope of the planes holds every vertex in double
 * (beyond that, a vertex can be outside a rounded plane by its rounding).
 * Edges: the triangle edges between two different planes (the diagonals
 * inside a face are left out: they are not edges of the solid).
 */
#include <math.h>
#include <string.h>

#include "core/minmax.h"
#include "convex/convex_build.h"
#include "convex/convex_internal.h"
#include "core/alloc.h"
#include "core/diag.h"
#include "core/orient3d.h"

static uint32_t uf_find(uint32_t *parent, uint32_t x)
{
    while (parent[x] != x) {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    return x;
}

static double ddot(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* The cross product of a triangle's edges (times inv, to stay in range),
 * oriented as (b - a) x (c - a), taken at the corner opposite the longest
 * edge: for a needle (a far corner and two near ones) the cross product of
 * the two long edges loses the short edge's direction to rounding. */
static void tri_cross(const double *v, const uint32_t *tri, double inv, double n[3])
{
    double l[3];
    for (int i = 0; i < 3; i++) {
        const double *p = v + 3 * tri[(i + 1) % 3], *q = v + 3 * tri[(i + 2) % 3];
        double e[3] = {(q[0] - p[0]) * inv, (q[1] - p[1]) * inv, (q[2] - p[2]) * inv};
        l[i] = ddot(e, e);
    }
    int o = l[0] >= l[1] && l[0] >= l[2] ? 0 : l[1] >= l[2] ? 1 : 2;
    const double *a = v + 3 * tri[o], *b = v + 3 * tri[(o + 1) % 3], *c = v + 3 * tri[(o + 2) % 3];
    double e1[3] = {(b[0] - a[0]) * inv, (b[1] - a[1]) * inv, (b[2] - a[2]) * inv};
    double e2[3] = {(c[0] - a[0]) * inv, (c[1] - a[1]) * inv, (c[2] - a[2]) * inv};
    n[0] = e1[1] * e2[2] - e1[2] * e2[1];
    n[1] = e1[2] * e2[0] - e1[0] * e2[2];
    n[2] = e1[0] * e2[1] - e1[1] * e2[0];
}

static void tri_normal(const double *v, const uint32_t *tri, double inv, double n[3])
{
    tri_cross(v, tri, inv, n);
    double m = mq_fmax(fabs(n[0]), mq_fmax(fabs(n[1]), fabs(n[2])));
    if (m > 0.0) {
        for (int k = 0; k < 3; k++)
            n[k] /= m;
        double l = sqrt(ddot(n, n));
        for (int k = 0; k < 3; k++)
            n[k] /= l;
    }
}

static bool has_normal(const double n[3])
{
    return n[0] != 0.0 || n[1] != 0.0 || n[2] != 0.0;
}

/* Whether neighbouring triangles f and g lie exactly in one plane: g's corner
 * off their shared edge on f's plane. */
static bool coplanar(const double *v, const uint32_t *tf, const uint32_t *tg)
{
    for (int i = 0; i < 3; i++)
        if (tg[i] != tf[0] && tg[i] != tf[1] && tg[i] != tf[2])
            return mq_orient3d(v + 3 * tf[0], v + 3 * tf[1], v + 3 * tf[2], v + 3 * tg[i]) == 0;
    return true;
}

/* Lays out the stored convex from the points and the hull's triangles. */
static mq_status finish(const float *points, size_t count, const mq_hull_result *hr, const mq_allocator *a,
                        mq_convex **out, mq_diag *diag)
{
    mq_status st = MQ_ERR_OUT_OF_MEMORY;
    size_t nt = hr->nt;
    uint32_t *remap = mq_alloc(a, count * sizeof(uint32_t), 16);
    uint32_t *parent = mq_alloc(a, nt * sizeof(uint32_t), 16);
    uint32_t *cls = mq_alloc(a, nt * sizeof(uint32_t), 16);
    double *fn = mq_alloc(a, nt * sizeof(double[3]), 16);
    double *vd = NULL;
    size_t vd_bytes = 0;
    mq_convex *c = NULL;
    if (!remap || !parent || !cls || !fn)
        goto done;
    for (size_t i = 0; i < count; i++)
        remap[i] = UINT32_MAX;
    uint32_t nv = 0;
    for (size_t i = 0; i < 3 * nt; i++)
        if (remap[hr->tris[i]] == UINT32_MAX)
            remap[hr->tris[i]] = nv++;
    vd_bytes = (size_t)nv * sizeof(double[3]);
    vd = mq_alloc(a, vd_bytes, 16);
    if (!vd)
        goto done;
    double scale = 0.0;
    for (size_t i = 0; i < count; i++)
        if (remap[i] != UINT32_MAX)
            for (int k = 0; k < 3; k++) {
                vd[3 * remap[i] + k] = (double)points[3 * i + k];
                scale = mq_fmax(scale, fabs((double)points[3 * i + k]));
            }
    uint32_t *tris = hr->tris; /* remapped in place below */
    for (size_t i = 0; i < 3 * nt; i++)
        tris[i] = remap[tris[i]];
    for (size_t f = 0; f < nt; f++) {
        tri_normal(vd, tris + 3 * f, scale > 0.0 ? 1.0 / scale : 1.0, fn + 3 * f);
        parent[f] = (uint32_t)f;
    }
    /* each edge once, from its lower-numbered triangle f to g */
    for (uint32_t f = 0; f < nt; f++)
        for (int e = 0; e < 3; e++) {
            uint32_t g = hr->nbrs[3 * f + e];
            if (g < f)
                continue;
            /* A zero-area face (collinear corners; the builder makes
             * none) has no plane: every point is "on" it, so it would join
             * its neighbours on both sides into one class and lose their
             * planes. It stays a class of its own, whose zero normal never
             * separates anything. */
            if (!has_normal(fn + 3 * f) || !has_normal(fn + 3 * g))
                continue;
            if (coplanar(vd, tris + 3 * f, tris + 3 * g)) {
                uint32_t rf = uf_find(parent, f), rg = uf_find(parent, g);
                if (rf != rg)
                    parent[rg] = rf;
            }
        }
    uint32_t np = 0, ne = 0;
    for (size_t f = 0; f < nt; f++)
        cls[f] = UINT32_MAX;
    for (size_t f = 0; f < nt; f++) {
        uint32_t r = uf_find(parent, (uint32_t)f);
        if (cls[r] == UINT32_MAX)
            cls[r] = np++;
    }
    for (uint32_t f = 0; f < nt; f++)
        for (int e = 0; e < 3; e++) {
            uint32_t g = hr->nbrs[3 * f + e];
            ne += g > f && uf_find(parent, f) != uf_find(parent, g);
        }
    /* one block: header, float vertices, double vertices, triangles, planes, edges */
    size_t off_fv = (sizeof(mq_convex) + 15) & ~(size_t)15;
    size_t off_v = off_fv + (((size_t)nv * sizeof(float[3]) + 15) & ~(size_t)15);
    size_t off_t = off_v + (size_t)nv * sizeof(double[3]);
    size_t off_p = off_t + (((size_t)nt * 3 * sizeof(uint32_t) + 15) & ~(size_t)15);
    size_t off_e = off_p + (size_t)np * sizeof(mq_cplane);
    size_t bytes = off_e + (size_t)ne * 2 * sizeof(uint32_t);
    c = mq_alloc(a, bytes, 16);
    if (!c)
        goto done;
    memset(c, 0, sizeof *c);
    if (a) {
        c->alloc = *a;
        c->has_alloc = true;
    }
    c->bytes = bytes;
    c->nv = nv;
    c->nt = (uint32_t)nt;
    c->np = np;
    c->ne = ne;
    c->fv = (float *)((char *)c + off_fv);
    c->v = (double *)((char *)c + off_v);
    c->tris = (uint32_t *)((char *)c + off_t);
    c->planes = (mq_cplane *)((char *)c + off_p);
    c->edges = (uint32_t *)((char *)c + off_e);
    memcpy(c->v, vd, vd_bytes);
    memcpy(c->tris, tris, nt * 3 * sizeof(uint32_t));
    for (size_t i = 0; i < (size_t)nv * 3; i++)
        c->fv[i] = (float)vd[i];
    c->scale = scale;
    for (int k = 0; k < 3; k++) {
        c->lo[k] = INFINITY;
        c->hi[k] = -INFINITY;
    }
    for (uint32_t i = 0; i < nv; i++)
        for (int k = 0; k < 3; k++) {
            c->lo[k] = mq_fmin(c->lo[k], vd[3 * i + k]);
            c->hi[k] = mq_fmax(c->hi[k], vd[3 * i + k]);
        }
    double r2 = 0.0;
    for (int k = 0; k < 3; k++)
        c->center[k] = 0.5 * c->lo[k] + 0.5 * c->hi[k];
    for (uint32_t i = 0; i < nv; i++) {
        double d[3] = {vd[3 * i] - c->center[0], vd[3 * i + 1] - c->center[1], vd[3 * i + 2] - c->center[2]};
        double m = mq_fmax(fabs(d[0]), mq_fmax(fabs(d[1]), fabs(d[2])));
        if (m > 0.0) {
            double s = m * sqrt((d[0] / m) * (d[0] / m) + (d[1] / m) * (d[1] / m) + (d[2] / m) * (d[2] / m));
            r2 = mq_fmax(r2, s);
        }
    }
    c->radius = r2 * (1.0 + 1e-12);
    /* planes: the normal of the class's vector area (the sum of its triangles'
     * cross products, at unit scale), so a sliver triangle's ill-determined
     * normal barely counts; offset over the class's vertices, or over all
     * vertices while that stays cheap */
    bool all = (double)np * (double)nv <= 4e6;
    double inv = scale > 0.0 ? 1.0 / scale : 1.0;
    for (uint32_t q = 0; q < np; q++) {
        c->planes[q].n[0] = c->planes[q].n[1] = c->planes[q].n[2] = 0.0;
        c->planes[q].d = -INFINITY;
    }
    for (size_t f = 0; f < nt; f++) {
        mq_cplane *p = &c->planes[cls[uf_find(parent, (uint32_t)f)]];
        double x[3];
        tri_cross(vd, tris + 3 * f, inv, x);
        for (int k = 0; k < 3; k++)
            p->n[k] += x[k];
    }
    for (size_t f = 0; f < nt; f++) {
        uint32_t r = uf_find(parent, (uint32_t)f);
        if (r != f)
            continue;
        mq_cplane *p = &c->planes[cls[r]];
        double l = sqrt(ddot(p->n, p->n));
        if (l > 0.0 && isfinite(l))
            for (int k = 0; k < 3; k++)
                p->n[k] /= l;
        else
            memcpy(p->n, fn + 3 * f, sizeof(double[3]));
        p->d = isfinite(l) ? l : 0.0; /* twice the face's area, for the order below */
    }
    double *area = fn; /* fn is not needed any more: np <= nt */
    for (uint32_t q = 0; q < np; q++) {
        area[q] = c->planes[q].d;
        c->planes[q].d = -INFINITY;
    }
    for (size_t f = 0; f < nt; f++) {
        mq_cplane *p = &c->planes[cls[uf_find(parent, (uint32_t)f)]];
        for (int i = 0; i < 3; i++)
            p->d = mq_fmax(p->d, ddot(p->n, vd + 3 * tris[3 * f + i]));
    }
    if (all)
        for (uint32_t q = 0; q < np; q++)
            for (uint32_t i = 0; i < nv; i++)
                c->planes[q].d = mq_fmax(c->planes[q].d, ddot(c->planes[q].n, vd + 3 * i));
    /* the largest faces first: the hierarchies cull nodes by the first
     * MQ_CONVEX_CULL_PLANES planes only (convex_internal.h) */
    for (uint32_t q = 0; q < np && q < MQ_CONVEX_CULL_PLANES; q++) {
        uint32_t best = q;
        for (uint32_t j = q + 1; j < np; j++)
            if (area[j] > area[best])
                best = j;
        mq_cplane tp = c->planes[q];
        double ta = area[q];
        c->planes[q] = c->planes[best];
        area[q] = area[best];
        c->planes[best] = tp;
        area[best] = ta;
    }
    ne = 0;
    for (uint32_t f = 0; f < nt; f++)
        for (int e = 0; e < 3; e++) {
            uint32_t g = hr->nbrs[3 * f + e], x = tris[3 * f + e], y = tris[3 * f + (e + 1) % 3];
            if (g > f && uf_find(parent, f) != uf_find(parent, g)) {
                c->edges[2 * ne] = x < y ? x : y;
                c->edges[2 * ne + 1] = x < y ? y : x;
                ne++;
            }
        }
    *out = c;
    c = NULL;
    st = MQ_OK;
done:
    mq_free(a, remap, count * sizeof(uint32_t));
    mq_free(a, parent, nt * sizeof(uint32_t));
    mq_free(a, cls, nt * sizeof(uint32_t));
    mq_free(a, fn, nt * sizeof(double[3]));
    mq_free(a, vd, vd_bytes);
    if (st != MQ_OK)
        mq_diag_set(diag, st, NULL, 0, 0, "convex hull: out of memory");
    return st;
}

mq_status mq_convex_create(const float *points, size_t count, const mq_allocator *allocator, mq_convex **out,
                           mq_diag *diag)
{
    mq_diag_clear(diag);
    if (out)
        *out = NULL;
    if (!points || !out)
        return mq_diag_set(diag, MQ_ERR_INVALID_ARG, NULL, 0, 0, "convex hull: NULL %s", points ? "out" : "points");
    if (count > MQ_CONVEX_MAX_POINTS)
        return mq_diag_set(diag, MQ_ERR_LIMIT, NULL, 0, 0, "convex hull: %zu points, more than the limit of %u", count,
                           MQ_CONVEX_MAX_POINTS);
    if (count < 4)
        return mq_diag_set(diag, MQ_ERR_INVALID_ARG, NULL, 0, 0,
                           "convex hull: %zu point%s, fewer than the 4 affinely independent points a solid needs",
                           count, count == 1 ? "" : "s");
    mq_hull_result hr;
    mq_status st = mq_hull_build(points, count, allocator, &hr, diag);
    if (st != MQ_OK)
        return st;
    st = finish(points, count, &hr, allocator, out, diag);
    mq_free(allocator, hr.tris, hr.nt * 3 * sizeof(uint32_t));
    mq_free(allocator, hr.nbrs, hr.nt * 3 * sizeof(uint32_t));
    return st;
}

bool mq_cpose_from_quat(const double q[4], const double t[3], mq_cpose *out)
{
    mq_cpose_identity(out);
    if (t) {
        if (!isfinite(t[0]) || !isfinite(t[1]) || !isfinite(t[2]))
            return false;
        memcpy(out->t, t, sizeof(double[3]));
        if (t[0] != 0.0 || t[1] != 0.0 || t[2] != 0.0)
            out->identity = false;
    }
    if (!q)
        return true;
    double l = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (!(l > 0.0) || !isfinite(l))
        return false;
    double w = q[0] / l, x = q[1] / l, y = q[2] / l, z = q[3] / l;
    out->R[0][0] = 1 - 2 * (y * y + z * z);
    out->R[0][1] = 2 * (x * y - w * z);
    out->R[0][2] = 2 * (x * z + w * y);
    out->R[1][0] = 2 * (x * y + w * z);
    out->R[1][1] = 1 - 2 * (x * x + z * z);
    out->R[1][2] = 2 * (y * z - w * x);
    out->R[2][0] = 2 * (x * z - w * y);
    out->R[2][1] = 2 * (y * z + w * x);
    out->R[2][2] = 1 - 2 * (x * x + y * y);
    if (x != 0.0 || y != 0.0 || z != 0.0)
        out->identity = false;
    return true;
}

mq_status mq_convex_create_placed(const float *points, size_t count, const double translation[3],
                                  const double rotation[4], const mq_allocator *allocator, mq_convex **out,
                                  mq_diag *diag)
{
    mq_diag_clear(diag);
    if (out)
        *out = NULL;
    if (!points || !out)
        return mq_diag_set(diag, MQ_ERR_INVALID_ARG, NULL, 0, 0, "convex hull: NULL %s", points ? "out" : "points");
    if (count > MQ_CONVEX_MAX_POINTS)
        return mq_diag_set(diag, MQ_ERR_LIMIT, NULL, 0, 0, "convex hull: %zu points, more than the limit of %u", count,
                           MQ_CONVEX_MAX_POINTS);
    mq_cpose p;
    if (!mq_cpose_from_quat(rotation, translation, &p))
        return mq_diag_set(diag, MQ_ERR_INVALID_ARG, NULL, 0, 0,
                           "convex hull: the placement is not finite or its quaternion is zero");
    size_t bytes = count * sizeof(float[3]);
    float *moved = mq_alloc(allocator, bytes ? bytes : 1, 16);
    if (!moved)
        return mq_diag_set(diag, MQ_ERR_OUT_OF_MEMORY, NULL, 0, 0, "convex hull: out of memory");
    for (size_t i = 0; i < count; i++) {
        double x[3] = {points[3 * i], points[3 * i + 1], points[3 * i + 2]}, w[3];
        mq_cpose_to_world(&p, x, w);
        for (int k = 0; k < 3; k++)
            moved[3 * i + k] = (float)w[k];
    }
    mq_status st = mq_convex_create(moved, count, allocator, out, diag);
    mq_free(allocator, moved, bytes ? bytes : 1);
    return st;
}

void mq_convex_destroy(mq_convex *c)
{
    if (!c)
        return;
    mq_allocator a = c->alloc;
    mq_free(c->has_alloc ? &a : NULL, c, c->bytes);
}

size_t mq_convex_vertex_count(const mq_convex *c)
{
    return c ? c->nv : 0;
}

const float *mq_convex_vertices(const mq_convex *c)
{
    return c ? c->fv : NULL;
}

size_t mq_convex_face_count(const mq_convex *c)
{
    return c ? c->nt : 0;
}

const uint32_t *mq_convex_faces(const mq_convex *c)
{
    return c ? c->tris : NULL;
}

bool mq_convex_bounds(const mq_convex *c, mq_aabb *out)
{
    if (!c || !out)
        return false;
    for (int k = 0; k < 3; k++) {
        out->min[k] = (float)c->lo[k]; /* vertices are floats: exact */
        out->max[k] = (float)c->hi[k];
    }
    return true;
}

void mq_convex_placed_bounds(const mq_convex *c, const mq_cpose *p, double lo[3], double hi[3], double centre[3],
                             double *radius)
{
    if (p->identity) {
        memcpy(lo, c->lo, sizeof(double[3]));
        memcpy(hi, c->hi, sizeof(double[3]));
    } else {
        for (int k = 0; k < 3; k++) {
            lo[k] = INFINITY;
            hi[k] = -INFINITY;
        }
        for (uint32_t i = 0; i < c->nv; i++) {
            double w[3];
            mq_cpose_to_world(p, c->v + 3 * i, w);
            for (int k = 0; k < 3; k++) {
                lo[k] = mq_fmin(lo[k], w[k]);
                hi[k] = mq_fmax(hi[k], w[k]);
            }
        }
    }
    mq_cpose_to_world(p, c->center, centre);
    *radius = c->radius;
}
