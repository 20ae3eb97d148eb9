#include "rayfile.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

bool mqt_is_binary_rays_path(const char *path)
{
    size_t n = strlen(path);
    return n >= 5 && strcmp(path + n - 5, ".rays") == 0;
}

/* The formats are little-endian; so are all hosts we build on, but say so where it matters. */
static bool host_is_little_endian(void)
{
    const uint16_t one = 1;
    return *(const uint8_t *)&one == 1;
}

static uint32_t swap32(uint32_t v)
{
    return (v >> 24) | ((v >> 8) & 0xFF00u) | ((v << 8) & 0xFF0000u) | (v << 24);
}

static float le_float(const unsigned char *p)
{
    uint32_t u;
    memcpy(&u, p, 4);
    if (!host_is_little_endian())
        u = swap32(u);
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static void put_le32(unsigned char *p, uint32_t u)
{
    if (!host_is_little_endian())
        u = swap32(u);
    memcpy(p, &u, 4);
}

static bool grow(mq_ray **rays, size_t *cap, size_t need)
{
    if (need <= *cap)
        return true;
    size_t ncap = *cap ? *cap * 2 : 1024;
    while (ncap < need)
        ncap *= 2;
    mq_ray *nr = realloc(*rays, ncap * sizeof **rays);
    if (!nr)
        return false;
    *rays = nr;
    *cap = ncap;
    return true;
}

static void ray_from_floats(mq_ray *r, const float v[8])
{
    r->origin[0] = v[0];
    r->origin[1] = v[1];
    r->origin[2] = v[2];
    r->tmin = v[3];
    r->dir[0] = v[4];
    r->dir[1] = v[5];
    r->dir[2] = v[6];
    r->tmax = v[7];
}

static bool read_binary(FILE *f, const char *path, mq_ray **rays, size_t *count, char *err, size_t err_size)
{
    size_t cap = 0, n = 0;
    unsigned char rec[32];
    size_t got;
    while ((got = fread(rec, 1, sizeof rec, f)) == sizeof rec) {
        if (!grow(rays, &cap, n + 1)) {
            snprintf(err, err_size, "%s: out of memory after %zu rays", path, n);
            return false;
        }
        float v[8];
        for (int k = 0; k < 8; k++)
            v[k] = le_float(rec + 4 * k);
        ray_from_floats(&(*rays)[n++], v);
    }
    if (ferror(f)) {
        snprintf(err, err_size, "%s: read error: %s", path, strerror(errno));
        return false;
    }
    if (got != 0) {
        snprintf(err, err_size, "%s: size is not a whole number of 32-byte ray records (%zu stray bytes)", path, got);
        return false;
    }
    *count = n;
    return true;
}

/* Parses up to 8 numbers from a text line; returns how many, or -1 on a malformed token. */
static int parse_numbers(char *line, float v[8], int *bad_col)
{
    int k = 0;
    char *p = line;
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
            p++;
        if (*p == '\0' || *p == '#')
            return k;
        if (k == 8) {
            *bad_col = (int)(p - line) + 1;
            return -1;
        }
        char *end;
        errno = 0;
        double d = strtod(p, &end);
        if (end == p || (*end && *end != ' ' && *end != '\t' && *end != '\r' && *end != '\n' && *end != '#')) {
            *bad_col = (int)(p - line) + 1;
            return -1;
        }
        v[k++] = (float)d;
        p = end;
    }
}

static bool read_text(FILE *f, const char *path, mq_ray **rays, size_t *count, char *err, size_t err_size)
{
    size_t cap = 0, n = 0, lineno = 0;
    char *line = NULL;
    size_t line_cap = 0;
    ssize_t len;
    bool ok = true;
    while ((len = getline(&line, &line_cap, f)) >= 0) {
        lineno++;
        float v[8];
        int bad_col = 0;
        int k = parse_numbers(line, v, &bad_col);
        if (k == 0)
            continue;
        if (k < 0 || (k != 6 && k != 8)) {
            if (k < 0)
                snprintf(err, err_size, "%s:%zu:%d: expected a number", path, lineno, bad_col);
            else
                snprintf(err, err_size, "%s:%zu: expected 6 or 8 numbers per ray, found %d", path, lineno, k);
            ok = false;
            break;
        }
        if (k == 6) {
            float w[8] = {v[0], v[1], v[2], 0.0f, v[3], v[4], v[5], INFINITY};
            memcpy(v, w, sizeof w);
        }
        if (!grow(rays, &cap, n + 1)) {
            snprintf(err, err_size, "%s: out of memory after %zu rays", path, n);
            ok = false;
            break;
        }
        ray_from_floats(&(*rays)[n++], v);
    }
    free(line);
    if (ok && ferror(f)) {
        snprintf(err, err_size, "%s: read error: %s", path, strerror(errno));
        ok = false;
    }
    *count = n;
    return ok;
}

bool mqt_read_rays(const char *path, mq_ray **rays, size_t *count, char *err, size_t err_size)
{
    *rays = NULL;
    *count = 0;
    bool from_stdin = strcmp(path, "-") == 0;
    FILE *f = from_stdin ? stdin : fopen(path, "rb");
    if (!f) {
        snprintf(err, err_size, "%s: cannot open: %s", path, strerror(errno));
        return false;
    }
    bool ok = mqt_read_rays_stream(f, path, mqt_is_binary_rays_path(path), rays, count, err, err_size);
    if (!from_stdin)
        fclose(f);
    return ok;
}

bool mqt_read_rays_stream(FILE *f, const char *name, bool binary, mq_ray **rays, size_t *count, char *err,
                          size_t err_size)
{
    *rays = NULL;
    *count = 0;
    bool ok =
        binary ? read_binary(f, name, rays, count, err, err_size) : read_text(f, name, rays, count, err, err_size);
    if (!ok) {
        free(*rays);
        *rays = NULL;
        *count = 0;
    }
    return ok;
}

bool mqt_write_rays_binary(FILE *f, const mq_ray *rays, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        const mq_ray *r = &rays[i];
        float v[8] = {r->origin[0], r->origin[1], r->origin[2], r->tmin, r->dir[0], r->dir[1], r->dir[2], r->tmax};
        unsigned char rec[32];
        for (int k = 0; k < 8; k++) {
            uint32_t u;
            memcpy(&u, &v[k], 4);
            put_le32(rec + 4 * k, u);
        }
        if (fwrite(rec, 1, sizeof rec, f) != sizeof rec)
            return false;
    }
    return true;
}

bool mqt_write_hit_record(FILE *f, float t, uint32_t triangle)
{
    unsigned char rec[8];
    uint32_t u;
    memcpy(&u, &t, 4);
    put_le32(rec, u);
    put_le32(rec + 4, triangle);
    return fwrite(rec, 1, sizeof rec, f) == sizeof rec;
}
