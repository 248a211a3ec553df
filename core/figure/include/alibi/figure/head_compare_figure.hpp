// The picture of two heads side by side (explore/head_compare.hpp): A | B on one probability
// scale with its colour bar, and B - A on a diverging scale symmetric about 0 with its own bar,
// masked cells in the mask colour (never drawn as 0), token axes where they fit. The figure
// `alibi render FILE --what heads` writes, the explorers' figure export, and the explorers'
// "Two heads" view itself (which shows this image and maps the mouse back with the hit test).
#pragma once

#include <alibi/base/error.hpp>
#include <alibi/explore/head_compare.hpp>
#include <alibi/io/attention_maps.hpp>
#include <alibi/render/colormap.hpp>
#include <alibi/render/render.hpp>

#include <array>
#include <cstdint>
#include <optional>

namespace alibi {

struct HeadCompareFigureParams {
    Colormap colormap = Colormap::Viridis;  // A and B; the difference is Colormap::Diverging
    int width = 1024, height = 768;         // the figure at 1x (height 0: as tall as its panels need)
    int scale = 1;                          // device pixels per layout pixel (1, 2, 4)
};

// A panel's heatmap in figure pixels.
struct HeadComparePanel {
    int x = 0, y = 0, width = 0, height = 0;
};

struct HeadCompareFigure {
    Image image;
    std::array<HeadComparePanel, 3> panels{};  // A, B, B - A
};

[[nodiscard]] Result<HeadCompareFigure> renderHeadCompareFigure(const AttentionMaps& maps,
                                                                const explore::HeadCompareResult& result,
                                                                const HeadCompareFigureParams& params);

// The cell under figure pixel (x, y): which panel (0 A, 1 B, 2 B - A) and the (query, key).
struct HeadCompareHit {
    int panel = 0;
    std::int64_t query = 0, key = 0;
};
[[nodiscard]] std::optional<HeadCompareHit> headCompareHitTest(const HeadCompareFigure& figure,
                                                               const explore::HeadCompareResult& result, int x, int y);

}  // namespace alibi
