// The explorers' attention-maps layer: the hover read-out gives the file's own value, a row's
// prior is softmax(-m d) over the keys it sees (computed here from the formula), the similarity
// order by slope is steepest first, the table's columns give NaN (shown empty) for an unknown
// configured slope and sort it last, and the all-layers overview places one tile per layer and
// head.
#include <alibi/explore/attention_maps_view.hpp>
#include <alibi/figure/attention_maps_render.hpp>

#include "../attention_maps_fixture.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace {

using namespace alibi::test;
namespace explore = alibi::explore;

TEST(AttentionMapsView, PriorRowIsTheSoftmaxOfTheDistancePenalty) {
    const double m = 0.5;
    // Query 3 of 4 (K = 4, causal): keys 0..3 at distances 3, 2, 1, 0.
    const auto row = explore::priorRow(m, 3, 4, 4, true);
    double z = 0;
    for (int d = 0; d <= 3; ++d) z += std::exp(-m * d);
    for (int j = 0; j <= 3; ++j) EXPECT_NEAR(row[static_cast<std::size_t>(j)], std::exp(-m * (3 - j)) / z, 1e-15);
    // Query 1: keys after it get nothing.
    const auto early = explore::priorRow(m, 1, 4, 4, true);
    EXPECT_EQ(early[2], 0.0);
    EXPECT_EQ(early[3], 0.0);
    EXPECT_NEAR(early[0] + early[1], 1.0, 1e-15);
    // Bidirectional: distance |i - j|, symmetric around the query.
    const auto both = explore::priorRow(m, 2, 5, 5, false);
    EXPECT_NEAR(both[1], both[3], 1e-15);
    EXPECT_NEAR(both[0], both[4], 1e-15);
    // Bidirectional, K > Q (KV cache): query 0 of 2 sits at position 2 of 4.
    const auto cached = explore::priorRow(m, 0, 2, 4, false);
    ASSERT_EQ(cached.size(), 4u);
    const double zc = std::exp(-2 * m) + std::exp(-m) + 1 + std::exp(-m);
    EXPECT_NEAR(cached[3], std::exp(-m) / zc, 1e-15);
    EXPECT_NEAR(cached[2], 1 / zc, 1e-15);
}

TEST(AttentionMapsView, CellReadoutGivesTheFilesValueAndMasksKeysAfterTheQuery) {
    const std::int64_t t = 16;
    const std::vector<float> data = causalMaps({0.5, 0.125}, t, 0.0, 1);
    const std::string file = npyBytes({2, t, t}, data);
    auto maps = alibi::AttentionMaps::fromBytes(asBytes(file), false);
    ASSERT_TRUE(maps) << maps.error().message;
    auto text = explore::mapsCellReadout(*maps, 0, 1, 9, 4, {0.125, 0.125});
    ASSERT_TRUE(text) << text.error().message;
    EXPECT_NE(text->find("head 1 · query i = 9 · key j = 4 · distance 5"), std::string::npos) << *text;
    const double stored = data[static_cast<std::size_t>((1 * t + 9) * t + 4)];
    const auto at = text->find("file value = ");
    ASSERT_NE(at, std::string::npos);
    EXPECT_EQ(static_cast<float>(std::stod(text->substr(at + 13))), static_cast<float>(stored));
    EXPECT_NE(text->find("ALiBi prior"), std::string::npos);
    auto masked = explore::mapsCellReadout(*maps, 0, 0, 3, 7, {});
    ASSERT_TRUE(masked);
    EXPECT_NE(masked->find("masked"), std::string::npos) << *masked;
    EXPECT_FALSE(explore::mapsCellReadout(*maps, 0, 2, 0, 0, {}));  // no head 2
}

