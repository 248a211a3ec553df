// Streaming a TensorSource to the output target with a progress bar and cancellation: the one
// export path of `bias`, `attention` and `slopes`. The core's export plan decides first whether
// the export can work (the same rules as the explorers): a `mask` the dtype cannot hold, or a
// file larger than the free space, is refused before anything is written.
#pragma once

#include "options.hpp"

#include <alibi/base/error.hpp>
#include <alibi/base/tensor.hpp>
#include <alibi/model/params.hpp>

#include <optional>
#include <string>

namespace alibi::cli {

[[nodiscard]] Result<void> exportSource(const TensorSource& source, const OutputTarget& target,
                                        const std::string& tensorName, bool allowNonFinite,
                                        std::optional<Layout> layout = std::nullopt,
                                        std::optional<MaskValue> mask = std::nullopt);

}  // namespace alibi::cli
