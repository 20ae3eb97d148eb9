/* Polygon triangulation: convexity test and ear clipping (see triangulate.h). */
#include <math.h>
#include <string.h>

#include "core/minmax.h"
#include "core/alloc.h"
#include "obj/triangulate.h"

enum { REFLEX = 1, REMOVED = 2 };

/* Point tests one polygon may spend before it is finished without them: a few
 * tenths of a second, so hostile input cannot stall a load. */
#define WORK_BUDGET (1u << 26)

void mq_tri_scratch_free(mq_tri_scratch *s)
{
    size_t n = s->capacity;
    mq_free(s->alloc, s->xy, n * 2 * sizeof(double));
    mq_free(s->alloc, s->prev, n * sizeof(uint32_t));
    mq_free(s->alloc, s->next, n * sizeof(uint32_t));
    mq_free(s->alloc, s->reflex_list, n * sizeof(uint32_t));
    mq_free(s->alloc, s->cell_items, n * sizeof(uint32_t));
    mq_free(s->alloc, s->state, n);
    mq_free(s->alloc, s->cell_start, s->cell_capacity * sizeof(uint32_t));
    const mq_allocator *a = s->alloc;
    memset(s, 0, sizeof *s);
    s->alloc = a;
}

static bool reserve(mq_tri_scratch *s, uint32_t n)
{
    if (n <= s->capacity)
        return true;
    size_t cap = s->capacity ? s->capacity : 16;
    while (cap < n)
        cap *= 2;
    mq_tri_scratch t = {.alloc = s->alloc, .capacity = cap};
    t.xy = mq_alloc(t.alloc, cap * 2 * sizeof(double), 16);
    t.prev = mq_alloc(t.alloc, cap * sizeof(uint32_t), 16);
    t.next = mq_alloc(t.alloc, cap * sizeof(uint32_t), 16);
    t.reflex_list = mq_alloc(t.alloc, cap * sizeof(uint32_t), 16);
    t.cell_items = mq_alloc(t.alloc, cap * sizeof(uint32_t), 16);
    t.state = mq_alloc(t.alloc, cap, 16);
    t.cell_start = mq_alloc(t.alloc, (cap + 2) * sizeof(uint32_t), 16);
    t.cell_capacity = cap + 2;
    bool ok = t.xy && t.prev && t.next && t.reflex_list && t.cell_items && t.state && t.cell_start;
    mq_tri_scratch_free(ok ? s : &t);
    if (ok)
        *s = t;
    return ok;
}

/* Twice the signed area of (a, b, c): > 0 when counter-clockwise. */
static double orient(const double *a, const double *b, const double *c)
{
    return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
}

/* Projects the corners to 2D, counter-clockwise; false when the Newell normal
 * is zero or a corner is not finite (no plane: the fan is as good as anything). */
static bool project(const float *pos, const uint32_t *corners, uint32_t n, double *xy)
{
    const float *o = pos + 3 * (size_t)corners[0];
    double nrm[3] = {0, 0, 0};
    for (uint32_t i = 0; i < n; i++) {
        const float *a = pos + 3 * (size_t)corners[i], *b = pos + 3 * (size_t)corners[(i + 1) % n];
        double ax = (double)a[0] - o[0], ay = (double)a[1] - o[1], az = (double)a[2] - o[2];
        double bx = (double)b[0] - o[0], by = (double)b[1] - o[1], bz = (double)b[2] - o[2];
        nrm[0] += (ay - by) * (az + bz);
        nrm[1] += (az - bz) * (ax + bx);
        nrm[2] += (ax - bx) * (ay + by);
    }
    int axis =
        fabs(nrm[0]) > fabs(nrm[1]) ? (fabs(nrm[0]) > fabs(nrm[2]) ? 0 : 2) : (fabs(nrm[1]) > fabs(nrm[2]) ? 1 : 2);
    if (!(fabs(nrm[axis]) > 0.0)) /* zero or NaN */
        return false;
    int u = (axis + 1) % 3, v = (axis + 2) % 3; /* cyclic: (u, v, axis) is right-handed */
    double flip = nrm[axis] > 0.0 ? 1.0 : -1.0;
    for (uint32_t i = 0; i < n; i++) {
        const float *a = pos + 3 * (size_t)corners[i];
        xy[2 * i] = a[u];
        xy[2 * i + 1] = flip * a[v];
        if (!isfinite(xy[2 * i]) || !isfinite(xy[2 * i + 1]))
            return false; /* inf/nan corners (allow_non_finite): never hit, the fan will do */
    }
    return true;
}

/*
 * The fan from corner 0 is a correct triangulation when every fan triangle
 * turns left (or is flat) and the corners sweep around corner 0 by less than
 * a full turn: the triangles then sit in disjoint angular sectors and cover the
 * polygon. That holds for every convex polygon and for concave ones whose
 * corner 0 sees all the others; stars that wind twice fail it.
 */
