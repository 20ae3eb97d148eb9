/*
 * libFuzzer target for the exact orientation predicates: orient3d
 * (src/core/orient3d.h), which decides every side test of the convex hull
 * builder, and orient2d (src/core/orient2d.h), used by triangle-triangle overlap.
 *
 * Input layout (every read past the end yields 0):
 *   byte      scale exponent: the points are multiplied by 2^(b % 240 - 120)
 *   byte      construction: bit 0 set makes d = a + s (b - a) + t (c - a) +
 *             delta, nearly or exactly coplanar with a, b, c
 *   then a, b, c, d: 3 coordinates each, 4 bytes each (signed, little-endian,
 *   shifted right by 1 so that |x| < 2^30); for a coplanar d, its bytes give
 *   s and t (small) and a delta of a few units per coordinate.
 *
 * What is checked (a violation aborts with a message): the sign of
 * mq_orient3d, of mq_orient3d_exact and of a prepared plane's test equal the
 * sign of the determinant in 128-bit integers; turning a, b, c cyclically
 * keeps it and swapping two flips it. The same for orient2d
 * (src/core/orient2d.h) of a, b, d in the xy and the yz plane.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "../support/int_orient.h"
#include "core/orient2d.h"
#include "core/orient3d.h"
#include "fuzz_reader.h"

#define CHECK(c, ...)                                                                                                  \
    do {                                                                                                               \
        if (!(c)) {                                                                                                    \
            fprintf(stderr, "fuzz_orient3d: " __VA_ARGS__);                                                            \
            fputc('\n', stderr);                                                                                       \
            abort();                                                                                                   \
        }                                                                                                              \
    } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int64_t rd_i30(reader *r)
{
    uint32_t bits = 0;
    for (int i = 0; i < 4; i++)
        bits |= (uint32_t)rd_byte(r) << (8 * i);
    return (int64_t)(int32_t)bits / 2;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    reader r = {data, size};
    int ex = (int)(rd_byte(&r) % 240) - 120;
    int coplanar = rd_byte(&r) & 1;
    int64_t p[4][3];
    for (int j = 0; j < 3; j++)
        for (int k = 0; k < 3; k++)
            p[j][k] = rd_i30(&r);
    if (coplanar) {
        /* |s|, |t| <= 8 and |delta| <= 2: every coordinate below 2^35 */
        int64_t s = (int8_t)rd_byte(&r) % 9, t = (int8_t)rd_byte(&r) % 9;
        for (int k = 0; k < 3; k++)
            p[3][k] = p[0][k] + s * (p[1][k] - p[0][k]) + t * (p[2][k] - p[0][k]) + (int8_t)rd_byte(&r) % 3;
    } else {
        for (int k = 0; k < 3; k++)
            p[3][k] = rd_i30(&r);
    }
    double q[4][3];
    for (int j = 0; j < 4; j++)
        for (int k = 0; k < 3; k++)
            q[j][k] = ldexp((double)p[j][k], ex); /* exact: below 2^53, no overflow or underflow */
    int want = mq_test_orient3d_sign(p[0], p[1], p[2], p[3]);
    CHECK(mq_orient3d(q[0], q[1], q[2], q[3]) == want, "mq_orient3d differs from the oracle's %d", want);
    CHECK(mq_orient3d_exact(q[0], q[1], q[2], q[3]) == want, "mq_orient3d_exact differs from the oracle's %d", want);
    CHECK(mq_orient3d(q[1], q[2], q[0], q[3]) == want, "a cyclic turn changed the sign");
    CHECK(mq_orient3d(q[1], q[0], q[2], q[3]) == -want, "a swap did not flip the sign");
    mq_orient_plane pl;
    mq_orient_plane_init(&pl, q[0], q[1], q[2]);
    double det = mq_orient_plane_det(&pl, q[0], q[3]), bound = mq_orient_plane_bound(&pl, q[0], q[3]);
    if (det > bound)
        CHECK(want == 1, "the filter said +1, the oracle %d", want);
    if (det < -bound)
        CHECK(want == -1, "the filter said -1, the oracle %d", want);
    /* orient2d of a, b, d in the xy and the yz plane (d nearly on the line
     * ab there when s or t is 0) */
    for (int k = 0; k < 2; k++) {
        const int64_t a2[2] = {p[0][k], p[0][k + 1]}, b2[2] = {p[1][k], p[1][k + 1]}, d2[2] = {p[3][k], p[3][k + 1]};
        int want2 = mq_test_orient2d_sign(a2, b2, d2);
        CHECK(mq_orient2d(q[0] + k, q[1] + k, q[3] + k) == want2, "mq_orient2d differs from the oracle's %d", want2);
        CHECK(mq_orient2d_exact(q[0] + k, q[1] + k, q[3] + k) == want2,
              "mq_orient2d_exact differs from the oracle's %d", want2);
        CHECK(mq_orient2d(q[1] + k, q[3] + k, q[0] + k) == want2, "a cyclic turn changed the 2D sign");
        CHECK(mq_orient2d(q[1] + k, q[0] + k, q[3] + k) == -want2, "a swap did not flip the 2D sign");
    }
    return 0;
}
