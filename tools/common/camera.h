/*
 * A pinhole camera for screen-pixel rays. The default camera is the one of
 * docs/formats.md ("primary rays"): at c + 1.2*D*normalize(1, 0.6, 1.4)
 * looking at the bounding box centre c (D = its diagonal), up (0,1,0),
 * vertical field of view 45 degrees, so it frames the whole model.
 */
#ifndef MQ_TOOLS_CAMERA_H
#define MQ_TOOLS_CAMERA_H

#include <stdbool.h>
#include <stdint.h>

#include <meshquery/types.h>

typedef struct mqt_camera {
    double eye[3], target[3], up[3];
    double vfov_degrees;
    uint32_t width, height;
} mqt_camera;

/* The docs/formats.md camera framing `bounds`, for an image of width x height pixels. */
void mqt_camera_default(const mq_aabb *bounds, uint32_t width, uint32_t height, mqt_camera *out);

/* The ray through the centre of pixel (x, y), counted from the top-left (0, 0): unit
 * direction, tmin 0, tmax +inf. Pixels outside the image still give a ray (the same
 * formula), so callers can check the range themselves. False when the camera is
 * degenerate (eye == target, up parallel to the view direction, fov not in (0, 180)). */
bool mqt_camera_ray(const mqt_camera *cam, double x, double y, mq_ray *out);

/* The inverse of mqt_camera_ray: the pixel coordinates (x, y) whose ray passes through point
 * p (so pixel centres are at whole numbers, (0, 0) the top-left one; points off screen get
 * coordinates outside [0, width) x [0, height)) and p's depth along the view direction.
 * False when the camera is degenerate or p is not in front of the eye (depth <= 0). */
bool mqt_camera_project(const mqt_camera *cam, const double p[3], double *x, double *y, double *depth);

#endif
