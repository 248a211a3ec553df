// Rasterising heatmaps (a head grid or one head) and colour bars into RGBA images, at the
// requested pixel size: when T exceeds the pixel size each pixel samples its cell, so the
// work is O(pixels), never O(H * T * T).
#pragma once

#include <alibi/render/colormap.hpp>
#include <alibi/base/error.hpp>
#include <alibi/model/params.hpp>
#include <alibi/base/progress.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace alibi {

struct Image {
    int width = 0;
    int height = 0;
    std::vector<Rgba> pixels;  // row-major, top row first
    [[nodiscard]] Rgba& at(int x, int y) { return pixels[static_cast<std::size_t>(y) * width + x]; }
    [[nodiscard]] const Rgba& at(int x, int y) const { return pixels[static_cast<std::size_t>(y) * width + x]; }
};

enum class RenderWhat { Bias, Attention, Slopes, Distance };
enum class ScaleMode { Shared, PerHead };

[[nodiscard]] std::string_view renderWhatName(RenderWhat what);
[[nodiscard]] std::optional<RenderWhat> parseRenderWhat(std::string_view name);
[[nodiscard]] std::string_view scaleModeName(ScaleMode mode);
[[nodiscard]] std::optional<ScaleMode> parseScaleMode(std::string_view name);

struct HeatmapParams {
    AttentionParams attention;
    RenderWhat what = RenderWhat::Bias;  // Bias or Attention (heatmaps)
    int head = -1;                       // -1: grid of every head; otherwise that head alone
    Colormap colormap = Colormap::Viridis;
    ScaleMode scale = ScaleMode::Shared;
    int width = 1024;                    // whole image, pixels
    int height = 768;
    int gap = 2;                         // pixels between grid tiles
};

// Where a head sits in a grid image, and the value range its colours span.
struct HeatmapTile {
    int head = 0;
    int x = 0, y = 0, width = 0, height = 0;
    double lo = 0, hi = 0;
};

struct Heatmap {
    Image image;
    std::vector<HeatmapTile> tiles;
    double lo = 0, hi = 0;  // the shared scale (union of tiles when per-head)
    int columns = 1, rows = 1;
};

// Grid layout: columns x rows with near-square tiles for H heads in a width x height image.
struct GridLayout { int columns = 1; int rows = 1; };
[[nodiscard]] GridLayout gridLayout(int heads, int width, int height);

[[nodiscard]] Result<Heatmap> renderHeatmap(const HeatmapParams& params, unsigned threads = 0,
                                            const ProgressFn& progress = {});

// Which (head, query, key) is under pixel (x, y) of a heatmap, if any.
struct CellHit { int head = 0; std::int64_t query = 0; std::int64_t key = 0; };
[[nodiscard]] std::optional<CellHit> hitTest(const Heatmap& map, const HeatmapParams& params,
                                             int x, int y);

// Small multiples of any (H, Q, K) array (a difference, an error) with a fixed [lo, hi]:
// the same tile placement and pixel-to-cell sampling as renderHeatmap; non-finite values
// are drawn in kMaskedColor.
struct ValueGridParams {
    int heads = 1;
    std::int64_t queries = 1, keys = 1;
    Colormap colormap = Colormap::Diverging;
    double lo = -1, hi = 1;
    int width = 1024, height = 768;
    int gap = 4;
};
[[nodiscard]] Heatmap renderValueGrid(const ValueGridParams& params,
                                      const std::function<double(int head, std::int64_t query, std::int64_t key)>& value);

// A horizontal or vertical colour bar image for [lo, hi].
[[nodiscard]] Image renderColorBar(Colormap map, int width, int height, bool vertical);

// Maps a value into the colour of `map` for range [lo, hi]; -inf or masked -> kMaskedColor.
[[nodiscard]] Rgba valueColor(Colormap map, double value, double lo, double hi);

}  // namespace alibi
