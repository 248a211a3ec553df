// LatestWorker: one background thread that runs the most recent job submitted to it.
//
// Submitting while a job is queued replaces the queued job; submitting while a job runs raises
// that job's cancel flag, so a fast-moving slider never builds a backlog: the worker is always
// busy with the newest parameters, and the last finished result stays on screen meanwhile.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

namespace alibi::imgui {

class LatestWorker {
public:
    using Job = std::function<void(const std::atomic<bool>& cancelled)>;

    // `niceness` (0..19) lowers the thread's scheduling priority, and that of the threads the core
    // starts from it, so the frame loop and the GL driver's threads win the CPU on a busy machine.
    explicit LatestWorker(int niceness = 0);
    ~LatestWorker();
    LatestWorker(const LatestWorker&) = delete;
    LatestWorker& operator=(const LatestWorker&) = delete;

    // Queues `job`, dropping any job still waiting and cancelling the running one.
    void submit(Job job);
    // Drops a queued job and cancels the running one (the Cancel button of a long open).
    void cancel();
    // True when nothing is queued or running.
    [[nodiscard]] bool idle() const;

private:
    void run(int niceness);

    mutable std::mutex m_mutex;
    std::condition_variable m_wake;
    Job m_pending;
    std::shared_ptr<std::atomic<bool>> m_runningCancel;  // flag of the job being run, if any
    bool m_running = false;
    bool m_stop = false;
    bool m_inline = false;  // no thread could be started: jobs run in submit()
    std::thread m_thread;   // last member: started (in the body) after the others are constructed
};

}  // namespace alibi::imgui