static bool fan_is_valid(const double *xy, uint32_t n)
{
    bool past_half_turn = false;
    for (uint32_t i = 1; i + 1 < n; i++) {
        if (orient(xy, xy + 2 * i, xy + 2 * (i + 1)) < 0.0)
            return false;
        double side = orient(xy, xy + 2, xy + 2 * (i + 1)); /* where corner i+1 lies from corner 1 */
        if (side < 0.0)
            past_half_turn = true;
        else if (side > 0.0 && past_half_turn)
            return false; /* swept past a full turn */
    }
    return true;
}

/* Reflex corners bucketed in a grid of about square cells over the polygon's
 * bounding box, about two corners per cell. Corners that stop being reflex (or
 * are cut) stay in their cell and are skipped by their flags. */
typedef struct grid {
    uint32_t g[2];           /* cells along x and y */
    double min[2], scale[2]; /* cell of x: (x - min) * scale */
    const uint32_t *start, *items;
} grid;

typedef struct clipper {
    const double *xy;
    uint32_t *prev, *next, *reflex;
    uint8_t *state;
    uint32_t reflex_count;
    uint64_t work;
    grid grid;
} clipper;

static double turn(const clipper *c, uint32_t i)
{
    return orient(c->xy + 2 * c->prev[i], c->xy + 2 * i, c->xy + 2 * c->next[i]);
}

static uint32_t cell_of(const grid *g, double x, int axis)
{
    double f = (x - g->min[axis]) * g->scale[axis];
    if (!(f > 0.0)) /* also NaN */
        return 0;
    return f >= (double)(g->g[axis] - 1) ? g->g[axis] - 1 : (uint32_t)f;
}

static uint32_t cell_index(const grid *g, const double *p)
{
    return cell_of(g, p[1], 1) * g->g[0] + cell_of(g, p[0], 0);
}

/* Chooses the cell counts: square cells, reflex/2 of them, at most n in all. */
static void size_grid(grid *g, const double lo[2], const double hi[2], uint32_t reflex, uint32_t n)
{
    double w = hi[0] - lo[0], h = hi[1] - lo[1], cells = reflex / 2.0;
    g->g[0] = g->g[1] = 1;
    if (cells >= 2.0 && w > 0.0 && h > 0.0 && isfinite(w * h)) {
        double side = sqrt(w * h / cells);
        double gx = mq_fmin(mq_fmax(ceil(w / side), 1.0), n), gy = mq_fmin(mq_fmax(ceil(h / side), 1.0), n);
        while (gx * gy > n)
            gx > gy ? (gx = ceil(gx / 2)) : (gy = ceil(gy / 2));
        g->g[0] = (uint32_t)gx;
        g->g[1] = (uint32_t)gy;
    }
    for (int k = 0; k < 2; k++) {
        g->min[k] = lo[k];
        g->scale[k] = hi[k] > lo[k] && isfinite(hi[k] - lo[k]) ? g->g[k] / (hi[k] - lo[k]) : 0.0;
    }
}

/* Buckets the reflex corners (a counting sort by cell). */
static void build_grid(clipper *c, uint32_t n, uint32_t *start, uint32_t *items)
{
    grid *g = &c->grid;
    double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
    for (uint32_t i = 0; i < n; i++)
        for (int k = 0; k < 2; k++) {
            lo[k] = mq_fmin(lo[k], c->xy[2 * i + k]);
            hi[k] = mq_fmax(hi[k], c->xy[2 * i + k]);
        }
    size_grid(g, lo, hi, c->reflex_count, n);
    uint32_t cells = g->g[0] * g->g[1];
    memset(start, 0, (cells + 1) * sizeof *start);
    for (uint32_t k = 0; k < c->reflex_count; k++)
        start[cell_index(g, c->xy + 2 * c->reflex[k]) + 1]++;
    for (uint32_t k = 0; k < cells; k++)
        start[k + 1] += start[k];
    for (uint32_t k = 0; k < c->reflex_count; k++) /* start[cell] runs ahead while filling ... */
        items[start[cell_index(g, c->xy + 2 * c->reflex[k])]++] = c->reflex[k];
    for (uint32_t k = cells; k > 0; k--) /* ... and is shifted back after */
        start[k] = start[k - 1];
    start[0] = 0;
    g->start = start;
    g->items = items;
}

static bool same_point(const double *a, const double *b)
{
    return a[0] == b[0] && a[1] == b[1];
}

/* Does a reflex corner other than the ear's own lie inside or on (a, b, d)?
 * (Corners at the same place as the ear's own are not in the way.) */
