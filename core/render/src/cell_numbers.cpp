// See cell_numbers.hpp.
#include <alibi/render/cell_numbers.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

namespace alibi {

namespace {

// The pixels a cell needs per unit of size: the widest exact number with its side gap, or the
// line over its share of the height, whichever is more. nullopt without a number to print.
std::optional<double> pixelsPerSize(std::span<const double> values, bool probability, const NumberFont& font) {
    if (font.size <= 0 || !font.width) return std::nullopt;
    // With unlimited room the first choice of decimals fits, so cellNumberTexts measures each
    // number once, at its most exact: the widest is read off as it measures (a Qt head detail
    // paints this for every cell).
    double widest = -1;
    const auto measured = [&](std::string_view text) {
        const double width = font.width(text);
        if (!text.empty()) widest = std::max(widest, width);  // a masked cell prints nothing
        return width;
    };
    if (!cellNumberTexts(values, probability, measured, std::numeric_limits<double>::infinity()) || widest < 0)
        return std::nullopt;
    const double across = widest + kNumberSideGap * font.lineHeight;
    const double down = font.lineHeight / kNumberLineShare;
    return std::max(across, down) / font.size;
}

}  // namespace

double numberRoom(double cell, double lineHeight) {
    return cell - kNumberSideGap * lineHeight;
}

double numberSizeForCell(std::span<const double> values, bool probability, const NumberFont& font, double cell) {
    if (!(cell > 0)) return 0;
    const auto perSize = pixelsPerSize(values, probability, font);
    return perSize && *perSize > 0 ? cell / *perSize : 0;
}

double cellForNumbers(std::span<const double> values, bool probability, const NumberFont& font, double size) {
    const auto perSize = pixelsPerSize(values, probability, font);
    return perSize ? std::ceil(size * *perSize) : 0;
}

}  // namespace alibi
