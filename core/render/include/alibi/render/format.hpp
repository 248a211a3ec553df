// The one spelling of numbers every explorer and the CLI show: values, slopes, exact range
// ends and tick labels. Plain ASCII plus Latin-1 only (the ImGui font has no U+2212 minus).
#pragma once

#include <alibi/base/dtype.hpp>

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace alibi {

// Six significant digits, ASCII minus: "-1.5", "-1e+09", "0.0123"; both zeros read "0";
// "-inf", "inf", "NaN".
[[nodiscard]] std::string formatValue(double value);

// "1", "1/2", "1/256", "4", "2^-1.5" when the slope is an exact power of two (or half power);
// otherwise six significant digits ("0.0731").
[[nodiscard]] std::string formatSlope(double slope);

// The shortest decimal text that reads back as exactly `value` once stored in `dtype`
// (f32 -2895.602294921875 reads "-2895.6023"; f64 keeps up to 17 digits). Zeros read "0".
[[nodiscard]] std::string formatExact(double value, DType dtype);

// `value` with `digits` significant digits (1..17), rounded half away from zero, trailing zeros
// dropped (a whole number below a million keeps every digit: "65504"): fixed notation from 1e-4
// to 1e6 ("-10.61", "0.0625"), else scientific
// ("8.216e-15", "-1e+09"). The colour bars' end labels (4 digits) and every range a picture
// prints. Both zeros read "0"; "-inf", "inf", "NaN".
[[nodiscard]] std::string formatSignificant(double value, int digits = 4);

// A tick value with just the decimals its step needs: step 500 -> "-1500", step 0.25 ->
// "0.75", step 1e-6 -> "3e-06". Zero reads "0".
[[nodiscard]] std::string formatTick(double value, double step);

// A fraction as a percentage with two decimals: 0.1234 -> "12.34 %".
[[nodiscard]] std::string formatPercent(double fraction);

// The number printed inside a head-detail cell, the same in every explorer: a probability with
// two decimals ("0.25", "1.00"), a bias value with three significant digits ("-7.5", "-1e+09");
// `narrow` (the text does not fit the cell) gives two significant digits ("-12" -> "-12",
// "0.125" -> "0.13"). Ties round away from zero, so the multiples of 1/8 read -0.13, -0.38,
// -0.63, -0.88 (not half to even). Both zeros read "0"; "-inf", "inf", "NaN".
[[nodiscard]] std::string formatCellValue(double value, bool probability, bool narrow = false);

// The numbers printed in a head's cells (head detail, both explorers), with one number of
// decimals for the whole head, so a head never reads "-0.125" beside "-1.13": the fewest that
// write every value exactly (bias multiples of 1/8: 3; whole numbers: none), else 3 for a bias
// and 2 for a probability; fewer while the widest text is wider than `room` as `width` measures
// it, down to 1 decimal; ties away from zero ("-1.13", "-0.13"). NaN (masked) cells get "".
// nullopt when even that does not fit (the cells are too small for numbers).
struct CellNumbers {
    std::vector<std::string> texts;  // one per value
    int decimals = 0;
};
[[nodiscard]] std::optional<CellNumbers> cellNumberTexts(std::span<const double> values, bool probability,
                                                         const std::function<double(std::string_view)>& width,
                                                         double room);

}  // namespace alibi
