/*
 * Drawing world-space lines and points over the shaded image: the
 * intersection segments (depth-tested against what the rays hit) and the
 * closest pairs (on top). A line is drawn by stepping along the 3D segment,
 * about two steps per pixel of its projection, and projecting every step with
 * the camera the rays came from, so the line stays exact under perspective
 * and each step knows its own depth.
 */
#include <math.h>
#include <string.h>

#include "render.h"

/* Steps along one line at most, so that a segment crossing the eye's plane far
 * off screen cannot take forever; on screen that is still 30 steps a pixel on
 * the largest image. */
#define MAX_STEPS (1u << 19)

/* What to do at each step of a line. */
typedef enum stroke_kind {
    STROKE_HIDDEN,  /* segments: one dashed pixel where hidden */
    STROKE_OUTLINE, /* segments: black disc where visible */
    STROKE_FILL,    /* segments: colour disc where visible */
    STROKE_PLAIN,   /* closest pairs: a disc at every step, no depth test */
} stroke_kind;

typedef struct stroke {
    const mqt_camera *cam;
    const render_sample *samples; /* for the depth test; NULL with STROKE_PLAIN */
    uint8_t *rgb;
    stroke_kind kind;
    long radius;
    uint8_t colour[3];
    double tan_half; /* tan(vfov / 2) */
    size_t visible;  /* steps drawn as visible */
} stroke;

/* Line radius in pixels (the line is 2r + 1 wide): readable on any image size. */
static long line_radius(const mqt_camera *cam)
{
    uint32_t side = cam->width < cam->height ? cam->width : cam->height;
    long r = (long)(side / 400);
    return r < 1 ? 1 : r > 6 ? 6 : r;
}

static void disc(uint8_t *rgb, uint32_t width, uint32_t height, long cx, long cy, long r, const uint8_t c[3])
{
    for (long dy = -r; dy <= r; dy++) {
        long y = cy + dy;
        if (y < 0 || y >= (long)height)
            continue;
        for (long dx = -r; dx <= r; dx++) {
            long x = cx + dx;
            if (x < 0 || x >= (long)width || dx * dx + dy * dy > r * r + r)
                continue;
            memcpy(rgb + 3 * ((size_t)y * width + (size_t)x), c, 3);
        }
    }
}

/* Whether a point at distance `dist` from the eye, projecting to pixel (x, y), is in front
 * of the surface the rays saw there. The point lies on a surface itself (an intersection
 * segment lies on both meshes), so it is compared with the 3x3 pixels around it, with a
 * tolerance of two pixels' footprint at that distance: the pixel centre's ray meets the
 * surface up to half a pixel away from the point, which at a slant is a different depth. */
static bool visible(const stroke *s, long x, long y, double dist)
{
    double footprint = dist * 2.0 * s->tan_half / (double)s->cam->height;
    double limit = dist - 2.0 * footprint - 1e-5 * dist;
    for (long dy = -1; dy <= 1; dy++) {
        for (long dx = -1; dx <= 1; dx++) {
            long px = x + dx, py = y + dy;
            if (px < 0 || py < 0 || px >= (long)s->cam->width || py >= (long)s->cam->height)
                continue;
            const render_sample *m = &s->samples[(size_t)py * s->cam->width + (size_t)px];
            if (m->triangle == MQ_NO_TRIANGLE || (double)m->t >= limit)
                return true;
        }
    }
    return false;
}

static void point_at(const render_line *l, double u, double p[3])
{
    for (int k = 0; k < 3; k++)
        p[k] = l->a[k] + u * (l->b[k] - l->a[k]);
}

static bool project(const mqt_camera *cam, const double p[3], double *x, double *y)
{
    double depth;
    return mqt_camera_project(cam, p, x, y, &depth);
}

/* The part [u0, u1] of the line in front of the eye; false when none is. The eye's
 * side of a point changes once along a line, so the boundary is found by bisection. */
static bool clip(const mqt_camera *cam, const render_line *l, double *u0, double *u1)
{
    double p[3], x, y;
    bool in_a = project(cam, l->a, &x, &y), in_b = project(cam, l->b, &x, &y);
    *u0 = 0.0, *u1 = 1.0;
    if (in_a && in_b)
        return true;
    if (!in_a && !in_b)
        return false;
    double lo = 0.0, hi = 1.0; /* the outside end at lo */
    if (!in_b)
        lo = 1.0, hi = 0.0;
    for (int i = 0; i < 60; i++) {
        double mid = 0.5 * (lo + hi);
        point_at(l, mid, p);
        if (project(cam, p, &x, &y))
            hi = mid;
        else
            lo = mid;
    }
    if (in_a)
        *u1 = hi;
    else
        *u0 = hi;
    return true;
}

