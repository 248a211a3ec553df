// Drawing pieces several views share: the stale mark over a picture whose parameters have moved
// on, the colour bar beside a heatmap, and value text.
#pragma once

#include <alibi/render/render.hpp>

#include <imgui.h>

#include <string>

namespace alibi::imgui {

inline constexpr float kColorBarWidth = 14.0f;
inline constexpr float kColorBarGap = 8.0f;
inline const ImVec4 kErrorTextColor{1.0f, 0.42f, 0.36f, 1.0f};

// "-0.5", "-inf", "NaN": the read-outs' number format.
[[nodiscard]] std::string valueText(double value);

// Dims [min, max] and writes "updating..." (with the fraction done, when known) in its middle:
// the picture underneath belongs to older parameters.
void drawStaleMark(ImVec2 min, ImVec2 max, float progress);

// A vertical colour bar at `origin` labelled from `lo` (bottom) to `hi` (top), with the masked
// swatch below the labels; `texture` may be null (tests).
void drawColorBar(ImTextureID texture, ImVec2 origin, float height, double lo, double hi);
// Width the colour bar and its labels take.
[[nodiscard]] float colorBarWidth();

}  // namespace alibi::imgui
