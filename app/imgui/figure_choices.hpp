// Figure choices: the controls File > Export figure... and the export panel share.
#pragma once

#include "app_state.hpp"
#include "figure_plan.hpp"
#include "model.hpp"

namespace alibi::imgui {

// The choices of a figure export: format, plot, size, file, the pixels it makes, Export (or the
// progress and Cancel while drawing) and the last outcome. `wide` lays the format out as radio
// buttons (the popup) rather than a combo (the narrow export panel). Raises state.figure.start
// and .cancel; the Explorer carries them out.
void drawFigureChoices(AppState& state, const Model& model, const FigurePlan& plan, bool wide);

}  // namespace alibi::imgui
