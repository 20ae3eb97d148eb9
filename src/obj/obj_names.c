/*
 * Names of an OBJ file: the g / o / usemtl events the parse pass recorded become
 * three name tables (each name once, in order of first appearance, entry 0 the
 * empty name) and per-face ids. Runs in file order on one thread: there are far
 * fewer name statements than faces.
 */
#include <string.h>

#include "core/alloc.h"
#include "core/diag.h"
#include "obj/obj_internal.h"
#include "obj/obj_text.h"
#include "mesh/mesh_internal.h"

/* A growing set of distinct names: a char arena of NUL-terminated names and an
 * open-addressing hash (FNV-1a) from name to id. */
typedef struct name_set {
    char *chars;
    size_t size, capacity;
    size_t *offsets;
    uint32_t count, offset_capacity;
    uint32_t *slots; /* id + 1, 0 = empty */
    size_t slot_count;
} name_set;

static void name_set_free(name_set *s, const mq_allocator *a)
{
    mq_free(a, s->chars, s->capacity);
    mq_free(a, s->offsets, (size_t)s->offset_capacity * sizeof *s->offsets);
    mq_free(a, s->slots, s->slot_count * sizeof *s->slots);
    memset(s, 0, sizeof *s);
}

static bool reserve_chars(name_set *s, const mq_allocator *a, size_t extra)
{
    size_t need;
    if (!mq_add_size(s->size, extra, &need))
        return false;
    if (need <= s->capacity)
        return true;
    size_t cap = s->capacity ? s->capacity : 256;
    while (cap < need)
        cap = cap > SIZE_MAX / 2 ? need : cap * 2;
    char *c = mq_realloc(a, s->chars, s->capacity, cap, 16);
    if (!c)
        return false;
    s->chars = c;
    s->capacity = cap;
    return true;
}

static uint64_t hash_name(const char *p, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)p[i]) * 1099511628211ull;
    return h;
}

/* Rebuilds the hash with twice the slots (kept at most half full). */
static bool rehash(name_set *s, const mq_allocator *a)
{
    size_t n = s->slot_count ? s->slot_count * 2 : 64;
    uint32_t *slots = mq_alloc_zero(a, n * sizeof *slots, 16);
    if (!slots)
        return false;
    for (uint32_t id = 0; id < s->count; id++) {
        const char *name = s->chars + s->offsets[id];
        size_t i = hash_name(name, strlen(name)) & (n - 1);
        while (slots[i])
            i = (i + 1) & (n - 1);
        slots[i] = id + 1;
    }
    mq_free(a, s->slots, s->slot_count * sizeof *s->slots);
    s->slots = slots;
    s->slot_count = n;
    return true;
}

/* Appends the normalised form of raw statement text to the arena (not yet
 * committed): trimmed, every run of blanks, line ends and continuations -> ' '. */
static bool append_normalised(name_set *s, const mq_allocator *a, const char *p, size_t n, size_t *len)
{
    if (!reserve_chars(s, a, n + 1))
        return false;
    char *dst = s->chars + s->size;
    size_t k = 0;
    bool gap = false;
    for (size_t i = 0; i < n; i++) {
        char c = p[i];
        bool space = (obj_class(c) & (OBJ_BLANK | OBJ_EOL)) || (c == '\\' && i + 1 < n && obj_is_eol(p[i + 1]));
        if (space) {
            gap = k > 0;
            continue;
        }
        if (gap)
            dst[k++] = ' ';
        gap = false;
        dst[k++] = c;
    }
    dst[k] = '\0';
    *len = k;
    return true;
}

/* The id of a name (raw text), adding it when new. false: out of memory or too many names. */
static bool intern(name_set *s, const mq_allocator *a, const char *raw, size_t n, uint32_t *id)
{
    size_t len;
    if (!append_normalised(s, a, raw, n, &len))
        return false;
    const char *name = s->chars + s->size;
    size_t mask = s->slot_count - 1, i = hash_name(name, len) & mask;
    for (; s->slots[i]; i = (i + 1) & mask) {
        const char *other = s->chars + s->offsets[s->slots[i] - 1];
        if (strcmp(other, name) == 0) {
            *id = s->slots[i] - 1;
            return true;
        }
    }
    if (s->count == UINT32_MAX - 1)
        return false;
    if (s->count == s->offset_capacity) {
        uint32_t cap = s->offset_capacity ? s->offset_capacity * 2 : 16;
        size_t *o = mq_realloc(a, s->offsets, (size_t)s->offset_capacity * sizeof *o, (size_t)cap * sizeof *o, 16);
        if (!o)
            return false;
        s->offsets = o;
        s->offset_capacity = cap;
    }
    s->slots[i] = s->count + 1;
    s->offsets[s->count] = s->size;
    *id = s->count++;
    s->size += len + 1;
    return 2 * (size_t)s->count <= s->slot_count || rehash(s, a);
}

