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
    const auto exact = cellNumberTexts(values, probability, font.width, std::numeric_limits<double>::infinity());
    if (!exact) return std::nullopt;
    double widest = 0;
    bool any = false;
    for (const std::string& text : exact->texts) {
        if (text.empty()) continue;  // a masked cell prints nothing
        widest = std::max(widest, font.width(text));
        any = true;
    }
    if (!any) return std::nullopt;
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
