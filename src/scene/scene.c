/*
 * The scene container (meshquery/scene.h): staged edits, and the committed
 * state queries read. Edits only touch `staged`; commit builds the new
 * committed state completely before swapping it in, so a failed allocation
 * leaves the previous committed state (and the staged edits) as they were.
 *
 * A commit does not copy the records: the staged array becomes the
 * committed one as it is, and the staging goes on in a spare array (the
 * previous committed one, or a new one nothing has touched yet), marked
 * stale: the first edit after the commit copies the committed records into
 * it. A scene built once and then only queried never copies its records,
 * nor touches the spare's pages.
 */
#include <math.h>
#include <string.h>

#include "core/alloc.h"
#include "core/diag.h"
#include "scene/scene_internal.h"

/* Ids are < 2^24 (scene.h: MQ_ERR_LIMIT beyond). */
#define MQ_SCENE_MAX_INSTANCES (1u << 24)

_Static_assert(sizeof(mq_staged_slot) == sizeof(mq_instance_rec) &&
                   _Alignof(mq_staged_slot) == _Alignof(mq_instance_rec),
               "a staged array is handed to the queries as it is");

mq_instance_def mq_default_instance_def(void)
{
    mq_instance_def d;
    memset(&d, 0, sizeof d);
    d.transform = mq_xform_identity();
    d.mask = 0xFFFFFFFFu;
    return d;
}

mq_scene_query mq_default_scene_query(void)
{
    return (mq_scene_query){0xFFFFFFFFu, false};
}

mq_status mq_scene_create(const mq_allocator *alloc, mq_scene **out, mq_diag *diag)
{
    mq_diag_clear(diag);
    if (!out)
        return mq_diag_set(diag, MQ_ERR_INVALID_ARG, NULL, 0, 0, "mq_scene_create: NULL out");
    *out = NULL;
    mq_scene *s = mq_alloc_zero(alloc, sizeof *s, MQ_CACHE_LINE);
    if (!s)
        return mq_diag_set(diag, MQ_ERR_OUT_OF_MEMORY, NULL, 0, 0, "out of memory creating a scene");
    if (alloc) {
        s->alloc = *alloc;
        s->has_alloc = true;
    }
    *out = s;
    return MQ_OK;
}

void mq_scene_destroy(mq_scene *s)
{
    if (!s)
        return;
    mq_allocator a = s->alloc;
    const mq_allocator *ap = s->has_alloc ? &a : NULL;
    mq_free(ap, s->staged, s->staged_cap * sizeof *s->staged);
    mq_free(ap, s->recs, s->rec_cap * sizeof *s->recs);
    mq_free(ap, s->nodes, s->node_cap * sizeof *s->nodes);
    mq_free(ap, s, sizeof *s);
}

/* Makes the staged array hold the staged records (after a commit, they
 * are the committed ones). Allocates nothing: every edit calls it first. */
static void staged_fresh(mq_scene *s)
{
    if (!s->staged_stale)
        return;
    if (s->staged_slots > 0)
        memcpy(s->staged, s->recs, s->staged_slots * sizeof *s->staged);
    s->staged_stale = false;
}

/* The staged slot of a live id, or NULL. */
static mq_staged_slot *staged_live(mq_scene *s, uint32_t id)
{
    if (!s)
        return NULL;
    staged_fresh(s);
    return id < s->staged_slots && mq_instance_rec_live(&s->staged[id].rec) ? &s->staged[id] : NULL;
}

/* Makes room for slot `id`; false (nothing changed) when the allocation fails. */
static bool reserve_slot(mq_scene *s, uint32_t id)
{
    if (id < s->staged_cap)
        return true;
    size_t cap = s->staged_cap ? s->staged_cap * 2 : 16;
    if (cap > MQ_SCENE_MAX_INSTANCES)
        cap = MQ_SCENE_MAX_INSTANCES;
    void *p = mq_realloc(mq_scene_allocator(s), s->staged, s->staged_cap * sizeof *s->staged, cap * sizeof *s->staged,
                         MQ_CACHE_LINE);
    if (!p)
        return false;
    s->staged = p;
    s->staged_cap = cap;
    return true;
}

