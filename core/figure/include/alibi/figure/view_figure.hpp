// One explorer view as a finished figure, for slides and papers: what File > Export view writes
// in both explorers and what `alibi render --what VIEW` writes in batch, byte for byte the same
// for the same session. Every figure has the view's title, axes with tick labels, a legend or
// colour bar, and the view's formula line as its caption. A PNG at scale 2 or 4 is the 1x layout
// drawn with that many times the pixels (text, lines and heatmaps rendered at that size, never an
// upscaled image); views drawn from lines and text also write SVG.
#pragma once

#include <alibi/analysis/diagnose.hpp>
#include <alibi/base/error.hpp>
#include <alibi/base/progress.hpp>
#include <alibi/base/tensor.hpp>
#include <alibi/figure/figure.hpp>
#include <alibi/io/session.hpp>
#include <alibi/model/position_schemes.hpp>
#include <alibi/render/render.hpp>

#include <cstdint>
#include <string>

namespace alibi {

struct ViewFigureRequest {
    // The explorer's session: its parameters, head, query row, colour map and scale, compare B.
    // `session.width` x `session.height` is the whole figure at 1x.
    Session session;
    ExplorerView view = ExplorerView::Grid;
    // ExplorerView::Curves: which of the view's plots (slopes per head, bias vs distance,
    // attention vs distance for the session's query row).
    CurveKind curves = CurveKind::Slopes;
    // ExplorerView::PositionSchemes: the distance axis d = 0..D and what is drawn on it (the
    // ALiBi slopes come from the session).
    std::int64_t schemesMaxDistance = 128;
    SchemeQuantity schemesQuantity = SchemeQuantity::Logit;
    int scale = 1;         // PNG device pixels per layout pixel: 1, 2 or 4
    unsigned threads = 0;  // heatmap rendering (0: every core)
    // Grid and Detail of a single sequence: how pixels summarise cells and the attention's log10
    // colours (what `alibi render --reduce / --log-scale` ask; the explorers keep the defaults).
    Reduce reduce = Reduce::Auto;
    bool logScale = false;
    // Counts what the view's computation counts (grid pixel rows, heads of attention curves...);
    // returning false cancels with ErrorCode::Cancelled.
    ProgressFn progress;
    // Grid and Detail of a single sequence: when set, a costly heatmap is computed as the
    // explorers compute it, a first picture (reported here, with its pass's parameters) and then
    // the exact one, progress running once over both (renderHeatmapFigure). The figure is the same.
    HeatmapPassFn firstPicture;
};

// The views that have a figure: Grid, Detail, Curves, Stages, Compare, Extrapolation and
// PositionSchemes. Stats is a table (its CSV is the export); Diagnose draws a user's tensor
// (renderDiagnosisFigure below).
[[nodiscard]] bool viewHasFigure(ExplorerView view);
// Views drawn from lines and text, which also export SVG: Curves, Stages, Extrapolation,
// PositionSchemes.
[[nodiscard]] bool viewFigureIsVector(ExplorerView view);

// The figure as an image of (session.width * scale) x (session.height * scale) pixels. An error
// names what is wrong: a view without a figure, a scale other than 1, 2, 4, a figure larger than
// 16384 pixels a side, parameters the session cannot draw.
[[nodiscard]] Result<Image> renderViewFigurePng(const ViewFigureRequest& request);
// The same layout as a standalone SVG document (scale ignored); an error for heatmap views.
[[nodiscard]] Result<std::string> renderViewFigureSvg(const ViewFigureRequest& request);

// A default file name for the figure: "grid.png", "head-3.png", "curves-bias-distance.svg",
// "stages-h3-q15.png", "compare.png", "extrapolation-h3.svg", "position-schemes.svg"
// (`svg` picks the extension).
[[nodiscard]] std::string viewFigureFileName(const ViewFigureRequest& request, bool svg);

// What the compare view's B replaces, in words: "A with scheme geometric", "A with scheme linear,
// max_bias 4", "the same as A" (the compare figure's title says it).
[[nodiscard]] std::string compareOverridesText(const CompareOverrides& b);

// The Diagnose view's figure: |tensor - correct ALiBi| per head, grid layout, magma, with the
// title (source name, shape, dtype), axes, colour bar with exact ends, and the diagnosis summary
// as caption. `width` x `height` at 1x, `scale` 1, 2 or 4. An error when the diagnosis found no
// ALiBi parameters to compare against.
struct DiagnosisFigureRequest {
    const Tensor* tensor = nullptr;
    const Diagnosis* diagnosis = nullptr;
    std::string source;  // the file name shown in the title
    int width = 1024, height = 768;
    int scale = 1;
    FigureMapPlacement* placed = nullptr;  // where the map's tiles were drawn, if asked
};
[[nodiscard]] Result<Image> renderDiagnosisFigure(const DiagnosisFigureRequest& request);

}  // namespace alibi
