// EditHistory: two stacks of whole sessions (a session is a few hundred bytes plus its custom
// slopes, so 500 steps cost little and need no diffing).
#include "edit_history.hpp"

namespace alibi::imgui {

EditHistory::EditHistory(Session current) : m_current(current), m_saved(std::move(current)) {}

void EditHistory::reset(const Session& session) {
    m_current = session;
    m_saved = session;
    m_undo.clear();
    m_redo.clear();
}

void EditHistory::record(const Session& next) {
    if (next == m_current) return;
    m_undo.push_back(std::move(m_current));
    if (m_undo.size() > kMaxSteps) m_undo.erase(m_undo.begin());
    m_current = next;
    m_redo.clear();
}

std::optional<Session> EditHistory::undo() {
    if (m_undo.empty()) return std::nullopt;
    m_redo.push_back(std::move(m_current));
    m_current = std::move(m_undo.back());
    m_undo.pop_back();
    return m_current;
}

std::optional<Session> EditHistory::redo() {
    if (m_redo.empty()) return std::nullopt;
    m_undo.push_back(std::move(m_current));
    m_current = std::move(m_redo.back());
    m_redo.pop_back();
    return m_current;
}

}  // namespace alibi::imgui
