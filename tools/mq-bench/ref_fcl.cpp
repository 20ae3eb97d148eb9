// FCL 0.7 behind the C interface of ref_fcl.h (see there). Double precision,
// as FCL is used in practice; the triangles are the mesh's floats widened.
#include "ref_fcl.h"
#include "ref_scale.h"

#include <meshquery/convex.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <memory>
#include <vector>

#include <fcl/config.h>
#include <fcl/geometry/bvh/BVH_model.h>
#include <fcl/geometry/shape/box.h>
#include <fcl/geometry/shape/capsule.h>
#include <fcl/geometry/shape/convex.h>
#include <fcl/geometry/shape/sphere.h>
#include <fcl/math/bv/OBB.h>
#include <fcl/math/bv/OBBRSS.h>
#include <fcl/math/bv/RSS.h>
#include <fcl/broadphase/broadphase_dynamic_AABB_tree.h>
#include <fcl/narrowphase/distance.h>
#include <fcl/narrowphase/collision.h>
#include <fcl/narrowphase/collision_object.h>

struct ref_fcl {
    std::shared_ptr<fcl::CollisionGeometryd> model;
    fcl::CollisionObjectd *object = nullptr; // the mesh at the identity
    fcl::CollisionObjectd *moved = nullptr;  // the mesh as the placed "b" of ref_fcl_collide
    double scale = 1.0;                      // FCL's world over the caller's (ref_fcl_create_scaled)
};

// The build proper (what mq-bench compares with mq_obbtree_build): beginModel,
// addSubModel, endModel, timed into *ms. The CollisionObject made afterwards
// computes the model's local AABB (a pass over the vertices) outside the timing.
template <typename BV>
static std::shared_ptr<fcl::CollisionGeometryd> build_model(const std::vector<fcl::Vector3d> &v,
                                                            const std::vector<fcl::Triangle> &t, double *ms)
{
    auto start = std::chrono::steady_clock::now();
    auto m = std::make_shared<fcl::BVHModel<BV>>();
    m->beginModel(static_cast<int>(t.size()), static_cast<int>(v.size()));
    m->addSubModel(v, t);
    m->endModel();
    *ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return m;
}

extern "C" ref_fcl *ref_fcl_create(const float *positions, size_t vertex_count, const uint32_t *indices,
                                   size_t triangle_count, ref_fcl_bv bv, double *build_ms)
{
    return ref_fcl_create_scaled(positions, vertex_count, indices, triangle_count, bv, 1.0, build_ms);
}

extern "C" ref_fcl *ref_fcl_create_scaled(const float *positions, size_t vertex_count, const uint32_t *indices,
                                          size_t triangle_count, ref_fcl_bv bv, double scale, double *build_ms)
{
    if (scale == 0.0)
        scale = ref_automatic_scale(positions, indices, triangle_count);
    std::vector<fcl::Vector3d> v(vertex_count);
    std::vector<fcl::Triangle> t(triangle_count);
    for (size_t i = 0; i < vertex_count; i++)
        v[i] = scale * fcl::Vector3d(positions[3 * i], positions[3 * i + 1], positions[3 * i + 2]);
    for (size_t i = 0; i < triangle_count; i++)
        t[i] = fcl::Triangle(indices[3 * i], indices[3 * i + 1], indices[3 * i + 2]);
    auto *f = new ref_fcl;
    f->scale = scale;
    double ms;
    f->model = bv == REF_FCL_OBB      ? build_model<fcl::OBBd>(v, t, &ms)
               : bv == REF_FCL_OBBRSS ? build_model<fcl::OBBRSSd>(v, t, &ms)
                                      : build_model<fcl::RSSd>(v, t, &ms);
    if (build_ms)
        *build_ms = ms;
    f->object = new fcl::CollisionObjectd(f->model); // computes the local AABB
    f->moved = new fcl::CollisionObjectd(f->model);
    return f;
}

extern "C" double ref_fcl_scale(const ref_fcl *f)
{
    return f->scale;
}

extern "C" void ref_fcl_destroy(ref_fcl *f)
{
    if (!f)
        return;
    delete f->object;
    delete f->moved;
    delete f;
}

// fcl::collide of the mesh with one shape object; triangle ids from the contacts.
static size_t collide_shape(ref_fcl *f, const std::shared_ptr<fcl::CollisionGeometryd> &shape,
                            const fcl::Transform3d &pose, uint32_t *out, size_t capacity)
{
    fcl::CollisionObjectd object(shape, pose);
    fcl::CollisionRequestd request(std::numeric_limits<size_t>::max(), false);
    fcl::CollisionResultd result;
    fcl::collide(f->object, &object, request, result);
    size_t n = result.numContacts();
    for (size_t i = 0; i < n && i < capacity; i++)
        out[i] = static_cast<uint32_t>(result.getContact(i).b1);
    return n;
}

