/* Shading attributes of a mesh: normals, texture coordinates and colours, and
 * their interpolation at a hit's barycentrics. */
#include <math.h>

#include "core/vec3.h"
#include "mesh/mesh_internal.h"

size_t mq_mesh_normal_count(const mq_mesh *m)
{
    return m->normal_count;
}
const float *mq_mesh_normals(const mq_mesh *m)
{
    return m->normals;
}
const uint32_t *mq_mesh_corner_normals(const mq_mesh *m)
{
    return m->corner_normals;
}
size_t mq_mesh_texcoord_count(const mq_mesh *m)
{
    return m->texcoord_count;
}
const float *mq_mesh_texcoords(const mq_mesh *m)
{
    return m->texcoords;
}
const uint32_t *mq_mesh_corner_texcoords(const mq_mesh *m)
{
    return m->corner_texcoords;
}
const float *mq_mesh_colors(const mq_mesh *m)
{
    return m->colors;
}

/* Normalise in double so a tiny but valid normal does not underflow to zero. */
static void normalize_or_zero(const double n[3], vec3 out)
{
    double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    if (!(len > 0.0) || !isfinite(len)) {
        mq_v3_set(out, 0.0f, 0.0f, 0.0f);
        return;
    }
    mq_v3_set(out, (float)(n[0] / len), (float)(n[1] / len), (float)(n[2] / len));
}

void mq_mesh_triangle_normal(const mq_mesh *m, uint32_t tri, vec3 out)
{
    mq_triangle t;
    mq_mesh_get_triangle(m, tri, &t);
    double e1[3], e2[3];
    for (int k = 0; k < 3; k++) {
        e1[k] = (double)t.v[1][k] - (double)t.v[0][k];
        e2[k] = (double)t.v[2][k] - (double)t.v[0][k];
    }
    double n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
    normalize_or_zero(n, out);
}

/* The three corner indices of `tri` in a per-corner array, or false when a
 * corner has none. */
static bool corner_ids(const uint32_t *corners, size_t count, uint32_t tri, uint32_t id[3])
{
    if (!corners)
        return false;
    for (int k = 0; k < 3; k++) {
        id[k] = corners[3 * (size_t)tri + k];
        if (id[k] == MQ_NO_INDEX || id[k] >= count)
            return false;
    }
    return true;
}

bool mq_mesh_shading_normal(const mq_mesh *m, uint32_t tri, float u, float v, vec3 out)
{
    uint32_t id[3];
    if (corner_ids(m->corner_normals, m->normal_count, tri, id)) {
        double w[3] = {1.0 - (double)u - (double)v, u, v}, n[3] = {0, 0, 0};
        for (int c = 0; c < 3; c++)
            for (int k = 0; k < 3; k++)
                n[k] += w[c] * (double)m->normals[3 * (size_t)id[c] + k];
        normalize_or_zero(n, out);
        if (out[0] != 0.0f || out[1] != 0.0f || out[2] != 0.0f)
            return true;
    }
    mq_mesh_triangle_normal(m, tri, out);
    return false;
}

bool mq_mesh_texcoord_at(const mq_mesh *m, uint32_t tri, float u, float v, vec2 out)
{
    uint32_t id[3];
    out[0] = out[1] = 0.0f;
    if (!corner_ids(m->corner_texcoords, m->texcoord_count, tri, id))
        return false;
    double w[3] = {1.0 - (double)u - (double)v, u, v}, t[2] = {0, 0};
    for (int c = 0; c < 3; c++)
        for (int k = 0; k < 2; k++)
            t[k] += w[c] * (double)m->texcoords[2 * (size_t)id[c] + k];
    out[0] = (float)t[0];
    out[1] = (float)t[1];
    return true;
}
