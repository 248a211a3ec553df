// The attention maps' compute functions: each calls the core and packs its answer for the panels.
#include "maps_model.hpp"

#include <alibi/analysis/fit_report.hpp>
#include <alibi/explore/attention_maps_view.hpp>
#include <alibi/figure/attention_maps_render.hpp>
#include <alibi/figure/maps_picture.hpp>

#include <algorithm>
#include <chrono>

namespace alibi::imgui {

namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

}  // namespace

std::shared_ptr<const MapsOpenResult> openMapsFile(const MapsOpenAsk& ask, const CancelFlag* cancelled,
                                                   MapsOpenProgress* progress) {
    const auto start = Clock::now();
    auto result = std::make_shared<MapsOpenResult>();
    result->ask = ask;
    AttentionOpenOptions options;
    options.tensor = ask.tensor;
    options.batch = ask.batch;
    if (ask.values == 1) options.values = AttentionValues::Probabilities;
    if (ask.values == 2) options.values = AttentionValues::Scores;
    if (cancelled) options.cancelled = cancelled->cancelledFn();
    if (progress)
        options.progress = [progress, last = Clock::time_point{}](const AttentionOpenProgress& p) mutable {
            progress->fraction.store(static_cast<float>(p.fraction()));
            {
                std::lock_guard lock(progress->mutex);
                progress->stage = p.text();
            }
            const auto now = Clock::now();
            if (progress->wake && (now - last > std::chrono::milliseconds(50) || p.done == p.total)) {
                last = now;
                progress->wake();
            }
            return true;
        };
    auto maps = AttentionMaps::open(ask.path, options);
    if (!maps) {
        result->error = maps.error().message;
        result->cancelled = maps.error().code == ErrorCode::Cancelled;
        return result;
    }
    // The picker lists every layer tensor even when one is open.
    if (!ask.tensor.empty()) {
        AttentionOpenOptions all = options;
        all.tensor.clear();
        if (auto every = AttentionMaps::open(ask.path, all))
            for (const AttentionLayerInfo& info : every->layerInfo()) result->tensors.push_back(info.name);
    } else {
        for (const AttentionLayerInfo& info : maps->layerInfo()) result->tensors.push_back(info.name);
    }
    if (std::all_of(result->tensors.begin(), result->tensors.end(), [](const std::string& n) { return n.empty(); }))
        result->tensors.clear();  // a stacked array: no tensors to pick
    result->maps = std::make_shared<const AttentionMaps>(std::move(*maps));
    result->ms = msSince(start);
    return result;
}

std::shared_ptr<const MapsGridResult> computeMapsGrid(const MapsGridRequest& request, const CancelFlag& cancel) {
    const auto start = Clock::now();
    auto result = std::make_shared<MapsGridResult>();
    result->request = request;
    // The core's picture for the room (square cells, the overview cut to its tiles), the one Qt
    // shows; a newer request stops this one.
    MapsPictureRequest ask;
    ask.shows = request.overview ? MapsShows::Overview : request.head >= 0 ? MapsShows::Head : MapsShows::Layer;
    ask.layerIndex = request.layer;
    ask.head = std::max(request.head, 0);
    ask.logScale = request.log;
    ask.scale = request.perHead ? ScaleMode::PerHead : ScaleMode::Shared;
    ask.width = std::max(request.width, 1);
    ask.height = std::max(request.height, 1);
    ask.labelBand = request.labelBand;
    ask.progress = cancel.progress();
    auto picture = renderMapsPicture(*request.maps, ask);
    if (cancel.cancelled()) return nullptr;
    if (!picture) {
        result->error = picture.error().message;
        return result;
    }
    result->shown = std::move(*picture);
    result->colorBar = renderColorBar(Colormap::Viridis, 8, std::max(request.height, 2), true);
    result->ms = msSince(start);
    return result;
}

std::optional<MapsCell> mapsCellAt(const MapsGridResult& grid, int x, int y) {
    auto hit = mapsPictureHit(grid.shown, *grid.request.maps, x, y);
    if (!hit) return std::nullopt;
    return MapsCell{hit->layerIndex, hit->cell.head, hit->cell.query, hit->cell.key};
}

int mapsTileOf(const MapsGridResult& grid, const MapsCell& cell) {
    const std::vector<HeatmapTile>& tiles = grid.picture().tiles;
    for (std::size_t n = 0; n < tiles.size(); ++n) {
        if (grid.shown.tileLayer[n] == cell.layer && tiles[n].head == cell.head) return static_cast<int>(n);
    }
    return -1;
}

std::shared_ptr<const LayerFitResult> computeLayerFit(const LayerFitRequest& request, const CancelFlag& cancel) {
    auto result = std::make_shared<LayerFitResult>();
    result->request = request;
    const AttentionMaps& maps = *request.maps;
    HeadFitOptions options;
    options.layers = {request.layer};
    options.firstRow = request.first;
    options.lastRow = request.last;
    options.progress = [&cancel](std::uint64_t, std::uint64_t) { return !cancel.cancelled(); };
    auto fits = fitHeads(maps, options, request.configured);
    if (cancel.cancelled()) return nullptr;
    if (!fits) {
        result->error = fits.error().message;
        return result;
    }
    result->fits = std::move(*fits);
    for (const HeadFit& fit : result->fits)
        result->profiles.push_back(fitProfilePlot(fit, maps, request.first, request.last));
    if (request.basis == 1) {
        auto d = mapDistances(maps, request.layer, request.first, request.last);
        if (cancel.cancelled()) return nullptr;
        if (!d) {
            result->error = d.error().message;
            return result;
        }
        result->distances = std::move(*d);
    } else {
        result->distances = profileDistances(result->fits);
    }
    return result;
}

