// Tests for <alibi/diagnose.hpp>. Correct tensors come from buildBias; every buggy tensor is
// written here by hand from REFERENCES.md's description of the bug (plain loops in double),
// so the diagnosis is checked against an independent construction, never against itself.
#include <alibi/analysis/diagnose.hpp>
#include <alibi/io/session.hpp>
#include <alibi/io/tensor_io.hpp>
#include <alibi/model/bias.hpp>
#include <alibi/model/slopes.hpp>

#include <fmt/format.h>
#include "press_reference.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <limits>

using namespace alibi;
using alibi::test::pressRef;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

bool hasFinding(const Diagnosis& d, const char* code) {
    return std::any_of(d.findings.begin(), d.findings.end(), [&](const Finding& f) { return f.code == code; });
}

std::string codes(const Diagnosis& d) {
    std::string s;
    for (const auto& f : d.findings) s += f.code + " ";
    return s;
}

// A tensor of `shape` whose element (h, i, j) is f(h, i, j), stored at index(h, i, j).
Tensor handTensor(const Shape& shape, DType dtype, std::int64_t H, std::int64_t Q, std::int64_t K,
                  const std::function<std::uint64_t(std::int64_t, std::int64_t, std::int64_t)>& index,
                  const std::function<double(std::int64_t, std::int64_t, std::int64_t)>& f) {
    Tensor t(shape, dtype);
    for (std::int64_t h = 0; h < H; ++h)
        for (std::int64_t i = 0; i < Q; ++i)
            for (std::int64_t j = 0; j < K; ++j) t.set(index(h, i, j), f(h, i, j));
    return t;
}

// (H, Q, K) in hqk order.
Tensor hqkTensor(std::int64_t H, std::int64_t Q, std::int64_t K, DType dtype,
                 const std::function<double(std::int64_t, std::int64_t, std::int64_t)>& f) {
    return handTensor(
        {H, Q, K}, dtype, H, Q, K,
        [=](auto h, auto i, auto j) { return static_cast<std::uint64_t>((h * Q + i) * K + j); }, f);
}

// A causal tensor with the given slopes, position p_i = i + K - Q, mask -1e9, in double.
double causal(double m, std::int64_t p, std::int64_t j) {
    return j <= p ? -m * static_cast<double>(p - j) : -1e9;
}

Diagnosis run(const Tensor& t) {
    auto d = diagnose(t);
    EXPECT_TRUE(d) << d.error().message;
    return d ? std::move(*d) : Diagnosis{};
}

}  // namespace

// ---------------------------------------------------------------------------
// Correct tensors

TEST(Diagnose, DefaultTensorSummary) {
    BiasParams p;  // H = 8, T = 16, causal, press, -1e9, f32, hqk
    auto t = buildBias(p);
    ASSERT_TRUE(t);
    const auto d = run(*t);
    ASSERT_TRUE(d.match) << d.summary;
    // Powers of two: every --arith profile builds the same bits.
    EXPECT_EQ(d.summary,
              "8 heads, 16 x 16, layout hqk, f32. Matches press slopes (max_bias 8), causal mode, mask -1e9, max abs "
              "error 0. Bit-identical to the exact formula (--arith exact), and to hf-bloom, hf-falcon, llm-foundry, "
              "fairseq, ggml.");
    ASSERT_TRUE(d.arith);
    EXPECT_EQ(*d.arith, Arith::Exact);
    EXPECT_TRUE(d.findings.empty()) << codes(d);
    ASSERT_EQ(d.inferredSlopes.size(), 8U);
    for (int h = 0; h < 8; ++h) EXPECT_NEAR(d.inferredSlopes[h], std::pow(2.0, -(h + 1)), 1e-6);
}

