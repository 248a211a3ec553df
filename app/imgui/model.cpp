// Requests derived from the AppState, and the compute functions the workers run. Everything
// numeric is a core call; this file only picks parameters, times the calls and packages results.
#include "model.hpp"

#include "app_state.hpp"
#include "view_models.hpp"

#include <alibi/explore/batch_view.hpp>
#include <alibi/explore/compute.hpp>
#include <alibi/explore/decimate.hpp>
#include <alibi/model/bias.hpp>
#include <alibi/model/slopes.hpp>
#include <alibi/render/plot_kinds.hpp>
#include <alibi/render/square_cells.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace alibi::imgui {

namespace {

double millisecondsSince(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

}  // namespace

// ---------------------------------------------------------------------------
// Requests

std::optional<GridRequest> gridRequest(const AppState& state) {
    if (state.gridWidth <= 0 || state.gridHeight <= 0) return std::nullopt;
    const Session& s = state.session;
    GridRequest request;
    HeatmapParams& p = request.heatmap = heatmapParams(s);
    // The grid shows heatmaps only; the slope and distance views are the curves panel's job.
    p.what = s.what == RenderWhat::Attention ? RenderWhat::Attention : RenderWhat::Bias;
    // The grid always shows every head; the session's head is the detail view's (as in Qt).
    p.head = -1;
    p.logScale = state.logColors && p.what == RenderWhat::Attention;
    p.labelBand = state.gridLabelBand;  // the tiles' labels sit above them, never over cells
    p.squareCells = true;               // a query row as tall as a key column is wide
    // The core's placement picks its columns from the size it is given alone (a 2x4 grid of
    // 7.19 px cells in 470 of 1080 px where 1x8 had 8.25 px): ask for the size at which it gives
    // the largest square cells in the room, as the Qt explorer does.
    const BiasParams& bias = p.attention.bias;
    // Many heads in a short view (112 at 1280x720 under the statistics) drop the label bands where
    // they would cost half the tiles' width (the core's rule, squareCellGrid).
    const SquareCellGrid square = squareCellGrid(p.head >= 0 ? 1 : bias.slopes.heads, bias.queries, bias.keyCount(),
                                                 state.gridWidth, state.gridHeight, p.gap, p.labelBand);
    p.labelBand = square.labelBand;
    p.width = square.picture.width;
    p.height = square.picture.height;
    return request;
}

int detailHead(const Session& session) {
    return std::clamp(session.head, 0, std::max(0, session.attention.bias.slopes.heads - 1));
}

CurvesRequest curvesRequest(const AppState& state) {
    return CurvesRequest{state.session.attention, state.session.queryRow};
}

explore::Request detailsRequest(const AppState& state) {
    explore::Request request;
    request.session = state.session;
    request.session.head = detailHead(state.session);
    request.session.compare.reset();  // Compare's B has a view of its own
    request.logScale = state.logColors && state.session.what == RenderWhat::Attention;
    request.statsMaxRows = state.statsMaxRows;
    request.wantCurves = false;  // the curves worker's (thinned to what a frame draws)
    return request;
}

std::optional<HoverRowRequest> hoverRowRequest(const AppState& state) {
    if (!state.hoverCell || state.session.what != RenderWhat::Attention) return std::nullopt;
    return HoverRowRequest{state.session.attention, state.hoverCell->head, state.hoverCell->query,
                           state.session.batch.active() ? state.session.batch : BatchParams{}, state.session.batchRow};
}

// ---------------------------------------------------------------------------
// Compute functions (worker threads)

std::shared_ptr<const GridResult> computeGrid(const GridRequest& request, Clock::time_point requestedAt,
                                              const CancelFlag& cancel, GridProgress* progress,
                                              const std::function<void(std::shared_ptr<const GridResult>)>& preview) {
    const Clock::time_point start = Clock::now();
    std::vector<double> slopes;
    if (auto s = computeSlopes(request.heatmap.attention.bias.slopes)) slopes = std::move(*s);
    if (progress != nullptr) {
        progress->done.store(0);
        progress->total.store(0);
    }
    auto result = [&](const HeatmapParams& params, Heatmap heatmap) {
        auto out = std::make_shared<GridResult>();
        out->request = request;
        out->requestedAt = requestedAt;
        out->slopes = slopes;
        out->heatmap = std::move(heatmap);
        out->colorBar = renderColorBar(request.heatmap.colormap, 8, kColorBarSteps, true);
        out->title = explore::heatmapTitle(params);
        out->subtitle = explore::heatmapSubtitle(params, out->heatmap);
        out->coreMs = millisecondsSince(start);
        return out;
    };
    // Passes from coarse to exact (one when the grid is cheap), one progress over all of them:
    // the core's schedule, as the Qt explorer's.
    const std::vector<explore::GridPass> passes =
        preview ? explore::gridPasses(request.heatmap) : std::vector<explore::GridPass>{{1, 1}};
    auto heatmap = explore::renderPasses(
        request.heatmap, passes, 0,
        [&](std::uint64_t done, std::uint64_t total) {
            if (progress != nullptr && total > 0) {
                progress->total.store(total, std::memory_order_relaxed);
                progress->done.store(done, std::memory_order_relaxed);
            }
            return !cancel.cancelled();
        },
        [&](const HeatmapParams& pass, Heatmap coarse) {
            if (!cancel.cancelled()) preview(result(pass, std::move(coarse)));
        });
    if (!heatmap) {
        if (heatmap.error().code == ErrorCode::Cancelled) return nullptr;
        auto failed = std::make_shared<GridResult>();
        failed->request = request;
        failed->requestedAt = requestedAt;
        failed->slopes = slopes;
        failed->error = heatmap.error().message;
        failed->coreMs = millisecondsSince(start);
        return failed;
    }
    return result(request.heatmap, std::move(*heatmap));
}

std::shared_ptr<const CurvesResult> computeCurves(const CurvesRequest& request, const CancelFlag& cancel) {
    const Clock::time_point start = Clock::now();
    // The core's curves (explore::computeCurves, as the Qt explorer's), thinned to what a frame
    // draws: a few hundred points per head, never 65536, every peak kept.
    const int heads = std::max(1, request.attention.bias.slopes.heads);
    const auto columns = static_cast<std::size_t>(std::clamp(kCurvePointBudget / heads, 16, kCurveColumns));
    explore::CurveSet curves =
        explore::computeCurves(request.attention, request.queryRow, cancel.cancelledFn(), columns);
    if (cancel.cancelled()) return nullptr;
    auto result = std::make_shared<CurvesResult>();
    result->request = request;
    result->maxDistance = curves.maxDistance;
    result->error = std::move(curves.error);
    result->slopes = std::move(curves.slopes);
    result->bias = std::move(curves.bias);
    result->attention = std::move(curves.attention);
    result->slopeRange = plotRanges(result->slopes, plotAxes(PlotKind::Slopes));
    result->biasRange = plotRanges(result->bias, plotAxes(PlotKind::BiasDistance));
    result->attentionRange = plotRanges(result->attention, plotAxes(PlotKind::AttentionDistance));
    result->coreMs = millisecondsSince(start);
    return result;
}

std::shared_ptr<const DetailsResult> computeDetailsResult(
    const explore::Request& request, const CancelFlag& cancel, GridProgress* progress,
    const std::function<void(std::shared_ptr<const DetailsResult>)>& preview) {
    const Clock::time_point start = Clock::now();
    if (progress != nullptr) {
        progress->done.store(0);
        progress->total.store(0);
    }
    // The head image as a panel shows it (its own parameters, title and colour bar).
    auto detailOf = [&request](const explore::Snapshot& s) {
        auto detail = std::make_shared<GridResult>();
        detail->request.heatmap = s.detailParams;
        detail->heatmap = s.detail;
        detail->values = s.detailValues;
        detail->title = explore::heatmapTitle(s.detailParams);
        detail->subtitle = explore::heatmapSubtitle(s.detailParams, s.detail);
        detail->colorBar = renderColorBar(request.session.colormap, 8, kColorBarSteps, true);
        detail->slopes = s.grid ? s.grid->slopes : std::vector<double>{};
        return detail;
    };
    const explore::Snapshot snapshot = explore::computeDetails(
        request, nullptr, cancel.cancelledFn(),
        [&](std::uint64_t done, std::uint64_t total) {
            if (progress != nullptr && total > 0) {
                progress->total.store(total, std::memory_order_relaxed);
                progress->done.store(done, std::memory_order_relaxed);
            }
            return !cancel.cancelled();
        },
        [&](const explore::Snapshot& first) {
            if (cancel.cancelled() || !preview) return;
            auto shown = std::make_shared<DetailsResult>();
            shown->request = request;
            auto detail = detailOf(first);
            detail->coreMs = millisecondsSince(start);
            shown->detail = std::move(detail);
            preview(std::move(shown));
        });
    if (cancel.cancelled()) return nullptr;
    const double coreMs = millisecondsSince(start);
    auto result = std::make_shared<DetailsResult>();
    result->request = request;
    auto detail = detailOf(snapshot);
    detail->coreMs = coreMs;
    if (snapshot.detail.image.width == 0) detail->error = snapshot.error.empty() ? "no picture" : snapshot.error;
    result->detail = std::move(detail);
    auto stats = std::make_shared<StatsOutcome>();
    if (snapshot.stats)
        stats->stats = *snapshot.stats;
    else
        stats->error = snapshot.error.empty() ? "no statistics" : snapshot.error;
    stats->coreMs = coreMs;
    result->stats = std::move(stats);
    auto stages = std::make_shared<StagesResult>();
    stages->request = StagesRequest{request.session.attention, snapshot.head, snapshot.queryRow};
    if (snapshot.grid && snapshot.head < std::ssize(snapshot.grid->slopes))
        stages->slope = snapshot.grid->slopes[static_cast<std::size_t>(snapshot.head)];
    if (snapshot.stages)
        stages->stages = *snapshot.stages;
    else
        stages->error = snapshot.error.empty() ? "no stages" : snapshot.error;
    result->stages = std::move(stages);
    return result;
}

std::shared_ptr<const HoverRow> computeHoverRow(const HoverRowRequest& request, const CancelFlag& cancel) {
    if (cancel.cancelled()) return nullptr;
    auto result = std::make_shared<HoverRow>();
    result->request = request;
    auto row = request.batch.active()
                   ? batchAttentionRow(request.attention, request.batch, request.batchRow, request.head, request.query)
                   : attentionRow(request.attention, request.head, request.query);
    if (!row) {
        result->error = row.error().message;
    } else {
        result->probabilities = std::move(*row);
    }
    return result;
}

ReadOptions readOptions(const CancelFlag& job, const std::shared_ptr<FileReadProgress>& progress) {
    ReadOptions options;
    options.cancelled = job.cancelledFn();
    if (progress)
        options.progress = [progress, last = Clock::time_point{}](const ReadProgress& p) mutable {
            if (progress->observer && !progress->observer(p)) return false;
            progress->fraction.store(static_cast<float>(p.fraction()));
            {
                std::lock_guard lock(progress->mutex);
                progress->text = p.text();
            }
            const auto now = Clock::now();
            if (progress->wake && (now - last > std::chrono::milliseconds(50) || p.done == p.total)) {
                last = now;
                progress->wake();
            }
            return true;
        };
    return options;
}

}  // namespace alibi::imgui