static fcl::Vector3d vec(const float *p)
{
    return fcl::Vector3d(p[0], p[1], p[2]);
}

extern "C" size_t ref_fcl_overlap_sphere(ref_fcl *f, const mq_sphere *s, uint32_t *out, size_t capacity)
{
    fcl::Transform3d pose = fcl::Transform3d::Identity();
    pose.translation() = vec(s->center);
    return collide_shape(f, std::make_shared<fcl::Sphered>(s->radius), pose, out, capacity);
}

// FCL's capsule is centred at the origin along z: rotate z onto b - a.
extern "C" size_t ref_fcl_overlap_capsule(ref_fcl *f, const mq_capsule *c, uint32_t *out, size_t capacity)
{
    fcl::Vector3d a = vec(c->a), b = vec(c->b), d = b - a;
    double len = d.norm();
    fcl::Transform3d pose = fcl::Transform3d::Identity();
    if (len > 0.0)
        pose.linear() = fcl::Quaterniond::FromTwoVectors(fcl::Vector3d::UnitZ(), d / len).toRotationMatrix();
    pose.translation() = 0.5 * (a + b);
    return collide_shape(f, std::make_shared<fcl::Capsuled>(c->radius, len), pose, out, capacity);
}

extern "C" size_t ref_fcl_overlap_obb(ref_fcl *f, const mq_obb *b, uint32_t *out, size_t capacity)
{
    fcl::Transform3d pose = fcl::Transform3d::Identity();
    for (int i = 0; i < 3; i++)
        pose.linear().col(i) = vec(b->axes[i]);
    pose.translation() = vec(b->center);
    auto box = std::make_shared<fcl::Boxd>(2.0 * b->half[0], 2.0 * b->half[1], 2.0 * b->half[2]);
    return collide_shape(f, box, pose, out, capacity);
}

extern "C" size_t ref_fcl_overlap_aabb(ref_fcl *f, const mq_aabb *b, uint32_t *out, size_t capacity)
{
    fcl::Vector3d lo = vec(b->min), hi = vec(b->max);
    fcl::Transform3d pose = fcl::Transform3d::Identity();
    pose.translation() = 0.5 * (lo + hi);
    fcl::Vector3d size = hi - lo;
    auto box = std::make_shared<fcl::Boxd>(size[0], size[1], size[2]);
    return collide_shape(f, box, pose, out, capacity);
}

// The pose of a placed mesh: the normalised quaternion, the translation in FCL's world scale.
static fcl::Transform3d rigid_pose(const mq_rigid *xf, double scale)
{
    const float *q = xf->rotation; // w, x, y, z, as Eigen's constructor takes it
    fcl::Quaterniond rot(q[0], q[1], q[2], q[3]);
    rot.normalize();
    fcl::Transform3d pose = fcl::Transform3d::Identity();
    pose.linear() = rot.toRotationMatrix();
    pose.translation() = scale * vec(xf->translation);
    return pose;
}

extern "C" size_t ref_fcl_collide(ref_fcl *a, ref_fcl *b, const mq_rigid *xf, bool all, mq_tri_pair *out,
                                  size_t capacity)
{
    fcl::Transform3d pose = rigid_pose(xf, b->scale);
    // A kept object moved per query, as FCL is used: constructing one per
    // query would recompute the model's local AABB over every vertex each time.
    // Its own object, so that a and b may be the same model.
    b->moved->setTransform(pose);
    b->moved->computeAABB();
    fcl::CollisionRequestd request(all ? std::numeric_limits<size_t>::max() : 1, false);
    fcl::CollisionResultd result;
    fcl::collide(a->object, b->moved, request, result);
    size_t n = result.numContacts();
    for (size_t i = 0; i < n && i < capacity; i++)
        out[i] =
            mq_tri_pair{static_cast<uint32_t>(result.getContact(i).b1), static_cast<uint32_t>(result.getContact(i).b2)};
    return n;
}

