// PlotCanvas::drawSeriesInTurn (issue 27, the core's coincidingCurves): two series that draw the
// same line are both visible, each dashed in its turn, and the note says so. Read from the draw
// list in a bare ImGui context (no GL): a series is visible when some piece of it is not under a
// triangle of the series drawn after it.
#include "plot_canvas.hpp"

#include <alibi/render/coinciding_curves.hpp>
#include <alibi/render/dashes.hpp>

#include "bare_context.hpp"

#include <gtest/gtest.h>
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace alibi::imgui {
namespace {

constexpr ImU32 kRed = IM_COL32(255, 0, 0, 255);
constexpr ImU32 kBlue = IM_COL32(0, 0, 255, 255);

struct Triangle {
    ImVec2 a, b, c;
};

// The solid triangles of `color` (ImGui's anti-aliasing fringe fades to alpha 0: not counted).
std::vector<Triangle> trianglesOf(const ImDrawList& list, ImU32 color) {
    std::vector<Triangle> out;
    for (const ImDrawCmd& cmd : list.CmdBuffer)
        for (unsigned i = cmd.IdxOffset; i + 3 <= cmd.IdxOffset + cmd.ElemCount; i += 3) {
            const ImDrawVert& a = list.VtxBuffer[static_cast<int>(cmd.VtxOffset + list.IdxBuffer[static_cast<int>(i)])];
            const ImDrawVert& b =
                list.VtxBuffer[static_cast<int>(cmd.VtxOffset + list.IdxBuffer[static_cast<int>(i + 1)])];
            const ImDrawVert& c =
                list.VtxBuffer[static_cast<int>(cmd.VtxOffset + list.IdxBuffer[static_cast<int>(i + 2)])];
            if (a.col == color && b.col == color && c.col == color) out.push_back({a.pos, b.pos, c.pos});
        }
    return out;
}

bool covers(const Triangle& t, ImVec2 p) {
    const auto side = [](ImVec2 u, ImVec2 v, ImVec2 q) {
        return (v.x - u.x) * (q.y - u.y) - (v.y - u.y) * (q.x - u.x);
    };
    const float d1 = side(t.a, t.b, p), d2 = side(t.b, t.c, p), d3 = side(t.c, t.a, p);
    const float eps = 1e-3f;
    const bool negative = d1 < -eps || d2 < -eps || d3 < -eps;
    const bool positive = d1 > eps || d2 > eps || d3 > eps;
    return !(negative && positive);
}

// Whether some solid triangle of `under` has its centre outside every solid triangle of `over`.
bool showsThrough(const std::vector<Triangle>& under, const std::vector<Triangle>& over) {
    for (const Triangle& t : under) {
        const ImVec2 centre((t.a.x + t.b.x + t.c.x) / 3.0f, (t.a.y + t.b.y + t.c.y) / 3.0f);
        bool hidden = false;
        for (const Triangle& o : over) hidden = hidden || covers(o, centre);
        if (!hidden) return true;
    }
    return false;
}

class PlotCanvasTurns : public ::testing::Test {
protected:
    void SetUp() override { test::createBareContext(ImVec2(800, 600)); }
    void TearDown() override { ImGui::DestroyContext(); }

    // A frame with a window "plot" open and a 600 x 400 canvas of x 0 to 100, y -100 to 0 (end
    // it with endFrame).
    static PlotCanvas beginPlot() {
        ImGui::NewFrame();
        ImGui::SetNextWindowPos(ImVec2(0, 0));
        ImGui::SetNextWindowSize(ImVec2(800, 600));
        ImGui::Begin("plot");
        PlotAxes axes;
        axes.title = "lines";
        axes.xMax = 100;
        axes.yMin = -100;
        axes.yMax = 0;
        return PlotCanvas(axes, ImVec2(600, 400));
    }
    static void endFrame() {
        ImGui::End();
        ImGui::EndFrame();
    }
    static inline const Series kLine{"line", {0, 25, 50, 75, 100}, {0, -25, -50, -75, -100}};

    // One frame: a plot of two identical lines, red then blue, drawn in turn or (`inTurn` false)
    // one over the other as drawSeries draws them. Returns the red and blue solid triangles.
    std::pair<std::vector<Triangle>, std::vector<Triangle>> drawTwo(bool inTurn, std::vector<std::string>& note) {
        PlotCanvas canvas = beginPlot();
        const Series& line = kLine;
        if (inTurn) {
            note = canvas.drawSeriesInTurn({line, line}, {kRed, kBlue}, 1.5f);
        } else {
            canvas.drawSeries(line, kRed, 1.5f);
            canvas.drawSeries(line, kBlue, 1.5f);
        }
        const ImDrawList& list = *ImGui::GetWindowDrawList();
        auto drawn = std::make_pair(trianglesOf(list, kRed), trianglesOf(list, kBlue));
        endFrame();
        return drawn;
    }
};

TEST_F(PlotCanvasTurns, TwoIdenticalSeriesAreBothVisibleAndTheNoteSaysSo) {
    std::vector<std::string> note;
    // The check can fail: drawn one over the other, the red line is wholly under the blue one.
    const auto [redOver, blueOver] = drawTwo(false, note);
    ASSERT_FALSE(redOver.empty());
    EXPECT_FALSE(showsThrough(redOver, blueOver));

    const auto [red, blue] = drawTwo(true, note);
    ASSERT_FALSE(red.empty());
    ASSERT_FALSE(blue.empty());
    EXPECT_TRUE(showsThrough(red, blue)) << "the red line is hidden under the blue one";
    EXPECT_EQ(note, std::vector<std::string>{"2 curves coincide, dashed in turn"});
}

// The dashes of a series drawn in its turn are the core's dashSegments (the walk the exported
// figures' raster canvas takes): each dash of the core's is drawn, and nothing red lies off them.
TEST_F(PlotCanvasTurns, TheDashesAreTheCores) {
    PlotCanvas canvas = beginPlot();
    const Series& line = kLine;
    constexpr float kThickness = 1.5f;
    (void)canvas.drawSeriesInTurn({line, line}, {kRed, kBlue}, kThickness);
    const std::vector<Triangle> red = trianglesOf(*ImGui::GetWindowDrawList(), kRed);
    std::vector<PathPoint> points;
    for (std::size_t i = 0; i < line.x.size(); ++i) {
        const ImVec2 p = canvas.toScreen(line.x[i], line.y[i]);
        points.emplace_back(p.x, p.y);
    }
    endFrame();
    const DashPattern pattern = dashInTurn(CurveTurn{2, 0}, kThickness);
    ASSERT_GT(pattern.on, 0.0);
    const auto dashes = dashSegments(points, pattern.on, pattern.off, pattern.offset);
    ASSERT_GE(dashes.size(), 5u);
    ASSERT_FALSE(red.empty());
    // Every dash of the core's is under a red triangle at its middle.
    for (const auto& dash : dashes) {
        const ImVec2 middle(static_cast<float>((dash.front().first + dash.back().first) / 2),
                            static_cast<float>((dash.front().second + dash.back().second) / 2));
        bool drawn = false;
        for (const Triangle& t : red) drawn = drawn || covers(t, middle);
        EXPECT_TRUE(drawn) << "the core's dash at " << middle.x << ", " << middle.y << " is not drawn";
    }
    // No red triangle lies off the core's dashes (farther than the line's half width and its
    // fringe from each dash).
    const auto distance = [](ImVec2 p, const PathPoint& a, const PathPoint& b) {
        const double dx = b.first - a.first, dy = b.second - a.second;
        const double length2 = dx * dx + dy * dy;
        const double t =
            length2 > 0 ? std::clamp(((p.x - a.first) * dx + (p.y - a.second) * dy) / length2, 0.0, 1.0) : 0.0;
        return std::hypot(p.x - (a.first + t * dx), p.y - (a.second + t * dy));
    };
    int off = 0;
    for (const Triangle& t : red) {
        const ImVec2 centre((t.a.x + t.b.x + t.c.x) / 3.0f, (t.a.y + t.b.y + t.c.y) / 3.0f);
        double nearest = 1e9;
        for (const auto& dash : dashes)
            for (std::size_t k = 1; k < dash.size(); ++k)
                nearest = std::min(nearest, distance(centre, dash[k - 1], dash[k]));
        off += nearest > kThickness ? 1 : 0;
    }
    EXPECT_EQ(off, 0) << "red triangles off the core's dashes";
}

}  // namespace
}  // namespace alibi::imgui

