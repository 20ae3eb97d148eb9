/*
 * Capsule vs capsule, AABB, OBB and triangle (closed sets: touching overlaps).
 * A capsule overlaps a shape iff its axis segment is within its radius of it,
 * so each test is a segment distance compared with the radius, in the scaled
 * frame of the distance kernels (closest_internal.h): no square root, no
 * overflow for any finite input. Invalid input overlaps nothing.
 *
 * Capsule vs AABB is EXACT (segment-box distance <= r), not the usual bound of
 * an inflated box. The segment-box distance is 0 when the segment meets the box
 * (slab clipping, Kay & Kajiya), else the smallest of: each endpoint vs the box
 * and the segment vs each of the 12 box edges. Why that is complete: for the
 * closest pair (x on the segment, y on the box) of the disjoint convex sets, y
 * lies on the box boundary, in the relative interior of a vertex, an edge or a
 * face (edges include their vertices). If x is an endpoint, or y is on an edge,
 * a candidate has it. Otherwise x is inside the segment and y inside a face:
 * x - y is normal to the face and, x being a minimum along the segment,
 * perpendicular to the segment, so the segment runs parallel to the face;
 * sliding x along it keeps the distance until x reaches an endpoint or y an
 * edge, which is a candidate. Flat and degenerate boxes (zero extents) are the
 * same argument with some edges of length 0.
 */
#include <meshquery/primitives.h>

#include "core/minmax.h"
#include "core/vec3.h"
#include "primitives/closest_internal.h"
#include "primitives/ray_slab.h"
#include "primitives/shape_checks.h"

/* Whether the segment A + t D, t in [0, 1], meets the closed box [0, E] (slab clipping). */
static bool segment_hits_box(const vec3 A, const vec3 D, const vec3 E)
{
    float t0 = 0.0f, t1 = 1.0f;
    for (int i = 0; i < 3; i++) {
        /* parallel to a slab: decided exactly, boundary included, no division by 0 */
        if (!mq_slab_clip_axis(A[i], D[i], 0.0f, E[i], &t0, &t1))
            return false;
    }
    return true;
}

/* Segment A + t D vs the 12 edges of the box [0, E]: some edge within sqrt(r2). */
static bool near_an_edge(const vec3 A, const vec3 D, const vec3 E, float r2)
{
    for (int k = 0; k < 3; k++) {
        int i = (k + 1) % 3, j = (k + 2) % 3;
        vec3 dir = {0.0f, 0.0f, 0.0f};
        dir[k] = E[k];
        for (int corner = 0; corner < 4; corner++) {
            vec3 c = {0.0f, 0.0f, 0.0f}, r;
            c[i] = (corner & 1) ? E[i] : 0.0f;
            c[j] = (corner & 2) ? E[j] : 0.0f;
            mq_v3_sub(r, A, c);
            float s, t;
            if (mq_cl_segment_segment(D, dir, r, &s, &t) <= r2)
                return true;
        }
    }
    return false;
}

bool mq_cl_capsule_aabb(const vec3 a, const vec3 b, float r, const vec3 lo, const vec3 hi)
{
    /* Work relative to the box corner lo, in the scaled frame: the box is [0, E]. */
    vec3 v[4]; /* A = a - lo, B = b - lo, E = hi - lo, D = b - a */
    int e = mq_cl_diffs(v, (const float *const[]){a, b, hi, b}, (const float *const[]){lo, lo, lo, a}, 4);
    const float *A = v[0], *B = v[1], *E = v[2], *D = v[3];
    float rn = e ? ldexpf(r, -e) : r;
    float r2 = rn * rn; /* +Inf when rn dwarfs the frame: then everything is within reach */

    /* Cheap exact rejection: on some axis the whole segment is farther than r from
     * the box's slab (the distance is at least that gap). */
    for (int i = 0; i < 3; i++) {
        float lo_i = mq_fminf(A[i], B[i]), hi_i = mq_fmaxf(A[i], B[i]);
        if (lo_i - E[i] > rn || -hi_i > rn)
            return false;
    }
    /* Endpoints vs the box (Arvo), then the segment through the box, then the edges. */
    vec3 zero = {0.0f, 0.0f, 0.0f}, ex;
    mq_cl_aabb_excess(A, zero, E, ex);
    if (mq_v3_len2(ex) <= r2)
        return true;
    mq_cl_aabb_excess(B, zero, E, ex);
    if (mq_v3_len2(ex) <= r2)
        return true;
    if (segment_hits_box(A, D, E))
        return true;
    return near_an_edge(A, D, E, r2);
}

bool mq_overlap_capsule_capsule(const mq_capsule *a, const mq_capsule *b)
{
    if (!a || !b || !mq_capsule_ok(a) || !mq_capsule_ok(b))
        return false;
    vec3 d[3]; /* a.b - a.a, b.b - b.a, a.a - b.a */
    int e = mq_cl_diffs(d, (const float *const[]){a->b, b->b, a->a}, (const float *const[]){a->a, b->a, b->a}, 3);
    float s, t;
    float d2 = mq_cl_segment_segment(d[0], d[1], d[2], &s, &t);
    return mq_cl_within(d2, e, a->radius, b->radius);
}

bool mq_overlap_capsule_aabb(const mq_capsule *c, const mq_aabb *box)
{
    if (!c || !box || !mq_capsule_ok(c) || !mq_aabb_ok(box))
        return false;
    return mq_cl_capsule_aabb(c->a, c->b, c->radius, box->min, box->max);
}

bool mq_overlap_capsule_obb(const mq_capsule *c, const mq_obb *box)
{
    if (!c || !box || !mq_capsule_ok(c) || !mq_obb_is_valid(box))
        return false;
    /* The capsule in the box frame (a rigid motion, so the radius is unchanged), then
     * capsule vs the local box [-half, half]; k shrinks the frame for huge inputs. */
    vec3 l[2], lo, hi;
    float k = mq_cl_obb_local(box, (const float *const[]){c->a, c->b}, l, 2);
    for (int i = 0; i < 3; i++) {
        hi[i] = k * box->half[i];
        lo[i] = -hi[i];
    }
    return mq_cl_capsule_aabb(l[0], l[1], k * c->radius, lo, hi);
}

bool mq_overlap_capsule_triangle(const mq_capsule *c, const mq_triangle *tri)
{
    if (!c || !tri || !mq_capsule_ok(c) || !mq_triangle_ok(tri))
        return false;
    const float *a = c->a, *b = c->b, *v0 = tri->v[0], *v1 = tri->v[1], *v2 = tri->v[2];
    mq_cl_segtri st;
    int e = mq_cl_diffs(st.v, (const float *const[]){a, a, a, b, b, b, b, v1, v2, v2},
                        (const float *const[]){v0, v1, v2, v0, v1, v2, a, v0, v0, v1}, MQ_CL_ST_COUNT);
    float r = e ? ldexpf(c->radius, -e) : c->radius; /* the radius in the scaled frame, as mq_cl_within */
    return mq_cl_segment_triangle_within(&st, r * r);
}
