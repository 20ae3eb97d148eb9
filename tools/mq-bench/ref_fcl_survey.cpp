// FCL 0.7 behind ref_fcl_survey.h (see there): double precision, the mesh's
// floats widened, FCL's default split rule for every volume.
#include "ref_fcl_survey.h"

#include <chrono>
#include <cmath>
#include <limits>
#include <memory>
#include <vector>

#include <fcl/geometry/bvh/BVH_model.h>
#include <fcl/geometry/shape/box.h>
#include <fcl/geometry/shape/capsule.h>
#include <fcl/geometry/shape/sphere.h>
#include <fcl/math/bv/OBB.h>
#include <fcl/math/bv/OBBRSS.h>
#include <fcl/math/bv/kDOP.h>
#include <fcl/math/bv/kIOS.h>
#include <fcl/narrowphase/collision.h>
#include <fcl/narrowphase/collision_object.h>
#include <fcl/narrowphase/distance.h>

struct ref_fcls {
    ref_fcls_bv bv;
    std::shared_ptr<fcl::CollisionGeometryd> model;
    fcl::CollisionObjectd *object = nullptr;
    fcl::CollisionObjectd *moved = nullptr;
    double bytes = 0.0;
};

template <typename BV>
static std::shared_ptr<fcl::CollisionGeometryd> build(const std::vector<fcl::Vector3d> &v,
                                                      const std::vector<fcl::Triangle> &t, double *ms, double *bytes)
{
    auto start = std::chrono::steady_clock::now();
    auto m = std::make_shared<fcl::BVHModel<BV>>();
    m->beginModel(static_cast<int>(t.size()), static_cast<int>(v.size()));
    m->addSubModel(v, t);
    m->endModel();
    *ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    // what memUsage counts (it returns no total in 0.7): nodes, vertices, triangles, primitive indices
    *bytes = static_cast<double>(m->getNumBVs()) * sizeof(fcl::BVNode<BV>) +
             static_cast<double>(m->num_vertices) * sizeof(fcl::Vector3d) +
             static_cast<double>(m->num_tris) * (sizeof(fcl::Triangle) + sizeof(unsigned int));
    return m;
}

extern "C" const char *ref_fcls_name(ref_fcls_bv bv)
{
    switch (bv) {
    case REF_FCLS_KDOP18:
        return "fcl-kdop18";
    case REF_FCLS_KIOS:
        return "fcl-kios";
    case REF_FCLS_OBB:
        return "fcl-obb";
    default:
        return "fcl-obbrss";
    }
}

extern "C" ref_fcls *ref_fcls_create(const float *positions, size_t vertex_count, const uint32_t *indices,
                                     size_t triangle_count, ref_fcls_bv bv, double *build_ms)
{
    std::vector<fcl::Vector3d> v(vertex_count);
    std::vector<fcl::Triangle> t(triangle_count);
    for (size_t i = 0; i < vertex_count; i++)
        v[i] = fcl::Vector3d(positions[3 * i], positions[3 * i + 1], positions[3 * i + 2]);
    for (size_t i = 0; i < triangle_count; i++)
        t[i] = fcl::Triangle(indices[3 * i], indices[3 * i + 1], indices[3 * i + 2]);
    auto *f = new ref_fcls;
    f->bv = bv;
    double ms = 0.0;
    switch (bv) {
    case REF_FCLS_KDOP18:
        f->model = build<fcl::KDOP<double, 18>>(v, t, &ms, &f->bytes);
        break;
    case REF_FCLS_KIOS:
        f->model = build<fcl::kIOSd>(v, t, &ms, &f->bytes);
        break;
    case REF_FCLS_OBB:
        f->model = build<fcl::OBBd>(v, t, &ms, &f->bytes);
        break;
    default:
        f->model = build<fcl::OBBRSSd>(v, t, &ms, &f->bytes);
        break;
    }
    if (build_ms)
        *build_ms = ms;
    f->object = new fcl::CollisionObjectd(f->model);
    f->moved = new fcl::CollisionObjectd(f->model);
    return f;
}

