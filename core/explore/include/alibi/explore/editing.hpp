// The explorers' editing model, decided once for both (and for the CLI and Python where they take
// the same input): committing an edit (its dependents clamped, with a note, then the whole session
// validated), the one grammar of a slope list, the one way custom slopes follow H, and the undo and
// redo history. A dependent selection (query row, selected head, batch, batch row, custom slopes)
// changes only when the edit made it invalid, and then to the nearest valid value; it is never
// reset to a default.
#pragma once

#include <alibi/base/error.hpp>
#include <alibi/io/session.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace alibi::explore {

// A slope list as every front end takes it: items separated by commas, semicolons or white space
// (a comma or semicolon with no item before or after it is refused: a slope left out),
// each a decimal number ("0.125", "1e-3"), a power ("2^-3") or a fraction of those ("1/8",
// "1/2^3"). Every slope must be positive and finite, and there are 1..kMaxHeads of them. Messages
// name the field `name` (the CLI's flag; wordMessage turns it into another front end's words).
[[nodiscard]] Result<std::vector<double>> parseSlopeList(std::string_view text, std::string_view name = "--slopes");
// "0.5, 0.25, 0.125": a list as the fields show it (shortest exact decimals).
[[nodiscard]] std::string slopeListText(const std::vector<double>& slopes);

// Custom slopes set H, as the CLI's --slopes does: the list becomes the custom scheme and H its length.
[[nodiscard]] Session withCustomSlopes(Session session, std::vector<double> slopes);

// A custom list whose length differs from H follows it: cut to the first H slopes, or continued
// geometrically with the ratio of its last two slopes (1/2 with one slope), as the press and
// geometric schemes grow. Returns the note ("" when nothing changed).
[[nodiscard]] std::string fitCustomSlopes(SlopeParams& slopes);

// Clamps every dependent of `session` into range (query row, selected head, the batch and its row
// for T, custom slopes for H); one note per change ("query row 100 → 31 (T = 32 has rows 0–31)").
// With `before` (the session the edit started from), a batch the edit itself changed (typed
// lengths or documents) is not fitted to T: a typed value is refused by validation, never
// silently shortened; only a batch left as it was follows a new T.
[[nodiscard]] std::vector<std::string> clampDependents(Session& session, const Session* before = nullptr);
// The notes on one line: "a; b".
[[nodiscard]] std::string joinNotes(const std::vector<std::string>& notes);

// A core message (naming parameters by their CLI flags or session fields) in the explorers' words,
// one wording for both: the field names of base/field_names.hpp's table, no "session:" prefix or
// "(session field `x`)" aside, and no advice that only a command line can follow.
[[nodiscard]] std::string guiMessage(std::string_view coreMessage);

struct CommittedEdit {
    Session session;                 // clamped and valid
    std::vector<std::string> notes;  // what the clamp changed
};
// An edit as both explorers commit it: `next` with its dependents clamped, then validated whole.
// The error is the core's (naming the parameter by its CLI flag; word it with wordMessage).
// `before`: as for clampDependents.
[[nodiscard]] Result<CommittedEdit> commitEdit(Session next, const Session* before = nullptr);

// Undo and redo of committed sessions, and the state last opened or saved (the modified mark).
// Between beginGroup() and endGroup() (a slider drag) every recorded change is one step.
class EditHistory {
public:
    explicit EditHistory(Session current = defaultSession());

    // Starts over from `session` (opened or reset): no steps, and it is the saved state.
    void reset(const Session& session);
    // Records `next` as the current session (nothing if equal), one step after the last; clears redo.
    void record(const Session& next);
    void beginGroup();
    void endGroup();
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
    int m_groupDepth = 0;
    bool m_groupRecorded = false;  // the open group already pushed its step
};

}  // namespace alibi::explore