// Every mode, layout, dtype and mask, for H in {1, 2, 3, 8, 12}, is recognised exactly.
TEST(Diagnose, EveryModeLayoutDtypeMask) {
    const std::vector<std::pair<const char*, MaskValue>> masks{
        {"-1e9", {MaskValue::Kind::Finite, -1e9}},
        {"-inf", {MaskValue::Kind::NegInf, -kInf}},
        {"min", {MaskValue::Kind::Lowest, 0}},
        {"-10000", {MaskValue::Kind::Finite, -10000}},
    };
    for (const int H : {1, 2, 3, 8, 12})
        for (const BiasMode mode :
             {BiasMode::Causal, BiasMode::Symmetric, BiasMode::Clamped, BiasMode::Bloom, BiasMode::Mpt})
            for (const Layout layout : {Layout::Hqk, Layout::Qkh, Layout::OneHqk, Layout::Flat})
                for (const DType dtype : {DType::F32, DType::F64, DType::F16, DType::BF16})
                    for (const auto& [maskText, mask] : masks) {
                        if (!modeMasks(mode) && maskText != std::string("-1e9")) continue;  // no masked cells
                        BiasParams p;
                        p.slopes.heads = H;
                        p.queries = 6;
                        p.mode = mode;
                        p.layout = layout;
                        p.dtype = dtype;
                        p.mask = mask;
                        auto t = buildBias(p);
                        ASSERT_TRUE(t);
                        const std::string what = fmt::format("H={} {} {} {} mask {}", H, modeName(mode),
                                                             layoutName(layout), dtypeName(dtype), maskText);
                        const auto d = run(*t);
                        ASSERT_TRUE(d.match) << what << ": " << d.summary;
                        EXPECT_EQ(d.maxAbsError, 0) << what;
                        EXPECT_EQ(d.layout, layout) << what;
                        EXPECT_EQ(d.heads, H) << what;
                        EXPECT_EQ(d.queries, 6) << what;
                        EXPECT_EQ(d.keys, 6) << what;
                        EXPECT_EQ(d.dtype, dtype) << what;
                        EXPECT_EQ(d.match->scheme, SlopeScheme::Press) << what;
                        EXPECT_EQ(d.match->maxBias, 8) << what;
                        EXPECT_EQ(d.match->mode, mode) << what;
                        if (modeMasks(mode)) {
                            // In f16, -1e9 overflows to -inf: the tensor holds -inf, which is what it reports.
                            const MaskValue want = dtype == DType::F16 && maskText == std::string("-1e9")
                                                       ? MaskValue{MaskValue::Kind::NegInf, -kInf}
                                                       : mask;
                            EXPECT_EQ(maskName(d.match->mask), maskName(want)) << what;
                            EXPECT_EQ(hasFinding(d, kFp16MaskOverflow),
                                      want.kind == MaskValue::Kind::NegInf && dtype == DType::F16)
                                << what << " " << codes(d);
                        } else {
                            EXPECT_TRUE(d.findings.empty()) << what << " " << codes(d);
                        }
                        if (!(dtype == DType::F16 && modeMasks(mode) &&
                              d.match->mask.kind == MaskValue::Kind::NegInf)) {
                            EXPECT_TRUE(d.findings.empty()) << what << " " << codes(d);
                        }
                    }
}

TEST(Diagnose, KvCacheShapesEveryMode) {
    for (const BiasMode mode :
         {BiasMode::Causal, BiasMode::Symmetric, BiasMode::Clamped, BiasMode::Bloom, BiasMode::Mpt}) {
        BiasParams p;
        p.slopes.heads = 4;
        p.queries = 3;
        p.keys = 9;
        p.mode = mode;
        auto t = buildBias(p);
        ASSERT_TRUE(t);
        const auto d = run(*t);
        ASSERT_TRUE(d.match) << modeName(mode) << ": " << d.summary;
        EXPECT_EQ(d.match->mode, mode);
        EXPECT_EQ(d.queries, 3);
        EXPECT_EQ(d.keys, 9);
        EXPECT_FALSE(hasFinding(d, kTopLeftAligned)) << codes(d);
    }
}

