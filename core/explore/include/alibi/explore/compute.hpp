// The computations behind every explorer view, as plain functions over the core: the head grid,
// then the details (detail image, statistics, curves, stages) and the optional compare and
// extrapolation views. `cancelled` is polled between steps and inside long core calls; a
// cancelled call returns early with what it has (grid: ErrorCode::Cancelled).
#pragma once

#include <alibi/explore/snapshot.hpp>
#include <alibi/render/color_scale.hpp>

#include <functional>
#include <vector>

namespace alibi::explore {

using CancelledFn = std::function<bool()>;

// A first, coarser picture of a costly grid (see computeGrid); its grid.rowStep > 1.
using GridPreviewFn = std::function<void(GridSnapshot)>;

// One pass of computeGrid: HeatmapParams::rowStep and keyStep (both 1: the exact grid).
struct GridPass {
    int rowStep = 1;
    int keyStep = 1;
    friend bool operator==(const GridPass&, const GridPass&) = default;
};

// The grid heatmap at the request's pixel size, with its title and subtitle. `progress`
// (optional) counts the work done of the whole call (every pass below) in arbitrary units;
// returning false cancels too. A view costs what its pixels need: attention with content
// computes one exact row (over every key) per pixel row. When that is costly and `preview` is
// given, previews go to `preview` first (see gridPasses), and the exact picture is returned last.
[[nodiscard]] Result<GridSnapshot> computeGrid(const Request& request, const CancelledFn& cancelled = {},
                                               const ProgressFn& progress = {}, const GridPreviewFn& preview = {});
// The passes computeGrid takes for `params`, ending in the exact {1, 1}; {{1, 1}} when the grid
// is cheap enough to show in about a second without a preview. The first picture is due in
// about a second: from fewer exact rows (rowStep > 1) or, when even that is costly (q.k with
// key vectors too large to cache: every exact row draws every key's d_k normals), from fewer
// rows and the content of 1 key in keyStep. A preview's rowStep is always > 1, so a view that
// asks `grid.rowStep > 1` knows it has a preview. While the exact grid is still far off, an
// exact pass from fewer rows comes next.
[[nodiscard]] std::vector<GridPass> gridPasses(const HeatmapParams& params);
// The passes of the details' head image (computeDetails) and of any picture whose preview must
// show exact rows only: {{1, 1}} when cheap, else a first picture from 1 exact row in rowStep
// (keyStep 1) due in about a second, then the exact {1, 1}.
[[nodiscard]] std::vector<GridPass> detailPasses(const HeatmapParams& params);
// Each pass's share of the whole work (summing to 1), for one progress over every pass.
[[nodiscard]] std::vector<double> gridPassShares(const HeatmapParams& params, const std::vector<GridPass>& passes);
// A preview pass's picture: the parameters it was rendered with (rowStep, keyStep) and the image.
using HeatmapPreviewFn = std::function<void(const HeatmapParams& pass, Heatmap preview)>;
// Renders `params` pass by pass (gridPasses or detailPasses; params' own rowStep and keyStep are
// replaced by each pass's), every pass but the last to `preview` (may be empty). `progress`
// (optional) runs once over every pass, each weighted by its modelled cost (gridPassShares), in
// arbitrary units; returning false cancels (ErrorCode::Cancelled). Returns the last pass's
// heatmap (the exact one when the passes end in {1, 1}, as they always do).
[[nodiscard]] Result<Heatmap> renderPasses(const HeatmapParams& params, const std::vector<GridPass>& passes,
                                           unsigned threads, const ProgressFn& progress = {},
                                           const HeatmapPreviewFn& preview = {});
// What a preview pass is, in words: "preview from 1 exact row in 4" or "preview from 1 row in 2
// and q.k of 1 key in 64 (approximate)"; empty for the exact picture (rowStep and keyStep 1).
[[nodiscard]] std::string previewText(const HeatmapParams& params);
// Modelled seconds of one pass on this kind of machine (2 cores), for tests and benchmarks.
[[nodiscard]] double gridPassSeconds(const HeatmapParams& params, GridPass pass);
// Every number of the one head `params.head` (Q x K, row-major), as the detail views print them:
// the bias (biasValue) or the attention probabilities (attentionRow); masked cells are NaN. A
// batch's cells are batchCellValues'. Meant for small heads (the views ask up to 32 x 32).
[[nodiscard]] Result<std::vector<double>> headCellValues(const HeatmapParams& params, const std::vector<double>& slopes,
                                                         const CancelledFn& cancelled = {});
// The curves of the curves view: slopes per head, bias vs distance per head, and attention vs
// distance of `queryRow` (-1: the last) per head, each thinned (min/max, every peak kept) to
// `pointsPerCurve` points (0: curvePointBudget). `error` names the part that failed (the others
// stay); cancelled: whatever was done.
struct CurveSet {
    std::vector<Series> slopes;
    std::vector<Series> bias;
    std::vector<Series> attention;
    std::int64_t maxDistance = 0;  // the bias curves span 0..maxDistance
    std::string error;
};
[[nodiscard]] CurveSet computeCurves(const AttentionParams& attention, std::int64_t queryRow,
                                     const CancelledFn& cancelled = {}, std::size_t pointsPerCurve = 0);
// A first picture of the details' head image: a Snapshot holding only `grid`, `head`,
// `queryRow`, `detailParams` (rowStep > 1), `detail` and `detailTitle` (which says "preview ...,
// refining"); statistics, curves and stages are left empty (the views keep what they show).
using DetailPreviewFn = std::function<void(const Snapshot&)>;
// Everything but the grid (which the caller computed first and passes in; null: only its
// parameters are needed, and they are derived from the request as computeGrid derives them).
// `progress` (optional) counts the work done of the whole call in arbitrary units, each step
// (the detail image, statistics, curves, stages) weighted by its modelled cost; returning false
// cancels. When the head image is costly and `preview` is given, a first picture from fewer
// exact rows goes to `preview` (detailPasses) before the exact one is computed.
[[nodiscard]] Snapshot computeDetails(const Request& request, GridPtr grid, const CancelledFn& cancelled = {},
                                      const ProgressFn& progress = {}, const DetailPreviewFn& preview = {});
// The heatmap parameters of the request's head grid, as computeGrid renders it (the exact pass).
[[nodiscard]] HeatmapParams gridParams(const Request& request);
// A - B per cell over the whole tensor (both built in memory, up to 2^24 cells), tiles `gap`
// pixels apart (a figure at 2x doubles it), `labelBand` pixels free above each for its label.
// Tiles of square cells, the image cropped to them (ValueGridParams::squareCells), in every front
// end and figure alike: a stretched tile read as another distance profile than the view's.
[[nodiscard]] CompareSnapshot computeCompare(const Session& a, const CompareOverrides& b, int width, int height,
                                             const CancelledFn& cancelled = {}, int gap = 4, int labelBand = 0);
// The compare view's colour bar, in both explorers and the figure: A - B on a scale symmetric
// about 0 out to max |A - B|, its ends in the exact text of that value; A = B gives the one
// tick "0" (a +-1 bar stated a range no cell has). `masks`: a side masks cells (drawn grey).
[[nodiscard]] ColorBar compareColorBar(const CompareSnapshot& compare, bool masks, int targetTicks);
// The compare view's hover read-out of one cell: "head 3 · query i = 5 · key j = 2\nA = -1.5 ·
// B = -0.75 · A - B = -0.75"; "masked" for a side whose mode masks the cell (drawn grey). Empty
// outside the tensor or when `cells` holds no tensors.
[[nodiscard]] std::string compareReadout(const CompareCells& cells, int head, std::int64_t query, std::int64_t key);
// Attention vs distance of `head` as T grows from L to 16 L, and the mass beyond L per head.
[[nodiscard]] ExtrapolationSnapshot computeExtrapolation(const Session& session, int head,
                                                         const CancelledFn& cancelled = {});

// The query row a session means (-1: the last one), clamped into range.
[[nodiscard]] std::int64_t resolvedQueryRow(const Session& session);
// The session B of the compare view.
[[nodiscard]] Session applyCompare(const Session& a, const CompareOverrides& b);

// Titles: what a heatmap shows, in words ("Attention probabilities · 12 heads · 16 queries x
// 16 keys · causal · press slopes (max_bias 8) · f32"), and the line beneath it (the mode's formula
// and how pixels summarise cells).
[[nodiscard]] std::string heatmapTitle(const HeatmapParams& params);
[[nodiscard]] std::string heatmapSubtitle(const HeatmapParams& params, const Heatmap& map);
// "Head 3 · slope m = 1/16 · half-life 11.09 keys"
[[nodiscard]] std::string headTitle(int head, double slope);

}  // namespace alibi::explore
