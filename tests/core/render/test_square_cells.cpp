// squareCellPicture: the picture size at which the tile placement every heatmap uses gives square
// cells, the one rule both explorers ask with (each had its own copy). Golden sizes worked out by
// hand below from the placement's rule (gridLayout, gaps, a label band per row).
#include <alibi/render/render.hpp>
#include <alibi/render/square_cells.hpp>

#include <gtest/gtest.h>

#include <numeric>
#include <vector>

using namespace alibi;

namespace {

std::vector<HeatmapTile> placed(int tiles, TileSize picture, int gap, int band) {
    std::vector<int> heads(static_cast<std::size_t>(tiles));
    std::iota(heads.begin(), heads.end(), 0);
    Heatmap map;
    return placeHeatmapTiles(heads, picture.width, picture.height, gap, map, band);
}

}  // namespace

TEST(SquareCellPicture, EightHeadsOfSixtyFourSquare) {
    // 4 x 2 tiles: (1264 - 3 * 4) / 4 = 313 wide, (600 - 4 - 2 * 20) / 2 = 278 tall: 278 px tiles
    // (4.34 px cells); 8 x 1 gives 154 px and 3 x 3 gives 177 px. The picture: 4 * 278 + 12 wide,
    // 2 * 278 + 4 + 2 * 20 tall.
    const TileSize picture = squareCellPicture(8, 64, 64, 1264, 600, 4, 20);
    EXPECT_EQ(picture.width, 1124);
    EXPECT_EQ(picture.height, 600);
    for (const HeatmapTile& t : placed(8, picture, 4, 20)) {
        EXPECT_EQ(t.width, 278);
        EXPECT_EQ(t.height, 278);
    }
}

TEST(SquareCellPicture, ABatchOfSixteenSmallTilesAndOneWideRow) {
    const TileSize batch = squareCellPicture(16, 8, 8, 600, 400, 4, 20);
    EXPECT_LE(batch.width, 600);
    EXPECT_LE(batch.height, 400);
    for (const HeatmapTile& t : placed(16, batch, 4, 20)) EXPECT_EQ(t.width, t.height);
    // One head of 1 query x 10 keys: 400 x 40, cells of 40 px.
    const TileSize row = squareCellPicture(1, 1, 10, 400, 300, 4, 0);
    EXPECT_EQ(row.width, 400);
    EXPECT_EQ(row.height, 40);
}

TEST(SquareCellGrid, ManyHeadsInAShortRoomDropTheLabelBands) {
    // 112 heads of 16 x 16 in 1250 x 190 with 20 px bands: the layouts the placement keeps with a
    // band over every row leave a strip about 25 px wide (the ImGui grid at 1280x720); without the
    // bands the tiles are more than twice as wide, so the rule takes that picture and no band.
    const SquareCellGrid many = squareCellGrid(112, 16, 16, 1250, 190, 2, 20);
    const TileSize banded = squareCellPicture(112, 16, 16, 1250, 190, 2, 20);
    EXPECT_LT(banded.width, 100);
    EXPECT_EQ(many.labelBand, 0);
    EXPECT_GT(many.picture.width, 600);
    EXPECT_LE(many.picture.width, 1250);
    EXPECT_LE(many.picture.height, 190);
    // Eight heads in a roomy view keep their bands (the grid's usual request).
    const SquareCellGrid eight = squareCellGrid(8, 64, 64, 1264, 600, 4, 20);
    EXPECT_EQ(eight.labelBand, 20);
    EXPECT_EQ(eight.picture.width, 1124);
    EXPECT_EQ(eight.picture.height, 600);
}

TEST(SquareCellGrid, NoSquareCellsWithBandsButSquareWithoutDropTheBands) {
    // 112 heads of 16 x 16 in 300 x 140 with 10 px bands: no picture within the room gives square
    // cells with a band over every row (the Qt grid kept the room itself: BLOOM-176B at 720p drew
    // 2.44 x 1.81 px cells); without the bands one does, and the rule takes it.
    const SquareCellGrid grid = squareCellGrid(112, 16, 16, 300, 140, 4, 10);
    EXPECT_EQ(grid.labelBand, 0);
    EXPECT_LE(grid.picture.width, 300);
    EXPECT_LE(grid.picture.height, 140);
    for (const HeatmapTile& t : placed(112, grid.picture, 4, grid.labelBand)) EXPECT_EQ(t.width, t.height);
}

TEST(CellsAround, AllCellsWhenTheyFit) {
    const CellRange all = cellsAround(16, 12, 600, 37.5);  // 16 x 37.5 = 600
    EXPECT_EQ(all.first, 0);
    EXPECT_EQ(all.count, 16);
}

TEST(CellsAround, WholeCellsWithTheMarkedOneInTheMiddle) {
    // 16 cells of 55 px in 400 px: floor(400 / 55) = 7 whole cells; key 12 in the middle of them
    // is keys 9..15 (12 - (7 - 1) / 2 = 9), which ends at the last key.
    const CellRange keys = cellsAround(16, 12, 400, 55);
    EXPECT_EQ(keys.first, 9);
    EXPECT_EQ(keys.count, 7);
    // Key 8: 8 - 3 = 5, keys 5..11.
    EXPECT_EQ(cellsAround(16, 8, 400, 55).first, 5);
}

TEST(CellsAround, MovedInAtTheEnds) {
    // 7 whole cells of 16: key 15 would start at 12 and run past the end; they end at key 15.
    EXPECT_EQ(cellsAround(16, 15, 400, 55).first, 9);
    // Key 1 would start at -2: they start at key 0.
    EXPECT_EQ(cellsAround(16, 1, 400, 55).first, 0);
    // An even count: 6 whole cells (330 of 340 px), key 8 is the third of 6..11.
    const CellRange even = cellsAround(16, 8, 340, 55);
    EXPECT_EQ(even.first, 6);
    EXPECT_EQ(even.count, 6);
}

TEST(CellsAround, AtLeastOneCellAndNothingForNone) {
    const CellRange one = cellsAround(16, 4, 30, 55);
    EXPECT_EQ(one.first, 4);
    EXPECT_EQ(one.count, 1);
    EXPECT_EQ(cellsAround(0, 0, 400, 55).count, 0);
}

namespace {

TEST(CitedZoomCell, TakesSmallerCellsOnlyWhereTheyShowWholeRowsOrKeys) {
    // 4 x 16 cells in 585 x 135 px, numbers needing 45 px (lesson 4 step 5 with the panel): at
    // 45 px only 3 rows fit; 33 px (135 / 4) shows every row, and numbers still print from 30 px.
    EXPECT_EQ(citedZoomCell(45, 30, 585, 135, 4, 16), 33);
    // The whole head (36 = 585 / 16 keys, 33 rows) is preferred where it fits: 4 x 16 in
    // 600 x 600 px shows everything at 37 px.
    EXPECT_EQ(citedZoomCell(45, 30, 600, 600, 4, 16), 37);
    // Every row would need 27 px cells, under `least`; every key shows at 36 px.
    EXPECT_EQ(citedZoomCell(45, 30, 585, 108, 4, 16), 36);
    // Neither rows (27 px) nor keys (25 px) fit at 30 px or more: the numbers' own 45 px stay.
    EXPECT_EQ(citedZoomCell(45, 30, 400, 108, 4, 16), 45);
    // least = need never shrinks (Qt's 9 pt floor); the room still caps the cell.
    EXPECT_EQ(citedZoomCell(45, 45, 585, 135, 4, 16), 45);
    EXPECT_EQ(citedZoomCell(45, 45, 40, 135, 4, 16), 40);
}

}  // namespace
