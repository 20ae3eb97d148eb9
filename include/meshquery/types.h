/**
 * @file
 * meshquery/types.h — the plain value types every query speaks: rays, boxes,
 * spheres, capsules, triangles, planes and their 2D cousins, and the tagged
 * shapes mq_shape / mq_dshape (any of sphere, capsule, OBB, AABB, convex) that
 * the overlap queries take. All are transparent structs built on cglm's
 * vec2/vec3/mat3, passed by const pointer.
 *
 * Conventions (they hold everywhere in the library):
 *   - Shapes are CLOSED sets: touching counts as overlap and as a hit.
 *   - A ray is the set { origin + t*dir : tmin <= t <= tmax }; dir need not be
 *     unit length and t is measured in units of dir. tmax may be +INFINITY.
 *   - A ray is VALID when origin and dir are finite, dir is not (0,0,0), and
 *     tmin <= tmax with neither NaN. An invalid ray hits nothing.
 *   - A shape with a NaN or infinite coordinate, or a negative radius / half
 *     extent, is INVALID and overlaps nothing. Radius 0 is valid (a point or a
 *     segment); a zero half extent is valid (a flat or degenerate box).
 *   - An OBB's axes must be orthonormal to within MQ_OBB_AXIS_TOLERANCE;
 *     otherwise the OBB is invalid and overlaps / is hit by nothing.
 *   - Barycentrics (u, v) of a triangle point P: P = (1-u-v)*v0 + u*v1 + v*v2.
 */
#ifndef MESHQUERY_TYPES_H
#define MESHQUERY_TYPES_H

#include <cglm/types.h>
#include <meshquery/base.h>

/** A ray segment: origin + t*dir for t in [tmin, tmax]. Field order mirrors the .rays format. */
typedef struct mq_ray {
    vec3 origin; /**< start point (finite) */
    float tmin;  /**< lower end of the parameter interval */
    vec3 dir;    /**< direction, any non-zero finite length; t is in units of |dir| */
    float tmax;  /**< upper end of the interval; may be +INFINITY */
} mq_ray;

/** Axis-aligned box, the closed set min <= p <= max (componentwise). min > max on any axis: empty. */
typedef struct mq_aabb {
    vec3 min; /**< lower corner */
    vec3 max; /**< upper corner */
} mq_aabb;

/**
 * Oriented box: { center + sum_i s_i * axes[i] : |s_i| <= half[i] }.
 * axes[i] is the unit direction of the box's local axis i in world space (the
 * columns of the box-to-world rotation, as in a cglm column-major mat3).
 */
typedef struct mq_obb {
    vec3 center; /**< centre in world space */
    vec3 half;   /**< half extents along axes[0..2], each >= 0 */
    mat3 axes;   /**< orthonormal local axes in world space */
} mq_obb;

/** How far from orthonormal an mq_obb's axes may be (|dot| and | |a|-1 |) before it is invalid. */
#define MQ_OBB_AXIS_TOLERANCE 1e-3f

/** Solid ball: all points within `radius` of `center`. */
typedef struct mq_sphere {
    vec3 center;  /**< centre */
    float radius; /**< >= 0 */
} mq_sphere;

/** Capsule: all points within `radius` of the segment [a, b] (a == b gives a sphere). */
typedef struct mq_capsule {
    vec3 a;       /**< first end of the segment */
    vec3 b;       /**< second end of the segment */
    float radius; /**< >= 0 */
} mq_capsule;

/** Triangle v[0], v[1], v[2]; the closed set of its convex hull (a zero-area one is a segment or point). */
typedef struct mq_triangle {
    vec3 v[3]; /**< the corners; counter-clockwise seen from the side (v1-v0)x(v2-v0) points to */
} mq_triangle;

/** Plane: points p with dot(normal, p) == d. normal need not be unit length, but must be non-zero. */
typedef struct mq_plane {
    vec3 normal; /**< plane normal, non-zero (any length) */
    float d;     /**< offset: the plane is dot(normal, p) == d */
} mq_plane;

/** 2D axis-aligned rectangle (closed). */
typedef struct mq_aabb2 {
    vec2 min; /**< lower corner */
    vec2 max; /**< upper corner */
} mq_aabb2;

/** 2D oriented rectangle: { center + s*axes[0] + r*axes[1] : |s| <= half[0], |r| <= half[1] }. */
typedef struct mq_rect2 {
    vec2 center;  /**< centre */
    vec2 half;    /**< half extents, each >= 0 */
    vec2 axes[2]; /**< orthonormal axes (to within MQ_OBB_AXIS_TOLERANCE) */
} mq_rect2;

