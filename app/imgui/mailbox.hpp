// Mailbox: where a worker leaves its newest result for the UI thread.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>

namespace alibi::imgui {

template <class T>
class Mailbox {
public:
    void put(std::uint64_t generation, std::shared_ptr<const T> value) {
        std::lock_guard lock(m_mutex);
        // An older job finished late; the same generation again is a refinement (a grid preview
        // followed by the exact grid).
        if (generation < m_generation || (generation == m_generation && !value)) return;
        m_generation = generation;
        m_value = std::move(value);
        m_fresh = true;
    }
    // The newest result and its generation, once.
    std::shared_ptr<const T> take(std::uint64_t& generation) {
        std::lock_guard lock(m_mutex);
        if (!m_fresh) return nullptr;
        m_fresh = false;
        generation = m_generation;
        return m_value;
    }

private:
    std::mutex m_mutex;
    std::uint64_t m_generation = 0;
    std::shared_ptr<const T> m_value;
    bool m_fresh = false;
};

}  // namespace alibi::imgui
