// The ImGui explorer's lesson panel: a guided lesson (alibi/io/lesson.hpp) in a strip under the
// views, its text in a large font (A− / A+ scale it), with Previous / Next, the step counter,
// "Back to the step" and Close; Help > Lessons lists the lessons found. The Explorer applies a
// step's parameters through its normal edit path (one undo step); this class keeps the lesson,
// draws it, and says what the user asked for. It also draws a step's highlight in the views.
#pragma once

#include "app_state.hpp"
#include "view_common.hpp"

#include <alibi/explore/lesson_state.hpp>
#include <alibi/explore/line_breaks.hpp>
#include <alibi/io/lesson.hpp>

#include <imgui.h>

#include <future>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace alibi::imgui {

// The orange of a lesson's marks (outlines, marked cells, emphasised curves).
inline constexpr ImU32 kLessonColor = IM_COL32(255, 140, 0, 255);

// Adds the lesson font to `atlas`: DejaVu Sans at a large size (`pixels`) with every character
// lesson text may use (lessonCharacterRanges). Call after the main font, while building fonts.
void addLessonFont(ImFontAtlas& atlas, const char* ttf, float pixels);
// The scale of the lesson font at which `text` fits `room` (wrapped at its width): `scale`, or
// smaller in steps of 6 %, never below the interface's text size.
[[nodiscard]] float fittedScale(const std::string& text, float scale, ImVec2 room);

// The room (pixels) the lesson text leaves between one line and the next beyond a font size, at
// `size` pixels in `font`: so much that the lowest ink of a line (an underscore, at the font's
// descent) and the tallest of the next (a parenthesis, an ascender) are kLessonLineClearance x
// size apart. At a font size's pitch DejaVu Sans left them about 0.11 of it apart, which read as
// touching on a 1280x720 projector ("alibi_bias_max" over "2^(−16)", the s40 brief).
inline constexpr float kLessonLineClearance = 0.25f;
[[nodiscard]] float lessonLineGap(const ImFont& font, float size);

// The lines a lesson text is shown in, in the lesson font at `scale`, wrapped at `width` pixels
// only at spaces (never inside a number such as "2^(-1.5)" or "KL = 1.3 nats") and never inside a
// formula (explore::keepFormulasWhole: its lines carry U+00A0 where it kept a space).
[[nodiscard]] std::vector<explore::WrappedLine> lessonLines(std::string_view text, float scale, float width);

// The mark of the current step for the explorer's own views (heads and a cell; the core's); empty
// without a lesson and for a step over a model's attention maps (MapsState::lessonMark has it).
[[nodiscard]] LessonMark lessonMarkOf(const LessonStep& step);
// Draws `mark` over a heatmap drawn at `origin` (its tiles and its Q x K cells).
void drawLessonMark(const LessonMark& mark, const Heatmap& map, const HeatmapParams& params, ImVec2 origin);
// The same over any tiled image drawn at `origin` (Compare's A - B): `queries` x `keys` cells per
// tile.
void drawLessonMark(const LessonMark& mark, const std::vector<HeatmapTile>& tiles, std::int64_t queries,
                    std::int64_t keys, ImVec2 origin);
// The background of a table row of a marked head (statistics, mass beyond L).
inline constexpr ImU32 kLessonRowColor = IM_COL32(255, 140, 0, 110);
[[nodiscard]] inline bool lessonMarks(const LessonMark& mark, int head) {
    for (int h : mark.heads)
        if (h == head) return true;
    return false;
}

class LessonPanel {
public:
    enum class Action { None, Next, Previous, Back, Close, Open };

    Result<void> open(const std::string& nameOrPath);
    void close() { m_state.reset(); }
    [[nodiscard]] bool active() const { return m_state != nullptr; }
    // Help > Lessons: true while the folders are being read (off the UI thread); then entries().
    [[nodiscard]] bool listing() const { return m_listing.valid(); }
    [[nodiscard]] const std::vector<LessonEntry>& entries() const { return m_entries; }
    [[nodiscard]] explore::LessonState* state() { return m_state.get(); }
    [[nodiscard]] const explore::LessonState* state() const { return m_state.get(); }

    // Height of the strip at the bottom of a window `available` pixels tall and `width` wide (0
    // without a lesson): its bar and the step's whole text at textScale, at most 40 % of
    // `available` (a longer text is then shown smaller, as far as the interface's text size).
    [[nodiscard]] float height(float available, float width) const;
    // Draws the strip; `current` tells whether the user changed the step's parameters. Returns
    // what was clicked.
    Action draw(float x, float y, float width, float height, const Session& current, const std::string& note);
    // Help > Lessons: the list of lessons; returns Open with chosenPath() set when one was picked.
    Action drawList(bool* open);
    [[nodiscard]] const std::string& chosenPath() const { return m_chosen; }
    // True when the lesson strip had keyboard focus in the last frame.
    [[nodiscard]] bool focused() const { return m_focused; }

    // The scale the step's text was last shown at (textScale, or smaller to fit its room).
    [[nodiscard]] float shownScale() const { return m_shownScale; }

    float textScale = 0.75f;  // of the lesson font (A− / A+)
    static constexpr float kMinScale = 0.35f, kMaxScale = 1.6f;

private:
    std::unique_ptr<explore::LessonState> m_state;
    std::vector<LessonEntry> m_entries;
    bool m_listed = false;
    // The folders are read off the UI thread (titles only); the list shows once they are.
    std::future<std::vector<LessonEntry>> m_listing;
    std::string m_chosen;
    bool m_focused = false;
    // The scale the current step is shown at: textScale, or smaller where the step's whole text
    // would not fit its room otherwise.
    float m_shownScale = 0.75f;
    float m_barHeight = 0.0f;  // the bar above the text, last frame (window padding included)
};

}  // namespace alibi::imgui
