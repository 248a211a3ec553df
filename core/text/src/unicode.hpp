// The Unicode pieces the tokenizer stands on: UTF-8 walking and repair, the GPT-2 byte-level
// alphabet, ICU's normalizers and a PCRE2 regex (UTF, Unicode properties, JIT when available).
#pragma once

#include <alibi/base/error.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace alibi::text::detail {

// The length of the valid UTF-8 character at the start of `s` (1-4); 0 when the bytes there do
// not start one (a stray continuation byte, an overlong form, a surrogate, a cut-off sequence).
[[nodiscard]] std::size_t utf8CharLength(std::string_view s);
// `s` with every byte that is not part of a valid UTF-8 character replaced by U+FFFD.
[[nodiscard]] std::string repairUtf8(std::string_view s);
// The UTF-8 spelling of code point `cp`.
void appendUtf8(std::string& out, char32_t cp);
// The first code point of valid UTF-8 `s` (and its length).
[[nodiscard]] std::pair<char32_t, std::size_t> decodeUtf8(std::string_view s);

// GPT-2's byte-level alphabet: every byte as a printable character ("Ġ" for a space).
struct ByteAlphabet {
    std::array<std::string, 256> byteToText;  // byte -> the character's UTF-8
    std::array<int, 0x144> codeToByte;        // code point -> byte, -1 when not in the alphabet
    ByteAlphabet();
};
[[nodiscard]] const ByteAlphabet& byteAlphabet();

enum class NormalForm { Nfc, Nfd, Nfkc, Nfkd };
// ICU's normal form of valid UTF-8 `s`.
[[nodiscard]] std::string normalize(std::string_view s, NormalForm form);
// Lower case (ICU, root locale).
[[nodiscard]] std::string toLower(std::string_view s);

// A compiled PCRE2 pattern (UTF and UCP), shared by copies.
class Regex {
public:
    [[nodiscard]] static Result<Regex> compile(std::string_view pattern);
    // Every non-empty match in valid UTF-8 `s`, as [begin, end) byte offsets, left to right.
    // A match that exhausts PCRE2's match limit ends the search there.
    [[nodiscard]] std::vector<std::pair<std::size_t, std::size_t>> findAll(std::string_view s) const;

private:
    struct Code;
    std::shared_ptr<Code> m_code;
};

}  // namespace alibi::text::detail
