/* OBJ reader: every error — status, path, line, column and what the message says. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <meshquery/obj.h>

#include "obj/obj_internal.h"
#include "test_support.h"

typedef struct expect {
    const char *text;
    mq_status status;
    uint64_t line;
    uint32_t column;
    const char *message; /* a part of the message that must be there */
} expect;

static mq_status load_n(const char *text, size_t n, const mq_obj_options *o, mq_diag *d)
{
    char *copy = malloc(n ? n : 1);
    memcpy(copy, text, n);
    mq_mesh *m = (mq_mesh *)1;
    mq_obj_stats s;
    mq_status st = mq_obj_load_memory(copy, n, "bad.obj", o, &m, &s, d);
    free(copy);
    if (st != MQ_OK)
        assert_null(m);
    mq_mesh_destroy(m);
    return st;
}

static void check(const expect *e, size_t n, const mq_obj_options *o)
{
    mq_diag d;
    mq_status st = load_n(e->text, n, o, &d);
    if (st != e->status || d.line != e->line || d.column != e->column || !strstr(d.message, e->message))
        fail_msg("for %.60s\n got %s %s:%llu:%u: %s\n want %s line %llu column %u containing \"%s\"", e->text,
                 mq_status_string(st), d.path, (unsigned long long)d.line, d.column, d.message,
                 mq_status_string(e->status), (unsigned long long)e->line, e->column, e->message);
    assert_string_equal(d.path, "bad.obj");
}

static void check_all(const expect *cases, size_t count, const mq_obj_options *o)
{
    for (size_t i = 0; i < count; i++)
        check(&cases[i], strlen(cases[i].text), o);
}

#define TRI "v 0 0 0\nv 1 0 0\nv 0 1 0\n"

static void bad_indices(void **state)
{
    (void)state;
    static const expect cases[] = {
        {TRI "f 1 0 3\n", MQ_ERR_PARSE, 4, 5, "vertex index 0 is invalid: OBJ indices start at 1"},
        {TRI "f 1 2 4\n", MQ_ERR_PARSE, 4, 7, "vertex index 4 is out of range: the file has 3 vertices"},
        {TRI "f 1 2 -4\n", MQ_ERR_PARSE, 4, 7, "relative vertex index -4 is out of range: only 3 vertices"},
        {TRI "f 1 2 99999999999999999999999\n", MQ_ERR_PARSE, 4, 7, "is out of range"},
        {TRI "vt 0 0\nf 1/1 2/2 3/1\n", MQ_ERR_PARSE, 5, 9,
         "texture coordinate index 2 is out of range: the file has 1"},
        {TRI "vn 0 0 1\nf 1//1 2//0 3//1\n", MQ_ERR_PARSE, 5, 11, "normal index 0 is invalid"},
        {TRI "f 1//1 2//1 3//1\n", MQ_ERR_PARSE, 4, 6, "normal index 1 is out of range: the file has 0 normals"},
        {TRI "vt 0 0\nf 1/-2 2/1 3/1\n", MQ_ERR_PARSE, 5, 5, "relative texture coordinate index -2"},
        {TRI "l 1 9\n", MQ_ERR_PARSE, 4, 5, "vertex index 9 is out of range"},
        {TRI "p 0\n", MQ_ERR_PARSE, 4, 3, "vertex index 0 is invalid"},
    };
    check_all(cases, sizeof cases / sizeof cases[0], NULL);
}

