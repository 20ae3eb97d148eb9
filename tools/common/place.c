#include "place.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

mqt_place mqt_place_identity(void)
{
    return (mqt_place){{0, 0, 0}, {1, 0, 0, 0}, {1, 1, 1}};
}

int mqt_parse_numbers(const char *text, double *v, int max)
{
    int n = 0;
    const char *p = text;
    for (;;) {
        char *end;
        errno = 0;
        double d = strtod(p, &end);
        if (end == p || errno == ERANGE || !isfinite(d) || n == max)
            return -1;
        v[n++] = d;
        if (*end == '\0')
            return n;
        if (*end != ',')
            return -1;
        p = end + 1;
    }
}

bool mqt_parse_place(const char *text, mqt_place *out)
{
    double v[10];
    int n = mqt_parse_numbers(text, v, 10);
    if (n != 3 && n != 7 && n != 8 && n != 10)
        return false;
    mqt_place p = mqt_place_identity();
    memcpy(p.translation, v, sizeof p.translation);
    if (n >= 7)
        memcpy(p.rotation, v + 3, sizeof p.rotation);
    if (n == 8)
        p.scale[0] = p.scale[1] = p.scale[2] = v[7];
    if (n == 10)
        memcpy(p.scale, v + 7, sizeof p.scale);
    if (p.rotation[0] == 0 && p.rotation[1] == 0 && p.rotation[2] == 0 && p.rotation[3] == 0)
        return false;
    for (int k = 0; k < 3; k++)
        if (p.scale[k] == 0)
            return false;
    *out = p;
    return true;
}

void mqt_place_point(const mqt_place *p, const float in[3], float out[3])
{
    const double *q = p->rotation;
    double len = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    double w = q[0] / len, x = q[1] / len, y = q[2] / len, z = q[3] / len;
    double v[3] = {p->scale[0] * in[0], p->scale[1] * in[1], p->scale[2] * in[2]};
    /* v + 2 u x (u x v + w v), u = (x, y, z): the rotation by the unit quaternion */
    double c[3] = {y * v[2] - z * v[1] + w * v[0], z * v[0] - x * v[2] + w * v[1], x * v[1] - y * v[0] + w * v[2]};
    double r[3] = {v[0] + 2 * (y * c[2] - z * c[1]), v[1] + 2 * (z * c[0] - x * c[2]),
                   v[2] + 2 * (x * c[1] - y * c[0])};
    for (int k = 0; k < 3; k++)
        out[k] = (float)(r[k] + p->translation[k]);
}

mq_status mqt_place_mesh(const mq_mesh *mesh, const mqt_place *p, mq_mesh **out, mq_diag *diag)
{
    size_t nv = mq_mesh_vertex_count(mesh);
    const float *pos = mq_mesh_positions(mesh);
    float *moved = malloc((nv ? nv : 1) * 3 * sizeof *moved);
    if (!moved) {
        if (diag) {
            memset(diag, 0, sizeof *diag);
            snprintf(diag->message, sizeof diag->message, "no memory for the placed positions of %zu vertices", nv);
        }
        return MQ_ERR_OUT_OF_MEMORY;
    }
    for (size_t i = 0; i < nv; i++)
        mqt_place_point(p, pos + 3 * i, moved + 3 * i);
    mq_status st = mq_mesh_create(moved, nv, mq_mesh_indices(mesh), mq_mesh_triangle_count(mesh), NULL, out, diag);
    free(moved);
    return st;
}
