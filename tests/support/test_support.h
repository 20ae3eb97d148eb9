/* Shared helpers for the test suite: a seeded RNG and paths to test data.
 * Include after <stdarg.h>, <stddef.h>, <setjmp.h> and <cmocka.h> (cmocka's rule). */
#ifndef MQ_TEST_SUPPORT_H
#define MQ_TEST_SUPPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
/* Uniform random unit vector. */
void mq_test_rng_unit_vector(mq_test_rng *rng, double out[3]);
/* Uniform random rotation as a unit quaternion (x, y, z, w). */
void mq_test_rng_quat(mq_test_rng *rng, double out[4]);

/* Full path of a mesh in ../shared/data (e.g. "stanford-bunny.obj"), in a static buffer
 * per call slot (4 slots, rotating). */
const char *mq_test_shared_mesh(const char *name);
/* Full path of a file in the repository's data/ folder. */
const char *mq_test_data_file(const char *name);
/* True when the file exists and is readable. */
bool mq_test_file_exists(const char *path);

/* Seed for randomized tests: MQ_TEST_SEED from the environment, or `fallback`. */
uint64_t mq_test_seed(uint64_t fallback);

#endif