extern "C" double ref_fcl_distance(ref_fcl *a, ref_fcl *b, const mq_rigid *b_to_a, double point_a[3], double point_b[3],
                                   uint32_t *triangle_a, uint32_t *triangle_b)
{
    b->moved->setTransform(rigid_pose(b_to_a, b->scale));
    b->moved->computeAABB();
    fcl::DistanceRequestd request(true); // nearest points
    fcl::DistanceResultd result;
    fcl::distance(a->object, b->moved, request, result);
    for (int k = 0; k < 3; k++) {
        point_a[k] = result.nearest_points[0][k] / a->scale;
        point_b[k] = result.nearest_points[1][k] / a->scale;
    }
    *triangle_a = static_cast<uint32_t>(result.b1);
    *triangle_b = static_cast<uint32_t>(result.b2);
    return result.min_distance / a->scale;
}

// A shape as an FCL geometry and pose, in FCL's world scale.
static std::shared_ptr<fcl::CollisionGeometryd> shape_geometry(const mq_shape *s, double scale, fcl::Transform3d *pose)
{
    *pose = fcl::Transform3d::Identity();
    switch (s->kind) {
    case MQ_SHAPE_SPHERE:
        pose->translation() = scale * vec(s->u.sphere.center);
        return std::make_shared<fcl::Sphered>(scale * s->u.sphere.radius);
    case MQ_SHAPE_CAPSULE: {
        fcl::Vector3d a = vec(s->u.capsule.a), b = vec(s->u.capsule.b), d = b - a;
        double len = d.norm();
        if (len > 0.0)
            pose->linear() = fcl::Quaterniond::FromTwoVectors(fcl::Vector3d::UnitZ(), d / len).toRotationMatrix();
        pose->translation() = scale * 0.5 * (a + b);
        return std::make_shared<fcl::Capsuled>(scale * s->u.capsule.radius, scale * len);
    }
    case MQ_SHAPE_OBB:
        for (int i = 0; i < 3; i++)
            pose->linear().col(i) = vec(s->u.obb.axes[i]);
        pose->translation() = scale * vec(s->u.obb.center);
        return std::make_shared<fcl::Boxd>(2.0 * scale * s->u.obb.half[0], 2.0 * scale * s->u.obb.half[1],
                                           2.0 * scale * s->u.obb.half[2]);
    default: { // MQ_SHAPE_AABB
        fcl::Vector3d lo = vec(s->u.aabb.min), hi = vec(s->u.aabb.max), size = scale * (hi - lo);
        pose->translation() = scale * 0.5 * (lo + hi);
        return std::make_shared<fcl::Boxd>(size[0], size[1], size[2]);
    }
    }
}

extern "C" double ref_fcl_shape_distance(ref_fcl *f, const mq_shape *shape, double point_mesh[3], uint32_t *triangle)
{
    fcl::Transform3d pose;
    auto geometry = shape_geometry(shape, f->scale, &pose);
    fcl::CollisionObjectd object(geometry, pose);
    fcl::DistanceRequestd request(true);
    fcl::DistanceResultd result;
    fcl::distance(f->object, &object, request, result);
    for (int k = 0; k < 3; k++)
        point_mesh[k] = result.nearest_points[0][k] / f->scale;
    *triangle = static_cast<uint32_t>(result.b1);
    return result.min_distance / f->scale;
}

struct ref_fcl_convex {
    fcl::CollisionObjectd *object = nullptr;
};

extern "C" ref_fcl_convex *ref_fcl_convex_create(const ref_fcl *f, const mq_convex *hull)
{
    size_t nv = mq_convex_vertex_count(hull), nt = mq_convex_face_count(hull);
    const float *v = mq_convex_vertices(hull);
    const uint32_t *t = mq_convex_faces(hull);
    if (!v || !t)
        return nullptr;
    auto points = std::make_shared<std::vector<fcl::Vector3d>>(nv);
    for (size_t i = 0; i < nv; i++)
        (*points)[i] = f->scale * fcl::Vector3d(v[3 * i], v[3 * i + 1], v[3 * i + 2]);
    auto faces = std::make_shared<std::vector<int>>();
    faces->reserve(4 * nt);
    for (size_t i = 0; i < nt; i++) {
        faces->push_back(3);
        for (int k = 0; k < 3; k++)
            faces->push_back(static_cast<int>(t[3 * i + k]));
    }
    auto convex = std::make_shared<fcl::Convexd>(points, static_cast<int>(nt), faces);
    auto *c = new ref_fcl_convex;
    c->object = new fcl::CollisionObjectd(convex, fcl::Transform3d::Identity());
    return c;
}

extern "C" void ref_fcl_convex_destroy(ref_fcl_convex *c)
{
    if (!c)
        return;
    delete c->object;
    delete c;
}

