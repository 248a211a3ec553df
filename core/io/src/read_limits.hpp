// The limits every reader of user files (npy, safetensors, sessions) checks before doing any
// work, and the one way their messages quote bad input: a short excerpt with every byte that is
// not printable ASCII escaped, so a 16 MiB string, a deeply nested value or raw binary never
// reaches a terminal whole.
#pragma once

#include <alibi/base/json_depth.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace alibi::detail {

// The nesting limit every JSON reader checks lives in base (the model and text layers check it too).
using alibi::jsonDepth;
using alibi::kMaxJsonDepth;

// Dimensions of a tensor's shape (NumPy 2 allows 64).
inline constexpr std::size_t kMaxDims = 64;
// Bytes of a quoted excerpt of bad input in a message.
inline constexpr std::size_t kExcerptBytes = 48;

// The first `maxBytes` bytes of `text`, with quotes, backslashes, control characters and
// non-ASCII bytes escaped (\xNN), and "..." (plus the full size) when it was cut.
[[nodiscard]] inline std::string excerpt(std::string_view text, std::size_t maxBytes = kExcerptBytes) {
    constexpr char kHex[] = "0123456789abcdef";
    std::string out;
    const std::size_t n = text.size() < maxBytes ? text.size() : maxBytes;
    for (std::size_t i = 0; i < n; ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c == '\\' || c == '\'') {
            out += '\\';
            out += static_cast<char>(c);
        } else if (c >= 0x20 && c < 0x7f) {
            out += static_cast<char>(c);
        } else {
            out += "\\x";
            out += kHex[c >> 4];
            out += kHex[c & 15];
        }
    }
    if (n < text.size()) out += "... (" + std::to_string(text.size()) + " bytes)";
    return out;
}

}  // namespace alibi::detail
