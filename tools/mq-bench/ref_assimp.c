/* mq-bench obj: Assimp's OBJ importer through its C API (aiImportFile with
 * triangulation, as meshquery always triangulates). */
#include <assimp/cimport.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <stdio.h>

#include "bench_obj_refs.h"

bool ref_assimp_load(const char *path, size_t *triangles, char *err, size_t err_size)
{
    const struct aiScene *scene = aiImportFile(path, aiProcess_Triangulate);
    if (!scene) {
        snprintf(err, err_size, "%s", aiGetErrorString());
        return false;
    }
    size_t n = 0;
    for (unsigned m = 0; m < scene->mNumMeshes; m++)
        n += scene->mMeshes[m]->mNumFaces;
    *triangles = n;
    aiReleaseImport(scene);
    return true;
}
