/* Triangle bounding boxes for the builder. */
#include "bvh/prim_ref.h"

#include <stdatomic.h>

#include "core/pool.h"
#include "core/vec4f.h"

static bool corner_finite(const float *p)
{
    return isfinite(p[0]) && isfinite(p[1]) && isfinite(p[2]);
}

/* Box of one triangle; false when a corner is not finite. */
static bool triangle_box(const float *positions, const uint32_t *tri, mq_prim_ref *r)
{
    const float *a = positions + 3 * (size_t)tri[0];
    const float *b = positions + 3 * (size_t)tri[1];
    const float *c = positions + 3 * (size_t)tri[2];
    if (!corner_finite(a) || !corner_finite(b) || !corner_finite(c))
        return false;
    for (int k = 0; k < 3; k++) {
        float lo = a[k] < b[k] ? a[k] : b[k], hi = a[k] > b[k] ? a[k] : b[k];
        r->lo[k] = lo < c[k] ? lo : c[k];
        r->hi[k] = hi > c[k] ? hi : c[k];
    }
    return true;
}

static void grow(mq_f4 *lo, mq_f4 *hi, mq_f4 *clo, mq_f4 *chi, const mq_prim_ref *r)
{
    mq_f4 a = mq_f4_load(r->lo), b = mq_f4_load(r->hi), c = mq_f4_add(a, b);
    *lo = mq_f4_min(a, *lo);
    *hi = mq_f4_max(b, *hi);
    *clo = mq_f4_min(c, *clo);
    *chi = mq_f4_max(c, *chi);
}

/* Running boxes of one thread's refs, and how many of them are unusable. */
typedef struct ref_part {
    mq_f4 lo, hi, clo, chi;
    size_t invalid;
} ref_part;

typedef struct ref_work {
    const float *positions;
    const uint32_t *indices;
    size_t count;
    mq_prim_ref *refs;
    atomic_size_t next;
    ref_part part[MQ_POOL_MAX_THREADS];
} ref_work;

/* Triangles per share of the work: a few hundred microseconds. */
#define REF_CHUNK 16384u

static void ref_worker(void *arg, uint32_t index)
{
    ref_work *w = arg;
    ref_part *p = &w->part[index];
    p->lo = p->clo = mq_f4_splat(INFINITY);
    p->hi = p->chi = mq_f4_splat(-INFINITY);
    p->invalid = 0;
    for (;;) {
        size_t begin = atomic_fetch_add(&w->next, REF_CHUNK);
        if (begin >= w->count)
            break;
        size_t end = begin + REF_CHUNK < w->count ? begin + REF_CHUNK : w->count;
        for (size_t i = begin; i < end; i++) {
            mq_prim_ref *r = &w->refs[i];
            r->id = (uint32_t)i;
            r->pad = 0;
            if (triangle_box(w->positions, w->indices + 3 * i, r))
                grow(&p->lo, &p->hi, &p->clo, &p->chi, r);
            else {
                r->lo[0] = NAN; /* marks it for the second pass */
                p->invalid++;
            }
        }
    }
}

void mq_prim_refs_from_positions(const float *positions, const uint32_t *indices, size_t triangle_count,
                                 mq_prim_ref *refs, uint32_t threads, mq_bounds *box, mq_bounds *cbox)
{
    ref_work w = {.positions = positions, .indices = indices, .count = triangle_count, .refs = refs};
    atomic_init(&w.next, 0);
    size_t useful = triangle_count / REF_CHUNK + 1;
    uint32_t count = threads < useful ? threads : (uint32_t)useful;
    mq_run_parallel(count, ref_worker, &w);
    /* min and max are exact: the boxes do not depend on how the work was shared,
     * except for the sign of a zero (the first one seen is kept), which only the
     * parking point below could carry into the tree: + 0 makes it +0 */
    mq_f4 lo = w.part[0].lo, hi = w.part[0].hi, clo = w.part[0].clo, chi = w.part[0].chi;
    size_t invalid = w.part[0].invalid;
    for (uint32_t t = 1; t < count; t++) {
        lo = mq_f4_min(w.part[t].lo, lo);
        hi = mq_f4_max(w.part[t].hi, hi);
        clo = mq_f4_min(w.part[t].clo, clo);
        chi = mq_f4_max(w.part[t].chi, chi);
        invalid += w.part[t].invalid;
    }
    if (invalid) {
        /* Park unusable triangles at the centre of the usable ones (the origin if none). */
        float at[3];
        bool any = mq_f4_lane(lo, 0) <= mq_f4_lane(hi, 0);
        for (int k = 0; k < 3; k++)
            at[k] = any ? 0.5f * mq_f4_lane(lo, k) + 0.5f * mq_f4_lane(hi, k) + 0.0f : 0.0f;
        for (size_t i = 0; i < triangle_count; i++) {
            mq_prim_ref *r = &refs[i];
            if (r->lo[0] == r->lo[0])
                continue;
            for (int k = 0; k < 3; k++)
                r->lo[k] = r->hi[k] = at[k];
            grow(&lo, &hi, &clo, &chi, r);
        }
    }
    mq_f4_store(box->lo, lo);
    mq_f4_store(box->hi, hi);
    mq_f4_store(cbox->lo, clo);
    mq_f4_store(cbox->hi, chi);
}
