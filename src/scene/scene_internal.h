/*
 * The scene's storage, shared by the container and top-level hierarchy
 * (scene.c, tlas*.c), the raycasts (scene_raycast*.c) and the shape queries
 * (scene_overlap*.c, scene_closest.c, scene_collide.c, instance_*.c).
 *
 * Two layers:
 *   - the committed state (mq_instance_rec array + top-level hierarchy), read
 *     by queries, written only by mq_scene_commit;
 *   - the staged edits, written by add/remove/set_*, read by commit.
 */
#ifndef MQ_SCENE_SCENE_INTERNAL_H
#define MQ_SCENE_SCENE_INTERNAL_H

#include <meshquery/scene.h>

#include "core/mat3d.h"

/*
 * What a ray reads of each instance it visits (mq_inst_ray_init), packed into
 * the first two cache lines of the record. A walk visits a few instances per
 * ray, and over a large mesh's hierarchy their records fall out of the
 * caches: every line read there is a likely miss (measured: the record's
 * reads were the hottest instructions of the walk).
 */
typedef struct mq_inst_ray_data {
    double w2l[3][3];           /* to_local's linear part */
    double origin[3];           /* to_world's translation: the local origin in the world */
    float box_lo[3], box_hi[3]; /* the local root box, widened for the traced float ray
                                   (scene_raycast_map.c) and rounded outwards to float */
    const mq_bvh *bvh;          /* or NULL: an OBB tree instance */
} mq_inst_ray_data;

/* One committed instance, with everything a query needs precomputed in double. */
typedef struct mq_instance_rec {
    _Alignas(64) mq_inst_ray_data ray; /* duplicates of the fields below, for rays */
    const mq_bvh *bvh;                 /* exactly one of bvh / obbtree is set */
    const mq_obbtree *obbtree;
    const mq_mesh *mesh;          /* the hierarchy's mesh */
    mq_xform to_world;            /* local -> world */
    mq_xform to_local;            /* world -> local (inverse) */
    double normal_to_world[3][3]; /* sign(det A) * A^-T: maps a local geometric normal to the
                                     mapped triangle's winding normal (unnormalised) */
    double sigma_min;             /* lower bound on |A x| / |x| (world length per local length) */
    double sigma_max;             /* upper bound on |A x| / |x| */
    bool mirrored;                /* det A < 0 */
    bool rigid;                   /* A orthonormal with det +1 (within 1e-12): local-frame shape
                                     queries and mq_obbtree_collide apply directly */
    mq_daabb world_box;           /* world box of the mapped top boxes of the hierarchy (conservative) */
    mq_aabb local_box;            /* the hierarchy's root box in its mesh frame */
    uint64_t user_id;
    uint32_t mask;
    uint32_t id; /* the instance id */
} mq_instance_rec;

/*
 * Fills a record from a definition: inverse, normal matrix, singular value
 * bounds, rigidity, local and world boxes. @return false when the definition
 * is rejected (not exactly one hierarchy, a transform rejected as scene.h says).
 */
bool mq_instance_rec_init(mq_instance_rec *rec, const mq_instance_def *def, uint32_t id);

/* Sets rec->world_box from rec's hierarchy, to_world and local_box
 * (instance_bounds.c): conservative, and much tighter than the mapped root box. */
void mq_instance_world_box(mq_instance_rec *rec);

/*
 * Visits the committed instances whose world box overlaps `box` and whose
 * mask matches `mask`, in no particular order, until `visit` returns false.
 * @return false when a visit stopped the walk.
 */
bool mq_tlas_visit_box(const mq_scene *s, const mq_daabb *box, uint32_t mask,
                       bool (*visit)(const mq_instance_rec *inst, void *user), void *user);

/*
 * Visits the committed instances with a matching mask in increasing distance
 * of their world box from `p`, while that squared distance is <= *bound2
 * (re-read after every visit, so the visitor may shrink it). Instances at
 * equal box distance come in increasing id.
 */
void mq_tlas_visit_nearest(const mq_scene *s, const double p[3], uint32_t mask, const double *bound2,
                           void (*visit)(const mq_instance_rec *inst, void *user), void *user);

/* The committed record of instance `id`, or NULL. */
const mq_instance_rec *mq_scene_record(const mq_scene *s, uint32_t id);

/* ---- the scene object (scene.c, scene_record.c, tlas*.c, scene_raycast*.c) --- */

