// `alibi render FILE`: pictures of saved attention maps (see the header); every picture comes
// from the core (render/attention_maps_render.hpp), this file only chooses and writes it.
#include "render_maps.hpp"

#include "inputs.hpp"
#include "options.hpp"
#include "progress_bar.hpp"

#include <alibi/analysis/head_fit.hpp>
#include <alibi/analysis/head_similarity.hpp>
#include <alibi/io/attention_maps.hpp>
#include <alibi/figure/attention_maps_plots.hpp>
#include <alibi/figure/attention_maps_render.hpp>
#include <alibi/render/png.hpp>

#include <fmt/format.h>

namespace alibi::cli {

Result<void> renderAttentionFile(const RenderMapsRequest& r) {
    noteInput(r.file);
    if (auto ok = checkNotAnInput(r.output); !ok) return ok;
    AttentionOpenOptions open;
    open.tensor = r.tensor;
    open.batch = r.batch;
    if (!r.values.empty()) {
        open.values = parseAttentionValues(r.values);
        if (!open.values)
            return fail(ErrorCode::InvalidArgument,
                        fmt::format("--values: '{}' is unknown (expected probabilities or scores)", r.values));
    }
    auto maps = AttentionMaps::open(r.file, open);
    if (!maps) return std::unexpected(maps.error());

    int layerIndex = 0;
    if (r.layer) {
        auto index = maps->layerIndexOf(*r.layer);
        if (!index) return std::unexpected(index.error());
        layerIndex = *index;
    }
    const auto format = formatFromPath(r.output);
    const auto needsPng = [&](const char* what) -> Result<void> {
        if (format != FileFormat::Png)
            return fail(ErrorCode::InvalidArgument, fmt::format("--what {} draws {}; give -o FILE.png", r.what, what));
        return {};
    };
    // The plots are PNG (at --pixel-ratio) or SVG, as the output's extension says.
    const auto writePlot = [&](const PlotFigure& figure) -> Result<void> {
        if (format == FileFormat::Svg) return writeText(r.output, plotFigureSvg(figure));
        auto image = plotFigurePng(figure, r.pixelRatio);
        if (!image) return std::unexpected(image.error());
        return writePng(*image, r.output);
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
    // Rows of a large file come from disk: a bar on a terminal, and Ctrl+C stops cleanly.
    ProgressBar bar("drawing");
    params.progress = bar.callback();

    if (r.what == "attention") {
        if (auto ok = needsPng("a heatmap"); !ok) return ok;
        auto image = renderAttentionMapsFigure(*maps, params, r.threads, r.pixelRatio);
        if (!image) return std::unexpected(image.error());
        return writePng(*image, r.output);
    }
    if (r.what == "overview") {
        if (auto ok = needsPng("a heatmap of every layer"); !ok) return ok;
        if (r.layer || r.head >= 0)
            return fail(ErrorCode::InvalidArgument,
                        "--what overview draws every layer and head: drop --layer and --head (or use --what attention)");
        auto image = renderAttentionOverviewFigure(*maps, params, r.threads, r.pixelRatio);
        if (!image) return std::unexpected(image.error());
        return writePng(*image, r.output);
    }
    HeadFitOptions options;
    options.layers = {layerIndex};
    options.threads = r.threads;
    options.progress = bar.callback();
    if (r.what == "similarity") {
        if (auto ok = needsPng("a heatmap"); !ok) return ok;
        auto fits = fitHeads(*maps, options);
        if (!fits) return std::unexpected(fits.error());
        const DistanceMatrix d = profileDistances(*fits);
        const std::string title =
            fmt::format("Head similarity · layer {} · attention-vs-distance profiles · heads in clustering order",
                        maps->layerInfo()[static_cast<std::size_t>(layerIndex)].number);
        auto image = renderSimilarityFigure(d, clusterOrder(d), title, r.colormap, r.width, r.height, r.pixelRatio);
        if (!image) return std::unexpected(image.error());
        return writePng(*image, r.output);
    }
    if (r.what == "fit" || r.what == "row") {
        const int head = r.head < 0 ? 0 : r.head;
        if (head >= maps->heads())
            return fail(ErrorCode::InvalidArgument,
                        fmt::format("--head {}: the maps have {} heads (0 to {})", head, maps->heads(), maps->heads() - 1));
        if (r.query >= maps->queries())
            return fail(ErrorCode::InvalidArgument,
                        fmt::format("--query {}: the maps have {} query rows (0 to {}, or -1 for the last)", r.query,
                                    maps->queries(), maps->queries() - 1));
        auto fits = fitHeads(*maps, options, r.configured);
        if (!fits) return std::unexpected(fits.error());
        const HeadFit& fit = (*fits)[static_cast<std::size_t>(head)];
        if (r.what == "fit") return writePlot(fitProfileFigure(fit, *maps, 0, -1, r.width, r.height));
        const std::int64_t query = r.query < 0 ? maps->queries() - 1 : r.query;
        auto figure = mapsRowFigure(*maps, layerIndex, head, query, {fit.slope, fit.configuredSlope}, r.width, r.height);
        if (!figure) return std::unexpected(figure.error());
        return writePlot(*figure);
    }
    return fail(ErrorCode::InvalidArgument,
                fmt::format("--what '{}' cannot draw attention maps from a file (expected attention, overview, similarity, fit or row)",
                            r.what));
}

}  // namespace alibi::cli
