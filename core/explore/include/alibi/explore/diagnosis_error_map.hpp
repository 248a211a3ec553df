// The Diagnose views' picture: |tensor - correct ALiBi| per cell (analysis/diagnose.hpp's
// correctAlibiError, not the possibly buggy reproduction that matched) as a magma heatmap over
// [0, the largest finite error]. Cells correct ALiBi masks and the tensor masks alike are masked
// grey (kMaskedColor), not black: nothing was checked there. Both explorers draw this one picture
// beside the diagnosis.
#pragma once

#include <alibi/analysis/diagnose.hpp>
#include <alibi/base/tensor.hpp>
#include <alibi/render/color_scale.hpp>
#include <alibi/render/render.hpp>

#include <optional>
#include <string>
#include <vector>

namespace alibi::explore {

struct DiagnosisErrorMap {
    Heatmap map;             // one tile per head (per batch row and head for a batch), magma
    double errorMax = 0;     // the largest finite |error|; the map's range is [0, errorMax] (or [0, 1] when 0)
    bool anyMasked = false;  // some cells are masked grey: a colour bar shows the masked swatch
    // Every finding is harmless (a per-row constant, a framework's own path): the map shows
    // |softmax(tensor) - softmax(correct ALiBi)| (zero content) instead of the bias error, so a
    // difference that changes no probability is never painted as an error.
    bool probability = false;
    std::string caption;   // the words above the map, e.g. "|error| per cell against correct ALiBi: ..."
    std::string barTitle;  // "|error|" or "|Δp|"
    // Each tile's label, in tile order: "h3", or "b1 h3" (batch row 1, head 3) for a batch.
    std::vector<std::string> tileLabels;
};

// The label of tile `tile` of a map with `tiles` tiles of `heads` heads each: "h3" when the tiles
// are the heads, "b1 h3" when they are (batch row, head) pairs.
[[nodiscard]] std::string diagnosisTileLabel(int tile, std::int64_t tiles, std::int64_t heads);

// The caption and colour-bar title the map of this diagnosis has (without building it).
[[nodiscard]] DiagnosisErrorMap diagnosisErrorMapLabels(const Diagnosis& diagnosis, double errorMax);

// The map's colour bar, the same beside both explorers' map and in the figure: [0, errorMax]
// ([0, 1] when no cell differs: a bar from 0 to 0 has one tick), titled barTitle, with the masked
// swatch when some cells are masked.
[[nodiscard]] ColorBar diagnosisColorBar(const DiagnosisErrorMap& map, int targetTicks);

// The picture at width x height pixels (at least 16 each); nullopt when the diagnosis found
// nothing to compare with (no parameters, or an error map that cannot be built): the words of
// the diagnosis still stand without it. Tiles are `gap` pixels apart (a figure at 2x doubles it).
// `squareCells`: tiles shrunk to square cells and the image cropped to them (a view that asks for
// its own room gets undistorted tiles as large as the room allows).
[[nodiscard]] std::optional<DiagnosisErrorMap> diagnosisErrorMap(const Tensor& tensor, const Diagnosis& diagnosis,
                                                                 int width, int height, int gap = 4, int labelBand = 0,
                                                                 bool squareCells = false);

}  // namespace alibi::explore
