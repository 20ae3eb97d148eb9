/* OBJ reader on real files: the test meshes of data/ (with the triangle and
 * face counts of data/SOURCES.md, and against an independent sscanf-based
 * reader), and assimp's OBJ test models in data/obj-quirks (every file loads with the counts
 * tinyobjloader or a hand count gives, or fails with a clear error; the invalid
 * ones fail). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <meshquery/obj.h>

#include "test_support.h"

/* OBJ edge cases from assimp's test models, bundled in data/obj-quirks (data/SOURCES.md). */
#define ASSIMP_DIR MQ_DATA_DIR "/obj-quirks"

/* ---- an independent reader: line by line with sscanf/strtol, fan triangulation ---- */

typedef struct simple_mesh {
    float *pos;
    size_t v, vt, vn, v_cap;
    uint32_t *idx, *tex, *nrm; /* 3 per triangle; UINT32_MAX when absent */
    size_t tris, t_cap;
} simple_mesh;

static uint32_t simple_resolve(long i, size_t count)
{
    return i < 0 ? (uint32_t)((long)count + i) : (uint32_t)(i - 1);
}

static void simple_corner(const char *tok, const simple_mesh *m, uint32_t c[3])
{
    char *end;
    c[0] = simple_resolve(strtol(tok, &end, 10), m->v);
    c[1] = c[2] = UINT32_MAX;
    if (*end == '/') {
        if (end[1] != '/')
            c[1] = simple_resolve(strtol(end + 1, &end, 10), m->vt);
        else
            end++;
        if (*end == '/')
            c[2] = simple_resolve(strtol(end + 1, &end, 10), m->vn);
    }
}

static void simple_face(char *rest, simple_mesh *m)
{
    uint32_t corners[64][3];
    int n = 0;
    for (char *tok = strtok(rest, " \t\r\n"); tok && n < 64; tok = strtok(NULL, " \t\r\n"))
        simple_corner(tok, m, corners[n++]);
    for (int k = 1; k + 1 < n; k++) {
        if (m->tris == m->t_cap) {
            m->t_cap = m->t_cap ? 2 * m->t_cap : 1024;
            m->idx = realloc(m->idx, 12 * m->t_cap);
            m->tex = realloc(m->tex, 12 * m->t_cap);
            m->nrm = realloc(m->nrm, 12 * m->t_cap);
        }
        const int order[3] = {0, k, k + 1};
        for (int j = 0; j < 3; j++) {
            m->idx[3 * m->tris + j] = corners[order[j]][0];
            m->tex[3 * m->tris + j] = corners[order[j]][1];
            m->nrm[3 * m->tris + j] = corners[order[j]][2];
        }
        m->tris++;
    }
}

static void simple_load(const char *path, simple_mesh *m)
{
    memset(m, 0, sizeof *m);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[4096];
    while (fgets(line, sizeof line, f)) {
        float x, y, z;
        if (sscanf(line, "v %f %f %f", &x, &y, &z) == 3) {
            if (m->v == m->v_cap) {
                m->v_cap = m->v_cap ? 2 * m->v_cap : 1024;
                m->pos = realloc(m->pos, 12 * m->v_cap);
            }
            m->pos[3 * m->v] = x, m->pos[3 * m->v + 1] = y, m->pos[3 * m->v + 2] = z;
            m->v++;
        } else if (!strncmp(line, "vt ", 3)) {
            m->vt++;
        } else if (!strncmp(line, "vn ", 3)) {
            m->vn++;
        } else if (!strncmp(line, "f ", 2)) {
            simple_face(line + 2, m);
        }
    }
    fclose(f);
}

static void simple_free(simple_mesh *m)
{
    free(m->pos);
    free(m->idx);
    free(m->tex);
    free(m->nrm);
}

static int64_t ulps(float a, float b)
{
    int32_t x, y;
    memcpy(&x, &a, 4);
    memcpy(&y, &b, 4);
    int64_t ix = x < 0 ? (int64_t)INT32_MIN - x : x, iy = y < 0 ? (int64_t)INT32_MIN - y : y;
    return ix > iy ? ix - iy : iy - ix;
}

static void compare_corner_array(const uint32_t *ours, const uint32_t *ref, size_t n, const char *what)
{
    bool any = false;
    for (size_t i = 0; i < n; i++)
        any |= ref[i] != UINT32_MAX;
    if (!any) {
        assert_null(ours);
        return;
    }
    assert_non_null(ours);
    for (size_t i = 0; i < n; i++)
        if (ours[i] != ref[i])
            fail_msg("%s of corner %zu: %u, the simple reader %u", what, i, ours[i], ref[i]);
}

