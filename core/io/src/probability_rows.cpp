// See probability_rows.hpp. Written over GCC's generic vectors of eight lanes (eight partial
// sums, minima and maxima, combined at the end), so the loops vectorise the same way whatever
// the optimiser decides; GCC compiles each function for AVX-512, AVX2 and baseline x86-64 and
// picks one at load time (target_clones). A NaN anywhere makes the sum NaN, which is how the
// branch-free pass notices it.
#include "probability_rows.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace alibi::detail {
namespace {

constexpr std::size_t kLanes = 8;
using Doubles = double __attribute__((vector_size(kLanes * sizeof(double))));
using Floats = float __attribute__((vector_size(kLanes * sizeof(float))));

// Running sum, minimum and maximum, lane by lane. Vectors pass by reference: by value their
// ABI would differ between the instruction sets.
struct Lanes {
    Doubles sum{};
    Doubles lo = Doubles{} + std::numeric_limits<double>::infinity();
    Doubles hi = Doubles{} - std::numeric_limits<double>::infinity();
    void add(const Doubles& v) {
        sum += v;
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
    }
};

struct Scalars {
    double sum = 0;
    double lo = std::numeric_limits<double>::infinity();
    double hi = -std::numeric_limits<double>::infinity();
    void add(double v) {
        sum += v;
        lo = std::min(lo, v);
        hi = std::max(hi, v);
    }
};

RowCheck finish(const Lanes& lanes, const Scalars& tail, double tolerance) {
    const Doubles& s = lanes.sum;
    Scalars all;
    all.sum = ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7])) + tail.sum;
    all.lo = tail.lo;
    all.hi = tail.hi;
    for (std::size_t lane = 0; lane < kLanes; ++lane) {
        all.lo = std::min(all.lo, lanes.lo[lane]);
        all.hi = std::max(all.hi, lanes.hi[lane]);
    }
    RowCheck check;
    check.sum = all.sum;
    check.outside = std::isnan(all.sum) || all.lo < -tolerance || all.hi > 1 + tolerance;
    return check;
}

}  // namespace

#if defined(__x86_64__) && !defined(__clang__)
#define ALIBI_PER_ISA __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define ALIBI_PER_ISA
#endif

ALIBI_PER_ISA RowCheck widenCheckF32(const std::byte* in, double* out, std::size_t n, double tolerance) {
    Lanes lanes;
    Scalars tail;
    std::size_t k = 0;
    for (; k + kLanes <= n; k += kLanes) {
        Floats f;
        std::memcpy(&f, in + k * sizeof(float), sizeof f);  // safetensors data need not be aligned
        const Doubles v = __builtin_convertvector(f, Doubles);
        std::memcpy(out + k, &v, sizeof v);
        lanes.add(v);
    }
    for (; k < n; ++k) {
        float f;
        std::memcpy(&f, in + k * sizeof(float), sizeof f);
        out[k] = f;
        tail.add(out[k]);
    }
    return finish(lanes, tail, tolerance);
}

ALIBI_PER_ISA RowCheck checkRow(const double* values, std::size_t n, double tolerance) {
    Lanes lanes;
    Scalars tail;
    std::size_t k = 0;
    for (; k + kLanes <= n; k += kLanes) {
        Doubles v;
        std::memcpy(&v, values + k, sizeof v);
        lanes.add(v);
    }
    for (; k < n; ++k) tail.add(values[k]);
    return finish(lanes, tail, tolerance);
}

ALIBI_PER_ISA void normaliseRow(double* values, std::size_t n, double sum) {
    // One division, then products: a division per element would cost as much as the rest of
    // the pass, and the results differ from v / sum by at most an ulp.
    const double scale = 1 / sum;
    for (std::size_t k = 0; k < n; ++k) values[k] = (values[k] > 0 ? values[k] : 0.0) * scale;
}

}  // namespace alibi::detail
