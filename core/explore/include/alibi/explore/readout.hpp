// The hover read-out: one text for the cell under the mouse, the same in every front end
// (Qt shows it in the status bar and tooltip, ImGui under the grid).
#pragma once

#include <alibi/model/params.hpp>
#include <alibi/render/render.hpp>

#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace alibi::explore {

// The mask as the user set it, and what the dtype stores where that differs: "-1e9",
// "-1e9 (-inf in f16)", "min (-65504 in f16)", "-inf". Every read-out of a masked cell and the
// heatmap title name it so (the read-out said "-1e+09").
[[nodiscard]] std::string maskValueText(const BiasParams& bias);

// Lines joined by '\n':
//   "head 3 · query i = 5 · key j = 2 · distance i - j = 3 · slope m = 1/16 = 0.0625"
//   "bias = -m·(i - j) = -0.0625 × 3 = -0.1875"      (the mode's own formula, numbers filled in;
//                                                     "(stored in f16: ...)" when rounding moved it)
//   "attention p = 0.123457"                         (what == Attention only; "attention p:
//                                                     computing..." while `probability` is unset)
//   "fully masked row: ..."                          (a query with no unmasked key, K < Q)
// With KV cache (K > Q) line 1 adds ", position p_i = i + K - Q = 9" and the formulas use p_i.
// `slopes` as computeSlopes returns them; an unknown head gives "".
[[nodiscard]] std::string cellReadout(const AttentionParams& params, RenderWhat what, std::span<const double> slopes,
                                      int head, std::int64_t query, std::int64_t key,
                                      std::optional<double> probability = std::nullopt);

// cellReadout with the probability computed here (one attention row: O(K * d_k)).
[[nodiscard]] std::string cellReadoutComputed(const AttentionParams& params, RenderWhat what,
                                              std::span<const double> slopes, int head, std::int64_t query,
                                              std::int64_t key);

// The read-out of a heatmap's cell, whatever it shows: a batch row (params.batch active) reads
// out as batchCellReadout, anything else as cellReadout. With `Computed`, the probability is
// computed here (one attention row).
[[nodiscard]] std::string heatmapReadout(const HeatmapParams& params, std::span<const double> slopes, int head,
                                         std::int64_t query, std::int64_t key,
                                         std::optional<double> probability = std::nullopt);
[[nodiscard]] std::string heatmapReadoutComputed(const HeatmapParams& params, std::span<const double> slopes, int head,
                                                 std::int64_t query, std::int64_t key);

}  // namespace alibi::explore