mq_status mq_scene_add(mq_scene *s, const mq_instance_def *def, uint32_t *id, mq_diag *diag)
{
    mq_diag_clear(diag);
    if (!s || !def || !id)
        return mq_diag_set(diag, MQ_ERR_INVALID_ARG, NULL, 0, 0, "mq_scene_add: NULL argument");
    if (s->staged_live >= MQ_SCENE_MAX_INSTANCES)
        return mq_diag_set(diag, MQ_ERR_LIMIT, NULL, 0, 0, "more than 2^24 instances");
    staged_fresh(s);
    /* The smallest free id: none below first_free. */
    uint32_t k = s->first_free;
    while (k < s->staged_slots && mq_instance_rec_live(&s->staged[k].rec))
        k++;
    mq_instance_rec rec;
    if (!mq_instance_rec_init(&rec, def, k))
        return mq_diag_set(diag, MQ_ERR_INVALID_ARG, NULL, 0, 0,
                           "mq_scene_add: not exactly one hierarchy, or a non-finite or singular transform");
    if (!reserve_slot(s, k))
        return mq_diag_set(diag, MQ_ERR_OUT_OF_MEMORY, NULL, 0, 0, "out of memory adding an instance");
    s->staged[k].rec = rec;
    if (k >= s->staged_slots)
        s->staged_slots = k + 1;
    s->staged_live++;
    s->first_free = k + 1;
    s->need_rebuild = true;
    *id = k;
    return MQ_OK;
}

mq_status mq_scene_remove(mq_scene *s, uint32_t id)
{
    mq_staged_slot *slot = staged_live(s, id);
    if (!slot)
        return MQ_ERR_INVALID_ARG;
    memset(&slot->rec, 0, sizeof slot->rec); /* a free id: no hierarchy */
    slot->rec.id = id;
    s->staged_live--;
    if (id < s->first_free)
        s->first_free = id;
    while (s->staged_slots > 0 && !mq_instance_rec_live(&s->staged[s->staged_slots - 1].rec))
        s->staged_slots--; /* trailing free ids need no committed slot */
    s->need_rebuild = true;
    return MQ_OK;
}

mq_status mq_scene_set_transform(mq_scene *s, uint32_t id, const mq_xform *transform, mq_diag *diag)
{
    mq_diag_clear(diag);
    mq_staged_slot *slot = staged_live(s, id);
    if (!slot || !transform)
        return mq_diag_set(diag, MQ_ERR_INVALID_ARG, NULL, 0, 0, "mq_scene_set_transform: unknown id %u", id);
    const mq_instance_rec *old = &slot->rec;
    mq_instance_def def = {old->bvh, old->obbtree, *transform, old->user_id, old->mask};
    mq_instance_rec rec;
    if (!mq_instance_rec_init(&rec, &def, id))
        return mq_diag_set(diag, MQ_ERR_INVALID_ARG, NULL, 0, 0, "mq_scene_set_transform: rejected transform");
    slot->rec = rec;
    s->need_refit = true;
    return MQ_OK;
}

mq_status mq_scene_set_mask(mq_scene *s, uint32_t id, uint32_t mask)
{
    mq_staged_slot *slot = staged_live(s, id);
    if (!slot)
        return MQ_ERR_INVALID_ARG;
    slot->rec.mask = mask;
    s->need_refit = true;
    return MQ_OK;
}

/* The staged array becomes the committed one; `spare` (cap slots, its
 * contents unused) the staged one, stale until the next edit. */
static void hand_over(mq_scene *s, mq_instance_rec *spare, size_t cap)
{
    s->recs = (mq_instance_rec *)(void *)s->staged;
    s->rec_slots = s->staged_slots;
    s->rec_cap = s->staged_cap;
    s->staged = (mq_staged_slot *)(void *)spare;
    s->staged_cap = cap;
    s->staged_stale = true;
}

/* Transforms or masks changed only: same ids, same tree topology, no
 * allocation (the previous committed array is the spare: it has room for
 * every id, which have not changed since). */
static void commit_refit(mq_scene *s)
{
    hand_over(s, s->recs, s->rec_cap);
    mq_tlas_refit(s->recs, s->nodes, s->node_count);
}

