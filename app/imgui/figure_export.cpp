// Figure export: the figure job (the core's figure drawn and written on a thread of its own) and
// the Explorer's part: the popup, and the start, cancel and outcome of the job.
#include "figure_export.hpp"
#include "figure_choices.hpp"

#include "explorer.hpp"

#include <fmt/format.h>
#include <imgui.h>

#include <algorithm>
#include <utility>

namespace alibi::imgui {

FigureOutcome runFigureTask(const FigureTask& task, const explore::JobContext& job) {
    const auto written = writeFigureJob(task, task.path, job.progress());
    FigureOutcome outcome;
    outcome.ok = static_cast<bool>(written);
    if (written) {
        outcome.message = fmt::format("Saved {} ({} x {} px)", task.path, written->width, written->height);
    } else if (written.error().code == ErrorCode::Cancelled) {
        outcome.message = fmt::format("Cancelled: {} was not written", task.path);
    } else {
        outcome.message = written.error().message;
    }
    return outcome;
}

void Explorer::drawFigurePopup() {
    constexpr const char* kTitle = "Export figure";
    FigureExportState& f = m_state.figure;
    if (f.openPopup) {
        f.openPopup = false;
        f.status.clear();
        ImGui::OpenPopup(kTitle);
    }
    m_figurePopupShown = false;
    if (!ImGui::IsPopupOpen(kTitle)) return;
    const ImVec2 display = ImGui::GetIO().DisplaySize;
    const float em = ImGui::GetFontSize();
    // Anchored at its top, so a status line appearing grows it downwards instead of moving it.
    ImGui::SetNextWindowPos(ImVec2(display.x * 0.5f, display.y * 0.22f), ImGuiCond_Always, ImVec2(0.5f, 0.0f));
    ImGui::SetNextWindowSize(ImVec2(std::min(display.x * 0.92f, 38.0f * em), 0.0f), ImGuiCond_Always);
    bool open = true;
    if (ImGui::BeginPopupModal(kTitle, &open, ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoResize)) {
        m_figurePopupShown = true;
        drawFigureChoices(m_state, m_model, planFigure(m_state, m_lastValid, m_model), true);
        ImGui::Spacing();
        ImGui::Separator();
        const float button = 7.0f * em;
        ImGui::SetCursorPosX(ImGui::GetWindowContentRegionMax().x - button);
        const bool escape = !ImGui::GetIO().WantTextInput && ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape));
        // Closing leaves a running export running: its outcome reaches the status line.
        if (ImGui::Button("Close", ImVec2(button, 0)) || escape) ImGui::CloseCurrentPopup();
        ImGui::EndPopup();
    }
}

void Explorer::runFigureExport() {
    FigureExportState& f = m_state.figure;
    if (f.cancel) {
        f.cancel = false;
        m_figureJob.cancel();
    }
    if (f.start) {
        f.start = false;
        FigurePlan plan = planFigure(m_state, m_lastValid, m_model);
        f.failed = true;
        if (!plan.task) {
            f.status = plan.reason;
        } else if (m_figureJob.running()) {
            f.status = "A figure is being drawn; wait for it or cancel it first.";
        } else {
            f.failed = false;
            f.status = fmt::format("Drawing {}...", plan.task->path);
            (void)m_figureJob.start(
                [task = std::move(*plan.task)](const explore::JobContext& job) { return runFigureTask(task, job); });
        }
    }
    if (auto outcome = m_figureJob.takeOutcome()) {
        f.status = outcome->message;
        f.failed = !outcome->ok;
        if (outcome->ok) m_state.statusMessage = outcome->message;
    }
    m_model.figureRunning = m_figureJob.running();
    m_model.figureProgress = m_figureJob.fraction();
}

}  // namespace alibi::imgui