/* ---- the test meshes (data/SOURCES.md) ---- */

static const struct {
    const char *name;
    size_t triangles, faces;
} data_meshes[] = {
    {"stanford-bunny.obj", 69451, 69451},
    {"teapot.obj", 6320, 6320},
    {"spot.obj", 5856, 5856},
    {"fandisk.obj", 12946, 12946},
    {"suzanne.obj", 968, 500},
    {"cow.obj", 5804, 5804},
    {"woody.obj", 1267, 1267},
};

static void data_meshes_have_documented_counts(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof data_meshes / sizeof data_meshes[0]; i++) {
        for (uint32_t threads = 1; threads <= 2; threads++) {
            mq_obj_options o = mq_default_obj_options();
            o.threads = threads;
            mq_mesh *m;
            mq_obj_stats s;
            mq_diag d;
            const char *path = mq_test_data_mesh(data_meshes[i].name);
            if (mq_obj_load(path, &o, &m, &s, &d) != MQ_OK)
                fail_msg("%s:%llu:%u: %s", d.path, (unsigned long long)d.line, d.column, d.message);
            assert_int_equal(mq_mesh_triangle_count(m), data_meshes[i].triangles);
            assert_int_equal(mq_mesh_face_count(m), data_meshes[i].faces);
            assert_int_equal(s.clipped_faces, 0);
            mq_mesh_destroy(m);
        }
    }
}

static void data_meshes_match_a_simple_reader(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof data_meshes / sizeof data_meshes[0]; i++) {
        const char *path = mq_test_data_mesh(data_meshes[i].name);
        simple_mesh ref;
        simple_load(path, &ref);
        mq_mesh *m;
        mq_diag d;
        assert_int_equal(mq_obj_load(path, NULL, &m, NULL, &d), MQ_OK);
        assert_int_equal(mq_mesh_vertex_count(m), ref.v);
        assert_int_equal(mq_mesh_texcoord_count(m), ref.vt);
        assert_int_equal(mq_mesh_normal_count(m), ref.vn);
        const float *p = mq_mesh_positions(m);
        size_t exact = 0;
        for (size_t k = 0; k < 3 * ref.v; k++) {
            int64_t u = ulps(p[k], ref.pos[k]);
            if (u > 1)
                fail_msg("%s: coordinate %zu is %.9g, sscanf says %.9g", data_meshes[i].name, k, p[k], ref.pos[k]);
            exact += u == 0;
        }
        assert_int_equal(exact, 3 * ref.v); /* typical exported text converts exactly */
        assert_int_equal(mq_mesh_triangle_count(m), ref.tris);
        assert_memory_equal(mq_mesh_indices(m), ref.idx, 12 * ref.tris);
        compare_corner_array(mq_mesh_corner_texcoords(m), ref.tex, 3 * ref.tris, "texture coordinate");
        compare_corner_array(mq_mesh_corner_normals(m), ref.nrm, 3 * ref.tris, "normal");
        mq_mesh_destroy(m);
        simple_free(&ref);
    }
}

/* ---- assimp's OBJ test models (data/obj-quirks) ---- */

typedef struct model {
    const char *file;
    mq_status status;
    /* on success: counts (tinyobjloader's, or by hand where it truncates) */
    size_t v, vt, vn, faces, tris, l, p;
    uint32_t groups, materials;
    /* on failure: where, and what the message says */
    uint64_t line;
    uint32_t column;
    const char *message;
} model;

