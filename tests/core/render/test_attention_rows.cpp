// Picture rows whose key vectors are too large to cache (K x d_k floats above a quarter of the
// key cache) are computed with the keys drawn panel by panel: the rows must still be the
// attention's rows (the double reference, within float rounding).
#include "attention_rows.hpp"

#include <alibi/model/attention.hpp>
#include <alibi/model/bias.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

using namespace alibi;

TEST(PictureRows, UncachedKeysGiveTheReferenceRows) {
    AttentionParams p;
    p.bias.slopes.heads = 2;
    p.bias.queries = 8192;  // 8192 keys x d_k 1024 x 4 bytes = 32 MiB of keys per head: not cached
    p.content.kind = ContentKind::Qk;
    p.content.dk = 1024;
    auto slopes = validateAttention(p);
    ASSERT_TRUE(slopes) << slopes.error().message;
    detail::PictureRows rows(p, *slopes);
    EXPECT_GT(rows.chunkRows(), 64);  // uncached keys: more rows per call share one draw of the keys
    const std::vector<std::int64_t> queries{0, 1000, 8191};
    std::vector<float> out(queries.size() * 8192);
    rows.compute(1, queries, out);
    for (std::size_t r = 0; r < queries.size(); ++r) {
        auto ref = attentionRow(p, 1, queries[r]);
        ASSERT_TRUE(ref) << ref.error().message;
        double worst = 0;
        for (std::int64_t j = 0; j < 8192; ++j)
            worst = std::max(
                worst, std::fabs(out[r * 8192 + static_cast<std::size_t>(j)] - (*ref)[static_cast<std::size_t>(j)]));
        EXPECT_LT(worst, 2e-5) << "query " << queries[r];
    }
}

// A preview's rows (keyStep > 1): key j takes the q.k logit of key s * floor(j / s), every key
// keeps its exact bias, and the softmax runs over every allowed key. Computed here from the
// reference's single content logits and bias cells, in double.
TEST(PictureRows, KeyStepSharesOneSampledKeysContentWithItsNeighbours) {
    AttentionParams p;
    p.bias.slopes.heads = 2;
    p.bias.queries = 500;  // not a multiple of the key step
    p.content.kind = ContentKind::Qk;
    p.content.dk = 64;
    p.content.temperature = 1.5;
    auto slopes = validateAttention(p);
    ASSERT_TRUE(slopes) << slopes.error().message;
    constexpr int kStep = 8;
    detail::PictureRows rows(p, *slopes, kStep);
    const std::vector<std::int64_t> queries{0, 7, 8, 250, 499};
    const std::int64_t K = 500;
    std::vector<float> out(queries.size() * K);
    const int head = 1;
    rows.compute(head, queries, out);
    const double slope = (*slopes)[head];
    for (std::size_t r = 0; r < queries.size(); ++r) {
        const std::int64_t i = queries[r];
        std::vector<double> logit(static_cast<std::size_t>(i + 1));
        double max = -INFINITY;
        for (std::int64_t j = 0; j <= i; ++j) {
            const double content = contentLogit(p, head, i, kStep * (j / kStep));
            logit[static_cast<std::size_t>(j)] = (content + biasValue(p.bias, slope, head, i, j)) / 1.5;
            max = std::max(max, logit[static_cast<std::size_t>(j)]);
        }
        double sum = 0;
        for (double& v : logit) sum += (v = std::exp(v - max));
        double worst = 0;
        for (std::int64_t j = 0; j < K; ++j) {
            const double want = j <= i ? logit[static_cast<std::size_t>(j)] / sum : 0.0;
            worst = std::max(worst, std::fabs(out[r * K + static_cast<std::size_t>(j)] - want));
        }
        EXPECT_LT(worst, 2e-5) << "query " << i;
    }
    // keyStep 1 is the exact row.
    detail::PictureRows exact(p, *slopes, 1);
    std::vector<float> row(static_cast<std::size_t>(K));
    const std::vector<std::int64_t> last{499};
    exact.compute(head, last, row);
    auto ref = attentionRow(p, head, 499);
    ASSERT_TRUE(ref);
    for (std::int64_t j = 0; j < K; ++j)
        EXPECT_NEAR(row[static_cast<std::size_t>(j)], (*ref)[static_cast<std::size_t>(j)], 2e-5);
}
