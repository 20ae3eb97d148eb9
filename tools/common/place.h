/*
 * A mesh argument's placement, as the tools' --place TX,TY,TZ[,QW,QX,QY,QZ[,SX,SY,SZ | ,S]]
 * reads it: scale (negative = mirror), then rotate by the quaternion (w first,
 * normalised), then translate.
 */
#ifndef MQ_TOOLS_PLACE_H
#define MQ_TOOLS_PLACE_H

#include <stdbool.h>

#include <meshquery/mesh.h>

typedef struct mqt_place {
    double translation[3];
    double rotation[4]; /* w, x, y, z; any non-zero length */
    double scale[3];    /* non-zero */
} mqt_place;

/* The tools' usage errors for --place (printf formats of the bad text). */
#define MQT_PLACE_FORM_ERROR                                                                                           \
    "--place needs TX,TY,TZ[,QW,QX,QY,QZ[,SX,SY,SZ | ,S]] (a non-zero quaternion, non-zero scales), got '%s'"
#define MQT_PLACE_ORDER_ERROR "--place '%s' must follow the mesh it places (one --place per mesh)"

/* The identity placement. */
mqt_place mqt_place_identity(void);

/* Up to `max` comma-separated finite numbers; returns how many, or -1 when malformed. */
int mqt_parse_numbers(const char *text, double *v, int max);

/* Parses the --place text; false when malformed (a zero quaternion, a zero scale). */
bool mqt_parse_place(const char *text, mqt_place *out);

/* The placed position of point `in` (computed in double, rounded to float). */
void mqt_place_point(const mqt_place *p, const float in[3], float out[3]);

/* A new mesh of `mesh`'s triangles (same ids) at their placed positions (mqt_place_point per
 * vertex); *out is the caller's (mq_mesh_destroy). MQ_OK, or mq_mesh_create's error or
 * MQ_ERR_OUT_OF_MEMORY, with a message in diag (may be NULL). */
mq_status mqt_place_mesh(const mq_mesh *mesh, const mqt_place *p, mq_mesh **out, mq_diag *diag);

#endif
