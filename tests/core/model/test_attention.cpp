// Tests for <alibi/attention.hpp>: the generator's documented recipe, validation, hand-computed
// probabilities, the content sources, masking, dtypes and layouts, and the fast path against a
// softmax written here in double from REFERENCES.md (and against attentionRow) on many shapes.
#include <alibi/model/attention.hpp>
#include <alibi/model/bias.hpp>
#include <alibi/model/slopes.hpp>

#include <alibi/model/detail/attention_closed_form.hpp>
#include "generator_reference.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <numbers>
#include <vector>

using namespace alibi;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

AttentionParams attention(int heads, long q, long k = 0, BiasMode mode = BiasMode::Causal,
                          ContentKind content = ContentKind::Zero) {
    AttentionParams p;
    p.bias.slopes.heads = heads;
    p.bias.queries = q;
    p.bias.keys = k;
    p.bias.mode = mode;
    p.content.kind = content;
    return p;
}

// REFERENCES.md's bias table, literally (nullopt where masked).
std::optional<double> referenceBias(BiasMode mode, double m, long p, long j, long K) {
    switch (mode) {
        case BiasMode::Causal:
            return j <= p ? std::optional(-m * static_cast<double>(p - j)) : std::nullopt;
        case BiasMode::Symmetric:
            return -m * static_cast<double>(std::labs(p - j));
        case BiasMode::Clamped:
            return -m * static_cast<double>(std::max(p - j, 0L));
        case BiasMode::Bloom:
            return j <= p ? std::optional(m * static_cast<double>(j)) : std::nullopt;
        case BiasMode::Mpt:
            return j <= p ? std::optional(-m * static_cast<double>(K - 1 - j)) : std::nullopt;
    }
    return std::nullopt;
}

// The documented recipe, written out in generator_reference.hpp.
double testNormal(std::uint64_t seed, std::uint64_t stream, std::uint64_t index, int generator = kGeneratorLatest) {
    return test::referenceNormal(seed, stream, index, generator);
}

// The content logit, from the header's description of the streams.
double testContent(const AttentionParams& a, long h, long i, long j) {
    const long Q = a.bias.queries, K = a.bias.keyCount(), d = a.content.dk;
    switch (a.content.kind) {
        case ContentKind::Zero:
            return 0;
        case ContentKind::Gaussian:
            return a.content.sigma * testNormal(a.content.seed, kStreamGaussian,
                                                static_cast<std::uint64_t>((h * Q + i) * K + j), a.content.generator);
        case ContentKind::Qk:
            break;
    }
    double dot = 0;
    for (long c = 0; c < d; ++c)
        dot += testNormal(a.content.seed, kStreamQueries, static_cast<std::uint64_t>((h * Q + i) * d + c),
                          a.content.generator) *
               testNormal(a.content.seed, kStreamKeys, static_cast<std::uint64_t>((h * K + j) * d + c),
                          a.content.generator);
    return dot / std::sqrt(static_cast<double>(d));
}

// The softmax a framework computes, in double: (content + dtype-rounded bias) / temperature on
// unmasked keys, the dtype's mask value itself on masked keys, softmax over the whole row (a row
// of -inf is 0/0, NaN).
std::vector<double> testRow(const AttentionParams& a, long h, long i) {
    const auto slopes = *computeSlopes(a.bias.slopes);
    const long K = a.bias.keyCount(), p = i + K - a.bias.queries;
    const double mask = roundTo(a.bias.dtype, maskDouble(a.bias.mask, a.bias.dtype));
    std::vector<double> x(static_cast<std::size_t>(K), mask);
    double max = -kInf;
    for (long j = 0; j < K; ++j) {
        const auto b = referenceBias(a.bias.mode, slopes[static_cast<std::size_t>(h)], p, j, K);
        if (b)
            x[static_cast<std::size_t>(j)] =
                (testContent(a, h, i, j) + roundTo(a.bias.dtype, *b)) / a.content.temperature;
        max = std::max(max, x[static_cast<std::size_t>(j)]);
    }
    std::vector<double> out(x.size(), std::numeric_limits<double>::quiet_NaN());
    if (max == -kInf) return out;
    double sum = 0;
    for (std::size_t j = 0; j < x.size(); ++j) sum += out[j] = std::exp(x[j] - max);
    for (auto& v : out) v /= sum;
    return out;
}

void expectTensorMatches(const AttentionParams& a, double tol, unsigned threads = 2) {
    auto t = computeAttention(a, kDefaultMemoryBudget, threads);
    ASSERT_TRUE(t) << t.error().message;
    const long H = a.bias.slopes.heads, Q = a.bias.queries, K = a.bias.keyCount();
    for (long h = 0; h < H; ++h)
        for (long i = 0; i < Q; ++i) {
            const auto want = testRow(a, h, i);
            for (long j = 0; j < K; ++j) {
                const double got = t->at(layoutIndex(a.bias.layout, H, Q, K, h, i, j));
                ASSERT_NEAR(got, want[static_cast<std::size_t>(j)], tol)
                    << modeName(a.bias.mode) << " " << contentName(a.content.kind) << " H=" << H << " Q=" << Q
                    << " K=" << K << " dk=" << a.content.dk << " h=" << h << " i=" << i << " j=" << j;
            }
        }
}

}  // namespace

