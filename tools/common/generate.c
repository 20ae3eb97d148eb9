#include "generate.h"

#include "camera.h"

#include <math.h>

void mqt_bounds(const float *p, size_t n, mq_aabb *out)
{
    for (int k = 0; k < 3; k++) {
        out->min[k] = INFINITY;
        out->max[k] = -INFINITY;
    }
    for (size_t i = 0; i < n; i++) {
        const float *v = p + 3 * i;
        if (!isfinite(v[0]) || !isfinite(v[1]) || !isfinite(v[2]))
            continue;
        for (int k = 0; k < 3; k++) {
            out->min[k] = fminf(out->min[k], v[k]);
            out->max[k] = fmaxf(out->max[k], v[k]);
        }
    }
}

void mqt_rng_seed(mqt_rng *rng, uint64_t seed)
{
    rng->state = seed;
}

static uint64_t rng_next(mqt_rng *rng)
{
    uint64_t z = (rng->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

double mqt_rng_unit(mqt_rng *rng)
{
    return (double)(rng_next(rng) >> 11) * 0x1.0p-53;
}

static void frame(const mq_aabb *b, double c[3], double *diag)
{
    double d2 = 0.0;
    for (int k = 0; k < 3; k++) {
        c[k] = 0.5 * ((double)b->min[k] + (double)b->max[k]);
        double e = (double)b->max[k] - (double)b->min[k];
        d2 += e * e;
    }
    *diag = sqrt(d2);
}

static void unit_vector(mqt_rng *rng, double out[3])
{
    double z = 2.0 * mqt_rng_unit(rng) - 1.0;
    double phi = 6.283185307179586 * mqt_rng_unit(rng);
    double r = sqrt(fmax(0.0, 1.0 - z * z));
    out[0] = r * cos(phi);
    out[1] = r * sin(phi);
    out[2] = z;
}

static void point_in_box(mqt_rng *rng, const mq_aabb *b, double out[3])
{
    for (int k = 0; k < 3; k++)
        out[k] = (double)b->min[k] + ((double)b->max[k] - (double)b->min[k]) * mqt_rng_unit(rng);
}

static void set_ray(mq_ray *r, const double o[3], const double d[3], float tmin, float tmax)
{
    for (int k = 0; k < 3; k++) {
        r->origin[k] = (float)o[k];
        r->dir[k] = (float)d[k];
    }
    r->tmin = tmin;
    r->tmax = tmax;
}

void mqt_generate_incoherent(const mq_aabb *b, size_t count, uint64_t seed, mq_ray *out)
{
    double c[3], D;
    frame(b, c, &D);
    mqt_rng rng;
    mqt_rng_seed(&rng, seed);
    for (size_t i = 0; i < count; i++) {
        double u[3], o[3], target[3], d[3];
        unit_vector(&rng, u);
        for (int k = 0; k < 3; k++)
            o[k] = c[k] + 1.5 * D * u[k];
        point_in_box(&rng, b, target);
        double len = 0.0;
        for (int k = 0; k < 3; k++) {
            d[k] = target[k] - o[k];
            len += d[k] * d[k];
        }
        len = sqrt(len);
        for (int k = 0; k < 3; k++)
            d[k] = len > 0.0 ? d[k] / len : (k == 0);
        set_ray(&out[i], o, d, 0.0f, INFINITY);
    }
}

void mqt_generate_primary(const mq_aabb *b, uint32_t width, uint32_t height, mq_ray *out)
{
    mqt_camera cam;
    mqt_camera_default(b, width, height, &cam);
    for (uint32_t y = 0; y < height; y++)
        for (uint32_t x = 0; x < width; x++)
            mqt_camera_ray(&cam, x, y, &out[(size_t)y * width + x]);
}

void mqt_generate_short(const mq_aabb *b, size_t count, uint64_t seed, mq_ray *out)
{
    double c[3], D;
    frame(b, c, &D);
    mqt_rng rng;
    mqt_rng_seed(&rng, seed);
    for (size_t i = 0; i < count; i++) {
        double o[3], d[3];
        point_in_box(&rng, b, o);
        unit_vector(&rng, d);
        set_ray(&out[i], o, d, 0.0f, (float)(0.02 * D));
    }
}
