// UTF-8, the byte-level alphabet, ICU normalizers and the PCRE2 regex wrapper (unicode.hpp).
#define PCRE2_CODE_UNIT_WIDTH 8
#include "unicode.hpp"

#include <pcre2.h>
#include <unicode/locid.h>
#include <unicode/normalizer2.h>
#include <unicode/unistr.h>

#include <fmt/format.h>

namespace alibi::text::detail {

std::size_t utf8CharLength(std::string_view s) {
    if (s.empty()) return 0;
    const auto b = [&](std::size_t i) { return static_cast<unsigned char>(s[i]); };
    const unsigned char c = b(0);
    if (c < 0x80) return 1;
    std::size_t n = 0;
    char32_t cp = 0;
    if (c >= 0xC2 && c <= 0xDF) {
        n = 2;
        cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        cp = c & 0x07;
    } else {
        return 0;
    }
    if (s.size() < n) return 0;
    for (std::size_t i = 1; i < n; ++i) {
        if ((b(i) & 0xC0) != 0x80) return 0;
        cp = (cp << 6) | (b(i) & 0x3F);
    }
    if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF))) return 0;  // overlong, too big
    if (cp >= 0xD800 && cp <= 0xDFFF) return 0;                                           // surrogate
    return n;
}

std::string repairUtf8(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    std::size_t i = 0;
    while (i < s.size()) {
        const std::size_t n = utf8CharLength(s.substr(i));
        if (n == 0) {
            out += "\xEF\xBF\xBD";
            ++i;
        } else {
            out.append(s.substr(i, n));
            i += n;
        }
    }
    return out;
}

