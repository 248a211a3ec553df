// The picture an attention-maps view shows in its room (renderMapsPicture), decided once for both
// explorers: square cells for one head whatever the file's shape, the overview cut to its tiles,
// each tile's label forms, and the hit test naming the tile's layer.
#include <alibi/figure/maps_picture.hpp>

#include "../attention_maps_fixture.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace alibi::test;

// Two layers of four heads, 32 x 32 causal maps.
std::string twoLayers() {
    auto a = causalMaps({0.5, 0.25, 0.125, 0.0625}, 32, 0.0, 1);
    const auto b = causalMaps({0.0625, 0.125, 0.25, 2.0}, 32, 0.0, 1);
    a.insert(a.end(), b.begin(), b.end());
    return npyBytes({2, 4, 32, 32}, a);
}

// The right and bottom edge of a picture's tiles.
std::pair<int, int> tilesExtent(const alibi::Heatmap& map) {
    int right = 0, bottom = 0;
    for (const alibi::HeatmapTile& t : map.tiles) {
        right = std::max(right, t.x + t.width);
        bottom = std::max(bottom, t.y + t.height);
    }
    return {right, bottom};
}

TEST(MapsPicture, OneHeadOfAWideFileHasSquareCells) {
    // 16 query rows (the file's last 16 positions) x 64 keys in a 400 x 400 room: square cells
    // are 400 / 64 = 6.25 px, so the picture is 400 x 100 (Qt drew 400 x 400: cells 6.25 x 25).
    std::mt19937_64 rng(1);
    std::vector<float> data;
    for (std::int64_t q = 0; q < 16; ++q)
        for (const double v : causalRow(0.25, q + 48, 64, 0.0, rng, false)) data.push_back(static_cast<float>(v));
    const std::string file = npyBytes({1, 1, 16, 64}, data);
    auto maps = alibi::AttentionMaps::fromBytes(asBytes(file), false);
    ASSERT_TRUE(maps) << maps.error().message;
    alibi::MapsPictureRequest request;
    request.shows = alibi::MapsShows::Head;
    request.width = request.height = 400;
    auto picture = alibi::renderMapsPicture(*maps, request, 1);
    ASSERT_TRUE(picture) << picture.error().message;
    EXPECT_EQ(picture->map.image.width, 400);
    EXPECT_EQ(picture->map.image.height, 100);
    EXPECT_EQ(picture->tileLayer, std::vector<int>{0});
    EXPECT_TRUE(alibi::mapsTileLabelForms(*maps, *picture, alibi::ScaleMode::Shared).front().empty());
}

TEST(MapsPicture, TheOverviewIsCutToItsTilesAndNamesTheirLayers) {
    const std::string file = twoLayers();
    auto maps = alibi::AttentionMaps::fromBytes(asBytes(file), false);
    ASSERT_TRUE(maps) << maps.error().message;
    alibi::MapsPictureRequest request;
    request.shows = alibi::MapsShows::Overview;
    request.width = 1000;  // 2 rows of 4 square tiles in 1000 x 300: about 140 px each, far from 1000 wide
    request.height = 300;
    request.labelBand = 14;
    auto picture = alibi::renderMapsPicture(*maps, request, 1);
    ASSERT_TRUE(picture) << picture.error().message;
    ASSERT_EQ(picture->map.tiles.size(), 8u);
    const auto [right, bottom] = tilesExtent(picture->map);
    EXPECT_EQ(picture->map.image.width, right);
    EXPECT_EQ(picture->map.image.height, bottom);
    EXPECT_LT(right, 1000);
    EXPECT_EQ(picture->labelBand, 14);
    // Tile n shows layer n / 4, head n % 4; its first form names both ("L1 h2": the file's layer numbers).
    const auto forms = alibi::mapsTileLabelForms(*maps, *picture, alibi::ScaleMode::Shared);
    for (std::size_t n = 0; n < 8; ++n) {
        const int layer = picture->tileLayer[n], head = picture->map.tiles[n].head;
        EXPECT_EQ(layer, static_cast<int>(n / 4));
        EXPECT_EQ(head, static_cast<int>(n % 4));
        EXPECT_EQ(forms[n].front(), "L" + std::to_string(maps->layerInfo()[static_cast<std::size_t>(layer)].number) +
                                        " h" + std::to_string(head));
        // The centre of the tile hits that tile's layer and head.
        const alibi::HeatmapTile& t = picture->map.tiles[n];
        const auto hit = alibi::mapsPictureHit(*picture, *maps, t.x + t.width / 2, t.y + t.height / 2);
        ASSERT_TRUE(hit) << n;
        EXPECT_EQ(hit->layerIndex, layer);
        EXPECT_EQ(hit->cell.head, head);
    }
    EXPECT_FALSE(alibi::mapsPictureHit(*picture, *maps, right + 5, 0));
}

