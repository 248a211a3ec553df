// Perceptual colour maps (viridis, magma, cividis, and a diverging map for differences).
#pragma once

#include <alibi/model/view_options.hpp>

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace alibi {

struct Rgba {
    std::uint8_t r = 0, g = 0, b = 0, a = 255;
    friend bool operator==(const Rgba&, const Rgba&) = default;
};

// Colour at t in [0, 1] (clamped; NaN maps to the masked colour).
[[nodiscard]] Rgba colormapColor(Colormap map, double t);

// Masked cells: a neutral grey that none of the maps produces.
inline constexpr Rgba kMaskedColor{96, 96, 96, 255};
// Fully masked query rows (no key left to attend to): diagonal stripes of this dark red and
// kMaskedColor, so such a row never looks like an ordinary masked region.
inline constexpr Rgba kFullyMaskedColor{150, 40, 40, 255};
// The stripe colour of pixel (x, y) of a fully masked row: 4-pixel diagonal bands.
[[nodiscard]] constexpr Rgba fullyMaskedStripe(int x, int y) {
    return ((x + y) / 4) % 2 == 0 ? kFullyMaskedColor : kMaskedColor;
}

// The 256-entry table every colour comes from: entry i is the colour at t = i / 255.
// colormapColor(map, t) is colormapLut(map)[round(t * 255)].
inline constexpr int kColormapLutSize = 256;
[[nodiscard]] const std::array<Rgba, kColormapLutSize>& colormapLut(Colormap map);

// True for maps meant for signed data (a scale symmetric around 0).
[[nodiscard]] constexpr bool colormapDiverging(Colormap map) {
    return map == Colormap::Diverging;
}

}  // namespace alibi
