// The pictures of a trained model's saved attention maps that `alibi render FILE` and Python's
// render(file=...) draw, chosen here once: the layer's heads as a heatmap (attention), every
// layer (overview), the heads' similarity matrix in clustering order (similarity), one head's
// attention vs distance with its fitted and configured priors (fit), or one query row (row).
// The heatmaps are PNG; fit and row PNG or SVG.
#pragma once

#include <alibi/base/error.hpp>
#include <alibi/base/progress.hpp>
#include <alibi/explore/head_compare.hpp>
#include <alibi/figure/figure.hpp>
#include <alibi/io/attention_maps.hpp>
#include <alibi/render/colormap.hpp>
#include <alibi/render/render.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace alibi {

enum class MapsFigureKind { Attention, Overview, Similarity, Fit, Row, Heads };
// "attention", "overview", "similarity", "fit", "row", "heads"
[[nodiscard]] std::optional<MapsFigureKind> parseMapsFigureKind(std::string_view name);
[[nodiscard]] std::string_view mapsFigureKindName(MapsFigureKind kind);
// Whether the figure can be SVG (fit and row); the others are heatmaps, PNG only.
[[nodiscard]] bool mapsFigureIsVector(MapsFigureKind kind);

struct MapsFileFigureRequest {
    MapsFigureKind what = MapsFigureKind::Attention;
    std::optional<int> layer;  // the layer's number (default: the first layer)
    int head = -1;             // -1: every head (attention); fit, row and heads: head 0
    // heads: side B, "L:H" (a layer's number and a head), "H" (a head of A's layer), "prior" (A's
    // prior at its configured slope) or "fitted-prior" (at its m*); refused for the others.
    std::string versus;
    std::int64_t query = -1;         // row: -1 is the last row
    std::vector<double> configured;  // the model's slopes, when given (fit and row draw their prior)
    Colormap colormap = Colormap::Viridis;
    ScaleMode scale = ScaleMode::Shared;
    Reduce reduce = Reduce::Auto;
    bool logScale = false;  // attention and overview (heatmaps); refused for the plots
    // row: the keys within this distance of the query (default: where the row and its priors
    // are above 1/1000 of their peaks); refused for the other figures.
    std::optional<std::int64_t> maxDistance;
    int width = 1024, height = 768;
    // false: the caller gave no height, and the figure takes its own where it has one: heads as
    // tall as its three square panels need (less than 4:3), the overview ending below its lowest
    // drawn row (its grid is often bound by the width); the others `height`.
    bool heightGiven = true;
    int pixelRatio = 1;  // PNG: device pixels per layout pixel (1, 2, 4)
    bool svg = false;    // fit and row: SVG text instead of a PNG image
    unsigned threads = 0;
    ProgressFn progress;  // rows read / total; false cancels
};

struct MapsFileFigure {
    std::optional<Image> image;  // PNG figures
    std::string svg;             // SVG figures
};

// The heads figure's comparison from a request (its layer, head, versus and configured slopes).
[[nodiscard]] Result<explore::HeadCompareRequest> headCompareRequestOf(const AttentionMaps& maps,
                                                                       const MapsFileFigureRequest& request);

// The figure, or an error naming the request's problem (messages name the CLI's flags:
// front ends word them with alibi/base/field_names.hpp).
[[nodiscard]] Result<MapsFileFigure> renderMapsFileFigure(const AttentionMaps& maps,
                                                          const MapsFileFigureRequest& request);

}  // namespace alibi
