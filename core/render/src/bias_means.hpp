// The mean of a bias form over a block of cells, in closed form: what one heatmap pixel that
// covers many cells shows, at any T in O(1).
#pragma once

#include <alibi/model/params.hpp>

#include <cstdint>

namespace alibi::detail {

// The mean bias of head slope m over the rows at positions [p0, p1] and keys [j0, j1] of a
// K-key tensor of `mode`; NaN when every cell of the block is masked.
[[nodiscard]] double meanBias(BiasMode mode, double m, std::int64_t p0, std::int64_t p1, std::int64_t j0,
                              std::int64_t j1, std::int64_t K);

}  // namespace alibi::detail
