/*
 * A shape's contact with one triangle (primitives.h: mq_contact_shape_triangle),
 * in double. Sphere and capsule are a core (point, segment) grown by a radius:
 * while the core stays apart from the triangle the contact runs along their
 * closest points; once the core meets the triangle, the core's own
 * penetration (contact_kernels.c) plus the radius. Boxes are polytopes: the
 * penetration over the separating-axis candidates.
 */
#include <math.h>

#include "core/minmax.h"
#include "primitives/contact_kernels.h"
#include "primitives/shape_checks.h"

static void to_d(mq_ct_v3 out, const vec3 a)
{
    out[0] = (double)a[0];
    out[1] = (double)a[1];
    out[2] = (double)a[2];
}

/* The shape as a core plus a radius; false when the shape is invalid or of an unknown kind. */
static bool shape_core(const mq_shape *s, mq_ct_core *c, double *r)
{
    switch (s->kind) {
    case MQ_SHAPE_SPHERE:
        if (!mq_sphere_ok(&s->u.sphere))
            return false;
        c->kind = 0;
        to_d(c->p[0], s->u.sphere.center);
        *r = (double)s->u.sphere.radius;
        return true;
    case MQ_SHAPE_CAPSULE:
        if (!mq_capsule_ok(&s->u.capsule))
            return false;
        c->kind = 1;
        to_d(c->p[0], s->u.capsule.a);
        to_d(c->p[1], s->u.capsule.b);
        *r = (double)s->u.capsule.radius;
        return true;
    case MQ_SHAPE_OBB: {
        const mq_obb *b = &s->u.obb;
        if (!mq_obb_is_valid(b))
            return false;
        c->kind = 2;
        to_d(c->p[0], b->center);
        for (int i = 0; i < 3; i++) {
            to_d(c->edge[i], b->axes[i]);
            for (int k = 0; k < 3; k++)
                c->axis[i][k] = c->edge[i][k] * (double)b->half[i];
        }
        *r = 0.0;
        return true;
    }
    case MQ_SHAPE_AABB: {
        const mq_aabb *b = &s->u.aabb;
        if (!mq_aabb_ok(b))
            return false;
        c->kind = 2;
        for (int i = 0; i < 3; i++) {
            c->p[0][i] = 0.5 * (double)b->min[i] + 0.5 * (double)b->max[i];
            for (int k = 0; k < 3; k++) {
                c->edge[i][k] = i == k ? 1.0 : 0.0;
                c->axis[i][k] = i == k ? 0.5 * (double)b->max[i] - 0.5 * (double)b->min[i] : 0.0;
            }
        }
        *r = 0.0;
        return true;
    }
    default:
        return false;
    }
}

bool mq_contact_shape_triangle(const mq_shape *shape, const mq_triangle *tri, mq_contact *out)
{
    mq_ct_core c;
    double r = 0.0;
    if (!shape || !tri || !out || !mq_triangle_ok(tri) || !shape_core(shape, &c, &r))
        return false;
    mq_ct_tri tt;
    mq_ct_v3 *t = tt.v;
    for (int i = 0; i < 3; i++)
        to_d(t[i], tri->v[i]);
    mq_contact k;
    k.triangle = UINT32_MAX;
    if (c.kind != 2) {
        mq_ct_v3 qc, qt;
        double d2;
        if (c.kind == 0) {
            d2 = mq_ct_point_triangle(c.p[0], &tt, qt);
            mq_ct_copy(qc, c.p[0]);
        } else {
            d2 = mq_ct_segment_triangle(c.p[0], c.p[1], &tt, qc, qt);
        }
        /* a core closer to the triangle than the rounding of its coordinates
         * meets it: the direction between the closest points is then noise */
        double scale = 0.0;
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                scale = mq_fmax(scale, fabs(t[i][j]));
        for (int i = 0; i <= c.kind; i++)
            for (int j = 0; j < 3; j++)
                scale = mq_fmax(scale, fabs(c.p[i][j]));
        double tiny = 0x1p-40 * scale;
        if (d2 > tiny * tiny) {
            double d = sqrt(d2);
            for (int i = 0; i < 3; i++)
                k.normal[i] = (qc[i] - qt[i]) / d;
            k.depth = r - d;
            mq_ct_copy(k.point_triangle, qt);
            mq_ct_madd(k.point_shape, qc, k.normal, -r);
            *out = k;
            return k.depth >= 0.0;
        }
    }
    double pen;
    if (!mq_ct_core_penetration(&c, &tt, &pen, k.normal))
        return false;
    /* a core that meets the triangle cannot have a negative penetration: 0 is exact then */
    if (c.kind != 2 && pen < 0.0)
        pen = 0.0;
    k.depth = pen + r;
    mq_ct_triangle_support_max(&tt, k.normal, k.point_triangle);
    mq_ct_core_support_min(&c, k.normal, k.point_shape);
    mq_ct_madd(k.point_shape, k.point_shape, k.normal, -r);
    *out = k;
    return k.depth >= 0.0;
}
