/*
 * Contacts of a shape with a mesh (contacts.h): the hierarchy's own overlap
 * walk picks the triangles, mq_contact_shape_triangle measures each.
 */
#include <math.h>

#include <meshquery/contacts.h>

typedef struct contact_ctx {
    const mq_mesh *mesh;
    const mq_shape *shape;
    mq_contact_fn fn;
    void *user;
    size_t calls;
    /* the array form */
    mq_contact *out;
    size_t capacity;
} contact_ctx;

static bool on_triangle(uint32_t id, void *user)
{
    contact_ctx *c = user;
    mq_triangle t;
    mq_mesh_get_triangle(c->mesh, id, &t);
    mq_contact k;
    k.depth = NAN;
    if (!mq_contact_shape_triangle(c->shape, &t, &k) && !(k.depth < 0.0)) {
        /* valid inputs always fill k; this is unreachable for a triangle the walk found */
        return true;
    }
    if (k.depth < 0.0)
        k.depth = 0.0; /* touching by the exact float test, apart by a rounding in double */
    k.triangle = id;
    c->calls++;
    return c->fn(&k, c->user);
}

/* The kinds with a contact (primitives.h mq_contact); others (convex hulls) have none yet. */
static bool known_kind(const mq_shape *s)
{
    return s->kind == MQ_SHAPE_SPHERE || s->kind == MQ_SHAPE_CAPSULE || s->kind == MQ_SHAPE_OBB ||
           s->kind == MQ_SHAPE_AABB;
}

static bool to_array(const mq_contact *k, void *user)
{
    contact_ctx *c = user;
    if (c->calls <= c->capacity)
        c->out[c->calls - 1] = *k;
    return true;
}

size_t mq_bvh_contacts(const mq_bvh *bvh, const mq_shape *shape, mq_contact_fn fn, void *user)
{
    if (!bvh || !shape || !fn || !known_kind(shape))
        return 0;
    contact_ctx c = {mq_bvh_mesh(bvh), shape, fn, user, 0, NULL, 0};
    mq_bvh_overlap(bvh, shape, on_triangle, &c);
    return c.calls;
}

size_t mq_obbtree_contacts(const mq_obbtree *tree, const mq_shape *shape, mq_contact_fn fn, void *user)
{
    if (!tree || !shape || !fn || !known_kind(shape))
        return 0;
    contact_ctx c = {mq_obbtree_mesh(tree), shape, fn, user, 0, NULL, 0};
    mq_obbtree_overlap(tree, shape, on_triangle, &c);
    return c.calls;
}

size_t mq_bvh_contacts_array(const mq_bvh *bvh, const mq_shape *shape, mq_contact *out, size_t capacity)
{
    if (!bvh || !shape || !known_kind(shape))
        return 0;
    contact_ctx c = {mq_bvh_mesh(bvh), shape, to_array, NULL, 0, out, out ? capacity : 0};
    c.user = &c;
    mq_bvh_overlap(bvh, shape, on_triangle, &c);
    return c.calls;
}

size_t mq_obbtree_contacts_array(const mq_obbtree *tree, const mq_shape *shape, mq_contact *out, size_t capacity)
{
    if (!tree || !shape || !known_kind(shape))
        return 0;
    contact_ctx c = {mq_obbtree_mesh(tree), shape, to_array, NULL, 0, out, out ? capacity : 0};
    c.user = &c;
    mq_obbtree_overlap(tree, shape, on_triangle, &c);
    return c.calls;
}
