/*
 * libFuzzer target for the ray file readers of the tools (tools/common/rayfile.h):
 * every input is read both as a binary .rays file and as the text ray form
 * (docs/formats.md), through mqt_read_rays_stream on a memory stream.
 *
 * Checked (a violation aborts):
 *   - binary: accepted exactly when the size is a whole number of 32-byte
 *     records; then count = size / 32 and writing the rays back with
 *     mqt_write_rays_binary gives the input bytes (NaNs: any NaN);
 *   - text: accepted rays are at most one per line, and writing them back as
 *     text (8 hex floats per line) and reading that again gives the same rays;
 *   - failure: no rays, count 0, and a message that starts with the name.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rayfile.h"

#define CHECK(c)                                                                                                       \
    do {                                                                                                               \
        if (!(c)) {                                                                                                    \
            fprintf(stderr, "fuzz_tool_rays: check failed (line %d): %s\n", __LINE__, #c);                             \
            abort();                                                                                                   \
        }                                                                                                              \
    } while (0)

static const char NAME[] = "fuzz.rays";

/* A read-only stream over the bytes (an empty input: /dev/null). */
static FILE *open_bytes(void *buf, size_t size)
{
    return size ? fmemopen(buf, size, "rb") : fopen("/dev/null", "rb");
}

static bool same_float_bits(float a, const unsigned char *p)
{
    uint32_t u, w;
    memcpy(&u, &a, 4);
    w = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
    if (u == w)
        return true;
    float b;
    memcpy(&b, &w, 4);
    return isnan(a) && isnan(b);
}

static void check_failure(bool ok, const mq_ray *rays, size_t count, const char *err)
{
    if (ok)
        return;
    CHECK(rays == NULL && count == 0);
    CHECK(strncmp(err, NAME, sizeof NAME - 1) == 0);
}

static void fuzz_binary(void *buf, const uint8_t *data, size_t size)
{
    FILE *f = open_bytes(buf, size);
    if (!f)
        return;
    mq_ray *rays = NULL;
    size_t count = 12345;
    char err[256] = "";
    bool ok = mqt_read_rays_stream(f, NAME, true, &rays, &count, err, sizeof err);
    fclose(f);
    CHECK(ok == (size % 32 == 0));
    check_failure(ok, rays, count, err);
    if (ok) {
        CHECK(count == size / 32);
        CHECK(count == 0 || rays != NULL);
        /* Round trip through the writer. */
        char *out = NULL;
        size_t out_size = 0;
        FILE *w = open_memstream(&out, &out_size);
        CHECK(w != NULL);
        CHECK(mqt_write_rays_binary(w, rays, count));
        fclose(w);
        CHECK(out_size == size);
        for (size_t i = 0; i < count; i++) {
            const mq_ray *r = &rays[i];
            const float v[8] = {r->origin[0], r->origin[1], r->origin[2], r->tmin,
                                r->dir[0],    r->dir[1],    r->dir[2],    r->tmax};
            for (int k = 0; k < 8; k++) {
                CHECK(same_float_bits(v[k], data + 32 * i + 4 * k));
                CHECK(same_float_bits(v[k], (const unsigned char *)out + 32 * i + 4 * k));
            }
        }
        free(out);
    }
    free(rays);
}

static bool same_ray(const mq_ray *a, const mq_ray *b)
{
    const float va[8] = {a->origin[0], a->origin[1], a->origin[2], a->tmin, a->dir[0], a->dir[1], a->dir[2], a->tmax};
    const float vb[8] = {b->origin[0], b->origin[1], b->origin[2], b->tmin, b->dir[0], b->dir[1], b->dir[2], b->tmax};
    for (int k = 0; k < 8; k++)
        if (!(va[k] == vb[k] || (isnan(va[k]) && isnan(vb[k]))) || signbit(va[k]) != signbit(vb[k]))
            return false;
    return true;
}

static void fuzz_text(void *buf, const uint8_t *data, size_t size)
{
    FILE *f = open_bytes(buf, size);
    if (!f)
        return;
    mq_ray *rays = NULL;
    size_t count = 12345;
    char err[256] = "";
    bool ok = mqt_read_rays_stream(f, NAME, false, &rays, &count, err, sizeof err);
    fclose(f);
    check_failure(ok, rays, count, err);
    size_t lines = 0;
    for (size_t i = 0; i < size; i++)
        lines += data[i] == '\n';
    lines += size && data[size - 1] != '\n';
    CHECK(count <= lines);
    if (ok && count) {
        /* Round trip through the text form, exactly (hex floats). */
        char *text = NULL;
        size_t text_size = 0;
        FILE *w = open_memstream(&text, &text_size);
        CHECK(w != NULL);
        fprintf(w, "# round trip\n\n");
        for (size_t i = 0; i < count; i++) {
            const mq_ray *r = &rays[i];
            fprintf(w, "%a %a %a %a\t%a %a %a %a\r\n", (double)r->origin[0], (double)r->origin[1], (double)r->origin[2],
                    (double)r->tmin, (double)r->dir[0], (double)r->dir[1], (double)r->dir[2], (double)r->tmax);
        }
        fclose(w);
        FILE *again = fmemopen(text, text_size, "rb");
        CHECK(again != NULL);
        mq_ray *back = NULL;
        size_t back_count = 0;
        CHECK(mqt_read_rays_stream(again, NAME, false, &back, &back_count, err, sizeof err));
        fclose(again);
        CHECK(back_count == count);
        for (size_t i = 0; i < count; i++)
            CHECK(same_ray(&rays[i], &back[i]));
        free(back);
        free(text);
    }
    free(rays);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size); /* libFuzzer calls it */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* A private copy: the stream must not see past `size` (ASan checks). */
    void *buf = malloc(size ? size : 1);
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    fuzz_binary(buf, data, size);
    memcpy(buf, data, size);
    fuzz_text(buf, data, size);
    free(buf);
    return 0;
}
