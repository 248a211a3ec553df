// Tests for <alibi/text/tokenizer.hpp> on tokenizers small enough to work out by hand. The
// byte-level BPE of BLOOM and GPT-NeoX is held against a Python reference in test_tokenizer.py.
#include <alibi/text/tokenizer.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

using alibi::ErrorCode;
using alibi::text::Tokenizer;

namespace {

// Words split on spaces (removed), "a b" merged into "ab", anything else <unk>; no decoder, so
// decoding joins the tokens with spaces as Hugging Face does.
const char* kSmall = R"({
  "added_tokens": [{"id": 4, "content": "<s>", "special": true}],
  "normalizer": {"type": "Lowercase"},
  "pre_tokenizer": {"type": "Split", "pattern": {"String": " "}, "behavior": "Removed", "invert": false},
  "decoder": null,
  "model": {"type": "BPE", "unk_token": "<unk>", "vocab": {"<unk>": 0, "a": 1, "b": 2, "ab": 3},
            "merges": ["a b"]}
})";

}  // namespace

TEST(Tokenizer, EncodesAndDecodesByHand) {
    auto tok = Tokenizer::fromJson(kSmall);
    ASSERT_TRUE(tok) << tok.error().message;
    EXPECT_EQ(tok->encode("ABab a"), (std::vector<std::int32_t>{3, 3, 1}));
    EXPECT_EQ(tok->encode("abc"), (std::vector<std::int32_t>{3, 0}));
    EXPECT_EQ(tok->encode("<s>ba"), (std::vector<std::int32_t>{4, 2, 1}));
    EXPECT_TRUE(tok->encode("").empty());
    const std::vector<std::int32_t> ids = {3, 3, 1};
    EXPECT_EQ(tok->decode(ids), "ab ab a");
    EXPECT_EQ(tok->vocabSize(), 5);
    EXPECT_TRUE(tok->isSpecial(4));
    EXPECT_FALSE(tok->isSpecial(3));
    EXPECT_EQ(tok->tokenId("ab"), 3);
    EXPECT_EQ(tok->tokenId("<s>"), 4);
    EXPECT_FALSE(tok->tokenId("zz"));
    EXPECT_EQ(tok->tokenString(3), "ab");
    EXPECT_EQ(tok->displayText(4), "<s>");
    EXPECT_EQ(tok->displayText(99), "<id 99?>");
    EXPECT_EQ(tok->summary(), "BPE, 5 tokens, 1 merges, 1 special token");
}

TEST(Tokenizer, InvalidUtf8IsReadAsReplacementCharacters) {
    auto tok = Tokenizer::fromJson(kSmall);
    ASSERT_TRUE(tok);
    // "\xff" is no character: U+FFFD, not in this vocabulary, so <unk>.
    EXPECT_EQ(tok->encode("a\xff"), (std::vector<std::int32_t>{1, 0}));
}

TEST(Tokenizer, OtherKindsAndBrokenFilesAreRefusedByName) {
    const auto refused = [](const std::string& json, const std::string& needle) {
        auto tok = Tokenizer::fromJson(json, "my/tokenizer.json");
        ASSERT_FALSE(tok) << json;
        EXPECT_EQ(tok.error().code, ErrorCode::BadInput);
        EXPECT_NE(tok.error().message.find(needle), std::string::npos) << tok.error().message;
        EXPECT_EQ(tok.error().message.rfind("my/tokenizer.json: ", 0), 0u) << tok.error().message;
    };
    refused(R"({"model": {"type": "WordPiece", "vocab": {"a": 0}}})", "WordPiece, not BPE");
    refused(R"({"model": {"type": "Unigram", "vocab": [["a", 0.0]]}})", "Unigram, not BPE");
    refused("{", "not valid JSON");
    refused(R"({"model": {"type": "BPE", "vocab": {"a": 0}, "merges": [], "dropout": 0.1}})", "dropout");
    refused(R"({"model": {"type": "BPE", "vocab": {"a": 0, "b": 0}, "merges": []}, "pre_tokenizer": null})", "id 0");
    refused(R"({"model": {"type": "BPE", "vocab": {"a": 0}, "merges": []}})", "could not be encoded");
    refused(R"({"model": {"type": "BPE", "vocab": {"a": 0}, "merges": [], "unk_token": "<unk>"}})",
            "unk_token \"<unk>\" is not in its vocabulary");
    // A file nested deeper than any reader accepts is refused before it is parsed.
    refused(R"({"model": {"type": "BPE", "vocab": {"a": 0}, "merges": [], "x": )" + std::string(100000, '[') +
                std::string(100000, ']') + "}}",
            "nested more than 64 levels deep");
}

TEST(Tokenizer, LoadSaysWhatIsWrongWithThePath) {
    auto missing = Tokenizer::load("/nonexistent/tokenizer.json");
    ASSERT_FALSE(missing);
    EXPECT_EQ(missing.error().code, ErrorCode::Io);
    EXPECT_NE(missing.error().message.find("/nonexistent/tokenizer.json"), std::string::npos);
    auto folder = Tokenizer::load("/tmp");
    ASSERT_FALSE(folder);
    EXPECT_NE(folder.error().message.find("not a regular file"), std::string::npos);
}
