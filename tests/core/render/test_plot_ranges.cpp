// The plot's data ranges (render/plot_ranges.hpp), the one rule of the figures and both
// explorers' plots. Goldens worked out by hand from the rule.
#include <alibi/render/plot_kinds.hpp>
#include <alibi/render/plot_ranges.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace alibi {
namespace {

Series line(std::vector<double> x, std::vector<double> y) {
    return Series{"s", std::move(x), std::move(y)};
}

TEST(PlotRanges, ACurveSpansItsPointsAndAProbabilityStartsAtZero) {
    const std::vector<Series> curve{line({0, 1, 2, 3}, {0.5, 0.25, 0.125, 0.125})};
    PlotStyle plain;
    EXPECT_EQ(plotRanges(curve, plain), (PlotRanges{0, 3, 0.125, 0.5}));
    PlotStyle fromZero;
    fromZero.yFromZero = true;
    // Down to 0, and 4 % of [0, 0.5] above the peak.
    EXPECT_EQ(plotRanges(curve, fromZero), (PlotRanges{0, 3, 0, 0.52}));
}

TEST(PlotRanges, SlopeBarsOnALogAxisStandOnWholeOctaves) {
    // Slopes 1/2, 1/4, 1/8 as bars at heads 0..2: log2 -1 .. -3, a quarter octave below the
    // smallest (-3.25 -> floor -4), the top -1 is whole, so an octave of room above: 0.
    const std::vector<Series> slopes{line({0, 1, 2}, {0.5, 0.25, 0.125})};
    PlotStyle bars;
    bars.bars = true;
    bars.logY2 = true;
    EXPECT_EQ(plotRanges(slopes, bars), (PlotRanges{-0.5, 2.5, -4, 0}));
}

TEST(PlotRanges, AZoomedWindowSpansYOverThePointsInsideIt) {
    const std::vector<Series> curve{line({0, 1, 2, 3, 4}, {9, 1, 2, 3, 8})};
    PlotStyle plain;
    // x 1..3 holds y 1, 2, 3; the window is clipped to the data's x (-5 -> 0 is not asked here).
    EXPECT_EQ(plotRanges(curve, plain, std::pair{1.0, 3.0}), (PlotRanges{1, 3, 1, 3}));
    EXPECT_EQ(plotRanges(curve, plain, std::pair{-5.0, 1.0}), (PlotRanges{0, 1, 1, 9}));
}

TEST(PlotRanges, UndrawablePointsAreLeftOut) {
    // On a log y axis y <= 0 is not drawn, on a log(1 + x) axis x < 0, nowhere a NaN.
    PlotStyle logs;
    logs.logY2 = true;
    logs.logX1p = true;
    const std::vector<Series> curve{line({-1, 0, 1, 3, NAN}, {4, 0, 2, 8, 4})};
    // Drawn: (1, 2) and (3, 8): x at log2(2) = 1 and log2(4) = 2, y at 1 and 3.
    EXPECT_EQ(plotRanges(curve, logs), (PlotRanges{1, 2, 1, 3}));
    EXPECT_EQ(plotRanges({}, PlotStyle{}), (PlotRanges{0, 1, 0, 1}));
}

TEST(PlotRanges, EveryKindHasTheAxesItsQuantityNeeds) {
    // Slopes are bars; probabilities, shares and losses start at 0; slopes are on a
    // log2 axis; extrapolation's distances on log2(1 + d).
    EXPECT_TRUE(plotAxes(PlotKind::Slopes).bars);
    for (PlotKind kind : {PlotKind::AttentionDistance, PlotKind::Extrapolation, PlotKind::FitProfile, PlotKind::MapsRow,
                          PlotKind::LiveLoss, PlotKind::LiveChange})
        EXPECT_TRUE(plotAxes(kind).yFromZero) << static_cast<int>(kind);
    EXPECT_TRUE(plotAxes(PlotKind::Slopes).logY2);
    EXPECT_TRUE(plotAxes(PlotKind::SlopeSchemes).logY2);
    EXPECT_TRUE(plotAxes(PlotKind::Extrapolation).logX1p);
    EXPECT_FALSE(plotAxes(PlotKind::BiasDistance).yFromZero);  // a bias is negative
    // A change of 0.2 and 0.05 over heads 0 and 1: half a head either side, from 0, 4 % above
    // the peak.
    const std::vector<Series> change{line({0, 1}, {0.2, 0.05})};
    const PlotRanges r = plotRanges(change, plotAxes(PlotKind::LiveChange));
    EXPECT_DOUBLE_EQ(r.xmin, -0.5);
    EXPECT_DOUBLE_EQ(r.xmax, 1.5);
    EXPECT_DOUBLE_EQ(r.ymin, 0);
    EXPECT_DOUBLE_EQ(r.ymax, 0.2 + 0.04 * 0.2);
}

TEST(PlotRanges, AStageIsBarsUpToSixtyFourKeysAndTheSoftmaxStartsAtZero) {
    EXPECT_TRUE(stagePanelAxes(0, 64).bars);
    EXPECT_FALSE(stagePanelAxes(0, 65).bars);
    EXPECT_FALSE(stagePanelAxes(1, 4).yFromZero);
    EXPECT_TRUE(stagePanelAxes(3, 4).yFromZero);
    // Logits -2, -1 as bars: they hang from 0, with 6 % of [-2, 0] below the longest.
    const std::vector<Series> logits{line({0, 1}, {-2, -1})};
    const PlotRanges bars = plotRanges(logits, stagePanelAxes(1, 2));
    EXPECT_DOUBLE_EQ(bars.ymax, 0);
    EXPECT_DOUBLE_EQ(bars.ymin, -2 - 0.06 * 2);
    EXPECT_DOUBLE_EQ(bars.xmin, -0.5);
    // As a line (past 64 keys) they span their own extremes.
    std::vector<double> keys(100), values(100);
    for (std::size_t j = 0; j < 100; ++j) keys[j] = static_cast<double>(j), values[j] = -2 + j / 99.0;
    const PlotRanges lines = plotRanges({line(keys, values)}, stagePanelAxes(1, 100));
    EXPECT_EQ(lines, (PlotRanges{0, 99, -2, -1}));
}

}  // namespace
}  // namespace alibi