/*
 * The top-level hierarchy: a tree of up to MQ_TLAS_WIDTH slots per node, in
 * FLOAT over the committed instances' world boxes, for SIMD slab tests. A
 * child's box is the union of the world boxes below it rounded OUTWARDS to
 * float (a coordinate beyond +-MQ_TLAS_FLOAT_RANGE becomes the infinite slab),
 * so it is only ever a conservative filter: every walk decides at the leaves
 * with the instance's double world box (mq_instance_rec.world_box).
 *
 * A node is 1 to MQ_TLAS_MAX_BLOCKS consecutive blocks of MQ_TLAS_BLOCK slots,
 * its slots packed from the first: a block is one 8-lane AVX2 slab test (two
 * SSE2 ones), and a walk tests only the node's blocks (their count is in the
 * reference). Wide nodes because a ray's cost in this tree is in its node
 * steps (the data-dependent branches of pushing the hit children and popping
 * the next), not in the box tests: wider nodes halve the steps per ray for a
 * few more instructions (32 slots measured best: docs/performance.md). The
 * reference's two low bits hold the block count, so MQ_TLAS_MAX_BLOCKS is at most 4; masks of a
 * node's slots fit an unsigned.
 *
 * Blocks are stored in preorder (a node's blocks before its children's), so a
 * refit is one backward sweep. Unused slots have lo = +inf, hi = -inf, mask 0
 * and child MQ_TLAS_EMPTY; a used slot whose mask is 0 has the same empty box
 * (it matches no query), so a query with every mask bit set need not read the
 * masks.
 */
#define MQ_TLAS_BLOCK 8
#define MQ_TLAS_MAX_BLOCKS 4
#define MQ_TLAS_WIDTH (MQ_TLAS_BLOCK * MQ_TLAS_MAX_BLOCKS)
_Static_assert(MQ_TLAS_MAX_BLOCKS <= 4 && MQ_TLAS_WIDTH <= 32, "a node reference and a slot mask hold a node");
typedef struct mq_tlas_block {
    float lo[3][MQ_TLAS_BLOCK], hi[3][MQ_TLAS_BLOCK]; /* [axis][slot]: child boxes */
    uint32_t child[MQ_TLAS_BLOCK]; /* a node's reference (below), or MQ_TLAS_LEAF_BIT | instance id */
    uint32_t mask[MQ_TLAS_BLOCK];  /* OR of the masks below each child (0: empty slot) */
} mq_tlas_block;

/* A node's reference: its first block << 2 | (its block count - 1); blocks
 * are fewer than instances (MQ_SCENE_MAX_INSTANCES, 2^24), so the leaf bit
 * stays clear. */
#define MQ_TLAS_LEAF_BIT 0x80000000u
#define MQ_TLAS_EMPTY UINT32_MAX
static inline uint32_t mq_tlas_node_ref(uint32_t first_block, uint32_t blocks)
{
    return first_block << 2 | (blocks - 1u);
}
static inline uint32_t mq_tlas_ref_first(uint32_t ref)
{
    return ref >> 2;
}
static inline uint32_t mq_tlas_ref_blocks(uint32_t ref)
{
    return (ref & 3u) + 1u;
}
/* The child in slot i of a node whose blocks start at n. */
static inline uint32_t mq_tlas_slot_child(const mq_tlas_block *n, int i)
{
    return n[i / MQ_TLAS_BLOCK].child[i % MQ_TLAS_BLOCK];
}

#define MQ_TLAS_FLOAT_RANGE 0x1p60
/* The build halves ranges below depth MQ_TLAS_SAH_DEPTH, so no leaf is deeper
 * than MQ_TLAS_SAH_DEPTH + 32 binary levels (nor wide ones); a walk keeps at
 * most MQ_TLAS_WIDTH - 1 entries per level: MQ_TLAS_STACK entries always do.
 * A committed tree's own need (mq_scene.walk_stack) is far smaller: the ray
 * stream, which keeps one stack per ray in flight, takes the trees whose need
 * fits its smaller stacks (MQ_SCENE_STREAM_STACK). */
#define MQ_TLAS_SAH_DEPTH 40
#define MQ_TLAS_STACK ((MQ_TLAS_SAH_DEPTH + 34) * (MQ_TLAS_WIDTH - 1) + MQ_TLAS_WIDTH)

/* Rounds a world box coordinate down (lo) or up (hi) to float, conservatively. */
float mq_tlas_round_lo(double x);
float mq_tlas_round_hi(double x);

/* A staged instance: its record (validated and precomputed when staged); a
 * free id's record has neither hierarchy set. The layout of mq_instance_rec,
 * so a commit hands the staged array to the queries as it is (scene.c). */