TEST(MapsPicture, ALayersTilesCarryTheirSlopesAndUnderPerHeadScalesTheirRanges) {
    const std::string file = twoLayers();
    auto maps = alibi::AttentionMaps::fromBytes(asBytes(file), false);
    ASSERT_TRUE(maps) << maps.error().message;
    alibi::MapsPictureRequest request;
    request.shows = alibi::MapsShows::Layer;
    request.layerIndex = 1;
    request.width = 1200;
    request.height = 400;
    request.labelBand = 14;
    auto picture = alibi::renderMapsPicture(*maps, request, 1);
    ASSERT_TRUE(picture) << picture.error().message;
    ASSERT_EQ(picture->map.tiles.size(), 4u);
    EXPECT_EQ(picture->tileLayer, std::vector<int>(4, 1));
    EXPECT_EQ(picture->labelBand, 14);
    const auto slopes = [](int layer, int head) {
        EXPECT_EQ(layer, 1);
        return alibi::explore::HeadSlopes{0.25 * (head + 1), 0.5};
    };
    const auto forms = alibi::mapsTileLabelForms(*maps, *picture, alibi::ScaleMode::Shared, slopes);
    EXPECT_EQ(forms[0].front(), "h0  m* = 0.25  m = 1/2");
    EXPECT_EQ(forms[1].front(), "h1  m* = 0.5  m = 1/2");
    EXPECT_EQ(forms[1].back(), "1");
    // Per-head scales: each tile's own range first. Head 3 (m = 2) has its smallest shown value
    // e^-62 / (1 + e^-2 + ...) far below 1e-20: the range starts at 0 either way, and ends at 1
    // (row 0 puts everything on key 0).
    const auto ranged = alibi::mapsTileLabelForms(*maps, *picture, alibi::ScaleMode::PerHead, slopes);
    for (const auto& f : ranged) {
        EXPECT_NE(f.front().find("  ["), std::string::npos) << f.front();
        EXPECT_NE(f.front().find(", 1]"), std::string::npos) << f.front();
    }
}

TEST(MapsPicture, BadRequestsSayWhatTheFileHas) {
    const std::string file = twoLayers();
    auto maps = alibi::AttentionMaps::fromBytes(asBytes(file), false);
    ASSERT_TRUE(maps) << maps.error().message;
    alibi::MapsPictureRequest request;
    request.shows = alibi::MapsShows::Layer;
    request.layerIndex = 2;
    auto layer = alibi::renderMapsPicture(*maps, request, 1);
    ASSERT_FALSE(layer);
    EXPECT_EQ(layer.error().message, "layer index 2 is out of range: the file has 2 layers");
    request.shows = alibi::MapsShows::Head;
    request.layerIndex = 0;
    request.head = 4;
    auto head = alibi::renderMapsPicture(*maps, request, 1);
    ASSERT_FALSE(head);
    EXPECT_EQ(head.error().message, "head 4 is out of range: the maps have heads 0 to 3");
}

}  // namespace
