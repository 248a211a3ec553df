// The attention simulation: probabilities softmax((content + bias) / temperature) per row.
#pragma once

#include <alibi/error.hpp>
#include <alibi/params.hpp>
#include <alibi/progress.hpp>
#include <alibi/tensor.hpp>

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace alibi {

// Counter-based generator shared by every platform: SplitMix64 over (seed, stream, index)
// for uniforms, Box-Muller in double for normals. Any element can be drawn independently,
// so rows, heads and chunks give the same numbers in any order and on any thread count.
[[nodiscard]] std::uint64_t splitMix64(std::uint64_t x);
[[nodiscard]] double uniform01(std::uint64_t seed, std::uint64_t stream, std::uint64_t index);
[[nodiscard]] double standardNormal(std::uint64_t seed, std::uint64_t stream, std::uint64_t index);

// Validates bias and content parameters (sigma >= 0 finite, dk in 1..4096, temperature > 0).
[[nodiscard]] Result<std::vector<double>> validateAttention(const AttentionParams& params);

// The content logit of (h, i, j) before bias and temperature: 0, N(0, sigma^2), or q.k/sqrt(dk).
[[nodiscard]] double contentLogit(const AttentionParams& params, std::int64_t head,
                                  std::int64_t query, std::int64_t key);

// One row of probabilities (K values, in double) for head h and query row i.
// A row whose every key is masked is all zeros, never NaN.
[[nodiscard]] Result<std::vector<double>> attentionRow(const AttentionParams& params,
                                                       std::int64_t head, std::int64_t query);

// The pre-softmax stages of one row, for teaching: content, + bias, masked (-inf where
// masked), and the probabilities.
struct AttentionStages {
    std::vector<double> content;
    std::vector<double> withBias;
    std::vector<double> masked;
    std::vector<double> probabilities;
};
[[nodiscard]] Result<AttentionStages> attentionStages(const AttentionParams& params,
                                                      std::int64_t head, std::int64_t query);

// The whole (H, Q, K) probabilities tensor in params.bias.layout and dtype, within the budget.
[[nodiscard]] Result<Tensor> computeAttention(const AttentionParams& params,
                                              std::uint64_t budget = kDefaultMemoryBudget,
                                              unsigned threads = 0, const ProgressFn& progress = {});

// A streaming source of the probabilities, row by row.
[[nodiscard]] Result<std::unique_ptr<TensorSource>> attentionSource(const AttentionParams& params);

[[nodiscard]] std::map<std::string, std::string> attentionMetadata(const AttentionParams& params);

}  // namespace alibi
