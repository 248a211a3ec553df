// Diagnosis of a (B, H, T, T) batch of biases: padding side and lengths, packed documents and a
// sliding window are read off the mask pattern; then every bias form, position rule and --arith
// profile is rebuilt with buildBatchBias and compared bit for bit.
#pragma once

#include <alibi/analysis/diagnose.hpp>
#include <alibi/base/tensor.hpp>

#include <optional>

namespace alibi::detail {

// nullopt when the tensor is not a 4-D batch with B > 1 and square (T, T) rows.
[[nodiscard]] std::optional<Diagnosis> diagnoseBatch(const Tensor& tensor);

}  // namespace alibi::detail