TEST(AttentionMapsView, CellReadoutNamesTheQueryPositionWhenKeysOutnumberQueries) {
    // 4 queries over 16 keys (a KV cache): query 1 sits at position 1 + 16 - 4 = 13.
    const std::int64_t t = 16;
    const std::vector<float> square = causalMaps({0.5}, t, 0.0, 1);
    const std::vector<float> last(square.end() - 4 * t, square.end());
    const std::string file = npyBytes({1, 4, t}, last);
    auto maps = alibi::AttentionMaps::fromBytes(asBytes(file), false);
    ASSERT_TRUE(maps) << maps.error().message;
    auto text = explore::mapsCellReadout(*maps, 0, 0, 1, 10, {});
    ASSERT_TRUE(text) << text.error().message;
    EXPECT_NE(text->find("query i = 1 · key j = 10 · position 13 · distance 3"), std::string::npos) << *text;
}

// The maps pair with the slopes the user named, else with the ones the file names (a model run's).
TEST(AttentionMapsView, PairedSlopesAreTheNamedOnesElseTheFilesOwn) {
    const std::int64_t t = 4;
    const std::vector<float> maps2 = causalMaps({0.5, 0.125}, t, 0.0, 1);
    const std::string withSlopes = safetensorsBytes({"attentions.0"}, {2, t, t}, {maps2}, {{"slopes", "[0.5, 0.125]"}});
    auto run = alibi::AttentionMaps::fromBytes(asBytes(withSlopes), true);
    ASSERT_TRUE(run) << run.error().message;
    EXPECT_EQ(explore::pairedSlopes(*run, {}), (std::vector<double>{0.5, 0.125}));
    EXPECT_EQ(explore::pairedSlopes(*run, {0.25, 0.0625}), (std::vector<double>{0.25, 0.0625}));
    auto saved =
        alibi::AttentionMaps::fromBytes(asBytes(safetensorsBytes({"attentions.0"}, {2, t, t}, {maps2}, {})), true);
    ASSERT_TRUE(saved) << saved.error().message;
    EXPECT_TRUE(explore::pairedSlopes(*saved, {}).empty());
}

TEST(AttentionMapsView, CellReadoutNamesTheQueryAndKeyTokens) {
    // 2 queries over 4 keys: query 1 sits at position 3.
    const std::int64_t t = 4;
    const std::vector<float> square = causalMaps({0.5}, t, 0.0, 1);
    const std::vector<float> last(square.end() - 2 * t, square.end());
    const std::string file =
        safetensorsBytes({"attentions.0"}, {1, 2, t}, {last},
                         {{"tokens", R"(["<s>", " the", "\n", "fox"])"}, {"token_ids", "[1, 262, 198, 21831]"}});
    auto maps = alibi::AttentionMaps::fromBytes(asBytes(file), true);
    ASSERT_TRUE(maps) << maps.error().message;
    auto text = explore::mapsCellReadout(*maps, 0, 0, 1, 1, {});
    ASSERT_TRUE(text) << text.error().message;
    // Whitespace made visible, ids beside the tokens.
    EXPECT_NE(text->find("query token \u201cfox\u201d (id 21831) · key token \u201c\u00b7the\u201d (id 262)"),
              std::string::npos)
        << *text;
    EXPECT_EQ(explore::mapsTokenText(*maps, 2), "\u201c\u21b5\u201d (id 198)");
    EXPECT_EQ(explore::mapsKeyTokenLabels(*maps), (std::vector<std::string>{"<s>", "\u00b7the", "\u21b5", "fox"}));
    EXPECT_EQ(explore::mapsQueryTokenLabels(*maps), (std::vector<std::string>{"\u21b5", "fox"}));
    // A key after the query: still named, then masked.
    auto masked = explore::mapsCellReadout(*maps, 0, 0, 0, 3, {});
    ASSERT_TRUE(masked);
    EXPECT_NE(masked->find("key token \u201cfox\u201d"), std::string::npos) << *masked;
    EXPECT_NE(masked->find("masked"), std::string::npos) << *masked;
    // A file without tokens reads as before.
    const std::string plain = npyBytes({1, 2, t}, last);
    auto without = alibi::AttentionMaps::fromBytes(asBytes(plain), false);
    ASSERT_TRUE(without);
    auto none = explore::mapsCellReadout(*without, 0, 0, 1, 1, {});
    ASSERT_TRUE(none);
    EXPECT_EQ(none->find("token"), std::string::npos) << *none;
    EXPECT_TRUE(explore::mapsKeyTokenLabels(*without).empty());
}

