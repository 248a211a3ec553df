// The attention simulation: probabilities softmax((content + bias) / temperature) per row.
#pragma once

#include <alibi/base/error.hpp>
#include <alibi/base/progress.hpp>
#include <alibi/base/tensor.hpp>
#include <alibi/model/params.hpp>

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace alibi {

// Counter-based generator shared by every platform: SplitMix64 over (seed, stream, index)
// for uniforms, Box-Muller in double for normals. Any element can be drawn independently,
// so rows, heads and chunks give the same numbers in any order and on any thread count.
// The exact recipe (all integer arithmetic modulo 2^64, so NumPy uint64 arrays reproduce it):
//
//   splitMix64(x):  z = x + 0x9E3779B97F4A7C15
//                   z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
//                   z = (z ^ (z >> 27)) * 0x94D049BB133111EB
//                   return z ^ (z >> 31)
//   uniform01(seed, stream, index):
//                   key = splitMix64(splitMix64(seed) + stream)
//                   u   = (splitMix64(key + index) >> 11) * 2^-53       (53 random bits)
//                   return u, except u == 0 returns 2^-54, so the result is in (0, 1) strictly
//   standardNormal(seed, stream, index):  Box-Muller on the pair n = index >> 1,
//                   returning r cos t for an even index and r sin t for an odd index, with
//                   u1 = uniform01(seed, stream, 2n), b2 = splitMix64(key + 2n + 1) >> 11 and,
//     recipe 2 (ContentParams::generator, the default): every step one IEEE double operation
//                   (no fused multiply-add, no C library call), so every machine gives the same
//                   bits; the constants are in attention_generator.cpp as hexadecimal literals.
//                   r = sqrt(-2 L), L = e * LN2_HI + (e * LN2_LO + s * P(s^2)) where
//                   u1 = 2^e m with m in [1, 2), then m > sqrt(2) halved (e + 1); s = (m - 1) / (m + 1);
//                   P(z) = sum_{k=0..10} 2/(2k+1) z^k by Horner from k = 10 down.
//                   t = (pi/2) (k + f): k = (b2 + 2^50) >> 51, f = (b2 - k 2^51) * 2^-51 in
//                   [-1/2, 1/2); with g = f^2, S = f * sum_{k=0..8} (-1)^k (pi/2)^(2k+1)/(2k+1)! g^k and
//                   C = sum_{k=0..9} (-1)^k (pi/2)^(2k)/(2k)! g^k (Horner from the top coefficient);
//                   (cos t, sin t) = (C, S), (-S, C), (-C, -S), (S, -C) for k mod 4 = 0, 1, 2, 3;
//                   the results are r * cos t and r * sin t (a scaled draw is scale * (r * cos t)).
//     recipe 1 (sessions written before recipe 2): u2 = uniform01(seed, stream, 2n + 1),
//                   r = sqrt(-2 ln u1), t = 2 pi u2 with the C library's log, cos and sin, whose
//                   last bit may differ between C libraries and processors.
//
// Streams and indices (H heads, Q queries, K keys, d = dk):
//   gaussian content of (h, i, j):  stream kStreamGaussian, index h*Q*K + i*K + j, logit sigma * N
//   qk: query vector entry q[h, i, c]: stream kStreamQueries, index (h*Q + i)*d + c
//       key vector entry   k[h, j, c]: stream kStreamKeys,    index (h*K + j)*d + c
//       logit (sum_c q[h,i,c] k[h,j,c]) / sqrt(d)
inline constexpr std::uint64_t kStreamGaussian = 1;
inline constexpr std::uint64_t kStreamQueries = 2;
inline constexpr std::uint64_t kStreamKeys = 3;

[[nodiscard]] std::uint64_t splitMix64(std::uint64_t x);
[[nodiscard]] double uniform01(std::uint64_t seed, std::uint64_t stream, std::uint64_t index);
[[nodiscard]] double standardNormal(std::uint64_t seed, std::uint64_t stream, std::uint64_t index,
                                    int generator = kGeneratorLatest);

// Validates bias and content parameters (sigma >= 0 finite, dk in 1..4096, temperature > 0).
[[nodiscard]] Result<std::vector<double>> validateAttention(const AttentionParams& params);

// The content logit of (h, i, j) before bias and temperature: 0, N(0, sigma^2), or q.k/sqrt(dk).
[[nodiscard]] double contentLogit(const AttentionParams& params, std::int64_t head, std::int64_t query,
                                  std::int64_t key);

// One row of probabilities (K values, in double) for head h and query row i.
// The softmax sees what a framework's softmax sees: masked keys hold the mask value (finite,
// -inf or the dtype's lowest), so a finite mask leaves them a little mass, and a row whose every
// key is masked is uniform under a finite mask and NaN under -inf (see fullyMaskedRows).
// Zero content in f32/f64 is computed in closed form (a truncated geometric distribution).
[[nodiscard]] Result<std::vector<double>> attentionRow(const AttentionParams& params, std::int64_t head,
                                                       std::int64_t query);

// The pre-softmax stages of one row, for teaching (K values each): content; withBias =
// content + bias as the bias tensor holds it (masked keys carry the mask value); masked = the
// softmax input, (content + bias) / temperature, and the mask value itself where the mode masks; and the
// probabilities.
struct AttentionStages {
    std::vector<double> content;
    std::vector<double> withBias;
    std::vector<double> masked;
    std::vector<double> probabilities;
};
[[nodiscard]] Result<AttentionStages> attentionStages(const AttentionParams& params, std::int64_t head,
                                                      std::int64_t query);

// The whole (H, Q, K) probabilities tensor in params.bias.layout and dtype, within the budget.
// Computed in float for f32/f16/bf16 and in double for f64, then rounded to the dtype.
// Progress is reported in rows (of H * Q); cancelling returns ErrorCode::Cancelled.
[[nodiscard]] Result<Tensor> computeAttention(const AttentionParams& params,
                                              std::uint64_t budget = kDefaultMemoryBudget, unsigned threads = 0,
                                              const ProgressFn& progress = {});

// A streaming source of the probabilities, row by row, for exports of any size; its numbers
// equal computeAttention's. Blocks are computed on `threads` threads (0: every core).
[[nodiscard]] Result<std::unique_ptr<TensorSource>> attentionSource(const AttentionParams& params,
                                                                    unsigned threads = 0);

[[nodiscard]] std::map<std::string, std::string> attentionMetadata(const AttentionParams& params);

// Query rows [first, first + count) of every head have no unmasked key (a masking mode with
// K < Q): count is 0 when there are none. Their probabilities are uniform under a finite mask
// and NaN under -inf; `nan` says which.
struct FullyMaskedRows {
    std::int64_t first = 0;
    std::int64_t count = 0;
    bool nan = false;
};
[[nodiscard]] FullyMaskedRows fullyMaskedRows(const AttentionParams& params);

// Which matrix-product, softmax and generator kernels this machine runs, e.g. "matrix product:
// f32 packed AVX-512 kernel, f64 OpenBLAS 0.3.21, SkylakeX kernels (...); softmax: avx512;
// Gaussian generator: avx512 (recipe 2)", for --version and About boxes.
[[nodiscard]] std::string attentionKernelDescription();

}  // namespace alibi
