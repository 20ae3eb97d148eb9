/* The tools' K*K subdivision (tools/common/subdivide.c), which mq-bench uses
 * for its large meshes: the counts, the surface kept, a closed mesh kept
 * watertight (shared edges get the same floats), and the mq_mesh form. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <meshquery/mesh.h>

#include "subdivide.h"
#include "test_support.h"

/* A closed, irregular tetrahedron (coordinates that do not divide evenly). */
static float tet_positions[] = {0.1f, 0.2f, 0.3f, 1.7f, 0.1f, 0.2f, 0.4f, 1.3f, 0.1f, 0.3f, 0.5f, 1.9f};
static uint32_t tet_indices[] = {0, 2, 1, 0, 1, 3, 1, 2, 3, 2, 0, 3};

static double triangle_area(const float *p, const uint32_t *t)
{
    double e1[3], e2[3];
    for (int k = 0; k < 3; k++) {
        e1[k] = (double)p[3 * t[1] + k] - p[3 * t[0] + k];
        e2[k] = (double)p[3 * t[2] + k] - p[3 * t[0] + k];
    }
    double c[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
    return 0.5 * sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
}

/* The read-only view of a subdivision's result. */
static mqt_geometry_view view_of(const mqt_geometry *g)
{
    return (mqt_geometry_view){g->positions, g->indices, g->vertex_count, g->triangle_count};
}

static double total_area(const mqt_geometry_view *g)
{
    double a = 0.0;
    for (size_t t = 0; t < g->triangle_count; t++)
        a += triangle_area(g->positions, g->indices + 3 * t);
    return a;
}

/* Vertex ids after merging equal positions (quadratic: small meshes only). */
static uint32_t *weld(const mqt_geometry_view *g)
{
    uint32_t *id = malloc(g->vertex_count * sizeof *id);
    for (size_t i = 0; i < g->vertex_count; i++) {
        id[i] = (uint32_t)i;
        for (size_t j = 0; j < i; j++)
            if (!memcmp(g->positions + 3 * i, g->positions + 3 * j, 3 * sizeof(float))) {
                id[i] = id[j];
                break;
            }
    }
    return id;
}

/* Every welded edge is used by exactly two triangles, once in each direction. */
static void assert_closed(const mqt_geometry_view *g)
{
    uint32_t *id = weld(g);
    for (size_t t = 0; t < g->triangle_count; t++)
        for (int k = 0; k < 3; k++) {
            uint32_t a = id[g->indices[3 * t + k]], b = id[g->indices[3 * t + (k + 1) % 3]];
            int reverse = 0, same = 0;
            for (size_t u = 0; u < g->triangle_count; u++)
                for (int m = 0; m < 3; m++) {
                    uint32_t c = id[g->indices[3 * u + m]], d = id[g->indices[3 * u + (m + 1) % 3]];
                    reverse += c == b && d == a;
                    same += c == a && d == b;
                }
            if (reverse != 1 || same != 1)
                fail_msg("edge %u-%u of triangle %zu: %d opposite uses, %d same", a, b, t, reverse, same);
        }
    free(id);
}

static void test_counts_area_and_closed(void **state)
{
    (void)state;
    mqt_geometry_view g = {tet_positions, tet_indices, 4, 4};
    double area = total_area(&g);
    for (unsigned K = 1; K <= 5; K++) {
        mqt_geometry s;
        assert_true(mqt_subdivide(&g, K, &s));
        assert_int_equal(s.triangle_count, 4 * K * K);
        assert_int_equal(s.vertex_count, 4 * (K + 1) * (K + 2) / 2);
        mqt_geometry_view sv = view_of(&s);
        assert_true(fabs(total_area(&sv) - area) <= 1e-6 * area);
        assert_closed(&sv);
        free(s.positions);
        free(s.indices);
    }
}

static void test_subdivide_mesh(void **state)
{
    (void)state;
    mq_mesh *m = NULL;
    assert_int_equal(mq_mesh_create(tet_positions, 4, tet_indices, 4, NULL, &m, NULL), MQ_OK);
    mq_mesh *before = m;
    assert_true(mqt_subdivide_mesh(&m, 1)); /* K <= 1: the mesh as it was */
    assert_ptr_equal(m, before);
    assert_true(mqt_subdivide_mesh(&m, 3));
    assert_non_null(m);
    assert_int_equal(mq_mesh_triangle_count(m), 36);
    assert_int_equal(mq_mesh_vertex_count(m), 40);
    mqt_geometry_view s = {mq_mesh_positions(m), mq_mesh_indices(m), mq_mesh_vertex_count(m),
                           mq_mesh_triangle_count(m)};
    mqt_geometry_view g = {tet_positions, tet_indices, 4, 4};
    assert_true(fabs(total_area(&s) - total_area(&g)) <= 1e-6 * total_area(&g));
    assert_closed(&s);
    mq_mesh_destroy(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counts_area_and_closed),
        cmocka_unit_test(test_subdivide_mesh),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
