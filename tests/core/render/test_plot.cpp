// Tests for <alibi/plot.hpp>: series values from the formulas, and the SVG's structure.
#include <alibi/render/format.hpp>
#include <alibi/render/plot.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <regex>

using namespace alibi;

namespace {
std::size_t count(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}
}  // namespace

TEST(Plot, SlopeSeriesIsThePressRule) {
    auto s = slopeSeries({8, SlopeScheme::Press, 8.0, {}});
    ASSERT_TRUE(s);
    ASSERT_EQ(s->size(), 1U);
    EXPECT_EQ((*s)[0].y.front(), 0.5);
    EXPECT_EQ((*s)[0].y.back(), 1.0 / 256);
}

TEST(Plot, BiasDistanceIsMinusSlopeTimesDistance) {
    BiasParams p;
    p.slopes.heads = 2;
    auto s = biasDistanceSeries(p, 10);
    ASSERT_TRUE(s);
    ASSERT_EQ(s->size(), 2U);
    EXPECT_EQ((*s)[0].y[10], -10.0 / 16);
    EXPECT_EQ((*s)[1].y[4], -4.0 / 256);
    EXPECT_FALSE(biasDistanceSeries(p, -1));
}

TEST(Plot, SeriesNameSlopesAsTheTilesDo) {
    // H = 8, press: m_h = 2^-(h + 1); the legend read "head 5 (m = 0.01562)" beside tiles "m = 1/64".
    BiasParams bias;
    bias.slopes.heads = 8;
    const auto distance = biasDistanceSeries(bias, 4);
    ASSERT_TRUE(distance);
    EXPECT_EQ((*distance)[5].label, "head 5 (m = 1/64)");
    AttentionParams attention;
    attention.bias = bias;
    const auto probabilities = attentionDistanceSeries(attention, -1);
    ASSERT_TRUE(probabilities);
    EXPECT_EQ((*probabilities)[7].label, "head 7 (m = 1/256)");
    // Not a power of two (geometric, H = 12: m_1 = 2^(-16/12)): the value, not 2^-1.333.
    bias.slopes.heads = 12;
    bias.slopes.scheme = SlopeScheme::Geometric;
    const auto geometric = biasDistanceSeries(bias, 4);
    ASSERT_TRUE(geometric);
    EXPECT_EQ((*geometric)[1].label, "head 1 (m = " + formatSlope(std::exp2(-16.0 / 12)) + ")");
    EXPECT_EQ((*geometric)[1].label.find("2^"), std::string::npos);
}

TEST(Plot, AttentionDistanceSumsToOne) {
    AttentionParams a;
    a.bias.slopes.heads = 3;
    a.bias.queries = 9;
    auto s = attentionDistanceSeries(a, -1);
    ASSERT_TRUE(s) << s.error().message;
    for (const auto& series : *s) {
        double sum = 0;
        for (double v : series.y) sum += v;
        EXPECT_NEAR(sum, 1.0, 1e-9);
        EXPECT_EQ(series.x.front(), 0.0);  // nearest key first
    }
    EXPECT_FALSE(attentionDistanceSeries(a, 9));
}

TEST(Plot, AttentionDistanceStopsWhenCancelled) {
    AttentionParams a;
    a.bias.slopes.heads = 8;
    a.bias.queries = 16;
    std::uint64_t calls = 0;
    auto s = attentionDistanceSeries(a, -1, [&](std::uint64_t done, std::uint64_t total) {
        EXPECT_EQ(total, 8U);
        ++calls;
        return done < 2;  // two heads, then cancel
    });
    ASSERT_FALSE(s);
    EXPECT_EQ(s.error().code, ErrorCode::Cancelled);
    EXPECT_EQ(calls, 3U);
}

TEST(Plot, NiceTicksAreOneTwoFiveStepsInsideTheRange) {
    EXPECT_EQ(niceTicks(0, 10, 5), (std::vector<double>{0, 2, 4, 6, 8, 10}));
    EXPECT_EQ(niceTicks(-7.5, 0.3, 4), (std::vector<double>{-6, -4, -2, 0}));
    EXPECT_EQ(niceTicks(0.013, 0.049, 4), (std::vector<double>{0.02, 0.03, 0.04}));
    // 0 comes out as 0, not -0 or a rounding residue such as 2.8e-17.
    for (double t : niceTicks(-0.3, 0.3, 6)) EXPECT_FALSE(t != 0 && std::fabs(t) < 1e-12) << t;
}

TEST(Plot, NiceTicksEndOnSpansTooSmallForTheirMagnitude) {
    // The step (1e-16) is below the spacing of doubles near 1e9, so adding it would not move
    // the tick: the answer is one tick, promptly, instead of an endless loop.
    EXPECT_EQ(niceTicks(-1e9, -1e9 + 1e-7, 6), (std::vector<double>{-1e9}));
    EXPECT_EQ(niceTicks(1.0, std::nextafter(1.0, 2.0), 6).size(), 1U);
    EXPECT_EQ(niceTicks(3, 3, 5), (std::vector<double>{3}));
    EXPECT_EQ(niceTicks(5, 1, 5), (std::vector<double>{5}));
    EXPECT_EQ(niceTicks(0, std::numeric_limits<double>::infinity(), 5).size(), 1U);
    EXPECT_EQ(niceTicks(std::nan(""), 1, 5).size(), 1U);
    EXPECT_LE(niceTicks(0, 1, 100000).size(), 64U);
}

