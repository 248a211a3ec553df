// A scrolling table's rows that a lesson step marks (the extrapolation's mass table, the fit
// table): each time a step is shown they are scrolled into view once (all of them when they fit,
// else the first at the top), then the user's scrolling is left alone until the next step. The
// state lives in AppState / MapsState (no statics); where the rows were drawn is kept for tests.
#pragma once

#include <cstdint>
#include <vector>

namespace alibi::imgui {

struct MarkedRows {
    struct Span {
        float top = 0, bottom = 0;  // screen y
    };
    std::uint64_t shownFor = 0;   // the lesson step (AppState::lessonStep) its rows were brought into view for
    std::uint64_t tryingFor = 0;  // the step being scrolled to, and the frames spent on it (a few at most)
    int tries = 0;
    Span visible;            // the table's visible rows, below its header, last frame
    std::vector<Span> rows;  // the marked rows drawn last frame
    // Measured last frame: the body rows' pitch (from two marked rows given their indices; 0
    // until then) and the header row's height, for a view sizing the table to its marked rows.
    float rowPitch = 0, headerHeight = 0;
    int firstIndex = -1;  // this frame's first marked row given with its index
    float firstTop = 0;
};

// True while the table should still scroll to step `step`'s rows (a clipped table then submits
// every marked row: ImGuiListClipper::ForceDisplayRangeByIndices).
[[nodiscard]] bool scrollingToMarkedRows(const MarkedRows& rows, std::uint64_t step);
// Call between BeginTable and the first row: forgets last frame's rows.
void beginMarkedRows(MarkedRows& rows);
// Call right after TableNextRow of a marked row (a row one text line tall); `index`, the row's
// index in the table, lets the rows' pitch be measured.
void noteMarkedRow(MarkedRows& rows, int index = -1);
// Call before EndTable of a table with ImGuiTableFlags_ScrollY and one header row: records the
// visible rows and scrolls to step `step`'s marked rows if they were not brought into view yet.
void scrollToMarkedRows(MarkedRows& rows, std::uint64_t step);

}  // namespace alibi::imgui
