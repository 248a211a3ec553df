// Input is never dropped (issue 27): Dear ImGui 1.86 reads keys and mouse buttons as a state
// sampled once per frame, so with slow frames (35 ms median, 500 ms peaks on a busy machine) two
// Page Up presses 30 ms apart moved one step and a quick click on a tab or a menu item was lost.
// The window's GLFW callbacks queue every key, character, mouse button and cursor event here, and
// each frame takes them in order up to the first one that would change again a key or button this
// frame already changed (or move the cursor after a button changed): that one and the rest wait
// for the next frame, which the shell then runs at once. So every press and release is seen by
// ImGui in its own frame, at the place it happened. Nothing here needs GLFW (the logic tests
// drive it); keys are io.KeysDown indices (GLFW's key codes, as ImGui's GLFW backend uses).
#pragma once

#include <imgui.h>

#include <array>
#include <cstddef>
#include <deque>

namespace alibi::imgui {

struct InputEvent {
    enum class Kind { Key, Char, Button, Move };
    Kind kind = Kind::Key;
    int code = 0;  // Key: an io.KeysDown index; Button: a mouse button
    bool down = false;
    unsigned character = 0;  // Char
    ImVec2 pos{};            // Move: the cursor in window coordinates

    static InputEvent key(int key, bool down) { return {Kind::Key, key, down, 0, {}}; }
    static InputEvent text(unsigned c) { return {Kind::Char, 0, false, c, {}}; }
    static InputEvent button(int button, bool down) { return {Kind::Button, button, down, 0, {}}; }
    static InputEvent move(float x, float y) { return {Kind::Move, 0, false, 0, ImVec2(x, y)}; }
};

class InputQueue {
public:
    void push(const InputEvent& event) { m_events.push_back(event); }
    // Events that wait for a frame (the shell does not sleep while any do).
    [[nodiscard]] bool pending() const { return !m_events.empty(); }
    [[nodiscard]] std::size_t size() const { return m_events.size(); }

    // Call once per frame before ImGui::NewFrame, after the platform backend's NewFrame: applies
    // this frame's share of the events to `io` (keys, modifiers, characters) and sets the mouse
    // buttons and position from the events applied so far (the backend's sampling of the live
    // state would skip a press and release between two frames). `hovered`: the cursor is over
    // the window (otherwise the backend's "no mouse" position stays). Returns the events applied.
    std::size_t applyFrame(ImGuiIO& io, bool hovered = true);

private:
    std::deque<InputEvent> m_events;
    std::array<bool, ImGuiMouseButton_COUNT> m_buttons{};
    bool m_havePos = false;
    ImVec2 m_pos{};
};

}  // namespace alibi::imgui
