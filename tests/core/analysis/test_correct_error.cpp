// Tests of correctAlibiError and Diagnosis::correctParams: the explorers' Diagnose error map
// compares a user's tensor with correct ALiBi, not with the buggy reproduction that matched it.
// The buggy tensors and every expected error are written here from REFERENCES.md's formulas
// (plain loops in double), never taken from the code under test.
#include <alibi/analysis/corrected_session.hpp>
#include <alibi/analysis/diagnose.hpp>
#include <alibi/model/batch.hpp>

#include "press_reference.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>

using namespace alibi;
using alibi::test::pressRef;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// An (H, Q, K) tensor in hqk order with element f(h, i, j) (stored rounded to the dtype).
Tensor hqk(std::int64_t H, std::int64_t Q, std::int64_t K, DType dtype,
           const std::function<double(std::int64_t, std::int64_t, std::int64_t)>& f) {
    Tensor t({H, Q, K}, dtype);
    for (std::int64_t h = 0; h < H; ++h)
        for (std::int64_t i = 0; i < Q; ++i)
            for (std::int64_t j = 0; j < K; ++j) t.set(static_cast<std::uint64_t>((h * Q + i) * K + j), f(h, i, j));
    return t;
}

// |a - b| of two stored f32 values, as the error tensor holds it.
float f32Error(double a, double b) {
    const double x = static_cast<float>(a), y = static_cast<float>(b);
    if (x == y) return 0.0f;
    return static_cast<float>(std::fabs(x - y));
}

Diagnosis run(const Tensor& t) {
    auto d = diagnose(t);
    EXPECT_TRUE(d) << d.error().message;
    return d ? std::move(*d) : Diagnosis{};
}

Tensor errorOf(const Tensor& t, const Diagnosis& d) {
    auto e = correctAlibiError(t, d);
    EXPECT_TRUE(e) << e.error().message;
    return e ? std::move(*e) : Tensor{};
}

}  // namespace

// The case of issue 10: a known bug that matches exactly gave an all-black map.
TEST(CorrectAlibiError, SlopeOffByOneShowsTheSteeperSlopes) {
    const std::int64_t H = 8, T = 16;
    // 2^(-8h/8) = 2^-h instead of 2^-(h+1).
    const Tensor t = hqk(H, T, T, DType::F32,
                         [](auto h, auto i, auto j) { return j <= i ? -std::exp2(-double(h)) * double(i - j) : -1e9; });
    const Diagnosis d = run(t);
    ASSERT_TRUE(d.match) << d.summary;
    ASSERT_EQ(d.findings.size(), 1u);
    EXPECT_EQ(d.findings[0].code, kSlopeOffByOne);

    ASSERT_TRUE(d.correctParams);
    EXPECT_EQ(d.correctParams->slopes.scheme, SlopeScheme::Press);
    EXPECT_EQ(d.correctParams->slopes.maxBias, 8.0);
    EXPECT_EQ(d.correctParams->slopes.heads, 8);
    EXPECT_EQ(d.correctParams->queries, T);
    EXPECT_EQ(d.correctParams->mode, BiasMode::Causal);
    EXPECT_EQ(d.correctParams->mask, (MaskValue{MaskValue::Kind::Finite, -1e9}));

    // The buggy reproduction is exact (the old map: all zero) ...
    auto best = diagnosisError(t, d);
    ASSERT_TRUE(best);
    for (std::uint64_t n = 0; n < best->size(); ++n) ASSERT_EQ(best->at(n), 0.0) << n;
    // ... the error against correct ALiBi is (i - j) (2^-h - 2^-(h+1)) = (i - j) 2^-(h+1).
    const Tensor e = errorOf(t, d);
    ASSERT_EQ(e.shape(), (Shape{H, T, T}));
    for (std::int64_t h = 0; h < H; ++h)
        for (std::int64_t i = 0; i < T; ++i)
            for (std::int64_t j = 0; j < T; ++j) {
                const double want = j <= i ? double(i - j) * std::exp2(-double(h + 1)) : 0.0;
                ASSERT_EQ(e.at(static_cast<std::uint64_t>((h * T + i) * T + j)), want) << h << " " << i << " " << j;
            }
}

TEST(CorrectAlibiError, SignFlippedIsTwiceTheBias) {
    const std::int64_t H = 4, T = 8;
    const auto m = pressRef(4, 8);
    const Tensor t = hqk(H, T, T, DType::F32, [&](auto h, auto i, auto j) {
        return j <= i ? m[static_cast<std::size_t>(h)] * double(i - j) : -1e9;
    });
    const Diagnosis d = run(t);
    ASSERT_TRUE(d.match);
    const Tensor e = errorOf(t, d);
    for (std::int64_t h = 0; h < H; ++h)
        for (std::int64_t i = 0; i < T; ++i)
            for (std::int64_t j = 0; j < T; ++j) {
                const double v = m[static_cast<std::size_t>(h)] * double(i - j);
                const float want = j <= i ? f32Error(v, -v) : 0.0f;
                ASSERT_EQ(e.at(static_cast<std::uint64_t>((h * T + i) * T + j)), want);
            }
}