/** Where a ray meets a triangle. */
typedef struct mq_triangle_hit {
    float t; /**< ray parameter of the hit point, in [tmin, tmax] */
    /** @{ */
    float u, v; /**< barycentrics: point = (1-u-v)*v0 + u*v1 + v*v2 */
    /** @} */
    bool back_face; /**< true when dir points along the triangle's normal (v1-v0)x(v2-v0) */
} mq_triangle_hit;

/** The part of a ray inside a solid: t_enter <= t_exit, both clipped to [tmin, tmax]. */
typedef struct mq_ray_span {
    float t_enter; /**< first t inside the solid (tmin when the origin is inside) */
    float t_exit;  /**< last t inside the solid (tmax when the ray ends inside) */
} mq_ray_span;

/* ------------------------------------------------------------------------- */
/* Tagged shapes: one overlap query for every kind of shape                  */
/* ------------------------------------------------------------------------- */

/** A convex polytope, built and queried through meshquery/convex.h (opaque). */
typedef struct mq_convex mq_convex;

/**
 * Which member of an mq_shape (or mq_dshape) is set. The list is OPEN: later
 * versions add kinds, so code that switches on it
 * needs a default case. A query given a kind it does not know overlaps
 * nothing (the callback and _array forms return 0, the _any forms false).
 */
typedef enum mq_shape_kind {
    MQ_SHAPE_SPHERE = 0,  /**< u.sphere */
    MQ_SHAPE_CAPSULE = 1, /**< u.capsule */
    MQ_SHAPE_OBB = 2,     /**< u.obb */
    MQ_SHAPE_AABB = 3,    /**< u.aabb */
    MQ_SHAPE_CONVEX = 4   /**< u.convex (mq_shape) / u.convex (mq_dshape: placed, mq_dconvex) */
} mq_shape_kind;

/**
 * A query shape of any kind: what mq_bvh_overlap, mq_obbtree_overlap and
 * their _array / _any forms take. Set `kind` and the matching member of `u`,
 * or use the constructors below (mq_shape_sphere(), ...). Each kind keeps the
 * rules of its own type (types.h conventions: closed, an invalid shape
 * overlaps nothing). The union reserves 64 bytes, so sizeof(mq_shape) stays
 * the same when kinds are added.
 */
typedef struct mq_shape {
    mq_shape_kind kind; /**< which member of u is set */
    /** The shape itself. */
    union {
        mq_sphere sphere;        /**< kind MQ_SHAPE_SPHERE */
        mq_capsule capsule;      /**< kind MQ_SHAPE_CAPSULE */
        mq_obb obb;              /**< kind MQ_SHAPE_OBB */
        mq_aabb aabb;            /**< kind MQ_SHAPE_AABB */
        const mq_convex *convex; /**< kind MQ_SHAPE_CONVEX: borrowed, in the mesh's frame; must outlive the query */
        uint64_t reserved_[8];   /**< room for later kinds; keeps sizeof(mq_shape) stable */
    } u;
} mq_shape;

/** A sphere as an mq_shape: `mq_shape s = mq_shape_sphere((mq_sphere){{0, 0, 0}, 1});`. */
static inline mq_shape mq_shape_sphere(mq_sphere s)
{
    mq_shape r;
    r.kind = MQ_SHAPE_SPHERE;
    r.u.sphere = s;
    return r;
}

/** A capsule as an mq_shape. */
static inline mq_shape mq_shape_capsule(mq_capsule c)
{
    mq_shape r;
    r.kind = MQ_SHAPE_CAPSULE;
    r.u.capsule = c;
    return r;
}

/** An oriented box as an mq_shape. */
static inline mq_shape mq_shape_obb(mq_obb b)
{
    mq_shape r;
    r.kind = MQ_SHAPE_OBB;
    r.u.obb = b;
    return r;
}

/** An axis-aligned box as an mq_shape. */
static inline mq_shape mq_shape_aabb(mq_aabb b)
{
    mq_shape r;
    r.kind = MQ_SHAPE_AABB;
    r.u.aabb = b;
    return r;
}

/** A convex (meshquery/convex.h) as an mq_shape: borrowed, not copied; it must outlive the query. */
static inline mq_shape mq_shape_convex(const mq_convex *c)
{
    mq_shape r;
    r.kind = MQ_SHAPE_CONVEX;
    r.u.convex = c;
    return r;
}

/* ------------------------------------------------------------------------- */
/* Double-precision shapes: world-space queries of scenes                    */
/* ------------------------------------------------------------------------- */

