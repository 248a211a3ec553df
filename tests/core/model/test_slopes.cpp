// Tests for <alibi/slopes.hpp>. Golden values come from REFERENCES.md's formulas, written out
// by hand here (powers of two), never from the code under test.
#include <alibi/model/arith.hpp>
#include <alibi/model/slopes.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

using namespace alibi;

namespace {
std::vector<double> slopesOf(int heads, SlopeScheme scheme = SlopeScheme::Press, double b = 8.0) {
    auto r = computeSlopes({heads, scheme, b, {}});
    EXPECT_TRUE(r.has_value());
    return r.value_or(std::vector<double>{});
}
// 2^(-e/den) evaluated independently with pow.
double p2(double num, double den) {
    return std::pow(2.0, -num / den);
}
}  // namespace

TEST(Slopes, PaperExamples) {
    EXPECT_EQ(slopesOf(1), (std::vector<double>{1.0 / 256}));
    EXPECT_EQ(slopesOf(2), (std::vector<double>{1.0 / 16, 1.0 / 256}));
    EXPECT_EQ(slopesOf(8), (std::vector<double>{0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625, 0.0078125, 0.00390625}));
    const auto s16 = slopesOf(16);
    ASSERT_EQ(s16.size(), 16U);
    for (int h = 0; h < 16; ++h) EXPECT_DOUBLE_EQ(s16[h], p2(h + 1, 2)) << h;
    EXPECT_EQ(s16[1], 0.5);  // exact: no accumulated rounding
}

TEST(Slopes, PressNonPowerOfTwoIsUnsorted) {
    const auto s = slopesOf(12);
    const std::vector<double> want{0.5,       0.25,       0.125,    0.0625,   0.03125,  0.015625,
                                   0.0078125, 0.00390625, p2(1, 2), p2(3, 2), p2(5, 2), p2(7, 2)};
    ASSERT_EQ(s.size(), 12U);
    for (int h = 0; h < 12; ++h) EXPECT_DOUBLE_EQ(s[h], want[h]) << h;
}

TEST(Slopes, PressForManyHeadCounts) {
    for (int heads : {3, 5, 40, 112}) {
        const int c = 1 << static_cast<int>(std::floor(std::log2(heads)));
        const auto s = slopesOf(heads);
        ASSERT_EQ(s.size(), static_cast<std::size_t>(heads));
        for (int h = 0; h < heads; ++h) {
            const double want = h < c ? p2(8.0 * (h + 1), c) : p2(8.0 * (2 * (h - c) + 1), 2 * c);
            EXPECT_DOUBLE_EQ(s[h], want) << "H=" << heads << " h=" << h;
        }
    }
    // H = 5: c = 4 -> 2^-2, 2^-4, 2^-6, 2^-8, then 2^-1.
    EXPECT_EQ(slopesOf(5), (std::vector<double>{0.25, 0.0625, 0.015625, 0.00390625, 0.5}));
    // H = 3: c = 2 -> 2^-4, 2^-8, then 2^-2.
    EXPECT_EQ(slopesOf(3), (std::vector<double>{0.0625, 0.00390625, 0.25}));
}

TEST(Slopes, GeometricDiffersFromPressOnlyForNonPowersOfTwo) {
    for (int heads : {1, 2, 8, 16}) EXPECT_EQ(slopesOf(heads, SlopeScheme::Geometric), slopesOf(heads));
    const auto g = slopesOf(12, SlopeScheme::Geometric);
    for (int h = 0; h < 12; ++h) EXPECT_DOUBLE_EQ(g[h], p2(8.0 * (h + 1), 12));
    EXPECT_NE(g, slopesOf(12));
}

TEST(Slopes, MaxBias) {
    const auto s = slopesOf(8, SlopeScheme::Press, 16.0);
    EXPECT_EQ(s[0], 0.25);
    EXPECT_EQ(s[7], std::ldexp(1.0, -16));
    const auto zero = slopesOf(4, SlopeScheme::Press, 0.0);
    for (double m : zero) EXPECT_EQ(m, 1.0);  // ggml: slope = 1 when B = 0
}

