// A progress bar on stderr, shown only when stderr is a terminal and the work has already taken
// more than about a second; redraws are throttled and the line is cleared at the end. With
// `always` (a command's --progress flag) progress is shown whatever stderr is: on a terminal as
// the bar, elsewhere (a pipe, a log file) as one plain line a second. Its callback also carries
// cancellation: it returns false once SIGINT/SIGTERM has arrived.
#pragma once

#include <alibi/base/progress.hpp>
#include <alibi/explore/progress_text.hpp>

#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>

namespace alibi::cli {

class ProgressBar {
public:
    enum class Unit { Items, Bytes };

    explicit ProgressBar(std::string label, Unit unit = Unit::Items, bool always = false);
    ~ProgressBar();
    ProgressBar(const ProgressBar&) = delete;
    ProgressBar& operator=(const ProgressBar&) = delete;

    // The callback to hand to the core; valid while this object lives. Thread-safe.
    [[nodiscard]] ProgressFn callback();
    // Words the explorers use (explore::progressText) instead of the done / total count: the
    // phase of a view being computed ("Computing...", then "preview, refining..." once a first
    // picture is ready).
    void setPhase(explore::ProgressPhase phase);
    // True when progress is shown at all (a terminal without --quiet, or `always`).
    [[nodiscard]] bool shown() const { return m_terminal || m_always; }
    // A line of its own (the bar, if drawn, is cleared first and redrawn on the next report):
    // "label: text". Only when shown(). Thread-safe.
    void note(const std::string& text);
    // Seconds since the bar was made.
    [[nodiscard]] double elapsedSeconds() const;
    // Clears the bar, if it was drawn.
    void finish();

private:
    bool update(std::uint64_t done, std::uint64_t total);
    void draw(std::uint64_t done, std::uint64_t total, std::chrono::steady_clock::time_point now);
    void clearLine();

    std::string m_label;
    Unit m_unit;
    bool m_terminal = false;
    bool m_always = false;
    bool m_phases = false;
    explore::ProgressPhase m_phase = explore::ProgressPhase::Computing;
    bool m_drawn = false;
    bool m_lined = false;  // `always` off a terminal: a line was printed (the next waits a second)
    std::chrono::steady_clock::time_point m_start;
    std::chrono::steady_clock::time_point m_lastDraw;
    std::mutex m_mutex;
};

}  // namespace alibi::cli
