// Square cells: the largest tile within a rectangle whose query x key cells are square (a query
// as tall as a key is wide). The head grid places its tiles so (HeatmapParams::squareCells), and a
// picture of one head (the attention maps' Head tab) asks the renderer for this size and is
// letterboxed in the rest of its room.
#pragma once

#include <cstdint>

namespace alibi {

struct TileSize {
    int width = 1;
    int height = 1;
};
// At least 1 x 1 pixel, never larger than width x height.
[[nodiscard]] TileSize squareCellTile(int width, int height, std::int64_t queries, std::int64_t keys);

// The picture size, within width x height, to ask the tile placement (placeHeatmapTiles,
// gridLayout: tiles filling the picture) for so that `tiles` tiles of queries x keys cells, `gap`
// pixels apart under a label band of `labelBand` pixels, come out with the largest square cells:
// for views whose pictures the core draws filling the size they ask for (the head grid, a layer of
// attention maps, Diagnose's error map), in every front end. width x height itself when no size
// gives square cells.
[[nodiscard]] TileSize squareCellPicture(int tiles, std::int64_t queries, std::int64_t keys, int width, int height,
                                         int gap, int labelBand);

// The head grid's request: squareCellPicture with a label band over each row, unless those bands
// cost more than half the tiles' width (many heads in a short room: 112 heads in 1250 x 190 px
// left a strip of 18 px tiles, 25 px wide in all); then the picture without bands, whose tiles'
// labels go over their masked corners. `labelBand` is the band to ask the placement for.
struct SquareCellGrid {
    TileSize picture;
    int labelBand = 0;
};
[[nodiscard]] SquareCellGrid squareCellGrid(int tiles, std::int64_t queries, std::int64_t keys, int width, int height,
                                            int gap, int labelBand);

// A zoomed picture of `count` cells along one side, `cell` pixels each, in `length` pixels: the
// whole cells it shows, `marked` in the middle of them (moved in at the ends: a window centred on
// a cell near the edge would cut the first column in half, without its header or number; issue
// 27 L1). At least one cell; every cell when they all fit. The head detail's zoom to a lesson's
// cited cell, in both explorers.
struct CellRange {
    std::int64_t first = 0;
    std::int64_t count = 0;
};
[[nodiscard]] CellRange cellsAround(std::int64_t count, std::int64_t marked, double length, double cell);

// The cell of a head detail zoomed to a lesson's cited cell, in both explorers: `need` (the cell
// in which the head's numbers print at the explorer's size, cellForNumbers) within the room of
// width x height; or, where a smaller whole-pixel cell, not under `least`, shows the whole head
// of queries x keys, else every row, else every key, that one: the room is used rather than left
// empty below or beside a cut picture (issue 27: rows 0-2 of 4 with 140 px empty below). An
// explorer that never prints smaller numbers passes least = need. At least 1.
[[nodiscard]] double citedZoomCell(double need, double least, double width, double height, std::int64_t queries,
                                   std::int64_t keys);

}  // namespace alibi
