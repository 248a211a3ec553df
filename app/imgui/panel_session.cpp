// The session panel: open and save `*.alibi.json` session files (the same files the CLI and the Qt
// explorer use). The panel only raises the action; the Explorer does the file I/O and reports
// errors in the popup; a file being read shows its progress and a Cancel here.
#include "layout_check.hpp"
#include "panels.hpp"

#include <imgui.h>
#include <imgui_stdlib.h>

#include <fmt/format.h>

#include <filesystem>

namespace alibi::imgui {

void drawSessionPanel(AppState& state, const Model& model) {
    ImGui::TextDisabled("Session file (*.alibi.json)");
    ImGui::SetNextItemWidth(-1);
    ImGui::InputText("##session", &state.sessionPath);
    noteTextField();  // its text scrolls in its frame (layout_check.hpp)
    if (ImGui::Button("Open")) state.actions.openSession = true;
    ImGui::SameLine();
    if (ImGui::Button("Save")) state.actions.saveSession = true;
    ImGui::SameLine();
    if (ImGui::Button("Defaults")) state.session = defaultSession();
    // A session file being read: the core's progress and a Cancel (the parameters stay).
    if (model.sessionOpening && model.sessionProgress) {
        const float fraction = model.sessionProgress->fraction.load();
        ImGui::ProgressBar(fraction, ImVec2(ImGui::GetFontSize() * 8.0f, 0.0f),
                           fmt::format("{:.0f} %", 100.0 * fraction).c_str());
        if (ImGui::IsItemHovered())
            ImGui::SetTooltip("%s: %s", std::filesystem::path(model.sessionOpeningPath).filename().string().c_str(),
                              model.sessionProgress->stageText().c_str());
        ImGui::SameLine();
        if (ImGui::SmallButton("Cancel##session-open")) state.actions.cancelSessionOpen = true;
    }
    if (!state.statusMessage.empty()) {
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextDisabled("%s", state.statusMessage.c_str());
        ImGui::PopTextWrapPos();
    }
}

}  // namespace alibi::imgui
