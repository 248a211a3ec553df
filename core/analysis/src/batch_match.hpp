// Diagnosis of a (B, H, T, T) batch of biases: padding side and lengths, packed documents, a
// sliding window and a prefix-LM prefix are read off the mask pattern; then every bias form,
// position rule and --arith profile is rebuilt with buildBatchBias and compared bit for bit.
#pragma once

#include <alibi/analysis/diagnose.hpp>
#include <alibi/base/tensor.hpp>

#include <optional>

namespace alibi::detail {

// nullopt when the tensor is not a 4-D batch of square (T, T) rows, or is one row (B = 1) whose
// mask shows no padding, documents, window or prefix (a plain (1, H, Q, K) bias).
[[nodiscard]] std::optional<Diagnosis> diagnoseBatch(const Tensor& tensor);

// The last `queries` query rows of every (batch row, head) tile of buildBatchBias(square, batch):
// a (B, H, queries, T) tensor in square.dtype, built row by row (never the whole (B, H, T, T)).
// These are the decode rows (B, H, 1, K) of a left-padded batch of length K = T. With
// `zeroPadding` the padding keys hold 0 instead of the mask, as HF BLOOM's build_alibi_tensor
// gives them (slope * (cumsum(mask) - 1) * mask; the mask is applied later, apart).
[[nodiscard]] Result<Tensor> buildRowsBias(const BiasParams& square, const BatchParams& batch, std::int64_t queries,
                                           bool zeroPadding, std::uint64_t budget = kDefaultMemoryBudget);

// attentionEffect over each batch row of a batch diagnosis on its own (one entry for a single
// sequence): the effect a finding has on the rows that show it.
[[nodiscard]] Result<std::vector<AttentionEffect>> attentionEffectPerBatchRow(
    const Tensor& tensor, const Diagnosis& diagnosis, std::uint64_t budget = kDefaultMemoryBudget);

}  // namespace alibi::detail