// ---------------------------------------------------------------------------
// Generator

TEST(Generator, SplitMix64MatchesTheReferenceSequence) {
    // SplitMix64 seeded with 0: its first output is the well-known 0xE220A8397B1DCDAF
    // (x advanced by the golden gamma, then mixed).
    EXPECT_EQ(splitMix64(0), 0xE220A8397B1DCDAFULL);
    EXPECT_EQ(splitMix64(0x9E3779B97F4A7C15ULL), 0x6E789E6AA1B965F4ULL);
}

TEST(Generator, UniformFollowsTheDocumentedRecipe) {
    for (std::uint64_t seed : {0ULL, 1ULL, 12345ULL})
        for (std::uint64_t stream : {1ULL, 2ULL, 3ULL})
            for (std::uint64_t index : {0ULL, 1ULL, 2ULL, 1000ULL, 1ULL << 40}) {
                const std::uint64_t key = splitMix64(splitMix64(seed) + stream);
                const double want = static_cast<double>(splitMix64(key + index) >> 11) * std::ldexp(1.0, -53);
                EXPECT_EQ(uniform01(seed, stream, index), want);
            }
}

TEST(Generator, UniformIsStrictlyInsideTheUnitInterval) {
    double sum = 0;
    const int n = 200000;
    for (int k = 0; k < n; ++k) {
        const double u = uniform01(7, 1, static_cast<std::uint64_t>(k));
        ASSERT_GT(u, 0.0);
        ASSERT_LT(u, 1.0);
        sum += u;
    }
    EXPECT_NEAR(sum / n, 0.5, 0.005);
}

TEST(Generator, NormalIsBoxMullerOnPairs) {
    for (std::uint64_t index = 0; index < 64; ++index)
        EXPECT_EQ(standardNormal(42, kStreamKeys, index), testNormal(42, kStreamKeys, index));
}

TEST(Generator, NormalHasUnitVarianceAndDependsOnSeedAndStream) {
    const int n = 200000;
    double sum = 0, sq = 0;
    for (int k = 0; k < n; ++k) {
        const double z = standardNormal(3, kStreamGaussian, static_cast<std::uint64_t>(k));
        sum += z;
        sq += z * z;
    }
    EXPECT_NEAR(sum / n, 0.0, 0.01);
    EXPECT_NEAR(sq / n, 1.0, 0.02);
    EXPECT_EQ(standardNormal(3, 1, 5), standardNormal(3, 1, 5));
    EXPECT_NE(standardNormal(3, 1, 5), standardNormal(4, 1, 5));
    EXPECT_NE(standardNormal(3, 1, 5), standardNormal(3, 2, 5));
}

// ---------------------------------------------------------------------------
// Validation

TEST(Validation, NamesTheFlag) {
    auto expectError = [](AttentionParams a, const char* flag) {
        auto r = validateAttention(a);
        ASSERT_FALSE(r) << flag;
        EXPECT_EQ(r.error().code, ErrorCode::InvalidArgument);
        EXPECT_NE(r.error().message.find(flag), std::string::npos) << r.error().message;
        EXPECT_FALSE(computeAttention(a));
        EXPECT_FALSE(attentionSource(a));
        EXPECT_FALSE(attentionRow(a, 0, 0));
    };
    auto a = attention(2, 4);
    EXPECT_TRUE(validateAttention(a));
    a.content.sigma = -1;
    expectError(a, "--sigma");
    a.content.sigma = std::numeric_limits<double>::quiet_NaN();
    expectError(a, "--sigma");
    a = attention(2, 4);
    a.content.dk = 0;
    expectError(a, "--dk");
    a.content.dk = 4097;
    expectError(a, "--dk");
    a = attention(2, 4);
    a.content.temperature = 0;
    expectError(a, "--temperature");
    a.content.temperature = kInf;
    expectError(a, "--temperature");
    a = attention(2, 0);
    expectError(a, "--seq");
}

TEST(Validation, RowOutOfRange) {
    auto a = attention(2, 4);
    EXPECT_FALSE(attentionRow(a, 2, 0));
    EXPECT_FALSE(attentionRow(a, 0, 4));
    EXPECT_FALSE(attentionStages(a, 0, -1));
}

// ---------------------------------------------------------------------------
// Hand-computed probabilities (H = 1: m = 1/256)

