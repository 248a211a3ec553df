// Requests derived from the AppState, and the compute functions the workers run. Everything
// numeric is a core call; this file only picks parameters, times the calls and packages results.
#include "model.hpp"

#include "app_state.hpp"

#include <alibi/explore/batch_view.hpp>
#include <alibi/explore/compute.hpp>
#include <alibi/explore/decimate.hpp>
#include <alibi/model/bias.hpp>
#include <alibi/model/slopes.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace alibi::imgui {

namespace {

double millisecondsSince(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// The core's progress callback doubles as the cancellation check.
ProgressFn cancelProgress(const CancelFlag& cancel) {
    return [&cancel](std::uint64_t, std::uint64_t) { return !cancel.cancelled(); };
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
    p.width = state.gridWidth;
    p.height = state.gridHeight;
    p.labelBand = state.gridLabelBand;  // the tiles' labels sit above them, never over cells
    p.squareCells = true;               // a query row as tall as a key column is wide
    return request;
}

int detailHead(const Session& session) {
    return std::clamp(session.head, 0, std::max(0, session.attention.bias.slopes.heads - 1));
}

std::optional<GridRequest> detailRequest(const AppState& state) {
    if (state.detailWidth <= 0 || state.detailHeight <= 0) return std::nullopt;
    const Session& s = state.session;
    GridRequest request;
    HeatmapParams& p = request.heatmap = heatmapParams(s);
    p.what = s.what == RenderWhat::Attention ? RenderWhat::Attention : RenderWhat::Bias;
    p.head = detailHead(s);
    p.logScale = state.logColors && p.what == RenderWhat::Attention;
    p.width = state.detailWidth;
    p.height = state.detailHeight;
    const BiasParams& bias = s.attention.bias;
    request.values = bias.queries <= kDetailValuesMax && bias.keyCount() <= kDetailValuesMax;
    return request;
}

CurvesRequest curvesRequest(const AppState& state) {
    return CurvesRequest{state.session.attention, state.session.queryRow};
}

StatsRequest statsRequest(const AppState& state) {
    StatsRequest request;
    request.stats.attention = state.session.attention;
    request.stats.queryRow = state.session.queryRow;
    request.stats.maxRows = state.statsMaxRows;
    return request;
}

std::optional<HoverRowRequest> hoverRowRequest(const AppState& state) {
    if (!state.hoverCell || state.session.what != RenderWhat::Attention) return std::nullopt;
    return HoverRowRequest{state.session.attention, state.hoverCell->head, state.hoverCell->query,
                           state.session.batch.active() ? state.session.batch : BatchParams{}, state.session.batchRow};
}

PlotRange seriesRange(const std::vector<Series>& series) {
    double xMin = std::numeric_limits<double>::infinity();
    double xMax = -xMin, yMin = xMin, yMax = -xMin;
    for (const Series& s : series) {
        for (std::size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
            if (!std::isfinite(s.x[i]) || !std::isfinite(s.y[i])) continue;
            xMin = std::min(xMin, s.x[i]);
            xMax = std::max(xMax, s.x[i]);
            yMin = std::min(yMin, s.y[i]);
            yMax = std::max(yMax, s.y[i]);
        }
    }
    if (!(xMin <= xMax)) return PlotRange{};
    return PlotRange{xMin, xMax, yMin, yMax};
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
    // Passes from coarse to exact (one when the grid is cheap); one progress over all of them.
    const std::vector<explore::GridPass> passes =
        preview ? explore::gridPasses(request.heatmap) : std::vector<explore::GridPass>{{1, 1}};
    const std::vector<double> shares = explore::gridPassShares(request.heatmap, passes);
    double before = 0;
    for (std::size_t pass = 0; pass < passes.size(); ++pass) {
        auto result = std::make_shared<GridResult>();
        result->request = request;
        result->requestedAt = requestedAt;
        result->slopes = slopes;
        HeatmapParams params = request.heatmap;
        params.rowStep = passes[pass].rowStep;
        params.keyStep = passes[pass].keyStep;
        auto heatmap = renderHeatmap(params, 0, [&](std::uint64_t done, std::uint64_t total) {
            if (progress != nullptr && total > 0) {
                const double fraction = before + shares[pass] * static_cast<double>(done) / static_cast<double>(total);
                progress->total.store(1000000, std::memory_order_relaxed);
                progress->done.store(static_cast<std::uint64_t>(fraction * 1e6), std::memory_order_relaxed);
            }
            return !cancel.cancelled();
        });
        before += shares[pass];
        if (!heatmap) {
            if (heatmap.error().code == ErrorCode::Cancelled) return nullptr;
            result->error = heatmap.error().message;
            result->coreMs = millisecondsSince(start);
            return result;
        }
        result->heatmap = std::move(*heatmap);
        result->colorBar = renderColorBar(request.heatmap.colormap, 8, std::max(request.heatmap.height, 2), true);
        result->title = explore::heatmapTitle(params);
        result->subtitle = explore::heatmapSubtitle(params, result->heatmap);
        if (pass + 1 < passes.size()) {
            result->coreMs = millisecondsSince(start);
            preview(std::move(result));
            continue;
        }
        if (request.values) {
            if (auto values = explore::headCellValues(request.heatmap, result->slopes, cancel.cancelledFn())) {
                result->values = std::move(*values);
            } else if (cancel.cancelled()) {
                return nullptr;
            } else {
                result->error = values.error().message;
            }
        }
        result->coreMs = millisecondsSince(start);
        return result;
    }
    return nullptr;
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
    result->slopeRange = seriesRange(result->slopes);
    result->biasRange = seriesRange(result->bias);
    result->attentionRange = seriesRange(result->attention);
    result->coreMs = millisecondsSince(start);
    return result;
}

std::shared_ptr<const StatsOutcome> computeStatsOutcome(const StatsRequest& request, const CancelFlag& cancel) {
    const Clock::time_point start = Clock::now();
    auto result = std::make_shared<StatsOutcome>();
    result->request = request;
    auto stats = computeStats(request.stats, 0, cancelProgress(cancel));
    if (!stats) {
        if (stats.error().code == ErrorCode::Cancelled) return nullptr;
        result->error = stats.error().message;
    } else {
        result->stats = std::move(*stats);
    }
    result->coreMs = millisecondsSince(start);
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
