// Stale mark and colour bar shared by the views.
#include "view_common.hpp"

#include "layout_check.hpp"

#include <imgui_stdlib.h>

#include <alibi/explore/editing.hpp>
#include <alibi/explore/line_breaks.hpp>
#include <alibi/explore/progress_text.hpp>
#include <alibi/render/format.hpp>
#include <alibi/render/tile_labels.hpp>

#include <algorithm>
#include <cmath>
#include <functional>

namespace alibi::imgui {

std::string valueText(double value) {
    return alibi::formatValue(value);
}

MarkRect staleMarkRect(ImVec2 min, ImVec2 max, ImVec2 textSize, float pad, bool refining) {
    const float x = std::floor((min.x + max.x - textSize.x) * 0.5f);
    const float y = refining ? max.y - 3 * pad - textSize.y : std::floor((min.y + max.y - textSize.y) * 0.5f);
    return {ImVec2(x - pad, y - pad), ImVec2(x + textSize.x + pad, y + textSize.y + pad)};
}

void drawStaleMark(ImVec2 min, ImVec2 max, float progress, float secondsLeft, bool refining) {
    ImDrawList* draw = ImGui::GetWindowDrawList();
    if (!refining) draw->AddRectFilled(min, max, IM_COL32(20, 22, 28, 150));
    const std::string text =
        explore::progressText(refining ? explore::ProgressPhase::Refining : explore::ProgressPhase::Updating,
                              progress > 0.0f ? progress : -1.0, secondsLeft);
    const float pad = ImGui::GetFontSize() * 0.5f;
    const MarkRect box = staleMarkRect(min, max, ImGui::CalcTextSize(text.c_str()), pad, refining);
    draw->AddRectFilled(box.min, box.max, IM_COL32(0, 0, 0, 200), 4.0f);
    draw->AddText(ImVec2(box.min.x + pad, box.min.y + pad), IM_COL32(255, 255, 255, 255), text.c_str());
}

float colorBarSwatchSize() {
    return std::max(10.0f, std::round(ImGui::GetTextLineHeight() * 0.7f));
}

namespace {
// The space between a colour bar and a tick label: the 4 px tick and a third of a character's
// height, so a minus sign is not read as one with the tick ("--7.5").
float tickLabelGap() {
    return 4.0f + std::max(3.0f, std::round(ImGui::GetFontSize() * 0.35f));
}
}  // namespace

float colorBarWidth() {
    // Room for the tick labels beside the bar, and for the swatches' words under it.
    const float labels = kColorBarWidth + tickLabelGap() + ImGui::CalcTextSize("-0.00781250").x;
    const float legend = colorBarSwatchSize() + 4.0f + ImGui::CalcTextSize("fully masked row").x;
    return kColorBarGap + std::max(labels, legend);
}

float colorBarWidth(const alibi::ColorBar& bar) {
    float labels = 0.0f;
    for (const alibi::Tick& tick : bar.ticks) labels = std::max(labels, ImGui::CalcTextSize(tick.label.c_str()).x);
    const std::string title = bar.head.empty() ? bar.title : bar.title + " " + bar.head;
    return kColorBarGap + std::max(kColorBarWidth + tickLabelGap() + labels, ImGui::CalcTextSize(title.c_str()).x);
}

int colorBarTicks(float height) {
    return std::clamp(static_cast<int>(height / (ImGui::GetTextLineHeight() * 3.0f)), 2, 10);
}

void drawColorBar(ImTextureID texture, ImVec2 origin, float height, const alibi::ColorBar& bar) {
    ImDrawList* draw = ImGui::GetWindowDrawList();
    const ImVec2 max(origin.x + kColorBarWidth, origin.y + height);
    if (texture != nullptr && !(bar.hi > bar.lo)) {
        // One value (A = B: "0"): the bar is that value's one colour, the gradient's middle where
        // its tick is (colorBarPosition), not colours no cell has.
        draw->AddImage(texture, origin, max, ImVec2(0.0f, 0.5f), ImVec2(1.0f, 0.5f));
    } else if (texture != nullptr) {
        draw->AddImage(texture, origin, max);
    } else {
        draw->AddRectFilled(origin, max, IM_COL32(80, 80, 80, 255));
    }
    draw->AddRect(origin, max, IM_COL32(160, 160, 160, 255));
    const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
    const float labelX = max.x + tickLabelGap();
    const float line = ImGui::GetTextLineHeight();
    // Ticks at their exact positions (the top is hi); labels kept inside the bar's height. The
    // ends' labels first; an inner tick's label only where it keeps clear of those drawn (a short
    // bar printed "0.8299" on "0.5" and "-5" on "-7.5", the s39 review's F8 and F11): its tick
    // stays.
    std::vector<float> taken;
    const auto labelAt = [&](const alibi::Tick& tick, bool always) {
        const float y = max.y - static_cast<float>(alibi::colorBarPosition(bar, tick.value)) * height;
        draw->AddLine(ImVec2(max.x, y), ImVec2(max.x + 4.0f, y), text);
        const float labelY = std::clamp(y - line * 0.5f, origin.y - line * 0.5f, max.y - line * 0.5f);
        const bool clear = std::all_of(taken.begin(), taken.end(),
                                       [&](float other) { return std::fabs(other - labelY) >= line * 1.1f; });
        if (!always && !clear) return;
        taken.push_back(labelY);
        draw->AddText(ImVec2(labelX, labelY), text, tick.label.c_str());
    };
    for (std::size_t k = 0; k < bar.ticks.size(); ++k)
        if (k == 0 || k + 1 == bar.ticks.size()) labelAt(bar.ticks[k], true);
    for (std::size_t k = 1; k + 1 < bar.ticks.size(); ++k) labelAt(bar.ticks[k], false);
    if (!bar.title.empty() || !bar.head.empty()) {
        const std::string title = bar.head.empty() ? bar.title : bar.title + " " + bar.head;
        draw->AddText(ImVec2(origin.x, origin.y - line * 1.6f), ImGui::GetColorU32(ImGuiCol_TextDisabled),
                      title.c_str());
    }
    // The swatches grow with the text beside them (a 10 px square read as a dot next to
    // presentation mode's words), centred on their word's line.
    const float swatch = colorBarSwatchSize();
    const float textX = origin.x + swatch + 4.0f;
    if (bar.maskedSwatch) {
        // Masked cells have their own colour, outside the map's range.
        const float swatchY = max.y + line * 0.6f;
        const Rgba masked = kMaskedColor;
        draw->AddRectFilled(ImVec2(origin.x, swatchY), ImVec2(origin.x + swatch, swatchY + swatch),
                            IM_COL32(masked.r, masked.g, masked.b, 255));
        draw->AddText(ImVec2(textX, swatchY + (swatch - line) * 0.5f), ImGui::GetColorU32(ImGuiCol_TextDisabled),
                      "masked");
    }
    if (bar.fullyMaskedSwatch) {
        // Fully masked rows are striped (the core's fullyMaskedStripe), one pixel at a time.
        const float swatchY = max.y + line * (bar.maskedSwatch ? 1.7f : 0.6f);
        const int n = static_cast<int>(swatch);
        for (int y = 0; y < n; ++y)
            for (int x = 0; x < n; ++x) {
                const Rgba c = fullyMaskedStripe(x, y);
                const float px = origin.x + static_cast<float>(x), py = swatchY + static_cast<float>(y);
                draw->AddRectFilled(ImVec2(px, py), ImVec2(px + 1, py + 1), IM_COL32(c.r, c.g, c.b, 255));
            }
        draw->AddText(ImVec2(textX, swatchY + (swatch - line) * 0.5f), ImGui::GetColorU32(ImGuiCol_TextDisabled),
                      "fully masked row");
    }
}

void drawColorBarBeside(ImTextureID texture, ImVec2 imageOrigin, ImVec2 imageSize, const alibi::ColorBar& bar) {
    const float line = ImGui::GetTextLineHeight();
    // Below the bar: one line per swatch (masked, fully masked row).
    const float below = bar.fullyMaskedSwatch ? 4.5f : 3.4f;
    const float height = std::max(imageSize.y - below * line, 2.0f * line);
    drawColorBar(texture, ImVec2(imageOrigin.x + imageSize.x + kColorBarGap, imageOrigin.y + line * 1.8f), height, bar);
}

void drawColorBar(ImTextureID texture, ImVec2 origin, float height, double lo, double hi, const char* title) {
    // Labelled at f32 precision: the ends are computed differences, not stored values, and eight
    // digits fit beside the bar.
    alibi::ColorBar bar = alibi::makeColorBar(lo, hi, false, DType::F32, colorBarTicks(height));
    bar.title = title;
    drawColorBar(texture, origin, height, bar);
}

void noteHeatmapTiles(const std::string& picture, const std::vector<HeatmapTile>& tiles, ImVec2 origin,
                      std::int64_t rows, std::int64_t columns, float zoomX, float zoomY) {
    for (const HeatmapTile& t : tiles) {
        const ImVec2 min(origin.x + static_cast<float>(t.x) * zoomX, origin.y + static_cast<float>(t.y) * zoomY);
        noteHeatmapTile(
            picture, min,
            ImVec2(min.x + static_cast<float>(t.width) * zoomX, min.y + static_cast<float>(t.height) * zoomY), rows,
            columns);
    }
}

void sameLineIfFits(float nextWidth, float spacing) {
    const float gap = spacing >= 0 ? spacing : ImGui::GetStyle().ItemSpacing.x;
    const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
    if (ImGui::GetItemRectMax().x + gap + nextWidth <= right) ImGui::SameLine(0, gap);
}

float buttonWidth(const char* label) {
    return ImGui::CalcTextSize(label, nullptr, true).x + 2 * ImGui::GetStyle().FramePadding.x;
}

float checkboxWidth(const char* label) {
    return ImGui::GetFrameHeight() + ImGui::GetStyle().ItemInnerSpacing.x + ImGui::CalcTextSize(label, nullptr, true).x;
}

int tileLabelBand() {
    return static_cast<int>(std::ceil(ImGui::GetTextLineHeight() + 2.0f));
}

std::vector<TileLabelPlace> drawTileLabels(const std::vector<HeatmapTile>& tiles,
                                           const std::vector<std::vector<std::string>>& forms, ImVec2 origin) {
    std::vector<TileLabelPlace> placed;
    if (tiles.size() < 2) return placed;  // one tile: the title names it
    ImDrawList* draw = ImGui::GetWindowDrawList();
    const float line = ImGui::GetTextLineHeight();
    // Without a band a line tall (the core clamps it in a short picture), the short label goes
    // over the tile's top-right corner on a dark backing: the masked corner of a causal map.
    const auto over = [&](std::size_t n) { return static_cast<float>(alibi::tileLabelRoom(tiles, n)) < line; };
    // Each tile's forms (the view's, else the core's from its head); over a corner only the
    // head's own short forms.
    std::vector<std::vector<std::string>> offered(tiles.size());
    for (std::size_t n = 0; n < tiles.size(); ++n) {
        alibi::TileLabelParts head;
        head.head = tiles[n].head;
        offered[n] = !over(n) && n < forms.size() && !forms[n].empty() ? forms[n] : alibi::tileLabelForms(head);
    }
    // One form for every tile (the core's chooseTileLabels; this fell back tile by tile, so
    // "h0 0..0.5" stood beside a bare "h3").
    const std::vector<std::string> chosen =
        alibi::chooseTileLabels(offered, [&](std::size_t n, const std::string& text) {
            const HeatmapTile& t = tiles[n];
            const bool corner = over(n);
            if (ImGui::CalcTextSize(text.c_str()).x + (corner ? 4.0f : 0.0f) > static_cast<float>(t.width))
                return false;
            return !corner || line + 2.0f <= static_cast<float>(t.height) / 2.0f;  // else it hides half the tile
        });
    for (std::size_t n = 0; n < tiles.size(); ++n) {
        if (chosen[n].empty()) continue;
        const HeatmapTile& t = tiles[n];
        const bool corner = over(n);
        const std::string& label = chosen[n];
        const ImVec2 size = ImGui::CalcTextSize(label.c_str());
        const float tileX = origin.x + static_cast<float>(t.x), tileY = origin.y + static_cast<float>(t.y);
        const ImVec2 at = corner ? ImVec2(tileX + static_cast<float>(t.width) - size.x - 2.0f, tileY + 1.0f)
                                 : ImVec2(tileX, tileY - line - 1.0f);
        if (corner)
            draw->AddRectFilled(ImVec2(at.x - 2.0f, tileY),
                                ImVec2(tileX + static_cast<float>(t.width), at.y + line + 1.0f),
                                IM_COL32(0, 0, 0, 200));
        draw->AddText(at, corner ? IM_COL32(255, 255, 255, 255) : ImGui::GetColorU32(ImGuiCol_Text), label.c_str());
        placed.push_back({label,
                          {at.x, at.y, size.x, size.y},
                          {origin.x + static_cast<float>(t.x), origin.y + static_cast<float>(t.y),
                           static_cast<float>(t.width), static_cast<float>(t.height)}});
    }
    return placed;
}

namespace {

// The core's lines (explore::wrapLines: breaks only at ordinary spaces and '\n'), each drawn
// `lineGap` below the one before (0: as close as ImGui's own wrapped lines are), paragraphs
// ItemSpacing further apart.
void drawWrapped(std::string_view text, float width, float lineGap = 0.0f) {
    const auto lines = explore::wrapLines(text, width, [](std::string_view s) {
        return static_cast<double>(ImGui::CalcTextSize(s.data(), s.data() + s.size()).x);
    });
    const ImVec2 spacing = ImGui::GetStyle().ItemSpacing;
    for (const explore::WrappedLine& l : lines) {
        ImGui::PushStyleVar(ImGuiStyleVar_ItemSpacing,
                            ImVec2(spacing.x, lineGap + (l.endsParagraph ? spacing.y : 0.0f)));
        ImGui::TextUnformatted(l.text.data(), l.text.data() + l.text.size());
        ImGui::PopStyleVar();
    }
}

}  // namespace

void textWrappedAtSpaces(std::string_view text) {
    drawWrapped(text, ImGui::GetContentRegionAvail().x);
}

void textWrappedAtSpaces(std::string_view text, float width) {
    drawWrapped(text, width);
}

void textWrappedAtSpaces(std::string_view text, float width, float lineGap) {
    drawWrapped(text, width, lineGap);
}

float wrappedTextHeight(std::string_view text, float width) {
    const auto lines = explore::wrapLines(text, width, [](std::string_view s) {
        return static_cast<double>(ImGui::CalcTextSize(s.data(), s.data() + s.size()).x);
    });
    float height = 0;
    for (std::size_t n = 0; n < lines.size(); ++n) {
        height += ImGui::GetTextLineHeight();
        if (n + 1 < lines.size()) height += lines[n].endsParagraph ? ImGui::GetStyle().ItemSpacing.y : 0.0f;
    }
    return height;
}

void coreErrorText(std::string_view coreError) {
    ImGui::PushStyleColor(ImGuiCol_Text, kErrorTextColor);
    textWrappedAtSpaces(explore::guiMessage(coreError));
    ImGui::PopStyleColor();
}

void textWrappedAtPhrases(std::string_view text, float width) {
    // The core's read-out rule, as Qt's band: no line ending on an operator ("slope m = 1/8 =" |
    // "0.125": the s41 re-check).
    drawWrapped(explore::keepReadoutWhole(text), width);
}

bool beginTextChild(const char* id, ImVec2 size, ImGuiWindowFlags flags) {
    ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(std::ceil(ImGui::GetFontSize() * 0.2f), 0.0f));
    const bool open = ImGui::BeginChild(id, size, false, flags | ImGuiWindowFlags_AlwaysUseWindowPadding);
    ImGui::PopStyleVar();
    return open;
}