static void malformed_numbers(void **state)
{
    (void)state;
    static const expect cases[] = {
        {"v 1 2 x\n", MQ_ERR_PARSE, 1, 7, "malformed number 'x': expected a number"},
        {"v 1 2 3.1+e2\n", MQ_ERR_PARSE, 1, 7, "malformed number '3.1+e2'"},
        {"v 1 2 1e\n", MQ_ERR_PARSE, 1, 7, "malformed number '1e'"},
        {"v 1 --2 3\n", MQ_ERR_PARSE, 1, 5, "malformed number '--2'"},
        {"v 1 2 3,5\n", MQ_ERR_PARSE, 1, 7, "malformed number '3,5'"},
        {"v 1 . 3\n", MQ_ERR_PARSE, 1, 5, "malformed number '.'"},
        {"v 1 0x 3\n", MQ_ERR_PARSE, 1, 5, "malformed number '0x'"},
        {"\n\nvn 0\t0 1.2.3\n", MQ_ERR_PARSE, 3, 8, "malformed number '1.2.3'"},
        {"vt 0.5 infinite\n", MQ_ERR_PARSE, 1, 8, "malformed number 'infinite'"},
        {"v 1 2 nan\n", MQ_ERR_PARSE, 1, 7, "non-finite number 'nan'"},
        {"v -inf 2 3\n", MQ_ERR_PARSE, 1, 3, "non-finite number '-inf'"},
        {"v 1 2 1e39\n", MQ_ERR_PARSE, 1, 7, "beyond the float range"},
        {"v 1 2 3 4 5\n", MQ_ERR_PARSE, 1, 12,
         "a vertex needs 3 numbers (x y z), 4 (x y z w) or 6 (x y z r g b); found 5"},
        {"v 1 2 3 4 5 6 7\n", MQ_ERR_PARSE, 1, 15, "found more than 6"},
        {"vt\n", MQ_ERR_PARSE, 1, 3, "a texture coordinate needs 1 to 3 numbers (u [v [w]]); found 0"},
        {"vt 1 2 3 4\n", MQ_ERR_PARSE, 1, 10, "found more than 3"},
        {"vn 1 2\nv 0 0 0\n", MQ_ERR_PARSE, 1, 7, "a normal needs 3 numbers (x y z); found 2"},
    };
    check_all(cases, sizeof cases / sizeof cases[0], NULL);
}

static void bad_faces(void **state)
{
    (void)state;
    static const expect cases[] = {
        {TRI "f\n", MQ_ERR_PARSE, 4, 2, "a face needs at least 3 corners; found 0"},
        {TRI "f 1 2\nf 1 2 3\n", MQ_ERR_PARSE, 4, 6, "a face needs at least 3 corners; found 2"},
        {TRI "vt 0 0\nvn 0 0 1\nf 1 2 3/1/1/1\n", MQ_ERR_PARSE, 6, 7,
         "malformed corner '3/1/1/1': expected v, v/vt, v//vn or v/vt/vn"},
        {TRI "f 1 a 3\n", MQ_ERR_PARSE, 4, 5, "malformed corner 'a'"},
        {TRI "f 1 2/x 3\n", MQ_ERR_PARSE, 4, 5, "malformed corner '2/x'"},
        {TRI "f 1.0 2 3\n", MQ_ERR_PARSE, 4, 3, "malformed corner '1.0'"},
        {TRI "f 1,2,3\n", MQ_ERR_PARSE, 4, 3, "malformed corner '1,2,3'"},
        {TRI "l 1\n", MQ_ERR_PARSE, 4, 4, "a line element needs at least 2 vertices; found 1"},
        {TRI "p\n", MQ_ERR_PARSE, 4, 2, "a point element needs at least 1 vertex; found 0"},
        {TRI "f-1 -2 -3\n", MQ_ERR_PARSE, 4, 2, "expected a blank after the keyword in 'f-1'"},
    };
    check_all(cases, sizeof cases / sizeof cases[0], NULL);
}

static void bad_statements_and_bytes(void **state)
{
    (void)state;
    static const expect cases[] = {
        {TRI "{ json: 1 }\n", MQ_ERR_PARSE, 4, 1,
         "expected a statement (v, vt, vn, f, l, p, g, o, usemtl, ...) or '#', found '{'"},
        {"v 0 0 0\n  -1 2 3\n", MQ_ERR_PARSE, 2, 3, "expected a statement"},
        {"v 0 0 0\n\x89PNG\r\n", MQ_ERR_PARSE, 2, 1, "found '?PNG'"},
    };
    check_all(cases, sizeof cases / sizeof cases[0], NULL);
    /* NUL bytes: binary data */
    static const char nul_line[] = "v 0 0 0\nv 1 \0 0\n";
    check(&(expect){nul_line, MQ_ERR_PARSE, 2, 5, "unexpected NUL byte: binary data"}, sizeof nul_line - 1, NULL);
    static const char nul_start[] = "v 0 0 0\n\0\0\0\0";
    check(&(expect){nul_start, MQ_ERR_PARSE, 2, 1, "NUL byte"}, sizeof nul_start - 1, NULL);
    static const char nul_comment[] = "# abc\0def\nv 0 0 0\n";
    check(&(expect){nul_comment, MQ_ERR_PARSE, 1, 6, "NUL byte"}, sizeof nul_comment - 1, NULL);
    /* strict mode: unknown statements are errors */
    mq_obj_options strict = mq_default_obj_options();
    strict.strict = true;
    check(&(expect){TRI "bogus 1 2\n", MQ_ERR_PARSE, 4, 1, "unknown statement 'bogus' (strict mode)"},
          strlen(TRI "bogus 1 2\n"), &strict);
}

