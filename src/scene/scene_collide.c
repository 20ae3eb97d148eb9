/*
 * Instance vs instance (scene.h: mq_scene_collide), for every pair of
 * hierarchies and any affine transforms.
 *
 * Contract (scene.h): exact in the frame of instance a. a's triangles are its
 * mesh's float corners as they are; b's corners are mapped into a's mesh
 * frame by M = to_local(a) o to_world(b), composed and applied in double
 * (the translation part is A_a^-1 (t_b - t_a): only the instances' OFFSET
 * enters, so two instances 1e7 from the origin collide as they would at it),
 * and rounded to float once; mq_overlap_triangle_triangle, exact for float
 * input, decides. With a == b, or equal transforms, M is exactly the identity.
 *
 * Walk: b's hierarchy is walked with the box that a's root box occupies in
 * b's frame (widened by the rounding of that mapping), so b's triangles far
 * from a are never mapped; each remaining b triangle is mapped into a's frame
 * and a's hierarchy is walked with its float box (exact: two triangles that
 * intersect have overlapping boxes), a group of neighbouring b triangles at a
 * time (see MQ_COLLIDE_BATCH). O((k + answers) log n) for k triangles of b
 * near a, no allocation.
 *
 * Why not mq_obbtree_collide for two OBB-tree instances with a rigid relative
 * transform: it maps b's corners with the float operations of mq_rigid_apply,
 * whose roundings differ from the double mapping above, so its pairs could
 * differ from this contract on touching pairs. The fast path is therefore not
 * taken; both hierarchies go through the walk above.
 */
#include "core/minmax.h"
#include "scene/instance_overlap.h"

/* b's triangles are mapped and buffered in groups of up to MQ_COLLIDE_BATCH
 * (consecutive triangles of b's walk: one leaf, or neighbouring ones); a's
 * hierarchy is walked once per group with the union of their boxes, and each
 * a triangle found is tested against each buffered triangle whose box meets
 * its own (exact float boxes, so no intersecting pair is skipped). */
#define MQ_COLLIDE_BATCH 8

typedef struct collide_ctx {
    const mq_instance_rec *a, *b;
    double m[3][4]; /* b's mesh frame -> a's mesh frame */
    bool identity;
    mq_scene_pair_fn fn;
    void *user;
    size_t calls;
    /* buffered b triangles, in a's frame, with their boxes */
    uint32_t n;
    mq_triangle tb[MQ_COLLIDE_BATCH];
    float lo[MQ_COLLIDE_BATCH][3], hi[MQ_COLLIDE_BATCH][3];
    uint32_t tb_id[MQ_COLLIDE_BATCH];
} collide_ctx;

static bool visit_a(uint32_t id, const mq_triangle *ta, void *user)
{
    collide_ctx *c = user;
    float lo[3], hi[3];
    for (int k = 0; k < 3; k++) {
        lo[k] = mq_minf(mq_minf(ta->v[0][k], ta->v[1][k]), ta->v[2][k]);
        hi[k] = mq_maxf(mq_maxf(ta->v[0][k], ta->v[1][k]), ta->v[2][k]);
    }
    for (uint32_t j = 0; j < c->n; j++) {
        if (lo[0] > c->hi[j][0] || lo[1] > c->hi[j][1] || lo[2] > c->hi[j][2] || hi[0] < c->lo[j][0] ||
            hi[1] < c->lo[j][1] || hi[2] < c->lo[j][2] || !mq_overlap_triangle_triangle(ta, &c->tb[j]))
            continue;
        c->calls++;
        if (!c->fn(id, c->tb_id[j], c->user))
            return false;
    }
    return true;
}

/* Tests the buffered b triangles against a; false when fn stopped the query. */
static bool flush(collide_ctx *c)
{
    if (c->n == 0)
        return true;
    mq_walk_box q;
    for (int k = 0; k < 3; k++) {
        q.lo[k] = c->lo[0][k];
        q.hi[k] = c->hi[0][k];
        for (uint32_t j = 1; j < c->n; j++) {
            q.lo[k] = mq_minf(q.lo[k], c->lo[j][k]);
            q.hi[k] = mq_maxf(q.hi[k], c->hi[j][k]);
        }
        q.c[k] = 0.0f;
    }
    q.r2 = INFINITY;
    bool go_on =
        c->a->bvh ? mq_bvh_walk_box(c->a->bvh, &q, visit_a, c) : mq_obbtree_walk_box(c->a->obbtree, &q, visit_a, c);
    c->n = 0;
    return go_on;
}

static bool visit_b(uint32_t id, const mq_triangle *local_b, void *user)
{
    collide_ctx *c = user;
    uint32_t j = c->n;
    mq_triangle *t = &c->tb[j];
    if (c->identity) {
        *t = *local_b;
    } else {
        for (int v = 0; v < 3; v++) {
            const float *p = local_b->v[v];
            for (int i = 0; i < 3; i++)
                t->v[v][i] = (float)(c->m[i][0] * p[0] + c->m[i][1] * p[1] + c->m[i][2] * p[2] + c->m[i][3]);
        }
    }
    for (int k = 0; k < 3; k++) {
        c->lo[j][k] = mq_minf(mq_minf(t->v[0][k], t->v[1][k]), t->v[2][k]);
        c->hi[j][k] = mq_maxf(mq_maxf(t->v[0][k], t->v[1][k]), t->v[2][k]);
        if (!isfinite(c->lo[j][k]) || !isfinite(c->hi[j][k])) /* overflow or NaN after mapping: meets nothing */
            return true;
    }
    c->tb_id[j] = id;
    c->n++;
    return c->n < MQ_COLLIDE_BATCH || flush(c);
}

