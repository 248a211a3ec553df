// Fitting effective slopes to attention maps, and head similarity, on maps made from known
// slopes (attention_maps_fixture.hpp).
#include <alibi/analysis/head_fit.hpp>
#include <alibi/analysis/head_similarity.hpp>
#include <alibi/io/attention_maps.hpp>

#include "../attention_maps_fixture.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace {

using alibi::AttentionMaps;
using alibi::AttentionValues;
using namespace alibi::test;

TEST(PriorMoments, MatchBruteForceSums) {
    for (const double m : {-0.3, -1e-7, 0.0, 1e-9, 1e-4, 0.01, 0.7, 5.0})
        for (const auto& blocks : std::vector<std::vector<alibi::DistanceBlock>>{
                 {{0, 1}}, {{0, 7}}, {{3, 200}}, {{0, 40}, {1, 25}}, {{0, 1}, {1, 300}}}) {
            long double z = 0, s1 = 0, s2 = 0;
            for (const auto& b : blocks)
                for (std::int64_t d = b.offset; d < b.offset + b.count; ++d) {
                    const long double w = std::exp(-static_cast<long double>(m) * d);
                    z += w;
                    s1 += w * d;
                    s2 += w * d * d;
                }
            const double mean = static_cast<double>(s1 / z);
            const double var = static_cast<double>(s2 / z - (s1 / z) * (s1 / z));
            const auto got = alibi::priorMoments(m, blocks);
            EXPECT_NEAR(got.logZ, static_cast<double>(std::log(z)), 1e-9 * std::max(1.0, std::abs(got.logZ))) << m;
            EXPECT_NEAR(got.mean, mean, 1e-8 * std::max(1.0, mean)) << m;
            EXPECT_NEAR(got.variance, var, 1e-6 * std::max(1.0, var)) << m;
        }
}

TEST(HeadFit, RecoversPaperSlopesOnThePurePrior) {
    const int heads = 8;
    const std::int64_t t = 200;
    std::vector<double> slopes;
    for (int h = 0; h < heads; ++h) slopes.push_back(paperSlope(h, heads));
    const std::string file = npyBytes({heads, t, t}, causalMaps(slopes, t, 0.0, 1));
    auto maps = AttentionMaps::fromBytes(asBytes(file), false);
    ASSERT_TRUE(maps) << maps.error().message;
    EXPECT_EQ(maps->values(), AttentionValues::Probabilities);
    EXPECT_TRUE(maps->causal());
    auto fits = alibi::fitHeads(*maps, {}, slopes);
    ASSERT_TRUE(fits) << fits.error().message;
    ASSERT_EQ(fits->size(), static_cast<std::size_t>(heads));
    for (const auto& f : *fits) {
        const double m = slopes[static_cast<std::size_t>(f.head)];
        EXPECT_NEAR(f.slope, m, 0.01 * m) << "head " << f.head;
        EXPECT_LE(f.slopeLow, m);
        EXPECT_GE(f.slopeHigh, m);
        EXPECT_LT(f.kl, 1e-5) << "head " << f.head;  // f32 storage is the only misfit
        EXPECT_EQ(f.rows, t);
        EXPECT_DOUBLE_EQ(*f.configuredSlope, m);
        // The diagonal's mass is the prior's 1/Z averaged over rows: at least that of the last row.
        EXPECT_GE(f.diagonalMass, 1 - std::exp(-m) - 1e-6);
        // The observed profile is the prior's (f32 storage aside).
        const auto prior = alibi::priorProfile(m, t, t, true);
        ASSERT_EQ(prior.size(), f.profile.size());
        for (std::size_t d = 0; d < prior.size(); ++d) EXPECT_NEAR(f.profile[d], prior[d], 1e-6) << d;
    }
}

