// visibleText and shortenText (visible.hpp).
#include <alibi/text/visible.hpp>

#include "unicode.hpp"

#include <fmt/format.h>
#include <cstdint>

namespace alibi::text {

std::string visibleText(std::string_view bytes) {
    std::string out;
    for (std::size_t i = 0; i < bytes.size();) {
        const std::size_t n = detail::utf8CharLength(bytes.substr(i));
        const auto c = static_cast<unsigned char>(bytes[i]);
        if (n == 0) {
            out += fmt::format("<0x{:02X}>", c);
            ++i;
            continue;
        }
        if (n == 1) {
            if (c == ' ')
                out += "\xC2\xB7";  // ·
            else if (c == '\n')
                out += "\xE2\x86\xB5";  // ↵
            else if (c == '\t')
                out += "\xE2\x86\x92";  // →
            else if (c == '\r')
                out += "\xE2\x8F\x8E";  // ⏎
            else if (c < 0x20 || c == 0x7F)
                out += fmt::format("<0x{:02X}>", c);
            else
                out += static_cast<char>(c);
        } else {
            const auto [cp, len] = detail::decodeUtf8(bytes.substr(i));
            // Invisible or blank characters by code point, so a reader can tell them apart.
            if (cp == 0xA0 || cp == 0x2028 || cp == 0x2029 || cp == 0x3000 || cp == 0xFEFF || cp == 0x85 ||
                (cp >= 0x2000 && cp <= 0x200F) || (cp >= 0x80 && cp < 0xA0))
                out += fmt::format("<U+{:04X}>", static_cast<std::uint32_t>(cp));
            else
                out.append(bytes.substr(i, len));
        }
        i += n;
    }
    return out;
}

std::string shortenText(std::string_view text, std::size_t maxChars) {
    std::size_t at = 0, chars = 0;
    while (at < text.size() && chars < maxChars) {
        const std::size_t n = detail::utf8CharLength(text.substr(at));
        at += n == 0 ? 1 : n;
        ++chars;
    }
    if (at >= text.size()) return std::string(text);
    if (maxChars == 0) return {};
    // Room for the ellipsis: one character fewer.
    std::size_t keep = 0, kept = 0;
    while (keep < text.size() && kept + 1 < maxChars) {
        const std::size_t n = detail::utf8CharLength(text.substr(keep));
        keep += n == 0 ? 1 : n;
        ++kept;
    }
    return std::string(text.substr(0, keep)) + "\u2026";
}

}  // namespace alibi::text
