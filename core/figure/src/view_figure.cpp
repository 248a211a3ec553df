// Explorer views as finished figures (render/view_figure.hpp): the heatmap views through the
// heatmap figure frame (figure.hpp), the vector views laid out once and drawn through a canvas
// (plot_draw.hpp) as SVG or PNG.
#include <alibi/base/image_size.hpp>
#include <alibi/figure/view_figure.hpp>

#include <alibi/explore/compute.hpp>
#include <alibi/explore/diagnosis_error_map.hpp>
#include <alibi/explore/stages.hpp>
#include <alibi/figure/position_schemes_figure.hpp>
#include <alibi/model/attention.hpp>
#include <alibi/model/slopes.hpp>
#include <alibi/render/color_scale.hpp>
#include <alibi/render/format.hpp>
#include <alibi/render/plot.hpp>
#include <alibi/render/plot_kinds.hpp>

#include <alibi/render/canvas.hpp>
#include <alibi/render/plot_draw.hpp>
#include "curves_plot.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace alibi {
namespace {

Result<void> checkScaleAndSize(int width, int height, int scale) {
    if (scale != 1 && scale != 2 && scale != 4)
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("pixel ratio {} is not 1, 2 or 4: a figure is exported at 1x, 2x or 4x", scale));
    return checkImageSize(width, height, scale, "figure");
}

Result<void> checkRequest(const ViewFigureRequest& r) {
    if (!viewHasFigure(r.view))
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("the {} view has no figure: statistics are a table (export their CSV) and the "
                                "diagnosis draws a tensor (renderDiagnosisFigure, `alibi diagnose FILE --figure`)",
                                explorerViewName(r.view)));
    if (auto size = checkScaleAndSize(r.session.width, r.session.height, r.scale); !size) return size;
    return validateSession(r.session);
}

int viewHead(const Session& s) {
    return std::clamp(std::max(s.head, 0), 0, std::max(s.attention.bias.slopes.heads - 1, 0));
}

Result<void> noRoom(const Session& s, std::string_view what, std::string_view need) {
    return fail(ErrorCode::InvalidArgument,
                fmt::format("a {} x {} figure leaves no room for {}: make it at least {} (at 1x)", s.width, s.height,
                            what, need));
}

// ---------------------------------------------------------------------------
// Heatmap views

HeatmapParams heatmapOf(const ViewFigureRequest& r) {
    HeatmapParams p = heatmapParams(r.session);
    p.head = r.view == ExplorerView::Grid ? -1 : viewHead(r.session);
    p.reduce = r.reduce;
    p.logScale = r.logScale;
    p.squareCells = true;  // as both explorers draw it: a query row as tall as a key column is wide
    return p;
}

Result<Image> heatmapView(const ViewFigureRequest& r) {
    const HeatmapParams params = heatmapOf(r);
    auto image = r.session.batch.active()
                     ? renderBatchHeatmapFigure(params, r.session.batch, r.session.batchRow, r.scale)
                     : renderHeatmapFigure(params, r.threads, r.progress, r.scale, r.firstPicture);
    if (image && !r.heightGiven) cutBelowContent(*image, 10 * std::max(r.scale, 1));
    return image;
}