extern "C" void ref_fcls_destroy(ref_fcls *f)
{
    if (!f)
        return;
    delete f->object;
    delete f->moved;
    delete f;
}

extern "C" double ref_fcls_bytes(const ref_fcls *f)
{
    return f->bytes;
}

static fcl::Vector3d vec(const float *p)
{
    return fcl::Vector3d(p[0], p[1], p[2]);
}

extern "C" size_t ref_fcls_overlap(ref_fcls *f, const mq_shape *s)
{
    std::shared_ptr<fcl::CollisionGeometryd> g;
    fcl::Transform3d pose = fcl::Transform3d::Identity();
    switch (s->kind) {
    case MQ_SHAPE_SPHERE:
        g = std::make_shared<fcl::Sphered>(s->u.sphere.radius);
        pose.translation() = vec(s->u.sphere.center);
        break;
    case MQ_SHAPE_CAPSULE: { // FCL's capsule is centred at the origin along z
        fcl::Vector3d a = vec(s->u.capsule.a), b = vec(s->u.capsule.b), d = b - a;
        double len = d.norm();
        if (len > 0.0)
            pose.linear() = fcl::Quaterniond::FromTwoVectors(fcl::Vector3d::UnitZ(), d / len).toRotationMatrix();
        pose.translation() = 0.5 * (a + b);
        g = std::make_shared<fcl::Capsuled>(s->u.capsule.radius, len);
        break;
    }
    case MQ_SHAPE_OBB:
        for (int i = 0; i < 3; i++)
            pose.linear().col(i) = vec(s->u.obb.axes[i]);
        pose.translation() = vec(s->u.obb.center);
        g = std::make_shared<fcl::Boxd>(2.0 * s->u.obb.half[0], 2.0 * s->u.obb.half[1], 2.0 * s->u.obb.half[2]);
        break;
    case MQ_SHAPE_AABB: {
        fcl::Vector3d lo = vec(s->u.aabb.min), hi = vec(s->u.aabb.max);
        pose.translation() = 0.5 * (lo + hi);
        g = std::make_shared<fcl::Boxd>(hi - lo);
        break;
    }
    default:
        return 0;
    }
    fcl::CollisionObjectd object(g, pose);
    fcl::CollisionRequestd request(std::numeric_limits<size_t>::max(), false);
    fcl::CollisionResultd result;
    fcl::collide(f->object, &object, request, result);
    return result.numContacts();
}

extern "C" bool ref_fcls_has_distance(ref_fcls_bv bv)
{
    return bv == REF_FCLS_KIOS || bv == REF_FCLS_OBBRSS;
}

extern "C" double ref_fcls_point_distance(ref_fcls *f, const float p[3])
{
    fcl::Transform3d pose = fcl::Transform3d::Identity();
    pose.translation() = vec(p);
    fcl::CollisionObjectd point(std::make_shared<fcl::Sphered>(0.0), pose);
    fcl::DistanceRequestd request;
    fcl::DistanceResultd result;
    fcl::distance(f->object, &point, request, result);
    return result.min_distance;
}

extern "C" size_t ref_fcls_collide(ref_fcls *a, ref_fcls *b, const mq_rigid *xf, bool all)
{
    const float *q = xf->rotation; // w, x, y, z
    fcl::Transform3d pose = fcl::Transform3d::Identity();
    pose.linear() = fcl::Quaterniond(q[0], q[1], q[2], q[3]).normalized().toRotationMatrix();
    pose.translation() = vec(xf->translation);
    b->moved->setTransform(pose);
    b->moved->computeAABB();
    fcl::CollisionRequestd request(all ? std::numeric_limits<size_t>::max() : 1, false);
    fcl::CollisionResultd result;
    fcl::collide(a->object, b->moved, request, result);
    return all ? result.numContacts() : (result.numContacts() > 0);
}
