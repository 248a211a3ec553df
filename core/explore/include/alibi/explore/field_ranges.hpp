// What a typed number in either explorer becomes, decided once here (issue 25): the range of each
// numeric field, and the rule for a value typed outside it. A value inside the range is taken;
// one outside it (or too long to be a number) is refused with a message naming the field, and the
// field keeps its previous value. Neither explorer clamps silently or drops keystrokes: Qt's spin
// boxes took 100000 as 1000 and 2147483648 as 214748, ImGui's sliders clamped to 4096.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace alibi::explore {

// The numeric fields whose range is fixed (the others, such as the query row, have a range that
// follows the session: their callers pass it to checkTyped).
enum class NumberField { Heads, Queries, Keys, MaxBias, Sigma, Dk, Temperature, Window, Prefix };

struct FieldRange {
    std::string_view label;  // as the fields are labelled in both explorers ("Heads H")
    double lo = 0, hi = 0;
    bool integer = true;
};
[[nodiscard]] FieldRange fieldRange(NumberField field);

struct TypedNumber {
    bool accepted = false;
    double value = 0;     // accepted: the value to apply; refused: the previous value, kept
    std::string message;  // refused: why, naming the field, the range and the value kept
};

// The rule for `typed` in [lo, hi] (a whole number when `integer`); `previous` is kept when it is refused.
[[nodiscard]] TypedNumber checkTyped(std::string_view label, double typed, double lo, double hi, bool integer,
                                     double previous);
[[nodiscard]] TypedNumber checkTyped(NumberField field, double typed, double previous);
// The same for text as typed ("100000", "2147483648", " 12 "): a number of any length is judged
// as itself (never cut to fit a type); text that is not a number is refused as such.
[[nodiscard]] TypedNumber checkTypedText(std::string_view label, std::string_view text, double lo, double hi,
                                         bool integer, double previous);
[[nodiscard]] TypedNumber checkTypedText(NumberField field, std::string_view text, double previous);

}  // namespace alibi::explore
