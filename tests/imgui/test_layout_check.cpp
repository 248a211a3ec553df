// The layout check's rules added after the s39 review (layout_check.hpp), each shown to fire on
// the defect and to stay quiet without it, in a bare ImGui context (no GL, the default font):
// items past a window's right edge with no horizontal scroll (Compare's dtype combo, the Fit
// hint), a plot's x tick labels run together ("10" "15" read "1015"), a plot too short to read.
#include "layout_check.hpp"
#include "plot_canvas.hpp"
#include "zoom.hpp"

#include "bare_context.hpp"

#include <gtest/gtest.h>
#include <imgui.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

namespace alibi::imgui {
namespace {

class LayoutCheckRules : public ::testing::Test {
protected:
    void SetUp() override { test::createBareContext(ImVec2(1000, 700)); }
    void TearDown() override { ImGui::DestroyContext(); }

    // One rendered frame of a 400 x 500 window holding what `draw` draws; its problems of `kind`.
    static std::vector<LayoutProblem> problemsOf(LayoutProblem::Kind kind, const std::function<void()>& draw) {
        std::vector<LayoutProblem> found;
        for (int frame = 0; frame < 2; ++frame) {  // the second frame: ImGui's sizes settled
            ImGui::NewFrame();
            ImGui::SetNextWindowPos(ImVec2(0, 0));
            ImGui::SetNextWindowSize(ImVec2(400, 500));
            ImGui::Begin("view", nullptr, ImGuiWindowFlags_NoDecoration);
            draw();
            ImGui::End();
            ImGui::Render();
            found.clear();
            for (const LayoutProblem& p : checkTextLayout(*ImGui::GetDrawData()))
                if (p.kind == kind) found.push_back(p);
        }
        return found;
    }

