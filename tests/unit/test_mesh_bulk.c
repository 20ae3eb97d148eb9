/* mq_mesh_copy_triangle_faces / _lines / _name_ids: the per-triangle accessors
 * (mq_mesh_face_index, mq_mesh_face_line, mq_mesh_face_name_id) for a range of
 * triangles in one call, checked entry by entry against them on an OBJ mesh with
 * polygons, groups, objects and materials, and on an array mesh. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <string.h>

#include <meshquery/mesh.h>
#include <meshquery/obj.h>

#include "test_support.h"

/* Faces of 3, 4 and 5 corners (1, 2 and 3 triangles), under changing names. */
static const char obj_text[] = "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0.5 1.5 0\n"
                               "f 1 2 3\n"
                               "g left side\nusemtl red\n"
                               "f 1 2 3 4\n"
                               "o thing\n"
                               "f 1 2 3 5 4\n"
                               "g right\n\n\nusemtl blue\n"
                               "f 2 3 4\n"
                               "f 1 3 4\n";

static mq_mesh *load(void)
{
    mq_mesh *m = NULL;
    assert_int_equal(mq_obj_load_memory(obj_text, sizeof obj_text - 1, "bulk.obj", NULL, &m, NULL, NULL), MQ_OK);
    assert_int_equal(mq_mesh_triangle_count(m), 8);
    return m;
}

/* Every range [first, first + count) of m against the one-triangle accessors. */
static void check_ranges(const mq_mesh *m)
{
    size_t n = mq_mesh_triangle_count(m);
    for (size_t first = 0; first <= n + 1; first++) {
        for (size_t count = 0; count <= n + 2; count++) {
            uint32_t faces[16], ids[16];
            uint64_t lines[16];
            size_t want = first >= n ? 0 : (count < n - first ? count : n - first);
            memset(faces, 0xab, sizeof faces);
            assert_int_equal(mq_mesh_copy_triangle_faces(m, first, count, faces), want);
            assert_int_equal(mq_mesh_copy_triangle_lines(m, first, count, lines), want);
            for (size_t i = 0; i < want; i++) {
                uint32_t face = mq_mesh_face_index(m, (uint32_t)(first + i));
                assert_int_equal(faces[i], face);
                assert_int_equal(lines[i], mq_mesh_face_line(m, face));
            }
            assert_int_equal(faces[want], 0xabababab); /* nothing past the clipped range */
            for (int kind = 0; kind < 3; kind++) {
                assert_int_equal(mq_mesh_copy_triangle_name_ids(m, (mq_name_kind)kind, first, count, ids), want);
                for (size_t i = 0; i < want; i++) {
                    uint32_t face = mq_mesh_face_index(m, (uint32_t)(first + i));
                    assert_int_equal(ids[i], mq_mesh_face_name_id(m, (mq_name_kind)kind, face));
                }
            }
        }
    }
}

static void obj_mesh_matches_per_triangle_accessors(void **state)
{
    (void)state;
    mq_mesh *m = load();
    check_ranges(m);
    /* the file's own terms: triangles 3..5 are the pentagon on line 11, in group "left side", object "thing" */
    uint32_t faces[8], groups[8], objects[8], materials[8];
    uint64_t lines[8];
    assert_int_equal(mq_mesh_copy_triangle_faces(m, 0, 8, faces), 8);
    assert_int_equal(mq_mesh_copy_triangle_lines(m, 0, 8, lines), 8);
    assert_int_equal(mq_mesh_copy_triangle_name_ids(m, MQ_NAME_GROUP, 0, 8, groups), 8);
    assert_int_equal(mq_mesh_copy_triangle_name_ids(m, MQ_NAME_OBJECT, 0, 8, objects), 8);
    assert_int_equal(mq_mesh_copy_triangle_name_ids(m, MQ_NAME_MATERIAL, 0, 8, materials), 8);
    const uint32_t want_faces[8] = {0, 1, 1, 2, 2, 2, 3, 4};
    const uint64_t want_lines[8] = {6, 9, 9, 11, 11, 11, 16, 17};
    assert_memory_equal(faces, want_faces, sizeof faces);
    assert_memory_equal(lines, want_lines, sizeof lines);
    assert_string_equal(mq_mesh_name(m, MQ_NAME_GROUP, groups[0]), "");
    assert_string_equal(mq_mesh_name(m, MQ_NAME_GROUP, groups[3]), "left side");
    assert_string_equal(mq_mesh_name(m, MQ_NAME_GROUP, groups[7]), "right");
    assert_string_equal(mq_mesh_name(m, MQ_NAME_OBJECT, objects[2]), "");
    assert_string_equal(mq_mesh_name(m, MQ_NAME_OBJECT, objects[5]), "thing");
    assert_string_equal(mq_mesh_name(m, MQ_NAME_MATERIAL, materials[1]), "red");
    assert_string_equal(mq_mesh_name(m, MQ_NAME_MATERIAL, materials[6]), "blue");
    mq_mesh_destroy(m);
}

