// What a view shows and how it colours it: the quantity drawn, the colour map, the colour
// scale and how a pixel summarises the cells it covers. Sessions (io), pictures (render) and
// the explorers all name these, so they live below every layer that does.
#pragma once

#include <optional>
#include <string_view>

namespace alibi {

enum class RenderWhat { Bias, Attention, Slopes, Distance };
enum class ScaleMode { Shared, PerHead };
// Perceptual colour maps (viridis, magma, cividis) and a diverging map for signed differences.
enum class Colormap { Viridis, Magma, Cividis, Diverging };

// How a pixel that covers several cells summarises them.
//   Mean: the mean of its unmasked cells (bias default; closed form, so O(pixels)).
//   Max:  the largest unmasked cell (attention default: a one-cell diagonal or sink stays lit).
//   Sum:  the probability mass of the keys it covers (attention).
// Attention rows cost O(K * d_k) each, so when a pixel covers several query rows one exact
// row per pixel row is computed (the row under its centre); Heatmap::summary says so.
enum class Reduce { Auto, Mean, Max, Sum };

// The names sessions and command lines use: "bias", "per-head", "viridis", "max".
[[nodiscard]] std::string_view renderWhatName(RenderWhat what);
[[nodiscard]] std::optional<RenderWhat> parseRenderWhat(std::string_view name);
[[nodiscard]] std::string_view scaleModeName(ScaleMode mode);
[[nodiscard]] std::optional<ScaleMode> parseScaleMode(std::string_view name);
[[nodiscard]] std::string_view colormapName(Colormap map);
[[nodiscard]] std::optional<Colormap> parseColormap(std::string_view name);
[[nodiscard]] std::string_view reduceName(Reduce reduce);
[[nodiscard]] std::optional<Reduce> parseReduce(std::string_view name);

}  // namespace alibi
