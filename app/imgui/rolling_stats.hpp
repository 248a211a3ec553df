// A fixed-capacity window of recent samples (frame times, latencies) and their median, for the
// frame-time read-out. Header-only: it is plain bookkeeping, not ALiBi.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace alibi::imgui {

class RollingStats {
public:
    explicit RollingStats(std::size_t capacity = 240) : m_samples(capacity, 0.0) {}

    void push(double value) {
        m_samples[m_next] = value;
        m_next = (m_next + 1) % m_samples.size();
        m_count = std::min(m_count + 1, m_samples.size());
        m_last = value;
        ++m_total;
    }

    [[nodiscard]] std::size_t count() const { return m_count; }
    [[nodiscard]] std::size_t total() const { return m_total; }  // every sample ever pushed
    [[nodiscard]] double last() const { return m_last; }

    // Median of the samples in the window (0 when empty). Copies into a scratch buffer that is
    // kept between calls, so the read-out allocates nothing per frame.
    [[nodiscard]] double median() const {
        if (m_count == 0) return 0.0;
        m_scratch.assign(m_samples.begin(), m_samples.begin() + static_cast<std::ptrdiff_t>(m_count));
        const auto middle = m_scratch.begin() + static_cast<std::ptrdiff_t>(m_count / 2);
        std::nth_element(m_scratch.begin(), middle, m_scratch.end());
        return *middle;
    }

    [[nodiscard]] double max() const {
        if (m_count == 0) return 0.0;
        return *std::max_element(m_samples.begin(), m_samples.begin() + static_cast<std::ptrdiff_t>(m_count));
    }

    void clear() {
        m_count = 0;
        m_next = 0;
        m_total = 0;
    }

private:
    std::vector<double> m_samples;
    mutable std::vector<double> m_scratch;
    std::size_t m_next = 0;
    std::size_t m_count = 0;
    std::size_t m_total = 0;
    double m_last = 0.0;
};

}  // namespace alibi::imgui
