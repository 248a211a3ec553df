#include "panels.hpp"
namespace alibi::imgui {
void drawCompareView(AppState&, const Model&) { ImGui::TextDisabled("compare"); }
void drawExtrapolationView(AppState&, const Model&) { ImGui::TextDisabled("extrapolation"); }
}
