/* Leaf triangle blocks (see leaf_pack.h). */
#include "bvh/leaf_pack.h"

#include <math.h>

#include <meshquery/bvh.h>

bool mq_triangle_hittable(const float *a, const float *b, const float *c)
{
    for (int k = 0; k < 3; k++)
        if (!isfinite(a[k]) || !isfinite(b[k]) || !isfinite(c[k]))
            return false;
    double e1[3], e2[3];
    for (int k = 0; k < 3; k++) {
        e1[k] = (double)b[k] - (double)a[k];
        e2[k] = (double)c[k] - (double)a[k];
    }
    double nx = e1[1] * e2[2] - e1[2] * e2[1];
    double ny = e1[2] * e2[0] - e1[0] * e2[2];
    double nz = e1[0] * e2[1] - e1[1] * e2[0];
    return nx != 0.0 || ny != 0.0 || nz != 0.0;
}

void mq_block_pad(mq_tri_block *blk, int first)
{
    for (int lane = first; lane < MQ_TRI_BLOCK; lane++) {
        for (int c = 0; c < 3; c++)
            for (int k = 0; k < 3; k++)
                blk->v[c][k][lane] = blk->v[c][k][0];
        blk->id[lane] = blk->id[0];
    }
}

void mq_block_set_lane(mq_tri_block *blk, int lane, uint32_t id, const float *positions, const uint32_t *indices,
                       float scale)
{
    const float *p[3];
    for (int c = 0; c < 3; c++)
        p[c] = positions + 3 * (size_t)indices[3 * (size_t)id + c];
    bool ok = mq_triangle_hittable(p[0], p[1], p[2]);
    for (int c = 0; c < 3; c++)
        for (int k = 0; k < 3; k++)
            blk->v[c][k][lane] = ok ? p[c][k] * scale : NAN;
    blk->id[lane] = id;
}

static inline void grow(float lo[3], float hi[3], int k, float x)
{
    lo[k] = x < lo[k] ? x : lo[k];
    hi[k] = x > hi[k] ? x : hi[k];
}

bool mq_blocks_bounds(const mq_tri_block *blk, uint32_t count, const float *mesh_positions, const uint32_t *indices,
                      float scale, float lo[3], float hi[3])
{
    bool any = false;
    for (uint32_t b = 0; b < count; b++)
        for (int lane = 0; lane < MQ_TRI_BLOCK; lane++) {
            if (!(blk[b].v[0][0][lane] == blk[b].v[0][0][lane])) {
                /* NaN: unhittable. Zero-area triangles (finite corners) still
                 * count, with the mesh's corners, as the builder's boxes do. */
                if (!mesh_positions || mq_block_lane_is_pad(&blk[b], lane))
                    continue;
                const uint32_t *idx = indices + 3 * (size_t)blk[b].id[lane];
                bool finite = true;
                for (int c = 0; c < 3; c++)
                    for (int k = 0; k < 3; k++)
                        finite = finite && isfinite(mesh_positions[3 * (size_t)idx[c] + k]);
                if (!finite)
                    continue;
                any = true;
                for (int c = 0; c < 3; c++)
                    for (int k = 0; k < 3; k++)
                        grow(lo, hi, k, mesh_positions[3 * (size_t)idx[c] + k] * scale);
                continue;
            }
            any = true;
            for (int c = 0; c < 3; c++)
                for (int k = 0; k < 3; k++) {
                    float x = blk[b].v[c][k][lane];
                    lo[k] = x < lo[k] ? x : lo[k];
                    hi[k] = x > hi[k] ? x : hi[k];
                }
        }
    return any;
}