static void eye_distance(const mqt_camera *cam, const double p[3], double *dist)
{
    double d2 = 0.0;
    for (int k = 0; k < 3; k++)
        d2 += (p[k] - cam->eye[k]) * (p[k] - cam->eye[k]);
    *dist = sqrt(d2);
}

static void stroke_line(stroke *s, const render_line *l)
{
    const mqt_camera *cam = s->cam;
    double u0, u1, p[3], x0, y0, x1, y1;
    if (!clip(cam, l, &u0, &u1))
        return;
    point_at(l, u0, p);
    bool ok0 = project(cam, p, &x0, &y0);
    point_at(l, u1, p);
    bool ok1 = project(cam, p, &x1, &y1);
    if (!ok0 || !ok1)
        return;
    double len = hypot(x1 - x0, y1 - y0);
    double want = ceil(2.0 * len) + 1.0;
    uint32_t steps = want > (double)MAX_STEPS ? MAX_STEPS : (uint32_t)want;
    long last_x = -1, last_y = -1;
    double arc = 0.0, px = x0, py = y0;
    for (uint32_t i = 0; i <= steps; i++) {
        double x, y;
        point_at(l, u0 + (u1 - u0) * ((double)i / (double)steps), p);
        if (!project(cam, p, &x, &y))
            continue;
        arc += hypot(x - px, y - py);
        px = x, py = y;
        if (!(x > -0.5 - (double)s->radius - 1.0 && y > -0.5 - (double)s->radius - 1.0 &&
              x < (double)cam->width + (double)s->radius + 0.5 && y < (double)cam->height + (double)s->radius + 0.5))
            continue; /* off screen, brush and all */
        long ix = lround(x), iy = lround(y);
        if (ix == last_x && iy == last_y)
            continue;
        last_x = ix, last_y = iy;
        if (s->kind == STROKE_PLAIN) {
            disc(s->rgb, cam->width, cam->height, ix, iy, s->radius, s->colour);
            continue;
        }
        if (ix < 0 || iy < 0 || ix >= (long)cam->width || iy >= (long)cam->height)
            continue; /* the depth test needs the pixel's own sample */
        double dist;
        eye_distance(cam, p, &dist);
        bool seen = visible(s, ix, iy, dist);
        if (s->kind == STROKE_HIDDEN) {
            if (!seen && fmod(arc, 8.0) < 4.0)
                disc(s->rgb, cam->width, cam->height, ix, iy, 0, s->colour);
        } else if (seen) {
            disc(s->rgb, cam->width, cam->height, ix, iy, s->radius, s->colour);
            s->visible++;
        }
    }
}

size_t render_draw_segments(const mqt_camera *cam, const render_sample *samples, const render_line *lines, size_t n,
                            uint8_t *rgb)
{
    static const uint8_t colour[3] = RENDER_SEGMENT_RGB, black[3] = {0, 0, 0};
    long r = line_radius(cam);
    stroke s = {
        cam, samples, rgb, STROKE_HIDDEN, 0, {0, 0, 0}, tan(0.5 * cam->vfov_degrees * 3.14159265358979323846 / 180.0),
        0};
    /* Hidden parts first, then every outline, then every fill: a crossing line's
     * outline never cuts through another's colour. */
    const struct {
        stroke_kind kind;
        long radius;
        const uint8_t *c;
    } passes[3] = {{STROKE_HIDDEN, 0, colour}, {STROKE_OUTLINE, r + 1, black}, {STROKE_FILL, r, colour}};
    for (int pass = 0; pass < 3; pass++) {
        s.kind = passes[pass].kind;
        s.radius = passes[pass].radius;
        memcpy(s.colour, passes[pass].c, 3);
        s.visible = 0;
        for (size_t i = 0; i < n; i++)
            stroke_line(&s, &lines[i]);
    }
    return s.visible;
}

void render_draw_closest(const mqt_camera *cam, const render_line *lines, size_t n, uint8_t *rgb)
{
    static const uint8_t line[3] = RENDER_LINE_RGB, dot[3] = RENDER_DOT_RGB, black[3] = {0, 0, 0};
    long r = line_radius(cam), dot_r = 2 * r + 2;
    stroke s = {cam, NULL, rgb, STROKE_PLAIN, r + 1, {0, 0, 0}, 0.0, 0};
    for (size_t i = 0; i < n; i++)
        stroke_line(&s, &lines[i]);
    s.radius = r;
    memcpy(s.colour, line, 3);
    for (size_t i = 0; i < n; i++)
        stroke_line(&s, &lines[i]);
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < n; i++) {
            for (int end = 0; end < 2; end++) {
                double x, y;
                if (!project(cam, end ? lines[i].b : lines[i].a, &x, &y))
                    continue;
                if (fabs(x) > 1e9 || fabs(y) > 1e9)
                    continue;
                disc(rgb, cam->width, cam->height, lround(x), lround(y), pass ? dot_r : dot_r + 1, pass ? dot : black);
            }
        }
    }
}
