// The explorers' view names: one title per view in both explorers, each short name no longer
// than its title, and no two views sharing a title, short name or file-name slug (a lesson that
// says "open Attention stages" must find one tab of that name).
#include <alibi/explore/view_titles.hpp>

#include <gtest/gtest.h>

#include <set>
#include <string>

using namespace alibi::explore;

TEST(ViewTitles, EveryViewHasItsOwnNames) {
    std::set<std::string_view> full, brief, slug;
    for (ExplorerTab tab : kExplorerTabs) {
        const TabTitle t = tabTitle(tab);
        EXPECT_FALSE(t.full.empty());
        EXPECT_LE(t.brief.size(), t.full.size()) << t.full;
        EXPECT_EQ(t.slug.find(' '), std::string_view::npos) << t.slug;
        EXPECT_TRUE(full.insert(t.full).second) << t.full;
        EXPECT_TRUE(brief.insert(t.brief).second) << t.brief;
        EXPECT_TRUE(slug.insert(t.slug).second) << t.slug;
    }
    EXPECT_EQ(full.size(), 11u);
}

TEST(ViewTitles, TheNamesTheLessonsAndDocsUse) {
    EXPECT_EQ(tabTitle(ExplorerTab::Stages).full, "Attention stages");
    EXPECT_EQ(tabTitle(ExplorerTab::Curves).full, "Slopes & curves");
    EXPECT_EQ(tabTitle(ExplorerTab::Maps).brief, "Maps");
    EXPECT_EQ(tabTitle(ExplorerTab::Grid).slug, "head-grid");
}

TEST(ViewTitles, TheTabRowTakesBriefNamesThenASmallerFont) {
    // A row of whole titles 1000 px wide, of brief names 600 px, shrinking with the font.
    const auto row = [](bool brief, double scale) { return (brief ? 600.0 : 1000.0) * scale; };
    EXPECT_EQ(fitTabRow(1000, 0.5, row), (TabRowFit{false, 1}));
    EXPECT_EQ(fitTabRow(999, 0.5, row), (TabRowFit{true, 1}));
    // 540 px: 0.9 of 600 fits, 0.95 (570) does not.
    EXPECT_EQ(fitTabRow(540, 0.5, row), (TabRowFit{true, 0.9}));
    // 100 px: nothing fits; the smallest allowed.
    EXPECT_EQ(fitTabRow(100, 0.5, row), (TabRowFit{true, 0.5}));
    EXPECT_EQ(fitTabRow(100, 0.75, row), (TabRowFit{true, 0.75}));
    // 359 px: 0.6 gives 360, 0.55 gives 330.
    EXPECT_EQ(fitTabRow(359, 0.5, row), (TabRowFit{true, 0.55}));
}
