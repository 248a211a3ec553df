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

}  // namespace alibi::detail
