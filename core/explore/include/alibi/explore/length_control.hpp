// The fine length control both explorers show for T (issue 27): the log slider alone moved T from
// 26 to 125 in 10 px, so most lengths could not be reached by mouse. The rule, decided once here:
//  - typed values are taken as typed (field_ranges.hpp judges them);
//  - an arrow key steps by 1, Shift+arrow to the next power of two beyond the value
//    (26 -> 32 up, 26 -> 16 down; 32 -> 64 up, 32 -> 16 down);
//  - a coarse slider on a log2 scale (kCoarsePerOctave positions per octave) jumps anywhere, and a
//    fine slider, linear over a window of consecutive values around T with at most one value per
//    pixel, reaches every value next to it. The window follows T: it is kept while T lies inside
//    it and re-centred on T when T reaches an edge or leaves it.
#pragma once

#include <cstdint>

namespace alibi::explore {

// Positions of the coarse (log2) slider per octave of T.
inline constexpr int kCoarsePerOctave = 100;

// One keyboard step of an integer value in [lo, hi]: `direction` > 0 up, < 0 down; by 1, or with
// `powerOfTwo` (Shift) to the next power of two strictly beyond the value. Clamped to [lo, hi].
[[nodiscard]] std::int64_t stepValue(std::int64_t value, int direction, bool powerOfTwo, std::int64_t lo,
                                     std::int64_t hi);

// The coarse slider: position = round(kCoarsePerOctave * log2 T), and back.
[[nodiscard]] int coarsePosition(std::int64_t value, std::int64_t lo, std::int64_t hi);
[[nodiscard]] std::int64_t coarseValue(int position, std::int64_t lo, std::int64_t hi);
[[nodiscard]] int coarsePositions(std::int64_t hi);  // the slider's last position

// The fine slider's window of consecutive values [lo, hi] (linear, one position per value).
struct LinearWindow {
    std::int64_t lo = 1;
    std::int64_t hi = 1;
    friend bool operator==(const LinearWindow&, const LinearWindow&) = default;
};

// The span of the fine window for a slider `pixels` wide: the largest power of two that leaves
// each value at least one pixel, between 8 and 1024 values (never more than the range holds).
[[nodiscard]] std::int64_t fineSpan(int pixels, std::int64_t lo, std::int64_t hi);
// A window of fineSpan(pixels) values centred on `value`, inside [lo, hi].
[[nodiscard]] LinearWindow fineWindow(std::int64_t value, int pixels, std::int64_t lo, std::int64_t hi);
// The window to show now: `current` while `value` lies strictly inside it (or on an edge the
// range ends at) and its span still suits `pixels`; otherwise a window re-centred on `value`.
[[nodiscard]] LinearWindow followWindow(const LinearWindow& current, std::int64_t value, int pixels, std::int64_t lo,
                                        std::int64_t hi);

}  // namespace alibi::explore
