/* OBJ reader: every accepted syntax form and quirk, from inline OBJ text. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <meshquery/obj.h>

#include "test_support.h"

/* Loads text from an exactly sized heap copy (ASan sees any read past it). */
static mq_mesh *load_opt(const char *text, size_t n, const mq_obj_options *o, mq_obj_stats *stats)
{
    char *copy = malloc(n ? n : 1);
    memcpy(copy, text, n);
    mq_mesh *m = NULL;
    mq_diag d;
    mq_status st = mq_obj_load_memory(copy, n, "test.obj", o, &m, stats, &d);
    free(copy);
    if (st != MQ_OK)
        fail_msg("load failed (%s): %s:%llu:%u: %s", mq_status_string(st), d.path, (unsigned long long)d.line, d.column,
                 d.message);
    return m;
}

static mq_mesh *load(const char *text, mq_obj_stats *stats)
{
    return load_opt(text, strlen(text), NULL, stats);
}

static void assert_tri(const mq_mesh *m, uint32_t t, uint32_t a, uint32_t b, uint32_t c)
{
    const uint32_t *i = mq_mesh_indices(m) + 3 * (size_t)t;
    if (i[0] != a || i[1] != b || i[2] != c)
        fail_msg("triangle %u is (%u %u %u), expected (%u %u %u)", t, i[0], i[1], i[2], a, b, c);
}

/* Distance in units in the last place between two finite floats. */
static int64_t ulps(float a, float b)
{
    int32_t x, y;
    memcpy(&x, &a, 4);
    memcpy(&y, &b, 4);
    int64_t ix = x < 0 ? (int64_t)INT32_MIN - x : x, iy = y < 0 ? (int64_t)INT32_MIN - y : y;
    return ix > iy ? ix - iy : iy - ix;
}

static void assert_pos_ulp(const mq_mesh *m, uint32_t v, float x, float y, float z)
{
    const float *p = mq_mesh_positions(m) + 3 * (size_t)v;
    if (ulps(p[0], x) > 1 || ulps(p[1], y) > 1 || ulps(p[2], z) > 1)
        fail_msg("vertex %u is (%.9g %.9g %.9g), expected (%.9g %.9g %.9g) within 1 ulp", v, p[0], p[1], p[2], x, y, z);
}

static void assert_pos(const mq_mesh *m, uint32_t v, float x, float y, float z)
{
    const float *p = mq_mesh_positions(m) + 3 * (size_t)v;
    if (p[0] != x || p[1] != y || p[2] != z)
        fail_msg("vertex %u is (%.9g %.9g %.9g), expected (%.9g %.9g %.9g)", v, p[0], p[1], p[2], x, y, z);
}

static void one_triangle(void **state)
{
    (void)state;
    mq_obj_stats s;
    mq_mesh *m = load("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", &s);
    assert_int_equal(mq_mesh_vertex_count(m), 3);
    assert_int_equal(mq_mesh_triangle_count(m), 1);
    assert_int_equal(mq_mesh_face_count(m), 1);
    assert_tri(m, 0, 0, 1, 2);
    assert_pos(m, 1, 1, 0, 0);
    assert_int_equal(mq_mesh_face_index(m, 0), 0);
    assert_int_equal(mq_mesh_face_line(m, 0), 4);
    assert_null(mq_mesh_normals(m));
    assert_null(mq_mesh_corner_normals(m));
    assert_null(mq_mesh_texcoords(m));
    assert_null(mq_mesh_colors(m));
    assert_int_equal(s.lines, 4);
    assert_int_equal(s.faces, 1);
    assert_int_equal(s.bytes, strlen("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n"));
    assert_int_equal(s.threads, 1);
    mq_mesh_destroy(m);
}