TEST(ZeroContent, CausalByHand) {
    const double m = 1.0 / 256, e1 = std::exp(-m), e2 = std::exp(-2 * m);
    const std::vector<std::vector<double>> want = {
        {1, 0, 0},
        {e1 / (1 + e1), 1 / (1 + e1), 0},
        {e2 / (1 + e1 + e2), e1 / (1 + e1 + e2), 1 / (1 + e1 + e2)},
    };
    auto a = attention(1, 3);
    auto t = computeAttention(a);
    ASSERT_TRUE(t) << t.error().message;
    for (int i = 0; i < 3; ++i) {
        auto row = attentionRow(a, 0, i);
        ASSERT_TRUE(row);
        for (int j = 0; j < 3; ++j) {
            EXPECT_NEAR(t->at(static_cast<std::uint64_t>(i * 3 + j)), want[i][j], 1e-7) << i << "," << j;
            EXPECT_NEAR((*row)[static_cast<std::size_t>(j)], want[i][j], 1e-15);
        }
    }
    // Masked cells are exactly 0, not merely tiny.
    EXPECT_EQ(t->at(1), 0.0);
    EXPECT_EQ(t->at(2), 0.0);
    EXPECT_EQ(t->at(5), 0.0);
}

TEST(ZeroContent, SymmetricAndClampedByHand) {
    const double m = 1.0 / 256, e1 = std::exp(-m), e2 = std::exp(-2 * m);
    auto sym = computeAttention(attention(1, 3, 0, BiasMode::Symmetric));
    ASSERT_TRUE(sym);
    // Row 1 of symmetric: distances 1, 0, 1.
    EXPECT_NEAR(sym->at(3), e1 / (1 + 2 * e1), 1e-7);
    EXPECT_NEAR(sym->at(4), 1 / (1 + 2 * e1), 1e-7);
    EXPECT_NEAR(sym->at(5), e1 / (1 + 2 * e1), 1e-7);
    // Row 0: distances 0, 1, 2.
    EXPECT_NEAR(sym->at(0), 1 / (1 + e1 + e2), 1e-7);
    EXPECT_NEAR(sym->at(2), e2 / (1 + e1 + e2), 1e-7);
    auto cl = computeAttention(attention(1, 3, 0, BiasMode::Clamped));
    ASSERT_TRUE(cl);
    // Clamped row 0: future keys get bias 0, so the row is uniform.
    for (int j = 0; j < 3; ++j) EXPECT_NEAR(cl->at(static_cast<std::uint64_t>(j)), 1.0 / 3, 1e-7);
    // Row 1: biases -m, 0, 0.
    EXPECT_NEAR(cl->at(3), e1 / (e1 + 2), 1e-7);
    EXPECT_NEAR(cl->at(5), 1 / (e1 + 2), 1e-7);
}

TEST(ZeroContent, BloomMptAndCausalAgree) {
    for (long keys : {0L, 50L}) {
        auto causal = computeAttention(attention(8, 37, keys, BiasMode::Causal));
        auto bloom = computeAttention(attention(8, 37, keys, BiasMode::Bloom));
        auto mpt = computeAttention(attention(8, 37, keys, BiasMode::Mpt));
        ASSERT_TRUE(causal && bloom && mpt);
        for (std::uint64_t e = 0; e < causal->size(); ++e) {
            ASSERT_NEAR(bloom->at(e), causal->at(e), 1e-6) << e;
            ASSERT_NEAR(mpt->at(e), causal->at(e), 1e-6) << e;
        }
    }
}

TEST(ZeroContent, TemperatureDividesTheWholeLogit) {
    auto a = attention(4, 9, 0, BiasMode::Symmetric);
    a.content.temperature = 2.5;
    expectTensorMatches(a, 1e-6);
    // Against the hand formula for head 0 (m = 1/2 with H = 4... H=4: m_0 = 2^-2), row 0.
    auto row = attentionRow(a, 0, 0);
    ASSERT_TRUE(row);
    double sum = 0;
    for (int j = 0; j < 9; ++j) sum += std::exp(-0.25 * j / 2.5);
    EXPECT_NEAR((*row)[3], std::exp(-0.25 * 3 / 2.5) / sum, 1e-15);
}

// Zero content in closed form against the direct softmax

