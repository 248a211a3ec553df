// Square cells (square_cells.hpp): the tile and picture sizes that give square cells, and the
// whole cells a zoomed view shows around a marked one.
#include <alibi/render/render.hpp>
#include <alibi/render/square_cells.hpp>

#include <algorithm>
#include <cmath>
#include <optional>

namespace alibi {

TileSize squareCellTile(int width, int height, std::int64_t queries, std::int64_t keys) {
    const double K = static_cast<double>(std::max<std::int64_t>(keys, 1));
    const double Q = static_cast<double>(std::max<std::int64_t>(queries, 1));
    const int w = std::max(width, 1), h = std::max(height, 1);
    const double cell = std::min(w / K, h / Q);
    return {std::clamp(static_cast<int>(std::floor(cell * K)), 1, w),
            std::clamp(static_cast<int>(std::floor(cell * Q)), 1, h)};
}

namespace {

// squareCellPicture's search: nothing when no size within the room gives square cells.
std::optional<TileSize> findSquareCellPicture(int tiles, std::int64_t queries, std::int64_t keys, int width, int height,
                                              int gap, int labelBand) {
    tiles = std::max(tiles, 1);
    gap = std::max(gap, 0);
    std::optional<TileSize> best;
    double bestCell = -1;
    // The band the placement leaves above each of `rows` rows of a picture `h` tall (placeTiles).
    const auto bandFor = [labelBand](int h, int rows) { return std::clamp(labelBand, 0, std::max(0, h / (4 * rows))); };
    for (int c = 1; c <= tiles; ++c) {
        const int r = (tiles + c - 1) / c;
        const int band = bandFor(height, r);
        const int roomW = (width - gap * (c - 1)) / c, roomH = (height - gap * (r - 1) - band * r) / r;
        if (roomW < 1 || roomH < 1) continue;
        const TileSize tile = squareCellTile(roomW, roomH, queries, keys);
        const int w = c * tile.width + gap * (c - 1);
        int h = r * tile.height + gap * (r - 1) + band * r;
        // The smaller picture may leave a smaller band (a quarter of its height at most): then
        // ask for that band's height, if the placement keeps it.
        const int smallerBand = bandFor(h, r);
        if (smallerBand != band) {
            h = r * tile.height + gap * (r - 1) + smallerBand * r;
            if (bandFor(h, r) != smallerBand) continue;
        }
        // The placement picks its columns from the picture's size alone: keep sizes where it
        // picks these.
        const GridLayout layout = tiles == 1 ? GridLayout{1, 1} : gridLayout(tiles, w, h);
        if (layout.columns != c || layout.rows != r) continue;
        const double cell = static_cast<double>(tile.width) / static_cast<double>(std::max<std::int64_t>(keys, 1));
        if (cell > bestCell + 1e-9) bestCell = cell, best = TileSize{w, h};
    }
    return best;
}

}  // namespace

TileSize squareCellPicture(int tiles, std::int64_t queries, std::int64_t keys, int width, int height, int gap,
                           int labelBand) {
    return findSquareCellPicture(tiles, queries, keys, width, height, gap, labelBand)
        .value_or(TileSize{std::max(width, 1), std::max(height, 1)});
}

SquareCellGrid squareCellGrid(int tiles, std::int64_t queries, std::int64_t keys, int width, int height, int gap,
                              int labelBand) {
    const std::optional<TileSize> banded = findSquareCellPicture(tiles, queries, keys, width, height, gap, labelBand);
    const TileSize room{std::max(width, 1), std::max(height, 1)};
    if (tiles <= 1 || labelBand <= 0) return {banded.value_or(room), labelBand};
    const std::optional<TileSize> bare = findSquareCellPicture(tiles, queries, keys, width, height, gap, 0);
    // No square cells with the bands (BLOOM-176B's 112 heads at 720p: 2.44 x 1.81 px cells) but
    // square ones without: the labels go over the tiles' masked corners instead.
    if (!banded) return bare ? SquareCellGrid{*bare, 0} : SquareCellGrid{room, labelBand};
    if (!bare) return {*banded, labelBand};
    const auto tileWidth = [&](const TileSize& size) {
        const int columns = std::max(gridLayout(tiles, size.width, size.height).columns, 1);
        return (size.width - std::max(gap, 0) * (columns - 1)) / columns;
    };
    if (tileWidth(*bare) >= 2 * tileWidth(*banded)) return {*bare, 0};
    return {*banded, labelBand};
}

CellRange cellsAround(std::int64_t count, std::int64_t marked, double length, double cell) {
    if (count <= 0) return {};
    if (!(cell > 0) || cell * static_cast<double>(count) <= length + 1e-9) return {0, count};
    const auto whole = std::clamp<std::int64_t>(static_cast<std::int64_t>(std::floor(length / cell + 1e-9)), 1, count);
    const std::int64_t centre = std::clamp<std::int64_t>(marked, 0, count - 1);
    return {std::clamp<std::int64_t>(centre - (whole - 1) / 2, 0, count - whole), whole};
}

double citedZoomCell(double need, double least, double width, double height, std::int64_t queries, std::int64_t keys) {
    double cell = std::max(1.0, std::min({need, width, height}));
    if (queries <= 0 || keys <= 0) return cell;
    const double rows = std::floor(height / static_cast<double>(queries));
    const double columns = std::floor(width / static_cast<double>(keys));
    for (const double whole : {std::min(rows, columns), rows, columns})
        if (whole >= least && whole < cell) return whole;
    return cell;
}

}  // namespace alibi
