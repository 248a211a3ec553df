// The ImGui half of the layout test (issue 27): after ImGui::Render, every piece of text the frame
// draws is read back from the draw data (each glyph quad found by its place in the font atlas),
// grouped into runs (a label, a value, a legend entry, a line of lesson text), and checked:
//  - cut: a glyph reaching past the clip rectangle it is drawn in (its item's frame, its child
//    window, its panel), unless that window scrolls that way (a line half shown at the edge of a
//    scrolling list is not cut off for good);
//  - clipped in its frame: a glyph ImGui trimmed to an item's rectangle (RenderTextClipped: a
//    slider's value, a button's label too long for it), text fields excepted (they scroll);
//  - overlap: two runs whose ink rectangles overlap.
// And what the views note while drawing (the s35 review: pictures that say less than their numbers):
//  - a plot whose y axis labels fewer than two values (a lone "0" under a 0.39 peak);
//  - a plot a lesson step cites (PlotAxes::cited) not wholly inside its window's visible part;
//  - the side tab of the attention maps when a lesson step cites its picture (noteCitedArea): what
//    it draws (the picture's key, a plot's axis title) not wholly inside the part shown (the s39
//    round-2 review: at 1280x720 with the Parameters panel the Head picture's "masked" key half
//    cut, the Row plot's axis title under the edge, seen only by scrolling a body nobody scrolls
//    in a lecture, so the scrolling body does not excuse it as it excuses a cut line), above it
//    too, scroll bar or not (the s40 brief: the tab scrolled its plot into view and left the tab
//    bar, the plot's title and its picker above the edge);
//  - a picture whose tiles must each carry their head's label (noteTileLabels: the attention
//    maps' layer grid) with a tile left unlabelled (the s40 brief: 26 px tiles, no h0..h7);
//  - a plot a lesson step cites (PlotAxes::cited) whose frame is under kMinCitedPlotHeight, and
//    any plot whose frame is under kMinPlotHeight (its ticks print on each other; the s39 review's
//    25 px stage plots and 12 px row plot);
//  - a plot's x tick labels closer than a quarter em or over each other (the s39 review: "10"
//    and "15" 2 px apart read "1015"): the labels are told apart by their glyphs' pen positions
//    (one label's glyphs follow each other by their advances, the next label starts elsewhere);
//  - a window whose items run past its visible right edge with no horizontal scroll bar (the s39
//    review: Compare's dtype combo, the Fit hint "alibi fi", the 4th stage plot off the window:
//    ImGui does not draw a glyph that starts past the clip rectangle, so the cut text leaves no
//    glyph to find);
//  - a matrix's row or column label not on its cell's centre, or a row or column of a matrix
//    that labels every cell left without its label;
//  - a table row a lesson step marks drawn outside the table's visible rows (the step cites it);
//  - a lesson strip taller than its text by more than a line of it (the views want that room);
//  - a heatmap tile whose cells are not square (issue 27: "head cells drawn 1.12 x 2.84 px"):
//    every heatmap picture (head grid, detail, compare, diagnose, attention maps' layer grid,
//    overview and head, similarity) notes each tile it draws with its rows and columns.
// The measure is the text as drawn (the font's glyph boxes), which is CalcTextSize's measure of
// the same string, against the item's or window's rectangle that ImGui clips it to.
#pragma once

#include <imgui.h>

#include <cstdint>
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
    enum class Kind {
        Cut,
        ClippedInFrame,
        Overlap,
        FewTicks,
        SmallPlot,
        OffCentre,
        Unlabelled,
        HiddenRow,
        EmptyStrip,
        StretchedCells,
        CrowdedTicks,
        PastEdge,
        OffScreen
    };
    Kind kind = Kind::Cut;
    std::string text, other;  // the run (and for an overlap the other run)
    std::string window;
    ImVec2 min, max;
    [[nodiscard]] std::string describe() const;
};

// Call right after an InputText: its text scrolls inside its frame, so what the frame trims is
// not lost (the layout check lets it be). Kept for the current frame only.
void noteTextField();

// The height a plot a lesson step cites gets at least (its frame, the data area; at 1280x720 in
// presentation mode a smaller one could not be read from the back of the room).
inline constexpr float kMinCitedPlotHeight = 150.0f;
// The height any plot's frame gets at least: three tick labels a line and a half apart at the
// presentation font (about 20 px a line) and the data between them.
inline constexpr float kMinPlotHeight = 60.0f;

// A plot drawn this frame: its frame (data area), the y axis' tick labels drawn, and whether a
// lesson step cites it.
void notePlot(const std::string& title, ImVec2 frameMin, ImVec2 frameMax, int yTickLabels, bool cited);
// What a window a lesson step cites drew (call before its EndChild): from its content's start to
// the furthest its items reach; any of it below or right of the window's visible part is a
// problem, and above it where the window shows no vertical scroll bar.
void noteCitedArea(const std::string& name);
// A picture of `tiles` tiles that names each (the attention maps' layer grid), `labelled` of them
// labelled this frame: fewer is a problem (which head is which can then not be read).
void noteTileLabels(const std::string& picture, std::size_t tiles, std::size_t labelled);
// A matrix that must label every row and column (the similarity matrix): call once per label drawn with the label's
// centre and extent along the axis and its cell's centre (from the picture's geometry). A label off its cell's centre
// by more than a quarter cell, or a row label taller than its row (it reads as the next row's), is a problem.
void noteMatrix(const std::string& name, int cells, float cellSize);
void noteMatrixLabel(const std::string& name, bool row, int cell, float labelCentre, float labelExtent,
                     float cellCentre);

// A table row a lesson step marks (screen y from top to bottom) and the table's visible rows
// below its header: a marked row not wholly among them is a problem.
void noteMarkedTableRow(const std::string& table, int row, float top, float bottom, float visibleTop,
                        float visibleBottom);
// A table column a lesson step compares (the fit table's columns up to the configured m, which
// the core keeps side by side for a 1280x720 projector): where its header's title ends and the
// table's visible right edge (its vertical scroll bar excluded). A title reaching past it is a
// problem, though the table scrolls sideways (the s40 review's F3: "configured n", its m under
// the bar).
void noteCitedColumn(const std::string& table, const std::string& column, float right, float visibleRight);
// The lesson strip's text: where it ends (screen y), where its room ends, and one line's height.
// Room under the text of more than a line is a problem (the strip should be sized to its text).
void noteLessonText(float textBottom, float roomBottom, float lineHeight);

// A heatmap tile drawn this frame: its rectangle on the screen and the rows x columns of cells it
// shows. A cell's width over its height off 1 by more than kSquareCellTolerance is a problem,
// unless a pixel's rounding of the tile explains it (the tile's width within 1 px of its height x
// columns / rows, or its height within 1 px of its width x rows / columns: a 20 px tile cannot be
// nearer square than that).
inline constexpr float kSquareCellTolerance = 0.02f;
void noteHeatmapTile(const std::string& picture, ImVec2 min, ImVec2 max, std::int64_t rows, std::int64_t columns);
// Whether a width x height tile of rows x columns cells has square cells (as above).
[[nodiscard]] bool squareCells(float width, float height, std::int64_t rows, std::int64_t columns);

// The text runs of the rendered frame (call after ImGui::Render, before the next NewFrame).
[[nodiscard]] std::vector<TextRun> textRuns(const ImDrawData& data);
// Problems of the rendered frame's text and pictures, as listed above.
[[nodiscard]] std::vector<LayoutProblem> checkTextLayout(const ImDrawData& data);

}  // namespace alibi::imgui
