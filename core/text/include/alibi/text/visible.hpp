// Tokens for a person to read: the one spelling every view, read-out and figure gives a token's
// text, so a space, a newline or a lone byte of a multi-byte character can be seen and told apart.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace alibi::text {

// `bytes` with whitespace made visible: space "·", newline "↵", tab "→", carriage return "⏎";
// other control characters, and bytes that are not part of a whole UTF-8 character, as
// "<0xE2>"; invisible or blank characters (no-break space, zero-width space, BOM...) as
// "<U+00A0>". Text already made visible comes back unchanged.
[[nodiscard]] std::string visibleText(std::string_view bytes);

// `text` cut to at most `maxChars` characters (UTF-8 code points), ending in "…" when cut.
[[nodiscard]] std::string shortenText(std::string_view text, std::size_t maxChars);

}  // namespace alibi::text
