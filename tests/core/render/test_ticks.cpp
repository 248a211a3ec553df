// Tests for <alibi/explore/ticks.hpp>.
#include <alibi/render/ticks.hpp>

#include <gtest/gtest.h>

#include <cmath>

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
