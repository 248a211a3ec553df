// The export panel: the current tensor (bias, or attention probabilities when the grid shows them)
// in every format the core's exportTensor writes, streamed in the background with a progress bar
// and a cancel button; a PNG screenshot of the whole window; and the open view as a figure
// (figure_choices.hpp: PNG at 1x/2x/4x or SVG, drawn by the core on a background thread).
#include "figure_choices.hpp"
#include "figure_plan.hpp"
#include "layout_check.hpp"
#include "panels.hpp"

#include <alibi/io/export_plan.hpp>
#include <alibi/io/tensor_io.hpp>

#include <imgui.h>
#include <imgui_stdlib.h>

#include <array>
#include <string>

namespace alibi::imgui {

namespace {

// Every tensor format of the core's exportTensor (images and plots are not tensors).
constexpr std::array kFormats{FileFormat::Npy, FileFormat::Safetensors, FileFormat::Csv, FileFormat::Json,
                              FileFormat::Raw};

// Swaps the file name's extension to the format's, so the default name follows the format.
void matchExtension(std::string& path, FileFormat format) {
    const std::string extension(formatName(format));
    const std::size_t slash = path.find_last_of('/');
    const std::size_t dot = path.find_last_of('.');
    if (dot != std::string::npos && (slash == std::string::npos || dot > slash)) path.erase(dot);
    path += "." + extension;
}

}  // namespace

void drawExportPanel(AppState& state, const Model& model) {
    const bool attention = state.session.what == RenderWhat::Attention;
    ImGui::TextDisabled("Export the %s tensor", attention ? "attention" : "bias");
    ImGui::SetNextItemWidth(-ImGui::GetFontSize() * 6.5f);
    const std::string current(formatName(state.exportFormat));
    if (ImGui::BeginCombo("format", current.c_str())) {
        for (FileFormat format : kFormats) {
            const std::string name(formatName(format));
            if (ImGui::Selectable(name.c_str(), format == state.exportFormat)) {
                state.exportFormat = format;
                matchExtension(state.exportPath, format);
            }
        }
        ImGui::EndCombo();
    }
    ImGui::SetNextItemWidth(-ImGui::GetFontSize() * 6.5f);
    constexpr std::array layouts{Layout::Hqk, Layout::Qkh, Layout::OneHqk, Layout::Flat};
    const std::string currentLayout(layoutName(state.session.attention.bias.layout));
    if (ImGui::BeginCombo("layout", currentLayout.c_str())) {
        for (Layout layout : layouts) {
            const std::string name(layoutName(layout));
            if (ImGui::Selectable(name.c_str(), layout == state.session.attention.bias.layout))
                state.session.attention.bias.layout = layout;
        }
        ImGui::EndCombo();
    }
    ImGui::SetNextItemWidth(-1);
    ImGui::InputText("##export", &state.exportPath);
    noteTextField();  // its text scrolls in its frame (layout_check.hpp)

    // What the export would write, from the core's planExport (the CLI's rules), before it starts.
    const ExportPlan& plan = model.exportPlan;
    ImGui::PushTextWrapPos(0.0f);
    if (plan.allowed()) {
        ImGui::TextDisabled("%s", plan.summary().c_str());
        if (!plan.warning.empty()) ImGui::TextColored(ImVec4(1.0f, 0.8f, 0.3f, 1.0f), "%s", plan.warning.c_str());
    } else {
        ImGui::TextColored(ImVec4(1.0f, 0.42f, 0.36f, 1.0f), "Refused: %s", plan.reason.c_str());
    }
    ImGui::PopTextWrapPos();
    if (plan.fix == ExportFix::UseMaskMin && ImGui::Button("Use mask = min")) state.useMaskMin = true;
    if (model.exportRunning) {
        const float fraction = model.exportTotal > 0 ? static_cast<float>(model.exportDone) / model.exportTotal : 0.0f;
        ImGui::ProgressBar(fraction, ImVec2(-ImGui::GetFontSize() * 5.0f, 0));
        ImGui::SameLine();
        if (ImGui::Button("Cancel")) state.actions.cancelExport = true;
    } else {
        ImGui::BeginDisabled(!plan.allowed());
        if (ImGui::Button("Export tensor")) state.actions.exportTensor = true;
        ImGui::EndDisabled();
    }

    ImGui::Spacing();
    ImGui::TextDisabled("Screenshot of the window (PNG)");
    ImGui::SetNextItemWidth(-ImGui::GetFontSize() * 6.5f);
    ImGui::InputText("##shot", &state.screenshotPath);
    noteTextField();  // its text scrolls in its frame (layout_check.hpp)
    ImGui::SameLine();
    if (ImGui::Button("Save PNG")) state.actions.screenshot = true;

    // The open view as a finished figure (the same choices as File > Export figure...).
    ImGui::Spacing();
    drawFigureChoices(state, model, planFigure(state, state.session, model), false);
}

}  // namespace alibi::imgui
