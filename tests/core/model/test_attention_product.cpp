// Tests of the fast row kernels of the qk attention path. The packed logits product
// (model/attention_product.hpp): every element is the same
// chain of fused multiply-adds as the plain loop, so the two agree bit for bit on odd sizes,
// tails of rows and key panels included, and nothing past n keys of a row is written. The
// softmax row passes: each implementation this CPU runs against double arithmetic.
#include "attention_product.hpp"

#include <alibi/model/attention.hpp>

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

using namespace alibi;

namespace {

std::vector<float> draws(std::uint64_t stream, std::size_t n) {
    std::vector<float> v(n);
    for (std::size_t k = 0; k < n; ++k) v[k] = static_cast<float>(standardNormal(1, stream, k));
    return v;
}

}  // namespace

TEST(LogitsProduct, PackedKernelEqualsThePlainFusedLoopBitForBit) {
    if (!detail::packedProductRuns()) GTEST_SKIP() << "no AVX-512 on this CPU: the product goes to gemmNT";
    for (const std::int64_t dk : {1, 3, 16, 64, 67})
        for (const std::int64_t m : {1, 2, 3, 4, 5, 7, 9})
            for (const std::int64_t n : {1, 15, 16, 17, 63, 64, 65, 100, 129}) {
                const std::int64_t ldc = n + 5;
                const auto q = draws(2, static_cast<std::size_t>(m * dk));
                const auto k = draws(3, static_cast<std::size_t>(n * dk));
                std::vector<float> packed(detail::packedKeysSize(n, dk));
                detail::packKeys(k.data(), n, dk, packed.data());
                std::vector<float> got(static_cast<std::size_t>(m * ldc), -7.0f), want(got.size(), -7.0f);
                detail::packedProduct(m, n, dk, q.data(), packed.data(), got.data(), ldc);
                detail::plainProduct(m, n, dk, q.data(), k.data(), want.data(), ldc);
                ASSERT_EQ(std::memcmp(got.data(), want.data(), got.size() * sizeof(float)), 0)
                    << "m " << m << " n " << n << " dk " << dk;
                // The guard values past n in each row are untouched (the stride's gap).
                for (std::int64_t i = 0; i < m; ++i) ASSERT_EQ(got[static_cast<std::size_t>(i * ldc + n)], -7.0f);
            }
}

TEST(LogitsProduct, PackingKeysFromAPanelBoundaryMatchesPackingTheWholeHead) {
    const std::int64_t n = 70, dk = 5;
    const auto k = draws(3, static_cast<std::size_t>(n * dk));
    std::vector<float> whole(detail::packedKeysSize(n, dk)), parts(whole.size());
    detail::packKeys(k.data(), n, dk, whole.data());
    detail::packKeys(k.data(), 32, dk, parts.data());
    detail::packKeys(k.data() + 32 * dk, n - 32, dk, parts.data() + 32 * dk);
    EXPECT_EQ(whole, parts);
    EXPECT_EQ(detail::packedKeysSize(n, dk), static_cast<std::size_t>(80 * dk));
}

// ---------------------------------------------------------------------------
// The softmax row passes (model/attention_kernel.hpp): every implementation this CPU runs
// (AVX-512, AVX2 + FMA, generic), against double arithmetic, on odd lengths (vector tails).

#include <alibi/model/detail/attention_kernel.hpp>

#include <cmath>
#include <limits>

TEST(SoftmaxKernels, EveryImplementationAgreesWithDoubleArithmeticOnOddLengths) {
    const float alpha = 0.125f;
    for (const auto& k : detail::runnableSoftmaxKernels()) {
        for (const std::int64_t n : {1, 3, 7, 8, 9, 15, 16, 17, 31, 33, 100, 1001}) {
            const auto content = draws(5, static_cast<std::size_t>(n));
            auto bias = draws(6, static_cast<std::size_t>(n));
            const bool masked = n >= 3;  // a -inf key, never the only one (the maximum must be finite)
            if (masked) bias[static_cast<std::size_t>(n / 2)] = -std::numeric_limits<float>::infinity();
            for (const bool withContent : {false, true}) {
                std::vector<float> row(static_cast<std::size_t>(n) + 1, -7.0f);
                const float max =
                    k.logitsMax(row.data(), withContent ? content.data() : nullptr, alpha, bias.data(), n);
                double wantMax = -INFINITY;
                std::vector<double> logits(static_cast<std::size_t>(n));
                for (std::int64_t j = 0; j < n; ++j) {
                    const auto x = static_cast<std::size_t>(j);
                    logits[x] = withContent ? std::fma(content[x], alpha, bias[x]) : bias[x];
                    ASSERT_EQ(row[x], static_cast<float>(logits[x])) << k.name << " n " << n << " j " << j;
                    wantMax = std::max(wantMax, logits[x]);
                }
                ASSERT_EQ(max, static_cast<float>(wantMax)) << k.name << " n " << n;
                const double sum = k.expSum(row.data(), max, n);
                double wantSum = 0;
                for (std::int64_t j = 0; j < n; ++j) {
                    const auto x = static_cast<std::size_t>(j);
                    const double e = std::exp(static_cast<double>(static_cast<float>(logits[x]) - max));
                    wantSum += e;
                    ASSERT_NEAR(row[x], e, 2e-7 * e + 1e-45) << k.name << " n " << n << " j " << j;
                }
                if (masked) {
                    EXPECT_EQ(row[static_cast<std::size_t>(n / 2)], 0.0f) << k.name;  // -inf gives exactly 0
                }
                ASSERT_NEAR(sum, wantSum, 1e-6 * wantSum) << k.name << " n " << n;
                const std::vector<float> before = row;
                k.scaleRow(row.data(), 0.5f, n);
                for (std::int64_t j = 0; j < n; ++j)
                    ASSERT_EQ(row[static_cast<std::size_t>(j)], before[static_cast<std::size_t>(j)] * 0.5f) << k.name;
                ASSERT_EQ(row[static_cast<std::size_t>(n)], -7.0f) << k.name << ": wrote past the end";
            }
        }
    }
}