TEST(AttentionMapsView, RowSeriesHoldsTheFileRowAndItsPriors) {
    const std::int64_t t = 8;
    const std::vector<float> data = causalMaps({0.25}, t, 0.0, 1);
    const std::string file = npyBytes({1, t, t}, data);
    auto maps = alibi::AttentionMaps::fromBytes(asBytes(file), false);
    ASSERT_TRUE(maps);
    auto series = explore::mapsRowSeries(*maps, 0, 0, 5, {0.25, 1.0});
    ASSERT_TRUE(series) << series.error().message;
    ASSERT_EQ(series->size(), 3u);
    ASSERT_EQ((*series)[0].x.size(), 6u);  // keys 0..5
    for (int j = 0; j <= 5; ++j) {
        // The row as the fit reads it: the stored f32 renormalised to sum 1.
        EXPECT_NEAR((*series)[0].y[static_cast<std::size_t>(j)], data[static_cast<std::size_t>(5 * t + j)], 1e-7);
        // The file is the pure prior at m = 0.25, so the fitted-prior curve matches it (f32).
        EXPECT_NEAR((*series)[1].y[static_cast<std::size_t>(j)], data[static_cast<std::size_t>(5 * t + j)], 1e-6);
    }
}

TEST(AttentionMapsView, FitColumnsAndOrders) {
    alibi::HeadFit a, b, c;
    a.head = 0, a.slope = 0.1;
    b.head = 1, b.slope = 0.9;
    c.head = 2, c.slope = 0.5;
    EXPECT_TRUE(std::isnan(explore::fitColumnValue(a, explore::FitColumn::ConfiguredSlope)));
    EXPECT_EQ(explore::formatFitColumn(explore::FitColumn::ConfiguredSlope, std::nan("")), "");
    a.configuredSlope = 0.25;
    EXPECT_EQ(explore::fitColumnValue(a, explore::FitColumn::ConfiguredSlope), 0.25);
    EXPECT_EQ(explore::formatFitColumn(explore::FitColumn::ConfiguredSlope, 0.25), "1/4");
    const std::vector<alibi::HeadFit> layer{a, b, c};
    EXPECT_EQ(explore::similarityHeadOrder(layer, alibi::HeadOrder::Slope, {}), (std::vector<int>{1, 2, 0}));
    EXPECT_EQ(explore::similarityHeadOrder(layer, alibi::HeadOrder::Index, {}), (std::vector<int>{0, 1, 2}));
    for (int col = 0; col < explore::kFitColumnCount; ++col)
        EXPECT_FALSE(explore::fitColumnTitle(static_cast<explore::FitColumn>(col)).empty());
}

alibi::HeadFit headFit(int layer, int head, double slope, std::optional<double> configured) {
    alibi::HeadFit f;
    f.layer = layer;
    f.head = head;
    f.slope = slope;
    f.rows = 4;
    f.configuredSlope = configured;
    return f;
}

TEST(AttentionMapsView, FitTableSortsBothWaysWithTiesInTableOrder) {
    const std::vector<alibi::HeadFit> fits{headFit(0, 0, 0.5, {}), headFit(0, 1, 0.125, {}), headFit(1, 0, 0.5, {}),
                                           headFit(1, 1, 1, {})};
    EXPECT_EQ(explore::sortFits(fits, explore::FitColumn::Slope, true), (std::vector<int>{1, 0, 2, 3}));
    EXPECT_EQ(explore::sortFits(fits, explore::FitColumn::Slope, false), (std::vector<int>{3, 0, 2, 1}));
}