TEST(HeadFit, SlopeWithContentLiesInsideTheReportedInterval) {
    const std::vector<double> slopes{0.5, 0.125, 0.03125, 0.0078125};
    const std::int64_t t = 256;
    const std::string file = npyBytes({4, t, t}, causalMaps(slopes, t, 1.0, 42));
    auto maps = AttentionMaps::fromBytes(asBytes(file), false);
    ASSERT_TRUE(maps) << maps.error().message;
    auto fits = alibi::fitHeads(*maps, {});
    ASSERT_TRUE(fits) << fits.error().message;
    for (const auto& f : *fits) {
        const double m = slopes[static_cast<std::size_t>(f.head)];
        EXPECT_LE(f.slopeLow, m) << "head " << f.head << " fit " << f.slope;
        EXPECT_GE(f.slopeHigh, m) << "head " << f.head << " fit " << f.slope;
        EXPECT_GT(f.kl, 1e-3);  // the content is a visible misfit
    }
}

TEST(HeadFit, ScoresAreDetectedAndGiveTheSameFit) {
    const std::vector<double> slopes{0.25, 0.0625};
    const std::int64_t t = 64;
    const std::string file = npyBytes({2, t, t}, causalMaps(slopes, t, 0.0, 3, /*scores=*/true));
    auto maps = AttentionMaps::fromBytes(asBytes(file), false);
    ASSERT_TRUE(maps) << maps.error().message;
    EXPECT_EQ(maps->values(), AttentionValues::Scores);
    EXPECT_NE(maps->valuesReason().find("-inf"), std::string::npos) << maps->valuesReason();
    auto fits = alibi::fitHeads(*maps, {});
    ASSERT_TRUE(fits);
    EXPECT_NEAR((*fits)[0].slope, 0.25, 0.0025);
    EXPECT_NEAR((*fits)[1].slope, 0.0625, 0.000625);
}

TEST(HeadFit, SinkMassAndStatistics) {
    // Half of every row on key 0, the rest uniform over keys 1..i: the sink mass is 1/2 (row 0
    // puts everything on key 0 and is its own sink).
    const std::int64_t t = 32;
    std::vector<float> data;
    for (std::int64_t i = 0; i < t; ++i)
        for (std::int64_t j = 0; j < t; ++j)
            data.push_back(i == 0 ? (j == 0 ? 1.0f : 0.0f)
                                  : (j > i    ? 0.0f
                                     : j == 0 ? 0.5f
                                              : static_cast<float>(0.5 / static_cast<double>(i))));
    const std::string file = npyBytes({1, t, t}, data);
    auto maps = AttentionMaps::fromBytes(asBytes(file), false);
    ASSERT_TRUE(maps) << maps.error().message;
    auto fits = alibi::fitHeads(*maps, {});
    ASSERT_TRUE(fits);
    EXPECT_NEAR((*fits)[0].sinkMass, (1.0 + 0.5 * (t - 1)) / t, 1e-6);
    // Mean distance of row i: 0.5 i + 0.5 * mean of 0..i-1 = 0.5 i + (i - 1) / 4.
    double expected = 0;
    for (std::int64_t i = 1; i < t; ++i) expected += 0.5 * i + (i - 1) / 4.0;
    EXPECT_NEAR((*fits)[0].meanDistance, expected / t, 1e-5);
    EXPECT_LT((*fits)[0].slope, 0.05);  // a sink head does not look local
}

