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

}  // namespace

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
    const std::string text = narrow        ? fmt::format("{:.2g}", value)
                             : probability ? fmt::format("{:.2f}", value)
                                           : fmt::format("{:.3g}", value);
    // Both zeros, and a tiny negative rounded to zero, read "0".
    return text.find_first_not_of("-0.") == std::string::npos ? std::string("0") : text;
}

}  // namespace alibi