// A - B per head on a diverging scale symmetric about 0, rendered at the figure's pixel size.
Result<Image> compareView(const ViewFigureRequest& r) {
    const Session& a = r.session;
    const CompareOverrides b = a.compare.value_or(explore::geometricCompare());
    FigureFrame frame;
    frame.colormap = Colormap::Diverging;
    HeatmapParams shown = heatmapParams(a);
    shown.head = -1;
    frame.title = fmt::format("A − B · A: {} · B: {}", explore::heatmapTitle(shown), compareOverridesText(b));
    frame.queries = a.attention.bias.queries;
    frame.keys = a.attention.bias.keyCount();
    if (auto slopes = computeSlopes(a.attention.bias.slopes)) frame.slopes = std::move(*slopes);
    frame.scale = r.scale;
    explore::CompareSnapshot snapshot;
    // Cells masked in A or in B are drawn grey: the swatch says so whenever a side masks.
    const bool masks = modeMasks(a.attention.bias.mode) || modeMasks(b.mode.value_or(a.attention.bias.mode));
    frame.colorBar = [&](const Heatmap&, int, int ticks) { return explore::compareColorBar(snapshot, masks, ticks); };
    frame.caption = [&](const Heatmap&) { return snapshot.summary + " · B: " + compareOverridesText(b); };
    const explore::CancelledFn cancelled = [&] { return r.progress && !r.progress(0, 1); };
    auto image = heatmapFigure(
        a.width * r.scale, a.height * r.scale, frame, [&](int width, int height, int band) -> Result<Heatmap> {
            snapshot =
                explore::computeCompare(a, b, width, height, cancelled, 4 * r.scale, band);  // the 1x gap, scaled
            if (r.progress && !r.progress(1, 1)) return fail(ErrorCode::Cancelled, "compare figure cancelled");
            if (!snapshot.error.empty()) return fail(ErrorCode::InvalidArgument, snapshot.error);
            Heatmap map;
            map.image = snapshot.image;
            map.tiles = snapshot.tiles;
            const double range = snapshot.maxAbsDifference > 0 ? snapshot.maxAbsDifference : 1.0;
            map.lo = -range;
            map.hi = range;
            return map;
        });
    // Square tiles leave the frame's lower part empty: without a height asked for, the figure ends
    // below its caption, as the grid's does.
    if (image && !r.heightGiven) cutBelowContent(*image, 10 * std::max(r.scale, 1));
    return image;
}

// ---------------------------------------------------------------------------
// Vector views: one layout drawn through a canvas

Result<detail::CurvesPlot> curvesOf(const ViewFigureRequest& r) {
    const Session& s = r.session;
    CurvesParams params;
    params.attention = s.attention;
    params.kind = r.curves;
    params.query = explore::resolvedQueryRow(s);
    params.head = s.head;
    params.width = s.width;
    params.height = s.height;
    return detail::curvesPlot(params, r.progress);
}

// The four stages of one query row, side by side, as the explorers' stages view shows them.
Result<void> drawStages(detail::Canvas& canvas, const Session& s) {
    const int head = viewHead(s);
    const std::int64_t query = explore::resolvedQueryRow(s);
    auto stages = attentionStages(s.attention, head, query);
    if (!stages) return std::unexpected(stages.error());
    auto slopes = computeSlopes(s.attention.bias.slopes);
    if (!slopes) return std::unexpected(slopes.error());
    // Every panel spans the same keys: up to the query's position where the mode masks.
    const explore::StageKeySpan span = explore::stageKeySpan(s.attention, query);

    const detail::PlotMetrics m = detail::plotMetrics(s.width, s.height);
    const std::string title = fmt::format("Attention stages · head {} (m = {}) · query {} · {} content · mode {}", head,
                                          alibi::formatSlope((*slopes)[static_cast<std::size_t>(head)]), query,
                                          contentName(s.attention.content.kind), modeName(s.attention.bias.mode));
    const std::string caption = fmt::format(
        "stage 2 = content + bias; stage 3 = stage 2 with the mode's masked keys set to the mask value, divided by "
        "the temperature τ = {}; stage 4: p_j = exp(s_j - max s) / Σ_k exp(s_k - max s) over stage 3 · keys the "
        "mode masks are left out of every panel (stages 2 and 3 hold the mask value itself there, stage 4 gives "
        "them 0)",
        s.attention.content.temperature);
    const detail::Box area = detail::drawFigureFrame(canvas, s.width, s.height, title, caption, m);
    const double gap = m.margin;
    const double panelWidth = (area.width - 3 * gap) / 4;
    if (panelWidth < 110 || area.height < 120) return noRoom(s, "the four stages side by side", "1000 x 400");

    const std::vector<double>* rows[4] = {&stages->content, &stages->withBias, &stages->masked, &stages->probabilities};
    const char* titles[4] = {"1 · content logits", "2 · + ALiBi bias", "3 · masked, / temperature", "4 · softmax"};
    for (int n = 0; n < 4; ++n) {
        Series series{fmt::format("head {}, query {}", head, query), {}, {}};
        for (std::int64_t j = span.first; j <= span.last && j < static_cast<std::int64_t>(rows[n]->size()); ++j) {
            const double v = (*rows[n])[static_cast<std::size_t>(j)];
            if (!std::isfinite(v)) continue;  // -inf is not drawn (the note counts it)
            series.x.push_back(static_cast<double>(j));
            series.y.push_back(v);
        }
        PlotStyle style = stagePanelAxes(n, static_cast<std::size_t>(span.last - span.first + 1));
        style.legend = false;
        style.xLabel = "key j";
        style.yLabel = n == 3 ? "probability" : "logit";
        std::string note = explore::stageNote(s.attention, query, n, *rows[n]);
        if (note.empty()) note = " ";
        canvas.beginGroup("plot");
        (void)detail::drawPlotPanel(
            canvas, {series}, style, detail::Box{area.x + n * (panelWidth + gap), area.y, panelWidth, area.height}, m,
            titles[n], note, std::pair{static_cast<double>(span.first), static_cast<double>(span.last)});
        canvas.endGroup();
    }
    return {};
}

