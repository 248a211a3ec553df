// Heatmaps of saved attention maps: the diagonal of a steep head survives downsampling, keys
// after a causal query are drawn masked, and the colour range is the exact range of every cell
// shown, whatever the decimation.
#include <alibi/figure/attention_maps_render.hpp>

#include "../attention_maps_fixture.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

namespace {

using namespace alibi::test;

TEST(AttentionMapsRender, SteepDiagonalLightsEveryPixelRowAndTheRangeIsExact) {
    const std::int64_t t = 1024;
    const double m = 2.0;
    const std::string file = npyBytes({1, t, t}, causalMaps({m}, t, 0.0, 1));
    auto maps = alibi::AttentionMaps::fromBytes(asBytes(file), false);
    ASSERT_TRUE(maps) << maps.error().message;
    alibi::MapsHeatmapParams params;
    params.width = params.height = 128;  // 8 x 8 cells per pixel
    auto map = alibi::renderAttentionMaps(*maps, params, 1);
    ASSERT_TRUE(map) << map.error().message;
    EXPECT_TRUE(map->rowsSampled);
    EXPECT_NE(map->summary.find("1 px = 8 x 8 cells, max over keys"), std::string::npos) << map->summary;
    // Row q's diagonal holds (1 - r) / (1 - r^(q+1)), r = e^-m: the largest value of the row. The
    // colour range is that of every cell, the rows between drawn rows included (issue 25): row 0
    // puts everything on key 0, so the maximum is 1 although row 0 is not a drawn row.
    const double r = std::exp(-m);
    EXPECT_EQ(alibi::pixelCells(0, 128, t).first, 0);
    EXPECT_NE((alibi::pixelCells(0, 128, t).first + alibi::pixelCells(0, 128, t).last) / 2, 0);
    EXPECT_EQ(map->hi, 1.0);
    for (int y = 0; y < 128; ++y) {
        const auto rows = alibi::pixelCells(y, 128, t);
        const double q = static_cast<double>((rows.first + rows.last) / 2);
        const double peak = (1 - r) / (1 - std::pow(r, q + 1));
        const alibi::Rgba top = alibi::valueColor(alibi::Colormap::Viridis, peak, map->lo, map->hi);
        const auto& diagonal = map->image.at(y, y);
        // Every pixel row's diagonal pixel holds its row's peak.
        EXPECT_NEAR(diagonal.r, top.r, 3) << y;
        EXPECT_NEAR(diagonal.g, top.g, 3) << y;
        if (y + 1 < 128) {
            const auto& after = map->image.at(y + 1, y);
            EXPECT_EQ(after.r, alibi::kMaskedColor.r) << y;  // keys after the query are masked
            EXPECT_EQ(after.g, alibi::kMaskedColor.g) << y;
        }
    }
    const auto hit = alibi::mapsHitTest(*map, *maps, 10, 20);
    ASSERT_TRUE(hit);
    EXPECT_EQ(hit->query, (20 * 8 + 20 * 8 + 7) / 2);
    EXPECT_EQ(hit->key, 80);
}

TEST(AttentionMapsRender, GridOfHeadsAndBadRequests) {
    const std::int64_t t = 32;
    const std::string file = npyBytes({2, 4, t, t}, [&] {
        auto a = causalMaps({0.5, 0.25, 0.125, 0.0625}, t, 0.0, 1);
        auto b = causalMaps({0.0625, 0.125, 0.25, 0.5}, t, 0.0, 1);
        a.insert(a.end(), b.begin(), b.end());
        return a;
    }());
    auto maps = alibi::AttentionMaps::fromBytes(asBytes(file), false);
    ASSERT_TRUE(maps);
    alibi::MapsHeatmapParams params;
    params.layerIndex = 1;
    params.width = 400;
    params.height = 300;
    params.scale = alibi::ScaleMode::PerHead;
    auto map = alibi::renderAttentionMaps(*maps, params);
    ASSERT_TRUE(map) << map.error().message;
    ASSERT_EQ(map->tiles.size(), 4u);
    EXPECT_EQ(map->columns * map->rows >= 4, true);
    EXPECT_FALSE(map->rowsSampled);  // 32 rows into ~140-pixel tiles: every row drawn
    // A per-head scale leaves out row 0 (one key, p = 1): each tile's top is row 1's larger
    // probability, 1 / (1 + e^-m) for layer 1's slopes.
    const double slopes[] = {0.0625, 0.125, 0.25, 0.5};
    for (std::size_t h = 0; h < map->tiles.size(); ++h)
        EXPECT_NEAR(map->tiles[h].hi, 1.0 / (1.0 + std::exp(-slopes[h])), 1e-6) << h;
    params.layerIndex = 2;
    EXPECT_FALSE(alibi::renderAttentionMaps(*maps, params));
    params.layerIndex = 0;
    params.head = 4;
    EXPECT_FALSE(alibi::renderAttentionMaps(*maps, params));
}

TEST(AttentionMapsRender, SimilarityMatrixInClusterOrder) {
    alibi::DistanceMatrix d;
    d.n = 3;
    d.values = {0, 0.9, 0.1, 0.9, 0, 0.8, 0.1, 0.8, 0};
    const auto map = alibi::renderSimilarity(d, {0, 2, 1}, alibi::Colormap::Viridis, 3, 3);
    // Row 0 column 2 of the picture is heads 0 and 1: the largest distance, the top colour.
    const auto top = alibi::valueColor(alibi::Colormap::Viridis, 0.9, 0, 0.9);
    EXPECT_EQ(map.image.at(2, 0).r, top.r);
    EXPECT_EQ(map.image.at(2, 0).g, top.g);
    EXPECT_DOUBLE_EQ(map.hi, 0.9);
}

TEST(AttentionMapsRender, OverviewFigureDrawsEveryLayerAtTheScaleAsked) {
    const std::int64_t t = 32;
    const std::string file = npyBytes({2, 4, t, t}, [&] {
        auto a = causalMaps({0.5, 0.25, 0.125, 0.0625}, t, 0.0, 1);
        auto b = causalMaps({0.0625, 0.125, 0.25, 2.0}, t, 0.0, 1);
        a.insert(a.end(), b.begin(), b.end());
        return a;
    }());
    auto maps = alibi::AttentionMaps::fromBytes(asBytes(file), false);
    ASSERT_TRUE(maps);
    EXPECT_EQ(alibi::attentionOverviewTitle(*maps), "Saved attention · all 2 layers x 4 heads · 32 queries x 32 keys");
    alibi::MapsHeatmapParams params;
    params.width = 900;
    params.height = 500;
    auto one = alibi::renderAttentionOverviewFigure(*maps, params, 1, 1);
    auto two = alibi::renderAttentionOverviewFigure(*maps, params, 1, 2);
    ASSERT_TRUE(one) << one.error().message;
    ASSERT_TRUE(two) << two.error().message;
    EXPECT_EQ(one->width, 900);
    EXPECT_EQ(one->height, 500);
    EXPECT_EQ(two->width, 1800);
    EXPECT_EQ(two->height, 1000);
    // Row 0 of every head puts all its mass on key 0: the top of the shared scale is 1 and shows
    // in both figures; keys after a causal query are in the mask colour.
    const alibi::Rgba top = alibi::valueColor(alibi::Colormap::Viridis, 1.0, 0.0, 1.0);
    for (const alibi::Image* image : {&*one, &*two}) {
        int tops = 0, masked = 0;
        for (const alibi::Rgba& p : image->pixels) {
            tops += p.r == top.r && p.g == top.g && p.b == top.b;
            masked += p.r == alibi::kMaskedColor.r && p.g == alibi::kMaskedColor.g && p.b == alibi::kMaskedColor.b;
        }
        // Layer 1's head 3 (m = 2) keeps over 0.86 on its diagonal: more than 8 tiles' corners.
        EXPECT_GT(tops, 8) << image->width;
        EXPECT_GT(masked, image->width * image->height / 10) << image->width;
    }
    // Progress counts pixel rows over every tile and ends at the total; a false answer cancels.
    std::uint64_t lastDone = 0, lastTotal = 0;
    params.progress = [&](std::uint64_t done, std::uint64_t total) {
        EXPECT_GE(done, lastDone);
        lastDone = done;
        lastTotal = total;
        return true;
    };
    ASSERT_TRUE(alibi::renderAttentionOverviewFigure(*maps, params, 2, 1));
    EXPECT_GT(lastTotal, 8u * 32u);  // 8 tiles of more than 32 pixel rows
    EXPECT_EQ(lastDone, lastTotal);
    params.progress = [](std::uint64_t, std::uint64_t) { return false; };
    const auto cancelled = alibi::renderAttentionOverviewFigure(*maps, params, 2, 1);
    ASSERT_FALSE(cancelled);
    EXPECT_EQ(cancelled.error().code, alibi::ErrorCode::Cancelled);
    params.progress = {};
    params.width = 200;
    params.height = 150;  // too small for a frame: the tiles and the bar only, still a picture
    EXPECT_TRUE(alibi::renderAttentionOverviewFigure(*maps, params, 1, 1));
    params.width = 3;
    params.height = 3;
    EXPECT_FALSE(alibi::renderAttentionOverviewFigure(*maps, params, 1, 1));
}

TEST(AttentionMapsRender, FigureColourBarIsLogWhenTheColoursAre) {
    const std::int64_t t = 32;
    const std::string file = npyBytes({1, 2, t, t}, causalMaps({2.0, 0.5}, t, 0.0, 1));
    auto maps = alibi::AttentionMaps::fromBytes(asBytes(file), false);
    ASSERT_TRUE(maps);
    alibi::MapsHeatmapParams params;
    params.width = 200;
    params.height = 100;
    params.logScale = true;
    params.scale = alibi::ScaleMode::PerHead;
    auto map = alibi::renderAttentionMaps(*maps, params, 1);
    ASSERT_TRUE(map);
    // Head 0 (m = 2), row 31: its farthest key holds e^-62 (1 - e^-2) / (1 - e^-64), far below the
    // log floor of 1e-6 x the top; the bar starts at that floor, where the colours do.
    const alibi::ColorBar shared = alibi::attentionMapsColorBar(*maps, *map, -1, 5);
    EXPECT_TRUE(shared.log);
    EXPECT_EQ(shared.title, "probability (log)");
    EXPECT_TRUE(shared.maskedSwatch);  // causal maps
    EXPECT_DOUBLE_EQ(shared.lo, map->logLo);
    EXPECT_DOUBLE_EQ(shared.hi, 1.0);  // row 0 puts everything on key 0
    EXPECT_GT(shared.lo, 0.0);
    // Cells below the floor take its colour: the bar says "<=" at that end.
    EXPECT_TRUE(shared.belowFloor);
    EXPECT_EQ(shared.ticks.front().label.rfind("<= ", 0), 0u) << shared.ticks.front().label;
    // Per-head: tile 1's own floor and top.
    const alibi::ColorBar own = alibi::attentionMapsColorBar(*maps, *map, 1, 5);
    EXPECT_DOUBLE_EQ(own.lo, map->tiles[1].logLo);
    EXPECT_DOUBLE_EQ(own.hi, map->tiles[1].hi);
    params.logScale = false;
    auto linear = alibi::renderAttentionMaps(*maps, params, 1);
    ASSERT_TRUE(linear);
    const alibi::ColorBar plain = alibi::attentionMapsColorBar(*maps, *linear, -1, 5);
    EXPECT_FALSE(plain.log);
    EXPECT_EQ(plain.title, "probability");
    EXPECT_DOUBLE_EQ(plain.lo, linear->lo);
}

}  // namespace

