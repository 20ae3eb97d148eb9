/* Reference OBJ loaders for mq-bench obj: each loads a file into its own data
 * structures, triangulated, and reports the triangle count; false with a reason
 * on failure. Compiled only when the library was found (MQ_HAVE_TINYOBJ,
 * MQ_HAVE_ASSIMP). */
#ifndef MQ_BENCH_OBJ_REFS_H
#define MQ_BENCH_OBJ_REFS_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

bool ref_tinyobj_load(const char *path, size_t *triangles, char *err, size_t err_size);
bool ref_assimp_load(const char *path, size_t *triangles, char *err, size_t err_size);

#ifdef __cplusplus
}
#endif

#endif
