// Internals of the attention simulation shared by its files (attention_*.cpp), stats.cpp and
// render.cpp: bulk normal draws and the double-precision reference rows (the simple path every
// fast path is checked against, and what statistics and pictures are computed from).
#pragma once

#include <alibi/model/params.hpp>

#include <cstdint>
#include <span>
#include <vector>

namespace alibi::detail {

// out[k] = T(scale * standardNormal(seed, stream, first + k, generator)) for k in [0, count),
// drawing each Box-Muller pair once; recipe 2 runs the vector kernel the CPU supports.
template <class T>
void fillNormals(std::uint64_t seed, std::uint64_t stream, std::uint64_t first, std::uint64_t count, double scale,
                 T* out, int generator);

// The implementations of recipe 2, all giving the same bits (the tests compare them).
enum class GeneratorKernel { Scalar, Avx2, Avx512 };
[[nodiscard]] GeneratorKernel generatorKernel();  // the one fillNormals uses on this CPU
[[nodiscard]] bool generatorKernelRuns(GeneratorKernel kernel);
[[nodiscard]] const char* generatorKernelName(GeneratorKernel kernel);
template <class T>
void fillNormalsWith(GeneratorKernel kernel, std::uint64_t seed, std::uint64_t stream, std::uint64_t first,
                     std::uint64_t count, double scale, T* out, int generator);

// Keys of row i that the mode leaves unmasked: [0, allowedKeys(i)).
[[nodiscard]] std::int64_t allowedKeys(const BiasParams& params, std::int64_t i);

// The softmax input of a masked key: the mask value as the dtype holds it (-1e9, -inf or the
// dtype's lowest value; -1e9 is -inf in f16), neither added to the content nor divided by the
// temperature, as a framework's masked_fill leaves it.
[[nodiscard]] double maskLogit(const BiasParams& params);

// Rows of the attention in double, straight from the formulas: content from the generator,
// bias from biasValue (dtype-rounded), (content + bias) / temperature, masked keys at the mask
// value, softmax over the whole row. Zero content in f32/f64 takes the closed form instead.
// Caches one head's key vectors for qk, so consecutive rows of a head are cheap.
class ReferenceRows {
public:
    // `params` must have passed validateAttention, which returned `slopes`.
    ReferenceRows(const AttentionParams& params, std::vector<double> slopes);

    [[nodiscard]] const AttentionParams& params() const { return m_params; }
    [[nodiscard]] double slope(std::int64_t head) const { return m_slopes[static_cast<std::size_t>(head)]; }

    // Content logits of (h, i, j) for every key j (K values).
    void content(std::int64_t head, std::int64_t query, std::span<double> out);
    // The softmax input of every key (K values).
    void logits(std::int64_t head, std::int64_t query, std::span<double> out);
    // logits() from the content logits already in `inOut` (what content() wrote), so a caller
    // that wants both draws the content once.
    void logitsFromContent(std::int64_t head, std::int64_t query, std::span<double> inOut);
    // Probabilities (K values). A fully masked row is uniform under a finite mask and NaN
    // under -inf, as in a framework's softmax.
    void probabilities(std::int64_t head, std::int64_t query, std::span<double> out);

private:
    const double* keys(std::int64_t head);

    AttentionParams m_params;
    std::vector<double> m_slopes;
    std::int64_t m_keysHead = -1;
    std::vector<double> m_keys;  // (K, dk) of m_keysHead, when small enough to cache
    std::vector<double> m_q;
    std::vector<double> m_k;
};

// The softmax every path agrees on, over the whole row x: -inf logits get 0; if every logit is
// -inf the row is NaN (0/0, as PyTorch gives); if some are +inf they share the mass equally;
// otherwise exp(x - max) / sum.
void softmaxReference(std::span<double> x);

}  // namespace alibi::detail