static void vertex_w_and_colours(void **state)
{
    (void)state;
    mq_obj_stats s;
    mq_mesh *m = load("v 1 2 3 0.5\nv 4 5 6 0.1 0.2 0.3\nv 7 8 9\nf 1 2 3\n", &s);
    assert_pos(m, 0, 1, 2, 3);
    assert_pos(m, 1, 4, 5, 6);
    const float *c = mq_mesh_colors(m);
    assert_non_null(c);
    assert_true(c[0] == 1.0f && c[1] == 1.0f && c[2] == 1.0f); /* no colour: white */
    assert_true(c[3] == 0.1f && c[4] == 0.2f && c[5] == 0.3f);
    assert_true(c[6] == 1.0f);
    assert_int_equal(s.colored_vertices, 1);
    mq_mesh_destroy(m);
}

static void texcoords_and_normals(void **state)
{
    (void)state;
    mq_mesh *m = load("v 0 0 0\nv 1 0 0\nv 0 1 0\n"
                      "vt 0.25\nvt 0.5 0.75\nvt 1 1 0.5\n"
                      "vn 0 0 1\nvn 0 0 2\nvn 0 1 0\n"
                      "f 1/1/1 2/2/2 3/3/3\n",
                      NULL);
    assert_int_equal(mq_mesh_texcoord_count(m), 3);
    assert_int_equal(mq_mesh_normal_count(m), 3);
    const float *t = mq_mesh_texcoords(m);
    assert_true(t[0] == 0.25f && t[1] == 0.0f); /* vt u: v defaults to 0 */
    assert_true(t[2] == 0.5f && t[3] == 0.75f && t[4] == 1.0f && t[5] == 1.0f);
    const float *n = mq_mesh_normals(m);
    assert_true(n[5] == 2.0f); /* stored as written */
    const uint32_t *cn = mq_mesh_corner_normals(m), *ct = mq_mesh_corner_texcoords(m);
    for (int k = 0; k < 3; k++) {
        assert_int_equal(cn[k], k);
        assert_int_equal(ct[k], k);
    }
    vec3 sn;
    assert_true(mq_mesh_shading_normal(m, 0, 0.0f, 0.0f, sn)); /* corner 0: (0,0,1) */
    assert_float_equal(sn[2], 1.0f, 1e-6);
    assert_true(mq_mesh_shading_normal(m, 0, 0.0f, 1.0f, sn)); /* corner 2: (0,1,0) */
    assert_float_equal(sn[1], 1.0f, 1e-6);
    assert_true(mq_mesh_shading_normal(m, 0, 0.0f, 0.5f, sn)); /* halfway: normalised blend */
    assert_float_equal(sn[1], sqrtf(0.5f), 1e-6);
    assert_float_equal(sn[2], sqrtf(0.5f), 1e-6);
    vec2 uv;
    assert_true(mq_mesh_texcoord_at(m, 0, 0.5f, 0.5f, uv));
    assert_float_equal(uv[0], 0.75f, 1e-6);
    assert_float_equal(uv[1], 0.875f, 1e-6);
    mq_mesh_destroy(m);
}

static void all_four_corner_forms_mixed(void **state)
{
    (void)state;
    mq_mesh *m = load("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nvt 0 0\nvt 1 1\nvn 0 0 1\n"
                      "f 1 2 3\n"
                      "f 2/1 4/2 3/1\n"
                      "f 1//1 2//1 3//1\n"
                      "f 1/1/1 2/2/1 3/1/1\n"
                      "f 1 2/2 3//1\n",
                      NULL);
    assert_int_equal(mq_mesh_triangle_count(m), 5);
    const uint32_t *ct = mq_mesh_corner_texcoords(m), *cn = mq_mesh_corner_normals(m);
    assert_non_null(ct);
    assert_non_null(cn);
    assert_int_equal(ct[0], MQ_NO_INDEX);
    assert_int_equal(cn[0], MQ_NO_INDEX);
    assert_int_equal(ct[3], 0);
    assert_int_equal(ct[4], 1);
    assert_int_equal(cn[3], MQ_NO_INDEX);
    assert_int_equal(ct[6], MQ_NO_INDEX);
    assert_int_equal(cn[6], 0);
    assert_int_equal(ct[9 + 1], 1);
    assert_int_equal(cn[9 + 2], 0);
    assert_int_equal(ct[12], MQ_NO_INDEX); /* mixed within one face */
    assert_int_equal(ct[13], 1);
    assert_int_equal(cn[13], MQ_NO_INDEX);
    assert_int_equal(cn[14], 0);
    vec3 n;
    assert_false(mq_mesh_shading_normal(m, 0, 0.2f, 0.2f, n)); /* no normals: geometric one */
    assert_float_equal(n[2], 1.0f, 1e-6);
    vec2 uv;
    assert_false(mq_mesh_texcoord_at(m, 0, 0.2f, 0.2f, uv));
    mq_mesh_destroy(m);
}

