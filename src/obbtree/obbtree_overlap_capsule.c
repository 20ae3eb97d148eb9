/* OBB tree: the triangles a capsule overlaps. Node: the segment against the box
 * grown by the radius (separating axes); leaf: mq_overlap_capsule_triangle. */
#include "primitives/shape_checks.h"
#include "primitives/shape_reduce.h"
#include "obbtree/obbtree_walk.h"
#include "obbtree/obbtree_overlap_shapes.h"
#include "obbtree/obbtree_region.h"

/* The capsule and what every node test reads of it: the segment's half vector. */
typedef struct capsule_query {
    mq_capsule capsule;
    float half[3];
} capsule_query;

static bool node_test(const mq_obbtree_node *n, const void *q)
{
    const capsule_query *c = q;
    return mq_node_overlaps_capsule(n, c->capsule.a, c->half, c->capsule.radius);
}

static bool tri_test(const mq_triangle *tri, const void *q)
{
    const capsule_query *c = q;
    return mq_overlap_capsule_triangle(&c->capsule, tri);
}

static size_t walk(const mq_obbtree *t, const mq_capsule *c, mq_overlap_fn fn, void *user)
{
    if (!t || !c || !mq_capsule_ok(c))
        return 0;
    double lo[3], hi[3]; /* cut down to the root box: huge shapes answer exactly (shape_reduce.h) */
    mq_capsule cut;
    if (!mq_obbtree_root_region(t, lo, hi) || !mq_capsule_reduce(c, lo, hi, &cut))
        return 0;
    capsule_query q = {cut, {0.5f * (cut.b[0] - cut.a[0]), 0.5f * (cut.b[1] - cut.a[1]), 0.5f * (cut.b[2] - cut.a[2])}};
    return mq_obbtree_walk(t, &q, node_test, tri_test, fn, user);
}

size_t mq_obbtree_capsule_overlap(const mq_obbtree *t, const mq_capsule *c, mq_overlap_fn fn, void *user)
{
    return fn ? walk(t, c, fn, user) : 0;
}

size_t mq_obbtree_capsule_overlap_array(const mq_obbtree *t, const mq_capsule *c, uint32_t *out, size_t capacity)
{
    mq_id_sink sink = {out, out ? capacity : 0, 0};
    walk(t, c, mq_id_sink_push, &sink);
    return sink.count;
}

bool mq_obbtree_capsule_overlap_any(const mq_obbtree *t, const mq_capsule *c)
{
    return walk(t, c, mq_stop_at_first, NULL) > 0;
}
