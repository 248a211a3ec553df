// The session panel: open and save `*.alibi.json` session files (the same files the CLI and the Qt
// explorer use). The panel only raises the action; the Explorer does the file I/O and reports
// errors in the popup.
#include "layout_check.hpp"
#include "panels.hpp"

#include <imgui.h>
#include <imgui_stdlib.h>

namespace alibi::imgui {

void drawSessionPanel(AppState& state, const Model& /*model*/) {
    ImGui::TextDisabled("Session file (*.alibi.json)");
    ImGui::SetNextItemWidth(-1);
    ImGui::InputText("##session", &state.sessionPath);
    noteTextField();  // its text scrolls in its frame (layout_check.hpp)
    if (ImGui::Button("Open")) state.actions.openSession = true;
    ImGui::SameLine();
    if (ImGui::Button("Save")) state.actions.saveSession = true;
    ImGui::SameLine();
    if (ImGui::Button("Defaults")) state.session = defaultSession();
    if (!state.statusMessage.empty()) {
        ImGui::TextDisabled("%s", state.statusMessage.c_str());
    }
}

}  // namespace alibi::imgui
