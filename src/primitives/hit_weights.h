/* Where a decided ray-triangle hit lies: the barycentrics of the plane
 * crossing, in double (primitives/ray_triangle.c). Shared by the primitive and
 * the BVH's scalar hit record, which must give the same bits. */
#ifndef MQ_PRIMITIVES_HIT_WEIGHTS_H
#define MQ_PRIMITIVES_HIT_WEIGHTS_H

/* (u, v) as floats of the point td*d - q relative to v0 (q = v0 - origin),
 * e1 = v1 - v0, e2 = v2 - v0 and n = e1 x e2 exact differences and their
 * cross product in double (n non-zero); the nearest point of the triangle's
 * boundary when the point falls outside it. All inputs finite. */
void mq_hit_weights(double td, const float d[3], const double q[3], const double e1[3], const double e2[3],
                    const double n[3], float *u_out, float *v_out);

#endif