TEST(ClosedForm, AgreesWithTheDirectSoftmaxToOneInATrillion) {
    // f64, every mode, K < Q (fully masked rows), K = Q, K > Q, every mask kind, temperatures,
    // slopes from tiny to steep: attentionRow takes the closed form, testRow the direct sum.
    struct Shape2 {
        long q, k;
    };
    const Shape2 shapes[] = {{1, 1}, {2, 1}, {9, 4}, {17, 17}, {5, 40}, {300, 300}, {64, 2500}};
    const MaskValue masks[] = {MaskValue{}, MaskValue{MaskValue::Kind::Finite, -1},
                               MaskValue{MaskValue::Kind::Finite, 3}, MaskValue{MaskValue::Kind::NegInf, 0},
                               MaskValue{MaskValue::Kind::Lowest, 0}};
    long checked = 0;
    for (auto mode : {BiasMode::Causal, BiasMode::Symmetric, BiasMode::Clamped, BiasMode::Bloom, BiasMode::Mpt})
        for (auto shape : shapes)
            for (const auto& mask : masks)
                for (double temperature : {1.0, 0.3, 7.0}) {
                    auto a = attention(4, shape.q, shape.k, mode);
                    a.bias.dtype = DType::F64;
                    a.bias.mask = mask;
                    a.bias.slopes.scheme = SlopeScheme::Custom;
                    a.bias.slopes.custom = {1e-9, 1.0 / 256, 0.37, 6.0};
                    a.content.temperature = temperature;
                    for (long h = 0; h < 4; ++h)
                        for (long i : {0L, 1L, shape.q / 2, shape.q - 1}) {
                            if (i >= shape.q) continue;
                            auto got = attentionRow(a, h, i);
                            ASSERT_TRUE(got);
                            const auto want = testRow(a, h, i);
                            for (long j = 0; j < shape.k; ++j) {
                                const double g = (*got)[static_cast<std::size_t>(j)],
                                             w = want[static_cast<std::size_t>(j)];
                                if (std::isnan(w)) {
                                    ASSERT_TRUE(std::isnan(g));
                                    continue;
                                }
                                ASSERT_LE(std::fabs(g - w), 1e-12 * w + 1e-300)
                                    << modeName(mode) << " Q=" << shape.q << " K=" << shape.k << " mask "
                                    << maskName(mask) << " T=" << temperature << " h=" << h << " i=" << i << " j=" << j
                                    << " got " << g << " want " << w;
                                ++checked;
                            }
                        }
                }
    EXPECT_GT(checked, 100000);
}

TEST(ClosedForm, RangeSumsAndMaximaForHeatmapPixels) {
    // What a pixel covering keys [a, b) shows, in O(1), against sums over the row.
    for (auto mode : {BiasMode::Causal, BiasMode::Symmetric, BiasMode::Clamped, BiasMode::Bloom, BiasMode::Mpt})
        for (long keys : {0L, 5L, 60L}) {
            auto a = attention(1, 40, keys, mode);
            a.bias.dtype = DType::F64;
            a.bias.mask = MaskValue{MaskValue::Kind::Finite, -3};
            a.bias.slopes.scheme = SlopeScheme::Custom;
            a.bias.slopes.custom = {0.2};
            const long K = a.bias.keyCount();
            for (long i : {0L, 17L, 39L}) {
                const detail::GeometricRow row(a, 0.2, i);
                std::vector<double> p(static_cast<std::size_t>(K));
                row.probabilities(p);
                for (long first = 0; first < K; first += 3)
                    for (long last = first + 1; last <= K; last += 4) {
                        double sum = 0, max = 0;
                        for (long j = first; j < last; ++j) {
                            sum += p[static_cast<std::size_t>(j)];
                            max = std::max(max, p[static_cast<std::size_t>(j)]);
                        }
                        ASSERT_NEAR(row.sumBetween(first, last), sum, 1e-13) << modeName(mode) << K << " " << i;
                        ASSERT_DOUBLE_EQ(row.maxBetween(first, last), max) << modeName(mode) << K << " " << i;
                    }
            }
        }
}

// ---------------------------------------------------------------------------
// Content sources

TEST(Content, GaussianStatisticsAndDeterminism) {
    auto a = attention(2, 200, 0, BiasMode::Symmetric, ContentKind::Gaussian);
    a.content.sigma = 2.0;
    a.content.seed = 9;
    double sum = 0, sq = 0;
    long n = 0;
    for (long i = 0; i < 200; ++i)
        for (long j = 0; j < 200; ++j) {
            const double c = contentLogit(a, 1, i, j);
            EXPECT_EQ(c, 2.0 * standardNormal(9, kStreamGaussian, static_cast<std::uint64_t>((200 + i) * 200 + j)));
            sum += c;
            sq += c * c;
            ++n;
        }
    EXPECT_NEAR(sum / static_cast<double>(n), 0.0, 0.03);
    EXPECT_NEAR(sq / static_cast<double>(n), 4.0, 0.08);
    EXPECT_EQ(contentLogit(a, 0, 3, 4), contentLogit(a, 0, 3, 4));
    auto b = a;
    b.content.seed = 10;
    EXPECT_NE(contentLogit(a, 0, 3, 4), contentLogit(b, 0, 3, 4));
}

TEST(Content, QkLogitIsTheScaledDotProduct) {
    auto a = attention(3, 5, 7, BiasMode::Causal, ContentKind::Qk);
    a.content.dk = 16;
    a.content.seed = 77;
    for (long h = 0; h < 3; ++h)
        for (long i = 0; i < 5; ++i)
            for (long j = 0; j < 7; ++j) {
                double dot = 0;
                for (long c = 0; c < 16; ++c)
                    dot += standardNormal(77, kStreamQueries, static_cast<std::uint64_t>((h * 5 + i) * 16 + c)) *
                           standardNormal(77, kStreamKeys, static_cast<std::uint64_t>((h * 7 + j) * 16 + c));
                EXPECT_NEAR(contentLogit(a, h, i, j), dot / 4.0, 1e-12);
            }
}

TEST(Content, QkProbabilitiesAndBiasNotScaled) {
    // The bias enters unscaled: testRow adds -m d, not -m d / sqrt(dk).
    auto a = attention(4, 20, 0, BiasMode::Causal, ContentKind::Qk);
    a.content.dk = 64;
    a.content.seed = 5;
    expectTensorMatches(a, 1e-5);
    a.bias.dtype = DType::F64;
    expectTensorMatches(a, 1e-12);
}

