// Two heads and their difference as one figure (see the header): two frames of the core's
// heatmap figure side by side, one per colour scale, so each scale has its bar.
#include <alibi/figure/head_compare_figure.hpp>

#include <alibi/base/image_size.hpp>
#include <alibi/figure/figure.hpp>
#include <alibi/render/color_scale.hpp>

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <vector>

namespace alibi {

namespace {

// `panels` (values row-major, NaN masked) side by side in a w x h picture, square tiles of
// `maxSide` pixels or as large as the room allows (all the same size), `band` pixels above each
// for its label.
Heatmap panelsHeatmap(const explore::HeadCompareResult& r, const std::vector<const std::vector<double>*>& panels,
                      Colormap colormap, double lo, double hi, int w, int h, int band, int gap, int maxSide) {
    Heatmap map;
    map.image.width = w;
    map.image.height = h;
    map.image.pixels.assign(static_cast<std::size_t>(w) * static_cast<std::size_t>(h), Rgba{0, 0, 0, 0});
    const int n = static_cast<int>(panels.size());
    const int side = std::max(1, std::min({(w - (n - 1) * gap) / n, h - band, maxSide}));
    map.columns = n;
    map.rows = 1;
    map.lo = lo;
    map.hi = hi;
    for (int p = 0; p < n; ++p) {
        ValueGridParams grid;
        grid.heads = 1;
        grid.queries = r.queries;
        grid.keys = r.keys;
        grid.colormap = colormap;
        grid.lo = lo;
        grid.hi = hi > lo ? hi : lo + 1e-12;
        grid.width = side;
        grid.height = side;
        grid.gap = 0;
        const std::vector<double>& values = *panels[static_cast<std::size_t>(p)];
        const Heatmap one =
            renderValueGrid(grid, [&](int, std::int64_t q, std::int64_t k) { return r.valueAt(values, q, k); });
        HeatmapTile tile = one.tiles.empty() ? HeatmapTile{} : one.tiles.front();
        const int x0 = p * (side + gap) - tile.x, y0 = band - tile.y;
        for (int y = tile.y; y < tile.y + tile.height; ++y)
            for (int x = tile.x; x < tile.x + tile.width; ++x)
                if (x0 + x < w && y0 + y < h) map.image.at(x0 + x, y0 + y) = one.image.at(x, y);
        tile.head = p;
        tile.x += x0;
        tile.y += y0;
        tile.lo = lo;
        tile.hi = hi;
        map.tiles.push_back(tile);
        map.cellsPerPixelX = static_cast<double>(r.keys) / std::max(tile.width, 1);
        map.cellsPerPixelY = static_cast<double>(r.queries) / std::max(tile.height, 1);
    }
    return map;
}

// The room heatmapFigure leaves a frame's heatmap at this size (measured with a blank map).
struct MapRoom {
    int width = 0, height = 0, band = 0;
};
Result<MapRoom> mapRoom(int width, int height, const FigureFrame& frame) {
    MapRoom room;
    auto measured = heatmapFigure(width, height, frame, [&](int w, int h, int band) -> Result<Heatmap> {
        room = {w, h, band};
        Heatmap blank;
        blank.image.width = w;
        blank.image.height = h;
        blank.image.pixels.assign(static_cast<std::size_t>(w) * static_cast<std::size_t>(h), Rgba{0, 0, 0, 0});
        return blank;
    });
    if (!measured) return std::unexpected(measured.error());
    return room;
}

}  // namespace

Result<HeadCompareFigure> renderHeadCompareFigure(const AttentionMaps& maps, const explore::HeadCompareResult& r,
                                                  const HeadCompareFigureParams& params) {
    const int scale = std::clamp(params.scale, 1, 4);
    // No height: laid out as tall as it is wide (the tiles are then bound by the width), then cut
    // below its lowest drawn row.
    const bool natural = params.height <= 0;
    const int layoutHeight = natural ? params.width : params.height;
    if (auto ok = checkImageSize(params.width, layoutHeight, scale, "figure"); !ok) return std::unexpected(ok.error());
    const int width = params.width * scale, height = layoutHeight * scale;
    const int gap = 6 * scale;

    FigureFrame both;
    both.colormap = params.colormap;
    both.title = explore::headCompareTitle(r);
    both.queries = r.queries;
    both.keys = r.keys;
    both.keyTokens = r.keyTokens;
    both.queryTokens = r.queryTokens;
    both.scale = scale;
    // One font for the three panels, chosen for the whole figure (a natural height is about 0.38
    // of the width), so A | B and B - A read alike.
    both.fontSize = figureFontSize(params.width, natural ? params.width * 0.38 : params.height);
    both.titleLines = 2;    // the B - A frame beside it reserves as many: the three tiles start level
    both.captionLines = 3;  // and end level (the difference's caption needs three lines)
    const double lo = std::min(r.a.lo, r.b.lo), hi = std::max(r.a.hi, r.b.hi);
    both.colorBar = [&](const Heatmap&, int, int ticks) {
        ColorBar bar = makeColorBar(lo, std::max(hi, lo), false, DType::F32, ticks);
        markColorBarEnds(bar);
        bar.title = "probability (A and B)";
        bar.maskedSwatch = r.causal;
        return bar;
    };
    both.tileLabel = [&](int tile) { return tile == 0 ? "A · " + r.a.label : "B · " + r.b.label; };
    both.caption = [&](const Heatmap&) { return fmt::format("A: {} · B: {}", r.a.fitLine, r.b.fitLine); };

    FigureFrame diff = both;
    diff.colormap = Colormap::Diverging;
    diff.title = "B - A";
    const double top = r.maxAbsDifference > 0 ? r.maxAbsDifference : 1e-12;
    diff.colorBar = [&](const Heatmap&, int, int ticks) {
        ColorBar bar = makeColorBar(-top, top, false, DType::F32, ticks);
        markColorBarEnds(bar);
        bar.title = "B - A";
        bar.maskedSwatch = r.causal;
        return bar;
    };
    diff.tileLabel = [](int) { return std::string("B - A"); };
    diff.caption = [&](const Heatmap&) {
        // Parts joined by " · " so the caption wraps between them in the narrow frame.
        return explore::headCompareMaxLine(maps, r) + " · a scale symmetric about 0: red B > A, blue B < A" +
               (r.causal ? " · masked: keys after the query" : "");
    };

    // Two tiles and a frame at the left, one tile and a frame at the right, all three tiles the
    // same size: measure what each frame takes around its heatmap at a first split, then give
    // the left two tiles' width of the room and the right one tile's (what is left over, when
    // the height limits the tiles, is shared out in the same proportion).
    const int trial = static_cast<int>(std::lround(width * 0.6));
    auto leftRoom = mapRoom(trial, height, both);
    if (!leftRoom) return std::unexpected(leftRoom.error());
    auto rightRoom = mapRoom(width - trial, height, diff);
    if (!rightRoom) return std::unexpected(rightRoom.error());
    const int leftAround = trial - leftRoom->width, rightAround = width - trial - rightRoom->width;
    const int side = std::max(1, std::min({(width - leftAround - rightAround - gap) / 3,
                                           leftRoom->height - leftRoom->band, rightRoom->height - rightRoom->band}));
    const int spare = std::max(0, width - leftAround - rightAround - gap - 3 * side);
    const int leftWidth = std::min(width - 1, leftAround + 2 * side + gap + spare * 2 / 3);

    FigureMapPlacement leftPlaced;
    auto left = heatmapFigure(
        leftWidth, height, both,
        [&](int w, int h, int band) -> Result<Heatmap> {
            return panelsHeatmap(r, {&r.a.values, &r.b.values}, params.colormap, lo, hi, w, h, band, gap, side);
        },
        &leftPlaced);
    if (!left) return std::unexpected(left.error());
    FigureMapPlacement rightPlaced;
    auto right = heatmapFigure(
        width - leftWidth, height, diff,
        [&](int w, int h, int band) -> Result<Heatmap> {
            return panelsHeatmap(r, {&r.difference}, Colormap::Diverging, -top, top, w, h, band, gap, side);
        },
        &rightPlaced);
    if (!right) return std::unexpected(right.error());

    HeadCompareFigure out;
    out.image.width = width;
    out.image.height = height;
    out.image.pixels.assign(static_cast<std::size_t>(width) * static_cast<std::size_t>(height), Rgba{});
    for (int y = 0; y < height; ++y) {
        for (int x = 0; x < leftWidth; ++x) out.image.at(x, y) = left->at(x, y);
        for (int x = leftWidth; x < width; ++x) out.image.at(x, y) = right->at(x - leftWidth, y);
    }
    if (natural) cutBelowContent(out.image, 10 * scale);
    for (std::size_t p = 0; p < 2 && p < leftPlaced.tiles.size(); ++p) {
        const HeatmapTile& t = leftPlaced.tiles[p];
        out.panels[p] = {leftPlaced.x + t.x, leftPlaced.y + t.y, t.width, t.height};
    }
    if (!rightPlaced.tiles.empty()) {
        const HeatmapTile& t = rightPlaced.tiles.front();
        out.panels[2] = {leftWidth + rightPlaced.x + t.x, rightPlaced.y + t.y, t.width, t.height};
    }
    return out;
}

std::optional<HeadCompareHit> headCompareHitTest(const HeadCompareFigure& figure, const explore::HeadCompareResult& r,
                                                 int x, int y) {
    for (int p = 0; p < 3; ++p) {
        const HeadComparePanel& panel = figure.panels[static_cast<std::size_t>(p)];
        if (panel.width < 1 || x < panel.x || y < panel.y || x >= panel.x + panel.width || y >= panel.y + panel.height)
            continue;
        const CellSpan rows = pixelCells(y - panel.y, panel.height, r.queries);
        const CellSpan keys = pixelCells(x - panel.x, panel.width, r.keys);
        return HeadCompareHit{p, (rows.first + rows.last) / 2, keys.first};
    }
    return std::nullopt;
}

}  // namespace alibi
