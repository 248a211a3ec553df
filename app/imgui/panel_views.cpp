// The centre panel: one tab per view, in the Qt explorer's order. Switching by tab, by the View
// menu or by Ctrl+1..8 all set AppState::view; views not shown report no size, so their core
// work waits until they are opened again.
#include "panels.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <string>

namespace alibi::imgui {

namespace {

// The lesson strip's large font when the shell built one (drawn scaled down it stays sharp), else
// null (the logic tests draw with the default font alone).
ImFont* sharpFont() {
    ImFontAtlas* atlas = ImGui::GetIO().Fonts;
    return atlas->Fonts.Size > 1 ? atlas->Fonts[1] : nullptr;
}

// The interface font's size (the default font, at the zoom).
float mainFontSize() {
    ImFontAtlas* atlas = ImGui::GetIO().Fonts;
    return atlas->Fonts.Size > 0 ? atlas->Fonts[0]->FontSize : ImGui::GetFontSize();
}

}  // namespace

explore::TabRowFit tabTitlesFor(float width) {
    const ImGuiStyle& style = ImGui::GetStyle();
    const auto text = [](bool shortTitles) {
        float sum = 0;
        for (View view : kAllViews)
            sum += ImGui::CalcTextSize(std::string(shortTitles ? viewShortTitle(view) : viewTitle(view)).c_str()).x;
        return sum;
    };
    // What a row of tabs takes beside its text: each tab's padding, the spacing between tabs (as
    // ImGui's tab bar lays them out), and a pixel to spare.
    const auto n = static_cast<float>(std::size(kAllViews));
    const float frames = n * style.FramePadding.x * 2.0f + (n - 1.0f) * style.ItemInnerSpacing.x + 1.0f;
    const float fullText = text(false), shortText = text(true);
    // The core's order (full, brief, brief smaller); a smaller font is the sharper one, which
    // measures up to 2 % wider than the interface's font scaled.
    return explore::fitTabRow(width, 0.5, [&](bool brief, double scale) {
        const double spare = scale < 1 ? 1.02 : 1.0;
        return (brief ? shortText : fullText) * scale * spare + frames;
    });
}

void drawViewsPanel(AppState& state, const Model& model) {
    state.diagnoseWidth = 0;
    state.diagnoseHeight = 0;
    state.compareWidth = 0;
    state.compareHeight = 0;
    state.maps.gridWidth = state.maps.gridHeight = 0;
    state.maps.headWidth = state.maps.headHeight = 0;
    state.maps.similarityWidth = state.maps.similarityHeight = 0;
    state.maps.hover.reset();
    state.maps.similarityHover[0].reset();
    state.maps.similarityHover[1].reset();
    // Every tab's title whole on one row, never behind scroll arrows (1280x720 in presentation
    // mode with the Parameters panel cut the row at "Map"): the full titles where they fit, else
    // the short names, else the short names in a smaller font (as the Qt explorer does). The ID
    // after "###" stays the view's.
    const explore::TabRowFit tabs = tabTitlesFor(ImGui::GetContentRegionAvail().x);
    ImFont* tabFont = tabs.scale < 1.0 ? sharpFont() : nullptr;
    const auto pushTabFont = [&] {
        if (tabs.scale >= 1.0) return;
        if (tabFont != nullptr) ImGui::PushFont(tabFont);
        ImGui::SetWindowFontScale(static_cast<float>(tabs.scale) *
                                  (tabFont != nullptr ? mainFontSize() / tabFont->FontSize : 1.0f));
    };
    const auto popTabFont = [&] {
        if (tabs.scale >= 1.0) return;
        ImGui::SetWindowFontScale(1.0f);
        if (tabFont != nullptr) ImGui::PopFont();
    };
    pushTabFont();
    if (!ImGui::BeginTabBar("views", ImGuiTabBarFlags_FittingPolicyScroll)) {
        popTabFont();
        return;
    }
    const bool switched = state.view != state.tabShown;
    for (View view : kAllViews) {
        const std::string title =
            std::string(tabs.brief ? viewShortTitle(view) : viewTitle(view)) + "###" + std::string(viewSlug(view));
        const ImGuiTabItemFlags flags = switched && view == state.view ? ImGuiTabItemFlags_SetSelected : 0;
        if (!ImGui::BeginTabItem(title.c_str(), nullptr, flags)) continue;
        popTabFont();  // the view's own text at the interface's size
        // A click on a tab selects it; a menu or key choice waits until its tab is the one drawn.
        if (!switched) state.view = view;
        if (view == state.view) state.tabShown = view;
        switch (view) {
            case View::Grid:
                drawGridPanel(state, model);
                break;
            case View::Detail:
                drawDetailView(state, model);
                break;
            case View::Curves:
                drawCurvesPanel(state, model);
                break;
            case View::Stages:
                drawStagesView(state, model);
                break;
            case View::Compare:
                drawCompareView(state, model);
                break;
            case View::Extrapolation:
                drawExtrapolationView(state, model);
                break;
            case View::Diagnose:
                drawDiagnoseView(state, model);
                break;
            case View::PositionSchemes:
                drawPositionSchemesView(state, model);
                break;
            case View::Maps:
                drawMapsView(state, model);
                break;
            case View::Fit:
                drawFitView(state, model);
                break;
            case View::Model:
                drawModelView(state, model);
                break;
        }
        ImGui::EndTabItem();
        pushTabFont();
    }
    popTabFont();
    ImGui::EndTabBar();
}

void drawHelpText() {
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextUnformatted(
        "Attention with Linear Biases (Press, Smith, Lewis, Train Short, Test Long, ICLR 2022) replaces position "
        "embeddings with a fixed penalty added to each attention logit:");
    ImGui::Spacing();
    ImGui::Indent();
    ImGui::TextUnformatted("score(h, i, j) = q_i . k_j / sqrt(d_k)  -  m_h * (i - j)");
    ImGui::Unindent();
    ImGui::Spacing();
    ImGui::TextUnformatted(
        "The further key j lies behind query i, the lower its score. Each head h has its own slope m_h: with 8 "
        "heads they are 1/2, 1/4, ..., 1/256. Steep heads look only at nearby tokens; flat heads look far back. "
        "Because the penalty keeps growing with distance, a model trained on short inputs still behaves sensibly "
        "on longer ones.");
    ImGui::Spacing();
    ImGui::TextUnformatted(
        "The head grid shows this bias for every head: bright on the diagonal (distance 0), darker with "
        "distance, grey where future keys are masked. Hover a cell to see its numbers; click a head to read its "
        "matrix cell by cell in the head detail view.");
    ImGui::Spacing();
    ImGui::TextDisabled("Keys: Ctrl+Z / Ctrl+Shift+Z undo and redo, Ctrl+R reset to defaults, Ctrl+1..9 views,");
    ImGui::TextDisabled("Ctrl+= / Ctrl+- / Ctrl+0 zoom, F11 full screen, Ctrl+Shift+C copy as CLI command.");
    ImGui::TextDisabled("Typed numbers (Ctrl+click a slider) apply on Enter or when the field loses focus.");
    ImGui::TextDisabled("Attention maps: Page Up / Page Down (or the wheel over the grid) step layers, Home / End");
    ImGui::TextDisabled("jump to the first / last; drop a .npy or .safetensors file on the window to open it.");
    ImGui::TextDisabled("Help > Lessons (Ctrl+L): guided lessons; Page Down / Page Up step through them (while a");
    ImGui::TextDisabled("lesson is open, they step the lesson, not the layers).");
    ImGui::PopTextWrapPos();
}

}  // namespace alibi::imgui