TEST(Content, GaussianProbabilities) {
    auto a = attention(3, 17, 23, BiasMode::Clamped, ContentKind::Gaussian);
    a.content.sigma = 1.5;
    a.content.temperature = 0.7;
    expectTensorMatches(a, 1e-5);
}

TEST(Content, SessionsOfTheLibmRecipeKeepTheirNumbers) {
    // A session written before recipe 2 reads with generator = 1: its content comes from the C
    // library's log, cos and sin as before, through every path (tensor, rows, contentLogit).
    for (auto kind : {ContentKind::Gaussian, ContentKind::Qk}) {
        auto a = attention(2, 9, 13, BiasMode::Causal, kind);
        a.content.generator = kGeneratorLibm;
        a.content.dk = 5;
        for (long j = 0; j < 13; ++j) EXPECT_DOUBLE_EQ(contentLogit(a, 1, 4, j), testContent(a, 1, 4, j)) << j;
        expectTensorMatches(a, 1e-5);
        auto b = a;
        b.content.generator = kGeneratorPolynomial;
        EXPECT_NE(contentLogit(a, 1, 4, 3), contentLogit(b, 1, 4, 3));
    }
    auto bad = attention(1, 4);
    bad.content.generator = 3;
    auto r = validateAttention(bad);
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message.find("attention.generator"), std::string::npos) << r.error().message;
}

TEST(Content, ThreadCountDoesNotChangeAnyBit) {
    for (auto kind : {ContentKind::Gaussian, ContentKind::Qk}) {
        auto a = attention(5, 301, 0, BiasMode::Causal, kind);
        auto one = computeAttention(a, kDefaultMemoryBudget, 1);
        auto two = computeAttention(a, kDefaultMemoryBudget, 2);
        auto three = computeAttention(a, kDefaultMemoryBudget, 3);
        ASSERT_TRUE(one && two && three);
        EXPECT_EQ(std::memcmp(one->bytes(), two->bytes(), one->byteSize()), 0);
        EXPECT_EQ(std::memcmp(one->bytes(), three->bytes(), one->byteSize()), 0);
    }
}

// ---------------------------------------------------------------------------
// Masking

TEST(Masking, FullyMaskedRowsAreUniformOrNaNAsInAFramework) {
    // Q = 6, K = 3: queries 0..2 sit at positions -3..-1 and see no key. PyTorch's softmax
    // gives a uniform row under a finite mask (or the dtype's lowest) and NaN under -inf.
    for (auto mask : {MaskValue{}, MaskValue{MaskValue::Kind::Lowest, 0}, MaskValue{MaskValue::Kind::NegInf, 0}})
        for (auto kind : {ContentKind::Zero, ContentKind::Gaussian, ContentKind::Qk})
            for (auto mode : {BiasMode::Causal, BiasMode::Bloom, BiasMode::Mpt})
                for (auto dtype : {DType::F32, DType::F64}) {
                    auto a = attention(2, 6, 3, mode, kind);
                    a.bias.mask = mask;
                    a.bias.dtype = dtype;
                    const bool nan = mask.kind == MaskValue::Kind::NegInf;
                    const FullyMaskedRows fm = fullyMaskedRows(a);
                    EXPECT_EQ(fm.first, 0);
                    EXPECT_EQ(fm.count, 3);
                    EXPECT_EQ(fm.nan, nan);
                    auto t = computeAttention(a);
                    ASSERT_TRUE(t);
                    for (long h = 0; h < 2; ++h)
                        for (long i = 0; i < 6; ++i) {
                            auto row = attentionRow(a, h, i);
                            ASSERT_TRUE(row);
                            for (long j = 0; j < 3; ++j) {
                                const double v = t->at(static_cast<std::uint64_t>((h * 6 + i) * 3 + j));
                                const double r = (*row)[static_cast<std::size_t>(j)];
                                if (i < 3 && nan) {
                                    EXPECT_TRUE(std::isnan(v) && std::isnan(r)) << maskName(mask) << i;
                                } else if (i < 3) {
                                    EXPECT_NEAR(v, 1.0 / 3, 1e-7) << maskName(mask) << i;
                                    EXPECT_NEAR(r, 1.0 / 3, 1e-15);
                                } else {
                                    EXPECT_NEAR(v, r, 1e-6);
                                }
                            }
                        }
                }
    // Nothing is fully masked when K >= Q or the mode does not mask.
    EXPECT_EQ(fullyMaskedRows(attention(1, 4, 6)).count, 0);
    EXPECT_EQ(fullyMaskedRows(attention(1, 6, 3, BiasMode::Symmetric)).count, 0);
}