TEST(AttentionMaps, SafetensorsLayersAreOrderedByTheNumberInTheirNames) {
    const std::int64_t t = 16;
    const std::vector<std::string> names{"model.layers.10.attn", "model.layers.2.attn", "model.layers.7.attn"};
    const std::vector<double> layerSlopes{0.5, 0.25, 0.125};  // per tensor, in file order
    std::vector<std::vector<float>> data;
    for (const double m : layerSlopes) data.push_back(causalMaps({m, m}, t, 0.0, 1));
    const std::string file = safetensorsBytes(names, {2, t, t}, data);
    auto maps = AttentionMaps::fromBytes(asBytes(file), true);
    ASSERT_TRUE(maps) << maps.error().message;
    ASSERT_EQ(maps->layers(), 3);
    EXPECT_EQ(maps->layerInfo()[0].number, 2);
    EXPECT_EQ(maps->layerInfo()[1].number, 7);
    EXPECT_EQ(maps->layerInfo()[2].number, 10);
    EXPECT_EQ(maps->layerInfo()[0].name, "model.layers.2.attn");
    auto fits = alibi::fitHeads(*maps, {});
    ASSERT_TRUE(fits);
    EXPECT_NEAR((*fits)[0].slope, 0.25, 1e-3);  // layer 2
    EXPECT_NEAR((*fits)[4].slope, 0.5, 1e-3);   // layer 10
    EXPECT_EQ((*fits)[4].layer, 10);
    // One tensor chosen by name.
    auto one = AttentionMaps::fromBytes(asBytes(file), true, tensorNamed("model.layers.7.attn"));
    ASSERT_TRUE(one);
    EXPECT_EQ(one->layers(), 1);
    EXPECT_EQ(one->layerInfo()[0].number, 7);
    auto missing = AttentionMaps::fromBytes(asBytes(file), true, tensorNamed("nope"));
    ASSERT_FALSE(missing);
    EXPECT_NE(missing.error().message.find("model.layers.2.attn"), std::string::npos);
}

TEST(AttentionMaps, StackedLayersAndBatches) {
    const std::int64_t t = 8;
    std::vector<float> data;
    // (B = 2, L = 3, H = 1, T, T): slope 0.1 * (1 + b) * (1 + l).
    for (int b = 0; b < 2; ++b)
        for (int l = 0; l < 3; ++l)
            for (const float v : causalMaps({0.1 * (1 + b) * (1 + l)}, t, 0.0, 1)) data.push_back(v);
    const std::string file = npyBytes({2, 3, 1, t, t}, data);
    auto maps = AttentionMaps::fromBytes(asBytes(file), false, batchElement(1));
    ASSERT_TRUE(maps) << maps.error().message;
    EXPECT_EQ(maps->layers(), 3);
    EXPECT_EQ(maps->batches(), 2);
    auto fits = alibi::fitHeads(*maps, {});
    ASSERT_TRUE(fits);
    EXPECT_NEAR((*fits)[2].slope, 0.1 * 2 * 3, 1e-4);
    auto badBatch = AttentionMaps::fromBytes(asBytes(file), false, batchElement(2));
    ASSERT_FALSE(badBatch);
    EXPECT_NE(badBatch.error().message.find("0 to 1"), std::string::npos);
}

TEST(HeadSimilarity, IdenticalHeadsAreAdjacentInTheClusterOrder) {
    const std::int64_t t = 64;
    // Heads 0 and 3 share slope 0.5, heads 1 and 2 share 0.01: pairs must sit together.
    const std::string file = npyBytes({4, t, t}, causalMaps({0.5, 0.01, 0.01, 0.5}, t, 0.0, 1));
    auto maps = AttentionMaps::fromBytes(asBytes(file), false);
    ASSERT_TRUE(maps);
    auto fits = alibi::fitHeads(*maps, {});
    ASSERT_TRUE(fits);
    const auto profile = alibi::profileDistances(*fits);
    EXPECT_NEAR(profile.at(0, 3), 0.0, 1e-6);
    EXPECT_GT(profile.at(0, 1), 0.3);
    auto full = alibi::mapDistances(*maps, 0);
    ASSERT_TRUE(full);
    EXPECT_NEAR(full->at(1, 2), 0.0, 1e-6);
    EXPECT_GT(full->at(0, 2), 0.3);
    for (const auto& d : {profile, *full}) {
        const auto order = alibi::clusterOrder(d);
        ASSERT_EQ(order.size(), 4u);
        std::vector<int> position(4);
        for (int k = 0; k < 4; ++k) position[static_cast<std::size_t>(order[static_cast<std::size_t>(k)])] = k;
        EXPECT_EQ(std::abs(position[0] - position[3]), 1);
        EXPECT_EQ(std::abs(position[1] - position[2]), 1);
    }
}

