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

// The attention-maps view (and side picture) of a lesson view id; nullopt: not one of them.
struct MapsView {
    View view;
    std::optional<MapsSide> side;
};
std::optional<MapsView> mapsViewOf(std::string_view id) {
    if (id == "attention-grid") return MapsView{View::Maps, std::nullopt};
    if (id == "attention-detail") return MapsView{View::Maps, MapsSide::Head};
    if (id == "attention-distance") return MapsView{View::Maps, MapsSide::Distance};
    if (id == "attention-row") return MapsView{View::Maps, MapsSide::Row};
    if (id == "similarity") return MapsView{View::Maps, MapsSide::Similarity};
    if (id == "fit-table") return MapsView{View::Fit, std::nullopt};
    return std::nullopt;
}

std::string missingViewNote(const LessonStep& step) {
    std::string_view what = step.view;
    if (step.view == "attention-grid")
        what = "the attention maps' layer grid";
    else if (step.view == "attention-detail")
        what = "one head of the attention maps";
    else if (step.view == "attention-distance")
        what = "the attention maps' attention against distance";
    else if (step.view == "attention-row")
        what = "one query row of the attention maps";
    else if (step.view == "similarity")
        what = "the similarity of the attention maps' heads";
    else if (step.view == "fit-table")
        what = "the table of fitted slopes";
    else if (step.view == "schemes")
        what = "ALiBi beside the other position schemes";
    std::string note = fmt::format(
        "This step opens {} (view \"{}\"), which this explorer does not have yet; the "
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
    ++m_state.lessonStep;
    // A number being typed would write itself back over the step when its field lets go.
    if (ImGui::GetCurrentContext() != nullptr && ImGui::IsAnyItemActive()) ImGui::ClearActiveID();
    Session parameters = step.session;
    parameters.view.reset();
    parameters.compare = parameters.compare ? sessionCompare(*parameters.compare) : std::nullopt;
    if (auto ok = applySession(parameters); !ok) m_state.errorPopup = ok.error().message;
    if (step.explorerView) m_state.view = fromExplorerView(*step.explorerView);
    if (const auto maps = mapsViewOf(step.view); maps && !step.attentionMaps.empty()) {
        // A step over a model's attention maps: its file, layer, head and row, in its view.
        MapsLessonTarget target;
        target.layerNumber = step.layer;
        target.head = step.session.head;
        target.row = step.session.queryRow;
        target.side = maps->side;
        target.fit = maps->view == View::Fit;  // the table the step cites, filled without a click
        // "orders the heads by how alike their rows are": the clustering order, as the text says.
        if (step.view == "similarity") m_state.maps.similarityOrder = 2;
        m_state.view = maps->view;
        // The step's mark belongs to the maps' views, on the layer it shows (set once open).
        m_state.maps.lessonMark = explore::lessonMark(step, explore::LessonMarkScope::AttentionMaps);
        m_state.maps.lessonLayer = -1;
        showLessonMaps(step.attentionMaps, target);
        m_state.lessonNote.clear();
        m_state.lessonMark = {};
        return;
    }
    m_state.maps.lessonMark = {};
    m_state.maps.lessonSide = false;
    m_state.lessonNote = step.explorerView ? std::string() : missingViewNote(step);
    // A step whose view this explorer lacks marks nothing: its head and cell belong to that view.
    m_state.lessonMark = lessonMarkOf(step);
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
    m_state.maps.lessonMark = {};
    m_state.maps.lessonSide = false;
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
