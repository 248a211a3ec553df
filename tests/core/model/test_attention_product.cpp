// Tests of the packed logits product (model/attention_product.hpp): every element is the same
// chain of fused multiply-adds as the plain loop, so the two agree bit for bit on odd sizes,
// tails of rows and key panels included, and nothing past n keys of a row is written.
#include "model/attention_product.hpp"

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
