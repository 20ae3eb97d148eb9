/*
 * Cutting one polygon (a face with n > 3 corners) into n-2 triangles.
 *
 * The polygon is projected onto the coordinate plane most perpendicular to its
 * Newell normal, oriented so it runs counter-clockwise there. A convex polygon
 * keeps the fan (c0,c1,c2), (c0,c2,c3), ... that the parse pass already wrote
 * (the numbering docs/formats.md promises); any other is cut by ear clipping, each
 * ear (prev, i, next) keeping the polygon's winding. Ears are tested only
 * against reflex corners, found through a uniform grid when there are many
 * (so a 20000-corner comb takes milliseconds, not minutes). A polygon with no ear (self-intersecting, or all its
 * corners on a line) has its most convex corner cut anyway, so n-2 triangles
 * always come out; so do faces so large and so concave that the clipper would
 * exceed its work budget (the rest of such a face is cut without testing).
 * Predicates run in double on the float coordinates.
 */
#ifndef MQ_OBJ_TRIANGULATE_H
#define MQ_OBJ_TRIANGULATE_H

#include <meshquery/base.h>

/* Working memory, reused from polygon to polygon. */
typedef struct mq_tri_scratch {
    const mq_allocator *alloc;
    size_t capacity; /* corners the arrays hold */
    double *xy;      /* projected corners, 2 each */
    uint32_t *prev, *next, *reflex_list;
    uint32_t *cell_items; /* reflex corners sorted by grid cell */
    uint8_t *state;       /* per corner: reflex / removed flags */
    size_t cell_capacity;
    uint32_t *cell_start; /* grid cell c holds cell_items[cell_start[c] .. cell_start[c+1]) */
} mq_tri_scratch;

typedef enum mq_tri_result {
    MQ_TRI_FAN,     /* the fan is right (or the polygon has no plane, or inf/nan corners): keep it */
    MQ_TRI_CLIPPED, /* `out` holds the ear-clipped triangles */
    MQ_TRI_NO_MEMORY
} mq_tri_result;

/*
 * Triangulates the polygon whose corner k is at positions + 3*corners[k].
 * On MQ_TRI_CLIPPED, out[3*t + 0..2] are the corner numbers (0..n-1) of
 * triangle t, for t < n-2.
 */
mq_tri_result mq_triangulate(const float *positions, const uint32_t *corners, uint32_t n, mq_tri_scratch *scratch,
                             uint32_t *out);

/* Frees the scratch arrays. */
void mq_tri_scratch_free(mq_tri_scratch *scratch);

#endif