TEST(Slopes, Linear) {
    const auto s = slopesOf(10, SlopeScheme::Linear);
    ASSERT_EQ(s.size(), 10U);
    EXPECT_EQ(s.front(), 0.05);
    EXPECT_EQ(s.back(), 0.5);
    EXPECT_DOUBLE_EQ(s[1], 0.1);
    EXPECT_EQ(slopesOf(1, SlopeScheme::Linear), std::vector<double>{0.05});
}

TEST(Slopes, CustomValidation) {
    EXPECT_EQ(*computeSlopes({2, SlopeScheme::Custom, 8, {0.5, 0.1}}), (std::vector<double>{0.5, 0.1}));
    auto wrongCount = computeSlopes({3, SlopeScheme::Custom, 8, {0.5, 0.1}});
    ASSERT_FALSE(wrongCount);
    EXPECT_NE(wrongCount.error().message.find("--slopes"), std::string::npos);
    EXPECT_FALSE(computeSlopes({2, SlopeScheme::Custom, 8, {0.5, -0.1}}));
    EXPECT_FALSE(computeSlopes({1, SlopeScheme::Custom, 8, {std::nan("")}}));
    EXPECT_FALSE(computeSlopes({1, SlopeScheme::Custom, 8, {0.0}}));
}

TEST(Slopes, InvalidHeadsAndBias) {
    auto r = computeSlopes({0, SlopeScheme::Press, 8.0, {}});
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, ErrorCode::InvalidArgument);
    EXPECT_NE(r.error().message.find("--heads"), std::string::npos);
    EXPECT_FALSE(computeSlopes({100000, SlopeScheme::Press, 8.0, {}}));
    EXPECT_FALSE(computeSlopes({8, SlopeScheme::Press, -1.0, {}}));
    EXPECT_FALSE(computeSlopes({8, SlopeScheme::Press, std::numeric_limits<double>::infinity(), {}}));
}

TEST(Slopes, HalfLife) {
    EXPECT_DOUBLE_EQ(halfLife(0.5), 2 * std::numbers::ln2);
}

// ---------------------------------------------------------------------------
// Framework profiles (the full bit-for-bit emulation is tests/cli/test_arith.py)

TEST(FrameworkSlopes, PowersOfTwoAreExactEverywhere) {
    for (const Arith arith : allAriths()) {
        auto r = computeSlopes({8, SlopeScheme::Press, 8.0, {}, arith});
        ASSERT_TRUE(r) << arithName(arith);
        for (int h = 0; h < 8; ++h) EXPECT_EQ((*r)[h], std::ldexp(1.0, -(h + 1))) << arithName(arith) << " " << h;
    }
}

TEST(FrameworkSlopes, Float32ValuesAndOrder) {
    const double root = static_cast<float>(std::sqrt(0.5));  // float32 of 2^-0.5
    auto fairseq = computeSlopes({12, SlopeScheme::Press, 8.0, {}, Arith::Fairseq});
    ASSERT_TRUE(fairseq);
    EXPECT_EQ((*fairseq)[8], root);
    // llm-foundry: 16 slopes 2^-(k/2), reordered odd-indexed first: 2^-1, 2^-2, ... then 2^-0.5.
    auto foundry = computeSlopes({12, SlopeScheme::Press, 8.0, {}, Arith::LlmFoundry});
    ASSERT_TRUE(foundry);
    for (int h = 0; h < 8; ++h) EXPECT_EQ((*foundry)[h], std::ldexp(1.0, -(h + 1)));
    EXPECT_EQ((*foundry)[8], root);
    EXPECT_EQ(static_cast<double>(static_cast<float>((*foundry)[9])), (*foundry)[9]);
}

TEST(FrameworkSlopes, RefusedCombinations) {
    EXPECT_FALSE(computeSlopes({8, SlopeScheme::Press, 16.0, {}, Arith::HfBloom}));
    EXPECT_FALSE(computeSlopes({8, SlopeScheme::Geometric, 8.0, {}, Arith::Ggml}));
    EXPECT_TRUE(computeSlopes({8, SlopeScheme::Press, 16.0, {}, Arith::Ggml}));
    auto r = computeSlopes({8, SlopeScheme::Press, 0.0, {}, Arith::Ggml});
    ASSERT_TRUE(r);
    EXPECT_EQ((*r)[3], 1.0);  // ggml: slope 1 when max_bias is 0
}
