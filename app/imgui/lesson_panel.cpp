// The ImGui lesson panel (see lesson_panel.hpp).
#include "lesson_panel.hpp"

#include "layout_check.hpp"
#include "view_common.hpp"

#include <fmt/format.h>
#include <imgui_internal.h>

#include <algorithm>
#include <cfloat>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <string_view>
#include <system_error>

namespace alibi::imgui {

namespace {

// The lesson font, when the shell built one (the logic tests draw with the default font).
ImFont* lessonFont() {
    ImFontAtlas* atlas = ImGui::GetIO().Fonts;
    return atlas->Fonts.Size > 1 ? atlas->Fonts[1] : nullptr;
}

// Text in the lesson font at `scale`, wrapped at the window's edge only at spaces (ImGui's own
// wrap also breaks after a '.', which split "2^(-1." / "5)" and "KL = 1." / "3 nats") and never
// inside a formula (the core's keepFormulasWhole: the review saw "mₕ =" | "2^(−8(h+1)/H)").
// The size the lesson text is drawn at (scale of the lesson font; the default font, larger,
// without it).
float lessonSize(float scale) {
    ImFont* font = lessonFont();
    return font != nullptr ? font->FontSize * scale : ImGui::GetFontSize() * std::max(1.0f, scale * 2.2f);
}

ImFont& lessonOrDefaultFont() {
    ImFont* font = lessonFont();
    return font != nullptr ? *font : *ImGui::GetIO().Fonts->Fonts[0];
}

// `width`: where the lines break, fittedScale's width (a scroll bar's room kept: wrapped at the
// whole width, the text took a line fewer than the strip was sized for, which left more than a
// line empty under it, lesson 4 step 1 at 1920x1080).
void lessonText(const std::string& text, float scale, float width) {
    ImFont* font = lessonFont();
    const float gap = lessonLineGap(lessonOrDefaultFont(), lessonSize(scale));
    if (font != nullptr) ImGui::PushFont(font);
    ImGui::SetWindowFontScale(font != nullptr ? scale : std::max(1.0f, scale * 2.2f));
    textWrappedAtSpaces(explore::keepFormulasWhole(text), width, gap);
    ImGui::SetWindowFontScale(1.0f);
    if (font != nullptr) ImGui::PopFont();
}

// The height `text` takes wrapped at `width` in the lesson font at `scale` (lessonText's layout).
float textHeight(const std::string& text, float scale, float width) {
    const float size = lessonSize(scale);
    const float gap = lessonLineGap(lessonOrDefaultFont(), size);
    float height = 0;
    for (const explore::WrappedLine& line : lessonLines(text, scale, width))
        height += size + gap + (line.endsParagraph ? ImGui::GetStyle().ItemSpacing.y : 0.0f);
    return height;
}

}  // namespace

float lessonLineGap(const ImFont& font, float size) {
    // The glyphs' extent from a line's top, in the font's own size: the lowest bottom and the
    // highest top of the printable ASCII glyphs (the underscore sits at the descent; parentheses
    // and ascenders are the tallest), scaled to `size`.
    float top = FLT_MAX, bottom = -FLT_MAX;
    for (ImWchar c = 0x21; c < 0x7F; ++c) {
        const ImFontGlyph* glyph = font.FindGlyphNoFallback(c);
        if (glyph == nullptr) continue;
        top = std::min(top, glyph->Y0);
        bottom = std::max(bottom, glyph->Y1);
    }
    if (top > bottom || font.FontSize <= 0.0f) return 0.0f;  // no glyphs: nothing to measure
    const float ink = (bottom - top) * size / font.FontSize;
    return std::ceil(std::max(0.0f, ink + kLessonLineClearance * size - size));
}

std::vector<explore::WrappedLine> lessonLines(std::string_view text, float scale, float width) {
    ImFont* font = lessonFont();
    const float size = font != nullptr ? font->FontSize * scale : ImGui::GetFontSize() * std::max(1.0f, scale * 2.2f);
    ImFont* measure = font != nullptr ? font : ImGui::GetFont();
    // Wrapped as lessonText draws it: formulas whole (so fittedScale and the panel's height
    // measure the lines that are shown).
    return explore::wrapLines(explore::keepFormulasWhole(text), width, [measure, size](std::string_view s) {
        return static_cast<double>(measure->CalcTextSizeA(size, FLT_MAX, 0.0f, s.data(), s.data() + s.size()).x);
    });
}

float fittedScale(const std::string& text, float scale, ImVec2 room) {
    // Never below the interface's own text size.
    ImFont* font = lessonFont();
    const float floor = font != nullptr ? ImGui::GetFontSize() * 1.1f / font->FontSize : scale;
    // The text child's padding (beginTextChild) on both sides, and a scroll bar's room.
    const float width = room.x - ImGui::GetStyle().ScrollbarSize - 2.0f * std::ceil(ImGui::GetFontSize() * 0.2f);
    const float chosen = scale;
    while (scale / 1.06f >= floor && textHeight(text, scale, width) > room.y) scale /= 1.06f;
    // Then the largest size in the last step that still fits (a few halvings): a 6 % step could
    // leave more than a line empty under the text (lesson 2 step 3 at 1280x720, 35 px under
    // 26 px lines, once the lines are lessonLineGap apart), room the views should have.
    if (scale < chosen && textHeight(text, scale, width) <= room.y) {
        float fits = scale, tooBig = std::min(scale * 1.06f, chosen);
        for (int n = 0; n < 6; ++n) {
            const float middle = 0.5f * (fits + tooBig);
            (textHeight(text, middle, width) <= room.y ? fits : tooBig) = middle;
        }
        scale = fits;
    }
    return scale;
}

void addLessonFont(ImFontAtlas& atlas, const char* ttf, float pixels) {
    // The ranges must outlive the atlas build: kept for the program's life.
    static ImVector<ImWchar> ranges;
    if (ranges.empty()) {
        ImFontGlyphRangesBuilder builder;
        for (const auto& [lo, hi] : lessonCharacterRanges())
            for (char32_t c = lo; c <= hi && c <= 0xFFFF; ++c) builder.AddChar(static_cast<ImWchar>(c));
        builder.BuildRanges(&ranges);
    }
    ImFontConfig config;
    config.OversampleH = 1;  // a large font needs no oversampling, and keeps the atlas small
    atlas.AddFontFromFileTTF(ttf, pixels, &config, ranges.Data);
}

LessonMark lessonMarkOf(const LessonStep& step) {
    return explore::lessonMark(step, explore::LessonMarkScope::ExplorerViews);
}

void drawLessonMark(const LessonMark& mark, const Heatmap& map, const HeatmapParams& params, ImVec2 origin) {
    drawLessonMark(mark, map.tiles, params.attention.bias.queries, params.attention.bias.keyCount(), origin);
}

void drawLessonMark(const LessonMark& mark, const std::vector<HeatmapTile>& tiles, std::int64_t Q, std::int64_t K,
                    ImVec2 origin) {
    if (mark.heads.empty() && mark.cellHead < 0) return;
    ImDrawList* draw = ImGui::GetWindowDrawList();
    const float pen = std::max(3.0f, ImGui::GetFontSize() / 5.0f);
    for (const HeatmapTile& t : tiles) {
        const ImVec2 a(origin.x + static_cast<float>(t.x), origin.y + static_cast<float>(t.y));
        const ImVec2 b(a.x + static_cast<float>(t.width), a.y + static_cast<float>(t.height));
        // Only a grid of several heads gets outlines: a single head (detail) is the one shown.
        if (tiles.size() > 1 && lessonMarks(mark, t.head))
            draw->AddRect(ImVec2(a.x - pen / 2 - 1, a.y - pen / 2 - 1), ImVec2(b.x + pen / 2 + 1, b.y + pen / 2 + 1),
                          kLessonColor, 0.0f, 0, pen);
        if (t.head != mark.cellHead || mark.query >= Q || mark.key >= K || Q <= 0 || K <= 0) continue;
        // Cell c of n covers [c * size / n, (c + 1) * size / n) of its tile (render.cpp's pixelCells).
        const auto at = [](float from, float size, std::int64_t c, std::int64_t n) {
            return from + size * static_cast<float>(c) / static_cast<float>(n);
        };
        ImVec2 c0(at(a.x, b.x - a.x, mark.key, K), at(a.y, b.y - a.y, mark.query, Q));
        ImVec2 c1(at(a.x, b.x - a.x, mark.key + 1, K), at(a.y, b.y - a.y, mark.query + 1, Q));
        const float grow = std::max(0.0f, (7.0f - std::min(c1.x - c0.x, c1.y - c0.y)) / 2);
        c0 = ImVec2(c0.x - grow, c0.y - grow);
        c1 = ImVec2(c1.x + grow, c1.y + grow);
        draw->AddRect(c0, c1, IM_COL32(0, 0, 0, 200), 0.0f, 0, pen + 2);
        draw->AddRect(c0, c1, kLessonColor, 0.0f, 0, pen);
    }
}

Result<void> LessonPanel::open(const std::string& nameOrPath) {
    auto path = resolveLesson(nameOrPath, lessonFolders());
    if (!path) return std::unexpected(path.error());
    auto lesson = loadLesson(*path);
    if (!lesson) return std::unexpected(lesson.error());
    m_state = std::make_unique<explore::LessonState>(std::move(*lesson));
    return {};
}

float LessonPanel::height(float available, float width) const {
    if (!m_state) return 0.0f;
    const ImGuiStyle& style = ImGui::GetStyle();
    // The bar (title, buttons, note, separator) as drawn last frame; before the first, two rows
    // of buttons.
    const float bar =
        m_barHeight > 0.0f ? m_barHeight : style.WindowPadding.y + ImGui::GetFrameHeightWithSpacing() * 2.0f;
    // The step's whole text at the chosen size (A- / A+), wrapped as the text child wraps it
    // (fittedScale's width), and the window's bottom padding: the views get the rest. Never more
    // than 40 % of the window: a longer text is shown smaller (fittedScale), never below the
    // interface's text size, and scrolls beyond that.
    const float textWidth =
        width - 2.0f * style.WindowPadding.x - style.ScrollbarSize - 2.0f * std::ceil(ImGui::GetFontSize() * 0.2f);
    const std::string& step = m_state->step().text;
    const float extra = bar + style.WindowPadding.y + 2.0f;
    const float most = std::floor(0.40f * available);
    float text = textHeight(step, textScale, textWidth);
    // Too long for the most: the text at the size it is shown in that room, which may leave up to
    // a line under it (the size shrinks in steps), given back to the views.
    if (extra + text > most) {
        const float room = most - extra;
        text = textHeight(step, fittedScale(step, textScale, ImVec2(width - 2.0f * style.WindowPadding.x, room)),
                          textWidth);
    }
    const float wanted = std::ceil(extra + text);
    return std::min(std::max(wanted, bar + ImGui::GetFrameHeightWithSpacing()), most);
}

LessonPanel::Action LessonPanel::draw(float x, float y, float width, float height, const Session& current,
                                      const std::string& note) {
    m_focused = false;
    if (!m_state) return Action::None;
    Action action = Action::None;
    ImGui::SetNextWindowPos(ImVec2(std::floor(x), std::floor(y)));
    ImGui::SetNextWindowSize(ImVec2(std::floor(width), std::floor(height)));
    const ImGuiWindowFlags flags = ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoCollapse |
                                   ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoTitleBar |
                                   ImGuiWindowFlags_NoBringToFrontOnFocus;
    if (ImGui::Begin("Lesson", nullptr, flags)) {
        m_focused = ImGui::IsWindowFocused(ImGuiFocusedFlags_RootAndChildWindows);
        const LessonStep& step = m_state->step();
        const Lesson& lesson = m_state->lesson();
        // The bar: lesson and step title, counter, buttons.
        ImFont* font = lessonFont();
        if (font != nullptr) ImGui::PushFont(font);
        ImGui::SetWindowFontScale(font != nullptr ? std::max(textScale * 0.8f, 0.45f) : 1.3f);
        ImGui::TextUnformatted(step.title.empty() ? lesson.title.c_str() : step.title.c_str());
        ImGui::SameLine();
        ImGui::TextDisabled("%s", m_state->counter().c_str());
        ImGui::SetWindowFontScale(1.0f);
        if (font != nullptr) ImGui::PopFont();
        // The buttons follow on the title's line while they fit, else on the next (a narrow
        // window or a presentation font must not push them off the edge).
        const ImGuiStyle& style = ImGui::GetStyle();
        const float right = ImGui::GetWindowContentRegionMax().x + ImGui::GetWindowPos().x;
        const auto next = [&](const char* label, float gap) {
            const float w = ImGui::CalcTextSize(label).x + style.FramePadding.x * 2;
            if (ImGui::GetItemRectMax().x + gap + w <= right) ImGui::SameLine(0, gap);
        };
        next("< Previous", ImGui::GetFontSize() * 2);
        ImGui::BeginDisabled(m_state->atFirst());
        if (ImGui::Button("< Previous")) action = Action::Previous;
        ImGui::EndDisabled();
        next("Next >", style.ItemSpacing.x);
        ImGui::BeginDisabled(m_state->atLast());
        if (ImGui::Button("Next >")) action = Action::Next;
        ImGui::EndDisabled();
        next("Back to the step", style.ItemSpacing.x);
        ImGui::BeginDisabled(!m_state->changedFrom(current));
        if (ImGui::Button("Back to the step")) action = Action::Back;
        ImGui::EndDisabled();
        next("A-", ImGui::GetFontSize());
        if (ImGui::Button("A-")) textScale = std::max(kMinScale, m_shownScale / 1.15f);
        next("A+", style.ItemSpacing.x);
        if (ImGui::Button("A+")) textScale = std::min(kMaxScale, textScale * 1.15f);
        next("Close lesson", ImGui::GetFontSize());
        if (ImGui::Button("Close lesson")) action = Action::Close;
        next(lesson.title.c_str(), style.ItemSpacing.x);
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextDisabled("%s", lesson.title.c_str());
        ImGui::PopTextWrapPos();
        if (!note.empty()) {
            ImGui::PushTextWrapPos(0.0f);
            ImGui::TextColored(ImVec4(1.0f, 0.55f, 0.0f, 1.0f), "%s", note.c_str());
            ImGui::PopTextWrapPos();
        }
        ImGui::Separator();
        // The whole step shown: the chosen size (A- / A+), smaller only as far as the room needs.
        m_barHeight = ImGui::GetCursorPosY();
        m_shownScale = fittedScale(step.text, textScale, ImGui::GetContentRegionAvail());
        if (beginTextChild("lesson text", ImVec2(0, 0))) {
            const float scrollBar = ImGui::GetCurrentWindow()->ScrollbarY ? 0.0f : ImGui::GetStyle().ScrollbarSize;
            lessonText(step.text, m_shownScale, ImGui::GetContentRegionAvail().x - scrollBar);
            const float line = lessonSize(m_shownScale);
            noteLessonText(ImGui::GetCursorScreenPos().y, ImGui::GetWindowPos().y + ImGui::GetWindowSize().y, line);
        }
        ImGui::EndChild();
    }
    ImGui::End();
    return action;
}

LessonPanel::Action LessonPanel::drawList(bool* open) {
    if (!*open) {
        m_listed = false;
        return Action::None;
    }
    if (!m_listed) {
        // Off the UI thread: a lessons folder on a slow or network disk must not freeze frames.
        m_entries.clear();
        try {
            m_listing = std::async(std::launch::async, [] { return listLessons(lessonFolders()); });
        } catch (const std::system_error&) {  // no thread to be had: read them here
            m_entries = listLessons(lessonFolders());
        }
        m_listed = true;
    }
    if (m_listing.valid() && m_listing.wait_for(std::chrono::seconds(0)) == std::future_status::ready)
        m_entries = m_listing.get();
    const bool listing = m_listing.valid();
    Action action = Action::None;
    const ImVec2 display = ImGui::GetIO().DisplaySize;
    ImGui::SetNextWindowPos(ImVec2(display.x * 0.5f, display.y * 0.4f), ImGuiCond_Appearing, ImVec2(0.5f, 0.5f));
    ImGui::SetNextWindowSize(ImVec2(std::min(display.x * 0.8f, ImGui::GetFontSize() * 40.0f), 0), ImGuiCond_Appearing);
    if (ImGui::Begin("Lessons", open, ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoCollapse)) {
        if (listing)
            ImGui::TextDisabled("Reading the lessons folders...");
        else if (m_entries.empty())
            ImGui::TextDisabled("No lessons found.");
        for (const LessonEntry& e : m_entries) {
            if (e.error.empty()) {
                // The path after "##" keeps two lessons with one title apart.
                const std::string label =
                    fmt::format("{}  ({} steps){}##{}", e.title, e.steps, e.user ? "  - your folder" : "", e.path);
                if (ImGui::Selectable(label.c_str())) {
                    m_chosen = e.path;
                    action = Action::Open;
                    *open = false;
                }
                if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s\n%s", e.description.c_str(), e.path.c_str());
            } else {
                ImGui::TextDisabled("%s: cannot be read", e.name.c_str());
                if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", e.error.c_str());
            }
        }
        ImGui::Separator();
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextDisabled(
            "Your own lessons go in %s (format: docs/LESSONS.md); --lesson NAME or a path opens one. "
            "Page Down / Page Up step through a lesson.",
            userLessonDir().string().c_str());
        ImGui::PopTextWrapPos();
    }
    ImGui::End();
    return action;
}

}  // namespace alibi::imgui
