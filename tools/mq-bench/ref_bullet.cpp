// Bullet's collision module behind the C interface of ref_bullet.h (see there).
#include "ref_bullet.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <vector>

#include <BulletCollision/BroadphaseCollision/btDbvtBroadphase.h>
#include <BulletCollision/CollisionDispatch/btCollisionDispatcher.h>
#include <BulletCollision/CollisionDispatch/btCollisionWorld.h>
#include <BulletCollision/CollisionDispatch/btDefaultCollisionConfiguration.h>
#include <BulletCollision/CollisionShapes/btBoxShape.h>
#include <BulletCollision/CollisionShapes/btBvhTriangleMeshShape.h>
#include <BulletCollision/CollisionShapes/btCapsuleShape.h>
#include <BulletCollision/CollisionShapes/btSphereShape.h>
#include <BulletCollision/CollisionShapes/btTriangleIndexVertexArray.h>
#include <LinearMath/btScalar.h>

struct ref_bullet {
    std::vector<btScalar> vertices;
    std::vector<int> indices;
    btTriangleIndexVertexArray *array = nullptr;
    btBvhTriangleMeshShape *shape = nullptr;
    btCollisionObject *object = nullptr;
    btDefaultCollisionConfiguration *config = nullptr;
    btCollisionDispatcher *dispatcher = nullptr;
    btDbvtBroadphase *broadphase = nullptr;
    btCollisionWorld *world = nullptr;
    std::vector<uint32_t> found; // scratch of one query
};

extern "C" ref_bullet *ref_bullet_create(const float *positions, size_t vertex_count, const uint32_t *indices,
                                         size_t triangle_count, double *build_ms)
{
    if (triangle_count == 0)
        return nullptr;
    auto *b = new ref_bullet;
    b->vertices.assign(positions, positions + 3 * vertex_count);
    b->indices.assign(indices, indices + 3 * triangle_count);
    auto start = std::chrono::steady_clock::now();
    b->array = new btTriangleIndexVertexArray(static_cast<int>(triangle_count), b->indices.data(), 3 * sizeof(int),
                                              static_cast<int>(vertex_count), b->vertices.data(),
                                              3 * sizeof(btScalar));
    b->shape = new btBvhTriangleMeshShape(b->array, true, true);
    auto end = std::chrono::steady_clock::now();
    if (build_ms)
        *build_ms = std::chrono::duration<double, std::milli>(end - start).count();
    b->object = new btCollisionObject();
    b->object->setCollisionShape(b->shape);
    b->config = new btDefaultCollisionConfiguration();
    b->dispatcher = new btCollisionDispatcher(b->config);
    b->broadphase = new btDbvtBroadphase();
    b->world = new btCollisionWorld(b->dispatcher, b->broadphase, b->config);
    b->world->addCollisionObject(b->object);
    b->world->updateAabbs();
    return b;
}

extern "C" void ref_bullet_destroy(ref_bullet *b)
{
    if (!b)
        return;
    b->world->removeCollisionObject(b->object);
    delete b->world;
    delete b->broadphase;
    delete b->dispatcher;
    delete b->config;
    delete b->object;
    delete b->shape;
    delete b->array;
    delete b;
}

namespace {
struct Collect : btCollisionWorld::ContactResultCallback {
    const btCollisionObject *mesh;
    std::vector<uint32_t> *out;
    btScalar addSingleResult(btManifoldPoint &cp, const btCollisionObjectWrapper *w0, int, int index0,
                             const btCollisionObjectWrapper *, int, int index1) override
    {
        if (cp.getDistance() <= 0)
            out->push_back(static_cast<uint32_t>(w0->getCollisionObject() == mesh ? index0 : index1));
        return 0;
    }
};

struct SweepClosest : btCollisionWorld::ClosestConvexResultCallback {
    int triangle = -1;
    SweepClosest(const btVector3 &from, const btVector3 &to) : ClosestConvexResultCallback(from, to) {}
    btScalar addSingleResult(btCollisionWorld::LocalConvexResult &r, bool normal_in_world) override
    {
        if (r.m_hitFraction <= m_closestHitFraction)
            triangle = r.m_localShapeInfo ? r.m_localShapeInfo->m_triangleIndex : -1;
        return ClosestConvexResultCallback::addSingleResult(r, normal_in_world);
    }
};
} // namespace

