/*
 * What --segments and --closest draw: for every pair of mesh arguments
 * (i < j), the intersection segments of their triangle pairs
 * (mq_obbtree_intersections) or, when they do not meet, their closest pair of
 * points (mq_obbtree_distance). Each mesh is placed into the world as its
 * --place says and gets an OBB tree of its own, as mq-pick --distance does,
 * so any placement (scaled, mirrored) works and the answers are world
 * coordinates: the queries then run with the identity between the trees.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <meshquery/contacts.h>
#include <meshquery/proximity.h>

#include "render.h"

typedef struct segment_sink {
    render_pairs *out;
    size_t capacity;
    bool failed;
} segment_sink;

static bool add_segment(const mq_intersection_segment *s, void *user)
{
    segment_sink *sink = user;
    render_pairs *p = sink->out;
    if (p->segment_count == sink->capacity) {
        size_t cap = sink->capacity ? 2 * sink->capacity : 256;
        render_line *grown = realloc(p->segments, cap * sizeof *grown);
        if (!grown) {
            sink->failed = true;
            return false;
        }
        p->segments = grown;
        sink->capacity = cap;
    }
    render_line *l = &p->segments[p->segment_count++];
    memcpy(l->a, s->p0, sizeof l->a);
    memcpy(l->b, s->p1, sizeof l->b);
    return true;
}

bool render_find_pairs(const mq_mesh *const *placed, size_t count, bool segments, bool closest, render_pairs *out)
{
    memset(out, 0, sizeof *out);
    mq_obbtree **trees = calloc(count ? count : 1, sizeof *trees);
    bool ok = trees != NULL;
    for (size_t i = 0; i < count && ok; i++) {
        mq_diag diag = {0};
        mq_status st = mq_obbtree_build(placed[i], NULL, &trees[i], &diag);
        if (st != MQ_OK) {
            fprintf(stderr, "mq-render: building the OBB tree of mesh %zu failed: %s (%s)\n", i + 1, diag.message,
                    mq_status_string(st));
            ok = false;
        }
    }
    size_t closest_capacity = 0;
    segment_sink sink = {out, 0, false};
    const mq_rigid identity = {{1.0f, 0.0f, 0.0f, 0.0f}, {0.0f, 0.0f, 0.0f}};
    for (size_t i = 0; i < count && ok; i++) {
        for (size_t j = i + 1; j < count && ok; j++) {
            size_t n = segments ? mq_obbtree_intersections(trees[i], trees[j], &identity, add_segment, &sink) : 0;
            if (sink.failed) {
                fprintf(stderr, "mq-render: out of memory for the intersection segments\n");
                ok = false;
                break;
            }
            if (n > 0) {
                out->intersecting_pairs++;
                continue;
            }
            if (!closest)
                continue;
            mq_distance_result r;
            if (!mq_obbtree_distance(trees[i], trees[j], &identity, NULL, &r) || !(r.distance > 0.0)) {
                out->intersecting_pairs += r.found; /* distance 0: they meet (or touch) */
                continue;
            }
            if (out->closest_count == closest_capacity) {
                size_t cap = closest_capacity ? 2 * closest_capacity : 16;
                render_line *grown = realloc(out->closest, cap * sizeof *grown);
                if (!grown) {
                    fprintf(stderr, "mq-render: out of memory for the closest pairs\n");
                    ok = false;
                    break;
                }
                out->closest = grown;
                closest_capacity = cap;
            }
            render_line *l = &out->closest[out->closest_count++];
            memcpy(l->a, r.point_a, sizeof l->a);
            memcpy(l->b, r.point_b, sizeof l->b);
        }
    }
    for (size_t i = 0; trees && i < count; i++)
        mq_obbtree_destroy(trees[i]);
    free(trees);
    if (!ok) {
        render_free_pairs(out);
        return false;
    }
    return true;
}

void render_free_pairs(render_pairs *p)
{
    free(p->segments);
    free(p->closest);
    memset(p, 0, sizeof *p);
}
