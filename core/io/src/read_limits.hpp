// The limits every reader of user files (npy, safetensors, sessions) checks before doing any
// work, and the one way their messages quote bad input: a short excerpt with every byte that is
// not printable ASCII escaped, so a 16 MiB string, a deeply nested value or raw binary never
// reaches a terminal whole.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace alibi::detail {

// JSON nesting (objects and arrays) any reader accepts. A session is 3 levels deep and a
// safetensors header 3: far above what a valid file needs, far below what a recursive
// serializer or destructor can take on the stack.
inline constexpr int kMaxJsonDepth = 64;
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

// The deepest nesting of objects and arrays in a JSON text (strings skipped), stopping early
// once it exceeds kMaxJsonDepth: a linear scan that runs before any parser sees the text.
[[nodiscard]] inline int jsonDepth(std::string_view text) {
    int depth = 0, worst = 0;
    bool inString = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (inString) {
            if (c == '\\')
                ++i;
            else if (c == '"')
                inString = false;
        } else if (c == '"') {
            inString = true;
        } else if (c == '{' || c == '[') {
            if (++depth > worst) worst = depth;
            if (worst > kMaxJsonDepth) return worst;
        } else if (c == '}' || c == ']') {
            --depth;
        }
    }
    return worst;
}

}  // namespace alibi::detail
