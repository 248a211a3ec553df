// The explorer's base style and its fonts at a zoom (zoom.hpp).
#include "zoom.hpp"

#include "lesson_panel.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>

namespace alibi::imgui {

namespace {

constexpr float kBaseFontPixels = 15.0f;
constexpr const char* kFontFile = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";
// The main font's characters: Latin-1, and the Greek letters, punctuation, arrows and maths signs
// the core's titles and read-outs use ("distance i − j", "m* ≥ ...", "μ"), which ImGui's default
// range would draw as "?".
constexpr ImWchar kFontRanges[] = {0x0020, 0x00FF, 0x0370, 0x03FF, 0x2000, 0x206F, 0x2190, 0x21FF, 0x2200, 0x22FF, 0};

}  // namespace

ImGuiStyle explorerBaseStyle() {
    ImGuiStyle style;
    ImGui::StyleColorsDark(&style);
    style.WindowRounding = 0.0f;
    style.FrameRounding = 3.0f;
    style.GrabRounding = 3.0f;
    style.WindowPadding = ImVec2(10, 8);
    style.FramePadding = ImVec2(6, 3);
    style.ItemSpacing = ImVec2(8, 5);
    style.WindowBorderSize = 1.0f;
    // Opaque tooltips and popups: the dark style's 94 % let a colour bar's "0" show through a
    // tooltip's read-out (the s39 review's L5).
    style.Colors[ImGuiCol_PopupBg].w = 1.0f;
    return style;
}

const ImWchar* explorerFontRanges() {
    return kFontRanges;
}

void applyZoom(const ImGuiStyle& base, float zoom) {
    ImGuiIO& io = ImGui::GetIO();
    io.Fonts->Clear();
    if (std::filesystem::exists(kFontFile)) {
        io.Fonts->AddFontFromFileTTF(kFontFile, std::round(kBaseFontPixels * zoom), nullptr, kFontRanges);
        // The lesson strip's large font, drawn scaled down (A- / A+), so it stays sharp.
        addLessonFont(*io.Fonts, kFontFile, std::round(std::min(40.0f * zoom, 72.0f)));
    } else {
        ImFontConfig config;
        config.SizePixels = std::round(13.0f * zoom);
        io.Fonts->AddFontDefault(&config);
    }
    ImGuiStyle style = base;
    style.ScaleAllSizes(zoom);
    ImGui::GetStyle() = style;
}

}  // namespace alibi::imgui