TEST(Plot, SvgHasOnePolylinePerSeriesAndEscapes) {
    std::vector<Series> series{{"a<b & c", {0, 1, 2}, {1, 2, 3}}, {"second", {0, 1}, {3, 1}}};
    const std::string svg =
        plotSvg(series, {.title = "Title \"x\"", .xLabel = "distance", .yLabel = "bias", .width = 600, .height = 400});
    EXPECT_EQ(svg.rfind("<?xml", 0), 0U);
    EXPECT_NE(svg.find("xmlns=\"http://www.w3.org/2000/svg\""), std::string::npos);
    EXPECT_EQ(count(svg, "<polyline"), 2U);
    EXPECT_NE(svg.find("a&lt;b &amp; c"), std::string::npos);
    EXPECT_NE(svg.find("Title &quot;x&quot;"), std::string::npos);
    EXPECT_EQ(svg.find("a<b"), std::string::npos);
}

TEST(Plot, Log2AxisTicksArePowersOfTwo) {
    auto s = slopeSeries({8, SlopeScheme::Press, 8.0, {}});
    const std::string svg = plotSvg(
        *s, {.title = "slopes", .xLabel = "head", .yLabel = "slope", .logY2 = true, .width = 600, .height = 400});
    // Ticks read as the explorers' slope bars do: 1/2 .. 1/256.
    EXPECT_NE(svg.find(">1/2<"), std::string::npos);
    EXPECT_NE(svg.find(">1/256<"), std::string::npos);
    EXPECT_EQ(count(svg, "<circle"), 8U);
}

// The slopes as the explorers show them: one bar per head from the bottom of the log2 axis to
// the slope, no polyline.
TEST(Plot, BarsStyleDrawsOneBarPerPoint) {
    auto s = slopeSeries({8, SlopeScheme::Press, 8.0, {}});
    PlotStyle style{.title = "slopes", .xLabel = "head", .yLabel = "slope", .logY2 = true, .width = 600, .height = 400};
    style.bars = true;
    const std::string svg = plotSvg(*s, style);
    EXPECT_EQ(count(svg, "<polyline"), 0U);
    EXPECT_EQ(count(svg, "<circle"), 0U);
    EXPECT_EQ(count(svg, "<rect x="), 8U + 1U);  // the bars and the plot frame
    EXPECT_NE(svg.find("<title>press slopes at 7: 0.00390625</title>"), std::string::npos);
    // The bars stand on the bottom of the plot frame (the one unfilled rectangle).
    const auto frameAt = svg.rfind("<rect x=", svg.find("fill=\"none\""));
    ASSERT_NE(frameAt, std::string::npos) << svg;
    double fx = 0, fy = 0, fw = 0, fh = 0;
    ASSERT_EQ(std::sscanf(svg.c_str() + frameAt, "<rect x=\"%lf\" y=\"%lf\" width=\"%lf\" height=\"%lf\"", &fx, &fy,
                          &fw, &fh),
              4);
    EXPECT_GT(fh, 250.0);  // most of the 400 pixels: title, ticks and axis label take the rest
    const auto first = svg.find("<rect x=", svg.find("class=\"bars\""));
    ASSERT_NE(first, std::string::npos);
    double x = 0, y = 0, w = 0, h = 0;
    ASSERT_EQ(
        std::sscanf(svg.c_str() + first, "<rect x=\"%lf\" y=\"%lf\" width=\"%lf\" height=\"%lf\"", &x, &y, &w, &h), 4);
    EXPECT_NEAR(y + h, fy + fh, 0.01);
    EXPECT_GT(w, 10.0);
    // The flattest head (1/256, the axis' lowest power before padding) still has a visible bar.
    EXPECT_EQ(svg.find("height=\"0.00\""), std::string::npos);
    EXPECT_NE(svg.find(">1/512<"), std::string::npos);
}

// One colour per head curve in every front end: along Viridis from t = 0 to 0.9 on light, from
// 0.3 to 0.95 on dark (the ramp's ends worked out from those t, through colormapColor).
TEST(SeriesColor, OneRampPerBackground) {
    EXPECT_EQ(seriesColor(0, 8), colormapColor(Colormap::Viridis, 0.0));
    EXPECT_EQ(seriesColor(7, 8), colormapColor(Colormap::Viridis, 0.9));
    EXPECT_EQ(seriesColor(0, 8, PlotBackground::Dark), colormapColor(Colormap::Viridis, 0.3));
    EXPECT_EQ(seriesColor(7, 8, PlotBackground::Dark), colormapColor(Colormap::Viridis, 0.95));
    EXPECT_EQ(seriesColor(0, 1, PlotBackground::Dark), colormapColor(Colormap::Viridis, 0.3));
    EXPECT_NE(seriesColor(7, 8), seriesColor(7, 8, PlotBackground::Dark));
}
