// Exact colour scales: the range a view's colours span is the exact minimum and maximum of
// the values it shows (for the bias in closed form, no pass over the tensor), never of its
// pixels; the colour bar's ticks are round numbers with both ends labelled to four significant
// digits (more where the ends would read the same).
#pragma once

#include <alibi/base/dtype.hpp>
#include <alibi/model/params.hpp>
#include <alibi/render/render.hpp>
#include <alibi/render/ticks.hpp>

#include <span>
#include <string>
#include <vector>

namespace alibi {

struct ValueRange {
    double lo = 0, hi = 0;
    bool empty = true;  // every cell masked: nothing to span
};

// The exact minimum and maximum of the stored bias (dtype-rounded) over the unmasked cells of
// `head` (-1: every head). Closed form: O(heads), whatever T is. `slopes` from validateBias.
[[nodiscard]] ValueRange biasRange(const BiasParams& params, std::span<const double> slopes, int head = -1);

// A colour bar: what its colours span, its ticks and its legend.
struct ColorBar {
    double lo = 0, hi = 1;           // the colours' range (log: both > 0)
    bool log = false;                // log10 colour scale
    std::vector<Tick> ticks;         // ascending; the first is lo and the last hi (formatSignificant)
    bool belowFloor = false;         // log bar: some shown values (or exact zeros) lie below lo
    bool aboveTop = false;           // one tile's per-head bar: its rows of one key (p = 1) lie above hi
    bool maskedSwatch = false;       // masked cells are drawn in kMaskedColor: show its swatch
    bool fullyMaskedSwatch = false;  // fully masked rows are striped: show that swatch too
    std::string title;               // "bias", "probability", "probability (log)", "A - B"
    std::string head;                // "h3" when the bar is one tile's range (per-head scale)
};

// The bar for [lo, hi]: ends labelled to four significant digits (formatSignificant; the exact
// text in `dtype` when that is shorter), round 1-2-5 ticks between
// them (powers of ten on a log bar) at least a fifth of a step away from either end.
[[nodiscard]] ColorBar makeColorBar(double lo, double hi, bool log, DType dtype, int targetTicks);

// The type whose shortest decimal states `value` exactly, for makeColorBar's end labels: f32
// when it is an f32 (the differences of f32 tensors usually are, and read far shorter), else f64.
[[nodiscard]] DType exactTextType(double value);

// Position of `value` along the bar, 0 at lo and 1 at hi (log10 on a log bar); clamped.
[[nodiscard]] double colorBarPosition(const ColorBar& bar, double value);

// The bar of a heatmap: `tile` -1 gives the shared scale (Heatmap::lo/hi), otherwise that
// tile's own range (per-head scale). Title, log flag and masked swatch follow the params.
// A tile whose rows of one key were left out of its range (HeatmapTile::aboveHi) labels the top
// end ">= hi", as a log bar's floor reads "<= lo".
[[nodiscard]] ColorBar heatmapColorBar(const Heatmap& map, const HeatmapParams& params, int tile, int targetTicks);
// The bar of a whole grid on a per-head scale, where no range is shared: `bar`'s title and
// swatches, running from each tile's lo to its hi ("tile's lo", "tile's hi"; ">= tile's hi"
// when a tile left rows of one key out), the numbers being in each tile's label.
[[nodiscard]] ColorBar perTileColorBar(ColorBar bar, const Heatmap& map);
// What a per-head scale of `map` leaves out, for a subtitle or caption: "per-head scale: each
// tile its own [lo, hi], without its rows of one key (row 0, p = 1: the top colour, >= hi)" when
// some tile left such rows out (HeatmapTile::aboveHi); "" otherwise.
[[nodiscard]] std::string perHeadScaleNote(const Heatmap& map, ScaleMode scale);
// The ends of `bar` marked for what lies beyond them: "<= lo" (belowFloor), ">= hi" (aboveTop).
void markColorBarEnds(ColorBar& bar);

}  // namespace alibi
