// Tests for <alibi/explore/decimate.hpp>.
#include <alibi/explore/decimate.hpp>

#include <gtest/gtest.h>

#include <algorithm>

using namespace alibi;
using namespace alibi::explore;

TEST(Decimate, ALonePeakSurvives) {
    Series s{"row", {}, {}};
    for (int i = 0; i < 100000; ++i) {
        s.x.push_back(i);
        s.y.push_back(i == 77777 ? 1.0 : 0.0);
    }
    decimateSeries(s, 1000);
    EXPECT_LE(s.x.size(), 1000U);
    EXPECT_TRUE(std::is_sorted(s.x.begin(), s.x.end()));
    const auto peak = std::find(s.y.begin(), s.y.end(), 1.0);
    ASSERT_NE(peak, s.y.end());
    EXPECT_EQ(s.x[static_cast<std::size_t>(peak - s.y.begin())], 77777);
}

TEST(Decimate, ShortSeriesAreLeftAlone) {
    Series s{"row", {0, 1, 2}, {3, 4, 5}};
    decimateSeries(s, 1000);
    EXPECT_EQ(s.y, (std::vector<double>{3, 4, 5}));
    EXPECT_EQ(curvePointBudget(256), 1024U);
    EXPECT_EQ(curvePointBudget(1), 4096U);
}