static const model models[] = {
    {"OBJ/WusonOBJ.obj", MQ_OK, 2117, 1, 2076, 3732, 3732, 0, 0, 1, 0, 0, 0, NULL},
    {"OBJ/box.obj", MQ_OK, 8, 0, 0, 6, 12, 0, 0, 0, 1, 0, 0, NULL},
    {"OBJ/box_UTF16BE.obj", MQ_ERR_UNSUPPORTED, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, "UTF-16 (big-endian)"},
    /* tinyobjloader truncates the long line (176 triangles); by hand: a 936-corner face + 5 quads */
    {"OBJ/box_longline.obj", MQ_OK, 8, 0, 0, 6, 944, 0, 0, 0, 1, 0, 0, NULL},
    {"OBJ/box_mat_with_spaces.obj", MQ_OK, 8, 0, 0, 6, 12, 0, 0, 0, 1, 0, 0, NULL},
    {"OBJ/box_without_lineending.obj", MQ_OK, 8, 0, 0, 6, 12, 0, 0, 0, 1, 0, 0, NULL},
    {"OBJ/concave_polygon.obj", MQ_OK, 64, 0, 1, 1, 64, 0, 0, 1, 1, 0, 0, NULL},
    {"OBJ/cube_mtllib_after_g.obj", MQ_OK, 8, 0, 6, 12, 12, 0, 0, 1, 1, 0, 0, NULL},
    {"OBJ/cube_usemtl.obj", MQ_OK, 8, 0, 6, 12, 12, 0, 0, 1, 3, 0, 0, NULL},
    {"OBJ/cube_with_vertexcolors.obj", MQ_OK, 8, 0, 6, 12, 12, 0, 0, 1, 0, 0, 0, NULL},
    {"OBJ/cube_with_vertexcolors_uni.obj", MQ_OK, 8, 0, 6, 12, 12, 0, 0, 1, 0, 0, 0, NULL},
    {"OBJ/empty_mat.obj", MQ_OK, 130, 0, 98, 256, 256, 0, 0, 0, 0, 0, 0, NULL},
    {"OBJ/multiple_spaces.obj", MQ_OK, 4, 4, 0, 1, 1, 0, 0, 0, 0, 0, 0, NULL},
    /* "3.1+e2" is not a number (strtod stops at '+'); tinyobjloader loads it as 3.1 */
    {"OBJ/number_formats.obj", MQ_ERR_PARSE, 0, 0, 0, 0, 0, 0, 0, 0, 0, 11, 14, "malformed number '3.1+e2'"},
    {"OBJ/point_cloud.obj", MQ_OK, 3, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, NULL},
    {"OBJ/regr01.obj", MQ_OK, 2108, 688, 0, 2710, 2710, 0, 0, 55, 12, 0, 0, NULL},
    {"OBJ/regr_3429812.obj", MQ_OK, 4, 0, 0, 3, 4, 0, 0, 3, 1, 0, 0, NULL},
    {"OBJ/space_in_material_name.obj", MQ_OK, 64, 0, 1, 1, 64, 0, 0, 1, 1, 0, 0, NULL},
    {"OBJ/spider.obj", MQ_OK, 762, 302, 747, 1368, 1368, 0, 0, 19, 4, 0, 0, NULL},
    {"OBJ/testline.obj", MQ_OK, 8, 0, 0, 0, 0, 6, 0, 0, 1, 0, 0, NULL},
    /* p counts statements (tinyobjloader counts their 24 vertices) */
    {"OBJ/testmixed.obj", MQ_OK, 8, 0, 0, 6, 12, 6, 6, 0, 1, 0, 0, NULL},
    {"OBJ/testpoints.obj", MQ_OK, 8, 0, 0, 0, 0, 0, 6, 0, 1, 0, 0, NULL},
    {"invalid/empty.obj", MQ_ERR_PARSE, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, "the file is empty"},
    {"invalid/malformed.obj", MQ_ERR_PARSE, 0, 0, 0, 0, 0, 0, 0, 0, 0, 23, 5, "vertex index 12 is out of range"},
    {"invalid/malformed2.obj", MQ_ERR_PARSE, 0, 0, 0, 0, 0, 0, 0, 0, 0, 23, 2, "a face needs at least 3 corners"},
};

static void check_model(const model *e, uint32_t threads)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", ASSIMP_DIR, e->file);
    mq_obj_options o = mq_default_obj_options();
    o.threads = threads;
    mq_mesh *m = NULL;
    mq_obj_stats s;
    mq_diag d;
    mq_status st = mq_obj_load(path, &o, &m, &s, &d);
    if (st != e->status)
        fail_msg("%s: %s (%s:%llu:%u: %s), expected %s", e->file, mq_status_string(st), d.path,
                 (unsigned long long)d.line, d.column, d.message, mq_status_string(e->status));
    if (st != MQ_OK) {
        assert_null(m);
        assert_string_equal(d.path, path);
        if (d.line != e->line || d.column != e->column || !strstr(d.message, e->message))
            fail_msg("%s: %llu:%u: %s", e->file, (unsigned long long)d.line, d.column, d.message);
        return;
    }
    if (mq_mesh_vertex_count(m) != e->v || s.texcoords != e->vt || s.normals != e->vn ||
        mq_mesh_face_count(m) != e->faces || mq_mesh_triangle_count(m) != e->tris || s.line_elements != e->l ||
        s.point_elements != e->p || s.groups != e->groups || s.materials != e->materials)
        fail_msg("%s: v %zu vt %llu vn %llu f %zu t %zu l %llu p %llu g %u m %u", e->file, mq_mesh_vertex_count(m),
                 (unsigned long long)s.texcoords, (unsigned long long)s.normals, mq_mesh_face_count(m),
                 mq_mesh_triangle_count(m), (unsigned long long)s.line_elements, (unsigned long long)s.point_elements,
                 s.groups, s.materials);
    mq_mesh_destroy(m);
}

