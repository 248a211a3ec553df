// Tests of the Gaussian generator: recipe 2 (own polynomials) against the recipe written out
// here, bit for bit, for every kernel this CPU runs (scalar, AVX2, AVX-512), float and double,
// at odd offsets and sizes; its accuracy against the C library; recipe 1 kept for old sessions.
#include <alibi/model/attention.hpp>

#include <alibi/model/detail/attention_detail.hpp>
#include "generator_reference.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <numbers>
#include <vector>

using namespace alibi;

namespace alibi::test {

namespace {

// The coefficients as decimal numbers, computed apart from the code under test: exact rational
// arithmetic in Python (fractions, pi to 60 digits), rounded once to the nearest double.
constexpr double kLogCoefficients[11] = {2.0,
                                         0.6666666666666666,
                                         0.4,
                                         0.2857142857142857,
                                         0.2222222222222222,
                                         0.18181818181818182,
                                         0.15384615384615385,
                                         0.13333333333333333,
                                         0.11764705882352941,
                                         0.10526315789473684,
                                         0.09523809523809523};
constexpr double kSinCoefficients[9] = {1.5707963267948966,    -0.6459640975062463,    0.07969262624616705,
                                        -0.004681754135318688, 0.00016044118478735983, -3.598843235212085e-06,
                                        5.692172921967927e-08, -6.688035109811468e-10, 6.0669357311061955e-12};
constexpr double kCosCoefficients[10] = {1.0,
                                         -1.2337005501361697,
                                         0.25366950790104803,
                                         -0.02086348076335296,
                                         0.0009192602748394266,
                                         -2.5202042373060607e-05,
                                         4.710874778818172e-07,
                                         -6.386603083791852e-09,
                                         6.565963114979473e-11,
                                         -5.294400200734623e-13};
constexpr double kLn2High = 0.6931467056274414;  // ln 2 to 21 significant bits
constexpr double kLn2Low = 4.7493250390316726e-07;

std::uint64_t streamKey(std::uint64_t seed, std::uint64_t stream) {
    return splitMix64(splitMix64(seed) + stream);
}

double logRecipe(double u) {
    int e = 0;
    double m = std::frexp(u, &e);  // u = m 2^e, m in [1/2, 1)
    m = m * 2;
    e = e - 1;
    if (m > std::sqrt(2.0)) {
        m = m / 2;
        e = e + 1;
    }
    const double s = (m - 1) / (m + 1);
    double p = 0;
    for (int k = 10; k >= 0; --k) p = p * (s * s) + kLogCoefficients[k];
    const double de = e;
    return de * kLn2High + (de * kLn2Low + s * p);
}

}  // namespace

double referenceNormal(std::uint64_t seed, std::uint64_t stream, std::uint64_t index, int generator) {
    const std::uint64_t n = index / 2;
    const double u1 = uniform01(seed, stream, 2 * n);
    if (generator == 1) {
        const double u2 = uniform01(seed, stream, 2 * n + 1);
        const double r = std::sqrt(-2.0 * std::log(u1)), t = 2.0 * std::numbers::pi * u2;
        return index % 2 == 0 ? r * std::cos(t) : r * std::sin(t);
    }
    const double r = std::sqrt(-2 * logRecipe(u1));
    const std::uint64_t b2 = splitMix64(streamKey(seed, stream) + 2 * n + 1) >> 11;
    const std::uint64_t k = (b2 + (std::uint64_t{1} << 50)) >> 51;
    const double f =
        std::ldexp(static_cast<double>(static_cast<std::int64_t>(b2) - static_cast<std::int64_t>(k << 51)), -51);
    double S = 0, C = 0;
    for (int j = 8; j >= 0; --j) S = S * (f * f) + kSinCoefficients[j];
    S = f * S;
    for (int j = 9; j >= 0; --j) C = C * (f * f) + kCosCoefficients[j];
    const double cosT[4] = {C, -S, -C, S};
    const double sinT[4] = {S, C, -S, -C};
    return index % 2 == 0 ? r * cosT[k % 4] : r * sinT[k % 4];
}

}  // namespace alibi::test

