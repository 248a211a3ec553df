// Which picture of saved attention maps a request names, and drawing it with the core's
// renderers (attention_maps_render.hpp, attention_maps_plots.hpp).
#include <alibi/figure/maps_file_figure.hpp>

#include <alibi/analysis/head_fit.hpp>
#include <alibi/analysis/head_similarity.hpp>
#include <alibi/figure/attention_maps_plots.hpp>
#include <alibi/figure/attention_maps_render.hpp>
#include <alibi/figure/head_compare_figure.hpp>

#include <fmt/format.h>
#include <algorithm>

namespace alibi {

std::optional<MapsFigureKind> parseMapsFigureKind(std::string_view name) {
    for (const auto kind : {MapsFigureKind::Attention, MapsFigureKind::Overview, MapsFigureKind::Similarity,
                            MapsFigureKind::Fit, MapsFigureKind::Row, MapsFigureKind::Heads})
        if (mapsFigureKindName(kind) == name) return kind;
    return std::nullopt;
}

std::string_view mapsFigureKindName(MapsFigureKind kind) {
    switch (kind) {
        case MapsFigureKind::Overview:
            return "overview";
        case MapsFigureKind::Similarity:
            return "similarity";
        case MapsFigureKind::Fit:
            return "fit";
        case MapsFigureKind::Row:
            return "row";
        case MapsFigureKind::Heads:
            return "heads";
        default:
            return "attention";
    }
}

bool mapsFigureIsVector(MapsFigureKind kind) {
    return kind == MapsFigureKind::Fit || kind == MapsFigureKind::Row;
}

Result<explore::HeadCompareRequest> headCompareRequestOf(const AttentionMaps& maps, const MapsFileFigureRequest& r) {
    explore::HeadCompareRequest request;
    int layerIndex = 0;
    if (r.layer) {
        auto index = explore::headRefOf(maps, *r.layer, 0, "--layer");
        if (!index) return std::unexpected(index.error());
        layerIndex = index->layerIndex;
    }
    auto a = explore::headRefOf(maps, maps.layerInfo()[static_cast<std::size_t>(layerIndex)].number,
                                r.head < 0 ? 0 : r.head, "--head");
    if (!a) return std::unexpected(a.error());
    request.a = *a;
    if (r.versus.empty())
        return fail(ErrorCode::InvalidArgument,
                    "--what heads needs --vs: another head (LAYER:HEAD, or HEAD of the same layer), prior (the "
                    "configured slope's) or fitted-prior (at m*)");
    if (r.versus == "prior") {
        request.b = explore::CompareSource::ConfiguredPrior;
    } else if (r.versus == "fitted-prior") {
        request.b = explore::CompareSource::FittedPrior;
    } else {
        auto b = explore::parseHeadRef(maps, r.versus, layerIndex, "--vs");
        if (!b) return std::unexpected(b.error());
        request.bHead = *b;
    }
    if (!r.configured.empty()) {
        if (auto ok = explore::checkPairing(maps, static_cast<int>(r.configured.size()), "the given slopes"); !ok)
            return std::unexpected(ok.error());
        request.configured = r.configured;
    }
    request.threads = r.threads;
    request.progress = r.progress;
    return request;
}

Result<MapsFileFigure> renderMapsFileFigure(const AttentionMaps& maps, const MapsFileFigureRequest& r) {
    if (!r.versus.empty() && r.what != MapsFigureKind::Heads)
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("--vs names the second head of --what heads; --what {} draws no second head: drop it",
                                mapsFigureKindName(r.what)));
    if (r.what == MapsFigureKind::Heads) {
        if (r.svg) return fail(ErrorCode::InvalidArgument, "--what heads draws heatmaps, which are PNG only");
        if (r.logScale || r.maxDistance || r.query >= 0)
            return fail(ErrorCode::InvalidArgument,
                        "--what heads draws both heads whole on linear scales: drop --log-scale, --max-distance and "
                        "--query");
        auto request = headCompareRequestOf(maps, r);
        if (!request) return std::unexpected(request.error());
        auto compared = explore::compareHeads(maps, *request);
        if (!compared) return std::unexpected(compared.error());
        auto figure =
            renderHeadCompareFigure(maps, *compared, {r.colormap, r.width, r.heightGiven ? r.height : 0, r.pixelRatio});
        if (!figure) return std::unexpected(figure.error());
        MapsFileFigure out;
        out.image = std::move(figure->image);
        return out;
    }
    if (r.svg && !mapsFigureIsVector(r.what))
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("--what {} draws a heatmap, which is PNG only (SVG is for fit and row)",
                                mapsFigureKindName(r.what)));
    int layerIndex = 0;
    if (r.layer) {
        auto index = maps.layerIndexOf(*r.layer);
        if (!index) return std::unexpected(index.error());
        layerIndex = *index;
    }
    MapsFileFigure out;
    // The plots are PNG (at the pixel ratio) or SVG.
    const auto plot = [&](const PlotFigure& figure) -> Result<MapsFileFigure> {
        if (r.svg) {
            out.svg = plotFigureSvg(figure);
            return out;
        }
        auto image = plotFigurePng(figure, r.pixelRatio);
        if (!image) return std::unexpected(image.error());
        out.image = std::move(*image);
        return out;
    };
    const auto picture = [&](Result<Image> image) -> Result<MapsFileFigure> {
        if (!image) return std::unexpected(image.error());
        out.image = std::move(*image);
        return out;
    };
    MapsHeatmapParams params;
    params.layerIndex = layerIndex;
    params.head = r.head;
    params.colormap = r.colormap;
    params.scale = r.scale;
    params.reduce = r.reduce;
    params.logScale = r.logScale;
    params.width = r.width;
    params.height = r.height;
    params.progress = r.progress;

    // Options a figure cannot honour are refused, never ignored.
    if (r.maxDistance && r.what != MapsFigureKind::Row)
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("--max-distance sets the keys of --what row; --what {} has no distance range: drop it",
                                mapsFigureKindName(r.what)));
    if (r.maxDistance && *r.maxDistance < 1)
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("--max-distance {}: give a distance of at least 1 key", *r.maxDistance));
    if (r.logScale &&
        (r.what == MapsFigureKind::Row || r.what == MapsFigureKind::Fit || r.what == MapsFigureKind::Similarity))
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("--log-scale colours the heatmaps (--what attention, overview); --what {} is {}: drop "
                                "it",
                                mapsFigureKindName(r.what),
                                r.what == MapsFigureKind::Similarity ? "a distance matrix" : "a plot on linear axes"));
    switch (r.what) {
        case MapsFigureKind::Attention:
            return picture(renderAttentionMapsFigure(maps, params, r.threads, r.pixelRatio));
        case MapsFigureKind::Overview:
            if (r.layer || r.head >= 0)
                return fail(
                    ErrorCode::InvalidArgument,
                    "--what overview draws every layer and head: drop --layer and --head (or use --what attention)");
            {
                auto image = renderAttentionOverviewFigure(maps, params, r.threads, r.pixelRatio);
                if (image && !r.heightGiven) cutBelowContent(*image, 10 * std::max(r.pixelRatio, 1));
                return picture(std::move(image));
            }
        default:
            break;
    }
    HeadFitOptions options;
    options.layers = {layerIndex};
    options.threads = r.threads;
    options.progress = r.progress;
    if (r.what == MapsFigureKind::Similarity) {
        auto fits = fitHeads(maps, options);
        if (!fits) return std::unexpected(fits.error());
        const DistanceMatrix d = profileDistances(*fits);
        const std::string title =
            fmt::format("Head similarity · layer {} · attention-vs-distance profiles · heads in clustering order",
                        maps.layerInfo()[static_cast<std::size_t>(layerIndex)].number);
        return picture(renderSimilarityFigure(d, clusterOrder(d), title, r.colormap, r.width, r.height, r.pixelRatio));
    }
    const int head = r.head < 0 ? 0 : r.head;
    if (head >= maps.heads())
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("--head {}: the maps have {} heads (0 to {})", head, maps.heads(), maps.heads() - 1));
    if (r.query >= maps.queries())
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("--query {}: the maps have {} query rows (0 to {}, or -1 for the last)", r.query,
                                maps.queries(), maps.queries() - 1));
    auto fits = fitHeads(maps, options, r.configured);
    if (!fits) return std::unexpected(fits.error());
    const HeadFit& fit = (*fits)[static_cast<std::size_t>(head)];
    if (r.what == MapsFigureKind::Fit) return plot(fitProfileFigure(fit, maps, 0, -1, r.width, r.height));
    const std::int64_t query = r.query < 0 ? maps.queries() - 1 : r.query;
    auto figure = mapsRowFigure(maps, layerIndex, head, query, {fit.slope, fit.configuredSlope}, r.width, r.height,
                                r.maxDistance);
    if (!figure) return std::unexpected(figure.error());
    return plot(*figure);
}

}  // namespace alibi
