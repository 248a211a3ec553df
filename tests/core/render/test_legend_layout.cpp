// The legend plan every plot follows (Qt, ImGui, figures): whole names when they fit, brief
// names next, then a subset with a "k of n listed" line. Widths are made up here so each case
// is worked out by hand.
#include <alibi/render/legend_layout.hpp>

#include <gtest/gtest.h>

#include <vector>

using namespace alibi;

TEST(LegendLayout, WholeNamesInAsFewColumnsAsTheRowsAllow) {
    // Columns of 60 + 40 = 100 in 300: three fit, but two of three rows hold five entries.
    const std::vector<LegendEntryWidths> entries(5, LegendEntryWidths{60, 60, false});
    const LegendPlan plan = planLegend(entries, LegendRoom{300, 4, 40, 70});
    EXPECT_EQ(plan.shown, (std::vector<int>{0, 1, 2, 3, 4}));
    EXPECT_FALSE(plan.brief);
    EXPECT_FALSE(plan.note);
    EXPECT_EQ(plan.columns, 2);
    EXPECT_EQ(plan.rows, 3);
    EXPECT_EQ(plan.width(), 200.0);
}

TEST(LegendLayout, BriefNamesBeforeLeavingAnyOut) {
    // Twelve heads: whole names (150 + 20) give one column of 5 rows; "h3" (30 + 20) gives four.
    const std::vector<LegendEntryWidths> entries(12, LegendEntryWidths{150, 30, false});
    const LegendPlan plan = planLegend(entries, LegendRoom{200, 5, 20, 70});
    EXPECT_TRUE(plan.brief);
    EXPECT_FALSE(plan.note);
    EXPECT_EQ(plan.shown.size(), 12u);
    EXPECT_EQ(plan.columns, 3);  // ceil(12 / 5)
    EXPECT_EQ(plan.rows, 4);     // ceil(12 / 3)
    EXPECT_EQ(plan.columnWidth, 50.0);
}

TEST(LegendLayout, TooManyListsTheKeptTheFirstAndTheLastAndSaysSo) {
    // Columns as wide as the note (70 + 20 = 90): one in 100, four lines, the note on the last.
    std::vector<LegendEntryWidths> entries(20, LegendEntryWidths{30, 30, false});
    entries[7].keep = true;
    const LegendPlan plan = planLegend(entries, LegendRoom{100, 4, 20, 70});
    EXPECT_TRUE(plan.note);
    EXPECT_EQ(plan.shown, (std::vector<int>{0, 7, 19}));
    EXPECT_EQ(plan.columns, 1);
    EXPECT_EQ(plan.rows, 4);
    EXPECT_EQ(plan.columnWidth, 90.0);
    EXPECT_EQ(legendNote(plan.shown.size(), entries.size()), "3 of 20 listed");
}

TEST(LegendLayout, NothingToListAndAColumnEvenWhenTheRoomIsNarrow) {
    EXPECT_EQ(planLegend({}, LegendRoom{300, 4, 40, 70}).columns, 0);
    const std::vector<LegendEntryWidths> one(1, LegendEntryWidths{500, 500, false});
    const LegendPlan plan = planLegend(one, LegendRoom{100, 4, 40, 70});
    EXPECT_EQ(plan.columns, 1);
    EXPECT_EQ(plan.columnWidth, 540.0);  // never cut: as wide as its name
}

TEST(LegendLayout, RowsForEveryWholeName) {
    // Columns of 150 + 50 in 400: two, so twelve entries need six lines.
    const std::vector<LegendEntryWidths> entries(12, LegendEntryWidths{150, 30, false});
    EXPECT_EQ(legendRowsForAll(entries, LegendRoom{400, 1, 50, 70}), 6);
}

TEST(LegendLayout, BriefNamesOfHeads) {
    EXPECT_EQ(briefLegendName("head 3 (m = 1/16)"), "h3");
    EXPECT_EQ(briefLegendName("head 12"), "h12");
    EXPECT_EQ(briefLegendName("T = 64 (= L)"), "T = 64 (= L)");
    EXPECT_EQ(briefLegendName("headroom"), "headroom");
    EXPECT_EQ(briefLegendName("head 3x"), "head 3x");
}

TEST(LegendLayout, BriefNamesWhenOneColumnOfWholeNamesIsWiderThanTheRoom) {
    // Three heads fit three rows, but their whole names (150 + 20) are wider than the room (100):
    // brief names (30 + 20), the plot keeps its share.
    const std::vector<LegendEntryWidths> entries(3, LegendEntryWidths{150, 30, false});
    const LegendPlan plan = planLegend(entries, LegendRoom{100, 3, 20, 70});
    EXPECT_TRUE(plan.brief);
    EXPECT_EQ(plan.columnWidth, 50.0);
    EXPECT_EQ(plan.shown.size(), 3u);
}

TEST(LegendLayout, SiblingPlotsInTheirSharedRoomListTheSameEntries) {
    // 32 heads of "h3"-width 30 + swatch 20 = 50 (the note 70 + 20 = 90 sets the column): one
    // column. The bias plot holds 10 lines, the attention plot beside it 9 (a longer title): on
    // their own they list different heads (9 of them and 8).
    const std::vector<LegendEntryWidths> entries(32, LegendEntryWidths{150, 30, false});
    const LegendRoom bias{100, 10, 20, 70}, attention{120, 9, 20, 70};
    ASSERT_NE(planLegend(entries, bias).shown, planLegend(entries, attention).shown);
    const std::vector<LegendRoom> rooms{bias, attention};
    const LegendRoom shared = sharedLegendRoom(rooms);
    EXPECT_EQ(shared.width, 100.0);
    EXPECT_EQ(shared.rows, 9);
    EXPECT_EQ(planLegend(entries, shared).shown.size(), 8u);  // 9 lines, the note on the last
    // A wider note or swatch in either is what both must leave room for.
    const std::vector<LegendRoom> unequal{LegendRoom{100, 10, 24, 60}, LegendRoom{120, 9, 20, 75}};
    EXPECT_EQ(sharedLegendRoom(unequal).swatch, 24.0);
    EXPECT_EQ(sharedLegendRoom(unequal).noteWidth, 75.0);
    EXPECT_EQ(sharedLegendRoom({}).rows, LegendRoom{}.rows);
}
