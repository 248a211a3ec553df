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
