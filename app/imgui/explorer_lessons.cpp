// The Explorer's side of guided lessons: opening one, stepping (a step's parameters go through
// applySession, the normal edit path, as one undo step), the step's view and highlight, and the
// keys: Page Up / Page Down always (presenter remotes send them, even while a number is being
// typed), Left / Right only when the lesson strip or a view has focus and no widget is in use.
#include "explorer.hpp"

#include "keys.hpp"
#include "view_models.hpp"

#include <fmt/format.h>
#include <imgui.h>
#include <imgui_internal.h>

#include <filesystem>
#include <string_view>

namespace alibi::imgui {

namespace {

std::string missingViewNote(const LessonStep& step) {
    std::string_view what = step.view;
    if (step.view == "attention-grid") what = "the attention maps' layer grid";
    else if (step.view == "attention-detail") what = "one head of the attention maps";
    else if (step.view == "attention-distance") what = "the attention maps' attention against distance";
    else if (step.view == "attention-row") what = "one query row of the attention maps";
    else if (step.view == "similarity") what = "the similarity of the attention maps' heads";
    else if (step.view == "fit-table") what = "the table of fitted slopes";
    else if (step.view == "schemes") what = "ALiBi beside the other position schemes";
    std::string note = fmt::format("This step opens {} (view \"{}\"), which this explorer does not have yet; the "
                                   "text describes what it shows.",
                                   what, step.view);
    if (!step.attentionMaps.empty())
        note += fmt::format(" File: {}, layer {}.", std::filesystem::path(step.attentionMaps).filename().string(),
                            step.layer);
    return note;
}

}  // namespace

Result<void> Explorer::openLesson(const std::string& nameOrPath) {
    if (auto ok = m_lessons.open(nameOrPath); !ok) return ok;
    applyLessonStep();
    return {};
}

void Explorer::applyLessonStep() {
    const LessonStep& step = m_lessons.state()->step();
    // A number being typed would write itself back over the step when its field lets go.
    if (ImGui::GetCurrentContext() != nullptr && ImGui::IsAnyItemActive()) ImGui::ClearActiveID();
    Session parameters = step.session;
    parameters.view.reset();
    parameters.compare = parameters.compare ? sessionCompare(*parameters.compare) : std::nullopt;
    if (auto ok = applySession(parameters); !ok) m_state.errorPopup = ok.error().message;
    if (step.explorerView) m_state.view = fromExplorerView(*step.explorerView);
    m_state.lessonNote = step.explorerView ? std::string() : missingViewNote(step);
    // A step whose view this explorer lacks marks nothing: its head and cell belong to that view.
    m_state.lessonMark = step.explorerView ? lessonMarkOf(step) : LessonMark{};
}

bool Explorer::lessonNext() {
    if (!m_lessons.active() || !m_lessons.state()->next()) return false;
    applyLessonStep();
    return true;
}

bool Explorer::lessonPrevious() {
    if (!m_lessons.active() || !m_lessons.state()->previous()) return false;
    applyLessonStep();
    return true;
}

void Explorer::lessonBackToStep() {
    if (m_lessons.active()) applyLessonStep();
}

void Explorer::closeLesson() {
    m_lessons.close();
    m_state.lessonMark = {};
    m_state.lessonNote.clear();
}

void Explorer::handleLessonKeys() {
    if (!m_lessons.active() || !m_state.errorPopup.empty() || m_state.confirm != Confirm::None) return;
    const ImGuiIO& io = ImGui::GetIO();
    if (io.KeyCtrl || io.KeyAlt || io.KeyShift || io.KeySuper) return;
    if (ImGui::IsKeyPressed(keys::kPageDown)) lessonNext();
    if (ImGui::IsKeyPressed(keys::kPageUp)) lessonPrevious();
    // The arrows move a text cursor or a slider in use; elsewhere they are the lesson's, when the
    // lesson strip or a view was the last window clicked (or none was).
    if (io.WantTextInput || ImGui::IsAnyItemActive()) return;
    const ImGuiWindow* nav = ImGui::GetCurrentContext()->NavWindow;
    const std::string_view root = nav != nullptr && nav->RootWindow != nullptr ? nav->RootWindow->Name : "";
    if (!root.empty() && root != "Lesson" && root != "Views" && root != "Curves") return;
    if (ImGui::IsKeyPressed(keys::kRight)) lessonNext();
    if (ImGui::IsKeyPressed(keys::kLeft)) lessonPrevious();
}

}  // namespace alibi::imgui
