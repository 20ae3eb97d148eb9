/* Helpers for the whole test suite: a seeded RNG and the test meshes, which
 * live in the repository's data/ folder (data/SOURCES.md lists them).
 * Include after <stdarg.h>, <stddef.h>, <setjmp.h> and <cmocka.h> (cmocka's rule). */
#ifndef MQ_TEST_SUPPORT_H
#define MQ_TEST_SUPPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <meshquery/mesh.h>

/* Small deterministic RNG (splitmix64 seeding + xoshiro128**-style output). */
typedef struct mq_test_rng {
    uint64_t state;
} mq_test_rng;

void mq_test_rng_seed(mq_test_rng *rng, uint64_t seed);
uint64_t mq_test_rng_u64(mq_test_rng *rng);
/* Uniform double in [0, 1). */
double mq_test_rng_unit(mq_test_rng *rng);
/* Uniform double in [lo, hi). */
double mq_test_rng_range(mq_test_rng *rng, double lo, double hi);
/* Integer in [-range, range] (range < 2^62; uniform but for the modulo's bias). */
int64_t mq_test_rng_int(mq_test_rng *rng, int64_t range);
/* Uniform random unit vector. */
void mq_test_rng_unit_vector(mq_test_rng *rng, double out[3]);
/* Uniform random rotation as a unit quaternion w, x, y, z (the library's order). */
void mq_test_rng_quat(mq_test_rng *rng, double out[4]);

/* Full path of a file in the repository's data/ folder (e.g. "stanford-bunny.obj"),
 * in a static buffer per call slot (4 slots, rotating). */
const char *mq_test_data_file(const char *name);
/* The same path, for a file the test needs: a missing or unreadable file fails
 * the running test (cmocka fail_msg) with the path in the message. */
const char *mq_test_data_mesh(const char *name);
/* data/<name> loaded with the library's OBJ reader (default options); a missing
 * file or a load error fails the running test with the reader's message. */
mq_mesh *mq_test_load_mesh(const char *name);
/* True when the file exists and is readable. */
bool mq_test_file_exists(const char *path);

/* Seed for randomized tests: MQ_TEST_SEED from the environment, or `fallback`. */
uint64_t mq_test_seed(uint64_t fallback);

#endif