/** A world-space point or vector in double precision. */
typedef double mq_dvec3[3];

/** A world ray { origin + t*dir : tmin <= t <= tmax }; dir need not be unit length. */
typedef struct mq_dray {
    mq_dvec3 origin; /**< where the ray starts (t = 0) */
    double tmin;     /**< nearest accepted t */
    mq_dvec3 dir;    /**< direction; t is measured in its units */
    double tmax;     /**< farthest accepted t; may be INFINITY */
} mq_dray;

/** World solid sphere. */
typedef struct mq_dsphere {
    mq_dvec3 center; /**< centre */
    double radius;   /**< radius, >= 0 (0: a point) */
} mq_dsphere;

/** World capsule: points within `radius` of segment a-b. */
typedef struct mq_dcapsule {
    mq_dvec3 a;    /**< one end of the axis segment */
    mq_dvec3 b;    /**< the other end (may equal a: a sphere) */
    double radius; /**< radius, >= 0 */
} mq_dcapsule;

/** World oriented box { center + sum_i s_i * axes[i] : |s_i| <= half[i] }; axes orthonormal (rows). */
typedef struct mq_dobb {
    mq_dvec3 center;   /**< centre */
    mq_dvec3 half;     /**< half extents along the axes, >= 0 */
    double axes[3][3]; /**< axes[i]: unit box axis i in world space; orthonormal */
} mq_dobb;

/** World axis-aligned box (min <= max componentwise). */
typedef struct mq_daabb {
    mq_dvec3 min; /**< smallest corner */
    mq_dvec3 max; /**< largest corner */
} mq_daabb;

/**
 * A placed convex in the world: the convex's point x sits at
 * R(rotation) x + translation, with rotation a unit quaternion w, x, y, z
 * (normalised when used; a zero or non-finite one makes the shape invalid).
 */
typedef struct mq_dconvex {
    const mq_convex *convex; /**< borrowed (meshquery/convex.h); must outlive the query */
    mq_dvec3 translation;    /**< where the convex's origin goes */
    double rotation[4];      /**< unit quaternion w, x, y, z */
} mq_dconvex;

/**
 * A world query shape of any kind, in double precision: what mq_scene_overlap,
 * mq_scene_overlap_array, mq_scene_overlap_any and the scene's shape batches
 * take. The double twin of mq_shape, with the same kinds and the same rules
 * (an unknown kind overlaps nothing). Its size stays the same when kinds are
 * added (the union reserves 128 bytes).
 */
typedef struct mq_dshape {
    mq_shape_kind kind; /**< which member of u is set */
    /** The shape itself. */
    union {
        mq_dsphere sphere;      /**< kind MQ_SHAPE_SPHERE */
        mq_dcapsule capsule;    /**< kind MQ_SHAPE_CAPSULE */
        mq_dobb obb;            /**< kind MQ_SHAPE_OBB */
        mq_daabb aabb;          /**< kind MQ_SHAPE_AABB */
        mq_dconvex convex;      /**< kind MQ_SHAPE_CONVEX */
        uint64_t reserved_[16]; /**< room for later kinds; keeps sizeof(mq_dshape) stable */
    } u;
} mq_dshape;

/** A world sphere as an mq_dshape. */
static inline mq_dshape mq_dshape_sphere(mq_dsphere s)
{
    mq_dshape r;
    r.kind = MQ_SHAPE_SPHERE;
    r.u.sphere = s;
    return r;
}

/** A world capsule as an mq_dshape. */
static inline mq_dshape mq_dshape_capsule(mq_dcapsule c)
{
    mq_dshape r;
    r.kind = MQ_SHAPE_CAPSULE;
    r.u.capsule = c;
    return r;
}

/** A world oriented box as an mq_dshape. */
static inline mq_dshape mq_dshape_obb(mq_dobb b)
{
    mq_dshape r;
    r.kind = MQ_SHAPE_OBB;
    r.u.obb = b;
    return r;
}

/** A world axis-aligned box as an mq_dshape. */
static inline mq_dshape mq_dshape_aabb(mq_daabb b)
{
    mq_dshape r;
    r.kind = MQ_SHAPE_AABB;
    r.u.aabb = b;
    return r;
}

/** A placed convex as an mq_dshape. */
static inline mq_dshape mq_dshape_convex(mq_dconvex c)
{
    mq_dshape r;
    r.kind = MQ_SHAPE_CONVEX;
    r.u.convex = c;
    return r;
}

#endif /* MESHQUERY_TYPES_H */
