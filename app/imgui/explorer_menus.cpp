// The Explorer's menus, keyboard shortcuts and popups: File / Edit / View / Help, the keys of
// issue 10 (undo, redo, reset, zoom, full screen, views), Export figure (Ctrl+Shift+P; its popup
// is in figure_export.cpp), the help window, the unsaved-changes prompt and the error popup. Each only raises an action
// or calls an Explorer operation.
#include "explorer.hpp"

#include "keys.hpp"
#include "panels.hpp"

#include <fmt/format.h>
#include <imgui.h>

#include <algorithm>
#include <filesystem>
#include <string>

namespace alibi::imgui {

void Explorer::handleShortcuts() {
    const ImGuiIO& io = ImGui::GetIO();
    // A focused text field keeps its own keys (its own undo included).
    if (io.WantTextInput || !m_state.errorPopup.empty() || m_state.confirm != Confirm::None || m_figurePopupShown)
        return;
    auto pressed = [](int key) { return ImGui::IsKeyPressed(key, false); };
    if (pressed(keys::kF11)) m_state.fullScreen = !m_state.fullScreen;
    if (pressed(keys::kF9) && m_state.presentation) m_state.presentationParameters = !m_state.presentationParameters;
    if (pressed(keys::kF5) && io.KeyCtrl && io.KeyShift) setPresentation(!m_state.presentation);
    if (pressed(keys::kF1)) m_state.showHelp = !m_state.showHelp;
    if (!io.KeyCtrl) return;
    if (pressed(keys::kZ)) io.KeyShift ? redo() : undo();
    if (pressed(keys::kY)) redo();
    if (pressed(keys::kR)) resetToDefaults();
    if (pressed(keys::kO)) m_state.actions.openSession = true;
    if (pressed(keys::kS)) m_state.actions.saveSession = true;
    if (pressed(keys::kQ)) requestQuit();
    if (pressed(keys::kL)) m_state.showLessons = !m_state.showLessons;
    if (pressed(keys::kC) && io.KeyShift) m_state.actions.copyCli = true;
    if (pressed(keys::kP) && io.KeyShift) m_state.figure.openPopup = true;
    if (pressed(keys::kEqual) || pressed(keys::kKeypadAdd)) m_state.zoom = std::min(kMaxZoom, m_state.zoom * 1.25f);
    if (pressed(keys::kMinus) || pressed(keys::kKeypadSubtract))
        m_state.zoom = std::max(kMinZoom, m_state.zoom / 1.25f);
    if (pressed(keys::kDigit0)) m_state.zoom = 1.0f;
    for (std::size_t v = 0; v < kAllViews.size(); ++v)
        if (pressed(keys::kDigit0 + 1 + static_cast<int>(v))) m_state.view = kAllViews[v];
}

float Explorer::drawMenuBar() {
    if (!ImGui::BeginMainMenuBar()) return 0.0f;
    if (ImGui::BeginMenu("File")) {
        if (ImGui::MenuItem("Open session", "Ctrl+O")) m_state.actions.openSession = true;
        if (ImGui::MenuItem("Save session", "Ctrl+S")) m_state.actions.saveSession = true;
        ImGui::Separator();
        if (ImGui::MenuItem("Open attention maps...")) m_state.maps.openDialog = true;
        if (ImGui::MenuItem("Open model...")) m_state.live.openDialog = true;
        ImGui::Separator();
        if (ImGui::MenuItem("Export tensor", nullptr, false, !m_model.exportRunning))
            m_state.actions.exportTensor = true;
        if (ImGui::MenuItem("Save window as PNG")) m_state.actions.screenshot = true;
        if (ImGui::MenuItem("Export figure...", "Ctrl+Shift+P")) m_state.figure.openPopup = true;
        if (ImGui::MenuItem("Copy as CLI command", "Ctrl+Shift+C")) m_state.actions.copyCli = true;
        ImGui::Separator();
        if (ImGui::MenuItem("Quit", "Ctrl+Q")) requestQuit();
        ImGui::EndMenu();
    }
    if (ImGui::BeginMenu("Edit")) {
        if (ImGui::MenuItem("Undo", "Ctrl+Z", false, m_history.canUndo())) undo();
        if (ImGui::MenuItem("Redo", "Ctrl+Shift+Z", false, m_history.canRedo())) redo();
        ImGui::Separator();
        if (ImGui::MenuItem("Reset to defaults", "Ctrl+R")) resetToDefaults();
        ImGui::EndMenu();
    }
    if (ImGui::BeginMenu("View")) {
        for (std::size_t v = 0; v < kAllViews.size(); ++v) {
            const std::string name(viewTitle(kAllViews[v]));
            const std::string shortcut = fmt::format("Ctrl+{}", v + 1);
            if (ImGui::MenuItem(name.c_str(), shortcut.c_str(), m_state.view == kAllViews[v]))
                m_state.view = kAllViews[v];
        }
        ImGui::Separator();
        if (ImGui::MenuItem("Zoom in", "Ctrl+=", false, m_state.zoom < kMaxZoom))
            m_state.zoom = std::min(kMaxZoom, m_state.zoom * 1.25f);
        if (ImGui::MenuItem("Zoom out", "Ctrl+-", false, m_state.zoom > kMinZoom))
            m_state.zoom = std::max(kMinZoom, m_state.zoom / 1.25f);
        if (ImGui::MenuItem("Reset zoom", "Ctrl+0")) m_state.zoom = 1.0f;
        if (ImGui::MenuItem("Presentation (large text, full screen)", "Ctrl+Shift+F5", m_state.presentation))
            setPresentation(!m_state.presentation);
        ImGui::MenuItem("Full screen", "F11", &m_state.fullScreen);
        ImGui::MenuItem("Parameters panel (presentation)", "F9", &m_state.presentationParameters, m_state.presentation);
        ImGui::EndMenu();
    }
    if (ImGui::BeginMenu("Help")) {
        ImGui::MenuItem("What is ALiBi?", "F1", &m_state.showHelp);
        ImGui::MenuItem("Lessons", "Ctrl+L", &m_state.showLessons);
        if (m_lessons.active() && ImGui::MenuItem("Close lesson")) closeLesson();
        ImGui::Separator();
        // The example attention maps of a synthetic "trained-like" model (assets/attention).
        const std::vector<std::string> examples = attentionExamples();
        if (examples.empty()) ImGui::MenuItem("Example attention maps: not installed", nullptr, false, false);
        for (const std::string& path : examples) {
            const std::string label = "Open example attention maps: " + std::filesystem::path(path).filename().string();
            if (ImGui::MenuItem(label.c_str())) openAttentionMaps(path);
        }
        // The small BLOOM model trained on Debian's licence texts (assets/models), run on the Model view's text.
        if (ImGui::MenuItem("Example model (license-bloom-tiny)", nullptr, false, !exampleModelFolder().empty()))
            openExampleModel();
        ImGui::EndMenu();
    }
    // The status line sits at the right of the menu bar, where every view can see it.
    if (!m_state.statusMessage.empty()) {
        ImGui::SameLine(0, ImGui::GetFontSize() * 2.0f);
        ImGui::TextDisabled("%s", m_state.statusMessage.c_str());
    }
    const float height = ImGui::GetWindowSize().y;
    ImGui::EndMainMenuBar();
    return height;
}

void Explorer::drawHelpWindow() {
    if (!m_state.showHelp) return;
    const ImVec2 display = ImGui::GetIO().DisplaySize;
    ImGui::SetNextWindowPos(ImVec2(display.x * 0.5f, display.y * 0.45f), ImGuiCond_Appearing, ImVec2(0.5f, 0.5f));
    ImGui::SetNextWindowSize(ImVec2(std::min(display.x * 0.8f, ImGui::GetFontSize() * 44.0f), 0), ImGuiCond_Appearing);
    if (ImGui::Begin("What is ALiBi?", &m_state.showHelp,
                     ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoCollapse)) {
        drawHelpText();
    }
    ImGui::End();
}

void Explorer::drawConfirmPopup() {
    if (m_state.confirm == Confirm::None) return;
    if (!ImGui::IsPopupOpen("Unsaved changes")) ImGui::OpenPopup("Unsaved changes");
    const ImVec2 display = ImGui::GetIO().DisplaySize;
    ImGui::SetNextWindowPos(ImVec2(display.x * 0.5f, display.y * 0.4f), ImGuiCond_Always, ImVec2(0.5f, 0.5f));
    if (ImGui::BeginPopupModal("Unsaved changes", nullptr,
                               ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoSavedSettings)) {
        const bool quitting = m_state.confirm == Confirm::Quit;
        ImGui::TextUnformatted(quitting ? "The parameters have changed since the session was opened or saved."
                                        : "Opening a session replaces the parameters, which have unsaved changes.");
        ImGui::TextUnformatted("Discard the changes?");
        ImGui::Spacing();
        const float button = ImGui::GetFontSize() * 9.0f;
        if (ImGui::Button(quitting ? "Discard and quit" : "Discard and open", ImVec2(button, 0))) {
            if (quitting) {
                m_state.quitApproved = true;
            } else {
                openSessionFile();
            }
            m_state.confirm = Confirm::None;
            ImGui::CloseCurrentPopup();
        }
        ImGui::SameLine();
        if (ImGui::Button("Cancel", ImVec2(button, 0)) || ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape))) {
            m_state.confirm = Confirm::None;
            ImGui::CloseCurrentPopup();
        }
        ImGui::EndPopup();
    }
}

void Explorer::drawErrorPopup() {
    if (m_state.errorPopup.empty()) return;
    if (!ImGui::IsPopupOpen("Error")) ImGui::OpenPopup("Error");
    const ImVec2 display = ImGui::GetIO().DisplaySize;
    ImGui::SetNextWindowPos(ImVec2(display.x * 0.5f, display.y * 0.4f), ImGuiCond_Always, ImVec2(0.5f, 0.5f));
    ImGui::SetNextWindowSizeConstraints(ImVec2(360, 0), ImVec2(std::max(display.x * 0.6f, 360.0f), display.y));
    if (ImGui::BeginPopupModal("Error", nullptr,
                               ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoSavedSettings)) {
        ImGui::PushTextWrapPos(std::max(display.x * 0.55f, 340.0f));
        ImGui::TextUnformatted(m_state.errorPopup.c_str());
        ImGui::PopTextWrapPos();
        ImGui::Spacing();
        if (ImGui::Button("OK", ImVec2(120, 0)) || ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape))) {
            m_state.errorPopup.clear();
            ImGui::CloseCurrentPopup();
        }
        ImGui::EndPopup();
    }
}

}  // namespace alibi::imgui
