// Number formatting shared by every front end.
#include <alibi/render/format.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>

namespace alibi {

namespace {

std::string nonFinite(double value) {
    if (std::isnan(value)) return "NaN";
    return value < 0 ? "-inf" : "inf";
}

// `value` rounded half away from zero to `digits` significant digits (a tie like 0.125 stored
// exactly is a tie; printf's rounding takes it to even).
double roundSignificant(double value, int digits) {
    if (value == 0 || !std::isfinite(value)) return value;
    const int exponent = static_cast<int>(std::floor(std::log10(std::abs(value))));
    const int shift = digits - 1 - exponent;
    if (shift > 300 || shift < -300) return value;
    const double scale = std::pow(10.0, std::abs(shift));
    return shift >= 0 ? std::round(value * scale) / scale : std::round(value / scale) * scale;
}

// Drops the trailing zeros of a fixed-point text ("-7.50" -> "-7.5", "1.000" -> "1").
std::string trimZeros(std::string text) {
    if (text.find('.') == std::string::npos) return text;
    while (text.back() == '0') text.pop_back();
    if (text.back() == '.') text.pop_back();
    return text;
}

// "-0", "-0.00" and the like read "0".
std::string oneZero(std::string text) {
    return text.find_first_not_of("-0.") == std::string::npos ? std::string("0") : text;
}

}  // namespace

std::string formatSignificant(double value, int digits) {
    if (!std::isfinite(value)) return nonFinite(value);
    if (value == 0) return "0";
    digits = std::clamp(digits, 1, 17);
    // Whole numbers below a million keep every digit ("-65504", not "-65500").
    const bool whole = std::abs(value) >= std::pow(10.0, digits) && std::abs(value) < 1e6;
    const double rounded = whole ? std::round(value) : roundSignificant(value, digits);
    const double magnitude = std::abs(rounded);
    if (whole) return fmt::format("{:.0f}", rounded);
    if (magnitude >= 1e-4 && magnitude < 1e6) {
        const int exponent = static_cast<int>(std::floor(std::log10(magnitude)));
        return oneZero(trimZeros(fmt::format("{:.{}f}", rounded, std::max(0, digits - 1 - exponent))));
    }
    std::string text = fmt::format("{:.{}e}", rounded, digits - 1);
    const auto e = text.find('e');
    return trimZeros(text.substr(0, e)) + text.substr(e);
}

std::string formatValue(double value) {
    if (!std::isfinite(value)) return nonFinite(value);
    if (value == 0) return "0";
    return fmt::format("{:.6g}", value);
}

std::string formatSlope(double slope) {
    if (!(slope > 0) || !std::isfinite(slope)) return formatValue(slope);
    const double e = std::log2(slope);
    const double whole = std::round(e);
    if (std::abs(e - whole) < 1e-12 && std::abs(whole) < 62) {
        if (whole == 0) return "1";
        if (whole < 0) return fmt::format("1/{}", static_cast<long long>(std::exp2(-whole)));
        return fmt::format("{}", static_cast<long long>(std::exp2(whole)));
    }
    const double half = std::round(e * 2) / 2;
    if (std::abs(e - half) < 1e-12) return fmt::format("2^{:g}", half);
    return formatValue(slope);
}

std::string formatExact(double value, DType dtype) {
    if (!std::isfinite(value)) return nonFinite(value);
    if (value == 0) return "0";
    std::array<char, 64> buffer{};
    // f16 and bf16 values are exact floats, so the shortest float text reads back to them too.
    const auto result = dtype == DType::F64
                            ? std::to_chars(buffer.data(), buffer.data() + buffer.size(), value)
                            : std::to_chars(buffer.data(), buffer.data() + buffer.size(), static_cast<float>(value));
    return std::string(buffer.data(), result.ptr);
}

std::string formatTick(double value, double step) {
    if (!std::isfinite(value)) return nonFinite(value);
    if (!(step > 0) || !std::isfinite(step)) return formatValue(value);
    if (std::abs(value) < step * 1e-9) return "0";
    const double magnitude = std::abs(value);
    if (step >= 1 && magnitude < 1e15) return fmt::format("{:.0f}", value);
    const int stepExponent = static_cast<int>(std::floor(std::log10(step) + 1e-9));
    if (magnitude >= 1e-4 && magnitude < 1e15 && stepExponent >= -9)
        return fmt::format("{:.{}f}", value, -stepExponent);
    const int valueExponent = static_cast<int>(std::floor(std::log10(magnitude)));
    const int digits = std::clamp(valueExponent - stepExponent + 1, 1, 17);
    return fmt::format("{:.{}g}", value, digits);
}

std::string formatPercent(double fraction) {
    if (!std::isfinite(fraction)) return nonFinite(fraction);
    return fmt::format("{:.2f} %", fraction * 100);
}

std::string formatCellValue(double value, bool probability, bool narrow) {
    if (!std::isfinite(value)) return nonFinite(value);
    // Rounded here, half away from zero, so printf's round-half-to-even never sees a tie.
    const std::string text = narrow        ? fmt::format("{:.2g}", roundSignificant(value, 2))
                             : probability ? fmt::format("{:.2f}", std::round(value * 100) / 100)
                                           : fmt::format("{:.3g}", roundSignificant(value, 3));
    // Both zeros, and a tiny negative rounded to zero, read "0".
    return oneZero(text);
}

namespace {

constexpr int kMaxExactDecimals = 4;

// Whether `decimals` decimals write every finite value exactly.
bool exactAt(std::span<const double> values, int decimals) {
    const double scale = std::pow(10.0, decimals);
    for (double v : values)
        if (std::isfinite(v) && std::abs(v) < 1e12 && std::nearbyint(v * scale) != v * scale) return false;
    return true;
}

std::string fixedDecimals(double value, int decimals) {
    if (!std::isfinite(value)) return nonFinite(value);
    const double scale = std::pow(10.0, decimals);
    // Rounded here, half away from zero, so printf's round-half-to-even never sees a tie.
    return oneZero(fmt::format("{:.{}f}", std::round(value * scale) / scale, decimals));
}

}  // namespace

std::optional<CellNumbers> cellNumberTexts(std::span<const double> values, bool probability,
                                           const std::function<double(std::string_view)>& width, double room) {
    int decimals = probability ? 2 : 3;
    for (int d = 0; d <= kMaxExactDecimals; ++d)
        if (exactAt(values, d)) {
            decimals = probability ? std::min(d, 2) : d;
            break;
        }
    // Whole numbers keep none; others keep one at least (a bias of -0.4 is not "-0").
    const int fewest = decimals == 0 ? 0 : 1;
    for (; decimals >= fewest; --decimals) {
        CellNumbers out;
        out.decimals = decimals;
        out.texts.reserve(values.size());
        bool fits = true;
        for (double v : values) {
            out.texts.push_back(std::isnan(v) ? std::string() : fixedDecimals(v, decimals));
            if (width(out.texts.back()) > room) {
                fits = false;
                break;
            }
        }
        if (fits) return out;
    }
    return std::nullopt;
}

}  // namespace alibi
