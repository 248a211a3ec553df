// The picture an attention-maps view shows in its room, decided once for both explorers: one
// head, a layer's heads or every layer, sized for square cells, cut to its tiles, with the label
// forms of each tile and the hit test. Qt and ImGui drew these with their own sizing rules (Qt
// squared a head's picture only for square maps, ImGui always; only ImGui cut the overview to its
// tiles) and their own tile labels (Qt "h3  m* 0.25  m 1/2", ImGui "h3").
#pragma once

#include <alibi/base/error.hpp>
#include <alibi/base/progress.hpp>
#include <alibi/explore/attention_maps_view.hpp>
#include <alibi/figure/attention_maps_render.hpp>
#include <alibi/io/attention_maps.hpp>
#include <alibi/render/color_scale.hpp>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace alibi {

// What a maps view shows.
enum class MapsShows { Head, Layer, Overview };

struct MapsPictureRequest {
    MapsShows shows = MapsShows::Layer;
    int layerIndex = 0;  // Head and Layer: the position in AttentionMaps
    int head = 0;        // Head
    bool logScale = false;
    ScaleMode scale = ScaleMode::Shared;
    int width = 1, height = 1;  // the view's room, in device pixels
    int labelBand = 0;          // the band a label of the front end's font needs above a tile of several
    // As MapsHeatmapParams::progress (pixel rows drawn / total; false cancels).
    ProgressFn progress = {};
};

// The picture for `request` (its layer index and head checked against `maps`): square cells
// wherever the room allows them, never larger than the room, cut to its tiles (no empty margin right
// or below, so a colour bar beside it sits by the tiles); mapsPictureHit finds its cells.
[[nodiscard]] Result<MapsPicture> renderMapsPicture(const AttentionMaps& maps, const MapsPictureRequest& request,
                                                    unsigned threads = 0);

// Each tile's label forms, longest first, for chooseTileLabels: the head ("h3"; on the overview
// "L7 h3", mapsHeadLabel), with its slopes on a layer's grid where `slopes` knows them ("h3  m* =
// 0.249  m = 1/2"), and under per-head scales the tile's own range ("[0, 0.5]", as its colour bar
// reads it). One tile: no label (the title names it).
[[nodiscard]] std::vector<std::vector<std::string>> mapsTileLabelForms(
    const AttentionMaps& maps, const MapsPicture& picture, ScaleMode scale,
    const std::function<explore::HeadSlopes(int layerIndex, int head)>& slopes = {});

}  // namespace alibi
