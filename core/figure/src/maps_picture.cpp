// The picture an attention-maps view shows in its room, its tiles' labels and its hit test.
#include <alibi/figure/maps_picture.hpp>
#include <alibi/render/square_cells.hpp>
#include <alibi/render/tile_labels.hpp>

#include <fmt/format.h>

#include <algorithm>

namespace alibi {

namespace {

// The picture cut to its tiles: a placement of square tiles leaves a margin right or below, and a
// colour bar drawn beside the picture would stand apart from the tiles. Tiles keep their places.
void cropToTiles(Image& image, const std::vector<HeatmapTile>& tiles) {
    int width = 0, height = 0;
    for (const HeatmapTile& t : tiles) {
        width = std::max(width, t.x + t.width);
        height = std::max(height, t.y + t.height);
    }
    width = std::min(width, image.width);
    height = std::min(height, image.height);
    if (width <= 0 || height <= 0 || (width == image.width && height == image.height)) return;
    Image cropped;
    cropped.width = width;
    cropped.height = height;
    cropped.pixels.reserve(static_cast<std::size_t>(width) * static_cast<std::size_t>(height));
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) cropped.pixels.push_back(image.at(x, y));
    image = std::move(cropped);
}

}  // namespace

Result<MapsPicture> renderMapsPicture(const AttentionMaps& maps, const MapsPictureRequest& request, unsigned threads) {
    if (request.shows != MapsShows::Overview && (request.layerIndex < 0 || request.layerIndex >= maps.layers()))
        return fail(ErrorCode::InvalidArgument, fmt::format("layer index {} is out of range: the file has {} layers",
                                                            request.layerIndex, maps.layers()));
    if (request.shows == MapsShows::Head && (request.head < 0 || request.head >= maps.heads()))
        return fail(ErrorCode::InvalidArgument, fmt::format("head {} is out of range: the maps have heads 0 to {}",
                                                            request.head, maps.heads() - 1));
    MapsHeatmapParams params;
    params.layerIndex = request.layerIndex;
    params.head = request.shows == MapsShows::Head ? request.head : -1;
    params.logScale = request.logScale;
    params.scale = request.scale;
    params.width = std::max(request.width, 1);
    params.height = std::max(request.height, 1);
    params.progress = request.progress;
    MapsPicture picture;
    switch (request.shows) {
        case MapsShows::Head: {
            const TileSize size =
                squareCellPicture(1, maps.queries(), maps.keys(), params.width, params.height, params.gap, 0);
            params.width = size.width;
            params.height = size.height;
            auto map = renderAttentionMaps(maps, params, threads);
            if (!map) return std::unexpected(map.error());
            picture.map = std::move(*map);
            picture.tileLayer.assign(picture.map.tiles.size(), request.layerIndex);
            break;
        }
        case MapsShows::Layer: {
            // As the head grid: square cells under a label band, unless the bands would halve the tiles.
            const SquareCellGrid grid = squareCellGrid(maps.heads(), maps.queries(), maps.keys(), params.width,
                                                       params.height, params.gap, request.labelBand);
            params.width = grid.picture.width;
            params.height = grid.picture.height;
            params.labelBand = grid.labelBand;
            auto map = renderAttentionMaps(maps, params, threads);
            if (!map) return std::unexpected(map.error());
            picture.map = std::move(*map);
            picture.tileLayer.assign(picture.map.tiles.size(), request.layerIndex);
            picture.labelBand = grid.labelBand;
            break;
        }
        case MapsShows::Overview: {
            params.labelBand = request.labelBand;
            auto overview = renderAttentionOverview(maps, params, threads);
            if (!overview) return std::unexpected(overview.error());
            picture.map = std::move(overview->map);
            picture.tileLayer = std::move(overview->tileLayer);
            picture.labelBand = overview->labelBand;
            break;
        }
    }
    cropToTiles(picture.map.image, picture.map.tiles);
    return picture;
}

std::vector<std::vector<std::string>> mapsTileLabelForms(
    const AttentionMaps& maps, const MapsPicture& picture, ScaleMode scale,
    const std::function<explore::HeadSlopes(int layerIndex, int head)>& slopes) {
    std::vector<std::vector<std::string>> forms(picture.map.tiles.size());
    if (forms.size() < 2) return forms;
    // Tiles of several layers name their layer; slopes go on one layer's grid only (an overview's
    // tiles are too small for them).
    const bool severalLayers = std::any_of(picture.tileLayer.begin(), picture.tileLayer.end(),
                                           [&](int layer) { return layer != picture.tileLayer.front(); }) ||
                               picture.map.tiles.size() > static_cast<std::size_t>(maps.heads());
    for (std::size_t n = 0; n < forms.size(); ++n) {
        const HeatmapTile& tile = picture.map.tiles[n];
        const int layer = n < picture.tileLayer.size() ? picture.tileLayer[n] : 0;
        TileLabelParts parts;
        parts.head = tile.head;
        if (severalLayers) {
            parts.name = explore::mapsHeadLabel(maps, layer, tile.head);
        } else if (slopes) {
            const explore::HeadSlopes known = slopes(layer, tile.head);
            parts.fitted = known.fitted;
            parts.slope = known.configured;
        }
        if (scale == ScaleMode::PerHead) {
            // The ends as the tile's own colour bar reads them (">= hi" above rows of one key).
            const ColorBar own = attentionMapsColorBar(maps, picture.map, static_cast<int>(n), 2);
            if (!own.ticks.empty())
                parts.range = fmt::format("[{}, {}]", own.ticks.front().label, own.ticks.back().label);
        }
        forms[n] = tileLabelForms(parts);
    }
    return forms;
}

}  // namespace alibi