typedef struct mq_staged_slot {
    mq_instance_rec rec;
} mq_staged_slot;

struct mq_scene {
    mq_allocator alloc; /* copy of the user's hook */
    bool has_alloc;

    /* Staged state: written by add/remove/set_*, read by commit. */
    mq_staged_slot *staged; /* indexed by id */
    uint32_t staged_slots;  /* ids in use are < staged_slots */
    size_t staged_cap;      /* allocated slots */
    uint32_t staged_live;   /* live staged instances */
    uint32_t first_free;    /* no free id below this one */
    bool need_rebuild;      /* instances added or removed since the last commit */
    bool need_refit;        /* transforms or masks changed since the last commit */
    bool staged_stale;      /* `staged` holds no records yet: they are the committed ones
                               (recs), copied over by the next edit */

    /* Committed state: read by queries, written only by commit. */
    mq_instance_rec *recs; /* indexed by id; a free id has neither hierarchy set */
    uint32_t rec_slots;
    size_t rec_cap;
    uint32_t live;        /* committed instances */
    mq_tlas_block *nodes; /* the blocks of the top-level nodes; none when no instance has a non-empty box */
    uint32_t node_count;  /* blocks */
    size_t node_cap;
    uint32_t root;       /* the root node's reference (its first block is block 0) */
    uint32_t walk_stack; /* the most entries a walk of this tree can hold (mq_tlas_walk_need) */
};

static inline const mq_allocator *mq_scene_allocator(const mq_scene *s)
{
    return s->has_alloc ? &s->alloc : NULL;
}

/* True when the record holds an instance (a free id has no hierarchy). */
static inline bool mq_instance_rec_live(const mq_instance_rec *r)
{
    return r->bvh || r->obbtree;
}

/* out = the linear part of xf applied to the vector v (no translation), in double. */
void mq_xform_apply_vector(const mq_xform *xf, const double v[3], double out[3]);

/*
 * Builds the committed top-level hierarchy over recs[0..slots) (live records
 * with a non-empty world box) into `nodes` (capacity `slots` blocks, at least
 * 1), with `scratch` (mq_tlas_scratch_bytes(slots) bytes, 64-byte aligned) for
 * the instances' boxes and a binary build, which is then collapsed. Sets
 * *root to the root's reference and *walk_stack to the most entries a walk's
 * stack can hold (at most MQ_TLAS_STACK). @return the block count (<= slots).
 */
typedef struct mq_tlas_prim {
    double lo[3], hi[3]; /* the instance's world box */
    uint32_t id, mask;
} mq_tlas_prim;
size_t mq_tlas_scratch_bytes(uint32_t slots);
uint32_t mq_tlas_build(const mq_instance_rec *recs, uint32_t slots, mq_tlas_block *nodes, void *scratch, uint32_t *root,
                       uint32_t *walk_stack);

/* Recomputes every node's box and mask from the (changed) records; same topology. */
void mq_tlas_refit(const mq_instance_rec *recs, mq_tlas_block *blocks, uint32_t block_count);

/* A world ray prepared for slab tests in double. */
typedef struct mq_dray_prep {
    double org[3], dir[3], inv[3];
} mq_dray_prep;

/* True when the world ray is valid (finite origin and direction, non-zero direction, tmin <= tmax). */
bool mq_dray_is_valid(const mq_dray *ray);
void mq_dray_prepare(const mq_dray *ray, mq_dray_prep *out);

/*
 * Clips [*t0, *t1] to the part of the ray inside the box (closed), widened
 * outwards by a few ulps so rounding never loses an overlap.
 * @return false when the ray misses the box in that interval.
 */
bool mq_dray_clip_box(const mq_dray_prep *r, const double lo[3], const double hi[3], double *t0, double *t1);

/* ---- instance-level shape queries (instance_*.c) ------------------------ */

/*
 * Calls fn(inst->id, triangle, user) for every triangle of the instance whose
 * world image overlaps `shape`, until fn returns false. Adds the calls made
 * to *calls. @return false when fn stopped the query.
 */
bool mq_instance_overlap(const mq_instance_rec *inst, const mq_dshape *shape, mq_scene_overlap_fn fn, void *user,
                         size_t *calls);

/*
 * Improves *best (and *best_d2, its squared world distance) with the closest
 * point of the instance's world image to p whose squared distance is < *best_d2,
 * or equal with a smaller (instance, triangle). @return true when it improved.
 */
bool mq_instance_closest_point(const mq_instance_rec *inst, const double p[3], double *best_d2,
                               mq_scene_point_hit *best);

#endif
