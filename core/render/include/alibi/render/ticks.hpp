// Axis and colour-bar ticks for every plot of every front end: round numbers (1-2-5 steps on
// linear axes, powers of two or ten on log axes), each with its label.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace alibi {

struct Tick {
    double value = 0;
    std::string label;
};

enum class AxisScale {
    Linear,  // 1, 2 or 5 times a power of ten
    Log2,    // powers of two, labelled "1", "1/8", "4", "2^-20"
    Log10,   // powers of ten, labelled "1", "0.01", "1e-06"
    // Distances on a log2(1 + d) axis (0 stays on it): 0, 1, 2, 4, 8, ... labelled "0", "1",
    // "2", "4"; values in data units (d), drawn at log2(1 + d).
    Log2OnePlus,
    // Signed distances (a symmetric map's i - j), each side of 0 as Log2OnePlus: drawn at
    // sign(d) log2(1 + |d|), ticks ..., -4, -2, -1, 0, 1, 2, 4, ...
    SignedLog2OnePlus,
};

// Where `value` sits along an axis of `scale`, in the axis' units: log2(v), log10(v),
// log2(1 + v), sign(v) log2(1 + |v|), or v; and back.
[[nodiscard]] double axisPosition(AxisScale scale, double value);
[[nodiscard]] double axisValue(AxisScale scale, double position);

// About `target` ticks (at most 64) inside [lo, hi], in data units (log axes need lo, hi > 0;
// non-positive or non-finite bounds give no ticks; Log2OnePlus needs hi >= 0). Ascending.
// SignedLog2OnePlus shares `target` between the sides of 0 by their lengths on the axis.
[[nodiscard]] std::vector<Tick> axisTicks(AxisScale scale, double lo, double hi, int target);

// The rule every plot axis follows, in the figures and in the explorers: a short or narrow axis
// still labels two of its values (a stage panel's key axis had "0" alone, an explorer's y axis
// "0" under a 0.39 peak). Starts from about `target` ticks and, while `ticksFor(target)` gives
// fewer than two, asks for one more, up to kMaxTwoTickTarget; with two ticks or more, the
// highest lies in the upper half of the axis (the step is at most half the span).
inline constexpr int kMaxTwoTickTarget = 6;
template <class TicksFor>
[[nodiscard]] auto atLeastTwoTicks(int target, TicksFor&& ticksFor) {
    auto ticks = ticksFor(target);
    while (ticks.size() < 2 && target < kMaxTwoTickTarget) ticks = ticksFor(++target);
    return ticks;
}

// Integer ticks for a cell index axis (keys or queries) of `count` cells drawn `pixelsPerCell`
// pixels apart: 0 and every 1, 2, 5, 10, 20, ... cells, the smallest step that leaves at least
// `minPixels` between labels.
[[nodiscard]] std::vector<std::int64_t> indexTicks(std::int64_t count, double pixelsPerCell, double minPixels);

// One label along a cell index axis (keys or queries): a token or the index as a number.
struct IndexLabel {
    std::int64_t index = 0;
    std::string text;
    bool token = false;
};

// Tokens longer than this are cut ("…") on an axis.
inline constexpr std::size_t kMaxTokenLabelChars = 12;

// Tokens label every k-th cell of an axis, k the smallest step that puts labels a text line
// apart (stacked along a query axis, turned a quarter along a key axis): 1 where the cells are a
// line apart, 2 for cells half a line apart, ... Steps above this leave so few tokens that the
// axis reads better with numbers.
inline constexpr std::int64_t kMaxTokenStep = 8;
// The step k for cells `pixelsPerCell` apart and labels `lineHeight` tall: the smallest k with
// k * pixelsPerCell >= lineHeight (0 when no step does, for cells of no size).
[[nodiscard]] std::int64_t tokenLabelStep(double pixelsPerCell, double lineHeight);
// Whether tokens label a cell axis: there is one token per cell and tokenLabelStep is at most
// kMaxTokenStep. Every explorer view and figure decides with this.
[[nodiscard]] bool tokensFitAxis(std::int64_t count, double pixelsPerCell, double lineHeight, std::size_t tokens);

// The labels of a cell index axis of `count` cells drawn `pixelsPerCell` apart: every cell's
// token on every k-th cell from 0 (already made visible, alibi/text/visible.hpp; cut to
// kMaxTokenLabelChars; k = tokenLabelStep) when tokensFitAxis, otherwise indexTicks' numbers at
// least `minNumberPixels` apart.
[[nodiscard]] std::vector<IndexLabel> indexAxisLabels(std::int64_t count, double pixelsPerCell, double lineHeight,
                                                      double minNumberPixels, std::span<const std::string> tokens);

}  // namespace alibi
