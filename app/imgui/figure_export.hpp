// Figure export: the open view as a finished figure a lecturer can drop into slides (PNG drawn at
// 1x, 2x or 4x, SVG for views drawn from lines), the same bytes `alibi render` writes for the
// same session. The core draws every figure (render/view_figure.hpp, the diagnosis and attention
// maps figures); this file only turns the AppState into the core's request, runs it on a thread
// of its own, and draws the choices (File > Export figure... and the export panel share them).
#pragma once

#include "app_state.hpp"
#include "model.hpp"
#include "view_models.hpp"

#include <alibi/base/error.hpp>
#include <alibi/base/progress.hpp>
#include <alibi/explore/job_runner.hpp>
#include <alibi/figure/figure_job.hpp>
#include <alibi/figure/view_figure.hpp>
#include <alibi/io/attention_maps.hpp>

#include <cstdint>
#include <memory>
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

// The figure of the open view built from the state: `session` (the last valid one), the view's
// own parameters (its head and query row, Compare's B, the position schemes' axis, the curves'
// plot, the attention maps' layer), the chosen format, size and path. Pure: no file is touched.
[[nodiscard]] FigurePlan planFigure(const AppState& state, const Session& session, const Model& model);

// "PNG 2x" ...
[[nodiscard]] int figureScale(FigureFormat format);

// The outcome of a figure drawn on the core's task runner (explore::TaskJob, with progress and
// cancellation, so a 4x figure of a large grid never stalls the frame loop): "Saved PATH (W x H
// px)" or the core's message.
struct FigureOutcome {
    bool ok = false;
    std::string message;
};
using FigureJob = explore::TaskJob<FigureOutcome>;
[[nodiscard]] FigureOutcome runFigureTask(const FigureTask& task, const explore::JobContext& job);

// The choices of a figure export: format, plot, size, file, the pixels it makes, Export (or the
// progress and Cancel while drawing) and the last outcome. `wide` lays the format out as radio
// buttons (the popup) rather than a combo (the narrow export panel). Raises state.figure.start
// and .cancel; the Explorer carries them out.
void drawFigureChoices(AppState& state, const Model& model, const FigurePlan& plan, bool wide);

}  // namespace alibi::imgui
