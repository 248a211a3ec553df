// Tests for <alibi/render/position_schemes_figure.hpp>: the SVG names every scheme in its legend
// and caption, the PNG has exactly width x height pixels times the scale with the schemes'
// colours drawn, the six schemes get six different colours, and a figure too small says so.
#include <alibi/figure/position_schemes_figure.hpp>

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <tuple>

using namespace alibi;

TEST(PositionSchemesFigure, SvgHasTitleLegendAndCaption) {
    PositionSchemesFigure f;
    f.schemes.slopes.heads = 8;
    auto svg = renderPositionSchemesSvg(f);
    ASSERT_TRUE(svg.has_value()) << svg.error().message;
    for (const char* label :
         {">ALiBi, 8 heads", ">RoPE", ">sinusoidal", ">T5 decoder", ">KERPLE log kernel", ">Sandwich"})
        EXPECT_NE(svg->find(label), std::string::npos) << label;
    for (const char* label : {"data-label=\"ALiBi\"", "data-label=\"RoPE\"", "data-label=\"sinusoidal\"",
                              "data-label=\"T5\"", "data-label=\"KERPLE\"", "data-label=\"Sandwich\""})
        EXPECT_NE(svg->find(label), std::string::npos) << label;
    EXPECT_NE(svg->find("logit contribution vs distance (D = 128)"), std::string::npos);
    EXPECT_NE(svg->find("illustrative, not learned"), std::string::npos);  // T5's profile, in the caption
    // The sources (RoFormer's bound, ...) are one pointer away, not a caption filling the figure.
    EXPECT_NE(svg->find("docs/POSITION_SCHEMES.md"), std::string::npos);
}

TEST(PositionSchemesFigure, PngIsScaledNotUpscaled) {
    PositionSchemesFigure f;
    f.width = 900;
    f.height = 700;
    auto one = renderPositionSchemesPng(f);
    f.scale = 2;
    auto two = renderPositionSchemesPng(f);
    ASSERT_TRUE(one.has_value() && two.has_value());
    EXPECT_EQ(one->width, 900);
    EXPECT_EQ(one->height, 700);
    EXPECT_EQ(two->width, 1800);
    EXPECT_EQ(two->height, 1400);
    // Every scheme's colour is on the picture (its curve and legend swatch).
    PositionCurve probe;
    for (PositionScheme s : {PositionScheme::RoPE, PositionScheme::Sinusoidal, PositionScheme::T5,
                             PositionScheme::KERPLE, PositionScheme::Sandwich}) {
        probe.scheme = s;
        const Rgba c = positionCurveColor(probe, 8);
        bool found = false;
        for (const Rgba& p : two->pixels) found = found || p == c;
        EXPECT_TRUE(found) << positionSchemeLabel(s);
    }
}

TEST(PositionSchemesFigure, SchemesHaveDistinctColours) {
    std::set<std::tuple<int, int, int>> colours;
    PositionCurve c;
    for (PositionScheme s : {PositionScheme::ALiBi, PositionScheme::RoPE, PositionScheme::Sinusoidal,
                             PositionScheme::T5, PositionScheme::KERPLE, PositionScheme::Sandwich}) {
        c.scheme = s;
        c.head = 0;
        const Rgba rgba = positionCurveColor(c, 8);
        colours.insert({rgba.r, rgba.g, rgba.b});
    }
    EXPECT_EQ(colours.size(), 6u);
}

TEST(PositionSchemesFigure, TooSmallSaysWhatToDo) {
    PositionSchemesFigure f;
    f.width = 300;
    f.height = 200;
    auto png = renderPositionSchemesPng(f);
    ASSERT_FALSE(png.has_value());
    EXPECT_NE(png.error().message.find("make it at least 900 x 700"), std::string::npos) << png.error().message;
}

// The span of the schemes' plot (both explorers and the figure): attention in whole octaves
// between the floor and 1, a logit contribution its extremes with 4 % either side.
TEST(PositionSchemesFigure, TheAxesSpanWholeOctavesOrTheExtremesWithRoom) {
    PositionSchemes attention;
    attention.quantity = SchemeQuantity::Attention;
    attention.maxDistance = 8;
    PositionCurve c;
    c.x = {0, 4, 8};
    c.y = {0.75, 0.01, 0x1p-50};  // log2: -0.415, -6.64, -50 (below the floor, 2^-40)
    attention.curves = {c};
    EXPECT_EQ(positionSchemesRanges(attention), (PlotRanges{0, 8, -40, 0}));
    PositionSchemes logit = attention;
    logit.quantity = SchemeQuantity::Logit;
    logit.curves.front().y = {0, -2, -10};
    EXPECT_EQ(positionSchemesRanges(logit), (PlotRanges{0, 8, -10.4, 0.4}));
}
