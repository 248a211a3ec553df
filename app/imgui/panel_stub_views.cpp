#include "panels.hpp"
namespace alibi::imgui {
void drawStagesView(AppState&, const Model&) { ImGui::TextDisabled("stages"); }
void drawCompareView(AppState&, const Model&) { ImGui::TextDisabled("compare"); }
void drawExtrapolationView(AppState&, const Model&) { ImGui::TextDisabled("extrapolation"); }
void drawDiagnoseView(AppState&, const Model&) { ImGui::TextDisabled("diagnose"); }
}
