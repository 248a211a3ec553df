// Progress bar drawing; see progress_bar.hpp for when it appears.
#include "progress_bar.hpp"

#include "cancel.hpp"
#include "options.hpp"

#include <alibi/base/tensor.hpp>

#include <fmt/format.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <algorithm>
#include <cstdio>

namespace alibi::cli {
namespace {

constexpr auto kShowAfter = std::chrono::milliseconds(1000);
constexpr auto kRedrawEvery = std::chrono::milliseconds(100);
constexpr auto kLineEvery = std::chrono::milliseconds(1000);  // plain lines (not a terminal)

int terminalColumns() {
    winsize size{};
    if (ioctl(STDERR_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col >= 20) return size.ws_col;
    return 80;
}

}  // namespace

ProgressBar::ProgressBar(std::string label, Unit unit, bool always)
    : m_label(std::move(label)),
      m_unit(unit),
      m_terminal(isatty(STDERR_FILENO) == 1 && (!quiet() || always)),
      m_always(always),
      m_start(std::chrono::steady_clock::now()),
      m_lastDraw(m_start) {}

ProgressBar::~ProgressBar() {
    finish();
}

ProgressFn ProgressBar::callback() {
    return [this](std::uint64_t done, std::uint64_t total) { return update(done, total); };
}

void ProgressBar::setPhase(explore::ProgressPhase phase) {
    std::lock_guard lock(m_mutex);
    m_phases = true;
    m_phase = phase;
}

double ProgressBar::elapsedSeconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - m_start).count();
}

bool ProgressBar::update(std::uint64_t done, std::uint64_t total) {
    if (interrupted()) return false;
    if (!shown()) return true;
    const auto now = std::chrono::steady_clock::now();
    if (m_terminal) {
        if (now - m_start < kShowAfter || now - m_lastDraw < kRedrawEvery) return true;
    } else if (m_lined && now - m_lastDraw < kLineEvery) {
        return true;
    }
    // Worker threads report concurrently; one of them drawing is enough.
    std::unique_lock lock(m_mutex, std::try_to_lock);
    if (!lock.owns_lock()) return true;
    draw(done, total, now);
    return !interrupted();
}

void ProgressBar::draw(std::uint64_t done, std::uint64_t total, std::chrono::steady_clock::time_point now) {
    m_lastDraw = now;
    const double fraction =
        total > 0 ? std::clamp(static_cast<double>(done) / static_cast<double>(total), 0.0, 1.0) : 0.0;
    // The estimate: the rate so far, once a few percent are done (the explorers' rule).
    const double elapsed = std::chrono::duration<double>(now - m_start).count();
    const double left = explore::secondsLeft(elapsed, fraction);
    std::string tail;
    if (m_phases) {
        tail = " " + explore::progressText(m_phase, fraction, left);
    } else {
        const std::string amount = m_unit == Unit::Bytes ? fmt::format("{} / {}", humanBytes(done), humanBytes(total))
                                                         : fmt::format("{} / {}", done, total);
        tail = fmt::format(" {:3.0f}%  {}", fraction * 100.0, amount);
        if (left >= 0) tail += fmt::format(", about {:.0f} s left", std::max(1.0, left));
    }
    if (!m_terminal) {
        // A pipe or a file: plain lines, no carriage return or escape codes.
        fmt::print(stderr, "{}:{}\n", m_label, tail);
        std::fflush(stderr);
        m_lined = true;
        return;
    }
    const int columns = terminalColumns() - 1;
    const int barWidth = std::max(10, columns - static_cast<int>(m_label.size() + tail.size()) - 3);
    const int filled = static_cast<int>(fraction * barWidth);
    std::string bar(static_cast<std::size_t>(filled), '#');
    bar.append(static_cast<std::size_t>(barWidth - filled), '.');
    fmt::print(stderr, "\r{} [{}]{}", m_label, bar, tail);
    std::fflush(stderr);
    m_drawn = true;
}

void ProgressBar::note(const std::string& text) {
    if (!shown()) return;
    std::lock_guard lock(m_mutex);
    clearLine();
    fmt::print(stderr, "{}: {}\n", m_label, text);
    std::fflush(stderr);
}

void ProgressBar::clearLine() {
    if (!m_drawn) return;
    // Carriage return and "erase line": the terminal is left as it was.
    fmt::print(stderr, "\r\033[K");
    std::fflush(stderr);
    m_drawn = false;
}

void ProgressBar::finish() {
    std::lock_guard lock(m_mutex);
    clearLine();
}

}  // namespace alibi::cli
