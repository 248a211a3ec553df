// Attention rows of one batch row (see batchAttentionRow in batch.hpp), for pictures that ask
// for many rows of the same batch row: the tokens are laid out once, key vectors cached per head.
#pragma once

#include <alibi/model/batch.hpp>

#include "model/attention_detail.hpp"

#include <span>
#include <vector>

namespace alibi::detail {

class BatchAttentionRows {
public:
    // `params` passed validateAttention (which returned `slopes`) and `batch` validateBatch.
    BatchAttentionRows(const AttentionParams& params, const BatchParams& batch, std::vector<double> slopes,
                       std::int64_t row);
    [[nodiscard]] const BatchRow& row() const { return m_row; }
    // softmax((content + bias) / temperature) over every key, masked keys at the mask value (K values).
    void probabilities(std::int64_t head, std::int64_t query, std::span<double> out);

private:
    BatchParams m_batch;
    BatchRow m_row;
    ReferenceRows m_reference;
    std::vector<double> m_tails;
};

}  // namespace alibi::detail