// Correct values in (Q, K, H) order under an (H, Q, K) shape: read as the shape says, the cells
// hold other heads' and rows' values.
TEST(CorrectAlibiError, LayoutMixUpIsReadAsTheShapeDeclares) {
    const std::int64_t H = 4, Q = 6, K = 6;
    const auto m = pressRef(4, 8);
    const auto value = [&](std::int64_t h, std::int64_t i, std::int64_t j) {
        return j <= i ? -m[static_cast<std::size_t>(h)] * double(i - j) : -1e9;
    };
    Tensor t({H, Q, K}, DType::F32);
    for (std::int64_t h = 0; h < H; ++h)
        for (std::int64_t i = 0; i < Q; ++i)
            for (std::int64_t j = 0; j < K; ++j) t.set(static_cast<std::uint64_t>((i * K + j) * H + h), value(h, i, j));
    const Diagnosis d = run(t);
    ASSERT_TRUE(d.match) << d.summary;
    ASSERT_EQ(d.correctParams->layout, Layout::Hqk);
    const Tensor e = errorOf(t, d);
    bool someError = false;
    for (std::uint64_t n = 0; n < t.size(); ++n) {
        // Cell n of the (H, Q, K) reading holds qkh element (n % H, n / H / K, n / H % K).
        const auto hq = static_cast<std::int64_t>(n / static_cast<std::uint64_t>(K));
        const double correct = value(hq / Q, hq % Q, static_cast<std::int64_t>(n % static_cast<std::uint64_t>(K)));
        const auto N = static_cast<std::int64_t>(n);
        const double stored = value(N % H, N / H / K, N / H % K);
        ASSERT_EQ(e.at(n), f32Error(stored, correct)) << n;
        someError = someError || e.at(n) > 0;
    }
    EXPECT_TRUE(someError);
}

// f16 with -inf where -1e9 overflowed: correct ALiBi has the mask min, so the masked cells are
// the error (infinite), and the allowed cells none.
TEST(CorrectAlibiError, Fp16OverflowedMaskIsTheError) {
    const std::int64_t H = 2, T = 6;
    const auto m = pressRef(2, 8);
    const Tensor t = hqk(H, T, T, DType::F16, [&](auto h, auto i, auto j) {
        return j <= i ? -m[static_cast<std::size_t>(h)] * double(i - j) : -kInf;
    });
    const Diagnosis d = run(t);
    ASSERT_TRUE(d.match);
    ASSERT_TRUE(d.correctParams);
    EXPECT_EQ(d.correctParams->mask.kind, MaskValue::Kind::Lowest);
    const Tensor e = errorOf(t, d);
    for (std::int64_t h = 0; h < H; ++h)
        for (std::int64_t i = 0; i < T; ++i)
            for (std::int64_t j = 0; j < T; ++j)
                ASSERT_EQ(e.at(static_cast<std::uint64_t>((h * T + i) * T + j)), j <= i ? 0.0 : kInf);
}

// A KV-cache tensor built top-left: query i at position i instead of i + K - Q.
TEST(CorrectAlibiError, TopLeftAlignedAgainstBottomRight) {
    const std::int64_t H = 2, Q = 3, K = 7;
    const auto m = pressRef(2, 8);
    const auto cell = [&](std::int64_t h, std::int64_t p, std::int64_t j) {
        return j <= p ? -m[static_cast<std::size_t>(h)] * double(p - j) : -1e9;
    };
    const Tensor t = hqk(H, Q, K, DType::F32, [&](auto h, auto i, auto j) { return cell(h, i, j); });
    const Diagnosis d = run(t);
    ASSERT_TRUE(d.match) << d.summary;
    ASSERT_TRUE(d.correctParams);
    EXPECT_EQ(d.correctParams->keyCount(), K);
    const Tensor e = errorOf(t, d);
    for (std::int64_t h = 0; h < H; ++h)
        for (std::int64_t i = 0; i < Q; ++i)
            for (std::int64_t j = 0; j < K; ++j)
                ASSERT_EQ(e.at(static_cast<std::uint64_t>((h * Q + i) * K + j)),
                          f32Error(cell(h, i, j), cell(h, i + K - Q, j)));
}

