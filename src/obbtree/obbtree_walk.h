/*
 * The one traversal loop behind every shape-overlap query of the OBB tree:
 * depth first, a node predicate at every node and a leaf predicate at every
 * triangle of an admitted leaf, answers to a callback that may stop the walk.
 * Each query file instantiates it once with its own predicates; the loop is
 * always inlined, so the predicate calls become direct, inlinable calls.
 *
 * The stack holds the right siblings along the current path: at most one per
 * level, and the build bounds the depth below MQ_OBBTREE_STACK.
 */
#ifndef MQ_OBBTREE_OBBTREE_WALK_H
#define MQ_OBBTREE_OBBTREE_WALK_H

#include "obbtree/obbtree_node_tests.h"

typedef bool (*mq_walk_node_fn)(const mq_obbtree_node *node, const void *query);
typedef bool (*mq_walk_tri_fn)(const mq_triangle *tri, const void *query);

/* Reports every triangle passing `tri_test` in a leaf admitted by `node_test`.
 * Returns the number of reports (the last one may have stopped the walk). */
MQ_ALWAYS_INLINE size_t mq_obbtree_walk(const mq_obbtree *t, const void *query, mq_walk_node_fn node_test,
                                        mq_walk_tri_fn tri_test, mq_overlap_fn fn, void *user)
{
    if (t->node_count == 0)
        return 0;
    uint32_t stack[MQ_OBBTREE_STACK];
    int top = 0;
    uint32_t i = 0;
    size_t reported = 0;
    for (;;) {
        const mq_obbtree_node *n = &t->nodes[i];
        if (node_test(n, query)) {
            if (!mq_obbtree_node_is_leaf(n)) {
                stack[top++] = n->data;
                i++;
                continue;
            }
            uint32_t first = mq_obbtree_leaf_first(n), end = first + mq_obbtree_leaf_count(n);
            for (uint32_t k = first; k < end; k++)
                if (tri_test(&t->tris[k], query)) {
                    reported++;
                    if (!fn(t->ids[k], user))
                        return reported;
                }
        }
        if (top == 0)
            return reported;
        i = stack[--top];
    }
}

/* Collector for the _array forms: stores the first `capacity` ids, counts all. */
typedef struct mq_id_sink {
    uint32_t *out;
    size_t capacity;
    size_t count;
} mq_id_sink;

static inline bool mq_id_sink_push(uint32_t triangle, void *user)
{
    mq_id_sink *s = user;
    if (s->count < s->capacity)
        s->out[s->count] = triangle;
    s->count++;
    return true;
}

/* Callback for the yes/no forms: the first answer ends the walk. */
static inline bool mq_stop_at_first(uint32_t triangle, void *user)
{
    (void)triangle;
    (void)user;
    return false;
}

#endif