static void truncated_files(void **state)
{
    (void)state;
    static const expect cases[] = {
        {TRI "f 1 2", MQ_ERR_PARSE, 4, 6, "a face needs at least 3 corners; found 2 (the file ends here: truncated?)"},
        {"v 1 2", MQ_ERR_PARSE, 1, 6, "found 2 (the file ends here: truncated?)"},
        {"v 1 2\n\n  \n", MQ_ERR_PARSE, 1, 6, "(the file ends here: truncated?)"},
        {TRI "f 1 2 3 \\", MQ_ERR_PARSE, 5, 1, "the file ends after a line continuation '\\'"},
        {TRI "f 1 2 3 \\\r\n", MQ_ERR_PARSE, 5, 1, "the file ends after a line continuation"},
        {"v 1 2 3 \\", MQ_ERR_PARSE, 2, 1, "line continuation"},
        {"g name \\", MQ_ERR_PARSE, 2, 1, "line continuation"},
        {"  \\\n", MQ_ERR_PARSE, 2, 1, "line continuation"},
        {"v 1 2 1.5e", MQ_ERR_PARSE, 1, 7, "malformed number '1.5e'"},
    };
    check_all(cases, sizeof cases / sizeof cases[0], NULL);
    /* not at the end: no "truncated" hint */
    mq_diag d;
    assert_int_equal(load_n("v 1 2\nv 1 2 3\n", 15, NULL, &d), MQ_ERR_PARSE);
    assert_null(strstr(d.message, "truncated"));
}

static void continuation_moves_the_error_line(void **state)
{
    (void)state;
    static const expect cases[] = {
        {TRI "f 1 \\\n 2 \\\r\n  0\n", MQ_ERR_PARSE, 6, 3, "vertex index 0"},
        {TRI "\r\r\nf 1 2 7\r", MQ_ERR_PARSE, 6, 7, "vertex index 7"},         /* CR, CRLF and CR ends */
        {"\xEF\xBB\xBFv 1 x 3\n", MQ_ERR_PARSE, 1, 5, "malformed number 'x'"}, /* columns after a BOM */
    };
    check_all(cases, sizeof cases / sizeof cases[0], NULL);
}

