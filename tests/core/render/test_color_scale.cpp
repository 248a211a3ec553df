// Tests for <alibi/explore/color_scale.hpp>: exact closed-form bias ranges (checked against
// every cell), colour bars with exact ends and round ticks between them.
#include <alibi/model/bias.hpp>
#include <alibi/model/slopes.hpp>
#include <alibi/render/color_scale.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace alibi;

TEST(ColorScale, BiasRangeMatchesEveryCell) {
    for (BiasMode mode : {BiasMode::Causal, BiasMode::Symmetric, BiasMode::Clamped, BiasMode::Bloom, BiasMode::Mpt})
        for (auto [q, k] : {std::pair<long, long>{7, 7}, {3, 9}, {9, 3}, {1, 1}, {12, 5}})
            for (DType dtype : {DType::F32, DType::BF16}) {
                BiasParams p;
                p.slopes.heads = 3;
                p.mode = mode;
                p.queries = q;
                p.keys = k;
                p.dtype = dtype;
                const auto slopes = validateBias(p).value();
                for (int head = -1; head < 3; ++head) {
                    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
                    for (int h = 0; h < 3; ++h) {
                        if (head >= 0 && h != head) continue;
                        const double m = slopes[static_cast<std::size_t>(h)];
                        for (long i = 0; i < q; ++i)
                            for (long j = 0; j < p.keyCount(); ++j) {
                                if (!biasCell(mode, m, p.queryPosition(i), j, p.keyCount())) continue;
                                const double v = biasValue(p, m, h, i, j);
                                lo = std::min(lo, v);
                                hi = std::max(hi, v);
                            }
                    }
                    const ValueRange r = biasRange(p, slopes, head);
                    const std::string where =
                        std::string(modeName(mode)) + " " + std::to_string(q) + "x" + std::to_string(k);
                    if (lo > hi) {
                        EXPECT_TRUE(r.empty) << where;
                        continue;
                    }
                    EXPECT_FALSE(r.empty) << where;
                    EXPECT_EQ(r.lo, lo) << where;
                    EXPECT_EQ(r.hi, hi) << where;
                }
            }
}

TEST(ColorScale, TheIssueExamples) {
    // H = 12, T = 4096: the steepest press slope is 2^-0.5, so the minimum is -2^-0.5 * 4095 in f32.
    BiasParams p;
    p.slopes.heads = 12;
    p.queries = 4096;
    auto slopes = validateBias(p).value();
    ValueRange r = biasRange(p, slopes);
    EXPECT_EQ(r.lo, static_cast<double>(static_cast<float>(-std::sqrt(0.5) * 4095)));
    EXPECT_EQ(r.hi, 0.0);
    ColorBar bar = makeColorBar(r.lo, r.hi, false, DType::F32, 6);
    EXPECT_EQ(bar.ticks.front().label, "-2896");  // four significant digits (-2895.6023 in f32)
    EXPECT_EQ(bar.ticks.back().label, "0");
    for (std::size_t n = 1; n + 1 < bar.ticks.size(); ++n) EXPECT_EQ(std::fmod(bar.ticks[n].value, 500.0), 0.0);
    // H = 5, T = 65536: the top is the diagonal's 0, not a pixel's -0.0078125.
    p.slopes.heads = 5;
    p.queries = 65536;
    slopes = validateBias(p).value();
    r = biasRange(p, slopes);
    EXPECT_EQ(makeColorBar(r.lo, r.hi, false, DType::F32, 6).ticks.back().label, "0");
}

TEST(ColorScale, LogBarsTickAtPowersOfTen) {
    const ColorBar bar = makeColorBar(3e-7, 0.5, true, DType::F32, 8);
    EXPECT_TRUE(bar.log);
    EXPECT_EQ(bar.ticks.front().label, "3e-07");
    EXPECT_EQ(bar.ticks.back().label, "0.5");
    EXPECT_EQ(bar.ticks[1].label, "1e-06");
    EXPECT_DOUBLE_EQ(colorBarPosition(bar, 0.5), 1.0);
    EXPECT_DOUBLE_EQ(colorBarPosition(bar, 3e-7), 0.0);
}