bool pathPrompt(const char* title, std::initializer_list<const char*> help, const char* fieldId, std::string& path,
                bool& open) {
    if (!open) return false;
    if (!ImGui::IsPopupOpen(title)) ImGui::OpenPopup(title);
    const ImVec2 display = ImGui::GetIO().DisplaySize;
    ImGui::SetNextWindowPos(ImVec2(display.x * 0.5f, display.y * 0.4f), ImGuiCond_Always, ImVec2(0.5f, 0.5f));
    bool chosen = false;
    if (ImGui::BeginPopupModal(title, nullptr, ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoSavedSettings)) {
        for (const char* line : help) ImGui::TextUnformatted(line);
        ImGui::SetNextItemWidth(ImGui::GetFontSize() * 30.0f);
        if (ImGui::IsWindowAppearing()) ImGui::SetKeyboardFocusHere();
        const bool enter = ImGui::InputText(fieldId, &path, ImGuiInputTextFlags_EnterReturnsTrue);
        noteTextField();  // its text scrolls in its frame (layout_check.hpp)
        const float button = ImGui::GetFontSize() * 8.0f;
        chosen = ImGui::Button("Open", ImVec2(button, 0)) || enter;
        ImGui::SameLine();
        const bool cancelled =
            ImGui::Button("Cancel", ImVec2(button, 0)) || ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape));
        if (chosen || cancelled) {
            open = false;
            ImGui::CloseCurrentPopup();
        }
        ImGui::EndPopup();
    }
    return chosen;
}

MapsShown lastItemShown() {
    const ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
    const ImDrawList* draw = ImGui::GetWindowDrawList();
    const ImVec2 c = draw->GetClipRectMin(), d = draw->GetClipRectMax();
    return {{a.x, a.y, b.x - a.x, b.y - a.y}, {c.x, c.y, d.x - c.x, d.y - c.y}};
}

}  // namespace alibi::imgui
