// Batch rows in the explorers: the words and numbers a view of one row of a (B, H, T, T) batch
// needs (its title, the hover read-out saying why a cell is masked, the cell values drawn at
// small T), built once here for every front end.
#pragma once

#include <alibi/model/batch.hpp>
#include <alibi/render/render.hpp>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace alibi::explore {

// "batch row 1 of 3: 5 real tokens, left padding · documents 3, 2 · window 4 · prefix 2 ·
// positions mask" (the parts that are set).
[[nodiscard]] std::string batchRowTitle(const BatchParams& batch, std::int64_t row, std::int64_t length);

// The hover read-out of one cell of a batch row (params.batch active):
//   "batch row 1 · head 3 · query i = 5 · key j = 2 · slope m = 1/16 = 0.0625"
//   "query: real token, position p_i = 3, document 0 · key: padding"
//   "masked (padding key): bias = mask = -1e9"   or   "bias = -m·|p_i - p_j| = -0.0625 × 3 = -0.1875"
//   "fully masked row: ..."                      (when query i has no allowed key)
//   "attention p = ..."                          (what == Attention)
[[nodiscard]] std::string batchCellReadout(const HeatmapParams& params, std::span<const double> slopes, int head,
                                           std::int64_t query, std::int64_t key,
                                           std::optional<double> probability = std::nullopt);

// What the views that do not draw batches (statistics, curves, stages) say while a batch is set:
// "" without a batch, else "One unpadded sequence of T tokens: the batch (row 1 of 3) is drawn in
// the head grid and detail views only."; `brief` for a plot's corner: "unpadded sequence, not
// batch row 1".
[[nodiscard]] std::string batchScopeNote(const BatchParams& batch, std::int64_t row, bool brief = false);

// Q*K values of `head` in batch row params.batchRow (bias as stored, or probabilities), NaN
// where masked; empty on an invalid batch.
[[nodiscard]] std::vector<double> batchCellValues(const HeatmapParams& params, std::span<const double> slopes,
                                                  int head);

}  // namespace alibi::explore