TEST(AttentionMapsView, FitTableSortsUnknownConfiguredSlopesLastEitherWay) {
    const std::vector<alibi::HeadFit> fits{headFit(0, 0, 0.5, {}), headFit(0, 1, 0.25, 0.5),
                                           headFit(0, 2, 0.25, 0.125)};
    EXPECT_EQ(explore::sortFits(fits, explore::FitColumn::ConfiguredSlope, true), (std::vector<int>{2, 1, 0}));
    EXPECT_EQ(explore::sortFits(fits, explore::FitColumn::ConfiguredSlope, false), (std::vector<int>{1, 2, 0}));
    EXPECT_EQ(explore::sortFits(fits, explore::FitColumn::SlopeRatio, true), (std::vector<int>{1, 2, 0}));
}

TEST(AttentionMapsView, FitCellTextMarksUnknownsBoundsAndEmptyHeads) {
    alibi::HeadFit f = headFit(2, 3, 0.25, {});
    EXPECT_EQ(explore::fitCellText(f, explore::FitColumn::ConfiguredSlope), "");
    EXPECT_EQ(explore::fitCellText(f, explore::FitColumn::SlopeRatio), "");
    f.configuredSlope = 0.5;
    EXPECT_EQ(explore::fitCellText(f, explore::FitColumn::ConfiguredSlope), "1/2");
    EXPECT_EQ(explore::fitCellText(f, explore::FitColumn::SlopeRatio), "0.5");
    f.slope = 30;
    f.slopeAtBound = true;
    EXPECT_EQ(explore::fitCellText(f, explore::FitColumn::Slope), ">= 30");
    f.rows = 0;
    EXPECT_EQ(explore::fitCellText(f, explore::FitColumn::Kl), "no rows");
    EXPECT_EQ(explore::fitCellText(f, explore::FitColumn::Head), "3");
}

TEST(AttentionMapsView, OverviewHasOneTilePerLayerAndHead) {
    const std::int64_t t = 16;
    const std::vector<std::vector<float>> layers{causalMaps({0.5, 0.25, 2.0}, t, 0.0, 1),
                                                 causalMaps({0.5, 0.25, 2.0}, t, 0.3, 2)};
    const std::string file = safetensorsBytes({"model.layers.1.attn", "model.layers.0.attn"}, {3, t, t}, layers);
    auto maps = alibi::AttentionMaps::fromBytes(asBytes(file), true);
    ASSERT_TRUE(maps) << maps.error().message;
    alibi::MapsHeatmapParams params;
    params.width = 300;
    params.height = 200;
    auto overview = alibi::renderAttentionOverview(*maps, params, 1);
    ASSERT_TRUE(overview) << overview.error().message;
    ASSERT_EQ(overview->map.tiles.size(), 6u);
    EXPECT_EQ(overview->tileLayer, (std::vector<int>{0, 0, 0, 1, 1, 1}));
    // Tile (layer 1, head 2): its centre hits that layer and head.
    const alibi::HeatmapTile& tile = overview->map.tiles[5];
    EXPECT_EQ(tile.head, 2);
    EXPECT_EQ(tile.width, tile.height);
    const auto hit = alibi::mapsPictureHit(*overview, *maps, tile.x + tile.width / 2, tile.y + tile.height / 2);
    ASSERT_TRUE(hit);
    EXPECT_EQ(hit->layerIndex, 1);
    EXPECT_EQ(hit->cell.head, 2);
    // The shared range is the union of the layers' own grids.
    alibi::MapsHeatmapParams one = params;
    double lo = 1, hi = 0;
    for (int l = 0; l < 2; ++l) {
        one.layerIndex = l;
        auto grid = alibi::renderAttentionMaps(*maps, one, 1);
        ASSERT_TRUE(grid);
        lo = std::min(lo, grid->lo);
        hi = std::max(hi, grid->hi);
    }
    EXPECT_LE(overview->map.lo, lo + 1e-12);
    EXPECT_GE(overview->map.hi, hi - 1e-12);
    EXPECT_EQ(explore::mapsLayerLabel(*maps, 0), "layer 0 (model.layers.0.attn)");
    // The overview's tile names, in the figure and both explorers: the layer's number, the head.
    EXPECT_EQ(explore::mapsHeadLabel(*maps, 1, 2), "L1 h2");
    EXPECT_EQ(explore::mapsHeadLabel(*maps, 5, 0), "layer index 5 h0");
}

}  // namespace