TEST(CorrectAlibiError, CorrectTensorHasNoError) {
    const std::int64_t H = 12, T = 9;
    const auto m = pressRef(12, 8);
    const Tensor t = hqk(H, T, T, DType::F32, [&](auto h, auto i, auto j) {
        return j <= i ? -m[static_cast<std::size_t>(h)] * double(i - j) : -1e9;
    });
    const Diagnosis d = run(t);
    ASSERT_TRUE(d.match);
    EXPECT_TRUE(d.findings.empty());
    const Tensor e = errorOf(t, d);
    for (std::uint64_t n = 0; n < e.size(); ++n) ASSERT_EQ(e.at(n), 0.0);
}

// BLOOM's +m j form with left padding and positions counting the padding: every real cell of a
// row padded by P is off by m P (positions from the mask start at 0 after the padding).
TEST(CorrectAlibiError, LeftPaddingPositionsAreOffByThePadding) {
    BiasParams p;
    p.slopes.heads = 4;
    p.queries = 6;
    p.mode = BiasMode::Bloom;
    BatchParams b;
    b.lengths = {6, 4, 1};
    b.padding = Padding::Left;
    b.positions = PositionRule::Naive;
    auto t = buildBatchBias(p, b);  // the user's buggy tensor
    ASSERT_TRUE(t) << t.error().message;
    const Diagnosis d = run(*t);
    ASSERT_TRUE(d.match) << d.summary;
    ASSERT_TRUE(d.correctBatch);
    EXPECT_EQ(d.correctBatch->positions, PositionRule::Mask);
    const Tensor e = errorOf(*t, d);
    ASSERT_EQ(e.shape(), (Shape{3 * 4, 6, 6}));
    const auto m = pressRef(4, 8);
    for (std::int64_t row = 0; row < 3; ++row) {
        const std::int64_t pad = 6 - b.lengths[static_cast<std::size_t>(row)];
        for (std::int64_t h = 0; h < 4; ++h)
            for (std::int64_t i = 0; i < 6; ++i)
                for (std::int64_t j = 0; j < 6; ++j) {
                    const bool allowed = j >= pad && j <= i;
                    const double mj = m[static_cast<std::size_t>(h)];
                    const float want = allowed ? f32Error(mj * double(j), mj * double(j - pad)) : 0.0f;
                    ASSERT_EQ(e.at(static_cast<std::uint64_t>(((row * 4 + h) * 6 + i) * 6 + j)), want)
                        << row << " " << h << " " << i << " " << j;
                }
    }
}

TEST(CorrectAlibiError, SlopeVectorHasNoMap) {
    Tensor t({8}, DType::F64);
    const auto m = pressRef(8, 8);
    for (std::size_t h = 0; h < 8; ++h) t.set(h, m[h]);
    const Diagnosis d = run(t);
    ASSERT_TRUE(d.slopeVector);
    auto e = correctAlibiError(t, d);
    ASSERT_FALSE(e);
    EXPECT_NE(e.error().message.find("slope vector"), std::string::npos) << e.error().message;
}

// The explorers show findings without CLI flags; the CLI keeps its wording.
TEST(CorrectAlibiError, ExplorerWordsNameNoFlags) {
    std::vector<Tensor> tensors;
    // Slope exponent off by one (H = 8).
    tensors.push_back(hqk(8, 8, 8, DType::F32, [](auto h, auto i, auto j) {
        return j <= i ? -std::exp2(-double(h)) * double(i - j) : -1e9;
    }));
    // Naive geometric slopes for H = 12.
    tensors.push_back(hqk(12, 8, 8, DType::F32, [](auto h, auto i, auto j) {
        return j <= i ? -std::exp2(-8.0 * double(h + 1) / 12) * double(i - j) : -1e9;
    }));
    // An f16 tensor whose -1e9 mask overflowed to -inf.
    tensors.push_back(hqk(2, 6, 6, DType::F16, [](auto h, auto i, auto j) {
        return j <= i ? -std::exp2(-4.0 * double(h + 1)) * double(i - j) : -kInf;
    }));
    int flagged = 0;
    for (const Tensor& t : tensors) {
        const Diagnosis d = run(t);
        ASSERT_FALSE(d.findings.empty()) << d.summary;
        EXPECT_EQ(d.explorerSummaryText().find("--"), std::string::npos) << d.explorerSummaryText();
        for (const Finding& f : d.findings) {
            EXPECT_EQ(f.explorerMessage().find("--"), std::string::npos) << f.code << ": " << f.explorerMessage();
            flagged += f.message.find("--") != std::string::npos;
        }
    }
    EXPECT_EQ(flagged, 3);  // off-by-one, naive geometric and fp16 mask all name a flag for the CLI
}