static bool same_transform(const mq_instance_rec *a, const mq_instance_rec *b)
{
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++)
            if (a->to_world.m[i][j] != b->to_world.m[i][j])
                return false;
    return true;
}

/* c->m := to_local(a) o to_world(b), with the translation from the offset t_b - t_a. */
static void compose(collide_ctx *c)
{
    const mq_xform *la = &c->a->to_local, *wb = &c->b->to_world, *wa = &c->a->to_world;
    double dt[3];
    for (int k = 0; k < 3; k++)
        dt[k] = wb->m[k][3] - wa->m[k][3];
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++)
            c->m[i][j] = la->m[i][0] * wb->m[0][j] + la->m[i][1] * wb->m[1][j] + la->m[i][2] * wb->m[2][j];
        c->m[i][3] = la->m[i][0] * dt[0] + la->m[i][1] * dt[1] + la->m[i][2] * dt[2];
    }
}

/* The box a's local root box occupies in b's mesh frame, widened; false when empty. */
static bool a_box_in_b(const collide_ctx *c, mq_walk_box *q)
{
    const mq_aabb *ab = &c->a->local_box;
    for (int k = 0; k < 3; k++)
        if (!(ab->min[k] <= ab->max[k]))
            return false;
    if (c->identity) {
        double lo[3], hi[3];
        for (int k = 0; k < 3; k++) {
            lo[k] = ab->min[k];
            hi[k] = ab->max[k];
        }
        mq_walk_box_set(q, lo, hi, 0.0);
        return true;
    }
    /* a frame -> b frame: to_local(b) o to_world(a) */
    const mq_xform *lb = &c->b->to_local, *wa = &c->a->to_world, *wb = &c->b->to_world;
    double n[3][4], dt[3];
    for (int k = 0; k < 3; k++)
        dt[k] = wa->m[k][3] - wb->m[k][3];
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++)
            n[i][j] = lb->m[i][0] * wa->m[0][j] + lb->m[i][1] * wa->m[1][j] + lb->m[i][2] * wa->m[2][j];
        n[i][3] = lb->m[i][0] * dt[0] + lb->m[i][1] * dt[1] + lb->m[i][2] * dt[2];
    }
    double lo[3], hi[3], mag = 0.0;
    for (int i = 0; i < 3; i++) {
        double ctr = n[i][3], ext = 0.0;
        for (int j = 0; j < 3; j++) {
            double cj = 0.5 * (double)ab->min[j] + 0.5 * (double)ab->max[j];
            double hj = 0.5 * (double)ab->max[j] - 0.5 * (double)ab->min[j];
            ctr += n[i][j] * cj;
            ext += fabs(n[i][j]) * hj;
        }
        lo[i] = ctr - ext;
        hi[i] = ctr + ext;
        mag = mq_fmax(mag, mq_fmax(fabs(lo[i]), fabs(hi[i])));
    }
    /* b's corners are rounded in a's frame: up to a few ulp of a's magnitude,
     * worth sigma_max(a) / sigma_min(b) in b's frame; plus the composition's own rounding */
    double rel = mq_fmax(mq_inst_rel_slack(c->a), mq_inst_rel_slack(c->b));
    double grow = rel * (mag + mq_inst_local_magnitude(c->a) * c->a->sigma_max / c->b->sigma_min);
    if (!isfinite(grow))
        return false;
    mq_walk_box_set(q, lo, hi, grow);
    return true;
}

static size_t collide(const mq_scene *scene, uint32_t a, uint32_t b, mq_scene_pair_fn fn, void *user)
{
    if (!scene || !fn)
        return 0;
    collide_ctx c;
    c.a = mq_scene_record(scene, a);
    c.b = mq_scene_record(scene, b);
    if (!c.a || !c.b)
        return 0;
    c.identity = a == b || same_transform(c.a, c.b);
    if (!c.identity)
        compose(&c);
    c.fn = fn;
    c.user = user;
    c.calls = 0;
    c.n = 0;
    mq_walk_box q;
    if (!a_box_in_b(&c, &q))
        return 0;
    bool go_on =
        c.b->bvh ? mq_bvh_walk_box(c.b->bvh, &q, visit_b, &c) : mq_obbtree_walk_box(c.b->obbtree, &q, visit_b, &c);
    if (go_on)
        flush(&c);
    return c.calls;
}

size_t mq_scene_collide(const mq_scene *scene, uint32_t a, uint32_t b, mq_scene_pair_fn fn, void *user)
{
    return collide(scene, a, b, fn, user);
}

typedef struct pair_sink {
    mq_tri_pair *out;
    size_t capacity, count;
} pair_sink;

static bool sink_push(uint32_t ta, uint32_t tb, void *user)
{
    pair_sink *s = user;
    if (s->count < s->capacity)
        s->out[s->count] = (mq_tri_pair){ta, tb};
    s->count++;
    return true;
}

size_t mq_scene_collide_array(const mq_scene *scene, uint32_t a, uint32_t b, mq_tri_pair *out, size_t capacity)
{
    pair_sink s = {out, out ? capacity : 0, 0};
    collide(scene, a, b, sink_push, &s);
    return s.count;
}
