/* --closest X,Y,Z[,MAXDIST]: the nearest surface point, on one mesh's tree or a scene. */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "pick_shapes.h"

static bool nearest(const pick_target *t, const pick_point *q, mq_scene_point_hit *out)
{
    if (t->scene)
        return mq_scene_closest_point(t->scene, q->p, q->max_distance, NULL, out);
    vec3 p = {(float)q->p[0], (float)q->p[1], (float)q->p[2]};
    /* the float radius must not be below the double one, or a point exactly at MAXDIST is lost */
    float maxd = (float)q->max_distance;
    if ((double)maxd < q->max_distance)
        maxd = nextafterf(maxd, INFINITY);
    mq_point_hit h;
    bool found = t->kdop     ? mq_kdoptree_closest_point(t->kdop, p, maxd, &h)
                 : t->sphere ? mq_spheretree_closest_point(t->sphere, p, maxd, &h)
                             : mq_obbtree_closest_point(t->tree, p, maxd, &h);
    if (!found)
        return false;
    *out = (mq_scene_point_hit){{h.point[0], h.point[1], h.point[2]}, h.distance, h.u, h.v, 0, h.triangle, 0};
    return true;
}

static void add(mqt_textbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void add(mqt_textbuf *b, const char *fmt, ...)
{
    char text[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    mqt_tb_str(b, text);
}

static void write_json(const pick_target *t, mqt_textbuf *b, size_t i, const pick_point *q, bool found,
                       const mq_scene_point_hit *h)
{
    add(b, "{\"query\":%zu,\"from\":[%.9g,%.9g,%.9g],\"found\":%s", i, q->p[0], q->p[1], q->p[2],
        found ? "true" : "false");
    if (found) {
        const pick_source *s = &t->sources[h->instance];
        mq_triangle_source src;
        mq_mesh_triangle_source(s->mesh, h->triangle, &src);
        mqt_tb_str(b, ",\"file\":");
        mqt_tb_json_string(b, s->path);
        if (t->name_instance)
            add(b, ",\"instance\":%u", h->instance);
        add(b, ",\"face\":%u,\"line\":%llu,\"triangle\":%u,\"group\":", src.face, (unsigned long long)src.line,
            h->triangle);
        mqt_tb_json_string(b, src.group);
        mqt_tb_str(b, ",\"object\":");
        mqt_tb_json_string(b, src.object);
        mqt_tb_str(b, ",\"material\":");
        mqt_tb_json_string(b, src.material);
        add(b, ",\"distance\":%.9g,\"point\":[%.9g,%.9g,%.9g],\"barycentric\":[%.9g,%.9g]", h->distance, h->point[0],
            h->point[1], h->point[2], (double)h->u, (double)h->v);
    }
    mqt_tb_str(b, "}\n");
}

static void write_csv(const pick_target *t, mqt_textbuf *b, size_t i, const pick_point *q, bool found,
                      const mq_scene_point_hit *h)
{
    add(b, "%zu,%.9g,%.9g,%.9g,%d,", i, q->p[0], q->p[1], q->p[2], found ? 1 : 0);
    if (!found) {
        mqt_tb_str(b, t->name_instance ? ",,,,,,,,,,,,,,\n" : ",,,,,,,,,,,,,\n");
        return;
    }
    const pick_source *s = &t->sources[h->instance];
    mq_triangle_source src;
    mq_mesh_triangle_source(s->mesh, h->triangle, &src);
    pick_csv_string(b, s->path);
    if (t->name_instance)
        add(b, ",%u", h->instance);
    add(b, ",%u,%u,%llu,", h->triangle, src.face, (unsigned long long)src.line);
    pick_csv_string(b, src.group);
    mqt_tb_char(b, ',');
    pick_csv_string(b, src.object);
    mqt_tb_char(b, ',');
    pick_csv_string(b, src.material);
    add(b, ",%.9g,%.9g,%.9g,%.9g,%.9g,%.9g\n", h->distance, h->point[0], h->point[1], h->point[2], (double)h->u,
        (double)h->v);
}

static void write_table(const pick_target *t, mqt_textbuf *b, size_t i, const pick_point *q, bool found,
                        const mq_scene_point_hit *h)
{
    char from[96];
    snprintf(from, sizeof from, "(%.5g, %.5g, %.5g)", q->p[0], q->p[1], q->p[2]);
    if (!found) {
        add(b, "%6zu %-28s  (nothing within %g)\n", i, from, q->max_distance);
        return;
    }
    const pick_source *s = &t->sources[h->instance];
    mq_triangle_source src;
    mq_mesh_triangle_source(s->mesh, h->triangle, &src);
    char point[96], bary[64];
    snprintf(point, sizeof point, "(%.5g, %.5g, %.5g)", h->point[0], h->point[1], h->point[2]);
    snprintf(bary, sizeof bary, "(%.4f, %.4f)", (double)h->u, (double)h->v);
    add(b, "%6zu %-28s %12.7g %9u %8u %9llu  %-28s %-18s %s", i, from, h->distance, h->triangle, src.face,
        (unsigned long long)src.line, point, bary, s->path);
    if (t->name_instance)
        add(b, " (instance %u)", h->instance);
    add(b, "  %s/%s/%s\n", src.group[0] ? src.group : "-", src.object[0] ? src.object : "-",
        src.material[0] ? src.material : "-");
}

int pick_run_closest(const pick_target *t, const pick_point *points, size_t count, FILE *out, pick_shape_format format)
{
    mqt_textbuf *b = calloc(1, sizeof *b);
    if (!b) {
        fprintf(stderr, "mq-pick: out of memory\n");
        return 1;
    }
    mqt_tb_init(b, out);
    if (format == SHAPES_CSV)
        mqt_tb_str(b, t->name_instance ? "query,x,y,z,found,file,instance,triangle,face,line,group,object,material,"
                                         "distance,px,py,pz,u,v\n"
                                       : "query,x,y,z,found,file,triangle,face,line,group,object,material,"
                                         "distance,px,py,pz,u,v\n");
    else if (format != SHAPES_JSON)
        add(b, "%6s %-28s %12s %9s %8s %9s  %-28s %-18s %s\n", "query", "from", "distance", "triangle", "face", "line",
            "closest point", "barycentric", "file  group/object/material");
    for (size_t i = 0; i < count; i++) {
        mq_scene_point_hit h;
        memset(&h, 0, sizeof h);
        bool found = nearest(t, &points[i], &h);
        if (format == SHAPES_JSON)
            write_json(t, b, i, &points[i], found, &h);
        else if (format == SHAPES_CSV)
            write_csv(t, b, i, &points[i], found, &h);
        else
            write_table(t, b, i, &points[i], found, &h);
    }
    bool ok = mqt_tb_flush(b);
    free(b);
    if (!ok)
        fprintf(stderr, "mq-pick: writing the answers failed\n");
    return ok ? 0 : 1;
}
