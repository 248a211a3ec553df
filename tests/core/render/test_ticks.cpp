// Tests for <alibi/explore/ticks.hpp>.
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

TEST(Ticks, TokensLabelEveryCellOrNone) {
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
    // Cells closer than a line: numbers at indexTicks' places, no token at all.
    const auto numbers = indexAxisLabels(4, 10, 14, 36, tokens);
    ASSERT_EQ(numbers.size(), 1u);
    EXPECT_FALSE(numbers[0].token);
    EXPECT_EQ(numbers[0].text, "0");
    // Tokens that do not match the cells (3 for 4): numbers.
    const auto mismatched = indexAxisLabels(4, 40, 14, 36, std::vector<std::string>(tokens.begin(), tokens.end() - 1));
    EXPECT_TRUE(std::none_of(mismatched.begin(), mismatched.end(), [](const IndexLabel& l) { return l.token; }));
    EXPECT_TRUE(tokensFitAxis(4, 14, 14, 4));
    EXPECT_FALSE(tokensFitAxis(4, 13.9, 14, 4));
    EXPECT_FALSE(tokensFitAxis(0, 20, 14, 0));
}