TEST(Diagnose, OtherSchemesAndMaxBias) {
    {
        BiasParams p;
        p.slopes.heads = 8;
        p.slopes.maxBias = 16;
        auto d = run(*buildBias(p));
        ASSERT_TRUE(d.match) << d.summary;
        EXPECT_EQ(d.match->scheme, SlopeScheme::Press);
        EXPECT_EQ(d.match->maxBias, 16);
    }
    {
        BiasParams p;
        p.slopes.heads = 5;
        p.slopes.scheme = SlopeScheme::Linear;
        auto d = run(*buildBias(p));
        ASSERT_TRUE(d.match) << d.summary;
        EXPECT_EQ(d.match->scheme, SlopeScheme::Linear);
        EXPECT_TRUE(d.findings.empty()) << codes(d);
    }
    {
        BiasParams p;
        p.slopes.heads = 3;
        p.slopes.scheme = SlopeScheme::Custom;
        p.slopes.custom = {0.3, 0.7, 0.11};
        p.mode = BiasMode::Symmetric;
        auto d = run(*buildBias(p));
        ASSERT_TRUE(d.match) << d.summary;
        EXPECT_EQ(d.match->scheme, SlopeScheme::Custom);
        ASSERT_EQ(d.match->slopes.size(), 3U);
        EXPECT_NEAR(d.match->slopes[0], 0.3, 1e-6);
        EXPECT_NEAR(d.match->slopes[1], 0.7, 1e-6);
        EXPECT_NEAR(d.match->slopes[2], 0.11, 1e-6);
        EXPECT_EQ(d.match->mode, BiasMode::Symmetric);
    }
    {
        // Custom slopes in f16: each cell is rounded, yet the slopes are pinned well enough.
        BiasParams p;
        p.slopes.heads = 2;
        p.slopes.scheme = SlopeScheme::Custom;
        p.slopes.custom = {0.37, 0.013};
        p.queries = 40;
        p.dtype = DType::F16;
        auto d = run(*buildBias(p));
        ASSERT_TRUE(d.match) << d.summary;
        EXPECT_EQ(d.maxAbsError, 0);
    }
    {
        // Power-of-two H: geometric equals press, reported as press with no finding.
        BiasParams p;
        p.slopes.heads = 16;
        p.slopes.scheme = SlopeScheme::Geometric;
        auto d = run(*buildBias(p));
        ASSERT_TRUE(d.match) << d.summary;
        EXPECT_EQ(d.match->scheme, SlopeScheme::Press);
        EXPECT_FALSE(hasFinding(d, kNaiveSlopesNonPow2));
    }
}

// PyTorch arithmetic in half precision: the slopes are cast to f16 first, then multiplied in f16.
TEST(Diagnose, SlopesRoundedToTheDtypeFirst) {
    const auto slopes = pressRef(12, 8);
    const auto t = hqkTensor(12, 24, 24, DType::F16, [&](auto h, auto i, auto j) {
        return j <= i ? -roundTo(DType::F16, roundTo(DType::F16, slopes[h]) * static_cast<double>(i - j)) : -65504.0;
    });
    const auto d = run(t);
    ASSERT_TRUE(d.match) << d.summary;
    EXPECT_EQ(d.match->scheme, SlopeScheme::Press);
    EXPECT_EQ(d.match->maxBias, 8);
    EXPECT_EQ(d.maxAbsError, 0);
    EXPECT_NE(d.summary.find("rounded to f16 before multiplying"), std::string::npos) << d.summary;
}

TEST(Diagnose, ToleratesTinyDifferencesButNotLargeOnes) {
    BiasParams p;
    p.dtype = DType::F64;
    auto t = buildBias(p);
    ASSERT_TRUE(t);
    // Another library's rounding: a relative 1e-9 wobble on an allowed entry (h 0, row 15, key 3).
    const std::uint64_t idx = (0 * 16 + 15) * 16 + 3;
    t->set(idx, t->at(idx) * (1 + 1e-9));
    auto d = run(*t);
    ASSERT_TRUE(d.match) << d.summary;
    EXPECT_GT(d.maxAbsError, 0);
    EXPECT_LT(d.maxAbsError, 1e-8);
    t->set(idx, t->at(idx) * (1 + 1e-3));
    d = run(*t);
    EXPECT_FALSE(d.match) << d.summary;
    ASSERT_TRUE(d.firstMismatchIndex);
    EXPECT_EQ(*d.firstMismatchIndex, (std::vector<std::int64_t>{0, 15, 3}));
    EXPECT_NE(d.summary.find("(0, 15, 3)"), std::string::npos) << d.summary;
}

// ---------------------------------------------------------------------------
// The eight known bugs, each from its own hand-built tensor

TEST(DiagnoseBugs, SlopeOffByOne) {
    const int H = 8;
    const auto t = hqkTensor(H, 12, 12, DType::F32, [](auto h, auto i, auto j) {
        return causal(std::pow(2.0, -8.0 * static_cast<double>(h) / H), i, j);  // 2^(-8h/H): head 0 gets 1.0
    });
    const auto d = run(t);
    ASSERT_TRUE(d.match) << d.summary;
    EXPECT_TRUE(hasFinding(d, kSlopeOffByOne)) << codes(d);
    EXPECT_EQ(d.match->maxBias, 8);
    EXPECT_EQ(d.match->slopes[0], 1.0);
    EXPECT_EQ(d.maxAbsError, 0);
}

