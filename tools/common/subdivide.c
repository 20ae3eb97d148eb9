#include "subdivide.h"

#include <stdlib.h>

#include <meshquery/mesh.h>

static void grid_point(const mqt_geometry_view *g, size_t t, unsigned i, unsigned j, unsigned K, float out[3])
{
    uint32_t v[3] = {g->indices[3 * t], g->indices[3 * t + 1], g->indices[3 * t + 2]};
    double w[3] = {(double)(K - i - j), (double)i, (double)j};
    for (int a = 0; a < 2; a++) /* sort (v, w) by vertex index: shared edges get the same floats */
        for (int b = 0; b < 2 - a; b++)
            if (v[b] > v[b + 1]) {
                uint32_t tv = v[b];
                v[b] = v[b + 1];
                v[b + 1] = tv;
                double tw = w[b];
                w[b] = w[b + 1];
                w[b + 1] = tw;
            }
    for (int k = 0; k < 3; k++) {
        double s = 0.0;
        for (int c = 0; c < 3; c++)
            s += w[c] * (double)g->positions[3 * (size_t)v[c] + k];
        out[k] = (float)(s / K);
    }
}

bool mqt_subdivide(const mqt_geometry_view *g, unsigned K, mqt_geometry *s)
{
    size_t per_tri_v = (size_t)(K + 1) * (K + 2) / 2, per_tri_t = (size_t)K * K;
    *s = (mqt_geometry){NULL, NULL, g->triangle_count * per_tri_v, g->triangle_count * per_tri_t};
    if (s->vertex_count >= UINT32_MAX) {
        *s = (mqt_geometry){0};
        return false;
    }
    s->positions = malloc(s->vertex_count * 3 * sizeof(float) + 1);
    s->indices = malloc(s->triangle_count * 3 * sizeof(uint32_t) + 1);
    if (!s->positions || !s->indices) {
        free(s->positions);
        free(s->indices);
        *s = (mqt_geometry){0};
        return false;
    }
    size_t vi = 0, ti = 0;
    for (size_t t = 0; t < g->triangle_count; t++) {
        size_t base = vi;
        for (unsigned j = 0; j <= K; j++)
            for (unsigned i = 0; i + j <= K; i++)
                grid_point(g, t, i, j, K, s->positions + 3 * vi++);
#define GRID(i, j) ((uint32_t)(base + (size_t)(j) * (2 * K + 3 - (j)) / 2 + (i)))
        for (unsigned j = 0; j < K; j++)
            for (unsigned i = 0; i + j < K; i++) {
                uint32_t *o = s->indices + 3 * ti++;
                o[0] = GRID(i, j), o[1] = GRID(i + 1, j), o[2] = GRID(i, j + 1);
                if (i + j + 1 < K) {
                    o = s->indices + 3 * ti++;
                    o[0] = GRID(i + 1, j), o[1] = GRID(i + 1, j + 1), o[2] = GRID(i, j + 1);
                }
            }
#undef GRID
    }
    return true;
}

bool mqt_subdivide_mesh(mq_mesh **mesh, unsigned K)
{
    if (K <= 1)
        return true;
    const mq_mesh *m = *mesh;
    mqt_geometry_view g = {mq_mesh_positions(m), mq_mesh_indices(m), mq_mesh_vertex_count(m),
                           mq_mesh_triangle_count(m)};
    mqt_geometry s;
    bool ok = mqt_subdivide(&g, K, &s);
    mq_mesh_destroy(*mesh);
    *mesh = NULL;
    ok = ok && mq_mesh_create(s.positions, s.vertex_count, s.indices, s.triangle_count, NULL, mesh, NULL) == MQ_OK;
    free(s.positions);
    free(s.indices);
    return ok;
}
