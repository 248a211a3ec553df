// Picture rows whose key vectors are too large to cache (K x d_k floats above a quarter of the
// key cache) are computed with the keys drawn panel by panel: the rows must still be the
// attention's rows (the double reference, within float rounding).
#include "attention_rows.hpp"

#include <alibi/model/attention.hpp>

#include <gtest/gtest.h>

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
