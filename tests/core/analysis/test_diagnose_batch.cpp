// Tests of diagnose on batches (B, H, T, T): the prefix-LM prefix read off the mask pattern, and
// one-row tensors that are batches only when their mask shows batch structure. The prefix-LM
// tensors are written here by hand from the definition (the first P tokens see each other both
// ways; causal ALiBi -m |p_i - p_j| on allowed cells), not built by the code under test.
#include <alibi/analysis/diagnose.hpp>
#include <alibi/analysis/diagnosis_report.hpp>
#include <alibi/model/batch.hpp>
#include <alibi/model/bias.hpp>

#include "press_reference.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>

using namespace alibi;
using alibi::test::pressRef;

namespace {

// Right-padded rows of `lengths`, causal ALiBi with a prefix of P tokens, mask -1e9, f32. Keys
// are allowed when real and not in the future, or when query and key are both in the prefix.
Tensor prefixBatch(int H, std::int64_t T, const std::vector<std::int64_t>& lengths, std::int64_t P) {
    const auto B = static_cast<std::int64_t>(lengths.size());
    const auto m = pressRef(H, 8);
    Tensor t({B, H, T, T}, DType::F32);
    std::uint64_t n = 0;
    for (std::int64_t b = 0; b < B; ++b)
        for (int h = 0; h < H; ++h)
            for (std::int64_t i = 0; i < T; ++i)
                for (std::int64_t j = 0; j < T; ++j, ++n) {
                    const std::int64_t length = lengths[static_cast<std::size_t>(b)];
                    const bool allowed = j < length && (j <= i || (i < P && j < P));
                    // Positions from the mask: a padding query sits at 0.
                    const std::int64_t pi = i < length ? i : 0;
                    t.set(n, allowed ? -m[static_cast<std::size_t>(h)] * static_cast<double>(std::abs(pi - j)) : -1e9);
                }
    return t;
}

bool hasFinding(const Diagnosis& d, const char* code) {
    return std::any_of(d.findings.begin(), d.findings.end(), [&](const Finding& f) { return f.code == code; });
}

}  // namespace

TEST(DiagnoseBatch, PrefixLmIsReadOffTheMask) {
    const Tensor t = prefixBatch(4, 12, {12, 9, 7}, 5);
    auto d = diagnose(t);
    ASSERT_TRUE(d) << d.error().message;
    ASSERT_TRUE(d->batch);
    ASSERT_TRUE(d->match) << d->summary;
    EXPECT_EQ(d->batch->prefix, 5);
    EXPECT_EQ(d->batch->lengths, (std::vector<std::int64_t>{12, 9, 7}));
    EXPECT_EQ(d->match->mode, BiasMode::Causal);
    EXPECT_TRUE(hasFinding(*d, kPrefixLm)) << d->summary;
    EXPECT_NE(d->summary.find("prefix-LM prefix 5"), std::string::npos) << d->summary;

    const auto json = nlohmann::json::parse(diagnosisJson(*d, "<array>", t.shape()));
    EXPECT_EQ(json["batch"]["prefix"], 5);
    EXPECT_EQ(json["findings"], nlohmann::json::array({"prefix-lm"}));

    // Its correct ALiBi is itself: a prefix is a choice, not a bug.
    auto e = correctAlibiError(t, *d);
    ASSERT_TRUE(e) << e.error().message;
    for (std::uint64_t n = 0; n < e->size(); ++n) ASSERT_EQ(e->at(n), 0.0);
}

// Both explorers print readAsText under the summary: a batch said "Read as layout hqk: 8 heads"
// for a (3, 8, 16, 16) bhqk tensor, which the status line above it contradicted.
TEST(DiagnoseBatch, ReadAsTextGivesTheBatchShape) {
    const Tensor t = prefixBatch(8, 16, {12, 9, 7}, 4);
    auto d = diagnose(t);
    ASSERT_TRUE(d.has_value()) << d.error().message;
    EXPECT_EQ(readAsText(*d), "Read as layout bhqk: 3 batch rows x 8 heads x 16 queries x 16 keys.");
    EXPECT_EQ(matchText(*d).rfind("Reproduced by: press slopes, max_bias 8, causal mode, mask -1e9", 0), 0u)
        << matchText(*d);
}

TEST(DiagnoseBatch, OneRowWithAPrefixIsABatch) {
    const Tensor t = prefixBatch(8, 10, {10}, 4);
    auto d = diagnose(t);
    ASSERT_TRUE(d) << d.error().message;
    ASSERT_TRUE(d->batch) << d->summary;
    ASSERT_TRUE(d->match) << d->summary;
    EXPECT_EQ(d->batch->prefix, 4);
    EXPECT_NE(d->summary.find("One sequence"), std::string::npos) << d->summary;
}

TEST(DiagnoseBatch, PlainOneRowStaysASingleSequence) {
    for (const BiasMode mode : {BiasMode::Causal, BiasMode::Symmetric}) {
        BiasParams p;
        p.slopes.heads = 4;
        p.queries = 8;
        p.mode = mode;
        p.layout = Layout::OneHqk;
        auto t = buildBias(p);
        ASSERT_TRUE(t);
        auto d = diagnose(*t);
        ASSERT_TRUE(d) << d.error().message;
        EXPECT_FALSE(d->batch) << d->summary;
        EXPECT_EQ(d->layout, Layout::OneHqk);
        ASSERT_TRUE(d->match) << d->summary;
        EXPECT_EQ(d->match->mode, mode);
    }
}

// A padded symmetric batch allows every later key, as a prefix of T would: it must still read as
// symmetric with no prefix.
TEST(DiagnoseBatch, SymmetricBatchHasNoPrefix) {
    BiasParams p;
    p.slopes.heads = 2;
    p.queries = 6;
    p.mode = BiasMode::Symmetric;
    BatchParams b;
    b.lengths = {6, 3};
    auto t = buildBatchBias(p, b);
    ASSERT_TRUE(t);
    auto d = diagnose(*t);
    ASSERT_TRUE(d && d->match) << (d ? d->summary : d.error().message);
    EXPECT_EQ(d->match->mode, BiasMode::Symmetric);
    EXPECT_EQ(d->batch->prefix, 0);
    EXPECT_FALSE(hasFinding(*d, kPrefixLm));
}