TEST(DiagnoseBugs, NaiveSlopesNonPow2) {
    const int H = 12;
    const auto t = hqkTensor(H, 10, 10, DType::F32, [](auto h, auto i, auto j) {
        return causal(std::pow(2.0, -8.0 * static_cast<double>(h + 1) / H), i, j);
    });
    const auto d = run(t);
    ASSERT_TRUE(d.match) << d.summary;
    EXPECT_EQ(d.match->scheme, SlopeScheme::Geometric);
    EXPECT_EQ(d.match->maxBias, 8);
    EXPECT_TRUE(hasFinding(d, kNaiveSlopesNonPow2)) << codes(d);
    EXPECT_EQ(d.findings.size(), 1U) << codes(d);
}

TEST(DiagnoseBugs, SignFlipped) {
    const auto slopes = pressRef(8, 8);
    const auto t = hqkTensor(8, 10, 10, DType::F32, [&](auto h, auto i, auto j) {
        return j <= i ? slopes[h] * static_cast<double>(i - j) : -1e9;  // +m(i - j)
    });
    const auto d = run(t);
    ASSERT_TRUE(d.match) << d.summary;
    EXPECT_TRUE(hasFinding(d, kSignFlipped)) << codes(d);
    EXPECT_EQ(d.match->scheme, SlopeScheme::Press);
    EXPECT_EQ(d.match->mode, BiasMode::Causal);
    EXPECT_EQ(d.maxAbsError, 0);
}

TEST(DiagnoseBugs, LayoutQkhAsHqk) {
    const std::int64_t H = 8, Q = 12, K = 12;
    const auto slopes = pressRef(8, 8);
    // Shape (H, Q, K), memory in (Q, K, H) order: a [seq, seq, heads] tensor reshaped, not transposed.
    const auto t = handTensor(
        {H, Q, K}, DType::F32, H, Q, K,
        [=](auto h, auto i, auto j) { return static_cast<std::uint64_t>((i * K + j) * H + h); },
        [&](auto h, auto i, auto j) { return causal(slopes[h], i, j); });
    const auto d = run(t);
    ASSERT_TRUE(d.match) << d.summary;
    EXPECT_TRUE(hasFinding(d, kLayoutQkhAsHqk)) << codes(d);
    EXPECT_EQ(d.layout, Layout::Hqk);
    EXPECT_EQ(d.heads, H);
    EXPECT_EQ(d.queries, Q);
    EXPECT_EQ(d.match->scheme, SlopeScheme::Press);
    // The error tensor follows the real memory order, so it is zero everywhere.
    auto err = diagnosisError(t, d);
    ASSERT_TRUE(err) << err.error().message;
    for (std::uint64_t n = 0; n < err->size(); ++n) ASSERT_EQ(err->at(n), 0.0) << n;
}

TEST(DiagnoseBugs, SingleSlopeAllHeads) {
    const auto t = hqkTensor(4, 8, 8, DType::F32, [](auto, auto i, auto j) { return causal(0.5, i, j); });
    const auto d = run(t);
    ASSERT_TRUE(d.match) << d.summary;
    EXPECT_TRUE(hasFinding(d, kSingleSlopeAllHeads)) << codes(d);
    for (const double m : d.match->slopes) EXPECT_EQ(m, 0.5);
}

TEST(DiagnoseBugs, TwoDimensionalTensorHasNoHeadAxis) {
    Tensor t({8, 8}, DType::F32);
    for (std::int64_t i = 0; i < 8; ++i)
        for (std::int64_t j = 0; j < 8; ++j) t.set(static_cast<std::uint64_t>(i * 8 + j), causal(0.25, i, j));
    const auto d = run(t);
    ASSERT_TRUE(d.match) << d.summary;
    EXPECT_EQ(d.heads, 1);
    EXPECT_EQ(d.queries, 8);
    EXPECT_TRUE(hasFinding(d, kSingleSlopeAllHeads)) << codes(d);
}

TEST(DiagnoseBugs, ScaledBySqrtDk) {
    for (const int dk : {64, 80, 128}) {
        const auto slopes = pressRef(8, 8);
        const auto t = hqkTensor(8, 10, 10, DType::F32,
                                 [&](auto h, auto i, auto j) { return causal(slopes[h] / std::sqrt(dk), i, j); });
        const auto d = run(t);
        ASSERT_TRUE(d.match) << d.summary;
        ASSERT_TRUE(hasFinding(d, kScaledBySqrtDk)) << dk << ": " << codes(d);
        const auto& f = *std::find_if(d.findings.begin(), d.findings.end(),
                                      [](const Finding& x) { return x.code == kScaledBySqrtDk; });
        EXPECT_NE(f.message.find("d_k = " + std::to_string(dk)), std::string::npos) << f.message;
    }
}

