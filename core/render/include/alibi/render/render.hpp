// Rasterising heatmaps (a head grid or one head) and colour bars into RGBA images, at the
// requested pixel size. When a pixel covers several cells it shows a summary of all of them
// (the mean for the bias, the maximum or sum over the keys for attention), so no peak hides
// between pixels; the colour range is the exact minimum and maximum of the values shown.
#pragma once

#include <alibi/base/error.hpp>
#include <alibi/base/progress.hpp>
#include <alibi/model/batch.hpp>
#include <alibi/model/params.hpp>
#include <alibi/render/colormap.hpp>

#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace alibi {

struct Session;

struct Image {
    int width = 0;
    int height = 0;
    std::vector<Rgba> pixels;  // row-major, top row first
    [[nodiscard]] Rgba& at(int x, int y) { return pixels[static_cast<std::size_t>(y) * width + x]; }
    [[nodiscard]] const Rgba& at(int x, int y) const { return pixels[static_cast<std::size_t>(y) * width + x]; }
};

struct HeatmapParams {
    AttentionParams attention;
    RenderWhat what = RenderWhat::Bias;  // Bias or Attention (heatmaps)
    int head = -1;                       // -1: grid of every head; otherwise that head alone
    Colormap colormap = Colormap::Viridis;
    ScaleMode scale = ScaleMode::Shared;
    int width = 1024;  // whole image, pixels
    int height = 768;
    int gap = 2;  // pixels between grid tiles
    // Pixels left free above every tile of a grid (not a single head) for its label, so no label
    // covers a cell; 0: none (labels, if any, are drawn over the tile).
    int labelBand = 0;
    // Tiles as large as fit with square cells (a query as tall as a key is wide), the rest of
    // the image left empty; false: tiles fill the image, cells stretched to its aspect.
    bool squareCells = false;
    Reduce reduce = Reduce::Auto;  // Auto: Mean for bias, Max for attention
    bool logScale = false;         // attention: log10 colour scale (bias ignores it)
    // A batch (active()): the image shows batch row `batchRow` of the (B, H, T, T) tensor, its
    // padding, other documents, window and future keys drawn as masked cells.
    BatchParams batch;
    std::int64_t batchRow = 0;
    // A preview (attention with content): exact rows for pixel rows 0, rowStep, 2 rowStep, ...
    // of each tile only, each shown down to the next; 1 computes every pixel row.
    int rowStep = 1;
    // A coarser preview (q.k content only): the content logit q.k of one key in keyStep (keys
    // 0, keyStep, 2 keyStep, ..., the same vectors the exact rows use), shared by the keys up to
    // the next, with the exact bias of every key and the softmax over all of them. The keys'
    // normals drawn and the products shrink keyStep times; the rows are not exact. 1: exact.
    int keyStep = 1;
    friend bool operator==(const HeatmapParams&, const HeatmapParams&) = default;
};

// The heatmap a session describes: its tensor, quantity, head, colour map, scale and size.
// Callers that draw something else (every head of a grid, a detail pane's size) change the
// fields they own afterwards.
[[nodiscard]] HeatmapParams heatmapParams(const Session& session);

// Log colour scales span at most this many decades below the maximum.
inline constexpr double kLogScaleDecades = 12;

// Where a head sits in a grid image, and the value range its colours span.
// lo/hi: the exact minimum and maximum of the tile's shown values (every unmasked cell for
// the bias; the computed rows for attention), lo = hi = 0 when all are masked.
// With a log scale, colours span [logLo, hi]: logLo is the smallest positive value shown,
// raised to hi * 10^-kLogScaleDecades at most; values below it take the lowest colour
// (belowLogLo says some do: exact zeros, or values more than kLogScaleDecades below hi).
// aboveHi: per-head scale of a grid, the tile's rows of one key (p = 1) are left out of its range
// (TileValueRange) and lie above hi: they take the top colour, and the colour bar says ">= hi".
struct HeatmapTile {
    int head = 0;
    int x = 0, y = 0, width = 0, height = 0;
    double lo = 0, hi = 0;
    double logLo = 0;
    bool belowLogLo = false;
    bool aboveHi = false;
};

// The range of one tile's shown attention values, gathered row by row. A query row with one key
// to attend to (row 0 of a causal map, a document's first token) holds p = 1 whatever the head:
// on a per-head scale it would make every tile's top 1 and hide how the heads differ. Such rows
// are kept apart: a per-head range (`span(true)`) leaves them out unless the tile has no other
// rows; a shared range (`span(false)`) takes every row. Every attention heatmap (explorer grids,
// a model's attention maps, their figures) gathers its tiles' ranges with this.
struct TileValueRange {
    static constexpr double kInf = std::numeric_limits<double>::infinity();
    double lo = kInf, hi = -kInf, positive = kInf;           // rows with two or more keys
    double oneLo = kInf, oneHi = -kInf, onePositive = kInf;  // rows with one key

    void add(double v, bool oneKeyRow) {
        double& l = oneKeyRow ? oneLo : lo;
        double& h = oneKeyRow ? oneHi : hi;
        double& p = oneKeyRow ? onePositive : positive;
        l = v < l ? v : l;
        h = v > h ? v : h;
        if (v > 0 && v < p) p = v;
    }
    void merge(const TileValueRange& o);
    struct Span {
        double lo = 0, hi = 0, positive = kInf;
        bool valid = false;    // some value was added
        bool leftOut = false;  // rows of one key were left out, and some of their values lie above hi
    };
    [[nodiscard]] Span span(bool perHead) const;
};

