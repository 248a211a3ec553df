// A model's tokenizer, read from the `tokenizer.json` that Hugging Face's `tokenizers` library
// writes: the byte-level BPE that BLOOM and MPT (GPT-NeoX) ship. The pipeline is the file's own:
// normalizer (NFC/NFD/NFKC/NFKD, Lowercase, Replace, Prepend, Strip, Sequence), pre-tokenizer
// (Split on a regex or string with any of its five behaviours, ByteLevel with or without its
// GPT-2 regex, Sequence), the BPE model (vocab, merges, unk_token, byte_fallback, ignore_merges)
// and the decoder (ByteLevel, ByteFallback, Fuse, Replace, Strip, Sequence), with added and
// special tokens matched in the text first. A vocabulary of the 256 single bytes and no merges
// is a plain byte-level tokenizer. Any other kind of file (WordPiece, Unigram, WordLevel, an
// unknown component) is refused by name when it is loaded, never half-applied.
//
// Regexes run in PCRE2 (UTF and Unicode properties), normalizers in ICU. Post-processors
// (templates that add BOS/EOS) are not applied: encode() returns the text's tokens only.
#pragma once

#include <alibi/base/error.hpp>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace alibi::text {

// The largest tokenizer.json accepted (BLOOM's is 14 MB, the largest public ones ~20 MB).
inline constexpr std::uint64_t kMaxTokenizerFileBytes = std::uint64_t{256} << 20;

class Tokenizer {
public:
    // Reads and checks a tokenizer.json. Errors (ErrorCode::BadInput) name the file and what is
    // wrong in it: not JSON, a model type other than BPE, a pre-tokenizer or normalizer this
    // reader does not know, a merge naming a token missing from the vocabulary, a duplicate id...
    [[nodiscard]] static Result<Tokenizer> load(const std::filesystem::path& tokenizerJson);
    // The same from the file's text (`origin` names it in messages): tests and fuzzers.
    [[nodiscard]] static Result<Tokenizer> fromJson(std::string_view json, std::string_view origin = "tokenizer.json");

    Tokenizer(Tokenizer&&) noexcept;
    Tokenizer& operator=(Tokenizer&&) noexcept;
    Tokenizer(const Tokenizer&);
    Tokenizer& operator=(const Tokenizer&);
    ~Tokenizer();

    // The ids of `text` (UTF-8; a byte that is not part of a valid character is read as U+FFFD,
    // as Python's errors="replace" does). Never fails:
    // load() refuses a tokenizer that could not encode some text.
    [[nodiscard]] std::vector<std::int32_t> encode(std::string_view text) const;
    // The text of `ids` (special tokens included, as their content). Bytes that do not form
    // valid UTF-8 become U+FFFD, as Hugging Face's decode does. Ids outside the vocabulary are
    // skipped.
    [[nodiscard]] std::string decode(std::span<const std::int32_t> ids) const;
    // One token for a person to read: its decoded text with whitespace made visible (space as
    // "·", newline "↵", tab "→", carriage return "⏎", other controls and bytes that are not
    // whole UTF-8 characters as "<0xE2>"); an added/special token as its content; "<id 123?>"
    // for an id outside the vocabulary.
    [[nodiscard]] std::string displayText(std::int32_t id) const;
    // One past the largest id (vocabulary and added tokens).
    [[nodiscard]] std::int32_t vocabSize() const;

    // The id of a token as the vocabulary spells it ("Ġthe", "<s>"); nullopt when none.
    [[nodiscard]] std::optional<std::int32_t> tokenId(std::string_view token) const;
    // The token of an id as the vocabulary spells it; empty when the id is not in it.
    [[nodiscard]] std::string tokenString(std::int32_t id) const;
    // True for an added token marked "special" (<s>, </s>, <|endoftext|>...).
    [[nodiscard]] bool isSpecial(std::int32_t id) const;
    // One line on what was read: "byte-level BPE, 250680 tokens, 250000 merges, 4 special tokens".
    [[nodiscard]] std::string summary() const;

private:
    struct Impl;
    explicit Tokenizer(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> m_impl;
};

}  // namespace alibi::text