static void empty_slots_in_corners(void **state)
{
    (void)state;
    mq_mesh *m = load("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1/ 2// 3/\n", NULL);
    assert_int_equal(mq_mesh_triangle_count(m), 1);
    assert_tri(m, 0, 0, 1, 2);
    assert_null(mq_mesh_corner_texcoords(m));
    mq_mesh_destroy(m);
}

static void negative_indices(void **state)
{
    (void)state;
    /* -1 is the latest vertex defined before the face, whichever face it is */
    mq_mesh *m = load("v 0 0 0\nv 1 0 0\nv 0 1 0\nf -3 -2 -1\n"
                      "v 5 5 5\nvt 0 0\nvt 1 0\nvn 0 0 1\n"
                      "f -4/-2/-1 -3/-1/-1 -1/-2/-1\n",
                      NULL);
    assert_tri(m, 0, 0, 1, 2);
    assert_tri(m, 1, 0, 1, 3);
    const uint32_t *ct = mq_mesh_corner_texcoords(m);
    assert_int_equal(ct[3], 0);
    assert_int_equal(ct[4], 1);
    assert_int_equal(ct[5], 0);
    assert_int_equal(mq_mesh_corner_normals(m)[3], 0);
    mq_mesh_destroy(m);
}

static void forward_references(void **state)
{
    (void)state;
    mq_mesh *m = load("f 1 2 3\nv 0 0 0\nv 1 0 0\nv 0 1 0\n", NULL);
    assert_tri(m, 0, 0, 1, 2);
    mq_mesh_destroy(m);
}

static void polygons_use_fan_order(void **state)
{
    (void)state;
    mq_mesh *m = load("v 0 0 0\nv 1 0 0\nv 2 1 0\nv 1 2 0\nv 0 1 0\nv 9 9 9\n"
                      "f 1 2 3\n"
                      "f 1 2 3 4 5\n"
                      "f 6 1 2\n"
                      "f 1 2 4 5\n",
                      NULL);
    assert_int_equal(mq_mesh_face_count(m), 4);
    assert_int_equal(mq_mesh_triangle_count(m), 1 + 3 + 1 + 2);
    assert_tri(m, 1, 0, 1, 2);
    assert_tri(m, 2, 0, 2, 3);
    assert_tri(m, 3, 0, 3, 4);
    assert_tri(m, 5, 0, 1, 3);
    assert_tri(m, 6, 0, 3, 4);
    const uint32_t faces[] = {0, 1, 1, 1, 2, 3, 3};
    for (uint32_t t = 0; t < 7; t++)
        assert_int_equal(mq_mesh_face_index(m, t), faces[t]);
    assert_int_equal(mq_mesh_face_line(m, 3), 10);
    mq_triangle tri;
    mq_mesh_get_triangle(m, 4, &tri);
    assert_true(tri.v[0][0] == 9.0f);
    mq_mesh_destroy(m);
}

