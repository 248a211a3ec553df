// JobRunner: one thread with a latest-wins (or first-in-first-out) queue, and the fallbacks when
// the system refuses that thread.
#include <alibi/explore/job_runner.hpp>

#include <alibi/base/thread_priority.hpp>

#include <system_error>

namespace alibi::explore {

JobContext::JobContext() : m_state(std::make_shared<State>()) {}

bool JobContext::report(std::uint64_t done, std::uint64_t total) const {
    m_state->done.store(done, std::memory_order_relaxed);
    m_state->total.store(total, std::memory_order_relaxed);
    return !cancelled();
}

ProgressFn JobContext::progress() const {
    return [state = m_state](std::uint64_t done, std::uint64_t total) {
        state->done.store(done, std::memory_order_relaxed);
        state->total.store(total, std::memory_order_relaxed);
        return !state->cancel.load(std::memory_order_relaxed);
    };
}

std::function<bool()> JobContext::cancelledFn() const {
    return [state = m_state] { return state->cancel.load(std::memory_order_relaxed); };
}

JobRunner::JobRunner(RunnerOptions options)
    : m_options(std::move(options)), m_alive(std::make_shared<std::atomic<bool>>(true)) {
    if (!m_options.startThread) {
        m_noThread = true;
        return;
    }
    try {
        m_thread = std::thread([this] { loop(); });
    } catch (const std::system_error&) {
        m_noThread = true;
    }
}

JobRunner::~JobRunner() {
    m_alive->store(false);
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
        for (auto& [job, context] : m_waiting) context.cancel();
        m_waiting.clear();
        if (m_running) m_running->cancel();
    }
    m_wake.notify_all();
    if (m_thread.joinable()) m_thread.join();
}

std::uint64_t JobRunner::submit(Job job) {
    JobContext context;
    std::uint64_t generation = 0;
    {
        std::lock_guard lock(m_mutex);
        generation = m_latest.load() + 1;
        m_latest.store(generation);
        context.m_state->generation = generation;
        if (!m_options.queue) {
            for (auto& [waiting, waitingContext] : m_waiting) waitingContext.cancel();
            m_waiting.clear();
            if (m_running) m_running->cancel();
        }
        if (!m_noThread) m_waiting.emplace_back(std::move(job), context);
    }
    if (!m_noThread) {
        m_wake.notify_one();
        return generation;
    }
    if (!m_options.post) {
        runNow(job, context);
        return generation;
    }
    // Latest-wins still holds: a job posted and superseded before the loop reaches it is skipped.
    {
        std::lock_guard lock(m_mutex);
        m_waiting.emplace_back(Job{}, context);  // for idle() and cancel() until it runs
    }
    m_options.post([this, alive = m_alive, job = std::move(job), context]() mutable {
        if (!alive->load() || context.cancelled()) return;
        runNow(job, context);
    });
    return generation;
}

void JobRunner::runNow(Job& job, const JobContext& context) {
    {
        std::lock_guard lock(m_mutex);
        m_running = context;
    }
    job(context);
    std::lock_guard lock(m_mutex);
    m_running.reset();
    std::erase_if(m_waiting, [&](const auto& entry) { return entry.second.m_state == context.m_state; });
}

void JobRunner::cancel() {
    // Waiting jobs stay queued with their flag raised: each still runs, sees the cancel at once and
    // reports it (an export cancelled before its thread took it says "cancelled", not nothing).
    std::lock_guard lock(m_mutex);
    for (auto& [job, context] : m_waiting) context.cancel();
    if (m_running) m_running->cancel();
}

bool JobRunner::idle() const {
    std::lock_guard lock(m_mutex);
    return !m_running && m_waiting.empty();
}

std::optional<std::pair<std::uint64_t, std::uint64_t>> JobRunner::progress() const {
    std::lock_guard lock(m_mutex);
    if (!m_running) return std::nullopt;
    const std::uint64_t total = m_running->m_state->total.load(std::memory_order_relaxed);
    if (total == 0) return std::nullopt;
    return std::pair{m_running->m_state->done.load(std::memory_order_relaxed), total};
}

void JobRunner::loop() {
    lowerThisThreadPriority(m_options.niceness);
    std::unique_lock lock(m_mutex);
    for (;;) {
        m_wake.wait(lock, [this] { return m_stop || !m_waiting.empty(); });
        if (m_stop) return;
        auto [job, context] = std::move(m_waiting.front());
        m_waiting.pop_front();
        m_running = context;
        lock.unlock();
        job(context);
        job = nullptr;  // drop what the job captured before taking the lock again
        lock.lock();
        m_running.reset();
    }
}

}  // namespace alibi::explore
