// Tests for <alibi/stats.hpp>: row statistics on hand-made rows, half-lives, and per-head
// statistics against averages computed here from attentionRow.
#include <alibi/model/attention.hpp>
#include <alibi/model/bias.hpp>
#include <alibi/model/slopes.hpp>
#include <alibi/model/stats.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <vector>

using namespace alibi;

namespace {

StatsParams statsParams(int heads, long q, long k = 0, BiasMode mode = BiasMode::Causal) {
    StatsParams s;
    s.attention.bias.slopes.heads = heads;
    s.attention.bias.queries = q;
    s.attention.bias.keys = k;
    s.attention.bias.mode = mode;
    return s;
}

// The zero-content row straight from the bias tensor's values: softmax over the whole row,
// masked keys at the mask value (independent of the closed form under test).
std::vector<double> directRow(const AttentionParams& a, const Tensor& bias, int h, long i) {
    const long K = a.bias.keyCount(), Q = a.bias.queries;
    std::vector<double> x(static_cast<std::size_t>(K));
    double max = -INFINITY;
    for (long j = 0; j < K; ++j) {
        const double b = bias.at(static_cast<std::uint64_t>((h * Q + i) * K + j));
        const bool masked = modeMasks(a.bias.mode) && j > i + K - Q;
        x[static_cast<std::size_t>(j)] = masked ? b : b / a.content.temperature;
        max = std::max(max, x[static_cast<std::size_t>(j)]);
    }
    double sum = 0;
    for (auto& v : x) sum += v = std::exp(v - max);
    for (auto& v : x) v /= sum;
    return x;
}

}  // namespace

TEST(Stats, ZeroContentClosedFormMatchesTheDirectRows) {
    // f64 zero content takes the closed form; every sampled row's statistics must equal
    // rowStats of the direct softmax (distances exactly, the rest to 1e-10 relative).
    for (auto mode : {BiasMode::Causal, BiasMode::Symmetric, BiasMode::Clamped, BiasMode::Bloom, BiasMode::Mpt})
        for (long k : {0L, 7L, 300L})
            for (auto mask : {MaskValue{}, MaskValue{MaskValue::Kind::Finite, -2}}) {
                auto s = statsParams(5, 120, k, mode);
                s.attention.bias.dtype = DType::F64;
                s.attention.bias.mask = mask;
                s.attention.content.temperature = 1.7;
                s.maxRows = 1000;
                auto r = computeStats(s, 2);
                ASSERT_TRUE(r) << r.error().message;
                auto bias = buildBias(s.attention.bias);
                ASSERT_TRUE(bias);
                const long K = s.attention.bias.keyCount();
                long first = 0;
                if (modeMasks(mode)) first = std::max(0L, 120 - K);
                ASSERT_EQ(r->rowsAveraged, 120 - first);
                for (int h = 0; h < 5; ++h) {
                    RowStats mean;
                    for (long i = first; i < 120; ++i) {
                        const RowStats want = rowStats(directRow(s.attention, *bias, h, i), i + K - 120);
                        mean.entropy += want.entropy / static_cast<double>(120 - first);
                        mean.meanDistance += want.meanDistance / static_cast<double>(120 - first);
                        mean.distance50 += want.distance50 / static_cast<double>(120 - first);
                        mean.distance90 += want.distance90 / static_cast<double>(120 - first);
                        if (i == 119) {
                            EXPECT_NEAR(r->heads[h].row.entropy, want.entropy, 1e-10 * (1 + want.entropy));
                            EXPECT_NEAR(r->heads[h].row.meanDistance, want.meanDistance,
                                        1e-10 * (1 + want.meanDistance));
                            EXPECT_EQ(r->heads[h].row.distance50, want.distance50);
                            EXPECT_EQ(r->heads[h].row.distance90, want.distance90);
                        }
                    }
                    EXPECT_NEAR(r->heads[h].mean.entropy, mean.entropy, 1e-10 * (1 + mean.entropy))
                        << modeName(mode) << k;
                    EXPECT_NEAR(r->heads[h].mean.meanDistance, mean.meanDistance, 1e-10 * (1 + mean.meanDistance));
                    EXPECT_NEAR(r->heads[h].mean.distance50, mean.distance50, 1e-9);
                    EXPECT_NEAR(r->heads[h].mean.distance90, mean.distance90, 1e-9);
                }
            }
}

