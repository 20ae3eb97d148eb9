/* A convex hull as half-spaces in double, for oracles: each hull triangle's
 * unit normal n and offset d = max over the hull's vertices of n . v (so the
 * planes hold every vertex even where float rounding left a face slightly
 * non-planar), and a triangle clipped by them (Sutherland-Hodgman in double):
 * the two meet when something is left. Shares nothing with the library's
 * convex code but the public vertex and face arrays. */
#ifndef MQ_ORACLE_CONVEX_H
#define MQ_ORACLE_CONVEX_H

#include <stdbool.h>
#include <stddef.h>

#include <meshquery/convex.h>

typedef struct oracle_hspace {
    double (*n)[3];
    double *d;
    size_t count;
    double scale; /* largest |coordinate| of a (placed) vertex */
} oracle_hspace;

/* The half-spaces of `c` placed by x -> R x + t (R, t may be NULL: none).
 * Aborts the test on allocation failure; free with oracle_hspace_free. */
void oracle_hspace_make(const mq_convex *c, const double R[3][3], const double t[3], oracle_hspace *h);
void oracle_hspace_free(oracle_hspace *h);

/* True when the triangle `tri` (three corners, xyz each) moved by -`back` (NULL: not moved) meets the
 * solid with every plane moved out by `shift` (negative: in). */
bool oracle_hspace_meets(const oracle_hspace *h, const double tri[9], const double back[3], double shift);

#endif
