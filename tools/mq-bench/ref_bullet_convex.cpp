// Bullet's btConvexHullShape against a mesh, behind ref_convex.h (see there
// and ref_bullet.h for why the Bullet world is scaled).
#include "ref_convex.h"
#include "ref_scale.h"

#include <algorithm>
#include <vector>

#include <BulletCollision/BroadphaseCollision/btDbvtBroadphase.h>
#include <BulletCollision/CollisionDispatch/btCollisionDispatcher.h>
#include <BulletCollision/CollisionDispatch/btCollisionObject.h>
#include <BulletCollision/CollisionDispatch/btCollisionWorld.h>
#include <BulletCollision/CollisionDispatch/btDefaultCollisionConfiguration.h>
#include <BulletCollision/CollisionShapes/btBvhTriangleMeshShape.h>
#include <BulletCollision/CollisionShapes/btConvexHullShape.h>
#include <BulletCollision/CollisionShapes/btTriangleIndexVertexArray.h>

struct ref_bullet_cv {
    std::vector<btScalar> vertices;
    std::vector<int> indices;
    btScalar scale = 1;
    btTriangleIndexVertexArray *array = nullptr;
    btBvhTriangleMeshShape *shape = nullptr;
    btCollisionObject *object = nullptr;
    btDefaultCollisionConfiguration *config = nullptr;
    btCollisionDispatcher *dispatcher = nullptr;
    btDbvtBroadphase *broadphase = nullptr;
    btCollisionWorld *world = nullptr;
    std::vector<uint32_t> found;
};

struct ref_bullet_cv_shape {
    btConvexHullShape *hull = nullptr;
    btCollisionObject *probe = nullptr;
};

extern "C" ref_bullet_cv *ref_bullet_cv_create(const float *positions, size_t vertex_count, const uint32_t *indices,
                                               size_t triangle_count, double scale)
{
    if (triangle_count == 0 || triangle_count > (size_t(1) << 20))
        return nullptr; // one part of the quantized BVH (ref_bullet.cpp splits larger meshes)
    auto *b = new ref_bullet_cv;
    b->scale = btScalar(scale > 0.0 ? scale : ref_automatic_scale(positions, indices, triangle_count));
    b->vertices.resize(3 * vertex_count);
    for (size_t i = 0; i < 3 * vertex_count; i++)
        b->vertices[i] = positions[i] * b->scale;
    b->indices.assign(indices, indices + 3 * triangle_count);
    b->array = new btTriangleIndexVertexArray(static_cast<int>(triangle_count), b->indices.data(), 3 * sizeof(int),
                                              static_cast<int>(vertex_count), b->vertices.data(), 3 * sizeof(btScalar));
    b->shape = new btBvhTriangleMeshShape(b->array, true, true);
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

extern "C" double ref_bullet_cv_scale(const ref_bullet_cv *b)
{
    return b->scale;
}

extern "C" void ref_bullet_cv_destroy(ref_bullet_cv *b)
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

extern "C" ref_bullet_cv_shape *ref_bullet_cv_shape_create(const ref_bullet_cv *b, const float *vertices,
                                                           size_t vertex_count)
{
    auto *s = new ref_bullet_cv_shape;
    s->hull = new btConvexHullShape();
    for (size_t i = 0; i < vertex_count; i++)
        s->hull->addPoint(btVector3(vertices[3 * i], vertices[3 * i + 1], vertices[3 * i + 2]) * b->scale, false);
    s->hull->recalcLocalAabb();
    s->hull->setMargin(0); // the hull itself, no rounded margin around it
    s->probe = new btCollisionObject();
    s->probe->setCollisionShape(s->hull);
    btTransform pose;
    pose.setIdentity();
    s->probe->setWorldTransform(pose);
    return s;
}

extern "C" void ref_bullet_cv_shape_destroy(ref_bullet_cv_shape *s)
{
    if (!s)
        return;
    delete s->probe;
    delete s->hull;
    delete s;
}

namespace
{
struct Collect : btCollisionWorld::ContactResultCallback {
    const btCollisionObject *mesh;
    std::vector<uint32_t> *out;
    btScalar addSingleResult(btManifoldPoint &cp, const btCollisionObjectWrapper *w0, int, int index0,
                             const btCollisionObjectWrapper *, int, int index1) override
    {
        bool first = w0->getCollisionObject() == mesh;
        if (cp.getDistance() <= 0)
            out->push_back(static_cast<uint32_t>(first ? index0 : index1));
        return 0;
    }
};
} // namespace

extern "C" size_t ref_bullet_cv_overlap(ref_bullet_cv *b, const ref_bullet_cv_shape *s, uint32_t *out, size_t capacity)
{
    b->found.clear();
    Collect cb;
    cb.mesh = b->object;
    cb.out = &b->found;
    b->world->contactTest(s->probe, cb);
    std::sort(b->found.begin(), b->found.end());
    b->found.erase(std::unique(b->found.begin(), b->found.end()), b->found.end());
    for (size_t i = 0; i < b->found.size() && i < capacity; i++)
        out[i] = b->found[i];
    return b->found.size();
}