struct Heatmap {
    Image image;
    std::vector<HeatmapTile> tiles;
    double lo = 0, hi = 0;    // the shared scale (union of tiles when per-head)
    double logLo = 0;         // the shared log scale's low end
    bool belowLogLo = false;  // some shown values lie below logLo (the colour bar marks "<=")
    int columns = 1, rows = 1;
    Reduce reduce = Reduce::Mean;  // what each pixel shows (Auto resolved)
    bool log = false;              // colours on a log10 scale
    bool rowsSampled = false;      // one exact query row per pixel row (attention)
    bool cellsSampled = false;     // batch bias: a pixel averages up to 4 x 4 sampled cells
    int rowStep = 1;               // > 1: a preview, one exact row per rowStep pixel rows
    int keyStep = 1;               // > 1: a preview, q.k content of 1 key in keyStep (see HeatmapParams)
    // Some pixel rows show only fully masked query rows (no key to attend to): drawn with
    // fullyMaskedStripe, and the colour bar's legend names them.
    bool fullyMaskedRows = false;
    double cellsPerPixelX = 1, cellsPerPixelY = 1;  // keys and queries per pixel (>= 1: pixels repeat cells)
    // In words, for the view's subtitle: "1 px = 16 x 16 cells, max over keys, 1 exact row
    // of 16 per pixel row" or "1 cell = 3 x 3 px".
    std::string summary;
};

// The pixels free above tile n of a placed grid, where its label goes: the label band the
// placement left (HeatmapParams::labelBand, ValueGridParams::labelBand) less half the gap to the
// tile above; 0 without a band. Both explorers write tile labels there, never over cells.
[[nodiscard]] int tileLabelRoom(const std::vector<HeatmapTile>& tiles, std::size_t n);

// Grid layout: columns x rows with near-square tiles for H heads in a width x height image.
struct GridLayout {
    int columns = 1;
    int rows = 1;
};
[[nodiscard]] GridLayout gridLayout(int heads, int width, int height);

[[nodiscard]] Result<Heatmap> renderHeatmap(const HeatmapParams& params, unsigned threads = 0,
                                            const ProgressFn& progress = {});

// Attention heatmaps keep recent heads' q.k key vectors (up to 96 MiB), so a change that leaves
// seed, d_k and K alone draws none. This empties that cache (benchmarks of the cold path).
void clearHeatmapCaches();

// Which (head, query, key) is under pixel (x, y) of a heatmap, if any.
struct CellHit {
    int head = 0;
    std::int64_t query = 0;
    std::int64_t key = 0;
};
[[nodiscard]] std::optional<CellHit> hitTest(const Heatmap& map, const HeatmapParams& params, int x, int y);

// Small multiples of any (H, Q, K) array (a difference, an error) with a fixed [lo, hi]:
// the same tile placement and pixel-to-cell mapping as renderHeatmap; a pixel covering
// several cells shows the one farthest from zero; non-finite values are drawn in kMaskedColor.
struct ValueGridParams {
    int heads = 1;
    std::int64_t queries = 1, keys = 1;
    Colormap colormap = Colormap::Diverging;
    double lo = -1, hi = 1;
    int width = 1024, height = 768;
    int gap = 4;
    int labelBand = 0;  // pixels above every tile (of several) for its label
    // Tiles shrunk to square cells (K:Q), the image cropped to them: a view that asks for its
    // own shape gets undistorted tiles as large as that shape allows.
    bool squareCells = false;
};
[[nodiscard]] Heatmap renderValueGrid(
    const ValueGridParams& params, const std::function<double(int head, std::int64_t query, std::int64_t key)>& value);

// The tile placement every heatmap uses, for other pictures built on it (saved attention
// maps): `heads` in order, in a width x height image with `gap` pixels between tiles; sets
// map.columns and map.rows.
[[nodiscard]] std::vector<HeatmapTile> placeHeatmapTiles(const std::vector<int>& heads, int width, int height, int gap,
                                                         Heatmap& map, int labelBand = 0);
// The subtitle text of a heatmap's pixel-to-cell mapping ("1 px = 16 x 16 cells, max over keys, ...").
// A view that shows the image scaled by `zoomX` x `zoomY` screen pixels per image pixel (the head
// detail draws a 16 x 16 image with 38 px cells) passes its zoom: "1 cell = 38.2 x 38.2 px".
[[nodiscard]] std::string heatmapSummary(const Heatmap& map, bool attention, double zoomX = 1, double zoomY = 1);

// A horizontal or vertical colour bar image for [lo, hi].
[[nodiscard]] Image renderColorBar(Colormap map, int width, int height, bool vertical);

// The pixel-to-cell mapping every heatmap uses: pixel p of a tile `pixels` wide showing
// `cells` cells covers cells [first, last] (one cell, the one under its centre, when cells
// are fewer than pixels).
struct CellSpan {
    std::int64_t first = 0, last = 0;
};
[[nodiscard]] CellSpan pixelCells(int p, int pixels, std::int64_t cells);

// Maps a value into the colour of `map` for range [lo, hi]; -inf or masked -> kMaskedColor.
[[nodiscard]] Rgba valueColor(Colormap map, double value, double lo, double hi);

}  // namespace alibi