TEST(HeadSimilarity, JensenShannonDistanceKnownValues) {
    const std::vector<double> a{1, 0}, b{0, 1}, c{0.5, 0.5};
    EXPECT_DOUBLE_EQ(alibi::jensenShannonDistance(a, a), 0.0);
    EXPECT_DOUBLE_EQ(alibi::jensenShannonDistance(a, b), 1.0);
    // JSD((1,0), (1/2,1/2)) = 1/2 [log2(4/3)] + 1/2 [1/2 log2(2/3) + 1/2 log2(2)] (mixture (3/4, 1/4)).
    const double jsd = 0.5 * std::log2(1 / 0.75) + 0.5 * (0.5 * std::log2(0.5 / 0.75) + 0.5 * std::log2(0.5 / 0.25));
    EXPECT_NEAR(alibi::jensenShannonDistance(a, c), std::sqrt(jsd), 1e-15);
}

TEST(AttentionMaps, HostileFilesGetClearErrors) {
    const std::int64_t t = 8;
    const auto maps = causalMaps({0.5}, t, 0.0, 1);
    struct Case {
        std::string name, bytes, expect;
        bool safetensors = false;
    };
    std::vector<float> nan = maps;
    nan[10] = std::numeric_limits<float>::quiet_NaN();
    std::string truncated = npyBytes({1, t, t}, maps);
    truncated.resize(truncated.size() - 3);
    std::string overlapping = safetensorsBytes({"a.0", "a.1"}, {1, t, t}, {maps, maps});
    const auto pos = overlapping.find("[256,512]");
    ASSERT_NE(pos, std::string::npos);
    overlapping.replace(pos, 9, "[200,456]");
    const std::vector<Case> cases{
        {"wrong rank", npyBytes({t, t}, std::vector<float>(maps.begin(), maps.begin() + t * t)), "2 dimensions"},
        {"NaN", npyBytes({1, t, t}, nan), "NaN"},
        {"huge", npyBytes({100000, 1, 1}, std::vector<float>(100000, 1.0f)), "limits"},
        {"truncated", truncated, "truncated"},
        {"overlap", overlapping, "overlap", true},
        {"mixed shapes",
         safetensorsBytes({"l.0", "l.1"}, {1, t, t}, {maps, maps})
             .replace(safetensorsBytes({"l.0", "l.1"}, {1, t, t}, {maps, maps}).find("[1,8,8],\"data_offsets\":[256"),
                      7, "[2,4,8]"),
         "same shape", true},
    };
    for (const auto& c : cases) {
        auto opened = AttentionMaps::fromBytes(asBytes(c.bytes), c.safetensors);
        ASSERT_FALSE(opened) << c.name;
        EXPECT_TRUE(alibi::isUserError(opened.error().code)) << c.name;
        EXPECT_NE(opened.error().message.find(c.expect), std::string::npos) << c.name << ": " << opened.error().message;
    }
    // Rows that are not probabilities, read as probabilities because the user said so.
    std::vector<float> off = maps;
    for (float& v : off) v *= 0.5f;
    const std::string halfRows = npyBytes({1, t, t}, off);
    auto forced = AttentionMaps::fromBytes(asBytes(halfRows), false, valuesAre(AttentionValues::Probabilities));
    ASSERT_TRUE(forced);
    auto fits = alibi::fitHeads(*forced, {});
    ASSERT_FALSE(fits);
    EXPECT_NE(fits.error().message.find("not 1"), std::string::npos) << fits.error().message;
    EXPECT_NE(fits.error().message.find("--values scores"), std::string::npos);
}

TEST(AttentionMaps, LayerNumbersFromNames) {
    EXPECT_EQ(alibi::layerNumberFromName("model.layers.7.attn"), 7);
    EXPECT_EQ(alibi::layerNumberFromName("attentions.3"), 3);
    EXPECT_EQ(alibi::layerNumberFromName("layer.0"), 0);
    EXPECT_EQ(alibi::layerNumberFromName("attn"), std::nullopt);
}

}  // namespace