void appendUtf8(std::string& out, char32_t cp) {
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

std::pair<char32_t, std::size_t> decodeUtf8(std::string_view s) {
    const std::size_t n = utf8CharLength(s);
    if (n == 0) return {0xFFFD, 1};
    const auto c = static_cast<unsigned char>(s[0]);
    if (n == 1) return {c, 1};
    char32_t cp = c & (n == 2 ? 0x1F : n == 3 ? 0x0F : 0x07);
    for (std::size_t i = 1; i < n; ++i) cp = (cp << 6) | (static_cast<unsigned char>(s[i]) & 0x3F);
    return {cp, n};
}

// GPT-2's bytes_to_unicode(): the printable Latin-1 bytes stand for themselves, the other 68
// bytes take the code points from U+0100 up, in byte order.
ByteAlphabet::ByteAlphabet() {
    codeToByte.fill(-1);
    char32_t next = 0x100;
    for (int byte = 0; byte < 256; ++byte) {
        const bool printable = (byte >= '!' && byte <= '~') || (byte >= 0xA1 && byte <= 0xAC) || byte >= 0xAE;
        const char32_t cp = printable ? static_cast<char32_t>(byte) : next++;
        appendUtf8(byteToText[static_cast<std::size_t>(byte)], cp);
        codeToByte[cp] = byte;
    }
}

const ByteAlphabet& byteAlphabet() {
    static const ByteAlphabet alphabet;
    return alphabet;
}

// ---------------------------------------------------------------------------------------------
// ICU

namespace {

std::string toUtf8(const icu::UnicodeString& u) {
    std::string out;
    u.toUTF8String(out);
    return out;
}

}  // namespace

std::string normalize(std::string_view s, NormalForm form) {
    UErrorCode status = U_ZERO_ERROR;
    const icu::Normalizer2* normalizer = nullptr;
    switch (form) {
        case NormalForm::Nfc:
            normalizer = icu::Normalizer2::getNFCInstance(status);
            break;
        case NormalForm::Nfd:
            normalizer = icu::Normalizer2::getNFDInstance(status);
            break;
        case NormalForm::Nfkc:
            normalizer = icu::Normalizer2::getNFKCInstance(status);
            break;
        case NormalForm::Nfkd:
            normalizer = icu::Normalizer2::getNFKDInstance(status);
            break;
    }
    if (U_FAILURE(status) || normalizer == nullptr) return std::string(s);  // ICU's data is built in
    const auto input = icu::UnicodeString::fromUTF8(icu::StringPiece(s.data(), static_cast<int32_t>(s.size())));
    const icu::UnicodeString result = normalizer->normalize(input, status);
    if (U_FAILURE(status)) return std::string(s);
    return toUtf8(result);
}

std::string toLower(std::string_view s) {
    auto u = icu::UnicodeString::fromUTF8(icu::StringPiece(s.data(), static_cast<int32_t>(s.size())));
    u.toLower(icu::Locale::getRoot());
    return toUtf8(u);
}

// ---------------------------------------------------------------------------------------------
// PCRE2

struct Regex::Code {
    pcre2_code* code = nullptr;
    ~Code() { pcre2_code_free(code); }
};

namespace {

// Hugging Face runs its regexes in Oniguruma, where a `[` inside a character class opens a
// nested class (BLOOM's pre-tokenizer: ` ?[^(\s|[.,!?…。，、।۔،])]+`); in PCRE2 it is a literal
// and the class ends at the first `]`. A nested class that is not negated is the union of its
// members, so its brackets are dropped. A negated nested class cannot be flattened: refused.
Result<std::string> flattenNestedClasses(std::string_view pattern) {
    std::string out;
    int depth = 0;
    for (std::size_t i = 0; i < pattern.size(); ++i) {
        const char c = pattern[i];
        if (c == '\\' && i + 1 < pattern.size()) {
            out += c;
            out += pattern[++i];
            continue;
        }
        if (depth == 0) {
            if (c == '[') {
                depth = 1;
                out += c;
                // A `]` or `^]` right after the opening bracket is a member, not the end.
                if (i + 1 < pattern.size() && pattern[i + 1] == '^') out += pattern[++i];
                if (i + 1 < pattern.size() && pattern[i + 1] == ']') out += pattern[++i];
                continue;
            }
            out += c;
            continue;
        }
        if (c == '[' && i + 1 < pattern.size() && pattern[i + 1] == ':') {  // a POSIX class [:alpha:]
            const auto end = pattern.find(":]", i + 2);
            if (end != std::string_view::npos) {
                out.append(pattern.substr(i, end + 2 - i));
                i = end + 1;
                continue;
            }
        }
        if (c == '[') {
            if (i + 1 < pattern.size() && pattern[i + 1] == '^')
                return fail(ErrorCode::BadInput, fmt::format("its regex /{}/ nests a negated character class, which "
                                                             "this reader cannot translate from Oniguruma",
                                                             pattern));
            ++depth;
            continue;
        }
        if (c == ']') {
            --depth;
            if (depth == 0) out += c;
            continue;
        }
        out += c;
    }
    return out;
}

}  // namespace

Result<Regex> Regex::compile(std::string_view onigPattern) {
    auto translated = flattenNestedClasses(onigPattern);
    if (!translated) return std::unexpected(translated.error());
    const std::string_view pattern = *translated;
    int errorCode = 0;
    PCRE2_SIZE errorOffset = 0;
    pcre2_code* code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(),
                                     PCRE2_UTF | PCRE2_UCP, &errorCode, &errorOffset, nullptr);
    if (code == nullptr) {
        std::array<PCRE2_UCHAR, 256> buffer{};
        pcre2_get_error_message(errorCode, buffer.data(), buffer.size());
        return fail(ErrorCode::BadInput, fmt::format("its regex /{}/ does not compile (at offset {}): {}", pattern,
                                                     errorOffset, reinterpret_cast<const char*>(buffer.data())));
    }
    pcre2_jit_compile(code, PCRE2_JIT_COMPLETE);  // a speed-up only: without JIT the interpreter runs
    Regex regex;
    regex.m_code = std::make_shared<Code>();
    regex.m_code->code = code;
    return regex;
}

std::vector<std::pair<std::size_t, std::size_t>> Regex::findAll(std::string_view s) const {
    std::vector<std::pair<std::size_t, std::size_t>> matches;
    pcre2_match_data* data = pcre2_match_data_create_from_pattern(m_code->code, nullptr);
    if (data == nullptr) return matches;
    std::size_t start = 0;
    bool first = true;
    while (start <= s.size()) {
        const int rc = pcre2_match(m_code->code, reinterpret_cast<PCRE2_SPTR>(s.data()), s.size(), start,
                                   first ? 0 : PCRE2_NO_UTF_CHECK, data, nullptr);
        first = false;
        if (rc < 0) break;  // no match, or a limit reached
        const PCRE2_SIZE* ovector = pcre2_get_ovector_pointer(data);
        const std::size_t begin = ovector[0], end = ovector[1];
        if (end > begin) {
            matches.emplace_back(begin, end);
            start = end;
        } else {
            // An empty match: step over one character and look again.
            if (begin >= s.size()) break;
            const std::size_t n = utf8CharLength(s.substr(begin));
            start = begin + (n == 0 ? 1 : n);
        }
    }
    pcre2_match_data_free(data);
    return matches;
}

}  // namespace alibi::text::detail
