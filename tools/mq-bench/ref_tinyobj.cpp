// mq-bench obj: tinyobjloader (LoadObj with triangulation, as meshquery always
// triangulates; .mtl files are looked up but not required).
#include <cstdio>
#include <string>
#include <vector>

#include <tiny_obj_loader.h>

#include "bench_obj_refs.h"

bool ref_tinyobj_load(const char *path, size_t *triangles, char *err, size_t err_size)
{
    tinyobj::attrib_t attrib;
    std::vector<tinyobj::shape_t> shapes;
    std::vector<tinyobj::material_t> materials;
    std::string warn, error;
    bool ok = tinyobj::LoadObj(&attrib, &shapes, &materials, &warn, &error, path, nullptr, true);
    if (!ok) {
        std::snprintf(err, err_size, "%s", error.c_str());
        return false;
    }
    size_t n = 0;
    for (const auto &s : shapes)
        n += s.mesh.num_face_vertices.size();
    *triangles = n;
    return true;
}
