/* The Embree 3 adapter of mq-bench rays (see ref_embree.h). */
#include "ref_embree.h"

#include <embree3/rtcore.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench.h"

struct ref_embree {
    RTCDevice device;
    RTCScene scene;
    RTCScene base;      /* instanced scenes: the mesh's own scene; NULL otherwise */
    atomic_llong bytes; /* net bytes allocated by the device since the counter was reset */
};

static bool monitor(void *user, ssize_t bytes, bool post)
{
    (void)post;
    ref_embree *e = user;
    atomic_fetch_add(&e->bytes, (long long)bytes);
    return true;
}

const char *ref_embree_version(void)
{
    return RTC_VERSION_STRING;
}

/* A device with `threads` worker threads, held to mq-bench's --isa if given. */
static RTCDevice new_device(unsigned threads)
{
    char config[64];
    const char *isa = bench_embree_isa();
    snprintf(config, sizeof config, "threads=%u%s%s", threads ? threads : 1, isa ? ",isa=" : "", isa ? isa : "");
    return rtcNewDevice(config);
}

static RTCGeometry make_geometry(RTCDevice dev, const float *positions, size_t vertex_count, const uint32_t *indices,
                                 size_t triangle_count)
{
    RTCGeometry g = rtcNewGeometry(dev, RTC_GEOMETRY_TYPE_TRIANGLE);
    float *vb =
        rtcSetNewGeometryBuffer(g, RTC_BUFFER_TYPE_VERTEX, 0, RTC_FORMAT_FLOAT3, 3 * sizeof(float), vertex_count);
    unsigned *ib =
        rtcSetNewGeometryBuffer(g, RTC_BUFFER_TYPE_INDEX, 0, RTC_FORMAT_UINT3, 3 * sizeof(unsigned), triangle_count);
    if (!vb || !ib) {
        rtcReleaseGeometry(g);
        return NULL;
    }
    for (size_t i = 0; i < 3 * vertex_count; i++)
        vb[i] = positions[i];
    for (size_t i = 0; i < 3 * triangle_count; i++)
        ib[i] = indices[i];
    rtcCommitGeometry(g);
    return g;
}

ref_embree *ref_embree_create(const float *positions, size_t vertex_count, const uint32_t *indices,
                              size_t triangle_count, unsigned threads, double *build_ms, size_t *bvh_bytes)
{
    ref_embree *e = calloc(1, sizeof *e);
    if (!e)
        return NULL;
    e->device = new_device(threads);
    if (!e->device) {
        free(e);
        return NULL;
    }
    rtcSetDeviceMemoryMonitorFunction(e->device, monitor, e);
    e->scene = rtcNewScene(e->device);
    RTCGeometry g = make_geometry(e->device, positions, vertex_count, indices, triangle_count);
    if (!g) {
        ref_embree_destroy(e);
        return NULL;
    }
    rtcAttachGeometry(e->scene, g);
    rtcReleaseGeometry(g);
    atomic_store(&e->bytes, 0);
    double t0 = bench_now();
    rtcCommitScene(e->scene);
    *build_ms = 1e3 * (bench_now() - t0);
    *bvh_bytes = (size_t)atomic_load(&e->bytes);
    return e;
}

void ref_embree_destroy(ref_embree *e)
{
    if (!e)
        return;
    if (e->scene)
        rtcReleaseScene(e->scene);
    if (e->base)
        rtcReleaseScene(e->base);
    rtcReleaseDevice(e->device);
    free(e);
}

