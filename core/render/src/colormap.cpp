// Colour maps as 256-entry tables built at compile time from a few published anchor colours,
// interpolated linearly in sRGB between evenly spaced anchors.
//
// viridis, magma, cividis: the anchors are the published 256-colour definitions (Smith, van der
// Walt and Firing's mpl-colormaps, CC0; Nuñez, Anderton and Renslow's cividis) sampled at
// t = k/16, k = 0..16, rounded to 8 bits. Between anchors the maps are nearly straight in sRGB,
// so 17 anchors reproduce the originals within a few units per channel.
// diverging: ColorBrewer's 11-class RdBu (Brewer, colorbrewer2.org), reversed so negative
// values are blue and positive red, with the near-white #f7f7f7 at t = 0.5.
#include <alibi/render/colormap.hpp>

#include <cmath>
#include <span>

namespace alibi {
namespace {

constexpr std::array<std::uint32_t, 17> kViridis{0x440154, 0x48186a, 0x472d7b, 0x424086, 0x3b528b, 0x33638d,
                                                 0x2c728e, 0x26818e, 0x21908c, 0x1f9f88, 0x28ae80, 0x3ebc74,
                                                 0x5dc963, 0x82d34c, 0xabdc32, 0xd5e21a, 0xfde725};
constexpr std::array<std::uint32_t, 17> kMagma{0x000004, 0x0a0822, 0x1d1146, 0x36106a, 0x50127c, 0x691c81,
                                               0x822681, 0x9c2e7f, 0xb63779, 0xcf4170, 0xe65163, 0xf5695c,
                                               0xfb8761, 0xfea571, 0xfec387, 0xfde0a2, 0xfcfdbf};
constexpr std::array<std::uint32_t, 17> kCividis{0x00224e, 0x002e6a, 0x1a386f, 0x32436d, 0x434e6c, 0x52596d,
                                                 0x61656f, 0x6f7073, 0x7c7b78, 0x8b8778, 0x9b9376, 0xaba072,
                                                 0xbbad6c, 0xccba64, 0xddc958, 0xefd748, 0xfee838};
constexpr std::array<std::uint32_t, 11> kDiverging{0x053061, 0x2166ac, 0x4393c3, 0x92c5de, 0xd1e5f0, 0xf7f7f7,
                                                   0xfddbc7, 0xf4a582, 0xd6604d, 0xb2182b, 0x67001f};

using Lut = std::array<Rgba, kColormapLutSize>;

constexpr std::uint8_t channel(std::uint32_t rgb, int shift) {
    return static_cast<std::uint8_t>((rgb >> shift) & 0xffU);
}

constexpr std::uint8_t mix(std::uint8_t a, std::uint8_t b, double f) {
    const double v = a + (b - a) * f;
    return static_cast<std::uint8_t>(v + 0.5);  // v >= 0, so this rounds to nearest
}

constexpr Lut buildLut(std::span<const std::uint32_t> anchors) {
    Lut lut{};
    const auto segments = static_cast<double>(anchors.size() - 1);
    for (int i = 0; i < kColormapLutSize; ++i) {
        const double pos = i * segments / (kColormapLutSize - 1);
        auto k = static_cast<std::size_t>(pos);
        if (k >= anchors.size() - 1) k = anchors.size() - 2;
        const double f = pos - static_cast<double>(k);
        const std::uint32_t a = anchors[k], b = anchors[k + 1];
        lut[static_cast<std::size_t>(i)] =
            Rgba{mix(channel(a, 16), channel(b, 16), f), mix(channel(a, 8), channel(b, 8), f),
                 mix(channel(a, 0), channel(b, 0), f), 255};
    }
    return lut;
}

constexpr Lut kViridisLut = buildLut(kViridis);
constexpr Lut kMagmaLut = buildLut(kMagma);
constexpr Lut kCividisLut = buildLut(kCividis);
constexpr Lut kDivergingLut = buildLut(kDiverging);

constexpr bool lutAvoids(const Lut& lut, Rgba colour) {
    for (const Rgba& c : lut)
        if (c == colour) return false;
    return true;
}
static_assert(lutAvoids(kViridisLut, kMaskedColor) && lutAvoids(kMagmaLut, kMaskedColor) &&
                  lutAvoids(kCividisLut, kMaskedColor) && lutAvoids(kDivergingLut, kMaskedColor),
              "kMaskedColor must differ from every colour a map produces");
static_assert(lutAvoids(kViridisLut, kFullyMaskedColor) && lutAvoids(kMagmaLut, kFullyMaskedColor) &&
                  lutAvoids(kCividisLut, kFullyMaskedColor) && lutAvoids(kDivergingLut, kFullyMaskedColor),
              "kFullyMaskedColor must differ from every colour a map produces");

}  // namespace

const std::array<Rgba, kColormapLutSize>& colormapLut(Colormap map) {
    switch (map) {
        case Colormap::Viridis:
            return kViridisLut;
        case Colormap::Magma:
            return kMagmaLut;
        case Colormap::Cividis:
            return kCividisLut;
        case Colormap::Diverging:
            return kDivergingLut;
    }
    return kViridisLut;
}

Rgba colormapColor(Colormap map, double t) {
    if (std::isnan(t)) return kMaskedColor;
    const double clamped = t < 0 ? 0 : (t > 1 ? 1 : t);
    const auto index = static_cast<std::size_t>(clamped * (kColormapLutSize - 1) + 0.5);
    return colormapLut(map)[index];
}

}  // namespace alibi