TEST(DiagnoseBugs, ScaledBySqrtDkLinearSlopes) {
    // Seed 004's linspace(0.05, 0.5) slopes, divided by sqrt(32).
    const auto t = hqkTensor(5, 8, 8, DType::F64, [](auto h, auto i, auto j) {
        return causal((0.05 + static_cast<double>(h) * (0.45 / 4)) / std::sqrt(32.0), i, j);
    });
    const auto d = run(t);
    ASSERT_TRUE(d.match) << d.summary;
    EXPECT_TRUE(hasFinding(d, kScaledBySqrtDk)) << codes(d);
    EXPECT_NE(d.summary.find("linear slopes / sqrt(32)"), std::string::npos) << d.summary;
}

TEST(DiagnoseBugs, Fp16MaskOverflow) {
    const auto slopes = pressRef(4, 8);
    // What a framework does: -1e9 cast to half.
    const auto t = hqkTensor(4, 8, 8, DType::F16, [&](auto h, auto i, auto j) { return causal(slopes[h], i, j); });
    ASSERT_EQ(t.at(1), -kInf);  // row 0, key 1: the mask overflowed
    const auto d = run(t);
    ASSERT_TRUE(d.match) << d.summary;
    EXPECT_TRUE(hasFinding(d, kFp16MaskOverflow)) << codes(d);
    EXPECT_EQ(d.match->mask.kind, MaskValue::Kind::NegInf);
    // The same tensor with the f16 `min` mask is fine.
    BiasParams p;
    p.slopes.heads = 4;
    p.queries = 8;
    p.dtype = DType::F16;
    p.mask = {MaskValue::Kind::Lowest, 0};
    const auto ok = run(*buildBias(p));
    ASSERT_TRUE(ok.match);
    EXPECT_FALSE(hasFinding(ok, kFp16MaskOverflow));
}

TEST(DiagnoseBugs, TopLeftAligned) {
    const std::int64_t Q = 4, K = 10;
    const auto slopes = pressRef(8, 8);
    // p_i = i instead of i + K - Q.
    const auto t = hqkTensor(8, Q, K, DType::F32, [&](auto h, auto i, auto j) { return causal(slopes[h], i, j); });
    const auto d = run(t);
    ASSERT_TRUE(d.match) << d.summary;
    EXPECT_TRUE(hasFinding(d, kTopLeftAligned)) << codes(d);
    EXPECT_EQ(d.queries, Q);
    EXPECT_EQ(d.keys, K);
    auto err = diagnosisError(t, d);
    ASSERT_TRUE(err);
    for (std::uint64_t n = 0; n < err->size(); ++n) ASSERT_EQ(err->at(n), 0.0) << n;
}

// ---------------------------------------------------------------------------
// No match, odd shapes, error tensor

TEST(Diagnose, GarbageHasNoMatchAndAFirstMismatch) {
    Tensor t({4, 8, 8}, DType::F32);
    std::uint64_t x = 12345;
    for (std::uint64_t n = 0; n < t.size(); ++n) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        t.set(n, static_cast<double>(x >> 40) / 1e5 - 50);
    }
    const auto d = run(t);
    EXPECT_FALSE(d.match);
    ASSERT_TRUE(d.firstMismatchIndex);
    EXPECT_EQ(d.firstMismatchIndex->size(), 3U);
    EXPECT_NE(d.firstMismatchActual, d.firstMismatchExpected);
    EXPECT_GT(d.maxAbsError, 0);
    EXPECT_NE(d.summary.find("No combination"), std::string::npos) << d.summary;
    EXPECT_TRUE(d.bestParams);
}

TEST(Diagnose, NanMaskIsNoMatch) {
    BiasParams p;
    p.slopes.heads = 2;
    p.queries = 5;
    auto t = buildBias(p);
    ASSERT_TRUE(t);
    t->set(1, std::numeric_limits<double>::quiet_NaN());  // head 0, row 0, key 1 (masked)
    const auto d = run(*t);
    EXPECT_FALSE(d.match) << d.summary;
    ASSERT_TRUE(d.firstMismatchIndex);
    EXPECT_EQ(*d.firstMismatchIndex, (std::vector<std::int64_t>{0, 0, 1}));
    EXPECT_TRUE(std::isinf(d.maxAbsError));
}