TEST(Masking, AFiniteMaskLeavesMassOnMaskedKeys) {
    // Issue 11's example: --heads 1 --seq 3 --mask -1 --content zero --dtype f64 gives row 0 =
    // softmax([0, -1, -1]) = [0.576, 0.212, 0.212], what HF and llm-foundry compute.
    for (auto dtype : {DType::F64, DType::F32}) {
        auto a = attention(1, 3);
        a.bias.mask = MaskValue{MaskValue::Kind::Finite, -1};
        a.bias.dtype = dtype;
        const double e = std::exp(-1.0);
        auto row = attentionRow(a, 0, 0);
        ASSERT_TRUE(row);
        EXPECT_NEAR((*row)[0], 1 / (1 + 2 * e), 1e-15);
        EXPECT_NEAR((*row)[1], e / (1 + 2 * e), 1e-15);
        EXPECT_NEAR((*row)[2], e / (1 + 2 * e), 1e-15);
        EXPECT_NEAR((*row)[0], 0.576, 5e-4);
        auto t = computeAttention(a);
        ASSERT_TRUE(t);
        for (long j = 0; j < 3; ++j)
            EXPECT_NEAR(t->at(static_cast<std::uint64_t>(j)), (*row)[static_cast<std::size_t>(j)], 1e-7);
        a.content.kind = ContentKind::Gaussian;
        expectTensorMatches(a, 1e-6);
    }
}

TEST(Masking, FloatAttentionKeepsSubnormals) {
    // Symmetric, slope 1, zero content: key j of row 0 has probability e^-j / Z, subnormal in
    // float for j in 88..103 (PyTorch's float softmax keeps these; the old kernel flushed them).
    auto a = attention(1, 110, 0, BiasMode::Symmetric);
    a.bias.slopes.scheme = SlopeScheme::Custom;
    a.bias.slopes.custom = {1.0};
    auto t = computeAttention(a);
    ASSERT_TRUE(t);
    const double z = 1 / (1 - std::exp(-1.0));
    for (long j = 88; j <= 102; ++j) {
        const double want = static_cast<double>(static_cast<float>(std::exp(-static_cast<double>(j)) / z));
        const double got = t->at(static_cast<std::uint64_t>(j));
        EXPECT_GT(got, 0.0) << j;
        EXPECT_LT(got, static_cast<double>(std::numeric_limits<float>::min())) << j;
        EXPECT_NEAR(got, want, want * 1e-3 + 2 * static_cast<double>(std::numeric_limits<float>::denorm_min())) << j;
    }
}

TEST(Masking, MaskValuesFarBelowTheLogitsAgree) {
    auto a = attention(4, 12, 0, BiasMode::Causal, ContentKind::Gaussian);
    auto base = computeAttention(a);
    ASSERT_TRUE(base);
    for (auto mask : {MaskValue{MaskValue::Kind::NegInf, 0}, MaskValue{MaskValue::Kind::Lowest, 0},
                      MaskValue{MaskValue::Kind::Finite, -10000}}) {
        a.bias.mask = mask;
        auto t = computeAttention(a);
        ASSERT_TRUE(t);
        EXPECT_EQ(std::memcmp(base->bytes(), t->bytes(), t->byteSize()), 0) << maskName(mask);
    }
}

TEST(Masking, StagesShowEachStep) {
    auto a = attention(2, 4, 0, BiasMode::Causal, ContentKind::Gaussian);
    a.content.temperature = 2;
    auto s = attentionStages(a, 1, 1);
    ASSERT_TRUE(s) << s.error().message;
    const double m = 1.0 / 256;  // H = 2: slopes 1/16, 1/256
    for (long j = 0; j < 4; ++j) {
        const auto uj = static_cast<std::size_t>(j);
        const double c = 1.0 * standardNormal(0, kStreamGaussian, static_cast<std::uint64_t>((4 + 1) * 4 + j));
        EXPECT_EQ(s->content[uj], c);
        const double bias = j <= 1 ? roundTo(DType::F32, -m * (1 - j)) : -1e9;
        EXPECT_DOUBLE_EQ(s->withBias[uj], c + bias);
        if (j <= 1)
            EXPECT_DOUBLE_EQ(s->masked[uj], (c + bias) / 2);
        else
            EXPECT_EQ(s->masked[uj], -1e9);  // the mask value itself, as masked_fill leaves it
    }
    auto row = attentionRow(a, 1, 1);
    ASSERT_TRUE(row);
    EXPECT_EQ(s->probabilities, *row);
}

