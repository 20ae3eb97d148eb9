// FCL 0.7's fcl::Convex against a mesh, behind ref_convex.h (see there).
#include "ref_convex.h"

#include <algorithm>
#include <limits>
#include <memory>
#include <vector>

#include <fcl/geometry/bvh/BVH_model.h>
#include <fcl/geometry/shape/convex.h>
#include <fcl/math/bv/OBB.h>
#include <fcl/math/bv/OBBRSS.h>
#include <fcl/narrowphase/collision.h>
#include <fcl/narrowphase/collision_object.h>

struct ref_fcl_cv {
    std::shared_ptr<fcl::CollisionGeometryd> model;
    fcl::CollisionObjectd *object = nullptr;
    std::vector<uint32_t> found;
};

struct ref_fcl_cv_shape {
    fcl::CollisionObjectd *object = nullptr;
};

template <typename BV>
static std::shared_ptr<fcl::CollisionGeometryd> build(const std::vector<fcl::Vector3d> &v,
                                                      const std::vector<fcl::Triangle> &t)
{
    auto m = std::make_shared<fcl::BVHModel<BV>>();
    m->beginModel(static_cast<int>(t.size()), static_cast<int>(v.size()));
    m->addSubModel(v, t);
    m->endModel();
    return m;
}

extern "C" ref_fcl_cv *ref_fcl_cv_create(const float *positions, size_t vertex_count, const uint32_t *indices,
                                         size_t triangle_count, bool obb)
{
    std::vector<fcl::Vector3d> v(vertex_count);
    std::vector<fcl::Triangle> t(triangle_count);
    for (size_t i = 0; i < vertex_count; i++)
        v[i] = fcl::Vector3d(positions[3 * i], positions[3 * i + 1], positions[3 * i + 2]);
    for (size_t i = 0; i < triangle_count; i++)
        t[i] = fcl::Triangle(indices[3 * i], indices[3 * i + 1], indices[3 * i + 2]);
    auto *f = new ref_fcl_cv;
    f->model = obb ? build<fcl::OBBd>(v, t) : build<fcl::OBBRSSd>(v, t);
    f->object = new fcl::CollisionObjectd(f->model);
    return f;
}

extern "C" void ref_fcl_cv_destroy(ref_fcl_cv *f)
{
    if (!f)
        return;
    delete f->object;
    delete f;
}

extern "C" ref_fcl_cv_shape *ref_fcl_cv_shape_create(const float *vertices, size_t vertex_count, const uint32_t *tris,
                                                     size_t tri_count)
{
    auto v = std::make_shared<std::vector<fcl::Vector3d>>(vertex_count);
    for (size_t i = 0; i < vertex_count; i++)
        (*v)[i] = fcl::Vector3d(vertices[3 * i], vertices[3 * i + 1], vertices[3 * i + 2]);
    auto faces = std::make_shared<std::vector<int>>();
    faces->reserve(4 * tri_count);
    for (size_t i = 0; i < tri_count; i++) {
        faces->push_back(3);
        for (int k = 0; k < 3; k++)
            faces->push_back(static_cast<int>(tris[3 * i + k]));
    }
    auto convex = std::make_shared<fcl::Convexd>(v, static_cast<int>(tri_count), faces);
    auto *s = new ref_fcl_cv_shape;
    s->object = new fcl::CollisionObjectd(convex, fcl::Transform3d::Identity());
    return s;
}

extern "C" void ref_fcl_cv_shape_destroy(ref_fcl_cv_shape *s)
{
    if (!s)
        return;
    delete s->object;
    delete s;
}

extern "C" size_t ref_fcl_cv_overlap(ref_fcl_cv *f, const ref_fcl_cv_shape *s, uint32_t *out, size_t capacity)
{
    fcl::CollisionRequestd request(std::numeric_limits<size_t>::max(), false);
    fcl::CollisionResultd result;
    fcl::collide(f->object, s->object, request, result);
    size_t n = result.numContacts();
    f->found.clear();
    for (size_t i = 0; i < n; i++)
        f->found.push_back(static_cast<uint32_t>(result.getContact(i).b1));
    std::sort(f->found.begin(), f->found.end());
    f->found.erase(std::unique(f->found.begin(), f->found.end()), f->found.end());
    for (size_t i = 0; i < f->found.size() && i < capacity; i++)
        out[i] = f->found[i];
    return f->found.size();
}