TEST(RowStats, UniformRowHasEntropyLnN) {
    for (int n : {1, 2, 5, 100}) {
        std::vector<double> p(static_cast<std::size_t>(n), 1.0 / n);
        EXPECT_NEAR(rowStats(p, n - 1).entropy, std::log(static_cast<double>(n)), 1e-12) << n;
    }
}

TEST(RowStats, HandMadeRow) {
    // Query at position 3 over keys 0..3: distances 3, 2, 1, 0.
    const std::vector<double> p = {0.1, 0.2, 0.3, 0.4};
    const RowStats s = rowStats(p, 3);
    EXPECT_NEAR(s.entropy, -(0.1 * std::log(0.1) + 0.2 * std::log(0.2) + 0.3 * std::log(0.3) + 0.4 * std::log(0.4)),
                1e-12);
    EXPECT_NEAR(s.meanDistance, 0.1 * 3 + 0.2 * 2 + 0.3 * 1, 1e-12);
    EXPECT_EQ(s.distance50, 1.0);  // 0.4 at d = 0, 0.7 at d = 1
    EXPECT_EQ(s.distance90, 2.0);  // 0.9 at d = 2
}

TEST(RowStats, KeysOnBothSidesAndZeros) {
    // Query at position 2 of 5 keys: d = 1 collects keys 1 and 3.
    const std::vector<double> p = {0.0, 0.25, 0.2, 0.25, 0.3};
    const RowStats s = rowStats(p, 2);
    EXPECT_EQ(s.distance50, 1.0);  // 0.2, then 0.7
    EXPECT_EQ(s.distance90, 2.0);  // then 1.0
    EXPECT_NEAR(s.meanDistance, 0.25 + 0.25 + 0.3 * 2, 1e-12);
    const std::vector<double> zeros(4, 0.0);
    const RowStats z = rowStats(zeros, 3);
    EXPECT_EQ(z.entropy, 0.0);
    EXPECT_EQ(z.meanDistance, 0.0);
    EXPECT_EQ(z.distance50, 0.0);
    EXPECT_EQ(z.distance90, 0.0);
}

TEST(Stats, SlopesAndHalfLives) {
    auto r = computeStats(statsParams(8, 16));
    ASSERT_TRUE(r) << r.error().message;
    ASSERT_EQ(r->heads.size(), 8U);
    for (int h = 0; h < 8; ++h) {
        const double m = std::ldexp(1.0, -(h + 1));
        EXPECT_EQ(r->heads[h].head, h);
        EXPECT_EQ(r->heads[h].slope, m);
        EXPECT_NEAR(r->heads[h].halfLife, std::numbers::ln2 / m, 1e-12);
    }
}

TEST(Stats, RowAndMeanMatchTheRows) {
    auto s = statsParams(4, 20, 0, BiasMode::Symmetric);
    s.attention.content.kind = ContentKind::Gaussian;
    s.queryRow = 7;
    auto r = computeStats(s, 2);
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(r->queryRow, 7);
    EXPECT_EQ(r->rowsAveraged, 20);
    for (int h = 0; h < 4; ++h) {
        auto row = attentionRow(s.attention, h, 7);
        ASSERT_TRUE(row);
        const RowStats want = rowStats(*row, 7);
        EXPECT_DOUBLE_EQ(r->heads[h].row.entropy, want.entropy);
        EXPECT_DOUBLE_EQ(r->heads[h].row.distance90, want.distance90);
        double entropy = 0, dist = 0;
        for (long i = 0; i < 20; ++i) {
            const RowStats rs = rowStats(*attentionRow(s.attention, h, i), i);
            entropy += rs.entropy;
            dist += rs.meanDistance;
        }
        EXPECT_NEAR(r->heads[h].mean.entropy, entropy / 20, 1e-12);
        EXPECT_NEAR(r->heads[h].mean.meanDistance, dist / 20, 1e-12);
    }
}

