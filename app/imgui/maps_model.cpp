// The attention maps' compute functions: each calls the core and packs its answer for the panels.
#include "maps_model.hpp"

#include <alibi/analysis/fit_report.hpp>
#include <alibi/explore/attention_maps_view.hpp>
#include <alibi/figure/attention_maps_render.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

namespace alibi::imgui {

namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

constexpr int kOverviewGap = 8;  // between layers (heads inside a layer are 1 px apart)

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
        // One block per layer, near-square, each the layer's grid with its own colour range.
        const GridLayout layout = gridLayout(maps.layers(), request.width, request.height);
        const int blockWidth = (request.width - kOverviewGap * (layout.columns - 1)) / layout.columns;
        const int blockHeight = (request.height - kOverviewGap * (layout.rows - 1)) / layout.rows;
        if (blockWidth < maps.heads() || blockHeight < 4) {
            result->error = fmt::format(
                "{} layers of {} heads do not fit in {} x {} pixels; widen the window or "
                "look at one layer at a time",
                maps.layers(), maps.heads(), request.width, request.height);
            return result;
        }
        Image& image = result->heatmap.image;
        image.width = request.width;
        image.height = request.height;
        image.pixels.assign(static_cast<std::size_t>(image.width) * static_cast<std::size_t>(image.height),
                            Rgba{0, 0, 0, 0});
        result->heatmap.lo = INFINITY;
        result->heatmap.hi = -INFINITY;
        params.gap = 1;
        params.head = -1;
        params.labelBand = request.labelBand;  // the block's layer label sits above its first row
        // Each block's heads with square cells, as large as the block allows.
        const TileSize square = squareCellPicture(maps.heads(), maps.queries(), maps.keys(), blockWidth, blockHeight,
                                                  params.gap, params.labelBand);
        params.width = square.width;
        params.height = square.height;
        for (int layer = 0; layer < maps.layers(); ++layer) {
            if (cancel.cancelled()) return nullptr;
            params.layerIndex = layer;
            auto map = renderAttentionMaps(maps, params);
            if (!map) {
                result->error = map.error().message;
                return result;
            }
            MapsBlock block;
            block.layer = layer;
            block.x = (layer % layout.columns) * (blockWidth + kOverviewGap);
            block.y = (layer / layout.columns) * (blockHeight + kOverviewGap);
            for (int y = 0; y < map->image.height; ++y)
                for (int x = 0; x < map->image.width; ++x) image.at(block.x + x, block.y + y) = map->image.at(x, y);
            result->heatmap.lo = std::min(result->heatmap.lo, map->lo);
            result->heatmap.hi = std::max(result->heatmap.hi, map->hi);
            result->heatmap.summary = map->summary;
            result->heatmap.log = map->log;
            map->image = {};
            block.map = std::move(*map);
            result->blocks.push_back(std::move(block));
        }
    }
    result->colorBar = renderColorBar(Colormap::Viridis, 8, std::max(request.height, 2), true);
    result->ms = msSince(start);
    return result;
}

namespace {

// The overview's block under (x, y), and the pixel inside it.
const MapsBlock* blockAt(const MapsGridResult& grid, int x, int y) {
    for (const MapsBlock& block : grid.blocks)
        for (const HeatmapTile& t : block.map.tiles)
            if (x >= block.x + t.x && y >= block.y + t.y && x < block.x + t.x + t.width && y < block.y + t.y + t.height)
                return &block;
    return nullptr;
}

}  // namespace

const Heatmap* mapsHeatmapAt(const MapsGridResult& grid, int x, int y) {
    if (!grid.request.overview) return &grid.heatmap;
    const MapsBlock* block = blockAt(grid, x, y);
    return block != nullptr ? &block->map : nullptr;
}

std::optional<MapsCell> mapsCellAt(const MapsGridResult& grid, int x, int y) {
    const AttentionMaps& maps = *grid.request.maps;
    if (grid.request.overview) {
        const MapsBlock* block = blockAt(grid, x, y);
        if (block == nullptr) return std::nullopt;
        auto hit = mapsHitTest(block->map, maps, x - block->x, y - block->y);
        if (!hit) return std::nullopt;
        return MapsCell{block->layer, hit->head, hit->query, hit->key};
    }
    auto hit = mapsHitTest(grid.heatmap, maps, x, y);
    if (!hit) return std::nullopt;
    return MapsCell{grid.request.layer, hit->head, hit->query, hit->key};
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