// "Open the corrected parameters" opens correct ALiBi, keeping what is not about the tensor.
TEST(CorrectedSession, SetsTheCorrectBiasAndClampsTheSelection) {
    const Tensor t = hqk(8, 16, 16, DType::F32,
                         [](auto h, auto i, auto j) { return j <= i ? -std::exp2(-double(h)) * double(i - j) : -1e9; });
    const Diagnosis d = run(t);
    Session current;
    current.attention.bias.slopes.heads = 32;
    current.attention.bias.queries = 128;
    current.attention.content.kind = ContentKind::Gaussian;
    current.head = 20;
    current.queryRow = 100;
    current.colormap = Colormap::Magma;
    current.batch.lengths = {128, 64};
    current.batchRow = 1;
    const auto s = correctedSession(current, d);
    ASSERT_TRUE(s);
    EXPECT_EQ(s->attention.bias, *d.correctParams);
    EXPECT_EQ(s->attention.bias.slopes.scheme, SlopeScheme::Press);
    EXPECT_EQ(s->attention.bias.slopes.heads, 8);
    EXPECT_EQ(s->attention.bias.queries, 16);
    EXPECT_FALSE(s->batch.active());
    EXPECT_EQ(s->batchRow, 0);
    EXPECT_EQ(s->head, 7);
    EXPECT_EQ(s->queryRow, 15);
    EXPECT_EQ(s->attention.content.kind, ContentKind::Gaussian);
    EXPECT_EQ(s->colormap, Colormap::Magma);
    EXPECT_TRUE(validateSession(*s)) << validateSession(*s).error().message;
    EXPECT_EQ(correctAlibiSummary(d), "press slopes (max_bias 8), causal mode, mask -1e9");
}

// Decode rows of a left-padded batch, (B, H, 1, K) with one row off by a factor of 2: the error
// map has every row (B*H, 1, K), zero where the rows are correct and |m (K-1-j)| on the wrong one;
// "Open the corrected parameters" opens the square left-padded batch at its last query row.
TEST(CorrectedSession, DecodeRowsOpenTheLeftPaddedBatchAtTheLastRow) {
    constexpr std::int64_t B = 3, H = 6, K = 12;
    const std::vector<std::int64_t> lengths{12, 7, 9};
    const auto m = pressRef(H, 8);
    Tensor t({B, H, 1, K}, DType::F32);
    const auto value = [&](std::int64_t b, std::int64_t h, std::int64_t j) {
        const std::int64_t pad = K - lengths[static_cast<std::size_t>(b)];
        if (j < pad) return -kInf;
        return -(b == 2 ? 2.0 : 1.0) * m[static_cast<std::size_t>(h)] * static_cast<double>(K - 1 - j);
    };
    for (std::int64_t b = 0; b < B; ++b)
        for (std::int64_t h = 0; h < H; ++h)
            for (std::int64_t j = 0; j < K; ++j) t.set(static_cast<std::uint64_t>((b * H + h) * K + j), value(b, h, j));
    auto d = diagnose(t);
    ASSERT_TRUE(d) << d.error().message;
    ASSERT_EQ(d->rows.size(), 3u);
    EXPECT_TRUE(d->rows[0].common && d->rows[1].common);
    EXPECT_FALSE(d->rows[2].common);
    ASSERT_TRUE(d->correctParams && d->correctBatch) << d->summary;
    EXPECT_EQ(d->correctBatch->lengths, lengths);
    EXPECT_EQ(d->correctBatch->padding, Padding::Left);
    auto error = correctAlibiError(t, *d);
    ASSERT_TRUE(error) << error.error().message;
    ASSERT_EQ(error->shape(), (Shape{B * H, 1, K}));
    for (std::int64_t b = 0; b < B; ++b)
        for (std::int64_t h = 0; h < H; ++h)
            for (std::int64_t j = 0; j < K; ++j) {
                const double stored = value(b, h, j);
                const double correct = std::isinf(stored) ? stored : stored / (b == 2 ? 2.0 : 1.0);
                const float expected = std::isinf(stored) ? 0.0f : f32Error(stored, correct);
                EXPECT_EQ(error->at(static_cast<std::uint64_t>((b * H + h) * K + j)), expected)
                    << b << " " << h << " " << j;
            }
    Session current;
    const auto s = correctedSession(current, *d);
    ASSERT_TRUE(s);
    EXPECT_EQ(s->attention.bias.queries, K);
    EXPECT_EQ(s->batch.lengths, lengths);
    EXPECT_EQ(s->queryRow, K - 1);
    EXPECT_TRUE(validateSession(*s)) << validateSession(*s).error().message;
}
