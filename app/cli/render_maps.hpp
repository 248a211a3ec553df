// `alibi render FILE`: pictures of a trained model's saved attention maps, the same the explorers
// draw: --what attention (one layer's heads, or one head), similarity (the heads' Jensen-Shannon
// distance matrix in clustering order) or fit (one head's attention vs distance with its fitted
// and configured priors, SVG).
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
    std::string what;        // attention, similarity, fit
    std::string tensor;      // --tensor
    std::optional<int> layer;  // --layer: the layer's number (default: the first layer)
    int batch = 0;
    std::string values;      // --values (empty: detect)
    int head = -1;           // --head (fit: default 0)
    std::vector<double> configured;  // the model's slopes, when given
    Colormap colormap = Colormap::Viridis;
    ScaleMode scale = ScaleMode::Shared;
    Reduce reduce = Reduce::Auto;
    bool logScale = false;
    int width = 1024, height = 768;
    int pixelRatio = 1;  // PNG figures: device pixels per layout pixel (1, 2, 4)
    unsigned threads = 0;
    std::string output;  // .png (attention, similarity) or .svg (fit)
};

[[nodiscard]] Result<void> renderAttentionFile(const RenderMapsRequest& request);

}  // namespace alibi::cli
