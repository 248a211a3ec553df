// Figure plans: the open view as a finished figure a lecturer can drop into slides (PNG drawn at
// 1x, 2x or 4x, SVG for views drawn from lines), the same bytes `alibi render` writes for the
// same session. The core draws every figure (render/view_figure.hpp, the diagnosis and attention
// maps figures); this file only turns the AppState into the core's request.
#pragma once

#include "app_state.hpp"
#include "model.hpp"
#include "view_models.hpp"

#include <alibi/figure/figure_job.hpp>
#include <alibi/figure/view_figure.hpp>
#include <alibi/io/attention_maps.hpp>

#include <optional>
#include <string>

namespace alibi::imgui {

// One figure to draw and write: the core's figure job (figure/figure_job.hpp) and the file.
struct FigureTask : FigureJobRequest {
    std::string path;
};

// What the figure choices show for the open view: the task, or why the view has no figure.
struct FigurePlan {
    std::optional<FigureTask> task;  // nullopt: no figure (reason says why and what to do)
    std::string reason;
    std::string what;     // "Head grid", "Curves: bias vs distance", ...
    bool vector = false;  // SVG is offered
    bool curves = false;  // the curves view: which plot
    bool maps = false;    // the attention maps: the layer's heads or the selected one
    // The attention maps with a plot on the side tab: its name and the grid's (or overview's), for
    // the choice of which the figure draws (FigureExportState::mapsPicture). Empty: no choice.
    std::string mapsSidePicture, mapsGridPicture;
    int selectedHead = 0;     // maps: the head "only the selected head" means
    std::string defaultPath;  // the core's name for the figure (viewFigureFileName)
    bool svgRefused = false;  // SVG chosen for a view drawn as a heatmap
};

// The curves view's plots, in the order of FigureExportState::curves.
inline constexpr const char* kFigureCurveNames[] = {"slopes per head", "bias vs distance", "attention vs distance"};

// The figure of the open view built from the state: `session` (the last valid one), the view's
// own parameters (its head and query row, Compare's B, the position schemes' axis, the curves'
// plot, the attention maps' layer), the chosen format, size and path. Pure: no file is touched.
[[nodiscard]] FigurePlan planFigure(const AppState& state, const Session& session, const Model& model);

// "PNG 2x" ...
[[nodiscard]] int figureScale(FigureFormat format);

// The path with its extension swapped for the format (a path the user typed keeps its folder and
// name).
[[nodiscard]] std::string withFigureExtension(const std::string& path, bool svg);

}  // namespace alibi::imgui