static void unicode_wide_text(void **state)
{
    (void)state;
    static const char utf16be_bom[] = "\xFE\xFF\0v\0 \0001";
    static const char utf16le_bom[] = "\xFF\xFEv\0 \0";
    static const char utf16le[] = "v\0 \0001\0";
    static const char utf16be[] = "\0v\0 \0001";
    static const char utf32le_bom[] = "\xFF\xFE\0\0v\0\0\0";
    const struct {
        const char *text;
        size_t n;
        const char *what;
    } cases[] = {
        {utf16be_bom, sizeof utf16be_bom - 1, "UTF-16 (big-endian) text (it starts with a byte order mark)"},
        {utf16le_bom, sizeof utf16le_bom - 1, "UTF-16 (little-endian) text (it starts"},
        {utf16le, sizeof utf16le - 1, "the file is UTF-16 (little-endian) text;"},
        {utf16be, sizeof utf16be - 1, "UTF-16 (big-endian)"},
        {utf32le_bom, sizeof utf32le_bom - 1, "UTF-32 (little-endian)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        expect e = {cases[i].text, MQ_ERR_UNSUPPORTED, 1, 1, cases[i].what};
        check(&e, cases[i].n, NULL);
        e.message = "save it as UTF-8";
        check(&e, cases[i].n, NULL);
    }
}

static void empty_input(void **state)
{
    (void)state;
    check(&(expect){"", MQ_ERR_PARSE, 0, 0, "the file is empty: no OBJ statements"}, 0, NULL);
    check(&(expect){" \n\r\n\t", MQ_ERR_PARSE, 0, 0, "empty (only blanks and line ends)"}, 5, NULL);
    check(&(expect){"\xEF\xBB\xBF", MQ_ERR_PARSE, 0, 0, "empty"}, 3, NULL);
}

/* Text with unknown statements that makes no triangle is not an OBJ file: the error
 * points at the first unknown statement. With a triangle, or without an unknown
 * statement, the same text loads. */
static void not_an_obj_file(void **state)
{
    (void)state;
    static const char *const tail = "not an OBJ file?";
    static const expect cases[] = {
        {"hello world\n", MQ_ERR_PARSE, 1, 1, "unknown statement 'hello' and no faces"},
        {"solid cube\n  facet normal 0 0 1\n    outer loop\n      vertex 0 0 0\n      vertex 1 0 0\n"
         "      vertex 0 1 0\n    endloop\n  endfacet\nendsolid cube\n",
         MQ_ERR_PARSE, 1, 1, "unknown statement 'solid'"},
        {"ply\nformat ascii 1.0\nelement vertex 0\nend_header\n", MQ_ERR_PARSE, 1, 1, "unknown statement 'ply'"},
        {"# made by hand\n\n   \tfoo bar\nbaz\n", MQ_ERR_PARSE, 3, 5, "unknown statement 'foo'"},
        {TRI "vertex 1 2 3\n", MQ_ERR_PARSE, 4, 1, "unknown statement 'vertex'"},
        {TRI "f 1 2\n", MQ_ERR_PARSE, 4, 6, "a face needs at least 3 corners"}, /* a real error still wins */
    };
    check_all(cases, sizeof cases / sizeof cases[0], NULL);
    for (size_t i = 0; i < 5; i++) {
        mq_diag d;
        assert_int_equal(load_n(cases[i].text, strlen(cases[i].text), NULL, &d), MQ_ERR_PARSE);
        size_t n = strlen(d.message), k = strlen(tail);
        assert_true(n >= k && !strcmp(d.message + n - k, tail));
    }
    /* The same statements beside a triangle, and valid files without one, load. */
    static const char *const loads[] = {TRI "hello world\nf 1 2 3\n", "# only a comment\n", TRI, TRI "s off\n",
                                        TRI "l 1 2\np 3\n"};
    static const uint64_t tris[] = {1, 0, 0, 0, 0};
    for (size_t i = 0; i < sizeof loads / sizeof loads[0]; i++) {
        mq_mesh *m = NULL;
        mq_obj_stats s;
        mq_diag d;
        if (mq_obj_load_memory(loads[i], strlen(loads[i]), "ok.obj", NULL, &m, &s, &d) != MQ_OK)
            fail_msg("%s: %s", loads[i], d.message);
        assert_int_equal(s.triangles, tris[i]);
        assert_int_equal(mq_mesh_triangle_count(m), tris[i]);
        mq_mesh_destroy(m);
    }
    /* Unknown statements in many chunks: the first in file order is named, on any thread count. */
    size_t cap = 64 * 1024, len = 0;
    char *text = malloc(cap);
    for (int i = 0; i < 400; i++)
        len += (size_t)snprintf(text + len, cap - len, "v %d 0 0\n", i);
    len += (size_t)snprintf(text + len, cap - len, "  first one\n");
    for (int i = 0; i < 400; i++)
        len += (size_t)snprintf(text + len, cap - len, "other%d 1\n", i);
    for (uint32_t threads = 1; threads <= 8; threads *= 2) {
        mq_obj_options o;
        memset(&o, 0, sizeof o);
        o.threads = threads;
        check(&(expect){text, MQ_ERR_PARSE, 401, 3, "unknown statement 'first' and no faces: not an OBJ file?"}, len,
              &o);
    }
    free(text);
}

static void limits(void **state)
{
    (void)state;
    mq_obj_options o = mq_default_obj_options();
    o.max_face_vertices = 4;
    check(&(expect){TRI "f 1 2 3 1 2\n", MQ_ERR_LIMIT, 4, 1,
                    "the element has more than 4 corners (mq_obj_options.max_face_vertices)"},
          strlen(TRI "f 1 2 3 1 2\n"), &o);
    /* counts beyond the index range: the same check with a lower limit */
    const char *text = TRI "v 1 1 1\nf 1 2 3\n";
    mq_mesh *m = NULL;
    mq_diag d;
    obj_limits low = {3, UINT32_MAX};
    assert_int_equal(mq_obj_load_memory_limited(text, strlen(text), "big.obj", NULL, &low, &m, NULL, &d), MQ_ERR_LIMIT);
    assert_null(m);
    assert_string_equal(d.message, "the file has 4 vertices; meshes index them with 32 bits (at most 3)");
    const char *tris = TRI "f 1 2 3 1 2 3\n";
    assert_int_equal(mq_obj_load_memory_limited(tris, strlen(tris), "big.obj", NULL, &low, &m, NULL, &d), MQ_ERR_LIMIT);
    assert_string_equal(d.message, "the file has 4 triangles; meshes index them with 32 bits (at most 3)");
}

/* Files with more lines than 32 bits count keep face lines in 64 bits; a lower
 * threshold takes the same path on a small file (on 1 and on 3 threads). */
static void face_lines_beyond_32_bits(void **state)
{
    (void)state;
    const char *text = "\n\n" TRI "f 1 2 3\n\n\nf 3 2 1 1\n";
    obj_limits wide = {UINT32_MAX - 1, 4};
    for (uint32_t threads = 1; threads <= 3; threads += 2) {
        mq_obj_options o = mq_default_obj_options();
        o.threads = threads;
        mq_mesh *m = NULL;
        mq_diag d;
        assert_int_equal(mq_obj_load_memory_limited(text, strlen(text), "w.obj", &o, &wide, &m, NULL, &d), MQ_OK);
        assert_int_equal(mq_mesh_face_line(m, 0), 6);
        assert_int_equal(mq_mesh_face_line(m, 1), 9);
        mq_triangle_source s;
        mq_mesh_triangle_source(m, 2, &s);
        assert_int_equal(s.line, 9);
        mq_mesh_destroy(m);
    }
}

static void the_first_error_wins_on_any_thread_count(void **state)
{
    (void)state;
    /* two errors far apart: whichever thread sees which, the first is reported */
    size_t cap = 3 << 20, n = 0;
    char *text = malloc(cap);
    n += (size_t)sprintf(text + n, TRI);
    while (n < cap / 2)
        n += (size_t)sprintf(text + n, "v 1 2 3\n");
    n += (size_t)sprintf(text + n, "f 1 2 0\n"); /* first error */
    uint64_t first_line = 0;
    for (size_t i = 0; i < n; i++)
        first_line += text[i] == '\n';
    while (n < cap - 100)
        n += (size_t)sprintf(text + n, "f 1 2 3\n");
    n += (size_t)sprintf(text + n, "v x\n");
    for (uint32_t threads = 1; threads <= 8; threads *= 2) {
        mq_obj_options o = mq_default_obj_options();
        o.threads = threads;
        check(&(expect){text, MQ_ERR_PARSE, first_line, 7, "vertex index 0"}, n, &o);
    }
    free(text);
}

static void io_errors(void **state)
{
    (void)state;
    mq_mesh *m = (mq_mesh *)1;
    mq_diag d;
    assert_int_equal(mq_obj_load("/nonexistent/dir/model.obj", NULL, &m, NULL, &d), MQ_ERR_IO);
    assert_null(m);
    assert_string_equal(d.path, "/nonexistent/dir/model.obj");
    assert_non_null(strstr(d.message, "cannot open the file: No such file or directory"));
    assert_int_equal(mq_obj_load("/tmp", NULL, &m, NULL, &d), MQ_ERR_IO);
    assert_non_null(strstr(d.message, "this is a directory, not an OBJ file"));
    /* a file that opens but cannot be read (reading /proc/self/mem at 0 fails) */
    if (mq_test_file_exists("/proc/self/mem")) {
        assert_int_equal(mq_obj_load("/proc/self/mem", NULL, &m, NULL, &d), MQ_ERR_IO);
        assert_non_null(strstr(d.message, "cannot read the file: "));
    }
    /* a file read through a pipe-like path without a size still loads */
    if (mq_test_file_exists("/dev/null")) {
        assert_int_equal(mq_obj_load("/dev/null", NULL, &m, NULL, &d), MQ_ERR_PARSE);
        assert_non_null(strstr(d.message, "empty"));
    }
}

static void bad_arguments(void **state)
{
    (void)state;
    mq_diag d;
    mq_mesh *m;
    assert_int_equal(mq_obj_load_memory("v 0 0 0\n", 8, NULL, NULL, NULL, NULL, &d), MQ_ERR_INVALID_ARG);
    assert_int_equal(mq_obj_load_memory(NULL, 8, NULL, NULL, &m, NULL, &d), MQ_ERR_INVALID_ARG);
    assert_string_equal(d.path, "<memory>");
    assert_int_equal(mq_obj_load(NULL, NULL, &m, NULL, &d), MQ_ERR_INVALID_ARG);
    assert_int_equal(mq_obj_load_memory("f 1 1 1\n", 8, NULL, NULL, &m, NULL, NULL), MQ_ERR_PARSE); /* no diag */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bad_indices),
        cmocka_unit_test(malformed_numbers),
        cmocka_unit_test(bad_faces),
        cmocka_unit_test(bad_statements_and_bytes),
        cmocka_unit_test(truncated_files),
        cmocka_unit_test(continuation_moves_the_error_line),
        cmocka_unit_test(unicode_wide_text),
        cmocka_unit_test(empty_input),
        cmocka_unit_test(not_an_obj_file),
        cmocka_unit_test(limits),
        cmocka_unit_test(face_lines_beyond_32_bits),
        cmocka_unit_test(the_first_error_wins_on_any_thread_count),
        cmocka_unit_test(io_errors),
        cmocka_unit_test(bad_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
