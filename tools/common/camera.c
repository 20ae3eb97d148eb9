#include "camera.h"

#include <math.h>

static double length(const double v[3])
{
    return sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
}

static void cross(const double a[3], const double b[3], double out[3])
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

static bool normalize(double v[3])
{
    double l = length(v);
    if (!(l > 0.0) || !isfinite(l))
        return false;
    for (int k = 0; k < 3; k++)
        v[k] /= l;
    return true;
}

void mqt_camera_default(const mq_aabb *b, uint32_t width, uint32_t height, mqt_camera *out)
{
    double d2 = 0.0, dir[3] = {1.0, 0.6, 1.4};
    normalize(dir);
    for (int k = 0; k < 3; k++) {
        out->target[k] = 0.5 * ((double)b->min[k] + (double)b->max[k]);
        double e = (double)b->max[k] - (double)b->min[k];
        d2 += e * e;
    }
    for (int k = 0; k < 3; k++) {
        out->eye[k] = out->target[k] + 1.2 * sqrt(d2) * dir[k];
        out->up[k] = k == 1 ? 1.0 : 0.0;
    }
    out->vfov_degrees = 45.0;
    out->width = width;
    out->height = height;
}

/* The camera's unit view direction, right and up vectors; false when it is degenerate. */
static bool camera_basis(const mqt_camera *cam, double fwd[3], double right[3], double up[3])
{
    for (int k = 0; k < 3; k++)
        fwd[k] = cam->target[k] - cam->eye[k];
    if (!normalize(fwd) || !(cam->vfov_degrees > 0.0 && cam->vfov_degrees < 180.0) || cam->width == 0 ||
        cam->height == 0)
        return false;
    cross(fwd, cam->up, right);
    if (!normalize(right))
        return false;
    cross(right, fwd, up);
    return true;
}

bool mqt_camera_project(const mqt_camera *cam, const double p[3], double *x, double *y, double *depth)
{
    double fwd[3], right[3], up[3], d[3];
    if (!camera_basis(cam, fwd, right, up))
        return false;
    for (int k = 0; k < 3; k++)
        d[k] = p[k] - cam->eye[k];
    double z = d[0] * fwd[0] + d[1] * fwd[1] + d[2] * fwd[2];
    if (!(z > 0.0))
        return false;
    double tan_half = tan(0.5 * cam->vfov_degrees * 3.14159265358979323846 / 180.0);
    double aspect = (double)cam->width / (double)cam->height;
    double sx = (d[0] * right[0] + d[1] * right[1] + d[2] * right[2]) / z / (tan_half * aspect);
    double sy = (d[0] * up[0] + d[1] * up[1] + d[2] * up[2]) / z / tan_half;
    /* mqt_camera_ray's sx = 2 (x + 0.5) / width - 1 and sy = 1 - 2 (y + 0.5) / height, solved for x and y */
    *x = 0.5 * (sx + 1.0) * cam->width - 0.5;
    *y = 0.5 * (1.0 - sy) * cam->height - 0.5;
    *depth = z;
    return true;
}

bool mqt_camera_ray(const mqt_camera *cam, double x, double y, mq_ray *out)
{
    double fwd[3], right[3], up[3];
    if (!camera_basis(cam, fwd, right, up))
        return false;
    double tan_half = tan(0.5 * cam->vfov_degrees * 3.14159265358979323846 / 180.0);
    double aspect = (double)cam->width / (double)cam->height;
    double sx = (2.0 * (x + 0.5) / cam->width - 1.0) * tan_half * aspect;
    double sy = (1.0 - 2.0 * (y + 0.5) / cam->height) * tan_half;
    double d[3];
    for (int k = 0; k < 3; k++)
        d[k] = fwd[k] + sx * right[k] + sy * up[k];
    normalize(d);
    for (int k = 0; k < 3; k++) {
        out->origin[k] = (float)cam->eye[k];
        out->dir[k] = (float)d[k];
    }
    out->tmin = 0.0f;
    out->tmax = INFINITY;
    return true;
}
