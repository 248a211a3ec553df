// Stale mark, colour bar and value text shared by the views.
#include "view_common.hpp"

#include <fmt/format.h>

#include <cmath>

namespace alibi::imgui {

std::string valueText(double value) {
    if (std::isinf(value)) return value < 0 ? "-inf" : "inf";
    if (std::isnan(value)) return "NaN";
    return fmt::format("{:.6g}", value);
}

void drawStaleMark(ImVec2 min, ImVec2 max, float progress) {
    ImDrawList* draw = ImGui::GetWindowDrawList();
    draw->AddRectFilled(min, max, IM_COL32(20, 22, 28, 150));
    const std::string text = progress > 0.0f && progress < 1.0f
                                 ? fmt::format("updating... {:.0f}%", 100.0 * progress)
                                 : std::string("updating...");
    const ImVec2 size = ImGui::CalcTextSize(text.c_str());
    const ImVec2 at(std::floor((min.x + max.x - size.x) * 0.5f), std::floor((min.y + max.y - size.y) * 0.5f));
    const float pad = ImGui::GetFontSize() * 0.5f;
    draw->AddRectFilled(ImVec2(at.x - pad, at.y - pad), ImVec2(at.x + size.x + pad, at.y + size.y + pad),
                        IM_COL32(0, 0, 0, 200), 4.0f);
    draw->AddText(at, IM_COL32(255, 255, 255, 255), text.c_str());
}

float colorBarWidth() {
    return kColorBarGap + kColorBarWidth + 4.0f + ImGui::CalcTextSize("-0.000000e+00").x;
}

void drawColorBar(ImTextureID texture, ImVec2 origin, float height, double lo, double hi) {
    ImDrawList* draw = ImGui::GetWindowDrawList();
    const ImVec2 max(origin.x + kColorBarWidth, origin.y + height);
    if (texture != nullptr) {
        draw->AddImage(texture, origin, max);
    } else {
        draw->AddRectFilled(origin, max, IM_COL32(80, 80, 80, 255));
    }
    draw->AddRect(origin, max, IM_COL32(160, 160, 160, 255));
    const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
    const float labelX = max.x + 4.0f;
    const float line = ImGui::GetTextLineHeight();
    // The scale's labels drop the sign of zero (the diagonal's -0.0); the read-out keeps it.
    draw->AddText(ImVec2(labelX, origin.y), text, valueText(hi + 0.0).c_str());
    draw->AddText(ImVec2(labelX, origin.y + height * 0.5f - line * 0.5f), text, valueText(0.5 * (lo + hi)).c_str());
    draw->AddText(ImVec2(labelX, max.y - line), text, valueText(lo + 0.0).c_str());
    // Masked cells have their own colour, outside the map.
    const float swatchY = origin.y + height * 0.75f;
    const Rgba masked = kMaskedColor;
    draw->AddRectFilled(ImVec2(labelX, swatchY), ImVec2(labelX + 10, swatchY + 10),
                        IM_COL32(masked.r, masked.g, masked.b, 255));
    draw->AddText(ImVec2(labelX + 14, swatchY - 2), ImGui::GetColorU32(ImGuiCol_TextDisabled), "masked");
}

}  // namespace alibi::imgui
