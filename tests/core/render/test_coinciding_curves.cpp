// Tests for <alibi/render/coinciding_curves.hpp>: which curves draw the same line, the dashes in
// turn (worked out by hand from the rule: on = max(6, 3 w), off = (k - 1) on, offset = (k - t) % k
// dashes), and that a figure of two identical curves shows both colours.
#include <alibi/render/coinciding_curves.hpp>
#include <alibi/render/colormap.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>

using namespace alibi;

namespace {

Series line(const std::string& name, double slope, int points = 5) {
    Series s{name, {}, {}};
    for (int x = 0; x < points; ++x) s.x.push_back(x), s.y.push_back(slope * x);
    return s;
}

}  // namespace

TEST(CoincidingCurves, IdenticalSeriesTakeTurnsAndOthersAreWhole) {
    const std::vector<Series> series{line("a", 1), line("b", 2), line("c", 1), line("d", 1)};
    const auto turns = coincidingCurves(series, {0, 8});
    ASSERT_EQ(turns.size(), 4U);
    EXPECT_EQ(turns[0], (CurveTurn{3, 0}));
    EXPECT_EQ(turns[1], (CurveTurn{1, 0}));
    EXPECT_EQ(turns[2], (CurveTurn{3, 1}));
    EXPECT_EQ(turns[3], (CurveTurn{3, 2}));
    EXPECT_EQ(coincidingNote(turns), std::vector<std::string>{"3 curves coincide, dashed in turn"});
}

TEST(CoincidingCurves, TheSameLineMeansWithinATwoThousandthOfTheSpan) {
    Series near = line("near", 1), far = line("far", 1);
    near.y[4] += 0.0019 * 100;  // the span below is 100: 0.19 apart
    far.y[4] += 0.0021 * 100;   // 0.21 apart
    EXPECT_EQ(coincidingCurves({line("a", 1), near}, {0, 100})[1], (CurveTurn{2, 1}));
    EXPECT_EQ(coincidingCurves({line("a", 1), far}, {0, 100})[1], (CurveTurn{1, 0}));
}

TEST(CoincidingCurves, OneSharedPointIsNotALine) {
    Series other{"other", {4, 10, 11}, {4, 7, 9}};  // meets line("a", 1) at x = 4 only
    EXPECT_EQ(coincidingCurves({line("a", 1), other}, {0, 10})[1], (CurveTurn{1, 0}));
}

TEST(CoincidingCurves, LogAxesCompareWhatIsDrawn) {
    // On a log2 y axis y <= 0 is not drawn: two curves equal where positive and different at
    // y = 0 vs -1 (not drawn) coincide; on a linear axis they do not.
    const Series a{"a", {0, 1, 2, 3}, {0, 1, 2, 4}}, b{"b", {0, 1, 2, 3}, {-1, 1, 2, 4}};
    EXPECT_EQ(coincidingCurves({a, b}, {0, 2, /*logY=*/true})[0], (CurveTurn{2, 0}));
    EXPECT_EQ(coincidingCurves({a, b}, {-1, 4})[0], (CurveTurn{1, 0}));
    // A log x axis leaves out x < 0.
    const Series c{"c", {-1, 0, 1}, {5, 0, 1}}, d{"d", {-1, 0, 1}, {7, 0, 1}};
    EXPECT_EQ(coincidingCurves({c, d}, {0, 7, false, /*logX=*/true})[1], (CurveTurn{2, 1}));
    EXPECT_EQ(coincidingCurves({c, d}, {0, 7})[1], (CurveTurn{1, 0}));
}

TEST(CoincidingCurves, NineSeriesAreDrawnWhole) {
    const std::vector<Series> eight(8, line("a", 1)), nine(9, line("a", 1));
    EXPECT_EQ(coincidingCurves(eight, {0, 4})[7], (CurveTurn{8, 7}));
    for (const CurveTurn& t : coincidingCurves(nine, {0, 4})) EXPECT_EQ(t, (CurveTurn{1, 0}));
    EXPECT_TRUE(coincidingNote(coincidingCurves(nine, {0, 4})).empty());
}

TEST(CoincidingCurves, DashesInTurnFillEachOthersGaps) {
    EXPECT_EQ(dashInTurn({1, 0}, 2).on, 0);  // whole
    // Width 2: dashes of 6 px; three curves: 6 on, 12 off; offsets 0, 12, 6.
    const DashPattern first = dashInTurn({3, 0}, 2), second = dashInTurn({3, 1}, 2), third = dashInTurn({3, 2}, 2);
    EXPECT_EQ(first.on, 6);
    EXPECT_EQ(first.off, 12);
    EXPECT_EQ(first.offset, 0);
    EXPECT_EQ(second.offset, 12);
    EXPECT_EQ(third.offset, 6);
    // A wide pen: dashes three widths long.
    EXPECT_EQ(dashInTurn({2, 1}, 4.5).on, 13.5);
    EXPECT_EQ(dashInTurn({2, 1}, 4.5).off, 13.5);
}

