// See input_queue.hpp.
#include "input_queue.hpp"

#include <algorithm>

namespace alibi::imgui {

namespace {

// GLFW's codes of the modifier keys (io.KeysDown indices, as ImGui's GLFW backend reads them).
constexpr int kLeftShift = 340, kLeftControl = 341, kLeftAlt = 342, kLeftSuper = 343;
constexpr int kRightShift = 344, kRightControl = 345, kRightAlt = 346, kRightSuper = 347;

bool isModifier(int key) {
    return key >= kLeftShift && key <= kRightSuper;
}

}  // namespace

std::size_t InputQueue::applyFrame(ImGuiIO& io, bool hovered) {
    const int keyCount = IM_ARRAYSIZE(io.KeysDown);
    std::vector<int> changedKeys;
    m_repeated.clear();
    std::array<bool, ImGuiMouseButton_COUNT> changedButtons{};
    bool buttonChanged = false;
    bool moved = false;  // the cursor moved this frame
    // A key other than a modifier pressed this frame: the modifiers it was pressed with (its
    // carried mods, else the modifier keys' state when it was applied); -1: none pressed yet.
    int pressMods = -1;
    const auto heldMods = [&io] {
        const auto down = [&io](int a, int b) { return io.KeysDown[a] || io.KeysDown[b]; };
        return (down(kLeftShift, kRightShift) ? kModShift : 0) | (down(kLeftControl, kRightControl) ? kModCtrl : 0) |
               (down(kLeftAlt, kRightAlt) ? kModAlt : 0) | (down(kLeftSuper, kRightSuper) ? kModSuper : 0);
    };
    std::size_t applied = 0;
    while (!m_events.empty()) {
        const InputEvent& e = m_events.front();
        bool wait = false;
        switch (e.kind) {
            case InputEvent::Kind::Key:
                // A key's change (or the system's repeat of it) after one this frame made waits;
                // a repeat of a key repeated this frame already joins it.
                for (int k : changedKeys) wait = wait || k == e.code;
                // The modifiers stay as the key pressed this frame had them; a second press with
                // other modifiers (Shift+Right, then Right) waits too.
                if (pressMods >= 0 && isModifier(e.code)) wait = true;
                if (pressMods >= 0 && e.down && !isModifier(e.code) && e.mods >= 0 && e.mods != pressMods) wait = true;
                break;
            case InputEvent::Kind::Button:
                // A press or release where the cursor moved this frame waits for the next one:
                // ImGui must see the cursor over an item for a frame before the press (its
                // "allow overlap" items, the tabs among them, ignore a press unless the previous
                // frame hovered nothing or that same item: a quick click on a second tab was lost).
                wait = moved || (e.code >= 0 && e.code < ImGuiMouseButton_COUNT &&
                                 changedButtons[static_cast<std::size_t>(e.code)]);
                break;
            case InputEvent::Kind::Move:
                wait = buttonChanged;  // the release happens where the press did
                break;
            case InputEvent::Kind::Char:
                break;
        }
        if (wait) break;
        switch (e.kind) {
            case InputEvent::Kind::Key:
                if (e.repeat) {
                    // Only a key held down repeats (a stale repeat after the key's release is
                    // nothing); its modifiers are those it repeats with, as a press's.
                    if (e.code >= 0 && e.code < keyCount && io.KeysDown[e.code] &&
                        std::find(m_repeated.begin(), m_repeated.end(), e.code) == m_repeated.end()) {
                        m_repeated.push_back(e.code);
                        if (!isModifier(e.code) && pressMods < 0) pressMods = e.mods >= 0 ? e.mods : heldMods();
                    }
                } else if (e.code >= 0 && e.code < keyCount) {
                    if (io.KeysDown[e.code] != e.down) changedKeys.push_back(e.code);
                    io.KeysDown[e.code] = e.down;
                    if (e.down && !isModifier(e.code) && pressMods < 0) pressMods = e.mods >= 0 ? e.mods : heldMods();
                }
                break;
            case InputEvent::Kind::Char:
                io.AddInputCharacter(e.character);
                break;
            case InputEvent::Kind::Button:
                if (e.code >= 0 && e.code < ImGuiMouseButton_COUNT) {
                    auto& down = m_buttons[static_cast<std::size_t>(e.code)];
                    if (down != e.down) {
                        changedButtons[static_cast<std::size_t>(e.code)] = true;
                        buttonChanged = true;
                    }
                    down = e.down;
                }
                break;
            case InputEvent::Kind::Move:
                moved = moved || !m_havePos || e.pos.x != m_pos.x || e.pos.y != m_pos.y;
                m_pos = e.pos;
                m_havePos = true;
                break;
        }
        m_events.pop_front();
        ++applied;
    }
    // A key pressed this frame: the modifiers it was pressed with; else the modifier keys' state.
    const int mods = pressMods >= 0 ? pressMods : heldMods();
    io.KeyCtrl = (mods & kModCtrl) != 0;
    io.KeyShift = (mods & kModShift) != 0;
    io.KeyAlt = (mods & kModAlt) != 0;
    io.KeySuper = (mods & kModSuper) != 0;
    for (std::size_t b = 0; b < m_buttons.size(); ++b) io.MouseDown[b] = m_buttons[b];
    if (hovered && m_havePos) io.MousePos = m_pos;
    return applied;
}

void InputQueue::applyRepeats(ImGuiIO& io) const {
    const int keyCount = IM_ARRAYSIZE(io.KeysDown);
    // ImGui's IsKeyPressed(key, repeat) is true where the held time t is 0 (the press) or has just
    // passed io.KeyRepeatDelay (a repeat). A repeated key: t just past the delay, and t less this
    // frame's time before it (one repeat, not a fresh press: IsKeyPressed(key, false) stays
    // false). Any other key held since an earlier frame: t below the delay, so no repeat however
    // slow the frames were.
    const float delay = io.KeyRepeatDelay;
    for (int k = 0; k < keyCount; ++k) {
        float& t = io.KeysDownDuration[k];
        if (!io.KeysDown[k] || !(t > 0.0f)) continue;  // up, or pressed this frame (t == 0)
        const bool repeated = std::find(m_repeated.begin(), m_repeated.end(), k) != m_repeated.end();
        t = repeated ? delay + 0.5f * std::min(io.DeltaTime, io.KeyRepeatRate) : std::min(t, 0.5f * delay);
    }
}

}  // namespace alibi::imgui
