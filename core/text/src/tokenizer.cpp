// Tokenizer: Hugging Face's tokenizer.json read into a fixed pipeline of steps (tokenizer.hpp).
// Every component the file names is checked when it is loaded; encode() and decode() then
// cannot fail.
#include <alibi/text/tokenizer.hpp>
#include <alibi/text/visible.hpp>

#include <alibi/base/json_depth.hpp>

#include "unicode.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <fmt/format.h>
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>
#include <unordered_map>
#include <utility>
#include <variant>

namespace alibi::text {

using detail::Regex;
using json = nlohmann::json;

namespace {

// ---------------------------------------------------------------------------------------------
// The pipeline's steps

struct NormalizeUnicode {
    detail::NormalForm form;
};
struct Lowercase {};
struct ReplaceText {  // a normalizer or a decoder: every match of a pattern becomes `content`
    std::optional<Regex> regex;
    std::string literal;  // when regex is empty
    std::string content;
};
struct PrependText {
    std::string prefix;
};
struct StripSpace {
    bool left = false, right = false;
};
using Normalizer = std::variant<NormalizeUnicode, Lowercase, ReplaceText, PrependText, StripSpace>;

enum class SplitBehavior { Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous };
struct SplitStep {
    std::optional<Regex> regex;
    std::string literal;  // when regex is empty
    SplitBehavior behavior = SplitBehavior::Isolated;
    bool invert = false;
};
struct ByteLevelStep {
    bool addPrefixSpace = false;
    std::optional<Regex> regex;  // GPT-2's, when use_regex
};
using PreTokenizer = std::variant<SplitStep, ByteLevelStep>;

struct ByteLevelDecode {};
struct ByteFallbackDecode {};
struct FuseDecode {};
struct StripDecode {
    std::string content;
    std::size_t start = 0, stop = 0;
};
using Decoder = std::variant<ByteLevelDecode, ByteFallbackDecode, FuseDecode, ReplaceText, StripDecode>;

struct AddedToken {
    std::int32_t id = 0;
    std::string content;
    bool special = false, singleWord = false, lstrip = false, rstrip = false;
};

struct Merge {
    std::int32_t rank = 0;
    std::int32_t result = 0;
};

constexpr const char* kGpt2Pattern = R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";

std::uint64_t pairKey(std::int32_t a, std::int32_t b) {
    return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(a)) << 32) | static_cast<std::uint32_t>(b);
}

// Every [begin, end) of `s` that a pattern matches, for a regex or a literal.
std::vector<std::pair<std::size_t, std::size_t>> findMatches(const std::optional<Regex>& regex,
                                                             const std::string& literal, std::string_view s) {
    if (regex) return regex->findAll(s);
    std::vector<std::pair<std::size_t, std::size_t>> matches;
    if (literal.empty()) return matches;
    for (std::size_t at = s.find(literal); at != std::string_view::npos; at = s.find(literal, at + literal.size()))
        matches.emplace_back(at, at + literal.size());
    return matches;
}

std::string replaceAll(const ReplaceText& step, std::string_view s) {
    std::string out;
    std::size_t last = 0;
    for (const auto& [begin, end] : findMatches(step.regex, step.literal, s)) {
        out.append(s.substr(last, begin - last));
        out += step.content;
        last = end;
    }
    out.append(s.substr(last));
    return out;
}

