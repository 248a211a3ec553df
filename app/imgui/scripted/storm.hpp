// Storm: random input for the storm test (issue 6.5). Each frame it moves the mouse and presses
// buttons at random over the whole window, and every few frames it throws random parameter values
// at the session (extremes included: H = 1 and 256, T = 1 and 65536, K = 1, invalid custom slopes,
// bad mask text), starts and cancels exports, and dismisses error popups. The Explorer must refuse
// what is invalid, keep rendering, and keep its memory bounded.
#pragma once

#include "app_state.hpp"

#include <imgui.h>

#include <cstdint>
#include <random>
#include <string>

namespace alibi::imgui {

class Storm {
public:
    // `scratchDir` receives the storm's exports (deleted by the caller).
    Storm(std::uint64_t seed, std::string scratchDir);

    // Call after the platform backend's NewFrame and before ImGui::NewFrame: overrides the mouse.
    void injectInput(ImGuiIO& io);
    // Call before the Explorer's frame: random edits, exports and cancellations.
    void perturbState(AppState& state);

    [[nodiscard]] std::uint64_t edits() const { return m_edits; }
    [[nodiscard]] std::uint64_t exportsStarted() const { return m_exports; }

private:
    std::int64_t pickLength();
    int pickHeads();

    std::mt19937_64 m_rng;
    std::string m_scratchDir;
    std::uint64_t m_frame = 0;
    std::uint64_t m_edits = 0;
    std::uint64_t m_exports = 0;
    bool m_dragging = false;
    int m_key = -1;  // key held down since the previous frame, if any
};

}  // namespace alibi::imgui
