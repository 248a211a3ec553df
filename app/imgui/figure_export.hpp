// Figure export: the figure job, the core's figure of a plan (figure_plan.hpp) drawn and written on
// a thread of its own, so a 4x figure of a large grid never stalls the frame loop.
#pragma once

#include "figure_plan.hpp"

#include <alibi/base/error.hpp>
#include <alibi/base/progress.hpp>
#include <alibi/explore/job_runner.hpp>

#include <string>

namespace alibi::imgui {

// The outcome of a figure drawn on the core's task runner (explore::TaskJob, with progress and
// cancellation): "Saved PATH (W x H px)" or the core's message.
struct FigureOutcome {
    bool ok = false;
    std::string message;
};
using FigureJob = explore::TaskJob<FigureOutcome>;
[[nodiscard]] FigureOutcome runFigureTask(const FigureTask& task, const explore::JobContext& job);

}  // namespace alibi::imgui