Result<detail::CurvesPlot> extrapolationOf(const ViewFigureRequest& r) {
    const Session& s = r.session;
    const int head = viewHead(s);
    const explore::CancelledFn cancelled = [&] { return r.progress && !r.progress(0, 1); };
    const auto e = explore::computeExtrapolation(s, head, cancelled);
    if (cancelled()) return fail(ErrorCode::Cancelled, "extrapolation figure cancelled");
    if (!e.error.empty()) return fail(ErrorCode::InvalidArgument, e.error);
    auto slopes = computeSlopes(s.attention.bias.slopes);
    if (!slopes) return std::unexpected(slopes.error());
    detail::CurvesPlot plot;
    plot.series = e.curves;
    plot.style = plotAxes(PlotKind::Extrapolation);
    plot.style.width = s.width;
    plot.style.height = s.height;
    plot.style.title = fmt::format("Head {}: attention vs distance as T grows (L = {})", head, e.trainLength);
    // The explorers' axis: log2(1 + d), so distance 0 (the largest value) stays on it.
    plot.style.xLabel = explore::kExtrapolationDistanceAxis;
    plot.style.markX = static_cast<double>(e.trainLength);
    plot.style.markLabel = fmt::format("L = {}", e.trainLength);
    plot.style.yLabel = "probability";
    plot.style.caption = fmt::format(
        "p(d) = softmax_j((content + bias) / τ) of the last query over T keys, bias = -m·d, m = {} (head {}), "
        "{} content · trained on L = {}, tested on T = L to 16L: distances beyond L were never seen in training",
        alibi::formatSlope((*slopes)[static_cast<std::size_t>(head)]), head, contentName(s.attention.content.kind),
        e.trainLength);
    return plot;
}

PositionSchemesFigure schemesOf(const ViewFigureRequest& r) {
    PositionSchemesFigure f;
    f.schemes.slopes = r.session.attention.bias.slopes;
    f.schemes.maxDistance = r.schemesMaxDistance;
    f.schemes.quantity = r.schemesQuantity;
    f.width = r.session.width;
    f.height = r.session.height;
    f.scale = r.scale;
    return f;
}