// The overview's label bands: kept where there is room, dropped where a band per row would
// halve the tiles (24 layers x 16 heads in a 720p view kept 14 layers as 1 px tiles).
TEST(AttentionMapsView, OverviewDropsItsLabelBandsWhenTheyWouldHalveTheTiles) {
    const std::int64_t t = 4;
    std::vector<std::string> names;
    std::vector<std::vector<float>> layers;
    const std::vector<double> slopes(16, 0.5);
    for (int l = 0; l < 24; ++l) {
        names.push_back("model.layers." + std::to_string(l) + ".attn");
        layers.push_back(causalMaps(slopes, t, 0.0, l));
    }
    const std::string file = safetensorsBytes(names, {16, t, t}, layers);
    auto maps = alibi::AttentionMaps::fromBytes(asBytes(file), true);
    ASSERT_TRUE(maps) << maps.error().message;
    alibi::MapsHeatmapParams params;
    params.width = 1100;
    params.height = 560;
    params.labelBand = 20;
    auto deep = alibi::renderAttentionOverview(*maps, params, 1);
    ASSERT_TRUE(deep) << deep.error().message;
    // With a band per row: 24 rows of (560 - 23 x 2 - 24 x 20) / 24 = 1 px tiles. Without:
    // (560 - 46) / 24 = 21 px, every layer and head.
    EXPECT_EQ(deep->labelBand, 0);
    ASSERT_EQ(deep->map.tiles.size(), 384u);
    EXPECT_EQ(deep->map.tiles.front().width, 21);
    // Two layers of three heads in the same room keep their bands: every tile below one.
    const std::vector<std::vector<float>> two{causalMaps({0.5, 0.25, 2.0}, 16, 0.0, 1),
                                              causalMaps({0.5, 0.25, 2.0}, 16, 0.3, 2)};
    // The maps read the bytes in place: they live as long as the maps.
    const std::string twoFile = safetensorsBytes({"model.layers.0.attn", "model.layers.1.attn"}, {3, 16, 16}, two);
    auto small = alibi::AttentionMaps::fromBytes(asBytes(twoFile), true);
    ASSERT_TRUE(small) << small.error().message;
    auto roomy = alibi::renderAttentionOverview(*small, params, 1);
    ASSERT_TRUE(roomy) << roomy.error().message;
    EXPECT_EQ(roomy->labelBand, 20);
    for (const alibi::HeatmapTile& tile : roomy->map.tiles) EXPECT_GE(tile.y, 20);
}

// The fit table's columns a lesson compares (lesson 5 step 2: m* and its interval against the
// configured m) sit side by side in the core's order, so both explorers show them together on a
// 1280x720 projector (ImGui scrolled "configured m" out of view behind KL; Qt had moved it itself).
TEST(AttentionMapsView, FitColumnsTheLessonComparesSitTogether) {
    using explore::FitColumn;
    EXPECT_EQ(static_cast<int>(FitColumn::SlopeLow), static_cast<int>(FitColumn::Slope) + 1);
    EXPECT_EQ(static_cast<int>(FitColumn::SlopeHigh), static_cast<int>(FitColumn::Slope) + 2);
    EXPECT_EQ(static_cast<int>(FitColumn::ConfiguredSlope), static_cast<int>(FitColumn::Slope) + 3);
    EXPECT_EQ(static_cast<int>(FitColumn::SlopeRatio), static_cast<int>(FitColumn::Slope) + 4);
}
