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

int terminalColumns() {
    winsize size{};
    if (ioctl(STDERR_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col >= 20) return size.ws_col;
    return 80;
}

}  // namespace

ProgressBar::ProgressBar(std::string label, Unit unit)
    : m_label(std::move(label)),
      m_unit(unit),
      m_terminal(isatty(STDERR_FILENO) == 1 && !quiet()),
      m_start(std::chrono::steady_clock::now()),
      m_lastDraw(m_start) {}

ProgressBar::~ProgressBar() {
    finish();
}

ProgressFn ProgressBar::callback() {
    return [this](std::uint64_t done, std::uint64_t total) { return update(done, total); };
}

bool ProgressBar::update(std::uint64_t done, std::uint64_t total) {
    if (interrupted()) return false;
    if (!m_terminal) return true;
    const auto now = std::chrono::steady_clock::now();
    if (now - m_start < kShowAfter || now - m_lastDraw < kRedrawEvery) return true;
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
    const std::string amount = m_unit == Unit::Bytes ? fmt::format("{} / {}", humanBytes(done), humanBytes(total))
                                                     : fmt::format("{} / {}", done, total);
    std::string tail = fmt::format(" {:3.0f}%  {}", fraction * 100.0, amount);
    // The estimate: the rate so far, once a few percent are done.
    const double elapsed = std::chrono::duration<double>(now - m_start).count();
    if (fraction >= 0.02 && fraction < 1)
        tail += fmt::format(", about {:.0f} s left", std::max(1.0, elapsed * (1 - fraction) / fraction));
    const int columns = terminalColumns() - 1;
    const int barWidth = std::max(10, columns - static_cast<int>(m_label.size() + tail.size()) - 3);
    const int filled = static_cast<int>(fraction * barWidth);
    std::string bar(static_cast<std::size_t>(filled), '#');
    bar.append(static_cast<std::size_t>(barWidth - filled), '.');
    fmt::print(stderr, "\r{} [{}]{}", m_label, bar, tail);
    std::fflush(stderr);
    m_drawn = true;
}

void ProgressBar::finish() {
    std::lock_guard lock(m_mutex);
    if (!m_drawn) return;
    // Carriage return and "erase line": the terminal is left as it was.
    fmt::print(stderr, "\r\033[K");
    std::fflush(stderr);
    m_drawn = false;
}

}  // namespace alibi::cli