TEST(Diagnose, UnsupportedShapesGiveClearErrors) {
    Tensor five({1, 1, 2, 4, 4}, DType::F32);
    auto d = diagnose(five);
    ASSERT_FALSE(d);
    EXPECT_NE(d.error().message.find("5-D"), std::string::npos) << d.error().message;
    EXPECT_NE(d.error().message.find("(1, 1, 2, 4, 4)"), std::string::npos) << d.error().message;

    Tensor batch({2, 2, 4, 4}, DType::F32);                              // all zero: no batch structure to read
    for (std::uint64_t n = 0; n < batch.size(); ++n) batch.set(n, 0.0);  // Tensor leaves memory unset
    d = diagnose(batch);
    ASSERT_FALSE(d);
    EXPECT_NE(d.error().message.find("(1, H, Q, K)"), std::string::npos) << d.error().message;

    Tensor empty({0, 4, 4}, DType::F32);
    EXPECT_FALSE(diagnose(empty));

    Tensor flat({7}, DType::F32);  // positive numbers: read as a slope vector, which no scheme gives
    for (int n = 0; n < 7; ++n) flat.set(n, 1.0);
    d = diagnose(flat);
    ASSERT_TRUE(d) << d.error().message;
    EXPECT_TRUE(d->slopeVector);
    EXPECT_FALSE(d->match);
}

TEST(Diagnose, ErrorTensorLocatesTheDifference) {
    BiasParams p;
    p.slopes.heads = 2;
    p.queries = 4;
    p.mask = {MaskValue::Kind::NegInf, -kInf};
    auto t = buildBias(p);
    ASSERT_TRUE(t);
    const std::uint64_t idx = (1 * 4 + 3) * 4 + 0;  // head 1, row 3, key 0: -3/256
    t->set(idx, t->at(idx) + 0.5);
    const auto d = run(*t);
    EXPECT_FALSE(d.match);
    auto err = diagnosisError(*t, d);
    ASSERT_TRUE(err) << err.error().message;
    EXPECT_EQ(err->shape(), (Shape{2, 4, 4}));
    for (std::uint64_t n = 0; n < err->size(); ++n) {
        if (n == idx)
            EXPECT_NEAR(err->at(n), 0.5, 1e-6);
        else
            EXPECT_EQ(err->at(n), 0.0) << n;  // includes the masked cells: -inf vs -inf is no error
    }
}

// ---------------------------------------------------------------------------
// Files written by NumPy (tests/data/make_diagnose_fixtures.py): another library's float32
// arithmetic and casts, read through loadTensor as a user's file would be.

TEST(DiagnoseFiles, NumpyQkhFloat32Arithmetic) {
    auto loaded = loadTensor(std::string(ALIBI_TEST_DATA_DIR) + "/diagnose_qkh_numpy_f32.npy");
    ASSERT_TRUE(loaded) << loaded.error().message;
    const auto d = run(loaded->tensor);
    ASSERT_TRUE(d.match) << d.summary;
    EXPECT_EQ(d.layout, Layout::Qkh);
    EXPECT_EQ(d.heads, 12);
    EXPECT_EQ(d.queries, 8);
    EXPECT_EQ(d.match->scheme, SlopeScheme::Press);
    EXPECT_EQ(d.match->maxBias, 8);
    EXPECT_EQ(d.match->mode, BiasMode::Causal);
    EXPECT_EQ(d.match->mask.kind, MaskValue::Kind::NegInf);
    // ggml-style float32 powers land an ulp away from correctly rounded slopes: tolerated, and reported.
    EXPECT_GT(d.maxAbsError, 0);
    EXPECT_LT(d.maxAbsError, 1e-6);
    EXPECT_TRUE(d.findings.empty()) << codes(d);
}

TEST(DiagnoseFiles, NumpyReshapedInsteadOfTransposed) {
    auto loaded = loadTensor(std::string(ALIBI_TEST_DATA_DIR) + "/diagnose_qkh_reshaped_as_hqk.npy");
    ASSERT_TRUE(loaded) << loaded.error().message;
    ASSERT_EQ(loaded->tensor.shape(), (Shape{12, 8, 8}));
    const auto d = run(loaded->tensor);
    ASSERT_TRUE(d.match) << d.summary;
    EXPECT_TRUE(hasFinding(d, kLayoutQkhAsHqk)) << codes(d);
    EXPECT_EQ(d.heads, 12);
}