static bool blocked(clipper *c, uint32_t ia, uint32_t ib, uint32_t id)
{
    const double *a = c->xy + 2 * ia, *b = c->xy + 2 * ib, *d = c->xy + 2 * id;
    const grid *g = &c->grid;
    uint32_t x0 = cell_of(g, mq_fmin(a[0], mq_fmin(b[0], d[0])), 0),
             x1 = cell_of(g, mq_fmax(a[0], mq_fmax(b[0], d[0])), 0);
    uint32_t y0 = cell_of(g, mq_fmin(a[1], mq_fmin(b[1], d[1])), 1),
             y1 = cell_of(g, mq_fmax(a[1], mq_fmax(b[1], d[1])), 1);
    for (uint32_t y = y0; y <= y1; y++) {
        uint32_t row = y * g->g[0];
        for (uint32_t k = g->start[row + x0]; k < g->start[row + x1 + 1]; k++) {
            uint32_t j = g->items[k];
            c->work++;
            if (j == ia || j == ib || j == id || (c->state[j] & (REMOVED | REFLEX)) != REFLEX)
                continue;
            const double *p = c->xy + 2 * j;
            if (same_point(p, a) || same_point(p, b) || same_point(p, d))
                continue;
            if (orient(a, b, p) >= 0.0 && orient(b, d, p) >= 0.0 && orient(d, a, p) >= 0.0)
                return true;
        }
    }
    return false;
}

/* A corner on the segment between its neighbours (not a spike folding back). */
static bool straight(const clipper *c, uint32_t i)
{
    const double *a = c->xy + 2 * c->prev[i], *p = c->xy + 2 * i, *d = c->xy + 2 * c->next[i];
    return (p[0] - a[0]) * (d[0] - p[0]) + (p[1] - a[1]) * (d[1] - p[1]) > 0.0;
}

/*
 * Is corner i an ear: convex and not blocked by a reflex corner? A straight
 * corner is cut at once as a flat triangle: the rest of the polygon is the
 * same region without it, and rows of collinear corners (left behind when the
 * teeth of a comb are cut) would otherwise make every later ear long and slow.
 */
static bool is_ear(clipper *c, uint32_t i)
{
    double t = turn(c, i);
    if (t == 0.0)
        return straight(c, i);
    if (!(t > 0.0))
        return false;
    return c->work > WORK_BUDGET || !blocked(c, c->prev[i], i, c->next[i]);
}

static void update_reflex(clipper *c, uint32_t i)
{
    if (turn(c, i) > 0.0)
        c->state[i] &= (uint8_t)~REFLEX; /* a corner only ever turns convex as ears go */
}

/* Cuts corner i off: emits (prev, i, next). */
static void cut(clipper *c, uint32_t i, uint32_t **out)
{
    uint32_t a = c->prev[i], b = c->next[i];
    (*out)[0] = a;
    (*out)[1] = i;
    (*out)[2] = b;
    *out += 3;
    c->next[a] = b;
    c->prev[b] = a;
    c->state[i] |= REMOVED;
    update_reflex(c, a);
    update_reflex(c, b);
}

static void clip(clipper *c, uint32_t n, uint32_t *out)
{
    uint32_t i = 0, remaining = n, tried = 0, best = 0;
    double best_turn = -INFINITY;
    while (remaining > 3) {
        if (is_ear(c, i)) {
            uint32_t after = c->next[c->next[i]];
            cut(c, i, &out);
            remaining--;
            /* go on past the next corner (as earcut does): going back to the
             * previous one re-tests the same long triangle after every cut */
            i = after;
            tried = 0;
            best_turn = -INFINITY;
            continue;
        }
        double t = turn(c, i);
        if (t > best_turn || tried == 0) {
            best_turn = t;
            best = i;
        }
        i = c->next[i];
        if (++tried >= remaining) { /* no ear anywhere: not a simple polygon */
            i = c->prev[best];
            cut(c, best, &out);
            remaining--;
            tried = 0;
            best_turn = -INFINITY;
        }
    }
    out[0] = c->prev[i];
    out[1] = i;
    out[2] = c->next[i];
}

mq_tri_result mq_triangulate(const float *positions, const uint32_t *corners, uint32_t n, mq_tri_scratch *s,
                             uint32_t *out)
{
    if (!reserve(s, n))
        return MQ_TRI_NO_MEMORY;
    if (!project(positions, corners, n, s->xy) || fan_is_valid(s->xy, n))
        return MQ_TRI_FAN;
    clipper c = {.xy = s->xy, .prev = s->prev, .next = s->next, .reflex = s->reflex_list, .state = s->state};
    for (uint32_t i = 0; i < n; i++) {
        c.prev[i] = i ? i - 1 : n - 1;
        c.next[i] = i + 1 < n ? i + 1 : 0;
    }
    for (uint32_t i = 0; i < n; i++) {
        c.state[i] = turn(&c, i) > 0.0 ? 0 : REFLEX;
        if (c.state[i])
            c.reflex[c.reflex_count++] = i;
    }
    build_grid(&c, n, s->cell_start, s->cell_items);
    clip(&c, n, out);
    return MQ_TRI_CLIPPED;
}
