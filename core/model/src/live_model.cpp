// See live_model.hpp.
#include <alibi/model/live_model.hpp>

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <optional>

namespace alibi {

namespace {

std::optional<double> parseNumber(std::string_view text) {
    double v = 0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (text.empty() || ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
    return v;
}

// "0.25", "1/4", "2^-2", "1/2^3".
std::optional<double> parseSlope(std::string_view text) {
    const auto power = [](std::string_view t) -> std::optional<double> {
        if (const auto caret = t.find('^'); caret != std::string_view::npos) {
            const auto base = parseNumber(t.substr(0, caret)), exponent = parseNumber(t.substr(caret + 1));
            if (!base || !exponent) return std::nullopt;
            return std::pow(*base, *exponent);
        }
        return parseNumber(t);
    };
    if (const auto slash = text.find('/'); slash != std::string_view::npos) {
        const auto a = power(text.substr(0, slash)), b = power(text.substr(slash + 1));
        if (!a || !b || *b == 0) return std::nullopt;
        return *a / *b;
    }
    return power(text);
}

}  // namespace

Result<std::map<int, double>> parseHeadSlopes(std::string_view text) {
    std::map<int, double> out;
    std::size_t i = 0;
    const auto separator = [](char c) { return c == ',' || c == ';' || c == ' ' || c == '\t' || c == '\n'; };
    while (i < text.size()) {
        while (i < text.size() && separator(text[i])) ++i;
        if (i >= text.size()) break;
        std::size_t end = i;
        while (end < text.size() && !separator(text[end])) ++end;
        const std::string_view item = text.substr(i, end - i);
        i = end;
        const auto eq = item.find('=');
        int head = -1;
        const auto [ptr, ec] =
            std::from_chars(item.data(), item.data() + (eq == std::string_view::npos ? 0 : eq), head);
        if (eq == std::string_view::npos || ec != std::errc() || ptr != item.data() + eq || head < 0 ||
            head >= kMaxHeads)
            return fail(ErrorCode::InvalidArgument,
                        fmt::format("--head-slope: '{}' is not HEAD=SLOPE (e.g. 3=0.25; heads from 0)", item));
        const auto slope = parseSlope(item.substr(eq + 1));
        if (!slope || !inRange(*slope, kHeadSlopeRange))
            return fail(
                ErrorCode::InvalidArgument,
                fmt::format("--head-slope: head {}'s slope '{}' must be a number from 0 to 1e6 (0.25, 1/4, 2^-2)", head,
                            item.substr(eq + 1)));
        out[head] = *slope;
    }
    return out;
}

std::string headSlopesText(const std::map<int, double>& slopes) {
    std::string text;
    for (const auto& [head, slope] : slopes) text += fmt::format("{}{}={}", text.empty() ? "" : ", ", head, slope);
    return text;
}

Result<void> validateSlopeChange(const SlopeChange& c) {
    if (!inRange(c.scale, kSlopeScaleRange))
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("--slope-scale must be between 0 and 1e6, got {}", c.scale));
    if (c.maxBias && !inRange(*c.maxBias, kSlopeMaxBiasRange))
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("--slope-max-bias must be between 0 and 1024, got {}", *c.maxBias));
    if (c.scheme == SlopeScheme::Custom)
        return fail(ErrorCode::InvalidArgument,
                    "--slope-scheme must be press, geometric or linear (set single heads with --head-slope H=M)");
    for (const auto& [head, slope] : c.headSlopes) {
        if (head < 0 || head >= kMaxHeads)
            return fail(ErrorCode::InvalidArgument,
                        fmt::format("--head-slope: head {} is not a head number (0 to {})", head, kMaxHeads - 1));
        if (!inRange(slope, kHeadSlopeRange))
            return fail(ErrorCode::InvalidArgument,
                        fmt::format("--head-slope: head {}'s slope must be between 0 and 1e6, got {}", head, slope));
    }
    return {};
}

Result<void> validateLiveModel(const LiveModelParams& p) {
    if (auto ok = validateSlopeChange(p.change); !ok) return ok;
    if (p.text.size() > kMaxLiveTextBytes)
        return fail(ErrorCode::TooLarge, fmt::format("--text is {} bytes; a session holds at most {} (1 MiB)",
                                                     p.text.size(), kMaxLiveTextBytes));
    if (p.length < 0 || p.length > kMaxLength)
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("--length must be 0 (every token) or from 1 to {}, got {}", kMaxLength, p.length));
    return {};
}

}  // namespace alibi