TEST(Stats, LastRowByDefaultAndSampling) {
    auto s = statsParams(2, 50);
    s.maxRows = 5;
    auto r = computeStats(s, 1);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->queryRow, 49);
    EXPECT_EQ(r->rowsAveraged, 5);
    // Zero content, causal, H = 2 (m = 1/16 for head 0): a steep head attends locally.
    EXPECT_LT(r->heads[0].row.distance50, r->heads[1].row.distance50);
    auto two = computeStats(s, 2);
    ASSERT_TRUE(two);
    EXPECT_EQ(two->heads[0].mean.entropy, r->heads[0].mean.entropy);
}

TEST(Stats, FullyMaskedRowsAreLeftOutOfTheMean) {
    auto r = computeStats(statsParams(1, 6, 3));
    ASSERT_TRUE(r);
    EXPECT_EQ(r->rowsAveraged, 3);
    EXPECT_GT(r->heads[0].mean.entropy, 0.0);
}

TEST(Stats, BadQueryAndCancel) {
    auto s = statsParams(2, 10);
    s.queryRow = 10;
    auto r = computeStats(s);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, ErrorCode::InvalidArgument);
    EXPECT_NE(r.error().message.find("--query"), std::string::npos);
    s.queryRow = -2;
    EXPECT_FALSE(computeStats(s));
    s.queryRow = -1;
    auto c = computeStats(s, 1, [](std::uint64_t, std::uint64_t) { return false; });
    ASSERT_FALSE(c);
    EXPECT_EQ(c.error().code, ErrorCode::Cancelled);
}

TEST(Stats, EvenlySpacedPicksRunFromTheFirstToTheLastCandidate) {
    EXPECT_EQ(evenlySpacedPicks(10, 4), (std::vector<std::int64_t>{0, 3, 6, 9}));
    EXPECT_EQ(evenlySpacedPicks(5, 8), (std::vector<std::int64_t>{0, 1, 2, 3, 4}));
    EXPECT_EQ(evenlySpacedPicks(5, 1), (std::vector<std::int64_t>{4}));
    EXPECT_TRUE(evenlySpacedPicks(0, 3).empty());
}

TEST(Stats, MeanRowStatsAveragesEachField) {
    const std::vector<RowStats> rows{{1.0, 2.0, 3.0, 4.0}, {3.0, 4.0, 5.0, 8.0}};
    const RowStats mean = meanRowStats(rows);
    EXPECT_EQ(mean.entropy, 2.0);
    EXPECT_EQ(mean.meanDistance, 3.0);
    EXPECT_EQ(mean.distance50, 4.0);
    EXPECT_EQ(mean.distance90, 6.0);
    EXPECT_EQ(meanRowStats({}).entropy, 0.0);
}

// The rows a mean averages when none is asked for: 256, or 2^23 / (H x K x cost of a cell)
// when that is fewer (a q.k cell costs d_k), at least 1; the same rule in every front end.
TEST(Stats, RowsAveragedFollowOneRuleWhenNoneIsAsked) {
    auto zero = statsParams(8, 128);
    EXPECT_EQ(statsRowsToAverage(zero), 256);  // 2^23 / (8 x 128) = 8192, capped at 256
    auto qk = statsParams(4, 512);
    qk.attention.content.kind = ContentKind::Qk;
    qk.attention.content.dk = 64;
    EXPECT_EQ(statsRowsToAverage(qk), 64);  // 2^23 / (4 x 512 x 64)
    auto heavy = statsParams(8, 65536);
    heavy.attention.content.kind = ContentKind::Qk;
    heavy.attention.content.dk = 4096;
    EXPECT_EQ(statsRowsToAverage(heavy), 1);
    qk.maxRows = 5;
    EXPECT_EQ(statsRowsToAverage(qk), 5);  // an explicit count wins

    qk.maxRows = 0;
    auto r = computeStats(qk, 2);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->rowsAveraged, 64);
    auto small = computeStats(statsParams(2, 300), 2);
    ASSERT_TRUE(small);
    EXPECT_EQ(small->rowsAveraged, 256);
}
