/*
 * libFuzzer target for the OBJ reader. The first byte picks options (threads,
 * strictness, non-finite numbers); the rest is the text, in an exactly sized
 * heap copy so any read past it is caught. Besides "no crash, no leak, no
 * sanitizer report", it checks that:
 *   - a loaded mesh is consistent (every index in range, faces in order, names valid);
 *   - a load on several threads gives exactly the single-threaded result or error;
 *   - no error is an internal one (the counting and parsing passes disagreeing).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <meshquery/obj.h>

#define CHECK(cond)                                                                                                    \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            fprintf(stderr, "fuzz_obj: check failed: %s (line %d)\n", #cond, __LINE__);                                \
            abort();                                                                                                   \
        }                                                                                                              \
    } while (0)

static void check_corners(const uint32_t *c, size_t corners, size_t count)
{
    if (!c)
        return;
    for (size_t i = 0; i < corners; i++)
        CHECK(c[i] == MQ_NO_INDEX || c[i] < count);
}

static void check_mesh(const mq_mesh *m, const mq_obj_stats *s)
{
    size_t nv = mq_mesh_vertex_count(m), nt = mq_mesh_triangle_count(m), nf = mq_mesh_face_count(m);
    CHECK(nt == s->triangles && nf == s->faces && nv == s->vertices);
    const uint32_t *idx = mq_mesh_indices(m);
    for (size_t i = 0; i < 3 * nt; i++)
        CHECK(idx[i] < nv);
    check_corners(mq_mesh_corner_normals(m), 3 * nt, mq_mesh_normal_count(m));
    check_corners(mq_mesh_corner_texcoords(m), 3 * nt, mq_mesh_texcoord_count(m));
    uint32_t prev = 0;
    for (uint32_t t = 0; t < nt; t++) {
        mq_triangle_source src;
        mq_mesh_triangle_source(m, t, &src);
        /* every face gives at least one triangle: faces run 0, 1, 2, ... without gaps */
        CHECK(src.face < nf && (t == 0 ? src.face == 0 : src.face == prev || src.face == prev + 1));
        CHECK(src.line >= 1 && src.line <= s->lines);
        CHECK(src.group && src.object && src.material);
        prev = src.face;
        vec3 n;
        vec2 uv;
        mq_mesh_shading_normal(m, t, 0.25f, 0.25f, n);
        mq_mesh_texcoord_at(m, t, 0.25f, 0.25f, uv);
    }
    if (nt)
        CHECK(mq_mesh_face_index(m, (uint32_t)(nt - 1)) == nf - 1);
}

static void compare_meshes(const mq_mesh *a, const mq_mesh *b)
{
    size_t nv = mq_mesh_vertex_count(a), nt = mq_mesh_triangle_count(a);
    CHECK(nv == mq_mesh_vertex_count(b) && nt == mq_mesh_triangle_count(b));
    CHECK(!nv || !memcmp(mq_mesh_positions(a), mq_mesh_positions(b), 12 * nv));
    CHECK(!nt || !memcmp(mq_mesh_indices(a), mq_mesh_indices(b), 12 * nt));
    for (uint32_t t = 0; t < nt; t++) {
        mq_triangle_source x, y;
        mq_mesh_triangle_source(a, t, &x);
        mq_mesh_triangle_source(b, t, &y);
        CHECK(x.face == y.face && x.line == y.line);
        CHECK(!strcmp(x.group, y.group) && !strcmp(x.object, y.object) && !strcmp(x.material, y.material));
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size); /* libFuzzer calls it */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    mq_obj_options o = mq_default_obj_options();
    o.strict = data[0] & 1;
    o.allow_non_finite = data[0] & 2;
    o.max_face_vertices = (data[0] & 4) ? 5 : 0;
    uint32_t threads = 2 + ((data[0] >> 3) & 3); /* the multi-threaded run to compare */
    bool compare = (data[0] & 0x20) != 0;
    size--;
    char *text = malloc(size ? size : 1);
    memcpy(text, data + 1, size);

    o.threads = 1;
    mq_mesh *m = NULL;
    mq_obj_stats s;
    mq_diag d;
    mq_status st = mq_obj_load_memory(text, size, "fuzz.obj", &o, &m, &s, &d);
    CHECK(strncmp(d.message, "internal error", 14) != 0); /* tokens echoed later never start it */
    if (st == MQ_OK)
        check_mesh(m, &s);
    else
        CHECK(m == NULL && d.message[0] && (st == MQ_ERR_PARSE || st == MQ_ERR_UNSUPPORTED || st == MQ_ERR_LIMIT));

    if (compare) {
        o.threads = threads;
        mq_mesh *m2 = NULL;
        mq_diag d2;
        mq_status st2 = mq_obj_load_memory(text, size, "fuzz.obj", &o, &m2, NULL, &d2);
        CHECK(st2 == st);
        if (st == MQ_OK)
            compare_meshes(m, m2);
        else
            CHECK(d.line == d2.line && d.column == d2.column && !strcmp(d.message, d2.message));
        mq_mesh_destroy(m2);
    }
    mq_mesh_destroy(m);
    free(text);
    return 0;
}
