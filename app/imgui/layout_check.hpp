// The ImGui half of the layout test (issue 27): after ImGui::Render, every piece of text the frame
// draws is read back from the draw data (each glyph quad found by its place in the font atlas),
// grouped into runs (a label, a value, a legend entry, a line of lesson text), and checked:
//  - cut: a glyph reaching past the clip rectangle it is drawn in (its item's frame, its child
//    window, its panel), unless that window scrolls that way (a line half shown at the edge of a
//    scrolling list is not cut off for good);
//  - clipped in its frame: a glyph ImGui trimmed to an item's rectangle (RenderTextClipped: a
//    slider's value, a button's label too long for it), text fields excepted (they scroll);
//  - overlap: two runs whose ink rectangles overlap.
// The measure is the text as drawn (the font's glyph boxes), which is CalcTextSize's measure of
// the same string, against the item's or window's rectangle that ImGui clips it to.
#pragma once

#include <imgui.h>

#include <string>
#include <vector>

namespace alibi::imgui {

struct TextRun {
    std::string text;  // UTF-8, spaces between words restored from the glyphs' gaps
    ImVec2 min, max;   // ink rectangle on the screen
    ImVec4 clip;       // the clip rectangle it is drawn in
    std::string window;
};

struct LayoutProblem {
    enum class Kind { Cut, ClippedInFrame, Overlap };
    Kind kind = Kind::Cut;
    std::string text, other;  // the run (and for an overlap the other run)
    std::string window;
    ImVec2 min, max;
    [[nodiscard]] std::string describe() const;
};

// Call right after an InputText: its text scrolls inside its frame, so what the frame trims is
// not lost (the layout check lets it be). Kept for the current frame only.
void noteTextField();

// The text runs of the rendered frame (call after ImGui::Render, before the next NewFrame).
[[nodiscard]] std::vector<TextRun> textRuns(const ImDrawData& data);
// Problems of the rendered frame's text, as listed above.
[[nodiscard]] std::vector<LayoutProblem> checkTextLayout(const ImDrawData& data);

}  // namespace alibi::imgui
