/* OBB tree: the triangles a sphere overlaps. Node: closest point of the box to
 * the centre within the radius; leaf: mq_overlap_sphere_triangle. */
#include "primitives/shape_checks.h"
#include "primitives/shape_reduce.h"
#include "obbtree/obbtree_walk.h"
#include "obbtree/obbtree_overlap_shapes.h"
#include "obbtree/obbtree_region.h"

static bool node_test(const mq_obbtree_node *n, const void *q)
{
    const mq_sphere *s = q;
    return mq_node_overlaps_sphere(n, s->center, s->radius);
}

static bool tri_test(const mq_triangle *tri, const void *q)
{
    return mq_overlap_sphere_triangle(q, tri);
}

static size_t walk(const mq_obbtree *t, const mq_sphere *s, mq_overlap_fn fn, void *user)
{
    if (!t || !s || !mq_sphere_ok(s))
        return 0;
    double lo[3], hi[3]; /* cut down to the root box: huge shapes answer exactly (shape_reduce.h) */
    mq_sphere cut;
    if (!mq_obbtree_root_region(t, lo, hi) || !mq_sphere_reduce(s, lo, hi, &cut))
        return 0;
    s = &cut;
    return mq_obbtree_walk(t, s, node_test, tri_test, fn, user);
}

size_t mq_obbtree_sphere_overlap(const mq_obbtree *t, const mq_sphere *s, mq_overlap_fn fn, void *user)
{
    return fn ? walk(t, s, fn, user) : 0;
}

size_t mq_obbtree_sphere_overlap_array(const mq_obbtree *t, const mq_sphere *s, uint32_t *out, size_t capacity)
{
    mq_id_sink sink = {out, out ? capacity : 0, 0};
    walk(t, s, mq_id_sink_push, &sink);
    return sink.count;
}

bool mq_obbtree_sphere_overlap_any(const mq_obbtree *t, const mq_sphere *s)
{
    return walk(t, s, mq_stop_at_first, NULL) > 0;
}
