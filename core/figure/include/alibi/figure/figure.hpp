// Finished figures, as `alibi render` writes them and the Python module shows them: a heatmap
// PNG image (head grid or one head: title, axes, head labels, colour bar, formula caption) and SVG
// curves (slopes on a log2 axis, bias vs distance, attention vs distance). One implementation,
// so every front end produces the same bytes for the same parameters.
#pragma once

#include <alibi/base/error.hpp>
#include <alibi/base/progress.hpp>
#include <alibi/model/batch.hpp>
#include <alibi/model/params.hpp>
#include <alibi/render/color_scale.hpp>
#include <alibi/render/render.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace alibi {

// What the frame of a heatmap figure writes around the heatmap, the same parts the Qt
// explorer's exported head grid shows: the title above (wrapped at " · " into two lines), axes
// with round tick labels (key j along the bottom row of tiles, query i along the left column),
// the head labels in the tiles, a vertical colour bar with round ticks and exact ends at the
// right, and the caption (the formula line) beneath. Text is DejaVu Sans through FreeType
// (fonts-dejavu-core); figures under 240 x 180 (at 1x) keep only the heatmap and the bar.
struct FigureFrame {
    Colormap colormap = Colormap::Viridis;
    std::string title;
    // Room for at least this many title lines (frames placed side by side reserve the same, so
    // their heatmaps start at the same height whatever their titles wrap to).
    int titleLines = 0;
    std::int64_t queries = 0, keys = 0;  // the axes' cell counts (0: no axes)
    // The axes' names and the label of cell n on them (empty function: the index itself); the
    // similarity figure's axes are heads in its order, "h3".
    std::string keyAxis = "key j →", queryAxis = "query i →";
    std::function<std::string(std::int64_t n)> axisLabel;
    // The tokens of the keys and of the query rows, made visible (alibi/text/visible.hpp): an
    // axis whose cells are a text line apart labels every cell with its token (indexAxisLabels,
    // alibi/render/ticks.hpp; turned a quarter along the key axis), otherwise with numbers.
    std::vector<std::string> keyTokens, queryTokens;
    std::vector<double> slopes;  // per head: "h3  m = 1/16" labels (empty: "h3")
    // The colour bar of the drawn heatmap: `tile` -1 is the shared scale, otherwise that tile's
    // own range (the per-tile "[lo, hi]" of `tileRanges`). Empty: the map's lo..hi, exact in f64.
    std::function<alibi::ColorBar(const Heatmap& map, int tile, int targetTicks)> colorBar;
    bool tileRanges = false;  // per-head scale: each tile's label carries its own range
    bool headLabels = true;   // "h3" in each tile (off for pictures whose tiles are not heads)
    // The label of tile n instead of "h3" (the overview's "L2 h3"); where it does not fit the
    // tile, "h3" and then "3" are tried.
    std::function<std::string(int tile)> tileLabel;
    // The caption under the figure (the formula line); empty function: none. It wraps at its
    // " · " parts to at most `captionLines` lines, the last elided.
    std::function<std::string(const Heatmap& map)> caption;
    int captionLines = 2;
    // Device pixels per layout pixel (1, 2, 4): a 2x figure is the 1x layout with twice the
    // pixels everywhere, the heatmap rendered at that size, not upscaled.
    int scale = 1;
    // The 1x font size; 0: figureFontSize of the frame's own size. Frames drawn side by side as
    // one figure pass the whole figure's, so their text matches.
    double fontSize = 0;
};

// Cuts `image` `margin` pixels below its lowest row that differs from its bottom-left pixel
// (the background): a figure asked for at no height ends below what it drew.
void cutBelowContent(Image& image, int margin);

// The 1x font size of a width x height (1x) figure: a 55th of its smaller side, 10 to 16.
[[nodiscard]] double figureFontSize(double width, double height);

// The frame of every heatmap figure, in exactly width x height pixels: `draw(w, h, band)`
// renders the heatmap into the w x h pixels the frame leaves, with `band` pixels free above every
// tile of a grid (HeatmapParams::labelBand) where the frame writes the tile's label, so no label
// covers a cell. An error when the label font is missing.
using DrawHeatmapFn = std::function<Result<Heatmap>(int width, int height, int labelBand)>;
// Where the frame put the heatmap: its top-left pixel in the figure and its tiles (relative to
// it), for a view that shows the figure itself and maps the mouse back to cells.
struct FigureMapPlacement {
    int x = 0, y = 0;
    std::vector<HeatmapTile> tiles;
};
[[nodiscard]] Result<Image> heatmapFigure(int width, int height, const FigureFrame& frame, const DrawHeatmapFn& draw,
                                          FigureMapPlacement* placed = nullptr);
// The bare frame: colour bar of `colormap`, head labels; no title, axes or caption.
[[nodiscard]] Result<Image> heatmapFigure(int width, int height, Colormap colormap, const DrawHeatmapFn& draw);

// Called when a first, coarser picture of a heatmap is ready, with the parameters of its pass
// (rowStep > 1; explore::previewText says what it is).
using HeatmapPassFn = std::function<void(const HeatmapParams& pass)>;
// The explorer's head grid (or one head) as a figure: its title, axes, colour bar and formula
// line. `params.width` x `params.height` is the whole figure at 1x; it has `scale` times as many
// pixels each way. Progress counts what renderHeatmap counts. With `firstPicture`, a costly
// heatmap is computed as the explorers compute it (explore::gridPasses: a first picture, reported
// to `firstPicture`, then the exact one, with one progress over both); the figure is the exact one.
[[nodiscard]] Result<Image> renderHeatmapFigure(const HeatmapParams& params, unsigned threads = 0,
                                                const ProgressFn& progress = {}, int scale = 1,
                                                const HeatmapPassFn& firstPicture = {});
// The same figure for row `row` of a batch (model/batch.hpp): the bias or attention of that row
// (params.what), masked cells (padding, other documents, window, future keys) in kMaskedColor,
// the colour range the exact extremes of the unmasked shown cells. A pixel covering several
// cells shows the one farthest from zero (renderValueGrid); reduce and logScale do not apply.
[[nodiscard]] Result<Image> renderBatchHeatmapFigure(const HeatmapParams& params, const BatchParams& batch,
                                                     std::int64_t row, int scale = 1);

enum class CurveKind { Slopes, BiasDistance, AttentionDistance };
// "slopes", "distance", "attention-distance": the CLI's --what spellings.
[[nodiscard]] std::string_view curveKindName(CurveKind kind);
[[nodiscard]] std::optional<CurveKind> parseCurveKind(std::string_view name);

struct CurvesParams {
    AttentionParams attention;
    CurveKind kind = CurveKind::Slopes;
    std::int64_t query = -1;  // attention-distance: the query row (-1: the last)
    int head = -1;            // the series drawn emphasised (-1: none)
    int width = 1024;
    int height = 768;
};

// A standalone SVG document. Progress counts heads of attention-distance curves (each a row of
// q.k content, which can take a while); the other curves are instant.
[[nodiscard]] Result<std::string> renderCurvesSvg(const CurvesParams& params, const ProgressFn& progress = {});

}  // namespace alibi
