// Attention rows of one batch row: the one kernel behind batchAttentionRow (batch.hpp), the
// batch's tensor and statistics (batch_attention.hpp) and the pictures, which ask for many rows
// of the same batch row: the tokens are laid out once, key vectors cached per head.
#pragma once

#include <alibi/model/batch.hpp>

#include <alibi/model/detail/attention_detail.hpp>

#include <cstdint>
#include <span>
#include <vector>

namespace alibi::detail {

class BatchAttentionRows {
public:
    // `params` passed validateAttention (which returned `slopes`) and `batch` validateBatch.
    BatchAttentionRows(const AttentionParams& params, const BatchParams& batch, std::vector<double> slopes,
                       std::int64_t row);
    [[nodiscard]] const BatchRow& row() const { return m_row; }
    // softmax((content + bias) / temperature) over every key, masked keys at the mask value (K
    // values). `masked`, when given (K values), gets 1 for each key the batch masks or whose bias
    // overflowed to -inf (f16), 0 for the others.
    void probabilities(std::int64_t head, std::int64_t query, std::span<double> out,
                       std::span<std::uint8_t> masked = {});

private:
    BatchParams m_batch;
    BatchRow m_row;
    ReferenceRows m_reference;
    std::vector<double> m_tails;
};

}  // namespace alibi::detail