ref_embree *ref_embree_create_instanced(const float *positions, size_t vertex_count, const uint32_t *indices,
                                        size_t triangle_count, const float *xf, size_t count, unsigned threads,
                                        double *build_ms)
{
    ref_embree *e = calloc(1, sizeof *e);
    if (!e)
        return NULL;
    e->device = new_device(threads);
    if (!e->device) {
        free(e);
        return NULL;
    }
    e->base = rtcNewScene(e->device);
    RTCGeometry g = make_geometry(e->device, positions, vertex_count, indices, triangle_count);
    if (!g) {
        ref_embree_destroy(e);
        return NULL;
    }
    rtcAttachGeometry(e->base, g);
    rtcReleaseGeometry(g);
    rtcCommitScene(e->base);
    ref_embree_reinstance(e, xf, count, build_ms);
    return e;
}

void ref_embree_reinstance(ref_embree *e, const float *xf, size_t count, double *build_ms)
{
    if (e->scene)
        rtcReleaseScene(e->scene);
    double t0 = bench_now();
    e->scene = rtcNewScene(e->device);
    for (size_t i = 0; i < count; i++) {
        RTCGeometry inst = rtcNewGeometry(e->device, RTC_GEOMETRY_TYPE_INSTANCE);
        rtcSetGeometryInstancedScene(inst, e->base);
        rtcSetGeometryTransform(inst, 0, RTC_FORMAT_FLOAT3X4_ROW_MAJOR, xf + 12 * i);
        rtcCommitGeometry(inst);
        rtcAttachGeometryByID(e->scene, inst, (unsigned)i); /* instID on a hit = i */
        rtcReleaseGeometry(inst);
    }
    rtcCommitScene(e->scene);
    *build_ms = 1e3 * (bench_now() - t0);
}

static void to_embree_ray(const mq_ray *r, struct RTCRay *out)
{
    out->org_x = r->origin[0];
    out->org_y = r->origin[1];
    out->org_z = r->origin[2];
    out->tnear = r->tmin;
    out->dir_x = r->dir[0];
    out->dir_y = r->dir[1];
    out->dir_z = r->dir[2];
    out->time = 0.0f;
    out->tfar = r->tmax;
    out->mask = 0xFFFFFFFFu;
    out->id = 0;
    out->flags = 0;
}

/* Work shared by the tracing threads: chunks of rays from an atomic counter. */
typedef struct trace_job {
    ref_embree *e;
    const mq_ray *rays;
    size_t count;
    float *t;
    uint32_t *id;
    uint32_t *instance; /* closest on an instanced scene: instID per ray, else NULL */
    bool *occluded;
    int mode; /* 0 closest, 1 occluded, 2 packets of 16 */
    atomic_size_t next;
} trace_job;

static void closest_range(trace_job *j, size_t begin, size_t end)
{
    struct RTCIntersectContext ctx;
    rtcInitIntersectContext(&ctx);
    for (size_t i = begin; i < end; i++) {
        struct RTCRayHit rh;
        to_embree_ray(&j->rays[i], &rh.ray);
        rh.hit.geomID = RTC_INVALID_GEOMETRY_ID;
        rh.hit.primID = RTC_INVALID_GEOMETRY_ID;
        rh.hit.instID[0] = RTC_INVALID_GEOMETRY_ID;
        rtcIntersect1(j->e->scene, &ctx, &rh);
        bool hit = rh.hit.geomID != RTC_INVALID_GEOMETRY_ID;
        j->t[i] = hit ? rh.ray.tfar : INFINITY;
        j->id[i] = hit ? rh.hit.primID : UINT32_MAX;
        if (j->instance)
            j->instance[i] = hit ? rh.hit.instID[0] : UINT32_MAX;
    }
}

static void occluded_range(trace_job *j, size_t begin, size_t end)
{
    struct RTCIntersectContext ctx;
    rtcInitIntersectContext(&ctx);
    for (size_t i = begin; i < end; i++) {
        struct RTCRay r;
        to_embree_ray(&j->rays[i], &r);
        rtcOccluded1(j->e->scene, &ctx, &r);
        j->occluded[i] = r.tfar == -INFINITY;
    }
}

