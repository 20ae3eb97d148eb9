/*
 * libFuzzer target for clash detection (meshquery/clash.h): a tiny mesh
 * (3..10 vertices, 1..12 triangles) with a BVH and an OBB tree, instanced
 * 1..8 times under affine transforms, and a clearance.
 *
 * Input layout (every read past the end yields 0):
 *   byte   vertex count (3 + b % 8), 3 coords per vertex (num)
 *   byte   triangle count (1 + b % 12), 3 index bytes each (mod vertex count)
 *   byte   instance count (1 + b % 8); per instance a byte (bit 0: OBB tree,
 *          bits 1-3: mask bit), translation (3 num), quaternion (4 bytes - 128),
 *          scale (3 num; 0 becomes 1)
 *   byte   clearance: b / 16, or a raw float (b = 255, then 4 bytes)
 * num: a byte b; b < 200 gives (b - 100) / 8, else a raw float from 4 bytes.
 *
 * What is checked (abort on a mismatch):
 *   - mq_scene_clash is the all-pairs loop over mq_scene_distance (mask
 *     matching), sorted, each distance <= the clearance, equal to the pair's;
 *   - 1 and 2 threads give the same list bit for bit, triangle pairs included;
 *   - an invalid clearance (negative, NaN, infinite) is MQ_ERR_INVALID_ARG.
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
            fprintf(stderr, "fuzz_clash: mismatch (line %d): %s\n", __LINE__, #cond);                                  \
            abort();                                                                                                   \
        }                                                                                                              \
    } while (0)

static double num(reader *r)
{
    uint8_t b = rd_byte(r);
    return b < 200 ? (b - 100) / 8.0 : (double)rd_raw(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    reader r = {data, size};
    uint32_t nv = 3 + rd_byte(&r) % 8;
    float pos[10 * 3];
    for (uint32_t i = 0; i < nv * 3; i++)
        pos[i] = (float)num(&r);
    uint32_t nt = 1 + rd_byte(&r) % 12;
    uint32_t idx[12 * 3];
    for (uint32_t i = 0; i < nt * 3; i++)
        idx[i] = rd_byte(&r) % nv;
    mq_mesh *mesh = NULL;
    if (mq_mesh_create(pos, nv, idx, nt, NULL, &mesh, NULL) != MQ_OK)
        return 0;
    mq_bvh *bvh = NULL;
    mq_obbtree *obb = NULL;
    mq_bvh_def bd = mq_default_bvh_def();
    bd.threads = 1;
    mq_scene *s = NULL;
    if (mq_bvh_build(mesh, &bd, &bvh, NULL) != MQ_OK || mq_obbtree_build(mesh, NULL, &obb, NULL) != MQ_OK ||
        mq_scene_create(NULL, &s, NULL) != MQ_OK)
        goto done;
    uint32_t ni = 1 + rd_byte(&r) % 8;
    for (uint32_t i = 0; i < ni; i++) {
        uint8_t b = rd_byte(&r);
        mq_instance_def d = mq_default_instance_def();
        if (b & 1)
            d.obbtree = obb;
        else
            d.bvh = bvh;
        d.mask = 1u << ((b >> 1) & 7);
        mq_dvec3 t, sc;
        double q[4];
        for (int k = 0; k < 3; k++)
            t[k] = num(&r);
        for (int k = 0; k < 4; k++)
            q[k] = rd_byte(&r) - 128.0;
        if (q[0] == 0 && q[1] == 0 && q[2] == 0 && q[3] == 0)
            q[0] = 1;
        for (int k = 0; k < 3; k++) {
            sc[k] = num(&r);
            if (sc[k] == 0)
                sc[k] = 1;
        }
        d.transform = mq_xform_from_trs(t, q, sc);
        uint32_t id;
        mq_scene_add(s, &d, &id, NULL); /* a rejected transform leaves the instance out */
    }
    if (mq_scene_commit(s, NULL) != MQ_OK)
        goto done;
    uint8_t cb = rd_byte(&r);
    double clearance = cb == 255 ? (double)rd_raw(&r) : cb / 16.0;
    mq_clash_options o = mq_default_clash_options();
    o.clearance = clearance;
    o.threads = 1;
    o.max_triangle_pairs = 3;
    o.mask = 0x0F;
    mq_clash_list *l1 = NULL, *l2 = NULL;
    mq_status st = mq_scene_clash(s, &o, &l1, NULL);
    if (!(clearance >= 0.0) || !isfinite(clearance)) {
        CHECK(st == MQ_ERR_INVALID_ARG && !l1);
        goto done;
    }
    CHECK(st == MQ_OK);
    o.threads = 2;
    CHECK(mq_scene_clash(s, &o, &l2, NULL) == MQ_OK);
    size_t n = mq_clash_list_count(l1), k = 0;
    CHECK(n == mq_clash_list_count(l2));
    for (size_t i = 0; i < n; i++) {
        const mq_clash *a = mq_clash_list_get(l1, i), *b = mq_clash_list_get(l2, i);
        CHECK(memcmp(a, b, sizeof *a) == 0);
        size_t pa, pb;
        const mq_clash_tri_pair *xa = mq_clash_list_pairs(l1, i, &pa), *xb = mq_clash_list_pairs(l2, i, &pb);
        CHECK(pa == pb && pa == a->pair_count && pa <= 3 && (pa == 0 || memcmp(xa, xb, pa * sizeof *xa) == 0));
        for (size_t j = 0; j < pa; j++)
            CHECK(xa[j].distance <= clearance);
    }
    /* the all-pairs loop */
    uint32_t count = (uint32_t)mq_scene_instance_count(s);
    for (uint32_t a = 0; a < 8; a++) {
        mq_instance_def da;
        if (!mq_scene_instance(s, a, &da) || !(da.mask & 0x0F))
            continue;
        for (uint32_t b = a + 1; b < 8; b++) {
            mq_instance_def db;
            if (!mq_scene_instance(s, b, &db) || !(db.mask & 0x0F))
                continue;
            mq_instance_distance dist;
            if (!mq_scene_distance(s, a, b, clearance, &dist))
                continue;
            CHECK(k < n);
            const mq_clash *c = mq_clash_list_get(l1, k++);
            CHECK(c->instance_a == a && c->instance_b == b);
            CHECK(c->distance == dist.distance && c->distance <= clearance);
        }
    }
    CHECK(k == n);
    (void)count;
    mq_clash_list_destroy(l2);
    mq_clash_list_destroy(l1);
done:
    mq_scene_destroy(s);
    mq_obbtree_destroy(obb);
    mq_bvh_destroy(bvh);
    mq_mesh_destroy(mesh);
    return 0;
}
