// The explorers' background work, toolkit-free: one JobRunner per kind of work (a view's
// computation, a file open, an export), one thread each, and the bookkeeping both GUIs share.
//
// A runner is latest-wins by default: submitting while a job is queued replaces the queued job,
// and submitting while a job runs raises that job's cancel flag, so a fast-moving slider never
// builds a backlog. A Queue runner keeps every job (figure saves: none may be dropped). Each job
// sees a JobContext: its cancel flag, its generation, and a progress it may report, which the
// runner exposes for a progress bar. When the system refuses the thread (a process or
// address-space limit: ulimit -u, ulimit -v) the runner does not fail: jobs then run on the
// submitting thread, or are handed to `RunnerOptions::post` (a GUI's event loop), slower but
// complete (issue 25).
#pragma once

#include <alibi/base/progress.hpp>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>

namespace alibi::explore {

// What a running job sees of its runner.
class JobContext {
public:
    JobContext();
    // True once the job should stop: a newer job was submitted (latest-wins), the runner was
    // cancelled or is being destroyed.
    [[nodiscard]] bool cancelled() const { return m_state->cancel.load(std::memory_order_relaxed); }
    [[nodiscard]] std::uint64_t generation() const { return m_state->generation; }
    // Records the job's progress (any unit) for JobRunner::progress; false once cancelled, so it
    // serves as a core ProgressFn.
    bool report(std::uint64_t done, std::uint64_t total) const;
    [[nodiscard]] ProgressFn progress() const;
    [[nodiscard]] std::function<bool()> cancelledFn() const;

    // Raises the job's cancel flag (the runner does this; tests and adapters may too).
    void cancel() const { m_state->cancel.store(true); }

private:
    friend class JobRunner;
    struct State {
        std::atomic<bool> cancel{false};
        std::atomic<std::uint64_t> done{0}, total{0};
        std::uint64_t generation = 0;
    };
    std::shared_ptr<State> m_state;
};

struct RunnerOptions {
    int niceness = 0;         // the thread's nice value above the caller's (lowerThisThreadPriority)
    bool queue = false;       // keep every submitted job (otherwise the latest wins)
    bool startThread = true;  // false: run jobs without a thread, as when the system refuses one
    // Where a job goes when there is no thread: empty runs it inside submit(). A GUI passes its
    // event loop's "run this later", so a job never runs re-entrantly inside the caller.
    std::function<void(std::function<void()>)> post = {};
};

class JobRunner {
public:
    using Job = std::function<void(const JobContext&)>;

    explicit JobRunner(RunnerOptions options = {});
    ~JobRunner();  // cancels what runs, drops what waits, and joins the thread
    JobRunner(const JobRunner&) = delete;
    JobRunner& operator=(const JobRunner&) = delete;

    // Queues `job` and returns its generation (1, 2, ...). Latest-wins: drops the job still
    // waiting and cancels the running one.
    std::uint64_t submit(Job job);
    // Raises the cancel flag of every job: the running one stops at its next check, the waiting
    // ones run at once, see it and report the cancel.
    void cancel();
    // True when nothing waits or runs.
    [[nodiscard]] bool idle() const;
    // The generation of the newest job submitted (0: none yet).
    [[nodiscard]] std::uint64_t latest() const { return m_latest.load(); }
    // The running job's last report {done, total}, if it runs and reported.
    [[nodiscard]] std::optional<std::pair<std::uint64_t, std::uint64_t>> progress() const;
    // True when no thread could be started (or none was asked for).
    [[nodiscard]] bool runsWithoutThread() const { return m_noThread; }

private:
    void loop();
    void runNow(Job& job, const JobContext& context);