TEST(CoincidingCurves, AFigureOfTwoIdenticalCurvesShowsBothColours) {
    PlotStyle style;
    style.legend = false;
    style.width = 400;
    style.height = 300;
    const auto image = plotPng({line("first", 1, 50), line("second", 1, 50)}, style);
    ASSERT_TRUE(image) << image.error().message;
    // The plot's series colours: viridis at 0 and at 0.9 (two series).
    const auto pixelsOf = [&](Rgba c) {
        int n = 0;
        for (const Rgba& p : image->pixels)
            if (std::abs(p.r - c.r) + std::abs(p.g - c.g) + std::abs(p.b - c.b) < 60) ++n;
        return n;
    };
    const int first = pixelsOf(colormapColor(Colormap::Viridis, 0.0));
    const int second = pixelsOf(colormapColor(Colormap::Viridis, 0.9));
    EXPECT_GT(first, 40) << "the first curve is hidden under the second";  // 0 when overdrawn
    EXPECT_GT(second, 40);
    const std::string svg = plotSvg({line("first", 1, 50), line("second", 1, 50)}, style);
    EXPECT_NE(svg.find("2 curves coincide, dashed in turn"), std::string::npos);
    EXPECT_NE(svg.find("stroke-dashoffset"), std::string::npos);
}

TEST(CoincidingCurves, DashesAreDealtAgainWhereTheShorterCurvesEnd) {
    // One line drawn to x = 3, 7 and 15 (T = 4, 8, 16 against distance): over [0, 3] all three
    // take turns; over [3, 7] the two still drawn; past 7 the longest is alone and whole.
    const std::vector<Series> series{line("T4", -1, 4), line("T8", -1, 8), line("T16", -1, 16)};
    const auto stretches = coincidingStretches(series, {-15, 0});
    ASSERT_EQ(stretches.size(), 3U);
    const auto expectStretch = [](const CurveStretch& got, double from, double to, CurveTurn turn) {
        EXPECT_EQ(got.xFrom, from);
        EXPECT_EQ(got.xTo, to);
        EXPECT_EQ(got.turn, turn) << "over [" << from << ", " << to << "]";
    };
    ASSERT_EQ(stretches[0].size(), 1U);
    expectStretch(stretches[0][0], 0, 3, {3, 0});
    ASSERT_EQ(stretches[1].size(), 2U);
    expectStretch(stretches[1][0], 0, 3, {3, 1});
    expectStretch(stretches[1][1], 3, 7, {2, 0});
    ASSERT_EQ(stretches[2].size(), 3U);
    expectStretch(stretches[2][0], 0, 3, {3, 2});
    expectStretch(stretches[2][1], 3, 7, {2, 1});
    expectStretch(stretches[2][2], 7, 15, {1, 0});
    // A stretch's points, both ends included (neighbouring stretches meet).
    const Series tail = seriesStretch(series[2], 7, 15);
    ASSERT_EQ(tail.x.size(), 9U);
    EXPECT_EQ(tail.x.front(), 7);
    EXPECT_EQ(tail.y.back(), -15);
    // A curve that coincides with none is one whole stretch; one with no drawn point has none.
    const auto alone = coincidingStretches({line("a", 1), line("b", 2), Series{"empty", {1}, {std::nan("")}}}, {0, 8});
    ASSERT_EQ(alone[0].size(), 1U);
    expectStretch(alone[0][0], 0, 4, {1, 0});
    EXPECT_TRUE(alone[2].empty());
}

TEST(CoincidingCurves, MarkersTakeTurnsAsTheDashesDo) {
    // Two coinciding series: the first marks points 0, 2, 4 ..., the second 1, 3, 5 ...
    EXPECT_TRUE(markerInTurn({2, 0}, 0));
    EXPECT_FALSE(markerInTurn({2, 0}, 1));
    EXPECT_TRUE(markerInTurn({2, 1}, 1));
    EXPECT_FALSE(markerInTurn({2, 1}, 4));
    EXPECT_TRUE(markerInTurn({3, 2}, 5));
    EXPECT_TRUE(markerInTurn({1, 0}, 7));  // drawn as it is: every point
}

TEST(CoincidingCurves, TheLongestCurvesTailIsDrawnWholeInAFigure) {
    // The second curve runs on alone from x = 9 to 49: drawn whole there, not in its turn's
    // dashes (one dash in two periods of the pair, before).
    PlotStyle style;
    style.legend = false;
    style.width = 400;
    style.height = 300;
    const std::vector<Series> series{line("short", 1, 10), line("long", 1, 50)};
    const std::string svg = plotSvg(series, style);
    EXPECT_NE(svg.find("2 curves coincide, dashed in turn"), std::string::npos);
    // The long curve's polylines: its dashed stretch over [0, 9] and its solid tail.
    std::size_t polylines = 0, dashed = 0;
    for (std::size_t at = svg.find("<polyline"); at != std::string::npos; at = svg.find("<polyline", at + 1)) {
        const std::size_t end = svg.find('>', at);
        const std::string element = svg.substr(at, end - at);
        if (element.find("long") == std::string::npos && svg.substr(end, 40).find("long") == std::string::npos)
            continue;
        ++polylines;
        if (element.find("stroke-dasharray") != std::string::npos) ++dashed;
    }
    EXPECT_EQ(polylines, 2U) << svg;
    EXPECT_EQ(dashed, 1U);
}
