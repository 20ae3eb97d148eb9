/*
 * The input decoding the fuzz targets share: bytes read in order, every read
 * past the end yielding 0, and raw float and double bit patterns in either
 * byte order (every target); and, for the query targets (fuzz_queries.c,
 * fuzz_kdoptree.c, fuzz_tree_shapes.c), numbers drawn so that the geometric
 * special cases come often: small integers and quarters (touching, shared
 * edges, coplanar faces), signed and tiny zeros, huge and tiny powers of two,
 * and sometimes any bit pattern (NaN, infinities, denormals). The other
 * targets keep their own number decoders (their seeds are written for them)
 * on top of these readers.
 */
#ifndef MQ_TESTS_FUZZ_READER_H
#define MQ_TESTS_FUZZ_READER_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <meshquery/types.h>

typedef struct reader {
    const uint8_t *p;
    size_t n;
} reader;

static inline uint8_t rd_byte(reader *r)
{
    if (!r->n)
        return 0;
    r->n--;
    return *r->p++;
}

/* Any float: four bytes, big-endian. */
static inline float rd_raw(reader *r)
{
    uint32_t bits = 0;
    for (int i = 0; i < 4; i++)
        bits = bits << 8 | rd_byte(r);
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

/* Any float: four bytes, little-endian. */
static inline float rd_raw_le(reader *r)
{
    uint32_t bits = 0;
    for (int i = 0; i < 4; i++)
        bits |= (uint32_t)rd_byte(r) << (8 * i);
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

/* Any double: eight bytes, big-endian. */
static inline double rd_raw64(reader *r)
{
    uint64_t bits = 0;
    for (int i = 0; i < 8; i++)
        bits = bits << 8 | rd_byte(r);
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

/* Any double: eight bytes, little-endian. */
static inline double rd_raw64_le(reader *r)
{
    uint64_t bits = 0;
    for (int i = 0; i < 8; i++)
        bits |= (uint64_t)rd_byte(r) << (8 * i);
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

/* A coordinate. */
static inline float read_coord(reader *r)
{
    uint8_t t = rd_byte(r);
    if (t < 144)
        return (float)(t % 9) - 4.0f;
    if (t < 208)
        return (float)((int)(t % 64) - 32) * 0.25f;
    if (t < 216)
        return (t & 1) ? -0.0f : 1e-3f * (float)(t % 8);
    if (t < 224)
        return ldexpf((t & 1) ? -1.0f : 1.0f, (t & 2) ? -100 : 40); /* tiny / big powers of two */
    return rd_raw(r);
}

/* A non-negative-ish size: radius or half extent (raw values may be negative or NaN). */
static inline float read_size(reader *r)
{
    uint8_t t = rd_byte(r);
    if (t < 160)
        return (float)(t % 5) * 0.5f;
    if (t < 224)
        return (float)(t % 9);
    return rd_raw(r);
}

static inline void read_vec3(reader *r, vec3 v)
{
    v[0] = read_coord(r);
    v[1] = read_coord(r);
    v[2] = read_coord(r);
}

/* The largest |component|; NaN never raises it. */
static inline float absmax3(const vec3 v)
{
    float m = 0.0f;
    for (int i = 0; i < 3; i++) {
        float a = fabsf(v[i]);
        if (a > m)
            m = a;
    }
    return m;
}

#endif
