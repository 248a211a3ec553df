// The fixture of the ImGui explorer's logic tests: a bare ImGui context (font atlas built, display
// size set, Enter/Escape/Tab mapped) with the Explorer drawing every panel, driven by mouse and
// keyboard input fed through ImGuiIO, as a person would.
#pragma once

#include "explorer.hpp"
#include "keys.hpp"
#include "model.hpp"

#include <gtest/gtest.h>
#include <imgui.h>
#include <imgui_internal.h>

#include <chrono>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace alibi::imgui {

// Key indices the fixture maps ImGui's navigation keys to (GLFW's codes, as the real backend).
inline constexpr int kKeyEnter = 257;
inline constexpr int kKeyEscape = 256;
inline constexpr int kKeyTab = 258;
inline constexpr int kKeyBackspace = 259;

// Each label of a grid of tiles (compare, diagnose, the attention maps) says `want[n]` and sits in
// the band above its tile, within its columns: never over a cell.
inline void expectLabelsAbove(const std::vector<TileLabelPlace>& labels, const std::vector<std::string>& want) {
    ASSERT_EQ(labels.size(), want.size());
    for (std::size_t n = 0; n < labels.size(); ++n) {
        const TileLabelPlace& l = labels[n];
        EXPECT_EQ(l.text, want[n]);
        EXPECT_LE(l.label.y + l.label.height, l.tile.y + 0.5f) << l.text;  // above the first row
        EXPECT_GE(l.label.y, l.tile.y - 2 * l.label.height) << l.text;     // in the band just above
        EXPECT_GE(l.label.x, l.tile.x - 0.5f) << l.text;
        EXPECT_LE(l.label.x + l.label.width, l.tile.x + l.tile.width + 0.5f) << l.text;
    }
}

class ExplorerLogic : public ::testing::Test {
public:
    void SetUp() override {
        ImGui::CreateContext();
        ImGuiIO& io = ImGui::GetIO();
        io.IniFilename = nullptr;
        io.DisplaySize = ImVec2(1600, 1000);
        io.DeltaTime = 1.0f / 60.0f;
        // As the OpenGL 3 backend does (GL >= 3.2): a grid of thousands of heads needs more than
        // 65536 vertices, which ImGui then splits over draw commands instead of asserting.
        io.BackendFlags |= ImGuiBackendFlags_RendererHasVtxOffset;
        unsigned char* pixels = nullptr;
        int width = 0, height = 0;
        io.Fonts->GetTexDataAsRGBA32(&pixels, &width, &height);  // builds the default font atlas
        io.MousePos = ImVec2(-1, -1);
        io.KeyMap[ImGuiKey_Enter] = kKeyEnter;
        io.KeyMap[ImGuiKey_Escape] = kKeyEscape;
        io.KeyMap[ImGuiKey_Tab] = kKeyTab;
        io.KeyMap[ImGuiKey_Backspace] = kKeyBackspace;
        io.KeyMap[ImGuiKey_A] = 'A';
        m_explorer.emplace();
        frame();
        frame();
    }
    void TearDown() override {
        m_explorer.reset();  // joins the workers while the context still exists
        ImGui::DestroyContext();
    }

    void frame() {
        ImGui::NewFrame();
        m_explorer->frame();
        ImGui::Render();
        m_explorer->framePresented();
    }