namespace {

// Issue 25: rows uniform over their causal keys (row i is 1/(i+1) on keys 0..i), T = 1024: the
// true range is 1/1024 to 1. The decimated grids showed 0.0009794319 to 0.33333334 (Qt) and
// 0.0009803922 to 0.25 (ImGui), their drawn rows missing rows 0 and 1. Whatever the picture's
// size (and so which rows are drawn), the ends are the exact minimum and maximum of the cells.
TEST(AttentionMapsRender, ColourBarEndsOfADecimatedUniformMapAreExact) {
    const std::int64_t t = 1024;
    std::vector<float> data(static_cast<std::size_t>(t * t), 0.0f);
    for (std::int64_t i = 0; i < t; ++i)
        for (std::int64_t j = 0; j <= i; ++j)
            data[static_cast<std::size_t>(i * t + j)] = static_cast<float>(1.0 / static_cast<double>(i + 1));
    const std::string file = npyBytes({1, t, t}, data);
    auto maps = alibi::AttentionMaps::fromBytes(asBytes(file), false);
    ASSERT_TRUE(maps) << maps.error().message;
    for (const int size : {37, 100, 128, 300, 333, 1024, 2000}) {
        SCOPED_TRACE(size);
        for (const auto reduce : {alibi::Reduce::Max, alibi::Reduce::Mean}) {
            alibi::MapsHeatmapParams params;
            params.width = params.height = size;
            params.reduce = reduce;
            auto map = alibi::renderAttentionMaps(*maps, params, 1);
            ASSERT_TRUE(map) << map.error().message;
            EXPECT_EQ(map->hi, 1.0);
            EXPECT_EQ(map->lo, 1.0 / 1024);  // exact in f32, and the row sums to exactly 1
            const alibi::ColorBar bar = alibi::attentionMapsColorBar(*maps, *map, -1, 5);
            EXPECT_EQ(bar.lo, 1.0 / 1024);
            EXPECT_EQ(bar.hi, 1.0);
            // Per head (one tile), the same ends.
            EXPECT_EQ(map->tiles.front().hi, 1.0);
            EXPECT_EQ(map->tiles.front().lo, 1.0 / 1024);
        }
    }
}

}  // namespace

