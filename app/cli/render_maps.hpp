// `alibi render FILE`: pictures of a trained model's saved attention maps, the same the explorers
// draw: --what attention (one layer's heads, or one head), overview (every layer's heads),
// similarity (the heads' Jensen-Shannon distance matrix in clustering order), fit (one head's
// attention vs distance with its fitted and configured priors) or row (one query row key by key
// with its priors) or heads (two heads, or a head and its prior, with their difference). The
// heatmaps are PNG; fit and row PNG or SVG.
#pragma once

#include <alibi/base/error.hpp>
#include <alibi/render/colormap.hpp>
#include <alibi/render/render.hpp>

#include <optional>
#include <string>
#include <vector>

namespace alibi::cli {

struct RenderMapsRequest {
    std::string file;
    std::string what;          // attention, overview, similarity, fit, row
    std::string tensor;        // --tensor
    std::optional<int> layer;  // --layer: the layer's number (default: the first layer)
    int batch = 0;
    std::string values;              // --values (empty: detect)
    int head = -1;                   // --head (fit, row: default 0)
    std::int64_t query = -1;         // --query (row: default -1, the last row)
    std::vector<double> configured;  // the model's slopes, when given
    Colormap colormap = Colormap::Viridis;
    ScaleMode scale = ScaleMode::Shared;
    Reduce reduce = Reduce::Auto;
    bool logScale = false;
    std::optional<std::int64_t> maxDistance;  // --max-distance (row only)
    std::string versus;                       // --vs (heads only): L:H, H, prior, fitted-prior
    bool heightGiven = true;                  // false: no --height, the figure's own (MapsFileFigureRequest)
    int width = 1024, height = 768;
    int pixelRatio = 1;  // PNG figures: device pixels per layout pixel (1, 2, 4)
    unsigned threads = 0;
    std::string output;  // .png, or .svg for fit and row
};

[[nodiscard]] Result<void> renderAttentionFile(const RenderMapsRequest& request);

}  // namespace alibi::cli
