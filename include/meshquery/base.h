/**
 * @file
 * meshquery/base.h — export macro, version, status codes, diagnostics and the
 * allocator hook shared by every part of the library.
 *
 * Synopsis
 *   MQ_API                       export macro on every public function
 *   MQ_VERSION_MAJOR/MINOR/PATCH compile-time version
 *   mq_version()                 run-time version string, e.g. "0.1.0"
 *   mq_status                    result of every fallible operation
 *   mq_status_string()           a short English name for a status
 *   mq_isa_in_use()              the instruction set the query kernels run at
 *   mq_diag                      optional human-readable detail (message, path, line, column)
 *   mq_allocator                 optional user allocation hook (alloc/free with size + alignment)
 *
 * Error model: operations that can fail (loading, building, saving) return an
 * mq_status and, when the caller passes an mq_diag, describe the failure there.
 * The library never prints, aborts or exits. Queries on a built object cannot
 * fail; invalid query inputs (NaN, negative radii, ...) give the documented
 * "no hit / no overlap" answer.
 *
 * Thread safety: everything here is thread-safe (mq_version and
 * mq_status_string return static strings; an mq_diag belongs to the call it is
 * passed to). Allocator hooks may be called from several threads at once when
 * objects are built on several threads.
 *
 * ABI: the version macros say which header the caller was compiled against,
 * mq_version() which library is loaded; see docs/abi.md.
 */
#ifndef MESHQUERY_BASE_H
#define MESHQUERY_BASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** @def MQ_EXTERN_C
 *  `extern "C"` when the header is compiled as C++, empty in C (used by MQ_API). */
#ifdef __cplusplus
#define MQ_EXTERN_C extern "C"
#else
#define MQ_EXTERN_C
#endif

/** @def MQ_API
 *  Marks every public function: exported from the shared library (default
 *  visibility; everything else is hidden), dllexport/dllimport on Windows when
 *  MQ_SHARED is defined (the meshquery_shared target defines it for consumers). */
#if defined(_WIN32) && defined(MQ_SHARED)
#if defined(MQ_BUILDING_LIBRARY)
#define MQ_API MQ_EXTERN_C __declspec(dllexport)
#else
#define MQ_API MQ_EXTERN_C __declspec(dllimport)
#endif
#elif defined(__GNUC__)
#define MQ_API MQ_EXTERN_C __attribute__((visibility("default")))
#else
#define MQ_API MQ_EXTERN_C
#endif

/** Major version of these headers: changes when the ABI or API breaks (from 1.0 on). */
#define MQ_VERSION_MAJOR 0
/** Minor version: new functions or fields; before 1.0 a minor release may also break the ABI. */
#define MQ_VERSION_MINOR 1
/** Patch version: fixes only, same API and ABI. */
#define MQ_VERSION_PATCH 0

/** Returns the library's version as "MAJOR.MINOR.PATCH" (static storage; thread-safe). */
MQ_API const char *mq_version(void);

/** Result of every operation that can fail. */
typedef enum mq_status {
    MQ_OK = 0,                /**< success */
    MQ_ERR_INVALID_ARG = 1,   /**< a NULL pointer where one is required, a bad option, ... */
    MQ_ERR_OUT_OF_MEMORY = 2, /**< an allocation failed; nothing was leaked */
    MQ_ERR_IO = 3,            /**< a file could not be opened, read or written */
    MQ_ERR_PARSE = 4,         /**< malformed input; mq_diag says where and what was expected */
    MQ_ERR_LIMIT = 5,         /**< input exceeds a documented limit (counts, file size, depth) */
    MQ_ERR_UNSUPPORTED = 6,   /**< valid input the library does not handle (e.g. UTF-16 text) */
    MQ_ERR_CORRUPT = 7        /**< a saved file failed its version, size or checksum check */
} mq_status;

/** A short English name for a status, e.g. "out of memory" (static storage; never NULL). */
MQ_API const char *mq_status_string(mq_status status);

/**
 * The instruction set the library's query kernels run at in this process:
 * "scalar", "sse2", "avx2" or "avx512" (static storage; thread-safe). The
 * level is chosen once, at the first query: the best that both this CPU and
 * this build have, or the one the environment variable MQ_ISA names (a level
 * that is not here falls back to the best one below it). Every level gives
 * bit-identical answers; only the speed differs. Calling this function makes
 * the choice if no query has yet.
 */
MQ_API const char *mq_isa_in_use(void);

/**
 * Detail about a failure, filled by functions that take an `mq_diag *` (which may
 * be NULL). On success it is left with an empty message. `line` and `column` are
 * 1-based; 0 means "not applicable". `path` is the file involved, truncated to fit.
 */
typedef struct mq_diag {
    char message[256]; /**< what went wrong and, for parse errors, what was expected */
    char path[256];    /**< the file involved, or "" */
    uint64_t line;     /**< 1-based line of the error, 0 if none */
    uint32_t column;   /**< 1-based column (in bytes) of the error, 0 if none */
} mq_diag;

/**
 * User allocation hook. `alloc` returns `size` bytes aligned to `align` (a power
 * of two, at most 4096) or NULL; `free` releases a block with the size it was
 * allocated with. Both receive `user`. A NULL `mq_allocator *` anywhere in the API
 * means the default (the C library's aligned allocation; on Linux a BVH's node
 * and leaf arena of 8 MiB or more is also advised for transparent huge pages,
 * `madvise(MADV_HUGEPAGE)`; a hook's blocks never are). Hooks must be
 * thread-safe if objects are built on several threads at once.
 */
typedef struct mq_allocator {
    void *(*alloc)(size_t size, size_t align, void *user); /**< returns `size` bytes aligned to `align`, or NULL */
    void (*free)(void *ptr, size_t size, void *user);      /**< releases a block from `alloc`, given its size */
    void *user;                                            /**< passed unchanged to both hooks */
} mq_allocator;

#endif /* MESHQUERY_BASE_H */