namespace {

using alibi::test::referenceNormal;
using detail::GeneratorKernel;

template <class T>
bool sameBits(T a, T b) {
    return std::memcmp(&a, &b, sizeof(T)) == 0;
}

template <class T>
void expectKernelMatchesReference(GeneratorKernel kernel) {
    const std::uint64_t firsts[] = {0, 1, 2, 7, 8, 1001, (std::uint64_t{1} << 40) + 3};
    const std::uint64_t counts[] = {0, 1, 2, 3, 7, 15, 16, 17, 31, 33, 64, 100, 1001};
    for (const double scale : {1.0, 0.37, 3.0}) {
        for (const auto first : firsts) {
            for (const auto count : counts) {
                std::vector<T> got(count + 1, T(-7));  // one guard value past the end
                detail::fillNormalsWith(kernel, 12345, kStreamKeys, first, count, scale, got.data(), 2);
                for (std::uint64_t k = 0; k < count; ++k) {
                    const T want = static_cast<T>(scale * referenceNormal(12345, kStreamKeys, first + k, 2));
                    ASSERT_TRUE(sameBits(got[k], want))
                        << detail::generatorKernelName(kernel) << " first " << first << " count " << count << " k " << k
                        << ": " << got[k] << " != " << want;
                }
                ASSERT_EQ(got[count], T(-7)) << "wrote past the end";
            }
        }
    }
}

}  // namespace

TEST(Generator, EveryKernelGivesTheRecipeBitForBit) {
    for (const auto kernel : {GeneratorKernel::Scalar, GeneratorKernel::Avx2, GeneratorKernel::Avx512}) {
        if (!detail::generatorKernelRuns(kernel)) {
            std::printf("generator kernel %s: not supported by this CPU, not tested\n",
                        detail::generatorKernelName(kernel));
            continue;
        }
        expectKernelMatchesReference<float>(kernel);
        expectKernelMatchesReference<double>(kernel);
    }
}

TEST(Generator, StandardNormalFollowsBothRecipes) {
    for (std::uint64_t index = 0; index < 4000; ++index) {
        for (const std::uint64_t seed : {0ULL, 42ULL, ~0ULL}) {
            ASSERT_TRUE(sameBits(standardNormal(seed, kStreamGaussian, index),
                                 referenceNormal(seed, kStreamGaussian, index, 2)))
                << index;
            ASSERT_TRUE(sameBits(standardNormal(seed, kStreamGaussian, index, 1),
                                 referenceNormal(seed, kStreamGaussian, index, 1)))
                << index;
        }
    }
}

TEST(Generator, PolynomialRecipeAgreesWithTheLibraryFunctions) {
    // The two recipes draw the same uniforms; they differ only in the rounding of log, sin and
    // cos (and in the angle of b2 = 0, which never comes up here), so a wrong coefficient,
    // quarter or sign shows up as a large difference.
    double worst = 0;
    for (std::uint64_t index = 0; index < 400000; ++index) {
        const double a = standardNormal(5, kStreamQueries, index, 2), b = standardNormal(5, kStreamQueries, index, 1);
        worst = std::max(worst, std::abs(a - b) / std::max(1.0, std::abs(b)));
    }
    EXPECT_LT(worst, 1e-14);
    EXPECT_GT(worst, 0.0);  // the recipes do differ, which is why recipe 1 is kept for old sessions
}

TEST(Generator, CoefficientsAreTheSeriesRounded) {
    // A check of the decimal tables above against long double arithmetic (within one ulp).
    using namespace alibi::test;
    const long double h = std::numbers::pi_v<long double> / 2;
    long double sine = h, cosine = 1;
    for (int k = 0; k < 10; ++k) {
        if (k < 9) {
            EXPECT_NEAR(kSinCoefficients[k], static_cast<double>(sine), std::abs(static_cast<double>(sine)) * 0x1p-52)
                << k;
        }
        EXPECT_NEAR(kCosCoefficients[k], static_cast<double>(cosine), std::abs(static_cast<double>(cosine)) * 0x1p-52)
            << k;
        sine = -sine * h * h / ((2 * k + 2) * (2 * k + 3));
        cosine = -cosine * h * h / ((2 * k + 1) * (2 * k + 2));
    }
    for (int k = 0; k < 11; ++k) EXPECT_EQ(kLogCoefficients[k], 2.0 / (2 * k + 1)) << k;  // division rounds once
    EXPECT_NEAR(static_cast<double>(static_cast<long double>(kLn2High) + kLn2Low), std::numbers::ln2, 0x1p-53);
}