TEST(Masking, OverflowingDtypeBiasIsHandled) {
    // Slope 1e5 in f16: every off-diagonal bias overflows to -inf, so each row puts all its
    // mass on the diagonal; the smallest temperature allowed keeps every float logit finite.
    auto a = attention(1, 5, 0, BiasMode::Symmetric);
    a.bias.slopes.scheme = SlopeScheme::Custom;
    a.bias.slopes.custom = {1e5};
    a.bias.dtype = DType::F16;
    auto t = computeAttention(a);
    ASSERT_TRUE(t);
    for (long i = 0; i < 5; ++i)
        for (long j = 0; j < 5; ++j) EXPECT_EQ(t->at(static_cast<std::uint64_t>(i * 5 + j)), i == j ? 1.0 : 0.0);
    auto b = attention(2, 6, 0, BiasMode::Causal, ContentKind::Gaussian);
    b.content.temperature = 1e-42;  // below the shared limit (params.hpp): refused since issue 16
    ASSERT_FALSE(computeAttention(b));
    b.content.temperature = kTemperatureRange.min;
    auto u = computeAttention(b);
    ASSERT_TRUE(u);
    for (std::uint64_t e = 0; e < u->size(); ++e) ASSERT_TRUE(std::isfinite(u->at(e)));
    for (long h = 0; h < 2; ++h)
        for (long i = 0; i < 6; ++i) {
            auto row = attentionRow(b, h, i);
            ASSERT_TRUE(row);
            for (long j = 0; j < 6; ++j)
                EXPECT_NEAR(u->at(static_cast<std::uint64_t>((h * 6 + i) * 6 + j)), (*row)[static_cast<std::size_t>(j)],
                            1e-6);
        }
}

// ---------------------------------------------------------------------------
// Dtypes and layouts

TEST(Output, HalfAndBFloat16AreRoundedProbabilities) {
    for (auto dtype : {DType::F16, DType::BF16}) {
        auto a = attention(3, 11, 0, BiasMode::Bloom, ContentKind::Qk);
        a.bias.dtype = dtype;
        auto t = computeAttention(a);
        ASSERT_TRUE(t);
        EXPECT_EQ(t->dtype(), dtype);
        for (long h = 0; h < 3; ++h)
            for (long i = 0; i < 11; ++i) {
                const auto want = testRow(a, h, i);
                for (long j = 0; j < 11; ++j) {
                    const double got = t->at(static_cast<std::uint64_t>((h * 11 + i) * 11 + j));
                    const double w = want[static_cast<std::size_t>(j)];
                    // One unit in the last place of the dtype at w, plus the float error.
                    const double ulp = dtype == DType::F16 ? std::ldexp(1.0, -10) : std::ldexp(1.0, -7);
                    EXPECT_NEAR(got, w, std::max(std::abs(w) * ulp, 1e-7)) << dtypeName(dtype);
                    EXPECT_EQ(got, roundTo(dtype, got));
                }
            }
    }
}

TEST(Output, EveryLayoutHoldsTheSameNumbers) {
    auto a = attention(3, 7, 9, BiasMode::Causal, ContentKind::Gaussian);
    auto hqk = computeAttention(a);
    ASSERT_TRUE(hqk);
    EXPECT_EQ(hqk->shape(), (Shape{3, 7, 9}));
    EXPECT_EQ(hqk->metadata.at("kind"), "attention");
    EXPECT_EQ(hqk->metadata.at("content"), "gaussian");
    EXPECT_EQ(hqk->metadata.at("mode"), "causal");
    EXPECT_TRUE(hqk->metadata.contains("seed") && hqk->metadata.contains("sigma") && hqk->metadata.contains("dk") &&
                hqk->metadata.contains("temperature"));
    for (auto layout : {Layout::Qkh, Layout::OneHqk, Layout::Flat}) {
        a.bias.layout = layout;
        auto t = computeAttention(a);
        ASSERT_TRUE(t);
        EXPECT_EQ(t->shape(), biasShape(a.bias));
        for (long h = 0; h < 3; ++h)
            for (long i = 0; i < 7; ++i)
                for (long j = 0; j < 9; ++j)
                    ASSERT_EQ(t->at(layoutIndex(layout, 3, 7, 9, h, i, j)),
                              hqk->at(static_cast<std::uint64_t>((h * 7 + i) * 9 + j)))
                        << layoutName(layout);
    }
    // qkh by hand: cell (i, j, h) at (i * K + j) * H + h.
    a.bias.layout = Layout::Qkh;
    auto qkh = computeAttention(a);
    ASSERT_TRUE(qkh);
    EXPECT_EQ(qkh->at((2 * 9 + 1) * 3 + 2), hqk->at((2 * 7 + 2) * 9 + 1));
}

// ---------------------------------------------------------------------------
// Budget, progress, cancellation

TEST(Limits, BudgetNamesTheAttentionTensor) {
    auto r = computeAttention(attention(8, 1024), 1000);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, ErrorCode::TooLarge);
    EXPECT_NE(r.error().message.find("attention tensor"), std::string::npos) << r.error().message;
}

TEST(Limits, ProgressInRowsAndCancel) {
    auto a = attention(4, 300, 0, BiasMode::Causal, ContentKind::Qk);
    std::uint64_t last = 0, total = 0;
    auto ok = computeAttention(a, kDefaultMemoryBudget, 2, [&](std::uint64_t done, std::uint64_t t) {
        EXPECT_GE(done, last);
        last = done;
        total = t;
        return true;
    });
    ASSERT_TRUE(ok);
    EXPECT_EQ(total, 4U * 300U);
    EXPECT_EQ(last, total);
    auto cancelled = computeAttention(a, kDefaultMemoryBudget, 2, [](std::uint64_t, std::uint64_t) { return false; });
    ASSERT_FALSE(cancelled);
    EXPECT_EQ(cancelled.error().code, ErrorCode::Cancelled);
}

