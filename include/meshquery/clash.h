/**
 * @file
 * meshquery/clash.h — clash detection over a scene: every pair of instances
 * that intersect or come within a clearance, and the distance between two
 * instances.
 *
 * Synopsis
 *   mq_default_clash_options()
 *   mq_scene_clash()                          every clashing pair, sorted
 *   mq_clash_list_count(), mq_clash_list_get(), mq_clash_list_pairs(), mq_clash_list_destroy()
 *   mq_scene_distance()                       two instances: distance, points, triangles
 *
 * Distance between two instances. Both meshes are mapped to the world by
 * their transforms, in double; the distance of a triangle pair is that of
 * meshquery/proximity.h: 0 when the mapped triangles (rounded to float
 * once, in the world shifted by the lower instance's translation, so only
 * the instances' offset enters) intersect by mq_overlap_triangle_triangle;
 * otherwise the least of the vertex-triangle and edge-edge distances of the
 * double corners. The instances' distance is the least over their triangle
 * pairs.
 *
 * Clash. A pair of committed instances (a < b) CLASHES when their distance
 * is <= the clearance d. Touching counts: two instances that only touch are
 * at distance 0 and clash for every d >= 0, d = 0 included ("touching counts
 * as a clash"). With d = 0 the clashes are exactly the pairs that intersect
 * or touch.
 *
 * How. The candidate pairs come from a self-join of the scene's top-level
 * tree (the instances' world boxes, grown by d and by the float rounding of
 * the intersection test above; no all-pairs loop), the
 * masks and the filter cut them down, then each candidate's distance is
 * measured (the dual-hierarchy walk of proximity.h, stopping beyond d) on
 * the library's thread pool. The result does not depend on the thread count:
 * the same clashes, in the same order, with the same numbers.
 *
 * Thread safety: as every scene query (scene.h): any number at once, none
 * during mq_scene_commit or mq_scene_destroy of the same scene. A clash list
 * is an independent object: it may outlive the scene.
 */
#ifndef MESHQUERY_CLASH_H
#define MESHQUERY_CLASH_H

#include <meshquery/scene.h>

/**
 * A filter: return false to skip the pair (same part, adjacent links).
 * Called with instance_a < instance_b once per candidate pair (their world
 * boxes are within d, plus the rounding above, and both masks match), on the
 * thread that called mq_scene_clash, in no particular order, before any
 * distance is measured.
 */
typedef bool (*mq_clash_filter_fn)(uint32_t instance_a, uint32_t instance_b, void *user);

/** What mq_scene_clash looks for. Start from mq_default_clash_options(). */
typedef struct mq_clash_options {
    double clearance;          /**< d: pairs at distance <= d clash; finite, >= 0; default 0 */
    uint32_t mask;             /**< only instances whose mask has a bit of this take part; default all ones */
    uint32_t threads;          /**< threads for the distances; 0 (default): one per core */
    size_t max_triangle_pairs; /**< per clash, record up to this many triangle pairs within d; default 0 */
    mq_clash_filter_fn filter; /**< optional; NULL (default): every pair */
    void *filter_user;         /**< passed to filter */
} mq_clash_options;

/** Defaults: clearance 0, every mask bit, all cores, no triangle pairs, no filter. */
MQ_API mq_clash_options mq_default_clash_options(void);

/** One clashing pair of instances. */
typedef struct mq_clash {
    uint32_t instance_a; /**< the lower instance id */
    uint32_t instance_b; /**< the higher instance id */
    double distance;     /**< their distance (0 when they intersect or touch), <= the clearance */
    uint32_t triangle_a; /**< a's triangle of a closest pair (mesh id) */
    uint32_t triangle_b; /**< b's triangle of that pair */
    mq_dvec3 point_a;    /**< the closest point on triangle_a, world */
    mq_dvec3 point_b;    /**< the closest point on triangle_b, world (equal to rounding at distance 0) */
    size_t pair_count;   /**< triangle pairs recorded (mq_clash_list_pairs), <= max_triangle_pairs */
} mq_clash;

/** A triangle pair within the clearance, recorded for a clash. */
typedef struct mq_clash_tri_pair {
    uint32_t triangle_a; /**< instance_a's triangle */
    uint32_t triangle_b; /**< instance_b's triangle */
    double distance;     /**< their distance (<= the clearance; 0 intersecting) */
} mq_clash_tri_pair;

/** Opaque result of mq_scene_clash. */
typedef struct mq_clash_list mq_clash_list;

/**
 * Every clashing pair of the committed scene's instances, sorted by
 * (instance_a, instance_b), instance_a < instance_b.
 * The triangle pairs of a clash (when opts->max_triangle_pairs > 0) are the
 * first max_triangle_pairs pairs within d found by the walk, in its order
 * (the same for the same scene and options); the witness pair of the clash
 * (triangle_a, triangle_b, points) is a pair at the least distance.
 * @param scene the committed scene (edits since the last commit are not seen).
 * @param opts NULL for the defaults; copied.
 * @param[out] out receives the list on MQ_OK (possibly empty), NULL otherwise;
 *        the caller owns it (mq_clash_list_destroy).
 * @param diag optional; filled on error.
 * @return MQ_OK; MQ_ERR_INVALID_ARG for a NULL scene or out, or a clearance
 *         that is NaN, negative or infinite; MQ_ERR_OUT_OF_MEMORY when an
 *         allocation (through the scene's allocator) fails: nothing leaks.
 */
MQ_API mq_status mq_scene_clash(const mq_scene *scene, const mq_clash_options *opts, mq_clash_list **out,
                                mq_diag *diag);

/** The number of clashes in the list (0 for NULL). */
MQ_API size_t mq_clash_list_count(const mq_clash_list *list);

/** Clash i (i < count), or NULL; valid until the list is destroyed. */
MQ_API const mq_clash *mq_clash_list_get(const mq_clash_list *list, size_t i);

/**
 * The triangle pairs recorded for clash i: *count of them (clash.pair_count),
 * or NULL and *count = 0 when there are none or i is out of range. count may
 * be NULL.
 */
MQ_API const mq_clash_tri_pair *mq_clash_list_pairs(const mq_clash_list *list, size_t i, size_t *count);

/** Frees the list (NULL: no-op). */
MQ_API void mq_clash_list_destroy(mq_clash_list *list);

/** The distance between two instances and where it is attained. */
typedef struct mq_instance_distance {
    double distance;     /**< >= 0; 0 when they intersect or touch */
    uint32_t triangle_a; /**< instance a's triangle of a closest pair */
    uint32_t triangle_b; /**< instance b's triangle */
    mq_dvec3 point_a;    /**< on triangle_a, world */
    mq_dvec3 point_b;    /**< on triangle_b, world */
} mq_instance_distance;

/**
 * The distance between committed instances a and b (the definition at the
 * top of this header), if it is at most max_distance.
 * @param scene the committed scene.
 * @param a an instance id.
 * @param b another instance id; a == b is allowed (then 0, a triangle with itself).
 * @param max_distance the largest distance looked for (>= 0, may be INFINITY).
 * @param[out] out filled when found (may be NULL).
 * @return true when the distance is <= max_distance; false otherwise, for an
 *         id that is not committed, an instance without triangles, or a NaN
 *         or negative max_distance. Masks do not apply.
 * Thread safety: as every scene query; allocates nothing.
 */
MQ_API bool mq_scene_distance(const mq_scene *scene, uint32_t a, uint32_t b, double max_distance,
                              mq_instance_distance *out);

#endif /* MESHQUERY_CLASH_H */