    // A plot of 16 keys (the stages view's) `size` big.
    static void keysPlot(ImVec2 size) {
        PlotAxes axes;
        axes.title = "softmax";
        axes.xMin = -0.5;
        axes.xMax = 15.5;
        axes.yMax = 0.4;
        PlotCanvas canvas(axes, size);
    }
};

TEST_F(LayoutCheckRules, AnItemPastTheWindowsEdgeIsFound) {
    EXPECT_EQ(problemsOf(LayoutProblem::Kind::PastEdge, [] { ImGui::Button("wide", ImVec2(500, 0)); }).size(), 1u);
    EXPECT_TRUE(problemsOf(LayoutProblem::Kind::PastEdge, [] { ImGui::Button("fits", ImVec2(300, 0)); }).empty());
    // Text on a line after others, the way the Fit hint ran off: cut, no glyph past the edge.
    EXPECT_EQ(problemsOf(LayoutProblem::Kind::PastEdge,
                         [] {
                             ImGui::Button("Export CSV", ImVec2(250, 0));
                             ImGui::SameLine();
                             ImGui::TextUnformatted("the same bytes as alibi fit FILE");
                         })
                  .size(),
              1u);
    // A window that scrolls sideways shows the rest.
    EXPECT_TRUE(problemsOf(LayoutProblem::Kind::PastEdge, [] {
                    ImGui::BeginChild("scrolls", ImVec2(300, 100), false, ImGuiWindowFlags_HorizontalScrollbar);
                    ImGui::Button("wide", ImVec2(500, 0));
                    ImGui::EndChild();
                }).empty());
}

TEST_F(LayoutCheckRules, XTickLabelsRunTogetherAreFound) {
    // A frame drawn by hand with "10" and "15" under it, `gap` px apart (the canvas no longer
    // crowds its own: the next test).
    const auto frame = [](float gap) {
        return [gap] {
            ImDrawList* draw = ImGui::GetWindowDrawList();
            const ImVec2 origin = ImGui::GetCursorScreenPos();
            const ImVec2 min(origin.x + 30, origin.y + 10), max(origin.x + 140, origin.y + 190);
            const ImU32 ink = ImGui::GetColorU32(ImGuiCol_Text);
            draw->AddRect(min, max, ink);
            const float ten = ImGui::CalcTextSize("10").x;
            draw->AddText(ImVec2(max.x - 60, max.y + 2), ink, "10");
            draw->AddText(ImVec2(max.x - 60 + ten + gap, max.y + 2), ink, "15");
            notePlot("softmax", min, max, 2, false);
            ImGui::Dummy(ImVec2(200, 220));
        };
    };
    const auto together = problemsOf(LayoutProblem::Kind::CrowdedTicks, frame(1.0f));
    ASSERT_FALSE(together.empty());
    EXPECT_EQ(together.back().text + " " + together.back().other, "10 15");
    EXPECT_TRUE(problemsOf(LayoutProblem::Kind::CrowdedTicks, frame(20.0f)).empty());
}

// The canvas thins its x ticks to its width: at 110 px its 16 keys' ticks ran "10" into "15"
// (and lesson 5's 90 px distance plot "0 5 10 15 20"); two at least remain.
TEST_F(LayoutCheckRules, ANarrowPlotsTicksStayApart) {
    for (const float width : {90.0f, 110.0f, 380.0f})
        EXPECT_TRUE(problemsOf(LayoutProblem::Kind::CrowdedTicks, [width] { keysPlot(ImVec2(width, 200)); }).empty())
            << width << " px";
}

TEST_F(LayoutCheckRules, APlotTooShortToReadIsFound) {
    EXPECT_EQ(problemsOf(LayoutProblem::Kind::SmallPlot, [] { keysPlot(ImVec2(380, 80)); }).size(), 1u);
    EXPECT_TRUE(problemsOf(LayoutProblem::Kind::SmallPlot, [] { keysPlot(ImVec2(380, 200)); }).empty());
}

// A cited side tab scrolled to its plot left its tab bar, the plot's title and picker above the
// part shown (the s40 brief, lesson 5 at 1280x720 with the Parameters panel): above the edge is a
// problem too, scroll bar or not; a tab that shows all it drew is not.
TEST_F(LayoutCheckRules, ACitedAreaScrolledPastItsTopIsFound) {
    const auto tab = [](float scroll) {
        return [scroll] {
            ImGui::BeginChild("side", ImVec2(300, 200), false, ImGuiWindowFlags_AlwaysVerticalScrollbar);
            ImGui::Button("title", ImVec2(200, 0));
            ImGui::Dummy(ImVec2(200, scroll > 0 ? 300.0f : 150.0f));
            if (scroll > 0) ImGui::SetScrollY(scroll);
            noteCitedArea("side tab");
            ImGui::EndChild();
        };
    };
    EXPECT_EQ(problemsOf(LayoutProblem::Kind::OffScreen, tab(140.0f)).size(), 1u);
    EXPECT_TRUE(problemsOf(LayoutProblem::Kind::OffScreen, tab(0.0f)).empty());
}

// The attention maps' layer grid names each head (the s40 brief: 26 px tiles carried no h0..h7).
TEST_F(LayoutCheckRules, ATileLeftUnlabelledIsFound) {
    const auto found = problemsOf(LayoutProblem::Kind::Unlabelled, [] { noteTileLabels("layer grid", 8, 0); });
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found.front().other, "0 of 8 tiles labelled");
    EXPECT_TRUE(problemsOf(LayoutProblem::Kind::Unlabelled, [] { noteTileLabels("layer grid", 8, 8); }).empty());
}

// Text under a tooltip does not show through it (the layout check reads glyphs, not what covers
// them): the style's popup background is opaque (the dark style's is 94 %, L5 of the s39 review).
TEST(ExplorerStyle, TooltipsAreOpaque) {
    EXPECT_EQ(explorerBaseStyle().Colors[ImGuiCol_PopupBg].w, 1.0f);
}

}  // namespace
}  // namespace alibi::imgui
