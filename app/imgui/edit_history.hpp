// EditHistory: undo and redo of parameter changes. The Explorer records a step when a change is
// committed (a typed number on Enter or focus loss, a slider when it is released), so a whole
// drag is one step. It also remembers the session as last opened or saved, which decides the
// "modified" mark and the unsaved-changes prompt.
#pragma once

#include <alibi/io/session.hpp>

#include <cstddef>
#include <optional>
#include <vector>

namespace alibi::imgui {

class EditHistory {
public:
    explicit EditHistory(Session current = defaultSession());

    // Starts over from `session` (opened or reset): no undo steps, and it is the saved state.
    void reset(const Session& session);
    // Records `next` as one step after the current session (nothing if equal); clears redo.
    void record(const Session& next);
    // The session to go back (forward) to, made current; nullopt when there is none.
    [[nodiscard]] std::optional<Session> undo();
    [[nodiscard]] std::optional<Session> redo();
    // The session just saved: the modified mark compares against it.
    void markSaved(const Session& session) { m_saved = session; }

    [[nodiscard]] const Session& current() const { return m_current; }
    [[nodiscard]] bool canUndo() const { return !m_undo.empty(); }
    [[nodiscard]] bool canRedo() const { return !m_redo.empty(); }
    [[nodiscard]] bool modified() const { return !(m_current == m_saved); }

    static constexpr std::size_t kMaxSteps = 500;

private:
    Session m_current;
    Session m_saved;
    std::vector<Session> m_undo;
    std::vector<Session> m_redo;
};

}  // namespace alibi::imgui
