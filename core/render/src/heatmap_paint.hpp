// The passes that fill a heatmap's pixels, once renderHeatmap has checked the request and placed
// the tiles: each pixel's value (the closed-form bias means, zero-content rows in O(1), exact
// attention rows, a batch row's), each tile's exact range, then the colours.
#pragma once

#include <alibi/base/error.hpp>
#include <alibi/base/progress.hpp>
#include <alibi/render/render.hpp>

#include <cstdint>
#include <vector>

namespace alibi::detail {

// The cell under the centre of pixel p of a tile `pixels` wide that shows `cells` cells.
[[nodiscard]] std::int64_t cellAt(int p, int pixels, std::int64_t cells);

// Fills map.image, map's scale and each tile's range. `map` has its tiles, image size, steps and
// reduction set; `slopes` are the validated request's. Fails only when `progress` cancels.
[[nodiscard]] Result<void> paintHeatmap(const HeatmapParams& params, const std::vector<double>& slopes, Heatmap& map,
                                        unsigned threads, const ProgressFn& progress);

}  // namespace alibi::detail