/* Twice the signed area of a triangle in the xy plane. */
static double area_xy(const mq_mesh *m, uint32_t t)
{
    mq_triangle tr;
    mq_mesh_get_triangle(m, t, &tr);
    return ((double)tr.v[1][0] - tr.v[0][0]) * ((double)tr.v[2][1] - tr.v[0][1]) -
           ((double)tr.v[1][1] - tr.v[0][1]) * ((double)tr.v[2][0] - tr.v[0][0]);
}

static void concave_quad_is_clipped(void **state)
{
    (void)state;
    /* an arrowhead whose second corner (vertex 2) is reflex: the fan from the
     * first corner would put a triangle outside the face; the right cut is the
     * diagonal from vertex 2 to vertex 4 */
    mq_obj_stats s;
    mq_mesh *m = load("v 0 0 0\nv 1 0.2 0\nv 2 0 0\nv 1 2 0\nvn 0 0 1\nvt 0 0\nvt 1 1\n"
                      "f 1/2/1 2/1/1 3/2/1 4/1/1\n",
                      &s);
    assert_int_equal(s.clipped_faces, 1);
    assert_int_equal(mq_mesh_triangle_count(m), 2);
    double total = 0;
    for (uint32_t t = 0; t < 2; t++) {
        assert_true(area_xy(m, t) > 0.0); /* winding kept */
        total += area_xy(m, t);
        const uint32_t *i = mq_mesh_indices(m) + 3 * t;
        bool has1 = i[0] == 1 || i[1] == 1 || i[2] == 1, has3 = i[0] == 3 || i[1] == 3 || i[2] == 3;
        assert_true(has1 && has3); /* both use the diagonal through the reflex corner */
        /* texcoords follow their corners: vertex 1 and 3 have vt 1, vertex 2 and 0 have vt 2 */
        for (int k = 0; k < 3; k++)
            assert_int_equal(mq_mesh_corner_texcoords(m)[3 * t + k], (i[k] == 1 || i[k] == 3) ? 0 : 1);
    }
    assert_float_equal(total, 2 * 1.8, 1e-6); /* the arrowhead's doubled area */
    mq_mesh_destroy(m);
}

static void concave_face_seen_from_v0_keeps_fan(void **state)
{
    (void)state;
    /* the same arrowhead starting at its reflex corner: the fan is right */
    mq_obj_stats s;
    mq_mesh *m = load("v 0 0 0\nv 1 0.2 0\nv 2 0 0\nv 1 2 0\nf 2 3 4 1\n", &s);
    assert_int_equal(s.clipped_faces, 0);
    assert_tri(m, 0, 1, 2, 3);
    assert_tri(m, 1, 1, 3, 0);
    mq_mesh_destroy(m);
}

static void concave_polygon_in_other_plane(void **state)
{
    (void)state;
    /* an L shape in the yz plane, clockwise seen from +x, starting at a corner
     * that does not see the far arm: triangles keep the face's winding */
    mq_obj_stats s;
    mq_mesh *m = load("v 5 0 0\nv 5 0 2\nv 5 1 2\nv 5 1 1\nv 5 2 1\nv 5 2 0\n"
                      "f 2 3 4 5 6 1\n",
                      &s);
    assert_int_equal(s.clipped_faces, 1);
    assert_int_equal(mq_mesh_triangle_count(m), 4);
    double area = 0;
    for (uint32_t t = 0; t < 4; t++) {
        mq_triangle tr;
        mq_mesh_get_triangle(m, t, &tr);
        double a = (((double)tr.v[1][1] - tr.v[0][1]) * ((double)tr.v[2][2] - tr.v[0][2]) -
                    ((double)tr.v[1][2] - tr.v[0][2]) * ((double)tr.v[2][1] - tr.v[0][1]));
        area += a;
        assert_true(a <= 0.0); /* every cut triangle faces the same way as the face */
    }
    assert_float_equal(area, -2 * 3.0, 1e-6);
    mq_mesh_destroy(m);
}