static size_t contact(ref_bullet *b, btCollisionShape *shape, const btTransform &pose, uint32_t *out,
                      size_t capacity)
{
    btCollisionObject probe;
    probe.setCollisionShape(shape);
    probe.setWorldTransform(pose);
    b->found.clear();
    Collect cb;
    cb.mesh = b->object;
    cb.out = &b->found;
    b->world->contactTest(&probe, cb);
    std::sort(b->found.begin(), b->found.end());
    b->found.erase(std::unique(b->found.begin(), b->found.end()), b->found.end());
    for (size_t i = 0; i < b->found.size() && i < capacity; i++)
        out[i] = b->found[i];
    return b->found.size();
}

static btVector3 vec(const float *p) { return btVector3(p[0], p[1], p[2]); }

extern "C" size_t ref_bullet_overlap_sphere(ref_bullet *b, const mq_sphere *s, uint32_t *out, size_t capacity)
{
    btSphereShape sphere(s->radius);
    btTransform pose;
    pose.setIdentity();
    pose.setOrigin(vec(s->center));
    return contact(b, &sphere, pose, out, capacity);
}

// Bullet's capsule lies along local y, centred: rotate y onto b - a.
extern "C" size_t ref_bullet_overlap_capsule(ref_bullet *b, const mq_capsule *c, uint32_t *out, size_t capacity)
{
    btVector3 a = vec(c->a), d = vec(c->b) - a;
    btScalar len = d.length();
    btCapsuleShape capsule(c->radius, len);
    btTransform pose;
    pose.setIdentity();
    if (len > 0) {
        btVector3 y(0, 1, 0), u = d / len, axis = y.cross(u);
        btScalar s = axis.length(), cosang = y.dot(u);
        if (s > btScalar(1e-7))
            pose.setRotation(btQuaternion(axis / s, std::atan2(s, cosang)));
        else if (cosang < 0)
            pose.setRotation(btQuaternion(btVector3(1, 0, 0), SIMD_PI));
    }
    pose.setOrigin(a + 0.5 * d);
    return contact(b, &capsule, pose, out, capacity);
}

static size_t box(ref_bullet *b, const float *center, const float *half, const btMatrix3x3 &rot, uint32_t *out,
                  size_t capacity)
{
    btBoxShape shape(vec(half));
    shape.setMargin(0); // the box's own size, no rounded margin
    btTransform pose(rot, vec(center));
    return contact(b, &shape, pose, out, capacity);
}

extern "C" size_t ref_bullet_overlap_obb(ref_bullet *b, const mq_obb *o, uint32_t *out, size_t capacity)
{
    // columns = the box axes (cglm's mat3 is column-major: axes[i] is column i)
    btMatrix3x3 rot(o->axes[0][0], o->axes[1][0], o->axes[2][0], o->axes[0][1], o->axes[1][1], o->axes[2][1],
                    o->axes[0][2], o->axes[1][2], o->axes[2][2]);
    return box(b, o->center, o->half, rot, out, capacity);
}

extern "C" size_t ref_bullet_overlap_aabb(ref_bullet *b, const mq_aabb *a, uint32_t *out, size_t capacity)
{
    float c[3], h[3];
    for (int k = 0; k < 3; k++) {
        c[k] = 0.5f * (a->min[k] + a->max[k]);
        h[k] = 0.5f * (a->max[k] - a->min[k]);
    }
    return box(b, c, h, btMatrix3x3::getIdentity(), out, capacity);
}

extern "C" bool ref_bullet_sphere_cast(ref_bullet *b, const mq_sphere *s, const float dir[3], float tmax, float *t,
                                       uint32_t *triangle)
{
    btSphereShape sphere(s->radius);
    btVector3 from = vec(s->center), to = from + btScalar(tmax) * vec(dir);
    btTransform a, e;
    a.setIdentity();
    e.setIdentity();
    a.setOrigin(from);
    e.setOrigin(to);
    SweepClosest cb(from, to);
    b->world->convexSweepTest(&sphere, a, e, cb);
    if (!cb.hasHit())
        return false;
    *t = cb.m_closestHitFraction * tmax;
    *triangle = cb.triangle < 0 ? UINT32_MAX : static_cast<uint32_t>(cb.triangle);
    return true;
}

extern "C" int ref_bullet_version(void) { return btGetVersion(); }