namespace alibi::imgui {
namespace {

// The s39 review (lesson 3, T = 64 ... 1024): past the shorter curves' ends the longest kept its
// one dash in the group's period, a few short dashes over the tail. Drawn now as the core's
// stretches: where it runs on alone it is whole.
TEST_F(PlotCanvasTurns, TheLongestCurveIsWholeWhereItRunsOnAlone) {
    PlotCanvas canvas = beginPlot();
    const Series shortLine{"short", {0, 5, 10, 15, 20, 25}, {0, -5, -10, -15, -20, -25}};
    Series longLine{"long", {}, {}};
    for (int x = 0; x <= 100; x += 5) longLine.x.push_back(x), longLine.y.push_back(-x);
    const std::vector<std::string> note = canvas.drawSeriesInTurn({shortLine, longLine}, {kRed, kBlue}, 1.5f);
    const std::vector<Triangle> blue = trianglesOf(*ImGui::GetWindowDrawList(), kBlue);
    std::vector<ImVec2> tail;
    for (double x = 30; x <= 98; x += 1) tail.push_back(canvas.toScreen(x, -x));
    endFrame();
    EXPECT_EQ(note, std::vector<std::string>{"2 curves coincide, dashed in turn"});
    int gaps = 0;
    for (const ImVec2& p : tail) {
        bool drawn = false;
        for (const Triangle& t : blue) drawn = drawn || covers(t, p);
        if (!drawn) ++gaps;
    }
    EXPECT_EQ(gaps, 0) << "of " << tail.size() << " points along the tail";
}

// The core's axes for a kind of plot (issue 23: ImGui drew the slopes as joined points on its own
// span and attention vs distance on a log distance axis, Qt and the figures bars and a linear axis).
TEST_F(PlotCanvasTurns, TheSlopesAreBarsOnTheFiguresAxis) {
    // Slopes 1/4, 1/16, 1/64, 1/256 (log2 -2 to -8): the foot a quarter octave under the
    // smallest, out to a whole octave (2^-9 = 1/512); the top -2 is whole, so an octave above
    // it (1/2); half a bar either side of heads 0 to 3.
    const Series slopes{"slopes", {0, 1, 2, 3}, {0.25, 0.0625, 0.015625, 0.00390625}};
    const PlotAxes axes = kindAxes(PlotKind::Slopes, {slopes});
    EXPECT_EQ(axes.yKind, AxisScale::Log2);
    EXPECT_DOUBLE_EQ(axes.yMin, 1.0 / 512);
    EXPECT_DOUBLE_EQ(axes.yMax, 0.5);
    EXPECT_DOUBLE_EQ(axes.xMin, -0.5);
    EXPECT_DOUBLE_EQ(axes.xMax, 3.5);
    ImGui::NewFrame();
    ImGui::SetNextWindowPos(ImVec2(0, 0));
    ImGui::SetNextWindowSize(ImVec2(800, 600));
    ImGui::Begin("plot");
    const PlotCanvas canvas(axes, ImVec2(600, 400));
    canvas.drawBars(slopes, [](std::size_t) { return kRed; });
    // Each bar is a quad of two red triangles, all standing on one foot; the steepest tallest.
    const std::vector<Triangle> bars = trianglesOf(*ImGui::GetWindowDrawList(), kRed);
    ImGui::End();
    ImGui::EndFrame();
    ASSERT_EQ(bars.size(), 8u);
    std::vector<float> tops, feet;
    for (std::size_t n = 0; n < bars.size(); n += 2) {
        float top = 1e9f, foot = -1e9f;
        for (const Triangle& t : {bars[n], bars[n + 1]})
            for (const ImVec2& p : {t.a, t.b, t.c}) top = std::min(top, p.y), foot = std::max(foot, p.y);
        tops.push_back(top);
        feet.push_back(foot);
    }
    for (float foot : feet) EXPECT_FLOAT_EQ(foot, feet.front());
    EXPECT_TRUE(std::is_sorted(tops.begin(), tops.end())) << "the bars fall with the slope";
    // On a log axis the bars rise in equal steps (a factor 4 a head).
    EXPECT_NEAR(tops[1] - tops[0], tops[3] - tops[2], 0.5f);
}

TEST_F(PlotCanvasTurns, AttentionVsDistanceIsLinearFromZeroAsInTheFigures) {
    const Series row{"head 0", {0, 1, 2, 3}, {0.5, 0.25, 0.125, 0.125}};
    const PlotAxes axes = kindAxes(PlotKind::AttentionDistance, {row});
    EXPECT_EQ(axes.xKind, AxisScale::Linear);
    EXPECT_DOUBLE_EQ(axes.yMin, 0);
    EXPECT_DOUBLE_EQ(axes.yMax, 0.52);  // 4 % of [0, 0.5] above the peak
    EXPECT_TRUE(axes.exact);
}

}  // namespace
}  // namespace alibi::imgui
