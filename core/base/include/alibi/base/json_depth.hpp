// How deeply a JSON text nests, measured before any parser sees it: every reader of a user's JSON
// (sessions, lessons, safetensors headers, model configs, tokenizers) refuses a text nested deeper
// than kMaxJsonDepth, so a crafted file cannot exhaust the stack of a recursive serializer or
// destructor.
#pragma once

#include <string_view>

namespace alibi {

// JSON nesting (objects and arrays) any reader accepts. A session or a safetensors header is 3
// levels deep, a lesson 5, a tokenizer.json about 6: far above what a valid file needs, far below
// what the stack can take.
inline constexpr int kMaxJsonDepth = 64;

// The deepest nesting of objects and arrays in `text` (strings skipped), stopping early once it
// exceeds kMaxJsonDepth: a linear scan, cheap next to parsing.
[[nodiscard]] constexpr int jsonDepth(std::string_view text) {
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

}  // namespace alibi
