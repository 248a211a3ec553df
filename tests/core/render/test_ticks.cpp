// Tests for <alibi/explore/ticks.hpp>.
#include <alibi/render/plot.hpp>
#include <alibi/render/ticks.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

using namespace alibi;

TEST(Ticks, LinearTicksAreRoundAndInside) {
    const auto ticks = axisTicks(AxisScale::Linear, -2895.6, 0, 6);
    ASSERT_GE(ticks.size(), 3U);
    for (const Tick& t : ticks) {
        EXPECT_GE(t.value, -2895.6);
        EXPECT_LE(t.value, 0);
        EXPECT_EQ(std::fmod(t.value, 500.0), 0.0) << t.label;
    }
    EXPECT_EQ(ticks.back().label, "0");
    EXPECT_EQ(ticks.front().label, "-2500");
}

TEST(Ticks, LogTicksArePowers) {
    const auto two = axisTicks(AxisScale::Log2, 1.0 / 256, 1, 20);
    ASSERT_EQ(two.size(), 9U);
    EXPECT_EQ(two.front().label, "1/256");
    EXPECT_EQ(two.back().label, "1");
    const auto ten = axisTicks(AxisScale::Log10, 1e-7, 0.5, 10);
    ASSERT_EQ(ten.size(), 7U);
    EXPECT_EQ(ten.front().label, "1e-07");
    EXPECT_EQ(ten.back().label, "0.1");
    EXPECT_TRUE(axisTicks(AxisScale::Log10, 0, 1, 5).empty());
}

TEST(Ticks, IndexTicksLeaveRoomForLabels) {
    EXPECT_EQ(indexTicks(16, 40, 36),
              (std::vector<std::int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}));
    EXPECT_EQ(indexTicks(100, 4, 36), (std::vector<std::int64_t>{0, 10, 20, 30, 40, 50, 60, 70, 80, 90}));
    EXPECT_EQ(indexTicks(4096, 0.2, 36).at(1), 200);
}

TEST(Ticks, TokensLabelEveryKthCellOrNone) {
    const std::vector<std::string> tokens = {"The", "·quick", "·brownish-red-fox", "↵"};
    // Cells a text line apart: every cell its token, long ones cut to 12 characters.
    const auto labels = indexAxisLabels(4, 16, 14, 36, tokens);
    ASSERT_EQ(labels.size(), 4u);
    for (std::size_t i = 0; i < labels.size(); ++i) {
        EXPECT_EQ(labels[i].index, static_cast<std::int64_t>(i));
        EXPECT_TRUE(labels[i].token);
    }
    EXPECT_EQ(labels[1].text, "·quick");
    EXPECT_EQ(labels[2].text, "·brownish-r…");  // 11 characters and the ellipsis
    EXPECT_EQ(labels[3].text, "↵");
    // Cells closer than a line (10 px for 14 px lines): every second token, cells 0 and 2.
    const auto every2 = indexAxisLabels(4, 10, 14, 36, tokens);
    ASSERT_EQ(every2.size(), 2u);
    EXPECT_TRUE(every2[0].token && every2[1].token);
    EXPECT_EQ(every2[0].index, 0);
    EXPECT_EQ(every2[1].index, 2);
    // Cells so close that the step would exceed kMaxTokenStep: numbers at indexTicks' places.
    const auto numbers = indexAxisLabels(4, 1, 14, 36, tokens);
    ASSERT_EQ(numbers.size(), 1u);
    EXPECT_FALSE(numbers[0].token);
    EXPECT_EQ(numbers[0].text, "0");
    // Tokens that do not match the cells (3 for 4): numbers.
    const auto mismatched = indexAxisLabels(4, 40, 14, 36, std::vector<std::string>(tokens.begin(), tokens.end() - 1));
    EXPECT_TRUE(std::none_of(mismatched.begin(), mismatched.end(), [](const IndexLabel& l) { return l.token; }));
    EXPECT_TRUE(tokensFitAxis(4, 14, 14, 4));
    EXPECT_TRUE(tokensFitAxis(4, 13.9, 14, 4));       // every second token
    EXPECT_FALSE(tokensFitAxis(4, 14.0 / 9, 14, 4));  // a step of 9
    EXPECT_FALSE(tokensFitAxis(0, 20, 14, 0));
}

