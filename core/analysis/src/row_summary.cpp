// The fit's per-row pass (see row_summary.hpp): plain loops, and a vector path for AVX-512 and
// for AVX2 + FMA chosen once from the CPU, with SLEEF's 1-ulp vector log for the entropy.
#include "row_summary.hpp"

#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstring>

namespace alibi::detail {
namespace {

constexpr double kNinetyPercent = 0.9 - 1e-12;  // the 90%-mass distance, with room for rounding

// The smallest D with mass(d <= D) >= 0.9, walking outwards from the query.
std::int64_t distance90Walk(std::span<const double> p, std::int64_t i, bool causal) {
    const auto keys = static_cast<std::int64_t>(p.size());
    const std::int64_t lastKey = causal ? std::min(i, keys - 1) : keys - 1;
    double cumulative = 0;
    std::int64_t d90 = 0;
    const std::int64_t farthest = std::max(i, keys - 1 - i) + (i < 0 ? -i : 0);
    for (std::int64_t d = 0; d <= farthest; ++d) {
        const std::int64_t before = i - d, after = i + d;
        if (before >= 0 && before < keys && before <= lastKey) cumulative += p[static_cast<std::size_t>(before)];
        if (d > 0 && !causal && after >= 0 && after < keys) cumulative += p[static_cast<std::size_t>(after)];
        d90 = d;
        if (cumulative >= kNinetyPercent) break;
    }
    return d90;
}

}  // namespace

RowTotals summariseRowReference(std::span<const double> p, std::int64_t i, bool causal, std::span<double> profile) {
    const auto keys = static_cast<std::int64_t>(p.size());
    const std::int64_t lastKey = causal ? std::min(i, keys - 1) : keys - 1;
    RowTotals t;
    for (std::int64_t j = 0; j <= lastKey; ++j) {
        const double v = p[static_cast<std::size_t>(j)];
        t.mass += v;
        if (v <= 0) continue;
        t.entropy -= v * std::log(v);
        const std::int64_t d = i >= j ? i - j : j - i;
        t.distance += v * static_cast<double>(d);
        if (d < keys) profile[static_cast<std::size_t>(d)] += v;  // beyond K - 1 when queries outnumber keys
    }
    t.distance90 = distance90Walk(p, i, causal);
    return t;
}

}  // namespace alibi::detail

// Each instruction set's copy of the vector path is compiled for that set (a pragma around the
// include: GCC and clang inline vector code only into functions compiled for its set).
// SLEEF 3.5 declares its vector functions only when compiling for their instruction set.
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx512f"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx512f")
#endif
extern "C" __m512d Sleef_logd8_u10avx512f(__m512d);
namespace alibi::detail {
namespace {
namespace avx512 {
constexpr int kLanes = 8;
using V = double __attribute__((vector_size(64)));
constexpr V kIota{0, 1, 2, 3, 4, 5, 6, 7};
inline V reversed(V v) {
    return __builtin_shufflevector(v, v, 7, 6, 5, 4, 3, 2, 1, 0);
}
inline V logLanes(V v) {
    return Sleef_logd8_u10avx512f(v);
}
#include "row_summary_kernel.inc"
}  // namespace avx512
}  // namespace
}  // namespace alibi::detail
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,fma"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2,fma")
#endif
extern "C" __m256d Sleef_logd4_u10avx2(__m256d);
namespace alibi::detail {
namespace {
namespace avx2 {
constexpr int kLanes = 4;
using V = double __attribute__((vector_size(32)));
constexpr V kIota{0, 1, 2, 3};
inline V reversed(V v) {
    return __builtin_shufflevector(v, v, 3, 2, 1, 0);
}
inline V logLanes(V v) {
    return Sleef_logd4_u10avx2(v);
}
#include "row_summary_kernel.inc"
}  // namespace avx2
}  // namespace
}  // namespace alibi::detail
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

namespace alibi::detail {
namespace {

using SummariseFn = RowTotals (*)(std::span<const double>, std::int64_t, bool, std::span<double>);

SummariseFn chooseSummarise() {
    if (__builtin_cpu_supports("avx512f")) return &avx512::summarise;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return &avx2::summarise;
    return &summariseRowReference;
}

}  // namespace

RowTotals summariseRow(std::span<const double> p, std::int64_t i, bool causal, std::span<double> profile) {
    static const SummariseFn summarise = chooseSummarise();
    return summarise(p, i, causal, profile);
}

}  // namespace alibi::detail
