// Line plots of a trained model's saved attention maps as finished figures, the way every front
// end shows and exports them: one head's attention vs distance beside its ALiBi priors (the
// fit's profile), and one query row key by key beside the row's priors. Each is a PlotFigure,
// the series and the style (title, axes, caption), drawn with plotSvg or plotPng, so the
// explorers' views, their exported figures and `alibi render FILE --what fit|row` share titles,
// series and captions.
#pragma once

#include <alibi/analysis/head_fit.hpp>
#include <alibi/base/error.hpp>
#include <alibi/explore/attention_maps_view.hpp>
#include <alibi/io/attention_maps.hpp>
#include <alibi/render/plot.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace alibi {

struct PlotFigure {
    std::vector<Series> series;
    PlotStyle style;  // title, axis labels, size at 1x, caption
};

// The figure as a standalone SVG document, or as a PNG image at `scale` (1, 2, 4) times the
// pixels of style.width x style.height.
[[nodiscard]] std::string plotFigureSvg(const PlotFigure& figure);
[[nodiscard]] Result<Image> plotFigurePng(const PlotFigure& figure, int scale = 1);

// The plot of one head's fit against distance, the same in both explorers and the figure: the
// observed profile, the fitted prior and, when known, the configured slope's prior, all on query
// rows [firstRow, lastRow) (-1: to the last), as series of x = distance. The distances shown are
// those where some curve holds at least 1/1000 of its peak (explore::mapsRowWindow's rule, as
// the query-row plot), so a steep head fills the plot and a flatter prior's tail is never cut
// (the observed head alone decided it, and cut a configured prior holding 5 % of its mass).
struct FitProfilePlot {
    std::vector<Series> series;
    explore::KeyWindow window;  // the distances shown
    std::string note;           // "distances 0 to 40 of 64 shown (the rest hold under ...)", "" when all are
};
[[nodiscard]] FitProfilePlot fitProfilePlot(const HeadFit& fit, const AttentionMaps& maps, std::int64_t firstRow,
                                            std::int64_t lastRow);

// "layer 2 (model.layers.2.attn) head 3: attention vs distance, KL 0.0123 nats from softmax(−m* d)"
[[nodiscard]] std::string fitProfileTitle(const HeadFit& fit, const AttentionMaps& maps);

// fitProfilePlot with its title, axes ("distance i − j", "share of attention") and a caption
// that says what each curve is and which rows it sums; width x height at 1x.
[[nodiscard]] PlotFigure fitProfileFigure(const HeadFit& fit, const AttentionMaps& maps, std::int64_t firstRow,
                                          std::int64_t lastRow, int width, int height);

// "layer 2 head 3, query row 10: probability by key, with the ALiBi prior of the row"
[[nodiscard]] std::string mapsRowTitle(const AttentionMaps& maps, int layerIndex, int head, std::int64_t query);

// One query row of one head (explore::mapsRowSeries: the file's probabilities, then the prior at
// the fitted and the configured slope when known) with its title, axes and a caption; an error
// for a layer, head or row outside the maps, or a row the file cannot give. The keys shown are
// explore::mapsRowWindow's (a steep head's few keys fill the plot; `maxDistance` sets the range),
// said in the caption when not every key is shown.
[[nodiscard]] Result<PlotFigure> mapsRowFigure(const AttentionMaps& maps, int layerIndex, int head, std::int64_t query,
                                               const explore::HeadSlopes& slopes, int width, int height,
                                               std::optional<std::int64_t> maxDistance = std::nullopt);

}  // namespace alibi