// The vector views other than position schemes, drawn into `canvas`.
Result<void> drawVectorView(detail::Canvas& canvas, const ViewFigureRequest& r) {
    if (r.view == ExplorerView::Stages) return drawStages(canvas, r.session);
    auto plot = r.view == ExplorerView::Curves ? curvesOf(r) : extrapolationOf(r);
    if (!plot) return std::unexpected(plot.error());
    const detail::PanelLayout layout = detail::drawPlotFigure(canvas, plot->series, plot->style);
    if (layout.frame.width < 60 || layout.frame.height < 60) return noRoom(r.session, "the plot", "640 x 400");
    return {};
}

}  // namespace

bool viewHasFigure(ExplorerView view) {
    return view != ExplorerView::Stats && view != ExplorerView::Diagnose;
}

bool viewFigureIsVector(ExplorerView view) {
    return view == ExplorerView::Curves || view == ExplorerView::Stages || view == ExplorerView::Extrapolation ||
           view == ExplorerView::PositionSchemes;
}

Result<Image> renderViewFigurePng(const ViewFigureRequest& request) {
    if (auto ok = checkRequest(request); !ok) return std::unexpected(ok.error());
    switch (request.view) {
        case ExplorerView::Grid:
        case ExplorerView::Detail:
            return heatmapView(request);
        case ExplorerView::Compare:
            return compareView(request);
        case ExplorerView::PositionSchemes:
            return renderPositionSchemesPng(schemesOf(request));
        default:
            break;
    }
    if (auto font = detail::loadLabelFont(); !font) return std::unexpected(font.error());
    detail::RasterCanvas canvas(request.session.width, request.session.height, request.scale);
    if (auto drawn = drawVectorView(canvas, request); !drawn) return std::unexpected(drawn.error());
    return canvas.take();
}

Result<std::string> renderViewFigureSvg(const ViewFigureRequest& request) {
    if (viewHasFigure(request.view) && !viewFigureIsVector(request.view))
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("the {} view is a heatmap, exported as PNG only (at 1x, 2x or 4x): SVG is for the "
                                "curves, stages, extrapolation and position-schemes views",
                                explorerViewName(request.view)));
    ViewFigureRequest r = request;
    r.scale = 1;  // SVG is vector: the pixel ratio does not apply
    if (auto ok = checkRequest(r); !ok) return std::unexpected(ok.error());
    if (r.view == ExplorerView::PositionSchemes) return renderPositionSchemesSvg(schemesOf(r));
    if (auto font = detail::loadLabelFont(); !font) return std::unexpected(font.error());
    detail::SvgCanvas canvas(r.session.width, r.session.height);
    if (auto drawn = drawVectorView(canvas, r); !drawn) return std::unexpected(drawn.error());
    return canvas.finish();
}

std::string viewFigureFileName(const ViewFigureRequest& request, bool svg) {
    const Session& s = request.session;
    std::string name;
    switch (request.view) {
        case ExplorerView::Grid:
            name = "grid";
            break;
        case ExplorerView::Detail:
            name = fmt::format("head-{}", viewHead(s));
            break;
        case ExplorerView::Curves:
            name = request.curves == CurveKind::Slopes         ? "curves-slopes"
                   : request.curves == CurveKind::BiasDistance ? "curves-bias-distance"
                                                               : "curves-attention-distance";
            break;
        case ExplorerView::Stages:
            name = fmt::format("stages-h{}-q{}", viewHead(s), explore::resolvedQueryRow(s));
            break;
        case ExplorerView::Compare:
            name = "compare";
            break;
        case ExplorerView::Extrapolation:
            name = fmt::format("extrapolation-h{}", viewHead(s));
            break;
        case ExplorerView::PositionSchemes:
            name = "position-schemes";
            break;
        default:
            name = std::string(explorerViewName(request.view));
            break;
    }
    return name + (svg ? ".svg" : ".png");
}