static void names_of_groups_objects_materials(void **state)
{
    (void)state;
    mq_obj_stats s;
    mq_mesh *m = load("v 0 0 0\nv 1 0 0\nv 0 1 0\n"
                      "f 1 2 3\n"
                      "o  Body  \n"
                      "g left   arm\n"
                      "usemtl Material name with many, many spaces   \n"
                      "f 1 2 3 1\n"
                      "g\n"
                      "usemtl skin#1\n"
                      "f 1 2 3\n"
                      "g left arm\n"
                      "f 1 2 3\n",
                      &s);
    assert_int_equal(s.groups, 1);
    assert_int_equal(s.objects, 1);
    assert_int_equal(s.materials, 2);
    mq_triangle_source src;
    mq_mesh_triangle_source(m, 0, &src);
    assert_string_equal(src.group, "");
    assert_string_equal(src.object, "");
    assert_string_equal(src.material, "");
    assert_int_equal(src.line, 4);
    mq_mesh_triangle_source(m, 2, &src);
    assert_int_equal(src.face, 1);
    assert_int_equal(src.line, 8);
    assert_string_equal(src.group, "left arm");
    assert_string_equal(src.object, "Body");
    assert_string_equal(src.material, "Material name with many, many spaces");
    mq_mesh_triangle_source(m, 3, &src);
    assert_string_equal(src.group, "");
    assert_string_equal(src.material, "skin#1"); /* '#' inside a name is not a comment */
    assert_string_equal(src.object, "Body");
    mq_mesh_triangle_source(m, 4, &src);
    assert_int_equal(src.group_id, 1);
    assert_string_equal(mq_mesh_name(m, MQ_NAME_GROUP, 1), "left arm");
    assert_int_equal(mq_mesh_name_count(m, MQ_NAME_GROUP), 2);
    assert_int_equal(mq_mesh_name_count(m, MQ_NAME_MATERIAL), 3);
    assert_null(mq_mesh_name(m, MQ_NAME_GROUP, 2));
    assert_int_equal(mq_mesh_face_name_id(m, MQ_NAME_OBJECT, 0), 0);
    assert_int_equal(mq_mesh_face_name_id(m, MQ_NAME_OBJECT, 3), 1);
    mq_mesh_destroy(m);
}

static void one_name_for_all_faces(void **state)
{
    (void)state;
    mq_obj_stats s;
    mq_mesh *m = load("usemtl steel\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\nf 3 2 1\nusemtl unused\n", &s);
    assert_int_equal(s.materials, 2);
    for (uint32_t t = 0; t < 2; t++) {
        mq_triangle_source src;
        mq_mesh_triangle_source(m, t, &src);
        assert_string_equal(src.material, "steel");
    }
    mq_mesh_destroy(m);
}

static void ignored_and_unknown_statements(void **state)
{
    (void)state;
    mq_obj_stats s;
    mq_mesh *m = load("mtllib a.mtl b.mtl\ns 1\ns off\nvp 0.5\ncstype bezier\n"
                      "v 0 0 0\nv 1 0 0\nv 0 1 0\nmystery 1 2 3\nf 1 2 3\nzz\n",
                      &s);
    assert_int_equal(s.ignored_statements, 5);
    assert_int_equal(s.unknown_statements, 2);
    assert_int_equal(s.first_unknown_line, 9);
    assert_int_equal(mq_mesh_triangle_count(m), 1);
    mq_mesh_destroy(m);
}

static void lines_and_points_are_counted_not_meshed(void **state)
{
    (void)state;
    mq_obj_stats s;
    mq_mesh *m = load("v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nl 1 2 3\nl 1/1 2/1\np 1 2 3\np -1\nf 1 2 3\n", &s);
    assert_int_equal(s.line_elements, 2);
    assert_int_equal(s.point_elements, 2);
    assert_int_equal(mq_mesh_triangle_count(m), 1);
    mq_mesh_destroy(m);
}

