// The fit's per-row pass: the vector path (whichever this CPU takes) against the plain loops,
// on odd lengths, causal and bidirectional rows, queries before the keys, zeros and sinks;
// and the plain loops against totals written out from the definitions.
#include "row_summary.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace {

using alibi::detail::RowTotals;

std::vector<double> randomRow(std::size_t keys, std::mt19937_64& rng, double zeroChance) {
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::vector<double> p(keys);
    double sum = 0;
    for (double& v : p) sum += (v = u(rng) < zeroChance ? 0.0 : std::pow(u(rng), 4));
    if (sum > 0)
        for (double& v : p) v /= sum;
    return p;
}

TEST(RowSummary, VectorPathMatchesTheLoops) {
    std::mt19937_64 rng(7);
    for (const std::size_t keys : {1UL, 2UL, 3UL, 7UL, 8UL, 9UL, 15UL, 16UL, 17UL, 31UL, 64UL, 100UL, 257UL}) {
        for (const bool causal : {true, false}) {
            std::vector<std::int64_t> positions{0, static_cast<std::int64_t>(keys) - 1,
                                                static_cast<std::int64_t>(keys) / 2};
            if (!causal) positions.push_back(-3);  // more queries than keys: a query before them all
            for (const std::int64_t i : positions) {
                for (const double zeros : {0.0, 0.3}) {
                    std::vector<double> p = randomRow(keys, rng, zeros);
                    if (causal)  // a causal row has no mass after its query
                        for (std::size_t j = static_cast<std::size_t>(i) + 1; j < keys; ++j) p[j] = 0;
                    std::vector<double> fast(keys, 0.5), slow(keys, 0.5);  // a profile already holding mass
                    const RowTotals a = alibi::detail::summariseRow(p, i, causal, fast);
                    const RowTotals b = alibi::detail::summariseRowReference(p, i, causal, slow);
                    const auto where = ::testing::Message() << "keys " << keys << " i " << i << " causal " << causal;
                    EXPECT_NEAR(a.mass, b.mass, 1e-14) << where;
                    EXPECT_NEAR(a.entropy, b.entropy, 1e-13 * std::max(1.0, b.entropy)) << where;
                    EXPECT_NEAR(a.distance, b.distance, 1e-13 * std::max(1.0, b.distance)) << where;
                    EXPECT_EQ(a.distance90, b.distance90) << where;
                    for (std::size_t d = 0; d < keys; ++d) EXPECT_NEAR(fast[d], slow[d], 1e-15) << where << " d " << d;
                }
            }
        }
    }
}

TEST(RowSummary, TotalsFromTheDefinitions) {
    // Causal query at i = 3 over 6 keys: p = (0.4, 0, 0.1, 0.5) on keys 0..3, distances 3, 2, 1, 0.
    const std::vector<double> p{0.4, 0.0, 0.1, 0.5, 0.0, 0.0};
    std::vector<double> profile(6, 0.0);
    const RowTotals t = alibi::detail::summariseRow(p, 3, true, profile);
    EXPECT_DOUBLE_EQ(t.mass, 1.0);
    EXPECT_NEAR(t.entropy, -(0.4 * std::log(0.4) + 0.1 * std::log(0.1) + 0.5 * std::log(0.5)), 1e-15);
    EXPECT_NEAR(t.distance, 0.4 * 3 + 0.1 * 1, 1e-15);
    EXPECT_EQ(t.distance90, 3);  // 0.5 at d 0, 0.6 by d 1 and 2, 1.0 at d 3
    EXPECT_EQ(profile, (std::vector<double>{0.5, 0.1, 0.0, 0.4, 0.0, 0.0}));

    // Bidirectional, i = 1 over 4 keys: p = (0.1, 0.2, 0.3, 0.4) at distances 1, 0, 1, 2.
    std::vector<double> both(4, 0.0);
    const RowTotals u = alibi::detail::summariseRow(std::vector<double>{0.1, 0.2, 0.3, 0.4}, 1, false, both);
    EXPECT_NEAR(u.distance, 0.1 + 0.3 + 0.8, 1e-15);
    EXPECT_EQ(u.distance90, 2);  // 0.2 at d 0, 0.6 by d 1, 1.0 at d 2
    EXPECT_NEAR(both[1], 0.4, 1e-15);
}

}  // namespace