static void assimp_models_load_or_fail_clearly(void **state)
{
    (void)state;
    if (!mq_test_file_exists(ASSIMP_DIR "/OBJ/box.obj"))
        fail_msg("%s is missing: the OBJ edge cases are part of the repository", ASSIMP_DIR "/OBJ/box.obj");
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++)
        for (uint32_t threads = 1; threads <= 3; threads += 2)
            check_model(&models[i], threads);
}

/* Every .obj there, listed or not (a newer package may add some): no crash, and
 * a failure always says where and what. */
static void every_obj_in_the_model_folders(void **state)
{
    (void)state;
    const char *dirs[] = {ASSIMP_DIR "/OBJ", ASSIMP_DIR "/invalid"};
    size_t seen = 0;
    for (size_t k = 0; k < 2; k++) {
        DIR *dir = opendir(dirs[k]);
        if (!dir)
            fail_msg("cannot open %s", dirs[k]);
        for (struct dirent *e; (e = readdir(dir));) {
            size_t n = strlen(e->d_name);
            if (n < 4 || strcmp(e->d_name + n - 4, ".obj"))
                continue;
            char path[512];
            snprintf(path, sizeof path, "%s/%s", dirs[k], e->d_name);
            mq_mesh *m = NULL;
            mq_diag d;
            mq_status st = mq_obj_load(path, NULL, &m, NULL, &d);
            if (st == MQ_OK)
                mq_mesh_destroy(m);
            else
                assert_true(d.message[0] != '\0' && !strcmp(d.path, path));
            if (k == 1)
                assert_int_not_equal(st, MQ_OK); /* the invalid ones fail */
            seen++;
        }
        closedir(dir);
    }
    assert_true(seen >= 25);
}

/* Run only with MQ_TEST_HUGE_OBJ=1 (it needs ~5 GB of disk in TMPDIR and as
 * much page cache; see main): a file past 4 GiB, with an error placed beyond
 * the 4 GiB mark, so offsets, line numbers and columns past 32 bits are
 * exercised. */
static void files_beyond_4_gib(void **state)
{
    (void)state;
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    char path[512];
    snprintf(path, sizeof path, "%s/mq_test_huge.obj", tmp);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    /* blocks of 3 vertices and a face that points back at them */
    static char block[1 << 16];
    size_t n = 0;
    uint64_t lines = 0, blocks = 0;
    while (n + 64 < sizeof block) {
        n += (size_t)sprintf(block + n, "v 0.125 0.25 0.5\nv 1.5 0.25 0.5\nv 0.125 2.5 0.5\nf -3 -2 -1\n");
        lines += 4;
    }
    uint64_t total = 0, target = (uint64_t)4 << 30;
    for (; total < target + (64u << 20); total += n, blocks++)
        assert_int_equal(fwrite(block, 1, n, f), n);
    fprintf(f, "f 1 2 x\n");
    fclose(f);
    uint64_t faces = blocks * (lines / 4);
    mq_mesh *m = NULL;
    mq_diag d;
    mq_obj_stats s;
    assert_int_equal(mq_obj_load(path, NULL, &m, &s, &d), MQ_ERR_PARSE);
    assert_int_equal(d.line, blocks * lines + 1);
    assert_int_equal(d.column, 7);
    /* now without the bad line: the whole file loads */
    assert_int_equal(truncate(path, (off_t)total), 0);
    assert_int_equal(mq_obj_load(path, NULL, &m, &s, &d), MQ_OK);
    assert_int_equal(mq_mesh_triangle_count(m), faces);
    assert_int_equal(mq_mesh_face_line(m, (uint32_t)(faces - 1)), blocks * lines);
    assert_int_equal(s.bytes, total);
    mq_mesh_destroy(m);
    remove(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(data_meshes_have_documented_counts),
        cmocka_unit_test(data_meshes_match_a_simple_reader),
        cmocka_unit_test(assimp_models_load_or_fail_clearly),
        cmocka_unit_test(every_obj_in_the_model_folders),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    /* Opt-in, not part of the default run: MQ_TEST_HUGE_OBJ=1. */
    const char *huge = getenv("MQ_TEST_HUGE_OBJ");
    if (huge && strcmp(huge, "1") == 0) {
        const struct CMUnitTest huge_tests[] = {
            cmocka_unit_test(files_beyond_4_gib),
        };
        failed += cmocka_run_group_tests(huge_tests, NULL, NULL);
    }
    return failed;
}
