// Line plots of saved attention maps as figures (see the header).
#include <alibi/figure/attention_maps_plots.hpp>

#include <alibi/render/format.hpp>
#include <alibi/render/plot_kinds.hpp>

#include <fmt/format.h>
#include <algorithm>
#include <cmath>

namespace alibi {

namespace {

std::string rowRange(const AttentionMaps& maps, std::int64_t firstRow, std::int64_t lastRow) {
    const std::int64_t last = lastRow < 0 ? maps.queries() : std::min(lastRow, maps.queries());
    const std::int64_t first = std::clamp<std::int64_t>(firstRow, 0, last);
    if (first == 0 && last == maps.queries()) return fmt::format("all {} query rows", maps.queries());
    return fmt::format("query rows {} to {}", first, last - 1);
}

// What the file's numbers are before they are drawn as probabilities.
std::string_view valuesNote(const AttentionMaps& maps) {
    return maps.values() == AttentionValues::Scores ? "the softmax of each row of stored scores"
                                                    : "each stored row renormalised to sum 1";
}

}  // namespace

std::string plotFigureSvg(const PlotFigure& figure) {
    return plotSvg(figure.series, figure.style);
}

Result<Image> plotFigurePng(const PlotFigure& figure, int scale) {
    return plotPng(figure.series, figure.style, scale);
}

FitProfilePlot fitProfilePlot(const HeadFit& fit, const AttentionMaps& maps, std::int64_t firstRow,
                              std::int64_t lastRow) {
    const auto series = [&](std::string label, const std::vector<double>& profile) {
        Series s;
        s.label = std::move(label);
        for (std::size_t d = 0; d < profile.size(); ++d) {
            s.x.push_back(static_cast<double>(d));
            s.y.push_back(profile[d]);
        }
        return s;
    };
    FitProfilePlot plot;
    plot.series.push_back(series(fmt::format("layer {} head {} (observed)", fit.layer, fit.head), fit.profile));
    plot.series.push_back(
        series(explore::fittedPriorLabel(fit.slope),
               priorProfile(fit.slope, maps.queries(), maps.keys(), maps.causal(), firstRow, lastRow)));
    if (fit.configuredSlope)
        plot.series.push_back(
            series(explore::configuredPriorLabel(*fit.configuredSlope),
                   priorProfile(*fit.configuredSlope, maps.queries(), maps.keys(), maps.causal(), firstRow, lastRow)));
    // Distance 0 plays the part of the query's own key: the window from it.
    const auto distances = static_cast<std::int64_t>(fit.profile.size());
    plot.window = explore::mapsRowWindow(plot.series, 0, distances);
    explore::keepKeyWindow(plot.series, plot.window);
    plot.note = explore::keyWindowNote(plot.window, distances, false, "distances");
    return plot;
}

std::string fitProfileTitle(const HeadFit& fit, const AttentionMaps& maps) {
    return fmt::format("{} head {}: attention vs distance, KL {} nats from softmax(−m* d)",
                       explore::mapsLayerLabel(maps, fit.layerIndex), fit.head, alibi::formatValue(fit.kl));
}

PlotFigure fitProfileFigure(const HeadFit& fit, const AttentionMaps& maps, std::int64_t firstRow, std::int64_t lastRow,
                            int width, int height) {
    PlotFigure f;
    f.style = plotAxes(PlotKind::FitProfile);
    FitProfilePlot plot = fitProfilePlot(fit, maps, firstRow, lastRow);
    f.series = std::move(plot.series);
    f.style.width = width;
    f.style.height = height;
    f.style.title = fitProfileTitle(fit, maps);
    f.style.xLabel = maps.causal() ? "distance i − j" : "distance |i − j|";
    f.style.yLabel = "share of attention";
    f.style.highlight = 0;
    f.style.highlightUnder = true;
    const std::string rows = rowRange(maps, firstRow, lastRow);
    f.style.caption = fmt::format(
        "observed: the head's attention at each distance summed over {} ({}), normalised to sum 1; priors: the same "
        "sum for softmax(−m d) over the keys each row sees; m* = {} is the slope that explains the rows best "
        "(maximum likelihood, 95% interval {} to {}), KL the mean over rows from its prior",
        rows, valuesNote(maps), alibi::formatValue(fit.slope), alibi::formatValue(fit.slopeLow),
        alibi::formatValue(fit.slopeHigh));
    if (!plot.note.empty()) f.style.caption += " · " + plot.note;
    return f;
}

std::string mapsRowTitle(const AttentionMaps& maps, int layerIndex, int head, std::int64_t query) {
    return fmt::format("{} head {}, query row {}: probability by key, with the ALiBi prior of the row",
                       explore::mapsLayerLabel(maps, layerIndex), head, query);
}

Result<PlotFigure> mapsRowFigure(const AttentionMaps& maps, int layerIndex, int head, std::int64_t query,
                                 const explore::HeadSlopes& slopes, int width, int height,
                                 std::optional<std::int64_t> maxDistance) {
    auto series = explore::mapsRowSeries(maps, layerIndex, head, query, slopes);
    if (!series) return std::unexpected(series.error());
    const explore::KeyWindow window =
        explore::mapsRowWindow(*series, query + maps.keys() - maps.queries(), maps.keys(), maxDistance);
    explore::keepKeyWindow(*series, window);
    PlotFigure f;
    f.style = plotAxes(PlotKind::MapsRow);
    f.series = std::move(*series);
    f.style.width = width;
    f.style.height = height;
    f.style.title = mapsRowTitle(maps, layerIndex, head, query);
    f.style.xLabel = "key j";
    f.style.yLabel = "probability";
    f.style.highlight = 0;
    f.style.highlightUnder = true;
    const std::int64_t position = query + maps.keys() - maps.queries();
    const std::string where = maps.keys() != maps.queries() ? fmt::format(" (query {} sits at position {} of {} keys)",
                                                                          query, position, maps.keys())
                                                            : std::string();
    f.style.caption =
        maps.causal() ? fmt::format(
                            "the file's row ({}) beside the prior softmax(−m ({} − j)) over the keys j ≤ {} the row "
                            "sees{}; keys after the query are masked and not drawn",
                            valuesNote(maps), position, position, where)
                      : fmt::format("the file's row ({}) beside the prior softmax(−m |{} − j|) over every key{}",
                                    valuesNote(maps), position, where);
    if (!slopes.fitted && !slopes.configured) f.style.caption += "; fit the heads to see the prior";
    if (const std::string note = explore::keyWindowNote(window, maps.keys(), maxDistance.has_value()); !note.empty())
        f.style.caption += " · " + note;
    return f;
}

}  // namespace alibi
