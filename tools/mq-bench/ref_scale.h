// The world scale the C++ reference adapters (ref_bullet.cpp, ref_fcl.cpp)
// give a mesh: the power of two (exact in float and double) that makes the
// mean triangle edge about half a unit (see "scale" in ref_bullet.h).
#ifndef MQ_BENCH_REF_SCALE_H
#define MQ_BENCH_REF_SCALE_H

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>

static inline double ref_automatic_scale(const float *p, const uint32_t *idx, size_t triangles)
{
    double sum = 0.0;
    for (size_t t = 0; t < triangles; t++)
        for (int k = 0; k < 3; k++) {
            const float *a = p + 3 * size_t(idx[3 * t + k]), *b = p + 3 * size_t(idx[3 * t + (k + 1) % 3]);
            double d2 = 0.0;
            for (int c = 0; c < 3; c++)
                d2 += (double(a[c]) - b[c]) * (double(a[c]) - b[c]);
            sum += std::sqrt(d2);
        }
    double mean = sum / double(3 * triangles);
    if (!(mean > 0.0) || !std::isfinite(mean))
        return 1.0;
    return std::exp2(std::min(40.0, std::max(-40.0, std::round(std::log2(0.5 / mean)))));
}

#endif