static void array_mesh_and_bunny(void **state)
{
    (void)state;
    static const float pos[12] = {0, 0, 0, 2, 0, 0, 2, 2, 0, 0, 2, 0};
    static const uint32_t idx[9] = {0, 1, 2, 0, 2, 3, 1, 2, 3};
    mq_mesh *m = NULL;
    assert_int_equal(mq_mesh_create(pos, 4, idx, 3, NULL, &m, NULL), MQ_OK);
    check_ranges(m); /* identity faces, no lines (0), name id 0 */
    uint64_t lines[3];
    assert_int_equal(mq_mesh_copy_triangle_lines(m, 0, 3, lines), 3);
    assert_true(lines[0] == 0 && lines[1] == 0 && lines[2] == 0);
    mq_mesh_destroy(m);

    mq_mesh *bunny = mq_test_load_mesh("stanford-bunny.obj");
    size_t n = mq_mesh_triangle_count(bunny);
    uint32_t *faces = test_malloc(n * sizeof *faces);
    uint64_t *blines = test_malloc(n * sizeof *blines);
    assert_int_equal(mq_mesh_copy_triangle_faces(bunny, 0, SIZE_MAX, faces), n);
    assert_int_equal(mq_mesh_copy_triangle_lines(bunny, 0, n, blines), n);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(faces[i], mq_mesh_face_index(bunny, (uint32_t)i));
        assert_int_equal(blines[i], mq_mesh_face_line(bunny, faces[i]));
    }
    test_free(faces);
    test_free(blines);
    mq_mesh_destroy(bunny);
}

static void invalid_arguments_write_nothing(void **state)
{
    (void)state;
    mq_mesh *m = load();
    uint32_t out[2] = {7, 7};
    uint64_t lines[2] = {7, 7};
    assert_int_equal(mq_mesh_copy_triangle_faces(NULL, 0, 2, out), 0);
    assert_int_equal(mq_mesh_copy_triangle_faces(m, 0, 2, NULL), 0);
    assert_int_equal(mq_mesh_copy_triangle_lines(NULL, 0, 2, lines), 0);
    assert_int_equal(mq_mesh_copy_triangle_lines(m, 0, 2, NULL), 0);
    assert_int_equal(mq_mesh_copy_triangle_name_ids(NULL, MQ_NAME_GROUP, 0, 2, out), 0);
    assert_int_equal(mq_mesh_copy_triangle_name_ids(m, MQ_NAME_GROUP, 0, 2, NULL), 0);
    assert_int_equal(mq_mesh_copy_triangle_name_ids(m, (mq_name_kind)3, 0, 2, out), 0);
    assert_int_equal(mq_mesh_copy_triangle_faces(m, SIZE_MAX, 2, out), 0);
    assert_int_equal(mq_mesh_copy_triangle_faces(m, 8, 2, out), 0);
    assert_true(out[0] == 7 && out[1] == 7 && lines[0] == 7 && lines[1] == 7);
    mq_mesh_destroy(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(obj_mesh_matches_per_triangle_accessors),
        cmocka_unit_test(array_mesh_and_bunny),
        cmocka_unit_test(invalid_arguments_write_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
