// The attention maps' compute functions: each calls the core and packs its answer for the panels.
#include "maps_model.hpp"

#include <alibi/analysis/fit_report.hpp>
#include <alibi/explore/attention_maps_view.hpp>
#include <alibi/figure/attention_maps_render.hpp>

#include <algorithm>
#include <chrono>

namespace alibi::imgui {

namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// The overview fills the whole room it was asked for, and its square tiles leave a margin on the
// right or below: the picture is cut to its tiles so the colour bar sits beside them (the tiles'
// places and pixels are the core's; the margin cut holds no pixel of theirs).
void trimToTiles(Image& image, const std::vector<HeatmapTile>& tiles) {
    int width = 0, height = 0;
    for (const HeatmapTile& t : tiles) {
        width = std::max(width, t.x + t.width);
        height = std::max(height, t.y + t.height);
    }
    width = std::min(width, image.width);
    height = std::min(height, image.height);
    if (width == image.width && height == image.height) return;
    Image trimmed;
    trimmed.width = width;
    trimmed.height = height;
    trimmed.pixels.reserve(static_cast<std::size_t>(width) * static_cast<std::size_t>(height));
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) trimmed.pixels.push_back(image.at(x, y));
    image = std::move(trimmed);
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
    const AttentionMaps& maps = *request.maps;
    MapsHeatmapParams params;
    params.layerIndex = request.layer;
    params.head = request.head;
    params.logScale = request.log;
    params.scale = request.perHead ? ScaleMode::PerHead : ScaleMode::Shared;
    params.width = std::max(request.width, 1);
    params.height = std::max(request.height, 1);
    if (!request.overview) {
        params.labelBand = request.labelBand;  // the tiles' labels sit above them, never over cells
        const TileSize square = squareCellPicture(request.head >= 0 ? 1 : maps.heads(), maps.queries(), maps.keys(),
                                                  params.width, params.height, params.gap, params.labelBand);
        params.width = square.width;
        params.height = square.height;
        auto map = renderAttentionMaps(maps, params);
        if (!map) {
            result->error = map.error().message;
            return result;
        }
        result->heatmap = std::move(*map);
    } else {
        // Every layer at once: the core's overview (one row of tiles per layer, a label band
        // above each row), the picture Qt shows and the exported overview figure draws.
        params.labelBand = request.labelBand;
        params.progress = cancel.progress();  // a newer request stops this one
        auto overview = renderAttentionOverview(maps, params);
        // A deep model in a small view: the bands above every row left room for only some of the
        // layers (24 layers of 16 heads at 1280x720 in presentation mode: 14 layers of 1 px
        // tiles). Then every layer without bands (the tiles unlabelled, the subtitle naming the
        // layers' order), until the core's overview decides its bands as squareCellGrid does.
        const auto every = static_cast<std::size_t>(maps.layers()) * static_cast<std::size_t>(maps.heads());
        if (overview && params.labelBand > 0 && overview->map.tiles.size() < every && !cancel.cancelled()) {
            params.labelBand = 0;
            overview = renderAttentionOverview(maps, params);
        }
        if (cancel.cancelled()) return nullptr;
        if (!overview) {
            result->error = overview.error().message;
            return result;
        }
        result->overview = std::move(*overview);
        trimToTiles(result->overview.map.image, result->overview.map.tiles);
    }
    result->colorBar = renderColorBar(Colormap::Viridis, 8, std::max(request.height, 2), true);
    result->ms = msSince(start);
    return result;
}

std::optional<MapsCell> mapsCellAt(const MapsGridResult& grid, int x, int y) {
    const AttentionMaps& maps = *grid.request.maps;
    if (grid.request.overview) {
        auto hit = overviewHitTest(grid.overview, maps, x, y);
        if (!hit) return std::nullopt;
        return MapsCell{hit->layerIndex, hit->cell.head, hit->cell.query, hit->cell.key};
    }
    auto hit = mapsHitTest(grid.heatmap, maps, x, y);
    if (!hit) return std::nullopt;
    return MapsCell{grid.request.layer, hit->head, hit->query, hit->key};
}

int mapsTileOf(const MapsGridResult& grid, const MapsCell& cell) {
    const std::vector<HeatmapTile>& tiles = grid.picture().tiles;
    for (std::size_t n = 0; n < tiles.size(); ++n) {
        const int layer = grid.request.overview ? grid.overview.tileLayer[n] : grid.request.layer;
        if (layer == cell.layer && tiles[n].head == cell.head) return static_cast<int>(n);
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
    for (const HeadFit& fit : result->fits) {
        result->fittedPrior.push_back(
            priorProfile(fit.slope, maps.queries(), maps.keys(), maps.causal(), request.first, request.last));
        result->configuredPrior.push_back(fit.configuredSlope
                                              ? priorProfile(*fit.configuredSlope, maps.queries(), maps.keys(),
                                                             maps.causal(), request.first, request.last)
                                              : std::vector<double>{});
    }
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

}  // namespace alibi::imgui
