// Streaming a TensorSource to the output target with a progress bar and cancellation: the one
// export path of `bias`, `attention` and `slopes`.
#pragma once

#include "options.hpp"

#include <alibi/base/error.hpp>
#include <alibi/base/tensor.hpp>

#include <string>

namespace alibi::cli {

[[nodiscard]] Result<void> exportSource(const TensorSource& source, const OutputTarget& target,
                                        const std::string& tensorName, bool allowNonFinite);

}  // namespace alibi::cli