TEST(Ticks, TokenStepIsTheSmallestThatKeepsLabelsALineApart) {
    // The live run's default text: 69 tokens in a ~655 px tile, 9.5 px cells, 17 px lines.
    EXPECT_EQ(tokenLabelStep(9.5, 17), 2);
    EXPECT_EQ(tokenLabelStep(17, 17), 1);
    EXPECT_EQ(tokenLabelStep(5.6, 17), 4);  // 3 x 5.6 = 16.8 < 17
    EXPECT_EQ(tokenLabelStep(17.0 / 3, 17), 3);
    EXPECT_EQ(tokenLabelStep(0, 17), 0);
    // On every step, each pair of neighbouring labels is at least a line apart, and one step
    // less would not be.
    for (const double cell : {0.7, 1.3, 2.0, 3.3, 4.25, 6.0, 8.5, 9.5, 11.9, 16.99}) {
        const std::int64_t k = tokenLabelStep(cell, 17);
        EXPECT_GE(static_cast<double>(k) * cell, 17.0) << cell;
        EXPECT_LT(static_cast<double>(k - 1) * cell, 17.0) << cell;
    }
    const std::vector<std::string> tokens(69, "tok");
    const auto labels = indexAxisLabels(69, 9.5, 17, 1e9, tokens);
    ASSERT_EQ(labels.size(), 35u);  // 0, 2, ..., 68
    for (std::size_t n = 0; n < labels.size(); ++n) EXPECT_EQ(labels[n].index, static_cast<std::int64_t>(2 * n));
}

// The rule every plot axis follows (the s35 review: an ImGui y axis read a lone "0" under a 0.39
// peak): asked for one tick, [-0.016, 0.41] gets more until it has two; the answer is the
// multiples of 0.2 inside (0, 0.2, 0.4), the highest in the axis' upper half.
TEST(Ticks, AtLeastTwoTicksOnAShortAxis) {
    const auto nice = [](int target) { return niceTicks(-0.016, 0.41, target); };
    ASSERT_EQ(nice(1).size(), 1U);  // what a short axis had
    const std::vector<double> ticks = atLeastTwoTicks(1, nice);
    ASSERT_EQ(ticks.size(), 3U);
    for (std::size_t n = 0; n < ticks.size(); ++n) EXPECT_NEAR(ticks[n], 0.2 * static_cast<double>(n), 1e-12);
    EXPECT_GE(ticks.back(), (-0.016 + 0.41) / 2);
    // An axis already labelled twice keeps its ticks; one that never gets two stops asking.
    EXPECT_EQ(atLeastTwoTicks(4, nice), nice(4));
    int asked = 0;
    const auto one = [&asked](int) {
        ++asked;
        return std::vector<double>{0.0};
    };
    EXPECT_EQ(atLeastTwoTicks(1, one).size(), 1U);
    EXPECT_EQ(asked, kMaxTwoTickTarget);
}

// A symmetric map's signed distance: each side of 0 a log2(1 + |d|) axis, labelled with its sign.
TEST(Ticks, SignedDistancesTickBothSidesOfZero) {
    EXPECT_DOUBLE_EQ(axisPosition(AxisScale::SignedLog2OnePlus, 3), 2.0);    // log2(1 + 3)
    EXPECT_DOUBLE_EQ(axisPosition(AxisScale::SignedLog2OnePlus, -7), -3.0);  // -log2(1 + 7)
    EXPECT_DOUBLE_EQ(axisPosition(AxisScale::SignedLog2OnePlus, 0), 0.0);
    EXPECT_DOUBLE_EQ(axisValue(AxisScale::SignedLog2OnePlus, -3.0), -7.0);
    EXPECT_DOUBLE_EQ(axisValue(AxisScale::SignedLog2OnePlus, 2.0), 3.0);

    // -15..15 with room for every tick: 0 once, powers of two each side, in order.
    std::vector<std::string> labels;
    std::vector<double> values;
    for (const Tick& t : axisTicks(AxisScale::SignedLog2OnePlus, -15, 15, 20)) {
        labels.push_back(t.label);
        values.push_back(t.value);
    }
    EXPECT_EQ(labels, (std::vector<std::string>{"-8", "-4", "-2", "-1", "0", "1", "2", "4", "8"}));
    EXPECT_EQ(values, (std::vector<double>{-8, -4, -2, -1, 0, 1, 2, 4, 8}));

    // Only one side of 0: no tick on the other.
    for (const Tick& t : axisTicks(AxisScale::SignedLog2OnePlus, 0, 15, 10)) EXPECT_GE(t.value, 0);
    for (const Tick& t : axisTicks(AxisScale::SignedLog2OnePlus, -15, -1, 10)) EXPECT_LE(t.value, -1);
    EXPECT_TRUE(axisTicks(AxisScale::SignedLog2OnePlus, 1, -1, 10).empty());
}
