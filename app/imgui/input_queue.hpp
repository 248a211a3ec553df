// Input is never dropped (issue 27): Dear ImGui 1.86 reads keys and mouse buttons as a state
// sampled once per frame, so with slow frames (35 ms median, 500 ms peaks on a busy machine) two
// Page Up presses 30 ms apart moved one step and a quick click on a tab or a menu item was lost.
// The window's GLFW callbacks queue every key, character, mouse button and cursor event here, and
// each frame takes them in order up to the first one that would change again a key or button this
// frame already changed (or move the cursor after a button changed, or press or release a button
// after the cursor moved): that one and the rest wait for the next frame, which the shell then runs
// at once. A click thus lands a frame after the cursor arrived, as a person's does: ImGui's tabs
// ignore a press in the frame the cursor came onto them from another tab (the s35 review's N2: a
// second quick click on a tab was lost). So every press and release is seen by
// ImGui in its own frame, at the place it happened. A key press is seen with the modifiers held
// when it was pressed: the event carries them (GLFW's mods), and a modifier's press or release
// after a key's press waits for the next frame (xdotool's shift+Right sends Shift down, Right
// down, Shift up, Right up: with the first three in one frame, Right was seen without Shift).
// A held key repeats when the system sends its repeats (GLFW_REPEAT, at the user's own delay and
// rate), not by ImGui's clock: ImGui 1.86 counts a key's held time in frame time, so a key whose
// release came one slow frame after its press (a 300 ms frame; a loaded machine delivering
// xdotool's shift+Page Down with Page Down's release late) was held past io.KeyRepeatDelay
// (0.275 s) and repeated without Shift: the lesson stepped (the s35 flake of
// imgui_input_shift_slow_frames). Nothing here needs GLFW (the logic tests drive it); keys are
// io.KeysDown indices (GLFW's key codes, as ImGui's GLFW backend uses).
#pragma once

#include <imgui.h>

#include <array>
#include <cstddef>
#include <deque>
#include <vector>

namespace alibi::imgui {

// The modifiers a key event carries (GLFW's mods bits: GLFW_MOD_SHIFT 1, CONTROL 2, ALT 4, SUPER 8).
inline constexpr int kModShift = 1, kModCtrl = 2, kModAlt = 4, kModSuper = 8;

struct InputEvent {
    enum class Kind { Key, Char, Button, Move };
    Kind kind = Kind::Key;
    int code = 0;  // Key: an io.KeysDown index; Button: a mouse button
    bool down = false;
    unsigned character = 0;  // Char
    ImVec2 pos{};            // Move: the cursor in window coordinates
    // Key: the modifiers held when it was pressed (kMod* bits, GLFW's `mods`); -1: not known
    // (then the modifier keys' own events say which are held).
    int mods = -1;
    bool repeat = false;  // Key: the system's repeat of a held key (down is true)

    static InputEvent key(int key, bool down, int mods = -1) { return {Kind::Key, key, down, 0, {}, mods, false}; }
    static InputEvent keyRepeat(int key, int mods = -1) { return {Kind::Key, key, true, 0, {}, mods, true}; }
    static InputEvent text(unsigned c) { return {Kind::Char, 0, false, c, {}, -1, false}; }
    static InputEvent button(int button, bool down) { return {Kind::Button, button, down, 0, {}, -1, false}; }
    static InputEvent move(float x, float y) { return {Kind::Move, 0, false, 0, ImVec2(x, y), -1, false}; }
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
    // Call right after ImGui::NewFrame: a key held since an earlier frame is pressed again this
    // frame only if the system repeated it (its repeats in one frame count once, as ImGui's own
    // repeat gave at most one a frame), whatever time the frames took. (NewFrame has just added
    // the frame's time to io.KeysDownDuration; ImGui's IsKeyPressed reads it.)
    void applyRepeats(ImGuiIO& io) const;

private:
    std::deque<InputEvent> m_events;
    std::vector<int> m_repeated;  // the keys the system repeated in the frame applyFrame made
    std::array<bool, ImGuiMouseButton_COUNT> m_buttons{};
    bool m_havePos = false;
    ImVec2 m_pos{};
};

}  // namespace alibi::imgui
