// A flag's text as a whole number, a finite number or a byte size, with messages that name the
// flag (options.hpp).
#include "options.hpp"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <cmath>
#include <optional>
#include <string_view>
#include <system_error>

namespace alibi::cli {

std::string_view trim(std::string_view text) {
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
    return text;
}

// Parses a whole string as a double (no trailing garbage); nullopt otherwise.
std::optional<double> toDouble(std::string_view text) {
    text = trim(text);
    if (!text.empty() && text.front() == '+') text.remove_prefix(1);
    if (text.empty()) return std::nullopt;
    double value = 0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec == std::errc::result_out_of_range) return text.front() == '-' ? -HUGE_VAL : HUGE_VAL;
    if (ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
    return value;
}

Result<std::int64_t> parseIntegerFlag(const Flag& flag) {
    const std::string_view text = trim(flag.value);
    std::int64_t value = 0;
    const char* first = text.data();
    const char* last = first + text.size();
    if (!text.empty() && text.front() == '+') ++first;
    const auto [ptr, ec] = std::from_chars(first, last, value);
    if (ec == std::errc() && ptr == last && first != last) return value;
    // Accept integral numbers written in scientific form ("1e9"), refuse everything else.
    if (const auto d = toDouble(text); d && std::isfinite(*d) && std::floor(*d) == *d) {
        if (std::fabs(*d) < 9.2e18) return static_cast<std::int64_t>(*d);
        return fail(ErrorCode::InvalidArgument, fmt::format("{} is out of range: '{}'", flag.name, flag.value));
    }
    return fail(ErrorCode::InvalidArgument, fmt::format("{} must be a whole number, got '{}'", flag.name, flag.value));
}

Result<double> parseNumberFlag(const Flag& flag) {
    const auto value = toDouble(flag.value);
    if (!value || !std::isfinite(*value))
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("{} must be a finite number, got '{}'", flag.name, flag.value));
    return *value;
}

Result<std::uint64_t> parseByteSize(const Flag& flag) {
    std::string_view text = trim(flag.value);
    std::size_t split = 0;
    while (split < text.size() && (std::isdigit(static_cast<unsigned char>(text[split])) || text[split] == '.'))
        ++split;
    const auto number = toDouble(text.substr(0, split));
    std::string suffix(text.substr(split));
    for (auto& c : suffix) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (suffix.ends_with("IB"))
        suffix.resize(suffix.size() - 2);
    else if (suffix.size() > 1 && suffix.ends_with("B"))
        suffix.resize(suffix.size() - 1);
    double multiplier = 0;
    if (suffix.empty() || suffix == "B")
        multiplier = 1;
    else if (suffix == "K")
        multiplier = 1024.0;
    else if (suffix == "M")
        multiplier = 1024.0 * 1024;
    else if (suffix == "G")
        multiplier = 1024.0 * 1024 * 1024;
    else if (suffix == "T")
        multiplier = 1024.0 * 1024 * 1024 * 1024;
    if (!number || multiplier == 0 || !(*number > 0) || *number * multiplier >= 9.2e18)
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("{} must be a positive size in bytes with an optional K, M, G or T suffix "
                                "(e.g. 512M, 2G), got '{}'",
                                flag.name, flag.value));
    return static_cast<std::uint64_t>(*number * multiplier);
}

}  // namespace alibi::cli