std::string compareOverridesText(const CompareOverrides& b) {
    std::vector<std::string> parts;
    if (b.scheme) parts.push_back(fmt::format("scheme {}", schemeName(*b.scheme)));
    if (b.scheme == SlopeScheme::Custom && !b.custom.empty())
        parts.push_back(fmt::format("{} custom slopes", b.custom.size()));
    if (b.maxBias) parts.push_back(fmt::format("max_bias {}", *b.maxBias));
    if (b.mode) parts.push_back(fmt::format("mode {}", modeName(*b.mode)));
    if (b.dtype) parts.push_back(fmt::format("dtype {}", dtypeName(*b.dtype)));
    if (b.mask) parts.push_back(fmt::format("mask {}", maskName(*b.mask)));
    if (parts.empty()) return "the same as A";
    std::string text = "A with ";
    for (std::size_t n = 0; n < parts.size(); ++n) text += (n ? ", " : "") + parts[n];
    return text;
}

Result<Image> renderDiagnosisFigure(const DiagnosisFigureRequest& request) {
    if (!request.tensor || !request.diagnosis)
        return fail(ErrorCode::InvalidArgument, "a diagnosis figure needs the tensor and its diagnosis");
    if (auto size = checkScaleAndSize(request.width, request.height, request.scale); !size)
        return std::unexpected(size.error());
    const Diagnosis& d = *request.diagnosis;
    if (!d.bestParams || d.heads <= 0 || d.queries <= 0 || d.keys <= 0)
        return fail(ErrorCode::InvalidArgument,
                    "the diagnosis found no ALiBi parameters to compare this tensor against, so there is no error "
                    "map to draw: read the diagnosis text instead");
    // The explorers' picture (explore/diagnosis_error_map.hpp): |tensor - correct ALiBi|, magma.
    // Its tiles are heads, or (batch row, head) pairs of a (B, H, T, T) batch.
    const std::int64_t tiles = static_cast<std::int64_t>(request.tensor->size()) / (d.queries * d.keys);
    explore::DiagnosisErrorMap built;  // the map heatmapFigure built: its range and words, for its colour bar
    std::string shapeText;
    for (std::size_t n = 0; n < request.tensor->shape().size(); ++n)
        shapeText += (n ? " x " : "") + std::to_string(request.tensor->shape()[n]);
    FigureFrame frame;
    frame.colormap = Colormap::Magma;
    // Every finding harmless: the map is the probability change, never painted as a bias error.
    const bool probability = paintProbabilityChange(d);
    frame.title = fmt::format("{} per head · {} · shape {} · {}",
                              probability ? "|softmax(tensor) − softmax(correct ALiBi)|" : "|tensor − correct ALiBi|",
                              request.source, shapeText, dtypeName(request.tensor->dtype()));
    frame.queries = d.queries;
    frame.keys = d.keys;
    // A batch's tiles are (row, head) pairs: "b1 h3" (then "h3", "3" where it does not fit).
    frame.tileLabel = [&](int tile) { return explore::diagnosisTileLabel(tile, tiles, d.heads); };
    frame.scale = request.scale;
    frame.colorBar = [&](const Heatmap&, int, int ticks) { return explore::diagnosisColorBar(built, ticks); };
    // The summary's sentences joined by " · ", the frame's break points (it keeps two lines).
    std::string summary = d.explorerSummaryText();
    for (std::size_t at = summary.find(". "); at != std::string::npos; at = summary.find(". ", at + 3))
        summary.replace(at, 2, " · ");
    frame.caption = [&](const Heatmap&) { return summary; };
    frame.captionLines = 4;  // a batch's summary names its shape, match and findings: ended at "Har..." in two
    return heatmapFigure(
        request.width * request.scale, request.height * request.scale, frame,
        [&](int width, int height, int band) -> Result<Heatmap> {
            auto picture = explore::diagnosisErrorMap(*request.tensor, d, width, height, 4 * request.scale, band,
                                                      /*squareCells=*/true);
            if (!picture)
                return fail(ErrorCode::InvalidArgument,
                            "the error map against correct ALiBi cannot be built for this tensor "
                            "(see the diagnosis text)");
            Heatmap map = std::move(picture->map);
            built = std::move(*picture);
            return map;
        },
        request.placed);
}

}  // namespace alibi