static void comments_everywhere(void **state)
{
    (void)state;
    mq_obj_stats s;
    mq_mesh *m = load("# header\n   # indented\n#\nv 0 0 0 # trailing\nv 1 0 0#tight\nv 0 1 0\n"
                      "f 1 2 3 # a face \\\nv 9 9 9\n",
                      &s);
    /* a comment ends at its line end even after a backslash */
    assert_int_equal(mq_mesh_vertex_count(m), 4);
    assert_int_equal(s.lines, 8);
    mq_mesh_destroy(m);
}

static void line_continuation(void **state)
{
    (void)state;
    mq_obj_stats s;
    mq_mesh *m = load("v 0 0 \\\n 0\nv 1 0 0\nv \\\r\n0 1 0\nv 1 1 0\n"
                      "f 1 2 \\\n 3 \\\n4\n"
                      "g two \\\n  words\n"
                      "f 1 2 3\\\n\n",
                      &s);
    assert_int_equal(mq_mesh_vertex_count(m), 4);
    assert_pos(m, 2, 0, 1, 0);
    assert_int_equal(mq_mesh_triangle_count(m), 3);
    assert_int_equal(mq_mesh_face_line(m, 0), 7); /* the line the face starts on */
    assert_int_equal(mq_mesh_face_line(m, 1), 12);
    mq_triangle_source src;
    mq_mesh_triangle_source(m, 2, &src);
    assert_string_equal(src.group, "two words");
    assert_int_equal(s.lines, 13);
    mq_mesh_destroy(m);
}

static void line_ends_crlf_cr_mixed_and_none(void **state)
{
    (void)state;
    const char *variants[] = {
        "v 0 0 0\r\nv 1 0 0\r\nv 0 1 0\r\nf 1 2 3\r\n",
        "v 0 0 0\rv 1 0 0\rv 0 1 0\rf 1 2 3\r",
        "v 0 0 0\nv 1 0 0\r\nv 0 1 0\rf 1 2 3",
        "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3",
        "\xEF\xBB\xBFv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n",
        "\t v\t0  0\t 0  \n  v 1 0 0\nv   0 1 0\t\nf\t1   2\t3   \n\n\n",
        "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n\v\f\n",
    };
    for (size_t i = 0; i < sizeof variants / sizeof variants[0]; i++) {
        mq_obj_stats s;
        mq_mesh *m = load(variants[i], &s);
        assert_int_equal(mq_mesh_triangle_count(m), 1);
        assert_tri(m, 0, 0, 1, 2);
        assert_pos(m, 1, 1, 0, 0);
        assert_int_equal(mq_mesh_face_line(m, 0), 4);
        mq_mesh_destroy(m);
    }
}

static void number_syntaxes(void **state)
{
    (void)state;
    mq_mesh *m = load("v 1e-3 .5 +2.\n"
                      "v -0 1E+2 -.25e1\n"
                      "v 0x1.8p1 -0X10 0x.8\n"
                      "v 0.1234567890123456789012345 123456789012345678901234567890 1e-60\n"
                      "v 1.17549435e-38 1.4e-45 3.40282347e+38\n"
                      "v 007 1e0000000000000000000001 0.000000000000000000000000000001e30\n",
                      NULL);
    assert_pos(m, 0, 1e-3f, 0.5f, 2.0f);
    assert_pos(m, 1, -0.0f, 100.0f, -2.5f);
    assert_true(signbit(mq_mesh_positions(m)[3]));
    assert_pos(m, 2, 3.0f, -16.0f, 0.5f);
    assert_pos_ulp(m, 3, 0.12345678901234567890f, 1.2345678901234568e29f, 0.0f);
    assert_pos_ulp(m, 4, 1.17549435e-38f, 1.4e-45f, 3.40282347e+38f);
    assert_pos(m, 5, 7.0f, 10.0f, 1.0f);
    mq_mesh_destroy(m);
}