/* Moves a set's names into an exactly sized mesh table. */
static bool to_table(name_set *s, const mq_allocator *a, mq_name_table *t)
{
    t->chars = mq_alloc(a, s->size, 16);
    t->offsets = mq_alloc(a, (size_t)s->count * sizeof *t->offsets, 16);
    if (!t->chars || !t->offsets) {
        mq_free(a, t->chars, s->size);
        mq_free(a, t->offsets, (size_t)s->count * sizeof *t->offsets);
        memset(t, 0, sizeof *t);
        return false;
    }
    memcpy(t->chars, s->chars, s->size);
    memcpy(t->offsets, s->offsets, (size_t)s->count * sizeof *t->offsets);
    t->chars_size = s->size;
    t->count = s->count;
    return true;
}

/* Walks the events of one kind, calling back for each run of faces [from, to)
 * with its id. `ids` holds the resolved id of every event (all kinds). */
typedef void (*range_fn)(void *ctx, uint64_t from, uint64_t to, uint32_t id);

static void for_each_range(const obj_load *load, const uint32_t *ids, uint8_t kind, range_fn fn, void *ctx)
{
    uint64_t start = 0, faces = load->out.total.faces;
    uint32_t cur = 0;
    size_t e = 0;
    for (size_t c = 0; c < load->chunk_count; c++) {
        const obj_chunk *ch = &load->chunks[c];
        for (size_t i = 0; i < ch->event_count; i++, e++) {
            if (ch->events[i].kind != kind)
                continue;
            if (ch->events[i].face > start)
                fn(ctx, start, ch->events[i].face, cur);
            start = ch->events[i].face;
            cur = ids[e];
        }
    }
    if (faces > start)
        fn(ctx, start, faces, cur);
}

typedef struct uniformity {
    bool any, uniform;
    uint32_t id;
} uniformity;

static void check_uniform(void *ctx, uint64_t from, uint64_t to, uint32_t id)
{
    (void)from;
    (void)to;
    uniformity *u = ctx;
    if (!u->any) {
        u->any = true;
        u->id = id;
    } else if (u->id != id) {
        u->uniform = false;
    }
}

static void fill_range(void *ctx, uint64_t from, uint64_t to, uint32_t id)
{
    uint32_t *dst = ctx;
    for (uint64_t f = from; f < to; f++)
        dst[f] = id;
}

/* Per-face ids of one kind: a constant when every face has the same. */
static bool face_ids(const obj_load *load, const uint32_t *ids, uint8_t kind, mq_mesh *mesh)
{
    uniformity u = {false, true, 0};
    for_each_range(load, ids, kind, check_uniform, &u);
    mq_face_ids *f = &mesh->face_names[kind];
    f->uniform = u.id;
    if (u.uniform)
        return true;
    f->ids = mq_alloc(load->alloc, mesh->face_count * sizeof *f->ids, 64);
    if (!f->ids)
        return false;
    for_each_range(load, ids, kind, fill_range, f->ids);
    return true;
}

/* Interns every event's name; ids[e] receives the id of event e (file order). */
static bool intern_all(const obj_load *load, name_set sets[3], uint32_t *ids)
{
    size_t e = 0;
    for (size_t c = 0; c < load->chunk_count; c++) {
        const obj_chunk *ch = &load->chunks[c];
        for (size_t i = 0; i < ch->event_count; i++, e++) {
            const obj_name_event *ev = &ch->events[i];
            if (!intern(&sets[ev->kind], load->alloc, ev->text, ev->length, &ids[e]))
                return false;
        }
    }
    return true;
}

mq_status mq_obj_resolve_names(obj_load *load, mq_mesh *mesh, mq_diag *diag)
{
    const mq_allocator *a = load->alloc;
    size_t events = 0;
    for (size_t c = 0; c < load->chunk_count; c++)
        events += load->chunks[c].event_count;
    if (events == 0)
        return MQ_OK; /* empty tables: every face carries the empty name */
    name_set sets[3] = {{0}};
    uint32_t *ids = mq_alloc(a, events * sizeof *ids, 16);
    bool ok = ids != NULL;
    for (int k = 0; k < 3 && ok; k++) {
        uint32_t zero;
        ok = rehash(&sets[k], a) && intern(&sets[k], a, "", 0, &zero);
    }
    ok = ok && intern_all(load, sets, ids);
    for (uint8_t k = 0; k < 3 && ok; k++)
        ok = to_table(&sets[k], a, &mesh->names[k]) && face_ids(load, ids, k, mesh);
    for (int k = 0; k < 3; k++)
        name_set_free(&sets[k], a);
    mq_free(a, ids, events * sizeof *ids);
    return ok ? MQ_OK : mq_diag_set(diag, MQ_ERR_OUT_OF_MEMORY, load->name, 0, 0, "out of memory for names");
}
