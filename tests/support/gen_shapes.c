#include "gen_shapes.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double gen_bounds(const mq_mesh *m, mq_aabb *box)
{
    const float *p = mq_mesh_positions(m);
    for (int k = 0; k < 3; k++) {
        box->min[k] = INFINITY;
        box->max[k] = -INFINITY;
    }
    for (size_t i = 0; i < mq_mesh_vertex_count(m); i++)
        for (int k = 0; k < 3; k++) {
            box->min[k] = fminf(box->min[k], p[3 * i + (size_t)k]);
            box->max[k] = fmaxf(box->max[k], p[3 * i + (size_t)k]);
        }
    double d2 = 0.0;
    for (int k = 0; k < 3; k++)
        d2 += ((double)box->max[k] - box->min[k]) * ((double)box->max[k] - box->min[k]);
    return sqrt(d2);
}

gen_tri_boxes gen_tri_boxes_make(const mq_mesh *m)
{
    gen_tri_boxes tb = {NULL, NULL, mq_mesh_triangle_count(m)};
    tb.tris = malloc(tb.count * sizeof *tb.tris + 1);
    tb.boxes = malloc(tb.count * sizeof *tb.boxes + 1);
    if (!tb.tris || !tb.boxes)
        abort();
    for (size_t i = 0; i < tb.count; i++) {
        mq_mesh_get_triangle(m, (uint32_t)i, &tb.tris[i]);
        for (int k = 0; k < 3; k++) {
            tb.boxes[i].min[k] = fminf(fminf(tb.tris[i].v[0][k], tb.tris[i].v[1][k]), tb.tris[i].v[2][k]);
            tb.boxes[i].max[k] = fmaxf(fmaxf(tb.tris[i].v[0][k], tb.tris[i].v[1][k]), tb.tris[i].v[2][k]);
        }
    }
    return tb;
}

void gen_tri_boxes_free(gen_tri_boxes *tb)
{
    free(tb->tris);
    free(tb->boxes);
}

bool gen_far_apart(const mq_aabb *a, const mq_aabb *b, float margin)
{
    for (int k = 0; k < 3; k++)
        if (a->min[k] > b->max[k] + margin || b->min[k] > a->max[k] + margin)
            return true;
    return false;
}

int gen_cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

float gen_size(mq_test_rng *r, double D)
{
    return (float)(D * exp(mq_test_rng_range(r, log(0.002), log(0.05))));
}

void gen_point_in(mq_test_rng *r, const mq_aabb *box, vec3 out)
{
    for (int k = 0; k < 3; k++)
        out[k] = (float)mq_test_rng_range(r, box->min[k], box->max[k]);
}

void gen_random_sphere(mq_test_rng *r, const mq_aabb *box, double D, mq_sphere *s)
{
    gen_point_in(r, box, s->center);
    s->radius = gen_size(r, D);
}

void gen_random_capsule(mq_test_rng *r, const mq_aabb *box, double D, mq_capsule *c)
{
    double dir[3], len = mq_test_rng_range(r, 0.0, 0.1 * D);
    gen_point_in(r, box, c->a);
    mq_test_rng_unit_vector(r, dir);
    for (int k = 0; k < 3; k++)
        c->b[k] = (float)(c->a[k] + len * dir[k]);
    c->radius = gen_size(r, D);
}

void gen_random_obb(mq_test_rng *r, const mq_aabb *box, double D, mq_obb *o)
{
    double q[4];
    vec3 c, h;
    gen_point_in(r, box, c);
    for (int k = 0; k < 3; k++)
        h[k] = gen_size(r, D);
    mq_test_rng_quat(r, q);
    float qf[4] = {(float)q[0], (float)q[1], (float)q[2], (float)q[3]};
    mq_obb_from_quat(c, h, qf, o);
}

void gen_random_aabb(mq_test_rng *r, const mq_aabb *box, double D, mq_aabb *a)
{
    vec3 c;
    gen_point_in(r, box, c);
    for (int k = 0; k < 3; k++) {
        float h = gen_size(r, D);
        a->min[k] = c[k] - h;
        a->max[k] = c[k] + h;
    }
}

const char *const gen_shape_names[GEN_SHAPE_KINDS] = {"sphere", "capsule", "obb", "aabb"};

void gen_shape_random(mq_test_rng *r, mq_shape_kind kind, const mq_aabb *box, double D, mq_shape *q)
{
    q->kind = kind;
    switch (kind) {
    case MQ_SHAPE_SPHERE:
        gen_random_sphere(r, box, D, &q->u.sphere);
        break;
    case MQ_SHAPE_CAPSULE:
        gen_random_capsule(r, box, D, &q->u.capsule);
        break;
    case MQ_SHAPE_OBB:
        gen_random_obb(r, box, D, &q->u.obb);
        break;
    default:
        gen_random_aabb(r, box, D, &q->u.aabb);
    }
}

