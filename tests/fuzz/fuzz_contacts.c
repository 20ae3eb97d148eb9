/*
 * libFuzzer target for the contacts (meshquery/contacts.h): a tiny mesh
 * (3..12 vertices, 1..16 triangles) with a BVH and an OBB tree, one shape,
 * and the mesh against itself moved by a rigid transform.
 *
 * Input layout (every read past the end yields 0):
 *   byte   vertex count (3 + b % 10), 3 coords per vertex (num)
 *   byte   triangle count (1 + b % 16), 3 index bytes each (mod vertex count)
 *   byte   shape kind (b % 4: sphere, capsule, OBB, AABB), then 10 nums
 *   4+3    rotation quaternion (bytes - 128) and translation (num)
 * num: a byte b; b < 200 gives (b - 100) / 4, else a raw float from 4 bytes.
 *
 * What is checked (abort on a mismatch):
 *   - contacts (callback, array, both trees) report exactly the triangles of
 *     the overlap walk, once each; depth >= 0; with modest coordinates
 *     (|x| <= 1e4) depth and points are finite and the normal is unit;
 *   - mq_contact_shape_triangle agrees with each contact (depth clamped at 0);
 *   - intersections: as many as mq_obbtree_collide's pairs, in its order,
 *     and with modest coordinates finite ends.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <meshquery/meshquery.h>

#include "fuzz_reader.h"

#define CHECK(cond)                                                                                                    \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            fprintf(stderr, "fuzz_contacts: mismatch (line %d): %s\n", __LINE__, #cond);                               \
            abort();                                                                                                   \
        }                                                                                                              \
    } while (0)

static float num(reader *r, bool *wild)
{
    uint8_t b = rd_byte(r);
    if (b < 200)
        return (float)(b - 100) * 0.25f;
    float f = rd_raw(r);
    if (!(fabsf(f) <= 1e4f))
        *wild = true;
    return f;
}

typedef struct seen {
    uint32_t n;
    uint8_t hit[16];
    size_t calls;
    const mq_mesh *mesh;
    const mq_shape *shape;
    bool wild;
} seen;

static bool on_contact(const mq_contact *k, void *user)
{
    seen *s = user;
    CHECK(k->triangle < s->n);
    CHECK(!s->hit[k->triangle]);
    s->hit[k->triangle] = 1;
    s->calls++;
    CHECK(k->depth >= 0.0);
    mq_triangle t;
    mq_mesh_get_triangle(s->mesh, k->triangle, &t);
    mq_contact p;
    p.depth = NAN;
    mq_contact_shape_triangle(s->shape, &t, &p);
    if (!s->wild) {
        CHECK(isfinite(k->depth));
        double l = sqrt(k->normal[0] * k->normal[0] + k->normal[1] * k->normal[1] + k->normal[2] * k->normal[2]);
        CHECK(fabs(l - 1.0) <= 1e-9);
        for (int i = 0; i < 3; i++)
            CHECK(isfinite(k->point_shape[i]) && isfinite(k->point_triangle[i]));
        CHECK(k->depth == fmax(p.depth, 0.0));
    }
    return true;
}

static bool on_overlap(uint32_t tri, void *user)
{
    seen *s = user;
    CHECK(tri < s->n && s->hit[tri] == 1);
    s->hit[tri] = 2;
    return true;
}

typedef struct seg_ctx {
    const mq_tri_pair *pairs;
    size_t n, i;
    bool wild;
} seg_ctx;

static bool on_segment(const mq_intersection_segment *s, void *user)
{
    seg_ctx *c = user;
    CHECK(c->i < c->n);
    CHECK(s->triangle_a == c->pairs[c->i].a && s->triangle_b == c->pairs[c->i].b);
    c->i++;
    if (!c->wild)
        for (int k = 0; k < 3; k++)
            CHECK(isfinite(s->p0[k]) && isfinite(s->p1[k]));
    return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    reader r = {data, size};
    bool wild = false;
    uint32_t nv = 3 + rd_byte(&r) % 10;
    float pos[12 * 3];
    for (uint32_t i = 0; i < nv * 3; i++)
        pos[i] = num(&r, &wild);
    uint32_t nt = 1 + rd_byte(&r) % 16;
    uint32_t idx[16 * 3];
    for (uint32_t i = 0; i < nt * 3; i++)
        idx[i] = rd_byte(&r) % nv;
    mq_mesh *mesh = NULL;
    if (mq_mesh_create(pos, nv, idx, nt, NULL, &mesh, NULL) != MQ_OK)
        return 0;
    mq_bvh *bvh = NULL;
    mq_obbtree *obb = NULL;
    mq_bvh_def bd = mq_default_bvh_def();
    bd.threads = 1;
    if (mq_bvh_build(mesh, &bd, &bvh, NULL) != MQ_OK || mq_obbtree_build(mesh, NULL, &obb, NULL) != MQ_OK) {
        mq_bvh_destroy(bvh);
        mq_mesh_destroy(mesh);
        return 0;
    }
    int kind = rd_byte(&r) % 4;
    float v[10];
    for (int i = 0; i < 10; i++)
        v[i] = num(&r, &wild);
    mq_shape shape;
    switch (kind) {
    case 0:
        shape = mq_shape_sphere((mq_sphere){{v[0], v[1], v[2]}, v[3]});
        break;
    case 1:
        shape = mq_shape_capsule((mq_capsule){{v[0], v[1], v[2]}, {v[3], v[4], v[5]}, v[6]});
        break;
    case 2: {
        mq_obb o;
        float q[4] = {v[6], v[7], v[8], v[9]};
        mq_obb_from_quat((vec3){v[0], v[1], v[2]}, (vec3){fabsf(v[3]), fabsf(v[4]), fabsf(v[5])}, q, &o);
        shape = mq_shape_obb(o);
        break;
    }
    default:
        shape =
            mq_shape_aabb((mq_aabb){{v[0], v[1], v[2]}, {v[0] + fabsf(v[3]), v[1] + fabsf(v[4]), v[2] + fabsf(v[5])}});
        break;
    }
    for (int h = 0; h < 2; h++) {
        seen s = {nt, {0}, 0, mesh, &shape, wild};
        size_t calls =
            h ? mq_obbtree_contacts(obb, &shape, on_contact, &s) : mq_bvh_contacts(bvh, &shape, on_contact, &s);
        CHECK(calls == s.calls);
        size_t ov = h ? mq_obbtree_overlap(obb, &shape, on_overlap, &s) : mq_bvh_overlap(bvh, &shape, on_overlap, &s);
        CHECK(ov == calls);
        mq_contact arr[16];
        size_t tot = h ? mq_obbtree_contacts_array(obb, &shape, arr, 2) : mq_bvh_contacts_array(bvh, &shape, arr, 2);
        CHECK(tot == calls);
    }
    /* the mesh against itself, moved */
    mq_rigid xf;
    for (int i = 0; i < 4; i++)
        xf.rotation[i] = (float)(rd_byte(&r) - 128);
    for (int i = 0; i < 3; i++)
        xf.translation[i] = num(&r, &wild);
    if (xf.rotation[0] == 0 && xf.rotation[1] == 0 && xf.rotation[2] == 0 && xf.rotation[3] == 0)
        xf.rotation[0] = 1;
    mq_tri_pair pairs[16 * 16];
    size_t np = mq_obbtree_collide_array(obb, obb, &xf, pairs, 256);
    seg_ctx c = {pairs, np < 256 ? np : 256, 0, wild};
    size_t ns = mq_obbtree_intersections(obb, obb, &xf, on_segment, &c);
    CHECK(ns == np && c.i == ns);
    mq_obbtree_destroy(obb);
    mq_bvh_destroy(bvh);
    mq_mesh_destroy(mesh);
    return 0;
}