static void non_finite_numbers_when_allowed(void **state)
{
    (void)state;
    mq_obj_options o = mq_default_obj_options();
    o.allow_non_finite = true;
    mq_obj_stats s;
    const char *t = "v inf -Infinity NaN\nv nan(0x1) 1e39 -1e39\nv 0 0 0\nf 1 2 3\n";
    mq_mesh *m = load_opt(t, strlen(t), &o, &s);
    const float *p = mq_mesh_positions(m);
    assert_true(isinf(p[0]) && p[0] > 0 && isinf(p[1]) && p[1] < 0 && isnan(p[2]));
    assert_true(isnan(p[3]) && isinf(p[4]) && isinf(p[5]) && p[5] < 0);
    assert_int_equal(s.non_finite_values, 6);
    mq_mesh_destroy(m);
}

static void files_without_faces(void **state)
{
    (void)state;
    mq_obj_stats s;
    mq_mesh *m = load("# only a comment\n", &s);
    assert_int_equal(mq_mesh_vertex_count(m), 0);
    assert_int_equal(mq_mesh_triangle_count(m), 0);
    mq_mesh_destroy(m);
    m = load("vn 0 0 1\nv 1 2 3\nvn 0 1 0\nv 4 5 6\n", &s); /* a point cloud */
    assert_int_equal(mq_mesh_vertex_count(m), 2);
    assert_int_equal(mq_mesh_normal_count(m), 2);
    assert_int_equal(mq_mesh_triangle_count(m), 0);
    assert_null(mq_mesh_corner_normals(m));
    mq_mesh_destroy(m);
}

static void unused_normals_have_no_corner_array(void **state)
{
    (void)state;
    mq_mesh *m = load("v 0 0 0\nv 1 0 0\nv 0 1 0\nvn 0 0 1\nvt 0 0\nf 1 2 3\n", NULL);
    assert_non_null(mq_mesh_normals(m));
    assert_null(mq_mesh_corner_normals(m));
    assert_null(mq_mesh_corner_texcoords(m));
    mq_mesh_destroy(m);
}

/* Many statements of each kind, in a fixed pseudo-random mix, to compare loads
 * on several threads with one (the chunk boundaries fall everywhere). */
static char *mixed_text(size_t target, size_t *len)
{
    char *buf = malloc(target + 256);
    size_t n = 0, v = 0, vt = 0, vn = 0;
    mq_test_rng rng;
    mq_test_rng_seed(&rng, 42);
    static const char *eols[] = {"\n", "\r\n", "\r", " \\\n\n", "  # c\n"};
    while (n < target) {
        uint64_t r = mq_test_rng_u64(&rng);
        const char *eol = eols[(r >> 8) % 5];
        switch (r % 8) {
        case 0:
        case 1:
        case 2:
            n += (size_t)sprintf(buf + n, "v %.6f %.6f %.6f%s", mq_test_rng_unit(&rng), mq_test_rng_unit(&rng),
                                 mq_test_rng_unit(&rng), eol);
            v++;
            break;
        case 3:
            n += (size_t)sprintf(buf + n, "vt %.4f %.4f%s", mq_test_rng_unit(&rng), mq_test_rng_unit(&rng), eol);
            vt++;
            break;
        case 4:
            n += (size_t)sprintf(buf + n, "vn 0 0 1%s", eol);
            vn++;
            break;
        case 5:
            n += (size_t)sprintf(buf + n, "g g%u\nusemtl m%u%s", (unsigned)(r >> 20) % 7, (unsigned)(r >> 24) % 5, eol);
            break;
        default:
            if (v < 3 || !vt || !vn)
                break;
            int corners = 3 + (int)((r >> 16) % 4);
            n += (size_t)sprintf(buf + n, "f");
            for (int k = 0; k < corners; k++)
                n += (size_t)sprintf(buf + n, " -%u/%u/-1", (unsigned)(1 + (r >> (4 * k)) % v),
                                     (unsigned)(1 + (r >> (3 * k)) % vt));
            n += (size_t)sprintf(buf + n, "%s", eol);
        }
    }
    *len = n;
    return buf;
}

