// Bullet's collision module behind the C interface of ref_bullet.h (see there).
#include "ref_bullet.h"
#include "ref_scale.h"

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

// btQuantizedBvh packs a leaf's triangle index into 21 bits beside a 10-bit
// part id (MAX_NUM_PARTS_IN_BITS): a part of more than 2^21 triangles
// overflows and crashes a query. Larger meshes go in parts of this many.
static const size_t part_triangles = size_t(1) << 20;

struct ref_bullet {
    std::vector<btScalar> vertices; // the mesh's, times scale
    std::vector<int> indices;
    btScalar scale = 1;
    btTriangleIndexVertexArray *array = nullptr;
    btBvhTriangleMeshShape *shape = nullptr;
    btCollisionObject *object = nullptr;
    btDefaultCollisionConfiguration *config = nullptr;
    btCollisionDispatcher *dispatcher = nullptr;
    btDbvtBroadphase *broadphase = nullptr;
    btCollisionWorld *world = nullptr;
    std::vector<uint32_t> found; // scratch of one query
};

// The triangles in parts of at most part_triangles, all over the one vertex array.
static btTriangleIndexVertexArray *make_array(ref_bullet *b, size_t triangle_count, size_t vertex_count)
{
    auto *array = new btTriangleIndexVertexArray();
    for (size_t first = 0; first < triangle_count; first += part_triangles) {
        btIndexedMesh part;
        part.m_numTriangles = static_cast<int>(std::min(part_triangles, triangle_count - first));
        part.m_triangleIndexBase = reinterpret_cast<const unsigned char *>(b->indices.data() + 3 * first);
        part.m_triangleIndexStride = 3 * sizeof(int);
        part.m_numVertices = static_cast<int>(vertex_count);
        part.m_vertexBase = reinterpret_cast<const unsigned char *>(b->vertices.data());
        part.m_vertexStride = 3 * sizeof(btScalar);
        array->addIndexedMesh(part, PHY_INTEGER);
    }
    return array;
}

extern "C" ref_bullet *ref_bullet_create(const float *positions, size_t vertex_count, const uint32_t *indices,
                                         size_t triangle_count, double scale, double *build_ms)
{
    if (triangle_count == 0)
        return nullptr;
    auto *b = new ref_bullet;
    b->scale = btScalar(scale > 0.0 ? scale : ref_automatic_scale(positions, indices, triangle_count));
    b->vertices.resize(3 * vertex_count);
    for (size_t i = 0; i < 3 * vertex_count; i++)
        b->vertices[i] = positions[i] * b->scale;
    b->indices.assign(indices, indices + 3 * triangle_count);
    auto start = std::chrono::steady_clock::now();
    b->array = make_array(b, triangle_count, vertex_count);
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

extern "C" double ref_bullet_scale(const ref_bullet *b)
{
    return b->scale;
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

// The mesh's triangle id of (part, index within the part).
static uint32_t triangle_id(int part, int index)
{
    return static_cast<uint32_t>(size_t(part) * part_triangles + size_t(index));
}

namespace
{
struct Collect : btCollisionWorld::ContactResultCallback {
    const btCollisionObject *mesh;
    std::vector<uint32_t> *out;
    btScalar addSingleResult(btManifoldPoint &cp, const btCollisionObjectWrapper *w0, int part0, int index0,
                             const btCollisionObjectWrapper *, int part1, int index1) override
    {
        bool first = w0->getCollisionObject() == mesh;
        if (cp.getDistance() <= 0)
            out->push_back(triangle_id(first ? part0 : part1, first ? index0 : index1));
        return 0;
    }
};

struct SweepClosest : btCollisionWorld::ClosestConvexResultCallback {
    int part = -1, triangle = -1;
    SweepClosest(const btVector3 &from, const btVector3 &to) : ClosestConvexResultCallback(from, to) {}
    btScalar addSingleResult(btCollisionWorld::LocalConvexResult &r, bool normal_in_world) override
    {
        if (r.m_hitFraction <= m_closestHitFraction) {
            part = r.m_localShapeInfo ? r.m_localShapeInfo->m_shapePart : -1;
            triangle = r.m_localShapeInfo ? r.m_localShapeInfo->m_triangleIndex : -1;
        }
        return ClosestConvexResultCallback::addSingleResult(r, normal_in_world);
    }
};
} // namespace

static size_t contact(ref_bullet *b, btCollisionShape *shape, const btTransform &pose, uint32_t *out, size_t capacity)
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

// A point or length of the caller's, in the scaled Bullet world.
static btVector3 vec(const ref_bullet *b, const float *p)
{
    return btVector3(p[0], p[1], p[2]) * b->scale;
}

extern "C" size_t ref_bullet_overlap_sphere(ref_bullet *b, const mq_sphere *s, uint32_t *out, size_t capacity)
{
    btSphereShape sphere(s->radius * b->scale);
    btTransform pose;
    pose.setIdentity();
    pose.setOrigin(vec(b, s->center));
    return contact(b, &sphere, pose, out, capacity);
}

// Bullet's capsule lies along local y, centred: rotate y onto b - a.
extern "C" size_t ref_bullet_overlap_capsule(ref_bullet *b, const mq_capsule *c, uint32_t *out, size_t capacity)
{
    btVector3 a = vec(b, c->a), d = vec(b, c->b) - a;
    btScalar len = d.length();
    btCapsuleShape capsule(c->radius * b->scale, len);
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
    btBoxShape shape(vec(b, half));
    shape.setMargin(0); // the box's own size, no rounded margin
    btTransform pose(rot, vec(b, center));
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
    btSphereShape sphere(s->radius * b->scale);
    btVector3 from = vec(b, s->center), to = from + btScalar(tmax) * vec(b, dir);
    btTransform a, e;
    a.setIdentity();
    e.setIdentity();
    a.setOrigin(from);
    e.setOrigin(to);
    SweepClosest cb(from, to);
    b->world->convexSweepTest(&sphere, a, e, cb);
    if (!cb.hasHit())
        return false;
    *t = cb.m_closestHitFraction * tmax; // a fraction of the sweep: the scale cancels
    *triangle = cb.triangle < 0 ? UINT32_MAX : triangle_id(cb.part, cb.triangle);
    return true;
}

extern "C" int ref_bullet_version(void)
{
    return btGetVersion();
}
