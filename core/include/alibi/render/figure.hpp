// Finished figures, as `alibi render` writes them and the Python module shows them: a heatmap
// PNG image (head grid or one head, head labels, a colour bar with its range beneath) and SVG
// curves (slopes on a log2 axis, bias vs distance, attention vs distance). One implementation,
// so every front end produces the same bytes for the same parameters.
#pragma once

#include <alibi/base/error.hpp>
#include <alibi/base/progress.hpp>
#include <alibi/model/batch.hpp>
#include <alibi/model/params.hpp>
#include <alibi/render/render.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace alibi {

// `params.width` x `params.height` is the whole figure: the heatmap takes what the colour bar
// and its labels leave. Progress counts what renderHeatmap counts.
[[nodiscard]] Result<Image> renderHeatmapFigure(const HeatmapParams& params, unsigned threads = 0,
                                                const ProgressFn& progress = {});
// The same figure for row `row` of a batch (model/batch.hpp): the bias or attention of that row
// (params.what), masked cells (padding, other documents, window, future keys) in kMaskedColor,
// the colour range the exact extremes of the unmasked shown cells. A pixel covering several
// cells shows the one farthest from zero (renderValueGrid); reduce and logScale do not apply.
[[nodiscard]] Result<Image> renderBatchHeatmapFigure(const HeatmapParams& params, const BatchParams& batch,
                                                     std::int64_t row);

// The frame of every heatmap figure: `draw(w, h)` renders the heatmap into the w x h pixels the
// colour bar (of `colormap`) and its range labels leave; head labels go into the tiles.
[[nodiscard]] Result<Image> heatmapFigure(int width, int height, Colormap colormap,
                                          const std::function<Result<Heatmap>(int width, int height)>& draw);

enum class CurveKind { Slopes, BiasDistance, AttentionDistance };
// "slopes", "distance", "attention-distance": the CLI's --what spellings.
[[nodiscard]] std::string_view curveKindName(CurveKind kind);
[[nodiscard]] std::optional<CurveKind> parseCurveKind(std::string_view name);

struct CurvesParams {
    AttentionParams attention;
    CurveKind kind = CurveKind::Slopes;
    std::int64_t query = -1;  // attention-distance: the query row (-1: the last)
    int head = -1;            // the series drawn emphasised (-1: none)
    int width = 1024;
    int height = 768;
};

// A standalone SVG document. Progress counts heads of attention-distance curves (each a row of
// q.k content, which can take a while); the other curves are instant.
[[nodiscard]] Result<std::string> renderCurvesSvg(const CurvesParams& params, const ProgressFn& progress = {});

}  // namespace alibi
