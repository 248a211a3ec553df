// LatestWorker: a single background thread with a one-slot, latest-wins queue.
#include "worker.hpp"

#include <alibi/base/thread_priority.hpp>

#include <system_error>
#include <utility>

namespace alibi::imgui {

LatestWorker::LatestWorker(int niceness) {
    // A thread that cannot start (a process or address-space limit: ulimit -u, ulimit -v) is no
    // abort: the jobs then run on the calling thread as they are submitted, slower but complete
    // (issue 25).
    try {
        m_thread = std::thread([this, niceness] { run(niceness); });
    } catch (const std::system_error&) {
        m_inline = true;
    }
}

LatestWorker::~LatestWorker() {
    if (m_inline) return;
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
        m_pending = nullptr;
        if (m_runningCancel) m_runningCancel->store(true);
    }
    m_wake.notify_all();
    m_thread.join();
}

void LatestWorker::submit(Job job) {
    if (m_inline) {
        const std::atomic<bool> notCancelled{false};
        job(notCancelled);
        return;
    }
    {
        std::lock_guard lock(m_mutex);
        m_pending = std::move(job);
        if (m_runningCancel) m_runningCancel->store(true);
    }
    m_wake.notify_one();
}

void LatestWorker::cancel() {
    std::lock_guard lock(m_mutex);
    m_pending = nullptr;
    if (m_runningCancel) m_runningCancel->store(true);
}

bool LatestWorker::idle() const {
    std::lock_guard lock(m_mutex);
    return !m_running && !m_pending;
}

void LatestWorker::run(int niceness) {
    lowerThisThreadPriority(niceness);
    std::unique_lock lock(m_mutex);
    for (;;) {
        m_wake.wait(lock, [this] { return m_stop || static_cast<bool>(m_pending); });
        if (m_stop) return;
        Job job = std::exchange(m_pending, nullptr);
        auto cancel = std::make_shared<std::atomic<bool>>(false);
        m_runningCancel = cancel;
        m_running = true;
        lock.unlock();
        job(*cancel);
        // Drop the job (and whatever it captured) before taking the lock again.
        job = nullptr;
        lock.lock();
        m_running = false;
        m_runningCancel.reset();
    }
}

}  // namespace alibi::imgui