void gen_shape_touching(mq_test_rng *r, mq_shape_kind kind, const gen_tri_boxes *tb, double flat_D, mq_shape *q)
{
    const mq_triangle *t = &tb->tris[mq_test_rng_u64(r) % tb->count];
    int k = (int)(mq_test_rng_u64(r) % 3);
    const float *v = t->v[k], *w = t->v[(k + 1) % 3];
    vec3 half = {0, 0, 0};
    if (flat_D > 0.0 && (mq_test_rng_u64(r) & 1)) /* flat box: one zero extent */
        for (int i = 0; i < 3; i++)
            half[i] = i == k ? 0.0f : (float)(0.01 * flat_D * mq_test_rng_unit(r));
    q->kind = kind;
    switch (kind) {
    case MQ_SHAPE_SPHERE:
        q->u.sphere = (mq_sphere){{v[0], v[1], v[2]}, 0.0f};
        break;
    case MQ_SHAPE_CAPSULE:
        q->u.capsule = (mq_capsule){{v[0], v[1], v[2]}, {w[0], w[1], w[2]}, 0.0f};
        if (flat_D > 0.0 && (mq_test_rng_u64(r) & 1)) /* zero length */
            memcpy(q->u.capsule.b, q->u.capsule.a, sizeof q->u.capsule.b);
        break;
    case MQ_SHAPE_OBB: {
        double qd[4];
        mq_test_rng_quat(r, qd);
        float qf[4] = {(float)qd[0], (float)qd[1], (float)qd[2], (float)qd[3]};
        mq_obb_from_quat(v, half, qf, &q->u.obb);
        break;
    }
    default:
        q->u.aabb = (mq_aabb){{v[0] - half[0], v[1] - half[1], v[2] - half[2]},
                              {v[0] + half[0], v[1] + half[1], v[2] + half[2]}};
    }
}

bool gen_shape_overlaps(const mq_shape *q, const mq_triangle *t)
{
    switch (q->kind) {
    case MQ_SHAPE_SPHERE:
        return mq_overlap_sphere_triangle(&q->u.sphere, t);
    case MQ_SHAPE_CAPSULE:
        return mq_overlap_capsule_triangle(&q->u.capsule, t);
    case MQ_SHAPE_OBB:
        return mq_overlap_triangle_obb(t, &q->u.obb);
    default:
        return mq_overlap_triangle_aabb(t, &q->u.aabb);
    }
}

void gen_shape_bounds(const mq_shape *q, mq_aabb *b)
{
    for (int k = 0; k < 3; k++) {
        switch (q->kind) {
        case MQ_SHAPE_SPHERE:
            b->min[k] = q->u.sphere.center[k] - q->u.sphere.radius;
            b->max[k] = q->u.sphere.center[k] + q->u.sphere.radius;
            break;
        case MQ_SHAPE_CAPSULE:
            b->min[k] = fminf(q->u.capsule.a[k], q->u.capsule.b[k]) - q->u.capsule.radius;
            b->max[k] = fmaxf(q->u.capsule.a[k], q->u.capsule.b[k]) + q->u.capsule.radius;
            break;
        case MQ_SHAPE_OBB: {
            float e = 0.0f;
            for (int i = 0; i < 3; i++)
                e += fabsf(q->u.obb.axes[i][k]) * q->u.obb.half[i];
            b->min[k] = q->u.obb.center[k] - e;
            b->max[k] = q->u.obb.center[k] + e;
            break;
        }
        default:
            b->min[k] = q->u.aabb.min[k];
            b->max[k] = q->u.aabb.max[k];
        }
    }
}

void gen_shape_print(const mq_shape *q)
{
    const float *f = (const float *)&q->u;
    size_t n = q->kind == MQ_SHAPE_SPHERE ? 4 : q->kind == MQ_SHAPE_CAPSULE ? 7 : q->kind == MQ_SHAPE_OBB ? 15 : 6;
    fprintf(stderr, "    %s", gen_shape_names[q->kind]);
    for (size_t i = 0; i < n; i++)
        fprintf(stderr, " %.9g", (double)f[i]);
    fprintf(stderr, "\n");
}

size_t gen_brute(const gen_tri_boxes *tb, const mq_shape *q, float margin, uint32_t *out)
{
    mq_aabb qb;
    gen_shape_bounds(q, &qb);
    size_t n = 0;
    for (size_t i = 0; i < tb->count; i++)
        if ((margin < 0.0f || !gen_far_apart(&tb->boxes[i], &qb, margin)) && gen_shape_overlaps(q, &tb->tris[i]))
            out[n++] = (uint32_t)i;
    return n;
}

void gen_check_init(gen_check *cs, size_t triangles)
{
    memset(cs, 0, sizeof *cs);
    cs->cap = triangles;
    cs->expect = malloc(triangles * sizeof *cs->expect + 4);
    cs->got = malloc(triangles * sizeof *cs->got + 4);
    if (!cs->expect || !cs->got)
        abort();
}

void gen_check_free(gen_check *cs)
{
    free(cs->expect);
    free(cs->got);
}

typedef struct stop_after {
    size_t calls, limit;
} stop_after;

static bool count_and_stop(uint32_t tri, void *user)
{
    (void)tri;
    stop_after *s = user;
    return ++s->calls < s->limit;
}

void gen_check_query(gen_check *cs, const gen_tri_boxes *tb, const gen_index_ops *ops, const void *const *indexes,
                     const char *const *names, size_t count, const mq_shape *q, float margin, const char *mesh)
{
    size_t n = gen_brute(tb, q, margin, cs->expect);
    cs->queries++;
    cs->total_hits += n;
    cs->nonempty += n > 0;
    for (size_t v = 0; v < count; v++) {
        size_t m = ops->array(indexes[v], q, cs->got, cs->cap);
        qsort(cs->got, m < cs->cap ? m : cs->cap, sizeof *cs->got, gen_cmp_u32);
        bool same = m == n && memcmp(cs->got, cs->expect, n * sizeof *cs->got) == 0;
        same = same && ops->any(indexes[v], q) == (n > 0);
        stop_after s = {0, 1 + n / 2};
        same = same && ops->each(indexes[v], q, count_and_stop, &s) == (n ? 1 + n / 2 : 0);
        if (!same && cs->mismatches++ < 10) {
            fprintf(stderr, "  MISMATCH %s %s %s %s: brute %zu, %s %zu\n", mesh, gen_shape_names[q->kind], ops->what,
                    names[v], n, ops->what, m);
            gen_shape_print(q);
        }
    }
}