namespace {

// One head of causal maps over `t` keys, with or without a token per key.
std::string tokenFigureFile(std::int64_t t, bool tokens) {
    std::string list = "[";
    for (std::int64_t j = 0; j < t; ++j) list += (j ? ", " : "") + std::string("\" w") + std::to_string(j) + "\"";
    list += "]";
    std::vector<std::pair<std::string, std::string>> metadata = {{"model", "test"}};
    if (tokens) metadata.emplace_back("tokens", list);
    return safetensorsBytes({"attentions.0"}, {1, t, t}, {causalMaps({0.25}, t, 0.0, 1)}, metadata);
}

}  // namespace

TEST(AttentionMapsRender, FigureLabelsTheAxesWithTokensWhereTheyFit) {
    alibi::MapsHeatmapParams params;
    params.head = 0;
    params.width = 640;
    params.height = 520;
    const auto figure = [&](std::int64_t t, bool tokens) {
        const std::string file = tokenFigureFile(t, tokens);
        auto maps = alibi::AttentionMaps::fromBytes(asBytes(file), true);
        EXPECT_TRUE(maps) << maps.error().message;
        auto image = alibi::renderAttentionMapsFigure(*maps, params, 1, 1);
        EXPECT_TRUE(image) << image.error().message;
        return image->pixels;
    };
    // 8 keys: cells far more than a text line apart, the tokens replace the numbers.
    EXPECT_NE(figure(8, true), figure(8, false));
    // 120 keys: cells about 4 pixels apart, under a text line: every k-th token still labels
    // the axes (alibi/render/ticks.hpp tokenLabelStep), so the figure differs from the numbers'.
    EXPECT_NE(figure(120, true), figure(120, false));
    // 1000 keys: a cell is under a pixel, the step would pass kMaxTokenStep; the figure is the
    // one without tokens.
    EXPECT_EQ(figure(1000, true), figure(1000, false));
}