    RunnerOptions m_options;
    mutable std::mutex m_mutex;
    std::condition_variable m_wake;
    std::deque<std::pair<Job, JobContext>> m_waiting;
    std::optional<JobContext> m_running;
    std::atomic<std::uint64_t> m_latest{0};
    std::shared_ptr<std::atomic<bool>> m_alive;  // false once destroyed (jobs posted without a thread)
    bool m_stop = false;
    bool m_noThread = false;
    std::thread m_thread;  // last: started after every other member exists
};

// Where a runner's job leaves its newest result for the UI thread. An older job finishing late
// is ignored; the same generation again is a refinement (a preview followed by the exact value).
template <class T>
class Mailbox {
public:
    void put(std::uint64_t generation, std::shared_ptr<const T> value) {
        std::lock_guard lock(m_mutex);
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

// One view's computation: submit its request as often as wanted (every frame); only a request
// that differs from the last starts work, the running job is cancelled, and the newest finished
// result stays available, marked pending while a newer one computes. `wake` (optional) is
// called on the worker thread when a result arrives (a GUI posts a redraw).
template <class Request, class Result>
class LatestJob {
public:
    using Compute = std::function<std::shared_ptr<const Result>(const Request&, const JobContext&)>;

    LatestJob(Compute compute, std::function<void()> wake, RunnerOptions options = {.niceness = 6})
        : m_compute(std::move(compute)), m_wake(std::move(wake)), m_runner(std::move(options)) {}

    // Starts work for `request` unless it is what was asked for last.
    void submit(const Request& request) {
        if (m_last && *m_last == request) return;
        m_last = request;
        m_pending = true;
        m_runner.submit([this, request](const JobContext& job) {
            if (auto result = m_compute(request, job)) {
                m_box.put(job.generation(), std::move(result));
                if (m_wake) m_wake();
            }
        });
    }
    // Takes the newest finished result, if one arrived.
    void collect() {
        std::uint64_t generation = 0;
        if (auto result = m_box.take(generation)) {
            if (generation <= m_cancelled) return;  // finished as it was cancelled: dropped
            m_result = std::move(result);
            m_pending = generation != m_runner.latest();
        }
    }
    // The user's Cancel: stops the running job and drops whatever it still delivers; the result
    // shown before stays. The request is remembered, so submitting it again starts nothing (a
    // different request does).
    void cancel() {
        m_runner.cancel();
        m_cancelled = m_runner.latest();
        m_pending = false;
    }
    [[nodiscard]] const std::shared_ptr<const Result>& result() const { return m_result; }
    [[nodiscard]] bool pending() const { return m_pending; }
    [[nodiscard]] const JobRunner& runner() const { return m_runner; }

private:
    Compute m_compute;
    std::function<void()> m_wake;
    std::optional<Request> m_last;
    std::shared_ptr<const Result> m_result;
    bool m_pending = false;
    std::uint64_t m_cancelled = 0;  // the newest generation cancelled
    Mailbox<Result> m_box;
    JobRunner m_runner;  // last: joined first, before the mailbox its jobs write to
};

// One long task at a time (a tensor export, a figure) with progress, cancel and an outcome the
// UI takes once: start() refuses while a task runs.
template <class Outcome>
class TaskJob {
public:
    using Task = std::function<Outcome(const JobContext&)>;

    explicit TaskJob(RunnerOptions options = {}) : m_runner(std::move(options)) {}

    // Starts `task` unless one runs (then false).
    bool start(Task task) {
        if (running()) return false;
        m_runner.submit([this, task = std::move(task)](const JobContext& job) {
            Outcome outcome = task(job);
            std::lock_guard lock(m_mutex);
            m_outcome = std::move(outcome);
        });
        return true;
    }
    void cancel() { m_runner.cancel(); }
    [[nodiscard]] bool running() const { return !m_runner.idle(); }
    // {done, total} of the running task, once it reported.
    [[nodiscard]] std::optional<std::pair<std::uint64_t, std::uint64_t>> progress() const {
        return m_runner.progress();
    }
    // 0..1 of the running task's work, -1 while it has no count.
    [[nodiscard]] float fraction() const {
        const auto p = progress();
        return p ? static_cast<float>(static_cast<double>(p->first) / static_cast<double>(p->second)) : -1.0f;
    }
    // The outcome of a finished task, once.
    [[nodiscard]] std::optional<Outcome> takeOutcome() {
        std::lock_guard lock(m_mutex);
        return std::exchange(m_outcome, std::nullopt);
    }

private:
    std::mutex m_mutex;
    std::optional<Outcome> m_outcome;
    JobRunner m_runner;  // last: joined first, before the outcome its task writes
};

}  // namespace alibi::explore