TEST(DiagnoseFiles, NumpyHalfPrecisionMaskOverflow) {
    auto loaded = loadTensor(std::string(ALIBI_TEST_DATA_DIR) + "/diagnose_f16_overflow.npy");
    ASSERT_TRUE(loaded) << loaded.error().message;
    const auto d = run(loaded->tensor);
    ASSERT_TRUE(d.match) << d.summary;
    EXPECT_EQ(d.dtype, DType::F16);
    EXPECT_EQ(d.heads, 6);
    EXPECT_EQ(d.match->scheme, SlopeScheme::Press);
    EXPECT_TRUE(hasFinding(d, kFp16MaskOverflow)) << codes(d);
    EXPECT_EQ(d.maxAbsError, 0);
}

// End to end: the tensor of every example session is recognised as what the session says.
TEST(DiagnoseFiles, ExampleSessionsAreRecognised) {
    const std::filesystem::path dir = std::filesystem::path(ALIBI_TEST_DATA_DIR) / ".." / ".." / "assets" / "sessions";
    for (const char* file : {"default.alibi.json", "bloom-176b.alibi.json", "mpt-7b.alibi.json",
                             "press-vs-geometric-12.alibi.json", "fp16-mask-overflow.alibi.json"}) {
        auto session = loadSession((dir / file).string());
        ASSERT_TRUE(session) << file << ": " << session.error().message;
        const BiasParams& p = session->attention.bias;
        auto t = buildBias(p);
        ASSERT_TRUE(t) << file;
        const auto d = run(*t);
        ASSERT_TRUE(d.match) << file << ": " << d.summary;
        EXPECT_EQ(d.heads, p.slopes.heads) << file;
        EXPECT_EQ(d.match->scheme, p.slopes.scheme) << file;
        EXPECT_EQ(d.match->maxBias, p.slopes.maxBias) << file;
        EXPECT_EQ(d.match->mode, p.mode) << file;
        EXPECT_EQ(d.maxAbsError, 0) << file;
        const bool overflow = p.dtype == DType::F16 && maskName(p.mask) == "-1e9";
        EXPECT_EQ(hasFinding(d, kFp16MaskOverflow), overflow) << file << ": " << codes(d);
        if (!overflow) {
            EXPECT_EQ(maskName(d.match->mask), maskName(p.mask)) << file;
        }
    }
}

// ---------------------------------------------------------------------------
// Arithmetic profiles and slope vectors (issue 11)

TEST(Diagnose, NamesTheProfileWhoseBitsATensorCarries) {
    BiasParams p;
    p.slopes.heads = 12;
    p.mode = BiasMode::Mpt;
    p.mask = {MaskValue::Kind::Lowest, 0};
    p.slopes.arith = Arith::LlmFoundry;
    auto t = buildBias(p);
    ASSERT_TRUE(t);
    const auto d = run(*t);
    ASSERT_TRUE(d.match) << d.summary;
    ASSERT_TRUE(d.arith) << d.summary;
    EXPECT_EQ(*d.arith, Arith::LlmFoundry) << d.summary;
    EXPECT_NE(d.summary.find("llm-foundry's build_alibi_bias"), std::string::npos) << d.summary;
    bool exactDiffers = false;
    for (const auto& a : d.arithDistances)
        if (a.arith == Arith::Exact) exactDiffers = !a.identical && a.maxUlp >= 1;
    EXPECT_TRUE(exactDiffers) << d.summary;  // 2^-0.5 * n rounds differently somewhere
}

TEST(Diagnose, BareSlopeVectorIsReadAsSlopes) {
    auto slopes = computeSlopes({12, SlopeScheme::Press, 8.0, {}, Arith::HfBloom});
    ASSERT_TRUE(slopes);
    Tensor v({12}, DType::F32);
    for (int h = 0; h < 12; ++h) v.set(static_cast<std::uint64_t>(h), (*slopes)[static_cast<std::size_t>(h)]);
    const auto d = run(v);
    EXPECT_TRUE(d.slopeVector);
    ASSERT_TRUE(d.match) << d.summary;
    EXPECT_EQ(d.match->scheme, SlopeScheme::Press);
    EXPECT_FALSE(d.match->masked);
    EXPECT_EQ(d.heads, 12);
}

