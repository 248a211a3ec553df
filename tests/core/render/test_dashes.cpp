// Tests for <alibi/render/dashes.hpp>: a dashed polyline's dashes, worked out by hand from the
// pattern (on, off, offset) along the line's length.
#include <alibi/render/dashes.hpp>

#include <gtest/gtest.h>

using namespace alibi;

namespace {

void expectPoints(const std::vector<PathPoint>& got, const std::vector<PathPoint>& want) {
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t k = 0; k < got.size(); ++k) {
        EXPECT_NEAR(got[k].first, want[k].first, 1e-9) << "point " << k;
        EXPECT_NEAR(got[k].second, want[k].second, 1e-9) << "point " << k;
    }
}

}  // namespace

TEST(DashSegments, AStraightLineIsCutIntoDashesOfThePattern) {
    // 0..20 with 4 on, 2 off: dashes [0, 4], [6, 10], [12, 16], [18, 20].
    const auto dashes = dashSegments({{0, 0}, {20, 0}}, 4, 2);
    ASSERT_EQ(dashes.size(), 4U);
    expectPoints(dashes[0], {{0, 0}, {4, 0}});
    expectPoints(dashes[1], {{6, 0}, {10, 0}});
    expectPoints(dashes[2], {{12, 0}, {16, 0}});
    expectPoints(dashes[3], {{18, 0}, {20, 0}});
}

TEST(DashSegments, TheOffsetStartsThePatternPartWay) {
    // Offset 5 into a period of 6 (4 on, 2 off): the line starts in the gap's second pixel, so
    // the first dash is [1, 5], then [7, 11].
    const auto dashes = dashSegments({{0, 0}, {12, 0}}, 4, 2, 5);
    ASSERT_EQ(dashes.size(), 2U);
    expectPoints(dashes[0], {{1, 0}, {5, 0}});
    expectPoints(dashes[1], {{7, 0}, {11, 0}});
    // A negative offset is the same position of the pattern as offset + period.
    const auto same = dashSegments({{0, 0}, {12, 0}}, 4, 2, -1);
    ASSERT_EQ(same.size(), 2U);
    expectPoints(same[0], {{1, 0}, {5, 0}});
}

TEST(DashSegments, ADashKeepsTheCornerItRunsThrough) {
    // An L: (0,0) -> (3,0) -> (3,10), 5 on, 5 off: the first dash turns the corner at (3, 0) and
    // ends 2 px down; the next starts 10 px along the line, at (3, 7).
    const auto dashes = dashSegments({{0, 0}, {3, 0}, {3, 10}}, 5, 5);
    ASSERT_EQ(dashes.size(), 2U);
    expectPoints(dashes[0], {{0, 0}, {3, 0}, {3, 2}});
    expectPoints(dashes[1], {{3, 7}, {3, 10}});
}

TEST(DashSegments, NoPatternIsTheWholeLineAndTooFewPointsAreNone) {
    const std::vector<PathPoint> line{{0, 0}, {5, 5}, {9, 1}};
    const auto whole = dashSegments(line, 0, 3);
    ASSERT_EQ(whole.size(), 1U);
    expectPoints(whole[0], line);
    EXPECT_EQ(dashSegments(line, 4, 0).size(), 1U);
    EXPECT_TRUE(dashSegments({{1, 1}}, 4, 2).empty());
    EXPECT_TRUE(dashSegments({}, 4, 2).empty());
    // Repeated points (zero-length segments) neither break nor add a dash.
    const auto repeated = dashSegments({{0, 0}, {2, 0}, {2, 0}, {4, 0}}, 3, 3);
    ASSERT_EQ(repeated.size(), 1U);
    expectPoints(repeated[0], {{0, 0}, {2, 0}, {3, 0}});
}