bool isAsciiSpace(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

// Hugging Face's split with a delimiter behaviour (tokenizers/src/tokenizer/normalizer.rs).
std::vector<std::string> splitPiece(const SplitStep& step, const std::string& piece) {
    struct Part {
        std::size_t begin, end;
        bool match;
    };
    std::vector<Part> parts;
    std::size_t last = 0;
    for (const auto& [begin, end] : findMatches(step.regex, step.literal, piece)) {
        if (begin > last) parts.push_back({last, begin, false});
        parts.push_back({begin, end, true});
        last = end;
    }
    if (last < piece.size()) parts.push_back({last, piece.size(), false});
    if (step.invert)
        for (auto& p : parts) p.match = !p.match;

    std::vector<std::pair<std::size_t, std::size_t>> spans;
    bool previousMatch = false;
    switch (step.behavior) {
        case SplitBehavior::Removed:
            for (const auto& p : parts)
                if (!p.match) spans.emplace_back(p.begin, p.end);
            break;
        case SplitBehavior::Isolated:
            for (const auto& p : parts) spans.emplace_back(p.begin, p.end);
            break;
        case SplitBehavior::MergedWithPrevious:
            for (const auto& p : parts) {
                if (p.match && !previousMatch && !spans.empty())
                    spans.back().second = p.end;
                else
                    spans.emplace_back(p.begin, p.end);
                previousMatch = p.match;
            }
            break;
        case SplitBehavior::MergedWithNext:
            for (auto it = parts.rbegin(); it != parts.rend(); ++it) {
                if (it->match && !previousMatch && !spans.empty())
                    spans.back().first = it->begin;
                else
                    spans.emplace_back(it->begin, it->end);
                previousMatch = it->match;
            }
            std::reverse(spans.begin(), spans.end());
            break;
        case SplitBehavior::Contiguous:
            for (const auto& p : parts) {
                if (p.match == previousMatch && !spans.empty())
                    spans.back().second = p.end;
                else
                    spans.emplace_back(p.begin, p.end);
                previousMatch = p.match;
            }
            break;
    }
    std::vector<std::string> out;
    for (const auto& [begin, end] : spans)
        if (end > begin) out.emplace_back(piece.substr(begin, end - begin));
    return out;
}

// ---------------------------------------------------------------------------------------------
// Reading the JSON

struct Reader {
    std::string origin;
    [[nodiscard]] std::unexpected<Error> bad(std::string_view what) const {
        return fail(ErrorCode::BadInput, fmt::format("{}: {}", origin, what));
    }
};

std::string typeOf(const json& j) {
    if (j.is_object()) {
        const auto it = j.find("type");
        if (it != j.end() && it->is_string()) return it->get<std::string>();
    }
    return {};
}

Result<bool> boolField(const Reader& r, const json& j, const char* key, bool fallback, std::string_view where) {
    const auto it = j.find(key);
    if (it == j.end() || it->is_null()) return fallback;
    if (!it->is_boolean()) return r.bad(fmt::format("{}'s \"{}\" is not true or false", where, key));
    return it->get<bool>();
}

Result<std::string> stringField(const Reader& r, const json& j, const char* key, std::string_view where) {
    const auto it = j.find(key);
    if (it == j.end() || !it->is_string()) return r.bad(fmt::format("{} has no string \"{}\"", where, key));
    return it->get<std::string>();
}

// A {"Regex": ...} or {"String": ...} pattern.
Result<std::pair<std::optional<Regex>, std::string>> readPattern(const Reader& r, const json& j,
                                                                 std::string_view where) {
    const auto it = j.find("pattern");
    if (it == j.end() || !it->is_object()) return r.bad(fmt::format("{} has no \"pattern\" object", where));
    if (const auto s = it->find("String"); s != it->end() && s->is_string())
        return std::pair<std::optional<Regex>, std::string>{std::nullopt, s->get<std::string>()};
    if (const auto s = it->find("Regex"); s != it->end() && s->is_string()) {
        auto regex = Regex::compile(s->get<std::string>());
        if (!regex) return r.bad(fmt::format("{}: {}", where, regex.error().message));
        return std::pair<std::optional<Regex>, std::string>{std::move(*regex), {}};
    }
    return r.bad(fmt::format("{}'s pattern is neither {{\"String\": ...}} nor {{\"Regex\": ...}}", where));
}

Result<void> readNormalizer(const Reader& r, const json& j, std::vector<Normalizer>& out, int depth) {
    if (j.is_null()) return {};
    if (depth > 8) return r.bad("its normalizers are nested too deeply");
    const std::string type = typeOf(j);
    if (type == "Sequence") {
        const auto it = j.find("normalizers");
        if (it == j.end() || !it->is_array()) return r.bad("its Sequence normalizer has no \"normalizers\" list");
        for (const auto& n : *it)
            if (auto ok = readNormalizer(r, n, out, depth + 1); !ok) return ok;
        return {};
    }
    if (type == "NFC")
        out.emplace_back(NormalizeUnicode{detail::NormalForm::Nfc});
    else if (type == "NFD")
        out.emplace_back(NormalizeUnicode{detail::NormalForm::Nfd});
    else if (type == "NFKC")
        out.emplace_back(NormalizeUnicode{detail::NormalForm::Nfkc});
    else if (type == "NFKD")
        out.emplace_back(NormalizeUnicode{detail::NormalForm::Nfkd});
    else if (type == "Lowercase")
        out.emplace_back(Lowercase{});
    else if (type == "Replace") {
        auto pattern = readPattern(r, j, "its Replace normalizer");
        if (!pattern) return std::unexpected(pattern.error());
        auto content = stringField(r, j, "content", "its Replace normalizer");
        if (!content) return std::unexpected(content.error());
        out.emplace_back(ReplaceText{std::move(pattern->first), std::move(pattern->second), std::move(*content)});
    } else if (type == "Prepend") {
        auto prefix = stringField(r, j, "prepend", "its Prepend normalizer");
        if (!prefix) return std::unexpected(prefix.error());
        out.emplace_back(PrependText{std::move(*prefix)});
    } else if (type == "Strip") {
        auto left = boolField(r, j, "strip_left", false, "its Strip normalizer");
        auto right = boolField(r, j, "strip_right", false, "its Strip normalizer");
        if (!left) return std::unexpected(left.error());
        if (!right) return std::unexpected(right.error());
        out.emplace_back(StripSpace{*left, *right});
    } else {
        return r.bad(
            fmt::format("its normalizer \"{}\" is not one this reader knows (NFC, NFD, NFKC, NFKD, "
                        "Lowercase, Replace, Prepend, Strip, Sequence); byte-level BPE tokenizers "
                        "(BLOOM, MPT, GPT-NeoX) use none of the others",
                        type.empty() ? std::string("(no type)") : type));
    }
    return {};
}

Result<void> readPreTokenizer(const Reader& r, const json& j, std::vector<PreTokenizer>& out, int depth) {
    if (j.is_null()) return {};
    if (depth > 8) return r.bad("its pre-tokenizers are nested too deeply");
    const std::string type = typeOf(j);
    if (type == "Sequence") {
        const auto it = j.find("pretokenizers");
        if (it == j.end() || !it->is_array()) return r.bad("its Sequence pre-tokenizer has no \"pretokenizers\" list");
        for (const auto& p : *it)
            if (auto ok = readPreTokenizer(r, p, out, depth + 1); !ok) return ok;
        return {};
    }
    if (type == "Split") {
        auto pattern = readPattern(r, j, "its Split pre-tokenizer");
        if (!pattern) return std::unexpected(pattern.error());
        auto behavior = stringField(r, j, "behavior", "its Split pre-tokenizer");
        if (!behavior) return std::unexpected(behavior.error());
        auto invert = boolField(r, j, "invert", false, "its Split pre-tokenizer");
        if (!invert) return std::unexpected(invert.error());
        SplitStep step{std::move(pattern->first), std::move(pattern->second), SplitBehavior::Isolated, *invert};
        if (*behavior == "Removed")
            step.behavior = SplitBehavior::Removed;
        else if (*behavior == "Isolated")
            step.behavior = SplitBehavior::Isolated;
        else if (*behavior == "MergedWithPrevious")
            step.behavior = SplitBehavior::MergedWithPrevious;
        else if (*behavior == "MergedWithNext")
            step.behavior = SplitBehavior::MergedWithNext;
        else if (*behavior == "Contiguous")
            step.behavior = SplitBehavior::Contiguous;
        else
            return r.bad(
                fmt::format("its Split pre-tokenizer's behavior \"{}\" is not Removed, Isolated, "
                            "MergedWithPrevious, MergedWithNext or Contiguous",
                            *behavior));
        out.emplace_back(std::move(step));
        return {};
    }
    if (type == "ByteLevel") {
        auto prefix = boolField(r, j, "add_prefix_space", true, "its ByteLevel pre-tokenizer");
        auto useRegex = boolField(r, j, "use_regex", true, "its ByteLevel pre-tokenizer");
        if (!prefix) return std::unexpected(prefix.error());
        if (!useRegex) return std::unexpected(useRegex.error());
        ByteLevelStep step{*prefix, std::nullopt};
        if (*useRegex) {
            auto regex = Regex::compile(kGpt2Pattern);
            if (!regex) return std::unexpected(regex.error());
            step.regex = std::move(*regex);
        }
        out.emplace_back(std::move(step));
        return {};
    }
    if (type == "Digits") {
        auto individual = boolField(r, j, "individual_digits", false, "its Digits pre-tokenizer");
        if (!individual) return std::unexpected(individual.error());
        auto regex = Regex::compile(*individual ? R"(\p{N})" : R"(\p{N}+)");
        if (!regex) return std::unexpected(regex.error());
        out.emplace_back(SplitStep{std::move(*regex), {}, SplitBehavior::Isolated, false});
        return {};
    }
    return r.bad(
        fmt::format("its pre-tokenizer \"{}\" is not one this reader knows (ByteLevel, Split, Digits, "
                    "Sequence): this reader takes the byte-level BPE tokenizers of BLOOM and MPT",
                    type.empty() ? std::string("(no type)") : type));
}

Result<void> readDecoder(const Reader& r, const json& j, std::vector<Decoder>& out, int depth) {
    if (j.is_null()) return {};
    if (depth > 8) return r.bad("its decoders are nested too deeply");
    const std::string type = typeOf(j);
    if (type == "Sequence") {
        const auto it = j.find("decoders");
        if (it == j.end() || !it->is_array()) return r.bad("its Sequence decoder has no \"decoders\" list");
        for (const auto& d : *it)
            if (auto ok = readDecoder(r, d, out, depth + 1); !ok) return ok;
        return {};
    }
    if (type == "ByteLevel")
        out.emplace_back(ByteLevelDecode{});
    else if (type == "ByteFallback")
        out.emplace_back(ByteFallbackDecode{});
    else if (type == "Fuse")
        out.emplace_back(FuseDecode{});
    else if (type == "Replace") {
        auto pattern = readPattern(r, j, "its Replace decoder");
        if (!pattern) return std::unexpected(pattern.error());
        auto content = stringField(r, j, "content", "its Replace decoder");
        if (!content) return std::unexpected(content.error());
        out.emplace_back(ReplaceText{std::move(pattern->first), std::move(pattern->second), std::move(*content)});
    } else if (type == "Strip") {
        auto content = stringField(r, j, "content", "its Strip decoder");
        if (!content) return std::unexpected(content.error());
        const auto start = j.find("start"), stop = j.find("stop");
        if (start == j.end() || !start->is_number_unsigned() || stop == j.end() || !stop->is_number_unsigned())
            return r.bad("its Strip decoder needs whole numbers \"start\" and \"stop\"");
        out.emplace_back(StripDecode{std::move(*content), start->get<std::size_t>(), stop->get<std::size_t>()});
    } else {
        return r.bad(
            fmt::format("its decoder \"{}\" is not one this reader knows (ByteLevel, ByteFallback, Fuse, "
                        "Replace, Strip, Sequence)",
                        type.empty() ? std::string("(no type)") : type));
    }
    return {};
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// The tokenizer

struct Tokenizer::Impl {
    std::vector<Normalizer> normalizers;
    std::vector<PreTokenizer> preTokenizers;
    std::vector<Decoder> decoders;
    bool byteLevel = false;  // a ByteLevel pre-tokenizer maps bytes to the GPT-2 alphabet

    std::unordered_map<std::string, std::int32_t> vocab;
    std::vector<std::string> idToToken;  // "" for ids not in the vocabulary
    std::unordered_map<std::uint64_t, Merge> merges;
    std::size_t mergeCount = 0;
    std::optional<std::int32_t> unk;
    bool fuseUnk = false, byteFallback = false, ignoreMerges = false;
    std::array<std::int32_t, 256> byteFallbackIds{};

    std::vector<AddedToken> added;
    std::unordered_map<std::int32_t, std::size_t> addedById;
    std::int32_t size = 0;

    // ---- encoding

    std::string normalizeText(std::string s) const {
        for (const auto& step : normalizers) {
            if (const auto* n = std::get_if<NormalizeUnicode>(&step))
                s = detail::normalize(s, n->form);
            else if (std::holds_alternative<Lowercase>(step))
                s = detail::toLower(s);
            else if (const auto* rep = std::get_if<ReplaceText>(&step))
                s = replaceAll(*rep, s);
            else if (const auto* pre = std::get_if<PrependText>(&step)) {
                if (!s.empty()) s = pre->prefix + s;
            } else if (const auto* strip = std::get_if<StripSpace>(&step)) {
                std::size_t b = 0, e = s.size();
                if (strip->left)
                    while (b < e && isAsciiSpace(s[b])) ++b;
                if (strip->right)
                    while (e > b && isAsciiSpace(s[e - 1])) --e;
                s = s.substr(b, e - b);
            }
        }
        return s;
    }

    std::vector<std::string> preTokenize(std::string s) const {
        std::vector<std::string> pieces{std::move(s)};
        for (const auto& step : preTokenizers) {
            std::vector<std::string> next;
            if (const auto* split = std::get_if<SplitStep>(&step)) {
                for (const auto& piece : pieces)
                    for (auto& part : splitPiece(*split, piece)) next.push_back(std::move(part));
            } else {
                const auto& byte = std::get<ByteLevelStep>(step);
                const auto& alphabet = detail::byteAlphabet();
                for (auto& piece : pieces) {
                    if (byte.addPrefixSpace && !piece.empty() && piece[0] != ' ') piece.insert(0, 1, ' ');
                    std::vector<std::string> parts;
                    if (byte.regex)
                        parts = splitPiece(SplitStep{byte.regex, {}, SplitBehavior::Isolated, false}, piece);
                    else
                        parts.push_back(piece);
                    for (const auto& part : parts) {
                        std::string mapped;
                        for (const char c : part) mapped += alphabet.byteToText[static_cast<unsigned char>(c)];
                        next.push_back(std::move(mapped));
                    }
                }
            }
            pieces = std::move(next);
        }
        return pieces;
    }

    void bpe(const std::string& word, std::vector<std::int32_t>& out) const {
        if (word.empty()) return;
        if (ignoreMerges)
            if (const auto it = vocab.find(word); it != vocab.end()) {
                out.push_back(it->second);
                return;
            }
        std::vector<std::int32_t> symbols;
        bool lastWasUnk = false;
        for (std::size_t i = 0; i < word.size();) {
            std::size_t n = detail::utf8CharLength(std::string_view(word).substr(i));
            if (n == 0) n = 1;
            const std::string ch = word.substr(i, n);
            i += n;
            if (const auto it = vocab.find(ch); it != vocab.end()) {
                symbols.push_back(it->second);
                lastWasUnk = false;
            } else if (byteFallback) {
                for (const char c : ch) symbols.push_back(byteFallbackIds[static_cast<unsigned char>(c)]);
                lastWasUnk = false;
            } else if (unk) {
                if (!(fuseUnk && lastWasUnk)) symbols.push_back(*unk);
                lastWasUnk = true;
            }
        }
        // Merge the lowest-ranked adjacent pair, every occurrence left to right, until none merges.
        while (symbols.size() > 1) {
            std::int32_t bestRank = std::numeric_limits<std::int32_t>::max();
            std::uint64_t bestKey = 0;
            const Merge* best = nullptr;
            for (std::size_t i = 0; i + 1 < symbols.size(); ++i) {
                const std::uint64_t key = pairKey(symbols[i], symbols[i + 1]);
                const auto it = merges.find(key);
                if (it != merges.end() && it->second.rank < bestRank) {
                    bestRank = it->second.rank;
                    bestKey = key;
                    best = &it->second;
                }
            }
            if (best == nullptr) break;
            std::vector<std::int32_t> merged;
            merged.reserve(symbols.size());
            for (std::size_t i = 0; i < symbols.size(); ++i) {
                if (i + 1 < symbols.size() && pairKey(symbols[i], symbols[i + 1]) == bestKey) {
                    merged.push_back(best->result);
                    ++i;
                } else {
                    merged.push_back(symbols[i]);
                }
            }
            symbols = std::move(merged);
        }
        out.insert(out.end(), symbols.begin(), symbols.end());
    }

    void encodePlain(std::string_view text, std::vector<std::int32_t>& out) const {
        if (text.empty()) return;
        for (const auto& word : preTokenize(normalizeText(std::string(text)))) bpe(word, out);
    }

    // The longest added token at `at` (nullptr when none), honouring single_word.
    const AddedToken* addedAt(std::string_view text, std::size_t at) const {
        const AddedToken* best = nullptr;
        for (const auto& token : added) {
            if (token.content.empty() || text.compare(at, token.content.size(), token.content) != 0) continue;
            if (best != nullptr && best->content.size() >= token.content.size()) continue;
            if (token.singleWord) {
                const auto wordChar = [](char c) {
                    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                           (static_cast<unsigned char>(c) >= 0x80);
                };
                const std::size_t end = at + token.content.size();
                if ((at > 0 && wordChar(text[at - 1])) || (end < text.size() && wordChar(text[end]))) continue;
            }
            best = &token;
        }
        return best;
    }

    std::vector<std::int32_t> encode(std::string_view raw) const {
        const std::string text = detail::repairUtf8(raw);
        std::vector<std::int32_t> out;
        std::size_t plainStart = 0;
        for (std::size_t at = 0; at < text.size();) {
            const AddedToken* token = added.empty() ? nullptr : addedAt(text, at);
            if (token == nullptr) {
                ++at;
                continue;
            }
            std::size_t before = at;
            if (token->lstrip)
                while (before > plainStart && isAsciiSpace(text[before - 1])) --before;
            encodePlain(std::string_view(text).substr(plainStart, before - plainStart), out);
            out.push_back(token->id);
            at += token->content.size();
            if (token->rstrip)
                while (at < text.size() && isAsciiSpace(text[at])) ++at;
            plainStart = at;
        }
        encodePlain(std::string_view(text).substr(plainStart), out);
        return out;
    }

    // ---- decoding

    const std::string* tokenOf(std::int32_t id) const {
        if (const auto it = addedById.find(id); it != addedById.end()) return &added[it->second].content;
        if (id >= 0 && static_cast<std::size_t>(id) < idToToken.size() &&
            !idToToken[static_cast<std::size_t>(id)].empty())
            return &idToToken[static_cast<std::size_t>(id)];
        return nullptr;
    }

    // The bytes of "<0x0A>", or -1.
    static int fallbackByte(std::string_view token) {
        if (token.size() != 6 || token.substr(0, 3) != "<0x" || token[5] != '>') return -1;
        int value = 0;
        for (const char c : token.substr(3, 2)) {
            value *= 16;
            if (c >= '0' && c <= '9')
                value += c - '0';
            else if (c >= 'A' && c <= 'F')
                value += c - 'A' + 10;
            else if (c >= 'a' && c <= 'f')
                value += c - 'a' + 10;
            else
                return -1;
        }
        return value;
    }

    static std::string fromByteAlphabet(std::string_view token) {
        const auto& alphabet = detail::byteAlphabet();
        std::string bytes;
        for (std::size_t i = 0; i < token.size();) {
            const auto [cp, n] = detail::decodeUtf8(token.substr(i));
            if (cp < alphabet.codeToByte.size() && alphabet.codeToByte[cp] >= 0)
                bytes += static_cast<char>(alphabet.codeToByte[cp]);
            else
                bytes.append(token.substr(i, n));
            i += n;
        }
        return bytes;
    }

    std::string decode(std::span<const std::int32_t> ids) const {
        std::vector<std::string> tokens;
        for (const std::int32_t id : ids)
            if (const std::string* t = tokenOf(id)) tokens.push_back(*t);
        if (decoders.empty()) {  // Hugging Face joins the tokens with spaces when there is no decoder
            std::string out;
            for (std::size_t i = 0; i < tokens.size(); ++i) out += (i == 0 ? "" : " ") + tokens[i];
            return detail::repairUtf8(out);
        }
        for (const auto& step : decoders) {
            if (std::holds_alternative<ByteLevelDecode>(step)) {
                std::string bytes;
                for (const auto& t : tokens) bytes += fromByteAlphabet(t);
                tokens = {detail::repairUtf8(bytes)};
            } else if (std::holds_alternative<ByteFallbackDecode>(step)) {
                std::vector<std::string> next;
                std::string pending;  // consecutive byte tokens, decoded together
                const auto flush = [&] {
                    if (pending.empty()) return;
                    next.push_back(detail::repairUtf8(pending));
                    pending.clear();
                };
                for (const auto& t : tokens) {
                    if (const int b = fallbackByte(t); b >= 0) {
                        pending += static_cast<char>(b);
                    } else {
                        flush();
                        next.push_back(t);
                    }
                }
                flush();
                tokens = std::move(next);
            } else if (std::holds_alternative<FuseDecode>(step)) {
                std::string all;
                for (const auto& t : tokens) all += t;
                tokens = {std::move(all)};
            } else if (const auto* rep = std::get_if<ReplaceText>(&step)) {
                for (auto& t : tokens) t = replaceAll(*rep, t);
            } else if (const auto* strip = std::get_if<StripDecode>(&step)) {
                for (auto& t : tokens) {
                    std::size_t b = 0, e = t.size();
                    for (std::size_t k = 0;
                         k < strip->start && t.compare(b, strip->content.size(), strip->content) == 0 &&
                         !strip->content.empty();
                         ++k)
                        b += strip->content.size();
                    for (std::size_t k = 0;
                         k < strip->stop && e >= b + strip->content.size() && !strip->content.empty() &&
                         t.compare(e - strip->content.size(), strip->content.size(), strip->content) == 0;
                         ++k)
                        e -= strip->content.size();
                    t = t.substr(b, e - b);
                }
            }
        }
        std::string out;
        for (const auto& t : tokens) out += t;
        return detail::repairUtf8(out);
    }

    // The raw bytes one vocabulary token stands for.
    std::string tokenBytes(const std::string& token) const {
        if (byteFallback)
            if (const int b = fallbackByte(token); b >= 0) return std::string(1, static_cast<char>(b));
        if (byteLevel) return fromByteAlphabet(token);
        std::string t = token;
        for (const auto& step : decoders)
            if (const auto* rep = std::get_if<ReplaceText>(&step)) t = replaceAll(*rep, t);
        return t;
    }
};

namespace {

Result<std::string> readTokenizerFile(const std::filesystem::path& path) {
    struct stat info {};
    if (::stat(path.c_str(), &info) != 0)
        return fail(ErrorCode::Io, fmt::format("cannot read {}: {}", path.string(), std::strerror(errno)));
    if (!S_ISREG(info.st_mode))
        return fail(
            ErrorCode::BadInput,
            fmt::format("cannot read {}: it is not a regular file; give the model's tokenizer.json", path.string()));
    if (static_cast<std::uint64_t>(info.st_size) > kMaxTokenizerFileBytes)
        return fail(ErrorCode::TooLarge,
                    fmt::format("{} is {} MB, above the {} MB a tokenizer.json may be; is it the right file?",
                                path.string(), info.st_size >> 20, kMaxTokenizerFileBytes >> 20));
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) return fail(ErrorCode::Io, fmt::format("cannot read {}: {}", path.string(), std::strerror(errno)));
    std::string text;
    struct stat opened {};
    if (::fstat(fd, &opened) != 0 || !S_ISREG(opened.st_mode)) {
        ::close(fd);
        return fail(ErrorCode::BadInput, fmt::format("cannot read {}: it is not a regular file", path.string()));
    }
    text.resize(static_cast<std::size_t>(
        std::min<std::uint64_t>(static_cast<std::uint64_t>(opened.st_size), kMaxTokenizerFileBytes)));
    std::size_t done = 0;
    while (done < text.size()) {
        const ssize_t n = ::read(fd, text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            const int err = n < 0 ? errno : EIO;
            ::close(fd);
            return fail(ErrorCode::Io, fmt::format("cannot read {}: {}", path.string(), std::strerror(err)));
        }
        done += static_cast<std::size_t>(n);
    }
    ::close(fd);
    return text;
}

}  // namespace

Tokenizer::Tokenizer(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}
Tokenizer::Tokenizer(Tokenizer&&) noexcept = default;
Tokenizer& Tokenizer::operator=(Tokenizer&&) noexcept = default;
Tokenizer::Tokenizer(const Tokenizer& other) : m_impl(std::make_unique<Impl>(*other.m_impl)) {}
Tokenizer& Tokenizer::operator=(const Tokenizer& other) {
    if (this != &other) m_impl = std::make_unique<Impl>(*other.m_impl);
    return *this;
}
Tokenizer::~Tokenizer() = default;

Result<Tokenizer> Tokenizer::load(const std::filesystem::path& tokenizerJson) {
    auto text = readTokenizerFile(tokenizerJson);
    if (!text) return std::unexpected(text.error());
    return fromJson(*text, tokenizerJson.string());
}

Result<Tokenizer> Tokenizer::fromJson(std::string_view jsonText, std::string_view origin) {
    const Reader r{std::string(origin)};
    if (jsonDepth(jsonText) > kMaxJsonDepth)
        return r.bad(
            fmt::format("its JSON is nested more than {} levels deep (a tokenizer.json has about 6); the "
                        "file is damaged",
                        kMaxJsonDepth));
    const json root = json::parse(jsonText, nullptr, /*allow_exceptions=*/false);
    if (root.is_discarded()) return r.bad("it is not valid JSON; a tokenizer.json is the JSON that tokenizers writes");
    if (!root.is_object()) return r.bad("it is not a JSON object; is it a tokenizer.json?");
    const auto modelIt = root.find("model");
    if (modelIt == root.end() || !modelIt->is_object())
        return r.bad("it has no \"model\" object; is it a tokenizer.json (not tokenizer_config.json or vocab.json)?");
    const json& model = *modelIt;
    std::string modelType = typeOf(model);
    if (modelType.empty() && model.contains("merges")) modelType = "BPE";  // old files omit the type
    if (modelType != "BPE")
        return r.bad(
            fmt::format("its model is {}, not BPE: this reader takes the byte-level BPE tokenizers of "
                        "BLOOM and MPT (GPT-NeoX)",
                        modelType.empty() ? std::string("of no type") : modelType));

    auto impl = std::make_unique<Impl>();
    try {
        // ---- the model: vocabulary
        const auto vocabIt = model.find("vocab");
        if (vocabIt == model.end() || !vocabIt->is_object()) return r.bad("its BPE model has no \"vocab\" object");
        std::int32_t maxId = -1;
        for (const auto& [token, idJson] : vocabIt->items()) {
            if (!idJson.is_number_integer() || idJson.get<std::int64_t>() < 0 ||
                idJson.get<std::int64_t>() >= std::numeric_limits<std::int32_t>::max())
                return r.bad(fmt::format("its vocabulary gives \"{}\" the id {}, not a whole number from 0",
                                         token.substr(0, 40), idJson.dump().substr(0, 40)));
            if (token.empty()) return r.bad("its vocabulary holds an empty token");
            if (detail::utf8CharLength(token) == 0) return r.bad("its vocabulary holds a token that is not UTF-8");
            const auto id = static_cast<std::int32_t>(idJson.get<std::int64_t>());
            impl->vocab.emplace(token, id);
            maxId = std::max(maxId, id);
        }
        if (impl->vocab.empty()) return r.bad("its vocabulary is empty");
        if (static_cast<std::size_t>(maxId) >= 16 * impl->vocab.size() + 1024)
            return r.bad(fmt::format("its vocabulary of {} tokens has the id {}: ids must be nearly dense",
                                     impl->vocab.size(), maxId));
        impl->idToToken.assign(static_cast<std::size_t>(maxId) + 1, {});
        for (const auto& [token, id] : impl->vocab) {
            auto& slot = impl->idToToken[static_cast<std::size_t>(id)];
            if (!slot.empty())
                return r.bad(fmt::format("its vocabulary gives the id {} to both \"{}\" and \"{}\"", id,
                                         slot.substr(0, 40), token.substr(0, 40)));
            slot = token;
        }

        // ---- the model: options
        for (const char* key : {"continuing_subword_prefix", "end_of_word_suffix"}) {
            const auto it = model.find(key);
            if (it != model.end() && !it->is_null() && !(it->is_string() && it->get<std::string>().empty()))
                return r.bad(
                    fmt::format("its BPE model sets \"{}\", which byte-level BPE does not use and this "
                                "reader does not apply",
                                key));
        }
        if (const auto it = model.find("dropout");
            it != model.end() && !it->is_null() && !(it->is_number() && it->get<double>() == 0.0))
            return r.bad(
                "its BPE model sets a dropout, which makes tokens random; use the model's inference tokenizer");
        if (auto v = boolField(r, model, "fuse_unk", false, "its BPE model"); v)
            impl->fuseUnk = *v;
        else
            return std::unexpected(v.error());
        if (auto v = boolField(r, model, "byte_fallback", false, "its BPE model"); v)
            impl->byteFallback = *v;
        else
            return std::unexpected(v.error());
        if (auto v = boolField(r, model, "ignore_merges", false, "its BPE model"); v)
            impl->ignoreMerges = *v;
        else
            return std::unexpected(v.error());
        if (const auto it = model.find("unk_token"); it != model.end() && !it->is_null()) {
            if (!it->is_string()) return r.bad("its BPE model's unk_token is not a string");
            const auto unk = impl->vocab.find(it->get<std::string>());
            if (unk == impl->vocab.end())
                return r.bad(fmt::format("its unk_token \"{}\" is not in its vocabulary", it->get<std::string>()));
            impl->unk = unk->second;
        }
        if (impl->byteFallback)
            for (int b = 0; b < 256; ++b) {
                const auto it = impl->vocab.find(fmt::format("<0x{:02X}>", b));
                if (it == impl->vocab.end())
                    return r.bad(fmt::format("it sets byte_fallback but its vocabulary has no <0x{:02X}> token", b));
                impl->byteFallbackIds[static_cast<std::size_t>(b)] = it->second;
            }

        // ---- the model: merges, "a b" (older files) or ["a", "b"] (newer)
        const auto mergesIt = model.find("merges");
        if (mergesIt != model.end() && !mergesIt->is_null()) {
            if (!mergesIt->is_array()) return r.bad("its BPE model's \"merges\" is not a list");
            std::int32_t rank = 0;
            for (const auto& m : *mergesIt) {
                std::string a, b;
                if (m.is_string()) {
                    const std::string s = m.get<std::string>();
                    const auto space = s.find(' ');
                    if (space == std::string::npos || space == 0 || space + 1 >= s.size() ||
                        s.find(' ', space + 1) != std::string::npos)
                        return r.bad(fmt::format("its merge #{} \"{}\" is not two tokens separated by one space", rank,
                                                 s.substr(0, 60)));
                    a = s.substr(0, space);
                    b = s.substr(space + 1);
                } else if (m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string()) {
                    a = m[0].get<std::string>();
                    b = m[1].get<std::string>();
                } else {
                    return r.bad(fmt::format("its merge #{} is neither \"a b\" nor [\"a\", \"b\"]", rank));
                }
                const auto ia = impl->vocab.find(a), ib = impl->vocab.find(b), ir = impl->vocab.find(a + b);
                if (ia == impl->vocab.end() || ib == impl->vocab.end() || ir == impl->vocab.end())
                    return r.bad(fmt::format("its merge #{} \"{} {}\" names a token missing from its vocabulary ({})",
                                             rank, a.substr(0, 40), b.substr(0, 40),
                                             ia == impl->vocab.end()   ? a.substr(0, 40)
                                             : ib == impl->vocab.end() ? b.substr(0, 40)
                                                                       : (a + b).substr(0, 40)));
                impl->merges.try_emplace(pairKey(ia->second, ib->second), Merge{rank, ir->second});
                ++rank;
            }
            impl->mergeCount = static_cast<std::size_t>(rank);
        }

        // ---- the pipeline
        if (auto ok = readNormalizer(r, root.value("normalizer", json()), impl->normalizers, 0); !ok)
            return std::unexpected(ok.error());
        if (auto ok = readPreTokenizer(r, root.value("pre_tokenizer", json()), impl->preTokenizers, 0); !ok)
            return std::unexpected(ok.error());
        if (auto ok = readDecoder(r, root.value("decoder", json()), impl->decoders, 0); !ok)
            return std::unexpected(ok.error());
        impl->byteLevel = std::any_of(impl->preTokenizers.begin(), impl->preTokenizers.end(),
                                      [](const PreTokenizer& p) { return std::holds_alternative<ByteLevelStep>(p); });

        // Every text must encode: the byte-level alphabet whole, or an unk_token, or byte_fallback.
        if (!impl->unk && !impl->byteFallback) {
            if (!impl->byteLevel)
                return r.bad(
                    "it has no ByteLevel pre-tokenizer, no unk_token and no byte_fallback, so some text "
                    "could not be encoded; this reader takes byte-level BPE tokenizers");
            const auto& alphabet = detail::byteAlphabet();
            for (int b = 0; b < 256; ++b)
                if (!impl->vocab.contains(alphabet.byteToText[static_cast<std::size_t>(b)]))
                    return r.bad(
                        fmt::format("its byte-level vocabulary lacks the byte 0x{:02X} (\"{}\") and it has "
                                    "no unk_token, so some text could not be encoded",
                                    b, alphabet.byteToText[static_cast<std::size_t>(b)]));
        }

        // ---- added and special tokens
        if (const auto it = root.find("added_tokens"); it != root.end() && !it->is_null()) {
            if (!it->is_array()) return r.bad("its \"added_tokens\" is not a list");
            for (const auto& a : *it) {
                if (!a.is_object()) return r.bad("an entry of its \"added_tokens\" is not an object");
                const auto idIt = a.find("id");
                if (idIt == a.end() || !idIt->is_number_integer() || idIt->get<std::int64_t>() < 0 ||
                    idIt->get<std::int64_t>() >= std::numeric_limits<std::int32_t>::max())
                    return r.bad("an added token has no whole-number \"id\" from 0");
                auto content = stringField(r, a, "content", "an added token");
                if (!content) return std::unexpected(content.error());
                if (content->empty()) return r.bad("an added token has empty content");
                AddedToken token;
                token.id = static_cast<std::int32_t>(idIt->get<std::int64_t>());
                token.content = detail::repairUtf8(*content);
                for (auto [key, field] :
                     {std::pair{"special", &token.special}, std::pair{"single_word", &token.singleWord},
                      std::pair{"lstrip", &token.lstrip}, std::pair{"rstrip", &token.rstrip}}) {
                    auto v = boolField(r, a, key, false, "an added token");
                    if (!v) return std::unexpected(v.error());
                    *field = *v;
                }
                if (impl->addedById.contains(token.id))
                    return r.bad(fmt::format("two added tokens have the id {}", token.id));
                if (static_cast<std::size_t>(token.id) >= 16 * impl->vocab.size() + 1024)
                    return r.bad(fmt::format("the added token \"{}\" has the id {}, far beyond its vocabulary",
                                             token.content.substr(0, 40), token.id));
                impl->addedById.emplace(token.id, impl->added.size());
                impl->added.push_back(std::move(token));
                maxId = std::max(maxId, impl->added.back().id);
            }
        }
        impl->size = maxId + 1;
    } catch (const std::exception& e) {  // nlohmann's type errors: a value of the wrong kind somewhere
        return r.bad(fmt::format("it is malformed ({})", e.what()));
    }
    return Tokenizer(std::move(impl));
}

std::vector<std::int32_t> Tokenizer::encode(std::string_view text) const {
    return m_impl->encode(text);
}

std::string Tokenizer::decode(std::span<const std::int32_t> ids) const {
    return m_impl->decode(ids);
}

std::string Tokenizer::displayText(std::int32_t id) const {
    if (const auto it = m_impl->addedById.find(id); it != m_impl->addedById.end())
        return m_impl->added[it->second].content;
    const std::string* token = m_impl->tokenOf(id);
    if (token == nullptr) return fmt::format("<id {}?>", id);
    return visibleText(m_impl->tokenBytes(*token));
}

std::int32_t Tokenizer::vocabSize() const {
    return m_impl->size;
}

std::optional<std::int32_t> Tokenizer::tokenId(std::string_view token) const {
    for (const auto& a : m_impl->added)
        if (a.content == token) return a.id;
    if (const auto it = m_impl->vocab.find(std::string(token)); it != m_impl->vocab.end()) return it->second;
    return std::nullopt;
}

std::string Tokenizer::tokenString(std::int32_t id) const {
    const std::string* token = m_impl->tokenOf(id);
    return token == nullptr ? std::string() : *token;
}

bool Tokenizer::isSpecial(std::int32_t id) const {
    const auto it = m_impl->addedById.find(id);
    return it != m_impl->addedById.end() && m_impl->added[it->second].special;
}

std::string Tokenizer::summary() const {
    const auto specials =
        std::count_if(m_impl->added.begin(), m_impl->added.end(), [](const AddedToken& a) { return a.special; });
    return fmt::format("{}BPE, {} tokens, {} merges, {} special token{}", m_impl->byteLevel ? "byte-level " : "",
                       m_impl->size, m_impl->mergeCount, specials, specials == 1 ? "" : "s");
}

}  // namespace alibi::text