std::shared_ptr<const SimilarityResult> computeSimilarity(const SimilarityRequest& request, const CancelFlag&) {
    auto result = std::make_shared<SimilarityResult>();
    result->request = request;
    const LayerFitResult& fit = *request.fit;
    if (!fit.error.empty() || fit.fits.empty()) return result;
    // The core's orders, the same as `alibi fit --order index|slope|similarity`.
    const HeadOrder order = request.order == 1   ? HeadOrder::Slope
                            : request.order == 2 ? HeadOrder::Similarity
                                                 : HeadOrder::Index;
    result->order = explore::similarityHeadOrder(fit.fits, order, fit.distances);
    result->heatmap = renderSimilarity(fit.distances, result->order, Colormap::Viridis, std::max(request.width, 1),
                                       std::max(request.height, 1));
    result->colorBar = renderColorBar(Colormap::Viridis, 8, std::max(request.height, 2), true);
    return result;
}

std::shared_ptr<const MapsRowResult> computeMapsRow(const MapsRowRequest& request, const CancelFlag&) {
    auto result = std::make_shared<MapsRowResult>();
    result->request = request;
    const AttentionMaps& maps = *request.maps;
    result->probabilities.assign(static_cast<std::size_t>(maps.keys()), 0.0);
    if (auto ok = maps.probabilities(request.layer, request.head, request.row, result->probabilities); !ok) {
        result->error = ok.error().message;
        result->probabilities.clear();
        return result;
    }
    if (request.fitted)
        result->fittedPrior =
            explore::priorRow(*request.fitted, request.row, maps.queries(), maps.keys(), maps.causal());
    if (request.configured)
        result->configuredPrior =
            explore::priorRow(*request.configured, request.row, maps.queries(), maps.keys(), maps.causal());
    auto lines = explore::mapsRowSeries(maps, request.layer, request.head, request.row,
                                        explore::HeadSlopes{request.fitted, request.configured});
    if (!lines) {
        result->error = lines.error().message;
        return result;
    }
    result->lines = std::move(*lines);
    return result;
}

std::shared_ptr<const FitTableResult> computeFitTable(const FitTableRequest& request, const CancelFlag& cancel,
                                                      FitProgress& progress) {
    const auto start = Clock::now();
    auto result = std::make_shared<FitTableResult>();
    result->request = request;
    HeadFitOptions options;
    options.firstRow = request.first;
    options.lastRow = request.last;
    options.progress = [&](std::uint64_t done, std::uint64_t total) {
        progress.done.store(done, std::memory_order_relaxed);
        progress.total.store(total, std::memory_order_relaxed);
        return !cancel.cancelled() && !progress.cancel.load();
    };
    auto fits = fitHeads(*request.maps, options, request.configured);
    if (cancel.cancelled()) return nullptr;
    if (progress.cancel.load()) {
        result->cancelled = true;
        return result;
    }
    if (!fits) {
        result->error = fits.error().message;
        return result;
    }
    result->fits = std::move(*fits);
    result->ms = msSince(start);
    return result;
}

explore::HeadCompareRequest headCompareRequestOf(const TwoHeadsRequest& request) {
    explore::HeadCompareRequest r;
    r.a = {request.aLayer, request.aHead};
    r.b = static_cast<explore::CompareSource>(std::clamp(request.bSource, 0, 2));
    r.bHead = {request.bLayer, request.bHead};
    r.configured = request.configured;
    // The fit table's fits and rows, so each side shows the table's numbers.
    if (request.fits && request.fits->request.maps == request.maps && request.fits->error.empty() &&
        request.fits->request.configured == request.configured) {
        r.firstRow = request.fits->request.first;
        r.lastRow = request.fits->request.last;
        r.fits = request.fits->fits;
    }
    return r;
}

std::shared_ptr<const TwoHeadsResult> computeTwoHeads(const TwoHeadsRequest& request, const CancelFlag& cancel) {
    auto out = std::make_shared<TwoHeadsResult>();
    out->request = request;
    if (!request.maps) return out;
    explore::HeadCompareRequest r = headCompareRequestOf(request);
    r.progress = cancel.progress();
    auto compared = explore::compareHeads(*request.maps, r);
    if (!compared) {
        out->error = compared.error().message;
        return out;
    }
    auto figure = renderHeadCompareFigure(
        *request.maps, *compared, {Colormap::Viridis, std::max(request.width, 1), std::max(request.height, 1), 1});
    if (!figure) {
        out->error = figure.error().message;
        return out;
    }
    out->compare = std::make_shared<const explore::HeadCompareResult>(std::move(*compared));
    out->figure = std::move(*figure);
    return out;
}

explore::HeadSlopes headSlopesOf(const MapsModel& maps, int layer, int head) {
    explore::HeadSlopes slopes;
    if (!maps.file || head < 0) return slopes;
    if (static_cast<std::size_t>(head) < maps.configured.size())
        slopes.configured = maps.configured[static_cast<std::size_t>(head)];
    if (const LayerFitResult* f = maps.layerFit.get(); f != nullptr && f->request.maps == maps.file->maps &&
                                                       f->request.layer == layer && f->error.empty() &&
                                                       static_cast<std::size_t>(head) < f->fits.size())
        slopes.fitted = f->fits[static_cast<std::size_t>(head)].slope;
    else if (const FitTableResult* t = maps.fit.get(); t != nullptr && t->request.maps == maps.file->maps)
        for (const HeadFit& h : t->fits)
            if (h.layerIndex == layer && h.head == head) slopes.fitted = h.slope;
    return slopes;
}

}  // namespace alibi::imgui
