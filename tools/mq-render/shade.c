/*
 * Turning samples into colours, and drawing the overlays (highlighted
 * triangles, crosshairs) on top.
 */
#include <math.h>
#include <string.h>

#include "render.h"

/* A dark blue-grey that no shading below produces over a large area, so the
 * silhouette always stands out. */
static const uint8_t background[3] = {24, 26, 38};

static uint8_t to_byte(float v)
{
    v = v < 0.0f ? 0.0f : v > 1.0f ? 1.0f : v;
    return (uint8_t)lrintf(255.0f * v);
}

static void put(uint8_t *px, float r, float g, float b)
{
    px[0] = to_byte(r);
    px[1] = to_byte(g);
    px[2] = to_byte(b);
}

/* Heat ramp: black -> blue -> magenta -> orange -> pale yellow, monotonic in
 * brightness so it also reads in greyscale. */
static void heat_colour(float v, uint8_t *px)
{
    static const float stops[5][3] = {
        {0.0f, 0.0f, 0.0f}, {0.1f, 0.1f, 0.8f}, {0.8f, 0.1f, 0.6f}, {1.0f, 0.55f, 0.0f}, {1.0f, 1.0f, 0.75f}};
    v = v < 0.0f ? 0.0f : v > 1.0f ? 1.0f : v;
    float f = v * 4.0f;
    int i = (int)f;
    if (i > 3)
        i = 3;
    float a = f - (float)i;
    put(px, stops[i][0] + a * (stops[i + 1][0] - stops[i][0]), stops[i][1] + a * (stops[i + 1][1] - stops[i][1]),
        stops[i][2] + a * (stops[i + 1][2] - stops[i][2]));
}

/* The top of the heat ramp: the 99.5th percentile of the visit counts, not
 * the maximum, because a few silhouette pixels cost far more than the rest
 * and would otherwise push the whole image into the dark end. */
static uint32_t heat_top(const render_sample *samples, size_t n, uint32_t vmax)
{
    enum { BINS = 4096 };
    static size_t hist[BINS];
    memset(hist, 0, sizeof hist);
    for (size_t i = 0; i < n; i++)
        hist[samples[i].visits < BINS ? samples[i].visits : BINS - 1]++;
    size_t want = n - n / 200, seen = 0;
    for (uint32_t v = 0; v < BINS; v++) {
        seen += hist[v];
        if (seen >= want)
            return v > 0 ? v : (vmax > 0 ? 1 : 0);
    }
    return vmax;
}

uint32_t render_shade_image(const render_sample *samples, uint32_t width, uint32_t height, render_shade shade,
                            uint8_t *rgb)
{
    size_t n = (size_t)width * height;
    float tmin = INFINITY, tmax = -INFINITY;
    uint32_t vmax = 0;
    for (size_t i = 0; i < n; i++) {
        if (samples[i].visits > vmax)
            vmax = samples[i].visits;
        if (samples[i].triangle != MQ_NO_TRIANGLE) {
            tmin = fminf(tmin, samples[i].t);
            tmax = fmaxf(tmax, samples[i].t);
        }
    }
    if (shade == SHADE_HEAT)
        vmax = heat_top(samples, n, vmax);
    /* Depth is stretched over the visible range, not [0, far]: otherwise a
     * model seen from afar would be one flat grey. */
    float trange = tmax > tmin ? tmax - tmin : 1.0f;
    for (size_t i = 0; i < n; i++) {
        const render_sample *s = &samples[i];
        uint8_t *px = rgb + 3 * i;
        if (shade == SHADE_HEAT) {
            /* Background pixels are coloured too: rays that miss can still do
             * a lot of work, which is exactly what a heat map should show. */
            heat_colour(vmax ? (float)s->visits / (float)vmax : 0.0f, px);
            continue;
        }
        if (s->triangle == MQ_NO_TRIANGLE) {
            px[0] = background[0], px[1] = background[1], px[2] = background[2];
            continue;
        }
        if (shade == SHADE_DEPTH) {
            float g = 0.95f - 0.75f * (s->t - tmin) / trange; /* near = bright */
            put(px, g, g, g);
        } else {
            /* Normal mapped to RGB: each axis to a channel, [-1, 1] -> [0, 1]. */
            put(px, 0.5f + 0.5f * s->normal[0], 0.5f + 0.5f * s->normal[1], 0.5f + 0.5f * s->normal[2]);
        }
    }
    return shade == SHADE_HEAT ? vmax : 0;
}

size_t render_highlight(const render_sample *samples, uint32_t width, uint32_t height, const uint8_t *flags,
                        size_t triangle_count, uint8_t *rgb)
{
    static const float tint[3] = {255.0f, 120.0f, 0.0f}; /* orange, far from every normal colour's grey */
    size_t n = (size_t)width * height, count = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t t = samples[i].triangle;
        if (t == MQ_NO_TRIANGLE || t >= triangle_count || !flags[t])
            continue;
        for (int k = 0; k < 3; k++)
            rgb[3 * i + k] = (uint8_t)lrintf(0.3f * rgb[3 * i + k] + 0.7f * tint[k]);
        count++;
    }
    return count;
}

static void set_px(uint8_t *rgb, uint32_t width, uint32_t height, long x, long y, const uint8_t c[3])
{
    if (x < 0 || y < 0 || x >= (long)width || y >= (long)height)
        return;
    uint8_t *px = rgb + 3 * ((size_t)y * width + (size_t)x);
    px[0] = c[0], px[1] = c[1], px[2] = c[2];
}

void render_mark(uint8_t *rgb, uint32_t width, uint32_t height, uint32_t x, uint32_t y)
{
    static const uint8_t outline[3] = {0, 0, 0}, line[3] = {255, 255, 0};
    uint32_t side = width < height ? width : height;
    long arm = side / 40 > 6 ? (long)(side / 40) : 6; /* visible at any size */
    const long gap = 2;                               /* the picked pixel itself stays visible */
    long cx = x, cy = y;
    /* A black outline under a yellow line reads on any background. */
    for (int pass = 0; pass < 2; pass++) {
        const uint8_t *c = pass ? line : outline;
        long w = pass ? 0 : 1;
        for (long d = gap; d <= arm; d++) {
            for (long o = -w; o <= w; o++) {
                set_px(rgb, width, height, cx + d, cy + o, c);
                set_px(rgb, width, height, cx - d, cy + o, c);
                set_px(rgb, width, height, cx + o, cy + d, c);
                set_px(rgb, width, height, cx + o, cy - d, c);
            }
        }
    }
}
