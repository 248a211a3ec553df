// The ImGui explorer's "Position schemes" view (view id `position-schemes`): it shows the core's
// curves for the session's slopes with the six labels, hovering the plot reads out the distance
// under the mouse, the D control and the logit/attention toggle change the curves, and sessions
// open on it by its id.
#include "explorer_fixture.hpp"
#include "position_schemes_model.hpp"
#include "view_models.hpp"

#include <cmath>
#include <set>

namespace alibi::imgui {
namespace {

using PositionSchemesView = ExplorerLogic;

TEST_F(PositionSchemesView, ShowsTheSixSchemesForTheSessionSlopes) {
    state().view = View::PositionSchemes;
    settle();
    ASSERT_TRUE(m_explorer->model().positionSchemes);
    const PositionSchemesResult& r = *m_explorer->model().positionSchemes;
    ASSERT_TRUE(r.error.empty()) << r.error;
    std::set<std::string> labels;
    int alibi = 0;
    for (const PositionCurve& c : r.schemes.curves) {
        labels.insert(c.label);
        alibi += c.scheme == PositionScheme::ALiBi;
        EXPECT_EQ(c.x.size(), 129u);
    }
    EXPECT_EQ(labels, (std::set<std::string>{"ALiBi", "RoPE", "sinusoidal", "T5", "KERPLE", "Sandwich"}));
    EXPECT_EQ(alibi, state().session.attention.bias.slopes.heads);
    // ALiBi head 0 is -m_0 d with the session's first slope (press, H = 8: 1/2).
    EXPECT_DOUBLE_EQ(r.schemes.curves[0].y[10], -0.5 * 10);
}

// The formulas and sources under the plot in whole lines (issue 27 at 1280x720: the last line was
// cut in half by the area's bottom): the area is a whole number of text lines tall, its lines one
// text line apart, whatever the window's height.
TEST_F(PositionSchemesView, FormulasShowWholeLines) {
    state().view = View::PositionSchemes;
    for (float height : {1000.0f, 720.0f, 613.0f}) {
        ImGui::GetIO().DisplaySize = ImVec2(1280.0f, height);
        settle();
        frame();
        const ScreenRect text = state().schemesTextRect;
        const float line = ImGui::GetTextLineHeight();
        EXPECT_GT(text.height, line) << height;
        EXPECT_FLOAT_EQ(std::fmod(text.height, line), 0.0f) << height << ": " << text.height << " / " << line;
    }
}

TEST_F(PositionSchemesView, HoveringReadsOutTheDistanceUnderTheMouse) {
    state().view = View::PositionSchemes;
    settle();
    const ScreenRect rect = state().schemesPlotRect;
    ASSERT_GT(rect.width, 200.0f);
    ImGui::GetIO().MousePos = ImVec2(rect.x + rect.width * 0.5f, rect.y + rect.height * 0.5f);
    frame();
    frame();
    ASSERT_TRUE(state().schemesHoverDistance.has_value());
    const double d = *state().schemesHoverDistance;
    EXPECT_GT(d, 20.0);
    EXPECT_LT(d, 108.0);
    EXPECT_EQ(d, std::round(d));
    // The read-out's numbers at d are the formulas' values there (KERPLE log: -2 ln(1 + d)).
    for (const PositionCurve& c : m_explorer->model().positionSchemes->schemes.curves)
        if (c.name == "KERPLE log") {
            EXPECT_DOUBLE_EQ(*curveValueAt(c, d), -2 * std::log1p(d));
        }
    ImGui::GetIO().MousePos = ImVec2(-1, -1);
    frame();
    EXPECT_FALSE(state().schemesHoverDistance.has_value());
}

TEST_F(PositionSchemesView, MaxDistanceAndAttentionToggle) {
    state().view = View::PositionSchemes;
    state().schemesMaxDistance = 512;
    state().schemesQuantity = SchemeQuantity::Attention;
    settle();
    const PositionSchemes& s = m_explorer->model().positionSchemes->schemes;
    EXPECT_EQ(s.maxDistance, 512);
    for (const PositionCurve& c : s.curves) {
        EXPECT_NE(c.scheme, PositionScheme::RoPE);
        EXPECT_NE(c.scheme, PositionScheme::Sinusoidal);
        EXPECT_EQ(c.x.back(), 512.0);
        double sum = 0;
        for (double y : c.y) sum += y;
        EXPECT_NEAR(sum, 1.0, 1e-12) << c.name;
    }
}

TEST_F(PositionSchemesView, SessionsOpenItByItsId) {
    EXPECT_EQ(explorerViewName(toExplorerView(View::PositionSchemes)), "position-schemes");
    const auto parsed = parseExplorerView("position-schemes");
    ASSERT_TRUE(parsed.has_value());
    EXPECT_EQ(fromExplorerView(*parsed), View::PositionSchemes);
    EXPECT_EQ(viewSlug(View::PositionSchemes), "position-schemes");
}

}  // namespace
}  // namespace alibi::imgui
