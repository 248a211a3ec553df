// Attention and statistics of batches (model/batch.hpp): the softmax over a batch row's bias,
// with its padding, other documents, window and future keys at the mask value, as a framework's
// softmax sees them. The content logits of (h, i, j) are the same in every batch row.
#pragma once

#include <alibi/base/error.hpp>
#include <alibi/base/progress.hpp>
#include <alibi/base/tensor.hpp>
#include <alibi/model/batch.hpp>
#include <alibi/model/params.hpp>
#include <alibi/model/stats.hpp>

#include <cstdint>
#include <vector>

namespace alibi {

// One batch row as doubles, head-major (h * T * T + i * T + j), and which cells are masked.
struct BatchRowValues {
    std::int64_t heads = 0, length = 0;
    std::vector<double> values;
    std::vector<std::uint8_t> masked;
    [[nodiscard]] std::size_t index(std::int64_t h, std::int64_t i, std::int64_t j) const {
        return static_cast<std::size_t>((h * length + i) * length + j);
    }
};

// Row `row` of buildBatchBias's tensor (values as stored, the mask value where masked).
[[nodiscard]] Result<BatchRowValues> batchRowBias(const BiasParams& bias, const BatchParams& batch, std::int64_t row,
                                                  std::uint64_t budget = kDefaultMemoryBudget);
// The probabilities of batch row `row`: softmax((content + bias) / temperature) over every key,
// masked keys holding the mask value itself (a fully masked row: uniform under a finite mask,
// NaN under -inf). Computed in double.
[[nodiscard]] Result<BatchRowValues> batchRowAttention(const AttentionParams& params, const BatchParams& batch,
                                                       std::int64_t row, std::uint64_t budget = kDefaultMemoryBudget);

// The (B, H, T, T) probabilities (layout bhqk) in params.bias.dtype, rounded once from double.
[[nodiscard]] Result<Tensor> buildBatchAttention(const AttentionParams& params, const BatchParams& batch,
                                                 std::uint64_t budget = kDefaultMemoryBudget,
                                                 const ProgressFn& progress = {});

// computeStats for batch row `row`: the chosen query row (-1: the row's last real token), and
// the mean over up to maxRows evenly spaced query rows that are real tokens with at least one
// allowed key. Distances are token distances |i - j| within the padded row.
[[nodiscard]] Result<StatsResult> computeBatchStats(const StatsParams& params, const BatchParams& batch,
                                                    std::int64_t row, std::uint64_t budget = kDefaultMemoryBudget);

}  // namespace alibi
