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

}  // namespace alibi
