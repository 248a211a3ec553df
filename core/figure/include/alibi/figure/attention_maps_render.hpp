// Pictures of a trained model's saved attention maps with the same honest pixel pipeline as the
// synthetic heatmaps: one layer's heads as small multiples (or one head), a pixel covering
// several keys showing their maximum (or mass, or mean), one exact query row per pixel row when
// rows outnumber pixels, keys after a causal query in the mask colour, and colour ranges that are
// the exact minimum and maximum of what is shown. And the heads' similarity matrix.
#pragma once

#include <alibi/analysis/head_similarity.hpp>
#include <alibi/base/error.hpp>
#include <alibi/base/progress.hpp>
#include <alibi/io/attention_maps.hpp>
#include <alibi/render/color_scale.hpp>
#include <alibi/render/colormap.hpp>
#include <alibi/render/render.hpp>

#include <optional>
#include <string>
#include <vector>

namespace alibi {

struct MapsHeatmapParams {
    int layerIndex = 0;  // position in AttentionMaps (not the layer's number)
    int head = -1;       // -1: every head of the layer
    Colormap colormap = Colormap::Viridis;
    ScaleMode scale = ScaleMode::Shared;
    Reduce reduce = Reduce::Max;  // Auto means Max
    bool logScale = false;
    int width = 1024, height = 768;
    int gap = 2;
    int labelBand = 0;  // pixels above every tile (of several) for its label (HeatmapParams::labelBand)
    // Pixel rows drawn / total, over every tile; false cancels (ErrorCode::Cancelled). Called
    // from the drawing threads, one call at a time. A large file's rows come from disk, so a big
    // overview or a 4x figure can take a while.
    ProgressFn progress = {};
};

[[nodiscard]] Result<Heatmap> renderAttentionMaps(const AttentionMaps& maps, const MapsHeatmapParams& params,
                                                  unsigned threads = 0);

// Every layer at once: one row of tiles per layer (in file order), one column per head, square
// tiles as large as width x height allows; params.layerIndex and params.head are ignored. The
// colour scale is shared by every tile (or per tile), exact as for one layer. Each row of tiles
// has params.labelBand pixels above it for the labels, unless that band would halve the tiles'
// side (then none: labelBand 0). Tiles that do not fit a tiny picture are left out (fewer tiles
// than layers x heads).
// A picture of maps' tiles with each tile's layer: the overview, or what a maps view shows
// (renderMapsPicture, maps_picture.hpp).
struct MapsPicture {
    Heatmap map;
    std::vector<int> tileLayer;  // the layer index each tile of map.tiles shows
    int labelBand = 0;           // the band left above each row of tiles (0: none)
};
using MapsOverview = MapsPicture;  // every layer's picture
[[nodiscard]] Result<MapsOverview> renderAttentionOverview(const AttentionMaps& maps, const MapsHeatmapParams& params,
                                                           unsigned threads = 0);

// Which (head, query row, key) is under pixel (x, y) of such a picture.
[[nodiscard]] std::optional<CellHit> mapsHitTest(const Heatmap& map, const AttentionMaps& maps, int x, int y);

// The H x H distance matrix as one heatmap tile (rows and columns in `order`, or by index when
// it is empty), colours from 0 to the largest distance.
[[nodiscard]] Heatmap renderSimilarity(const DistanceMatrix& distances, const std::vector<int>& order,
                                       Colormap colormap, int width, int height);

// The same picture as a finished figure, the way the explorers export it: title (layer, heads,
// shape), axes, head labels, colour bar with exact ends, and a caption saying what the file
// holds and how pixels summarise cells. params.width x params.height is the figure at 1x; it
// has `scale` (1, 2, 4) times the pixels each way, drawn at that size.
[[nodiscard]] Result<Image> renderAttentionMapsFigure(const AttentionMaps& maps, const MapsHeatmapParams& params,
                                                      unsigned threads = 0, int scale = 1);
// The colour bar of such a figure, the shared range or tile `tile`'s (per-head scale): on a log
// picture the bar is log10 from the smallest positive value shown, as the colours are. The
// values are probabilities computed in double (a row renormalised, or a softmax of scores); the
// ends are labelled in f32, as the Qt explorer's bar is.
[[nodiscard]] alibi::ColorBar attentionMapsColorBar(const AttentionMaps& maps, const Heatmap& map, int tile,
                                                    int targetTicks);
[[nodiscard]] std::string attentionMapsTitle(const AttentionMaps& maps, const MapsHeatmapParams& params);
// The caption; under a per-head `scale` it says what each tile's range leaves out (perHeadScaleNote).
[[nodiscard]] std::string attentionMapsCaption(const AttentionMaps& maps, const Heatmap& map,
                                               ScaleMode scale = ScaleMode::Shared);

// The similarity matrix as a finished figure (title, colour bar, caption), width x height at 1x.
[[nodiscard]] Result<Image> renderSimilarityFigure(const DistanceMatrix& distances, const std::vector<int>& order,
                                                   const std::string& title, Colormap colormap, int width, int height,
                                                   int scale = 1);

// Every layer at once (renderAttentionOverview) as a finished figure: title, axes along the
// bottom row and the left column of tiles, "L7 h3" in each tile, colour bar with exact ends and
// the caption of renderAttentionMapsFigure. params.width x params.height at 1x, `scale` times
// the pixels; params.layerIndex and params.head are ignored.
[[nodiscard]] Result<Image> renderAttentionOverviewFigure(const AttentionMaps& maps, const MapsHeatmapParams& params,
                                                          unsigned threads = 0, int scale = 1);
[[nodiscard]] std::string attentionOverviewTitle(const AttentionMaps& maps);

// A hit on a maps picture (the overview, a layer, a head): the layer index and the cell.
struct MapsCellHit {
    int layerIndex = 0;
    CellHit cell;
};
[[nodiscard]] std::optional<MapsCellHit> mapsPictureHit(const MapsPicture& picture, const AttentionMaps& maps, int x,
                                                        int y);

}  // namespace alibi
