// How a plot's legend fits the room beside it: one rule for the Qt and ImGui plots and the
// figures, which measure their own text (each its own font) and draw what the plan lists.
// Every entry with its whole name when that fits; else brief names ("head 3 (m = 1/16)" -> "h3");
// else as many entries as fit (the kept ones, the first, the last and evenly spaced others) and
// a last line "k of n listed". A listed name is never cut: its column is as wide as it.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace alibi {

// One entry's text widths, in the caller's units (pixels).
struct LegendEntryWidths {
    double full = 0;    // its whole name
    double brief = 0;   // briefLegendName of it
    bool keep = false;  // listed whenever any entry is left out (a lesson's or the hovered head)
};

struct LegendRoom {
    double width = 0;      // the most all columns together may take
    int rows = 1;          // entry lines that fit the plot's height
    double swatch = 0;     // a column's width besides its text: swatch, gaps
    double noteWidth = 0;  // the text width of legendNote(n, n)
};

struct LegendPlan {
    std::vector<int> shown;  // the entries listed, ascending (indices into the entries)
    bool brief = false;      // listed under briefLegendName
    bool note = false;       // one more line after them: legendNote(shown.size(), entries)
    int columns = 0, rows = 0;
    double columnWidth = 0;  // every column's width, swatch included
    [[nodiscard]] double width() const { return columns * columnWidth; }
};

// The plan for `entries` in `room`: nothing for no entries; at least one column otherwise.
[[nodiscard]] LegendPlan planLegend(std::span<const LegendEntryWidths> entries, const LegendRoom& room);

// The room that each of sibling plots' rooms holds: the narrowest width, the fewest rows, the
// widest swatch and note. Plots shown together over the same series plan their legends in it, so
// that they list the same entries (issue 27 L9: at H = 32 the bias and the attention plot beside
// it listed heads 0 1 2 5 10 16 21 26 31 and 0 1 2 6 12 19 25 31). The default room for none.
[[nodiscard]] LegendRoom sharedLegendRoom(std::span<const LegendRoom> rooms);

// The lines a plot must hold to list every entry under its whole name in the columns that fit
// `room.width` (room.rows is ignored): what a view sizes a plot by when it can grow.
[[nodiscard]] int legendRowsForAll(std::span<const LegendEntryWidths> entries, const LegendRoom& room);

// "head 3 (m = 1/16)" -> "h3"; any other name unchanged.
[[nodiscard]] std::string briefLegendName(std::string_view name);

// The last line of a legend that lists `shown` of `total` entries: "3 of 5 listed".
[[nodiscard]] std::string legendNote(std::size_t shown, std::size_t total);

}  // namespace alibi
