/* Affine transforms local -> world in double (meshquery/scene.h, "Transforms"). */
#include <math.h>

#include "scene/scene_internal.h"

mq_xform mq_xform_identity(void)
{
    mq_xform x = {{{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}}};
    return x;
}

mq_xform mq_xform_from_trs(const mq_dvec3 translation, const double rotation[4], const mq_dvec3 scale)
{
    mq_xform out;
    double w = rotation[0], x = rotation[1], y = rotation[2], z = rotation[3]; /* w, x, y, z */
    double n = sqrt(x * x + y * y + z * z + w * w);
    if (!(n > 0.0) || !isfinite(n)) {
        /* A zero or non-finite quaternion: NaN entries, which mq_scene_add rejects. */
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 4; c++)
                out.m[r][c] = NAN;
        return out;
    }
    x /= n, y /= n, z /= n, w /= n;
    double rot[3][3] = {
        {1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)},
        {2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)},
        {2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)},
    };
    /* R * S: column c of the rotation scaled by scale[c]. */
    for (int r = 0; r < 3; r++) {
        for (int c = 0; c < 3; c++)
            out.m[r][c] = rot[r][c] * scale[c];
        out.m[r][3] = translation[r];
    }
    return out;
}

void mq_xform_apply_point(const mq_xform *xf, const mq_dvec3 p, mq_dvec3 out)
{
    double r[3];
    for (int i = 0; i < 3; i++)
        r[i] = xf->m[i][0] * p[0] + xf->m[i][1] * p[1] + xf->m[i][2] * p[2] + xf->m[i][3];
    out[0] = r[0], out[1] = r[1], out[2] = r[2];
}

void mq_xform_apply_vector(const mq_xform *xf, const double v[3], double out[3])
{
    double r[3];
    for (int i = 0; i < 3; i++)
        r[i] = xf->m[i][0] * v[0] + xf->m[i][1] * v[1] + xf->m[i][2] * v[2];
    out[0] = r[0], out[1] = r[1], out[2] = r[2];
}
