#include "pick_common.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "camera.h"
#include "rayfile.h"

int pick_ray_format(const pick_options *o, pick_format *format)
{
    pick_format f = pick_format_for(o->out_path, o->forced_format);
    *format = f;
    if (f == PICK_HITS && o->mode != MODE_CLOSEST)
        return pick_usage_error("%s: a .hits file holds closest hits (drop --any/--all, or use .occl/.json)",
                                o->out_path);
    if (f == PICK_OCCL && o->mode != MODE_ANY)
        return pick_usage_error("%s: an .occl file holds any-hit answers (add --any)", o->out_path);
    return 0;
}

pick_shape_format pick_shape_format_of(const pick_options *o)
{
    if (o->forced_format && !strcmp(o->forced_format, "table"))
        return SHAPES_TABLE;
    pick_format f = pick_format_for(o->out_path, o->forced_format);
    return f == PICK_JSON ? SHAPES_JSON : f == PICK_CSV ? SHAPES_CSV : SHAPES_OVERLAPS;
}

bool pick_read_rays(const pick_options *o, mq_ray **rays, size_t *count)
{
    char err[512];
    *rays = NULL;
    *count = 0;
    if (o->rays_path && !mqt_read_rays(o->rays_path, rays, count, err, sizeof err)) {
        fprintf(stderr, "mq-pick: %s\n", err);
        return false;
    }
    if (o->cli_ray_count) {
        *rays = malloc(o->cli_ray_count * sizeof **rays);
        if (!*rays) {
            fprintf(stderr, "mq-pick: out of memory\n");
            return false;
        }
        memcpy(*rays, o->cli_rays, o->cli_ray_count * sizeof **rays);
        *count = o->cli_ray_count;
    }
    return true;
}

bool pick_add_pixel_rays(const pick_options *o, const mq_aabb *bounds, mq_ray **rays, size_t *count)
{
    mqt_camera cam;
    mqt_camera_default(bounds, o->width, o->height, &cam);
    if (o->has_camera)
        for (int k = 0; k < 3; k++) {
            cam.eye[k] = o->camera[k];
            cam.target[k] = o->camera[3 + k];
        }
    if (o->has_up)
        for (int k = 0; k < 3; k++)
            cam.up[k] = o->up[k];
    if (o->fov > 0.0)
        cam.vfov_degrees = o->fov;
    mq_ray *all = realloc(*rays, (*count + o->pixel_count) * sizeof *all);
    if (!all) {
        fprintf(stderr, "mq-pick: out of memory\n");
        return false;
    }
    *rays = all;
    for (size_t i = 0; i < o->pixel_count; i++)
        if (!mqt_camera_ray(&cam, o->pixels[2 * i], o->pixels[2 * i + 1], &all[*count + i])) {
            fprintf(stderr, "mq-pick: the camera is degenerate (eye at the target, or up along the view)\n");
            return false;
        }
    *count += o->pixel_count;
    return true;
}

FILE *pick_open_out(const char *path, bool binary)
{
    bool to_stdout = !strcmp(path, "-");
    FILE *out = to_stdout ? stdout : fopen(path, binary ? "wb" : "w");
    if (!out) {
        fprintf(stderr, "mq-pick: cannot write %s: %s\n", path, strerror(errno));
        return NULL;
    }
    static char buffer[1 << 20];
    setvbuf(out, buffer, _IOFBF, sizeof buffer);
    return out;
}

bool pick_close_out(FILE *out, const char *path, bool ok)
{
    errno = 0;
    bool written = fflush(out) == 0 && !ferror(out);
    int saved_errno = errno;
    struct stat st;
    bool regular = out != stdout && fstat(fileno(out), &st) == 0 && S_ISREG(st.st_mode);
    if (out != stdout && fclose(out) != 0 && written) {
        written = false;
        saved_errno = errno;
    }
    if (!written)
        fprintf(stderr, "mq-pick: writing %s failed: %s\n", path, saved_errno ? strerror(saved_errno) : "write error");
    /* A run that failed leaves no output file, not a partial one (never a device or a pipe's) */
    if ((!ok || !written) && regular)
        remove(path);
    return ok && written;
}

void pick_print_timing(size_t rays, size_t triangles, double read_s, double load_s, double build_s, double trace_s,
                       double write_s)
{
    fprintf(stderr,
            "mq-pick: %zu rays, %zu triangles: read rays %.1f ms, load %.1f ms, build %.1f ms, "
            "trace %.1f ms, write %.1f ms\n",
            rays, triangles, 1e3 * read_s, 1e3 * load_s, 1e3 * build_s, 1e3 * trace_s, 1e3 * write_s);
}
