// Tests for <alibi/colormap.hpp>: endpoints of the published maps, lightness that rises
// monotonically (computed here as WCAG relative luminance), a near-white centre for the
// diverging map, the masked colour, and names.
#include <alibi/render/colormap.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <limits>

using namespace alibi;

namespace {

// WCAG 2 relative luminance of an sRGB colour, from its definition.
double luminance(Rgba c) {
    auto lin = [](std::uint8_t v) {
        const double s = v / 255.0;
        return s <= 0.04045 ? s / 12.92 : std::pow((s + 0.055) / 1.055, 2.4);
    };
    return 0.2126 * lin(c.r) + 0.7152 * lin(c.g) + 0.0722 * lin(c.b);
}

void expectNear(Rgba got, unsigned rgb, int tolerance, const char* what) {
    EXPECT_LE(std::abs(got.r - static_cast<int>((rgb >> 16) & 0xff)), tolerance) << what;
    EXPECT_LE(std::abs(got.g - static_cast<int>((rgb >> 8) & 0xff)), tolerance) << what;
    EXPECT_LE(std::abs(got.b - static_cast<int>(rgb & 0xff)), tolerance) << what;
    EXPECT_EQ(got.a, 255) << what;
}

constexpr Colormap kAll[] = {Colormap::Viridis, Colormap::Magma, Colormap::Cividis, Colormap::Diverging};

}  // namespace

TEST(Colormap, PublishedEndpoints) {
    // matplotlib's viridis starts at #440154 and ends at #fde725; magma #000004 .. #fcfdbf;
    // cividis #00224e .. #fee838.
    expectNear(colormapColor(Colormap::Viridis, 0.0), 0x440154, 1, "viridis 0");
    expectNear(colormapColor(Colormap::Viridis, 1.0), 0xfde725, 1, "viridis 1");
    expectNear(colormapColor(Colormap::Magma, 0.0), 0x000004, 1, "magma 0");
    expectNear(colormapColor(Colormap::Magma, 1.0), 0xfcfdbf, 1, "magma 1");
    expectNear(colormapColor(Colormap::Cividis, 0.0), 0x00224e, 1, "cividis 0");
    expectNear(colormapColor(Colormap::Cividis, 1.0), 0xfee838, 1, "cividis 1");
    // viridis at the middle is the familiar teal #21918c (matplotlib's entry 128).
    expectNear(colormapColor(Colormap::Viridis, 0.5), 0x21918c, 3, "viridis 0.5");
}

TEST(Colormap, ClampsOutOfRange) {
    for (Colormap m : kAll) {
        EXPECT_EQ(colormapColor(m, -3.0), colormapColor(m, 0.0));
        EXPECT_EQ(colormapColor(m, 7.0), colormapColor(m, 1.0));
        EXPECT_EQ(colormapColor(m, std::numeric_limits<double>::infinity()), colormapColor(m, 1.0));
    }
}

TEST(Colormap, SequentialMapsRiseInLightness) {
    for (Colormap m : {Colormap::Viridis, Colormap::Magma, Colormap::Cividis}) {
        const auto& lut = colormapLut(m);
        for (int i = 1; i < kColormapLutSize; ++i)  // never darker than its neighbour, beyond 8-bit noise
            EXPECT_GE(luminance(lut[i]) + 2e-3, luminance(lut[i - 1])) << colormapName(m) << " entry " << i;
        for (int i = 16; i < kColormapLutSize; i += 16)  // and clearly rising over every 1/16
            EXPECT_GT(luminance(lut[i]), luminance(lut[i - 16])) << colormapName(m) << " entry " << i;
        EXPECT_LT(luminance(lut.front()), 0.05) << colormapName(m);
        EXPECT_GT(luminance(lut.back()), 0.7) << colormapName(m);
    }
}

TEST(Colormap, DivergingIsBlueWhiteRed) {
    const Rgba lo = colormapColor(Colormap::Diverging, 0.0);
    const Rgba mid = colormapColor(Colormap::Diverging, 0.5);
    const Rgba hi = colormapColor(Colormap::Diverging, 1.0);
    EXPECT_GT(lo.b, lo.r);  // negative: blue
    EXPECT_GT(hi.r, hi.b);  // positive: red
    EXPECT_GE(mid.r, 240);  // centre: near white
    EXPECT_GE(mid.g, 240);
    EXPECT_GE(mid.b, 240);
    EXPECT_GT(luminance(mid), 0.85);
    // Symmetric: both ends equally dark (within 0.02), and lightness falls away from the centre
    // on both sides.
    EXPECT_NEAR(luminance(lo), luminance(hi), 0.02);
    for (double d = 0.1; d <= 0.5; d += 0.1) {
        EXPECT_LT(luminance(colormapColor(Colormap::Diverging, 0.5 - d)),
                  luminance(colormapColor(Colormap::Diverging, 0.5 - d + 0.1)) + 1e-9);
        EXPECT_LT(luminance(colormapColor(Colormap::Diverging, 0.5 + d)),
                  luminance(colormapColor(Colormap::Diverging, 0.5 + d - 0.1)) + 1e-9);
        EXPECT_NEAR(luminance(colormapColor(Colormap::Diverging, 0.5 - d)),
                    luminance(colormapColor(Colormap::Diverging, 0.5 + d)), 0.12)
            << d;
    }
}

TEST(Colormap, NanAndMaskedColour) {
    for (Colormap m : kAll) {
        EXPECT_EQ(colormapColor(m, std::numeric_limits<double>::quiet_NaN()), kMaskedColor);
        for (const Rgba& c : colormapLut(m)) EXPECT_NE(c, kMaskedColor) << colormapName(m);
    }
}

TEST(Colormap, LutMatchesColorAtEveryEntry) {
    for (Colormap m : kAll)
        for (int i = 0; i < kColormapLutSize; ++i)
            EXPECT_EQ(colormapColor(m, i / 255.0), colormapLut(m)[i]) << colormapName(m) << " " << i;
}

TEST(Colormap, NamesRoundTrip) {
    for (Colormap m : kAll) {
        const auto parsed = parseColormap(colormapName(m));
        ASSERT_TRUE(parsed.has_value()) << colormapName(m);
        EXPECT_EQ(*parsed, m);
    }
    EXPECT_EQ(colormapName(Colormap::Cividis), "cividis");
    EXPECT_FALSE(parseColormap("jet").has_value());
    EXPECT_FALSE(parseColormap("").has_value());
    EXPECT_FALSE(parseColormap("Viridis ").has_value());
}
