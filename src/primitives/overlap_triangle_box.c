/*
 * Triangle–box overlap: the 13-axis separating axis test of Akenine-Möller
 * ("Fast 3D Triangle-Box Overlap Testing", JGT 2001; Ericson, Real-Time
 * Collision Detection §5.2.9): the 3 box face normals, the triangle normal and
 * the 9 cross products of triangle edges with box axes.
 *
 * Differences from the paper, all for exactness (see sat_internal.h):
 *   - every axis projects all three vertices (the paper projects only the two
 *     that differ in exact arithmetic; with a rounded axis the third can lie
 *     outside their span, which would be a false separation);
 *   - the box is handled in world space with its true face normals, so an OBB
 *     whose axes are only nearly orthonormal is still tested as the shape it is;
 *   - zero-area triangles need no branch: a zero normal or zero cross axis
 *     never separates, and what remains is complete — for a segment the box
 *     normals plus (segment direction x box axes), for a point the box normals.
 */
#include <meshquery/primitives.h>

#include "primitives/sat_internal.h"
#include "primitives/shape_checks.h"

typedef struct tri_box {
    const mq_sat_box *box;
    double w[3][3]; /* vertices relative to the box centre */
    double tol;     /* rounding tolerance per unit of |L|_1 */
} tri_box;

/* True when the box's projection [-r, r] (about its centre) and the triangle's are
 * apart by more than the rounding margin. */
static bool apart(const tri_box *q, const double L[3], double r)
{
    double p0 = mq_sat_dot(q->w[0], L), p1 = mq_sat_dot(q->w[1], L), p2 = mq_sat_dot(q->w[2], L);
    double lo = mq_min(p0, mq_min(p1, p2)), hi = mq_max(p0, mq_max(p1, p2));
    return mq_max(lo - r, -r - hi) > q->tol * mq_sat_norm1(L);
}

static bool separates(const tri_box *q, const double L[3])
{
    return apart(q, L, mq_sat_box_radius(q->box, L));
}

bool mq_sat_triangle_box(const mq_triangle *tri, const mq_sat_box *b)
{
    double v[3][3]; /* float -> double is exact */
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            v[i][j] = tri->v[i][j];
    tri_box q = {.box = b};
    double wmax = 0.0;
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++)
            q.w[i][j] = v[i][j] - b->c[j];
        wmax = mq_max(wmax, mq_sat_norm_inf(q.w[i]));
    }
    q.tol = MQ_SAT_MARGIN * (wmax + b->h[0] + b->h[1] + b->h[2]) + b->slack;

    /* Box face normals (the AABB overlap of the triangle's bounds, for a box with world axes). */
    for (int k = 0; k < 3; k++)
        if (apart(&q, b->n[k], b->h[k] * b->vol))
            return false;
    double L[3];
    /* Edges from the input vertices, not from w: a difference of two floats is
     * (nearly always) exact in double, so the axes below are as accurate as the
     * input allows. */
    double e[3][3];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            e[i][j] = v[(i + 1) % 3][j] - v[i][j];
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 3; k++) {
            mq_sat_cross(L, e[i], b->u[k]);
            if (separates(&q, L))
                return false;
        }
    /* Triangle plane: zero for a segment or point, which then never separates. */
    mq_sat_cross(L, e[0], e[1]);
    return !separates(&q, L);
}

bool mq_overlap_triangle_aabb(const mq_triangle *tri, const mq_aabb *box)
{
    if (!tri || !box || !mq_triangle_ok(tri) || !mq_aabb_ok(box))
        return false;
    mq_sat_box b;
    mq_sat_box_from_aabb(box, &b);
    return mq_sat_triangle_box(tri, &b);
}

/*
 * The triangle stays in world space: testing on the box's own (float) axes is
 * the same as transforming the triangle into the box frame, without rounding
 * the vertices or assuming the axes are exactly orthonormal.
 */
bool mq_overlap_triangle_obb(const mq_triangle *tri, const mq_obb *box)
{
    if (!tri || !mq_triangle_ok(tri) || !mq_obb_is_valid(box))
        return false;
    mq_sat_box b;
    mq_sat_box_from_obb(box, &b);
    return mq_sat_triangle_box(tri, &b);
}