    // Runs frames until `done()` holds; false after the hang guard settle() uses (300 s of wall
    // time: a guard against a hang, never a latency check).
    template <class Done>
    bool framesUntil(Done done) {
        const auto giveUp = std::chrono::steady_clock::now() + std::chrono::seconds(300);
        while (!done()) {
            if (std::chrono::steady_clock::now() >= giveUp) return false;
            frame();
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
        return true;
    }

    // Runs frames until the workers have delivered every result (bounded, so a bug cannot hang).
    void settle() {
        // A few frames first: a view switched to programmatically submits its work only once its
        // tab is drawn, and the shown results arrive a frame after the workers finish.
        // The bound is generous (a guard against a hang, not a latency check): a machine loaded
        // with other work may take many seconds for a result (issue 25).
        // Idle over several frames in a row: a finished job's result is taken (and the next job,
        // such as the details after the exact grid, submitted) only on the frame after it lands,
        // so one idle frame can fall between two jobs on a loaded machine.
        const auto giveUp = std::chrono::steady_clock::now() + std::chrono::seconds(300);
        int idleFrames = 0;
        for (int i = 0; std::chrono::steady_clock::now() < giveUp; ++i) {
            frame();
            idleFrames = m_explorer->busy() ? 0 : idleFrames + 1;
            if (i >= 4 && idleFrames >= 4) break;
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
        frame();
        std::string pending;
        for (const char* work : m_explorer->pendingWork()) pending += std::string(" ") + work;
        ASSERT_FALSE(m_explorer->busy()) << "still pending:" << pending;
    }

    // Finds a screen point over the item `label` of window `window` by moving the mouse down a
    // column and asking ImGui which item is hovered (the test does not assume the panel layout).
    // `window` may name a child window by the start of its name ("Views/report").
    std::optional<ImVec2> findItem(const char* window, const char* label, float xFraction) {
        ImGuiWindow* w = ImGui::FindWindowByName(window);
        for (ImGuiWindow* candidate : ImGui::GetCurrentContext()->Windows)
            if (w == nullptr && std::string(candidate->Name).starts_with(window)) w = candidate;
        if (w == nullptr) return std::nullopt;
        const ImGuiID id = w->GetID(label);
        ImGuiIO& io = ImGui::GetIO();
        const float x = w->Pos.x + w->Size.x * xFraction;
        for (float y = w->Pos.y; y < w->Pos.y + w->Size.y; y += 3.0f) {
            io.MousePos = ImVec2(x, y);
            frame();
            if (ImGui::GetCurrentContext()->HoveredId == id) return io.MousePos;
        }
        return std::nullopt;
    }

    void drag(ImVec2 from, ImVec2 to) {
        ImGuiIO& io = ImGui::GetIO();
        io.MousePos = from;
        io.MouseDown[0] = true;
        frame();
        for (int step = 1; step <= 8; ++step) {
            const float t = static_cast<float>(step) / 8.0f;
            io.MousePos = ImVec2(from.x + (to.x - from.x) * t, from.y + (to.y - from.y) * t);
            frame();
        }
        io.MouseDown[0] = false;
        frame();
    }

    AppState& state() { return m_explorer->state(); }

    // A click on the item `label` of `window` (with Ctrl held when `ctrl`).
    bool click(const char* window, const char* label, float xFraction = 0.3f, bool ctrl = false) {
        frame();  // a popup opened last frame has its size now
        frame();
        const auto at = findItem(window, label, xFraction);
        if (!at) return false;
        ImGuiIO& io = ImGui::GetIO();
        io.MousePos = *at;
        io.KeyCtrl = ctrl;
        io.MouseDown[0] = true;
        frame();
        io.MouseDown[0] = false;
        frame();
        io.KeyCtrl = false;
        return true;
    }

    // Presses and releases key `index` (an io.KeysDown index), with modifiers.
    void press(int index, bool ctrl = false, bool shift = false) {
        ImGuiIO& io = ImGui::GetIO();
        io.KeyCtrl = ctrl;
        io.KeyShift = shift;
        io.KeysDown[index] = true;
        frame();
        io.KeysDown[index] = false;
        frame();
        io.KeyCtrl = false;
        io.KeyShift = false;
    }

    // Types `text` one character per frame, as a person would (each keystroke is a frame).
    void type(const std::string& text) {
        for (char c : text) {
            const char one[2] = {c, 0};
            ImGui::GetIO().AddInputCharactersUTF8(one);
            frame();
        }
    }

    // Ctrl+click on a slider turns it into a number field with its text selected; types `text`.
    bool typeIntoSlider(const char* label, const std::string& text) {
        if (!click("Parameters", label, 0.3f, true)) return false;
        type(text);
        return true;
    }

    std::optional<Explorer> m_explorer;
};

}  // namespace alibi::imgui