// Issue 24, item 5: every head at slope 1/2 is one slope for all heads, not press slopes with
// max_bias -0 divided by sqrt(4); its correct ALiBi is press slopes with max_bias 8.
TEST(DiagnoseBugs, AllHeadsHalfIsOneSlopeWithMaxBias8Corrected) {
    const Tensor t = hqkTensor(4, 8, 8, DType::F32, [](auto, auto i, auto j) { return causal(0.5, i, j); });
    auto d = diagnose(t);
    ASSERT_TRUE(d && d->match) << (d ? d->summary : d.error().message);
    EXPECT_TRUE(hasFinding(*d, kSingleSlopeAllHeads)) << codes(*d);
    EXPECT_FALSE(hasFinding(*d, kScaledBySqrtDk)) << codes(*d);
    EXPECT_EQ(d->summary.find("max_bias -0"), std::string::npos) << d->summary;
    EXPECT_EQ(d->summary.find("sqrt(4)"), std::string::npos) << d->summary;
    ASSERT_TRUE(d->correctParams);
    EXPECT_EQ(d->correctParams->slopes.scheme, SlopeScheme::Press);
    EXPECT_EQ(d->correctParams->slopes.maxBias, 8.0);
}

// Issue 24, item 2: a per-row constant is harmless (softmax unchanged, checked by hand in double),
// and the map shows the probability change instead of the bias error.
TEST(DiagnoseBugs, RowOffsetIsHarmlessAndPaintedAsProbabilityChange) {
    const std::int64_t H = 8, K = 24;
    const auto m = pressRef(static_cast<int>(H), 8.0);
    const Tensor t = hqkTensor(H, 1, K, DType::F32, [&](std::int64_t h, std::int64_t, std::int64_t j) {
        return -m[static_cast<std::size_t>(h)] * static_cast<double>(K - j);  // position K instead of K - 1
    });
    auto d = diagnose(t);
    ASSERT_TRUE(d && d->match) << (d ? d->summary : d.error().message);
    ASSERT_TRUE(hasFinding(*d, kRowOffset)) << codes(*d);
    for (const Finding& f : d->findings) {
        EXPECT_FALSE(f.changesAttention) << f.code;
        EXPECT_LT(f.maxProbabilityChange, 1e-6);
        EXPECT_FALSE(f.explanation.empty());
        EXPECT_FALSE(f.fix.empty());
    }
    EXPECT_TRUE(paintProbabilityChange(*d));
    auto map = probabilityChangeMap(t, *d);
    ASSERT_TRUE(map);
    for (std::uint64_t n = 0; n < map->size(); ++n) EXPECT_LT(map->at(n), 1e-6);
    auto error = correctAlibiError(t, *d);
    ASSERT_TRUE(error);
    double largest = 0;
    for (std::uint64_t n = 0; n < error->size(); ++n) largest = std::max(largest, error->at(n));
    EXPECT_GT(largest, 0.1);  // the logits differ: the bias error map would paint it
}

// A bias scaled by a constant changes attention: the change is the largest softmax difference of
// any row, computed here in double by hand.
TEST(DiagnoseBugs, ScaledBiasChangesAttentionByTheSoftmaxDifference) {
    const std::int64_t H = 4, T = 6;
    const auto m = pressRef(static_cast<int>(H), 8.0);
    const Tensor t = hqkTensor(H, T, T, DType::F32, [&](std::int64_t h, std::int64_t i, std::int64_t j) {
        return j <= i ? 3.0 * -m[static_cast<std::size_t>(h)] * static_cast<double>(i - j) : -kInf;
    });
    auto d = diagnose(t);
    ASSERT_TRUE(d && d->match) << (d ? d->summary : d.error().message);
    ASSERT_TRUE(hasFinding(*d, kScaledBias)) << codes(*d);
    double expected = 0;
    for (std::int64_t h = 0; h < H; ++h)
        for (std::int64_t i = 0; i < T; ++i) {
            double a = 0, b = 0;
            std::vector<double> pa, pb;
            for (std::int64_t j = 0; j <= i; ++j) {
                const double x = static_cast<double>(
                    static_cast<float>(3.0 * -m[static_cast<std::size_t>(h)] * static_cast<double>(i - j)));
                pa.push_back(std::exp(x));
                pb.push_back(std::exp(-m[static_cast<std::size_t>(h)] * static_cast<double>(i - j)));
                a += pa.back();
                b += pb.back();
            }
            for (std::size_t k = 0; k < pa.size(); ++k) expected = std::max(expected, std::fabs(pa[k] / a - pb[k] / b));
        }
    for (const Finding& f : d->findings) {
        EXPECT_TRUE(f.changesAttention) << f.code;
        EXPECT_NEAR(f.maxProbabilityChange, expected, 1e-6);
    }
}
