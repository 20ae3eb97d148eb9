#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "test_support.h"

#include <meshquery/obj.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

void mq_test_rng_seed(mq_test_rng *rng, uint64_t seed)
{
    rng->state = seed ^ 0x9E3779B97F4A7C15ull;
}

uint64_t mq_test_rng_u64(mq_test_rng *rng)
{
    /* splitmix64: statistically solid and trivially reproducible */
    uint64_t z = (rng->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

double mq_test_rng_unit(mq_test_rng *rng)
{
    return (double)(mq_test_rng_u64(rng) >> 11) * 0x1.0p-53;
}

double mq_test_rng_range(mq_test_rng *rng, double lo, double hi)
{
    return lo + (hi - lo) * mq_test_rng_unit(rng);
}

int64_t mq_test_rng_int(mq_test_rng *rng, int64_t range)
{
    return (int64_t)(mq_test_rng_u64(rng) % (uint64_t)(2 * range + 1)) - range;
}

void mq_test_rng_unit_vector(mq_test_rng *rng, double out[3])
{
    double z = mq_test_rng_range(rng, -1.0, 1.0);
    double phi = mq_test_rng_range(rng, 0.0, 6.283185307179586);
    double r = sqrt(fmax(0.0, 1.0 - z * z));
    out[0] = r * cos(phi);
    out[1] = r * sin(phi);
    out[2] = z;
}

void mq_test_rng_quat(mq_test_rng *rng, double out[4])
{
    /* Shoemake's uniform random rotation */
    double u1 = mq_test_rng_unit(rng), u2 = mq_test_rng_unit(rng), u3 = mq_test_rng_unit(rng);
    double a = sqrt(1.0 - u1), b = sqrt(u1);
    out[0] = b * cos(6.283185307179586 * u3); /* w, x, y, z */
    out[1] = a * sin(6.283185307179586 * u2);
    out[2] = a * cos(6.283185307179586 * u2);
    out[3] = b * sin(6.283185307179586 * u3);
}

static const char *path_in(const char *dir, const char *name)
{
    static char slots[4][1024];
    static int next;
    char *buf = slots[next++ & 3];
    snprintf(buf, sizeof slots[0], "%s/%s", dir, name);
    return buf;
}

const char *mq_test_data_file(const char *name)
{
    return path_in(MQ_DATA_DIR, name);
}

const char *mq_test_data_mesh(const char *name)
{
    const char *path = mq_test_data_file(name);
    if (!mq_test_file_exists(path))
        fail_msg("test mesh %s is missing (it belongs in the repository's data/ folder)", path);
    return path;
}

mq_mesh *mq_test_load_mesh(const char *name)
{
    const char *path = mq_test_data_mesh(name);
    mq_mesh *mesh = NULL;
    mq_diag d;
    if (mq_obj_load(path, NULL, &mesh, NULL, &d) != MQ_OK)
        fail_msg("cannot load test mesh %s:%llu:%u: %s", path, (unsigned long long)d.line, d.column, d.message);
    return mesh;
}

bool mq_test_file_exists(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    fclose(f);
    return true;
}

uint64_t mq_test_seed(uint64_t fallback)
{
    const char *s = getenv("MQ_TEST_SEED");
    return s && *s ? strtoull(s, NULL, 0) : fallback;
}
