// The "ALiBi beside the other position schemes" figure (`alibi render --what schemes`): every curve
// of positionSchemeCurves on one distance axis, with title, axes, tick labels, a legend carrying
// the schemes' labels, and a caption listing each formula and its source. The same layout is
// written as SVG or rasterised to PNG (DejaVu Sans through FreeType, at 1x/2x/4x), and the
// explorers draw the curves in the same colours (positionCurveColor).
#pragma once

#include <alibi/render/plot_ranges.hpp>

#include <alibi/base/error.hpp>
#include <alibi/model/position_schemes.hpp>
#include <alibi/render/render.hpp>

#include <string>

namespace alibi {

struct PositionSchemesFigure {
    PositionSchemesParams schemes;
    int width = 1024;  // the figure at 1x
    int height = 768;
    int scale = 1;  // PNG device pixels per layout pixel (1, 2, 4): the layout rendered at that size
};

[[nodiscard]] Result<std::string> renderPositionSchemesSvg(const PositionSchemesFigure& figure);
[[nodiscard]] Result<Image> renderPositionSchemesPng(const PositionSchemesFigure& figure);

// One colour per scheme, ALiBi's heads shades of blue (steepest darkest): categorical, so the six
// schemes stay apart. `heads` is the number of ALiBi curves.
[[nodiscard]] Rgba positionCurveColor(const PositionCurve& curve, int heads);
// Attention is drawn on a log2 axis (probabilities span tens of decades: ALiBi's fall
// exponentially, T5's and KERPLE's polynomially); values below this floor sit on the axis' bottom.
inline constexpr double kSchemesAttentionFloor = 0x1p-40;
// What the plot's axes span, in axis units (y as log2 on the attention's log axis), the figure's
// and both explorers' (ImGui took the data's extremes, padded 4 %, down to the floor, not whole
// octaves): attention in whole octaves down to at most the floor and up to at most 1; a logit
// contribution its extremes with 4 % either side; distances 0 to D.
[[nodiscard]] PlotRanges positionSchemesRanges(const PositionSchemes& schemes);
// A scheme's second curve (T5 encoder, KERPLE power, RoPE's bound) is drawn dashed.
[[nodiscard]] inline bool positionCurveDashed(const PositionCurve& curve) {
    return curve.variant != 0;
}
// "Logit contribution vs distance" / "Attention vs distance, zero content": the figure's title.
[[nodiscard]] std::string positionSchemesTitle(const PositionSchemes& schemes);
[[nodiscard]] std::string positionSchemesYLabel(const PositionSchemes& schemes);

}  // namespace alibi
