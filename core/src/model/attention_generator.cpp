// The counter-based Gaussian generator of attention.hpp (SplitMix64 uniforms, Box-Muller
// normals): the documented recipe that gives the same numbers on every platform, in any order.
#include <alibi/model/attention.hpp>

#include "model/attention_detail.hpp"

#include <cmath>
#include <numbers>
#include <utility>

namespace alibi {

std::uint64_t splitMix64(std::uint64_t x) {
    std::uint64_t z = x + 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

namespace {

std::uint64_t streamKey(std::uint64_t seed, std::uint64_t stream) { return splitMix64(splitMix64(seed) + stream); }

double uniformFromKey(std::uint64_t key, std::uint64_t index) {
    const std::uint64_t bits = splitMix64(key + index) >> 11;
    // 0 would make log(u) infinite; it happens once in 2^53 draws.
    return bits == 0 ? 0x1p-54 : static_cast<double>(bits) * 0x1p-53;
}

// Both Box-Muller outputs of pair n: (r cos t, r sin t).
std::pair<double, double> normalPair(std::uint64_t key, std::uint64_t n) {
    const double u1 = uniformFromKey(key, 2 * n);
    const double u2 = uniformFromKey(key, 2 * n + 1);
    const double r = std::sqrt(-2.0 * std::log(u1));
    const double t = 2.0 * std::numbers::pi * u2;
    return {r * std::cos(t), r * std::sin(t)};
}

}  // namespace

double uniform01(std::uint64_t seed, std::uint64_t stream, std::uint64_t index) {
    return uniformFromKey(streamKey(seed, stream), index);
}

double standardNormal(std::uint64_t seed, std::uint64_t stream, std::uint64_t index) {
    const auto [c, s] = normalPair(streamKey(seed, stream), index >> 1);
    return (index & 1) ? s : c;
}

namespace detail {

template <class T>
void fillNormals(std::uint64_t seed, std::uint64_t stream, std::uint64_t first, std::uint64_t count,
                 double scale, T* out) {
    if (count == 0) return;
    const std::uint64_t key = streamKey(seed, stream);
    std::uint64_t idx = first;
    const std::uint64_t end = first + count;
    if (idx & 1) {
        *out++ = static_cast<T>(scale * normalPair(key, idx >> 1).second);
        ++idx;
    }
    for (; idx + 1 < end; idx += 2) {
        const auto [c, s] = normalPair(key, idx >> 1);
        *out++ = static_cast<T>(scale * c);
        *out++ = static_cast<T>(scale * s);
    }
    if (idx < end) *out = static_cast<T>(scale * normalPair(key, idx >> 1).first);
}

template void fillNormals<float>(std::uint64_t, std::uint64_t, std::uint64_t, std::uint64_t, double, float*);
template void fillNormals<double>(std::uint64_t, std::uint64_t, std::uint64_t, std::uint64_t, double, double*);

}  // namespace detail

}  // namespace alibi