static void threads_give_the_same_mesh(void **state)
{
    (void)state;
    size_t len;
    char *text = mixed_text(1 << 20, &len);
    mq_obj_options one = mq_default_obj_options(), many = one;
    one.threads = 1;
    mq_obj_stats s1, s4;
    mq_mesh *a = load_opt(text, len, &one, &s1);
    for (uint32_t threads = 2; threads <= 7; threads += 5) {
        many.threads = threads;
        mq_mesh *b = load_opt(text, len, &many, &s4);
        assert_int_equal(s4.threads, threads);
        assert_int_equal(mq_mesh_vertex_count(a), mq_mesh_vertex_count(b));
        assert_int_equal(mq_mesh_triangle_count(a), mq_mesh_triangle_count(b));
        size_t nt = mq_mesh_triangle_count(a);
        assert_true(nt > 1000);
        assert_memory_equal(mq_mesh_positions(a), mq_mesh_positions(b), mq_mesh_vertex_count(a) * 12);
        assert_memory_equal(mq_mesh_indices(a), mq_mesh_indices(b), nt * 12);
        assert_memory_equal(mq_mesh_corner_texcoords(a), mq_mesh_corner_texcoords(b), nt * 12);
        assert_memory_equal(mq_mesh_corner_normals(a), mq_mesh_corner_normals(b), nt * 12);
        for (uint32_t t = 0; t < nt; t += 97) {
            mq_triangle_source x, y;
            mq_mesh_triangle_source(a, t, &x);
            mq_mesh_triangle_source(b, t, &y);
            assert_int_equal(x.face, y.face);
            assert_int_equal(x.line, y.line);
            assert_string_equal(x.group, y.group);
            assert_string_equal(x.material, y.material);
        }
        assert_int_equal(s1.lines, s4.lines);
        assert_int_equal(s1.clipped_faces, s4.clipped_faces);
        mq_mesh_destroy(b);
    }
    mq_mesh_destroy(a);
    free(text);
}

static void loads_from_a_file_path(void **state)
{
    (void)state;
    char path[] = "/tmp/mq_test_obj_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "wb");
    fputs("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3", f);
    fclose(f);
    mq_mesh *m = NULL;
    mq_obj_stats s;
    mq_diag d;
    assert_int_equal(mq_obj_load(path, NULL, &m, &s, &d), MQ_OK);
    assert_int_equal(mq_mesh_triangle_count(m), 1);
    assert_string_equal(d.message, "");
    mq_mesh_destroy(m);
    remove(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(one_triangle),
        cmocka_unit_test(vertex_w_and_colours),
        cmocka_unit_test(texcoords_and_normals),
        cmocka_unit_test(all_four_corner_forms_mixed),
        cmocka_unit_test(empty_slots_in_corners),
        cmocka_unit_test(negative_indices),
        cmocka_unit_test(forward_references),
        cmocka_unit_test(polygons_use_fan_order),
        cmocka_unit_test(concave_quad_is_clipped),
        cmocka_unit_test(concave_face_seen_from_v0_keeps_fan),
        cmocka_unit_test(concave_polygon_in_other_plane),
        cmocka_unit_test(names_of_groups_objects_materials),
        cmocka_unit_test(one_name_for_all_faces),
        cmocka_unit_test(ignored_and_unknown_statements),
        cmocka_unit_test(lines_and_points_are_counted_not_meshed),
        cmocka_unit_test(comments_everywhere),
        cmocka_unit_test(line_continuation),
        cmocka_unit_test(line_ends_crlf_cr_mixed_and_none),
        cmocka_unit_test(number_syntaxes),
        cmocka_unit_test(non_finite_numbers_when_allowed),
        cmocka_unit_test(files_without_faces),
        cmocka_unit_test(unused_normals_have_no_corner_array),
        cmocka_unit_test(threads_give_the_same_mesh),
        cmocka_unit_test(loads_from_a_file_path),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