/* Instances added or removed: a new tree over the staged records, then the swap. */
static mq_status commit_rebuild(mq_scene *s, mq_diag *diag)
{
    const mq_allocator *a = mq_scene_allocator(s);
    uint32_t n = s->staged_slots;
    /* The spare: the previous committed array when it has room for every id. */
    bool reuse = s->recs && s->rec_cap >= s->staged_cap;
    size_t spare_cap = reuse ? s->rec_cap : s->staged_cap;
    mq_instance_rec *spare =
        reuse ? s->recs : (spare_cap ? mq_alloc(a, spare_cap * sizeof *spare, MQ_CACHE_LINE) : NULL);
    size_t node_cap = n, scratch_bytes = n ? mq_tlas_scratch_bytes(n) : 0;
    mq_tlas_block *nodes = n ? mq_alloc(a, node_cap * sizeof *nodes, MQ_CACHE_LINE) : NULL;
    void *scratch = n ? mq_alloc(a, scratch_bytes, MQ_CACHE_LINE) : NULL;
    if ((spare_cap && !spare) || (n && (!nodes || !scratch))) {
        if (!reuse)
            mq_free(a, spare, spare_cap * sizeof *spare);
        mq_free(a, nodes, node_cap * sizeof *nodes);
        mq_free(a, scratch, scratch_bytes);
        return mq_diag_set(diag, MQ_ERR_OUT_OF_MEMORY, NULL, 0, 0, "out of memory committing a scene");
    }
    const mq_instance_rec *recs = (const mq_instance_rec *)(const void *)s->staged;
    uint32_t root = 0, walk_stack = 0;
    uint32_t count = n ? mq_tlas_build(recs, n, nodes, scratch, &root, &walk_stack) : 0;
    mq_free(a, scratch, scratch_bytes);
    /* A wide tree has far fewer blocks than instances: keep an exact copy. */
    if (count > 0 && count < node_cap) {
        mq_tlas_block *fit = mq_alloc(a, count * sizeof *fit, MQ_CACHE_LINE);
        if (!fit) {
            if (!reuse)
                mq_free(a, spare, spare_cap * sizeof *spare);
            mq_free(a, nodes, node_cap * sizeof *nodes);
            return mq_diag_set(diag, MQ_ERR_OUT_OF_MEMORY, NULL, 0, 0, "out of memory committing a scene");
        }
        memcpy(fit, nodes, count * sizeof *fit);
        mq_free(a, nodes, node_cap * sizeof *nodes);
        nodes = fit;
        node_cap = count;
    }

    if (!reuse)
        mq_free(a, s->recs, s->rec_cap * sizeof *s->recs);
    mq_free(a, s->nodes, s->node_cap * sizeof *s->nodes);
    hand_over(s, spare, spare_cap);
    s->nodes = nodes;
    s->node_count = count;
    s->node_cap = node_cap;
    s->root = root;
    s->walk_stack = walk_stack;
    s->live = s->staged_live;
    return MQ_OK;
}

mq_status mq_scene_commit(mq_scene *s, mq_diag *diag)
{
    mq_diag_clear(diag);
    if (!s)
        return mq_diag_set(diag, MQ_ERR_INVALID_ARG, NULL, 0, 0, "mq_scene_commit: NULL scene");
    if (s->need_rebuild) {
        mq_status st = commit_rebuild(s, diag);
        if (st != MQ_OK)
            return st;
    } else if (s->need_refit) {
        commit_refit(s);
    }
    s->need_rebuild = s->need_refit = false;
    return MQ_OK;
}

size_t mq_scene_instance_count(const mq_scene *s)
{
    return s ? s->live : 0;
}

bool mq_scene_bounds(const mq_scene *s, mq_daabb *out)
{
    if (!s || s->live == 0)
        return false;
    mq_daabb b = {{INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}};
    for (uint32_t i = 0; i < s->rec_slots; i++) {
        const mq_instance_rec *r = &s->recs[i];
        if (!mq_instance_rec_live(r))
            continue;
        for (int k = 0; k < 3; k++) {
            b.min[k] = r->world_box.min[k] < b.min[k] ? r->world_box.min[k] : b.min[k];
            b.max[k] = r->world_box.max[k] > b.max[k] ? r->world_box.max[k] : b.max[k];
        }
    }
    if (out)
        *out = b;
    return true;
}

const mq_instance_rec *mq_scene_record(const mq_scene *s, uint32_t id)
{
    if (!s || id >= s->rec_slots || !mq_instance_rec_live(&s->recs[id]))
        return NULL;
    return &s->recs[id];
}

bool mq_scene_instance(const mq_scene *s, uint32_t id, mq_instance_def *out)
{
    const mq_instance_rec *r = mq_scene_record(s, id);
    if (!r)
        return false;
    if (out)
        *out = (mq_instance_def){r->bvh, r->obbtree, r->to_world, r->user_id, r->mask};
    return true;
}

size_t mq_scene_byte_count(const mq_scene *s)
{
    if (!s)
        return 0;
    return sizeof *s + s->staged_cap * sizeof *s->staged + s->rec_cap * sizeof *s->recs +
           s->node_cap * sizeof *s->nodes;
}