extern "C" double ref_fcl_convex_distance(ref_fcl *f, const ref_fcl_convex *c, double point_mesh[3], uint32_t *triangle)
{
    fcl::DistanceRequestd request(true);
    fcl::DistanceResultd result;
    fcl::distance(f->object, c->object, request, result);
    for (int k = 0; k < 3; k++)
        point_mesh[k] = result.nearest_points[0][k] / f->scale;
    *triangle = static_cast<uint32_t>(result.b1);
    return result.min_distance / f->scale;
}

struct ref_fcl_scene {
    std::vector<std::unique_ptr<fcl::CollisionObjectd>> objects; // the placed meshes
    std::vector<std::unique_ptr<fcl::CollisionObjectd>> proxies; // clearance > 0: grown world boxes
    std::unique_ptr<fcl::DynamicAABBTreeCollisionManagerd> manager;
    double clearance = 0;
    std::vector<ref_fcl_clash> found;
};

extern "C" ref_fcl_scene *ref_fcl_scene_create(ref_fcl *const *models, const double *xf, size_t count, double clearance,
                                               double *setup_ms)
{
    auto *s = new ref_fcl_scene;
    s->clearance = clearance;
    for (size_t i = 0; i < count; i++) {
        const double *m = xf + 12 * i;
        fcl::Transform3d pose = fcl::Transform3d::Identity();
        for (int r = 0; r < 3; r++) {
            for (int c = 0; c < 3; c++)
                pose.linear()(r, c) = m[4 * r + c];
            pose.translation()[r] = m[4 * r + 3];
        }
        auto object = std::make_unique<fcl::CollisionObjectd>(models[i]->model, pose);
        object->setUserData(reinterpret_cast<void *>(i));
        if (clearance > 0) {
            const fcl::AABBd &box = object->getAABB();
            fcl::Vector3d size = box.max_ - box.min_ + fcl::Vector3d::Constant(2 * clearance);
            fcl::Transform3d at = fcl::Transform3d::Identity();
            at.translation() = box.center();
            auto proxy =
                std::make_unique<fcl::CollisionObjectd>(std::make_shared<fcl::Boxd>(size[0], size[1], size[2]), at);
            proxy->setUserData(reinterpret_cast<void *>(i));
            s->proxies.push_back(std::move(proxy));
        }
        s->objects.push_back(std::move(object));
    }
    auto start = std::chrono::steady_clock::now();
    s->manager = std::make_unique<fcl::DynamicAABBTreeCollisionManagerd>();
    auto &in = clearance > 0 ? s->proxies : s->objects;
    std::vector<fcl::CollisionObjectd *> raw;
    for (auto &o : in)
        raw.push_back(o.get());
    s->manager->registerObjects(raw);
    s->manager->setup();
    *setup_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return s;
}

// The narrowphase of one broadphase candidate: collide, then (clearance > 0) distance.
static bool clash_candidate(fcl::CollisionObjectd *o1, fcl::CollisionObjectd *o2, void *data)
{
    auto *s = static_cast<ref_fcl_scene *>(data);
    size_t i = reinterpret_cast<size_t>(o1->getUserData()), j = reinterpret_cast<size_t>(o2->getUserData());
    if (i > j)
        std::swap(i, j);
    fcl::CollisionObjectd *a = s->objects[i].get(), *b = s->objects[j].get();
    fcl::CollisionRequestd request(1, false);
    fcl::CollisionResultd result;
    fcl::collide(a, b, request, result);
    if (result.numContacts() > 0) {
        const auto &c = result.getContact(0);
        s->found.push_back({static_cast<uint32_t>(i), static_cast<uint32_t>(j), static_cast<uint32_t>(c.b1),
                            static_cast<uint32_t>(c.b2), 0.0});
        return false;
    }
    if (s->clearance > 0) {
        fcl::DistanceRequestd drequest(false);
        fcl::DistanceResultd dresult;
        fcl::distance(a, b, drequest, dresult);
        if (dresult.min_distance <= s->clearance)
            s->found.push_back({static_cast<uint32_t>(i), static_cast<uint32_t>(j), static_cast<uint32_t>(dresult.b1),
                                static_cast<uint32_t>(dresult.b2), std::max(0.0, dresult.min_distance)});
    }
    return false; // go on
}

extern "C" size_t ref_fcl_scene_clash(ref_fcl_scene *s)
{
    s->found.clear();
    s->manager->collide(s, clash_candidate);
    return s->found.size();
}

extern "C" const ref_fcl_clash *ref_fcl_scene_pairs(const ref_fcl_scene *s)
{
    return s->found.data();
}

extern "C" void ref_fcl_scene_destroy(ref_fcl_scene *s)
{
    delete s;
}

extern "C" const char *ref_fcl_version(void)
{
    return FCL_VERSION;
}
