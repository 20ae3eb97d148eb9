/* The mesh built from plain arrays: copies, accessors, and the defaults of the
 * source bookkeeping (faces, lines, names, shading attributes) that OBJ meshes fill. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include <meshquery/mesh.h>

#include "test_support.h"

static const float quad_pos[12] = {0, 0, 0, 2, 0, 0, 2, 2, 0, 0, 2, 0};
static const uint32_t quad_idx[6] = {0, 1, 2, 0, 2, 3};

static mq_mesh *quad(void)
{
    mq_mesh *m = NULL;
    mq_diag d;
    assert_int_equal(mq_mesh_create(quad_pos, 4, quad_idx, 2, NULL, &m, &d), MQ_OK);
    return m;
}

static void arrays_are_copied(void **state)
{
    (void)state;
    float pos[12];
    uint32_t idx[6];
    memcpy(pos, quad_pos, sizeof pos);
    memcpy(idx, quad_idx, sizeof idx);
    mq_mesh *m;
    assert_int_equal(mq_mesh_create(pos, 4, idx, 2, NULL, &m, NULL), MQ_OK);
    pos[0] = 99;
    idx[0] = 3;
    assert_int_equal(mq_mesh_vertex_count(m), 4);
    assert_int_equal(mq_mesh_triangle_count(m), 2);
    assert_memory_equal(mq_mesh_positions(m), quad_pos, sizeof quad_pos);
    assert_memory_equal(mq_mesh_indices(m), quad_idx, sizeof quad_idx);
    mq_triangle t;
    mq_mesh_get_triangle(m, 1, &t);
    assert_true(t.v[0][0] == 0 && t.v[1][0] == 2 && t.v[1][1] == 2 && t.v[2][1] == 2);
    mq_mesh_destroy(m);
    mq_mesh_destroy(NULL);
}

static void array_meshes_have_one_face_per_triangle(void **state)
{
    (void)state;
    mq_mesh *m = quad();
    assert_int_equal(mq_mesh_face_count(m), 2);
    for (uint32_t t = 0; t < 2; t++) {
        assert_int_equal(mq_mesh_face_index(m, t), t);
        assert_int_equal(mq_mesh_face_line(m, t), 0);
        mq_triangle_source s;
        mq_mesh_triangle_source(m, t, &s);
        assert_int_equal(s.face, t);
        assert_int_equal(s.line, 0);
        assert_string_equal(s.group, "");
        assert_string_equal(s.object, "");
        assert_string_equal(s.material, "");
        assert_int_equal(s.group_id + s.object_id + s.material_id, 0);
    }
    for (int k = MQ_NAME_GROUP; k <= MQ_NAME_MATERIAL; k++) {
        assert_int_equal(mq_mesh_name_count(m, (mq_name_kind)k), 1);
        assert_string_equal(mq_mesh_name(m, (mq_name_kind)k, 0), "");
        assert_null(mq_mesh_name(m, (mq_name_kind)k, 1));
    }
    assert_null(mq_mesh_name(m, (mq_name_kind)7, 0));
    assert_int_equal(mq_mesh_name_count(m, (mq_name_kind)7), 0);
    mq_mesh_destroy(m);
}

static void no_shading_attributes(void **state)
{
    (void)state;
    mq_mesh *m = quad();
    assert_int_equal(mq_mesh_normal_count(m), 0);
    assert_int_equal(mq_mesh_texcoord_count(m), 0);
    assert_null(mq_mesh_normals(m));
    assert_null(mq_mesh_corner_normals(m));
    assert_null(mq_mesh_texcoords(m));
    assert_null(mq_mesh_corner_texcoords(m));
    assert_null(mq_mesh_colors(m));
    vec3 n;
    assert_false(mq_mesh_shading_normal(m, 0, 0.3f, 0.3f, n)); /* falls back to the geometric normal */
    assert_true(n[0] == 0.0f && n[1] == 0.0f && n[2] == 1.0f);
    vec2 uv = {7, 7};
    assert_false(mq_mesh_texcoord_at(m, 0, 0.3f, 0.3f, uv));
    assert_true(uv[0] == 0.0f && uv[1] == 0.0f);
    mq_mesh_destroy(m);
}

static void geometric_normals(void **state)
{
    (void)state;
    const float pos[12] = {0, 0, 0, 0, 0, 3, 0, 1e-30f, 0, 1, 1, 1};
    const uint32_t idx[9] = {0, 1, 2, 0, 0, 1, 0, 3, 3};
    mq_mesh *m;
    assert_int_equal(mq_mesh_create(pos, 4, idx, 3, NULL, &m, NULL), MQ_OK);
    vec3 n;
    mq_mesh_triangle_normal(m, 0, n); /* (0,0,3) x (0,1e-30,0) = -x, tiny but normalised */
    assert_float_equal(n[0], -1.0f, 1e-6);
    mq_mesh_triangle_normal(m, 1, n);
    assert_true(n[0] == 0.0f && n[1] == 0.0f && n[2] == 0.0f);
    mq_mesh_triangle_normal(m, 2, n);
    assert_true(n[0] == 0.0f && n[1] == 0.0f && n[2] == 0.0f);
    mq_mesh_destroy(m);
}

static void invalid_arguments(void **state)
{
    (void)state;
    mq_mesh *m = (mq_mesh *)1;
    mq_diag d;
    const uint32_t bad[3] = {0, 1, 4};
    assert_int_equal(mq_mesh_create(quad_pos, 4, bad, 1, NULL, &m, &d), MQ_ERR_INVALID_ARG);
    assert_null(m);
    assert_non_null(strstr(d.message, "index 4 out of range"));
    assert_int_equal(mq_mesh_create(NULL, 4, quad_idx, 2, NULL, &m, &d), MQ_ERR_INVALID_ARG);
    assert_int_equal(mq_mesh_create(quad_pos, 4, quad_idx, 2, NULL, NULL, &d), MQ_ERR_INVALID_ARG);
    assert_int_equal(mq_mesh_create(quad_pos, (size_t)UINT32_MAX, quad_idx, 2, NULL, &m, &d), MQ_ERR_LIMIT);
    assert_int_equal(mq_mesh_create(NULL, 0, NULL, 0, NULL, &m, &d), MQ_OK); /* an empty mesh is fine */
    assert_int_equal(mq_mesh_triangle_count(m), 0);
    assert_int_equal(mq_mesh_face_count(m), 0);
    mq_mesh_destroy(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(arrays_are_copied),     cmocka_unit_test(array_meshes_have_one_face_per_triangle),
        cmocka_unit_test(no_shading_attributes), cmocka_unit_test(geometric_normals),
        cmocka_unit_test(invalid_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
