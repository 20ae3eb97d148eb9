/*
 * libFuzzer target for the convex hull builder (mq_convex_create).
 *
 * Input layout (every read past the end yields 0):
 *   byte   scale exponent: the points are multiplied by 2^(b % 200 - 100)
 *   then points, 3 coordinates each, until the input ends (at most 512):
 *          a tag byte; tag < 192 gives a small "nice" value (tag % 16 - 8,
 *          in quarters), so duplicates, coplanar and collinear subsets are
 *          common; tag >= 192 reads 4 raw bytes as a float (NaN, Inf, huge,
 *          subnormal).
 *
 * What is checked (a violation aborts with a message):
 *   - a failure is MQ_ERR_INVALID_ARG (non-finite, < 4 points, flat) with a
 *     message, and leaves out NULL;
 *   - a hull: every vertex is one of the input points; V = 2 + F/2 (a closed
 *     triangulated sphere); every input point is inside it or within 1e-7 of
 *     the scale of it by mq_convex_closest_point (the builder puts every
 *     point inside exactly; the slack is GJK's, in double); its own vertices
 *     and faces overlap it.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <meshquery/convex.h>

#include "fuzz_reader.h"

#define CHECK(c, ...)                                                                                                  \
    do {                                                                                                               \
        if (!(c)) {                                                                                                    \
            fprintf(stderr, "fuzz_convex_hull: " __VA_ARGS__);                                                         \
            fputc('\n', stderr);                                                                                       \
            abort();                                                                                                   \
        }                                                                                                              \
    } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static float coord(reader *r, float scale)
{
    uint8_t tag = rd_byte(r);
    if (tag < 192)
        return (float)((int)(tag % 16) - 8) * 0.25f * scale;
    return rd_raw_le(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    reader r = {data, size};
    float scale = ldexpf(1.0f, (int)(rd_byte(&r) % 200) - 100);
    float p[3 * 512];
    size_t n = 0;
    while (r.n && n < 512) {
        for (int k = 0; k < 3; k++)
            p[3 * n + k] = coord(&r, scale);
        n++;
    }
    mq_convex *c = (mq_convex *)(void *)p;
    mq_diag d;
    mq_status st = mq_convex_create(p, n, NULL, &c, &d);
    if (st != MQ_OK) {
        CHECK(st == MQ_ERR_INVALID_ARG, "%zu points: status %s", n, mq_status_string(st));
        CHECK(c == NULL && d.message[0], "failure without a message or with a convex");
        return 0;
    }
    size_t nv = mq_convex_vertex_count(c), nf = mq_convex_face_count(c);
    const float *v = mq_convex_vertices(c);
    const uint32_t *f = mq_convex_faces(c);
    CHECK(nv >= 4 && nf >= 4 && nv == 2 + nf / 2 && nf % 2 == 0, "V %zu F %zu is not a closed hull", nv, nf);
    double big = 0.0;
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < 3; k++)
            big = fmax(big, fabs((double)p[3 * i + k]));
    for (size_t i = 0; i < nv; i++) {
        bool found = false;
        for (size_t j = 0; j < n && !found; j++)
            found = memcmp(v + 3 * i, p + 3 * j, sizeof(float[3])) == 0;
        CHECK(found, "hull vertex %zu is not an input point", i);
    }
    for (size_t i = 0; i < n; i++) {
        /* every input point inside, or within the builder's tolerance (1e-13 of
         * the scale; GJK's distance is good to far better than 1e-7) */
        vec3 q;
        float dist = mq_convex_closest_point(c, p + 3 * i, q);
        CHECK(dist >= 0.0f && dist <= 1e-7 * big, "input point %zu is %g (%g of the scale) outside its hull", i, dist,
              dist / big);
    }
    for (size_t t = 0; t < nf; t++) {
        mq_triangle tri;
        for (int j = 0; j < 3; j++)
            memcpy(tri.v[j], v + 3 * f[3 * t + j], sizeof(float[3]));
        CHECK(mq_overlap_convex_triangle(c, &tri), "face %zu does not overlap its hull", t);
    }
    for (size_t i = 0; i < nv; i++)
        CHECK(mq_convex_contains_point(c, v + 3 * i), "vertex %zu is not in its hull", i);
    CHECK(mq_overlap_convex_convex(c, c), "a hull does not overlap itself");
    mq_convex_destroy(c);
    return 0;
}
