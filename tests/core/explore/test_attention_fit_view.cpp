// Tests for <alibi/explore/attention_fit_view.hpp>: the fit table's sort (unknown values last),
// the prior of one row against softmax(-m d) computed here, and the hover read-out's value.
#include <alibi/explore/attention_fit_view.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

using namespace alibi;
using namespace alibi::explore;

namespace {

HeadFit fit(int layer, int head, double slope, std::optional<double> configured) {
    HeadFit f;
    f.layer = layer;
    f.head = head;
    f.slope = slope;
    f.rows = 4;
    f.configuredSlope = configured;
    return f;
}

}  // namespace

TEST(AttentionFitView, SortsBySlopeBothWaysWithTiesInTableOrder) {
    const std::vector<HeadFit> fits{fit(0, 0, 0.5, {}), fit(0, 1, 0.125, {}), fit(1, 0, 0.5, {}), fit(1, 1, 1, {})};
    EXPECT_EQ(sortFits(fits, FitTableColumn::Slope, true), (std::vector<int>{1, 0, 2, 3}));
    EXPECT_EQ(sortFits(fits, FitTableColumn::Slope, false), (std::vector<int>{3, 0, 2, 1}));
}

TEST(AttentionFitView, UnknownConfiguredSlopesSortLastEitherWay) {
    const std::vector<HeadFit> fits{fit(0, 0, 0.5, {}), fit(0, 1, 0.25, 0.5), fit(0, 2, 0.25, 0.125)};
    EXPECT_EQ(sortFits(fits, FitTableColumn::Configured, true), (std::vector<int>{2, 1, 0}));
    EXPECT_EQ(sortFits(fits, FitTableColumn::Configured, false), (std::vector<int>{1, 2, 0}));
    EXPECT_EQ(fitCellText(fits[0], FitTableColumn::Configured), "");
    EXPECT_EQ(fitCellText(fits[1], FitTableColumn::SlopeRatio), "0.5");
}

TEST(AttentionFitView, PriorRowIsSoftmaxOfMinusSlopeTimesDistance) {
    // Causal, Q = K = 6, row 4: keys 0..4 at distances 4..0, key 5 masked.
    const double m = 0.5;
    const auto row = queryRowPrior(m, 6, 6, true, 4);
    ASSERT_EQ(row.size(), 6u);
    double z = 0;
    for (int d = 0; d <= 4; ++d) z += std::exp(-m * d);
    for (int j = 0; j <= 4; ++j) EXPECT_NEAR(row[static_cast<std::size_t>(j)], std::exp(-m * (4 - j)) / z, 1e-15);
    EXPECT_EQ(row[5], 0.0);
    // Bidirectional, K > Q (KV cache): query 0 of 2 sits at position 2 of 4; |i - j|.
    const auto both = queryRowPrior(m, 2, 4, false, 0);
    ASSERT_EQ(both.size(), 4u);
    const double zb = std::exp(-2 * m) + std::exp(-m) + 1 + std::exp(-m);
    EXPECT_NEAR(both[3], std::exp(-m) / zb, 1e-15);
    EXPECT_NEAR(both[2], 1 / zb, 1e-15);
}

TEST(AttentionFitView, ReadOutNamesTheCellAndItsValue) {
    // One layer, one head, 2 x 2 causal probabilities: row 1 = (0.25, 0.75).
    std::vector<float> values{1.0f, 0.0f, 0.25f, 0.75f};
    std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 2, 2), }";
    while ((10 + header.size() + 1) % 64 != 0) header += ' ';
    header += '\n';
    std::string bytes = "\x93NUMPY\x01";
    bytes += '\0';
    bytes += static_cast<char>(header.size() & 0xff);
    bytes += static_cast<char>(header.size() >> 8);
    bytes += header;
    bytes.append(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float));
    auto maps = AttentionMaps::fromBytes(std::as_bytes(std::span(bytes.data(), bytes.size())), false);
    ASSERT_TRUE(maps) << maps.error().message;
    const std::string text = mapsCellText(*maps, 0, 0, 1, 0, 0.25, 0.25, std::nullopt, std::nullopt);
    EXPECT_NE(text.find("query i = 1 · key j = 0 · distance 1"), std::string::npos) << text;
    EXPECT_NE(text.find("file value p = 0.25 (f32)"), std::string::npos) << text;
    // A stored value the row's renormalisation moved: both are shown.
    const std::string moved = mapsCellText(*maps, 0, 0, 1, 0, 0.25, 0.2500001, std::nullopt, std::nullopt);
    EXPECT_NE(moved.find("file value 0.25 (f32) · p = 0.25 (the row renormalised to sum 1)"), std::string::npos)
        << moved;
}