static void packet_range(trace_job *j, size_t begin, size_t end)
{
    struct RTCIntersectContext ctx;
    rtcInitIntersectContext(&ctx);
    for (size_t p = begin; p < end; p += 16) {
        _Alignas(64) struct RTCRayHit16 rh;
        _Alignas(64) int valid[16];
        for (int k = 0; k < 16; k++) {
            size_t i = p + (size_t)k;
            valid[k] = i < end ? -1 : 0;
            const mq_ray *r = &j->rays[i < end ? i : p];
            rh.ray.org_x[k] = r->origin[0];
            rh.ray.org_y[k] = r->origin[1];
            rh.ray.org_z[k] = r->origin[2];
            rh.ray.tnear[k] = r->tmin;
            rh.ray.dir_x[k] = r->dir[0];
            rh.ray.dir_y[k] = r->dir[1];
            rh.ray.dir_z[k] = r->dir[2];
            rh.ray.time[k] = 0.0f;
            rh.ray.tfar[k] = r->tmax;
            rh.ray.mask[k] = 0xFFFFFFFFu;
            rh.ray.id[k] = 0;
            rh.ray.flags[k] = 0;
            rh.hit.geomID[k] = RTC_INVALID_GEOMETRY_ID;
        }
        rtcIntersect16(valid, j->e->scene, &ctx, &rh);
        for (int k = 0; k < 16 && p + (size_t)k < end; k++) {
            bool hit = rh.hit.geomID[k] != RTC_INVALID_GEOMETRY_ID;
            j->t[p + k] = hit ? rh.ray.tfar[k] : INFINITY;
            j->id[p + k] = hit ? rh.hit.primID[k] : UINT32_MAX;
        }
    }
}

static void *trace_worker(void *arg)
{
    trace_job *j = arg;
    const size_t chunk = 256; /* a multiple of 16: packets never straddle chunks */
    for (;;) {
        size_t begin = atomic_fetch_add(&j->next, chunk);
        if (begin >= j->count)
            break;
        size_t end = begin + chunk < j->count ? begin + chunk : j->count;
        if (j->mode == 0)
            closest_range(j, begin, end);
        else if (j->mode == 1)
            occluded_range(j, begin, end);
        else
            packet_range(j, begin, end);
    }
    return NULL;
}

static void run_threads(trace_job *j, unsigned threads)
{
    pthread_t tid[64];
    unsigned n = threads < 1 ? 1 : threads > 64 ? 64 : threads, started = 0;
    atomic_init(&j->next, 0);
    for (unsigned i = 1; i < n; i++)
        if (pthread_create(&tid[started], NULL, trace_worker, j) == 0)
            started++;
    trace_worker(j);
    for (unsigned i = 0; i < started; i++)
        pthread_join(tid[i], NULL);
}

void ref_embree_closest(ref_embree *e, const mq_ray *rays, size_t count, unsigned threads, float *t, uint32_t *id)
{
    trace_job j = {.e = e, .rays = rays, .count = count, .t = t, .id = id, .mode = 0};
    run_threads(&j, threads);
}

void ref_embree_closest_instanced(ref_embree *e, const mq_ray *rays, size_t count, unsigned threads, float *t,
                                  uint32_t *id, uint32_t *instance)
{
    trace_job j = {.e = e, .rays = rays, .count = count, .t = t, .id = id, .instance = instance, .mode = 0};
    run_threads(&j, threads);
}

void ref_embree_occluded(ref_embree *e, const mq_ray *rays, size_t count, unsigned threads, bool *occluded)
{
    trace_job j = {.e = e, .rays = rays, .count = count, .occluded = occluded, .mode = 1};
    run_threads(&j, threads);
}

void ref_embree_closest16(ref_embree *e, const mq_ray *rays, size_t count, unsigned threads, float *t, uint32_t *id)
{
    trace_job j = {.e = e, .rays = rays, .count = count, .t = t, .id = id, .mode = 2};
    run_threads(&j, threads);
}
