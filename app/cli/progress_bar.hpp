// A progress bar on stderr, shown only when stderr is a terminal and the work has already taken
// more than about a second; redraws are throttled and the line is cleared at the end. Its
// callback also carries cancellation: it returns false once SIGINT/SIGTERM has arrived.
#pragma once

#include <alibi/base/progress.hpp>

#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>

namespace alibi::cli {

class ProgressBar {
public:
    enum class Unit { Items, Bytes };

    explicit ProgressBar(std::string label, Unit unit = Unit::Items);
    ~ProgressBar();
    ProgressBar(const ProgressBar&) = delete;
    ProgressBar& operator=(const ProgressBar&) = delete;

    // The callback to hand to the core; valid while this object lives. Thread-safe.
    [[nodiscard]] ProgressFn callback();
    // Clears the bar, if it was drawn.
    void finish();

private:
    bool update(std::uint64_t done, std::uint64_t total);
    void draw(std::uint64_t done, std::uint64_t total, std::chrono::steady_clock::time_point now);

    std::string m_label;
    Unit m_unit;
    bool m_terminal = false;
    bool m_drawn = false;
    std::chrono::steady_clock::time_point m_start;
    std::chrono::steady_clock::time_point m_lastDraw;
    std::mutex m_mutex;
};

}  // namespace alibi::cli