// ---------------------------------------------------------------------------
// Fast path against the reference on many shapes

TEST(FastPath, MatchesTheReferenceOnManyShapes) {
    const BiasMode modes[] = {BiasMode::Causal, BiasMode::Symmetric, BiasMode::Clamped, BiasMode::Bloom, BiasMode::Mpt};
    struct Shape3 {
        long q, k;
    };
    const Shape3 shapes[] = {{1, 1}, {7, 7}, {33, 33}, {100, 100}, {7, 33}, {33, 7}, {1, 100}, {100, 1}};
    for (auto mode : modes)
        for (auto s : shapes)
            for (int dk : {1, 3, 64}) {
                auto a = attention(3, s.q, s.k, mode, ContentKind::Qk);
                a.content.dk = dk;
                a.content.seed = static_cast<std::uint64_t>(dk);
                auto t = computeAttention(a);
                ASSERT_TRUE(t);
                for (long h = 0; h < 3; ++h)
                    for (long i = 0; i < s.q; ++i) {
                        auto want = attentionRow(a, h, i);
                        ASSERT_TRUE(want);
                        for (long j = 0; j < s.k; ++j)
                            ASSERT_NEAR(t->at(static_cast<std::uint64_t>((h * s.q + i) * s.k + j)),
                                        (*want)[static_cast<std::size_t>(j)], 1e-5)
                                << modeName(mode) << " Q=" << s.q << " K=" << s.k << " dk=" << dk << " h=" << h
                                << " i=" << i << " j=" << j;
                    }
            }
}

TEST(FastPath, LongRowsMatchTheLiteralFormula) {
    // Rows longer than a vector and a block, every mode, checked against the test's own loops.
    for (auto mode : {BiasMode::Causal, BiasMode::Symmetric, BiasMode::Clamped, BiasMode::Bloom, BiasMode::Mpt}) {
        auto a = attention(2, 70, 1030, mode, ContentKind::Gaussian);
        a.content.sigma = 0.5;
        expectTensorMatches(a, 1e-5);
    }
}

// ---------------------------------------------------------------------------
// Streaming source

TEST(Source, StreamsTheSameBytesFromAnyOffset) {
    for (auto layout : {Layout::Hqk, Layout::Qkh})
        for (auto dtype : {DType::F32, DType::F16, DType::F64}) {
            auto a = attention(3, 70, 45, BiasMode::Causal, ContentKind::Qk);
            a.bias.layout = layout;
            a.bias.dtype = dtype;
            auto t = computeAttention(a);
            auto src = attentionSource(a);
            ASSERT_TRUE(t && src);
            EXPECT_EQ((*src)->shape(), t->shape());
            EXPECT_EQ((*src)->dtype(), dtype);
            EXPECT_EQ((*src)->metadata(), t->metadata);
            const std::size_t es = dtypeSize(dtype);
            std::vector<std::byte> out(t->byteSize());
            // Odd chunk lengths start reads in the middle of rows and of blocks.
            for (std::uint64_t first = 0; first < t->size();) {
                const std::uint64_t n = std::min<std::uint64_t>(997, t->size() - first);
                ASSERT_TRUE((*src)->read(first, n, out.data() + first * es));
                first += n;
            }
            EXPECT_EQ(std::memcmp(out.data(), t->bytes(), out.size()), 0)
                << layoutName(layout) << " " << dtypeName(dtype);
            EXPECT_FALSE((*src)->read(t->size() - 1, 2, out.data()));
        }
}

TEST(Source, WholeBlockChunksAreComputedInPlaceWithTheSameBytes) {
    // The exporter's chunks (preferredChunk) cover whole blocks, which read() computes straight
    // into the buffer; a Q that is not a multiple of the block rows leaves short blocks at the
    // end of each head, and chunk sizes that are not multiples mix both paths.
    for (auto dtype : {DType::F32, DType::F64, DType::BF16})
        for (long q : {600L, 70L}) {
            auto a = attention(3, q, 600, BiasMode::Causal, ContentKind::Qk);
            a.content.dk = 5;
            a.bias.dtype = dtype;
            auto t = computeAttention(a);
            auto src = attentionSource(a, 2);
            ASSERT_TRUE(t && src);
            const std::size_t es = dtypeSize(dtype);
            for (std::uint64_t chunk : {(*src)->preferredChunk(), std::uint64_t{600 * 218 * 2 + 600}}) {
                std::vector<std::byte> out(t->byteSize());
                for (std::uint64_t first = 0; first < t->size();) {
                    const std::uint64_t n = std::min(chunk, t->size() - first);
                    ASSERT_TRUE((*src)->read(first, n, out.data() + first * es));
                    first += n;
                }
                EXPECT_EQ(std::memcmp(out.data(), t->bytes(), out.size()), 0)
                    << dtypeName(dtype) << " Q=" << q << " chunk " << chunk;
            }
        }
}
