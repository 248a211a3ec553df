// Fork-join on persistent threads. Starting std::threads per call cost tens of microseconds per
// call and a page-faulting stack per thread, which small frames (a head grid in a few ms) and
// many short calls (the attention source's blocks) paid again and again.
//
// Threads are kept per nice value: Linux keeps a nice value per thread, and the front ends lower
// their worker threads' (thread_priority.hpp) so background computation runs below the UI.
// Threads started by such a worker used to inherit its nice value; a thread of a shared pool
// would not, and an unprivileged thread cannot raise its priority again to serve the UI. So a
// call runs on the pool of its calling thread's nice value, whose threads were started at that
// value. Pools grow on demand (a call never waits for threads busy with another caller's work:
// the render's calling block waits for its sibling blocks) and never shrink.
//
// The calling thread takes block 0 (callers report progress from it), then any block no pool
// thread has claimed yet, so a call finishes even when every pool thread is busy. A call made
// from inside a block (nested) runs inline on that thread: its outer call already uses every
// thread it asked for.
#include <alibi/base/parallel.hpp>

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <system_error>
#include <thread>
#include <vector>

#if defined(__linux__)
#include <cerrno>
#include <csignal>

#include <pthread.h>
#include <sys/resource.h>
#include <unistd.h>
#endif

namespace alibi::detail {

unsigned resolveThreads(unsigned requested) {
    unsigned n = requested == 0 ? std::thread::hardware_concurrency() : requested;
    return std::clamp(n, 1U, 64U);
}

namespace {

using Body = std::function<void(std::uint64_t, std::uint64_t)>;

// True while this thread runs a block of some call (pool thread or calling thread).
thread_local bool t_inBlock = false;

// One call: blocks [0, blocks) of [0, n); lives on the calling thread's stack.
struct Job {
    const Body* body = nullptr;
    std::uint64_t n = 0;
    unsigned blocks = 0;
    unsigned next = 1;  // the next unclaimed block (block 0 is the caller's); guarded by the pool
    unsigned done = 0;  // finished blocks; guarded by the pool
    std::exception_ptr error;
    std::condition_variable finished;
};

// Runs one block, keeping its exception for the caller.
void runBlock(Job& job, unsigned b, std::mutex& poolMutex) {
    std::exception_ptr error;
    const bool outer = t_inBlock;
    t_inBlock = true;
    try {
        (*job.body)(job.n * b / job.blocks, job.n * (b + 1) / job.blocks);
    } catch (...) {
        error = std::current_exception();
    }
    t_inBlock = outer;
    std::lock_guard lock(poolMutex);
    if (error && !job.error) job.error = error;
    // Notified under the lock: once the caller sees the count complete it may destroy the job.
    if (++job.done == job.blocks) job.finished.notify_all();
}

class Pool {
public:
    explicit Pool(int niceness) : m_niceness(niceness) {}

    void run(Job& job) {
        {
            std::lock_guard lock(m_mutex);
            m_queue.push_back(&job);
            m_unclaimed += job.blocks - 1;
            // Start threads until every unclaimed block can have one (the calling thread starts
            // them, so they inherit its scheduling attributes besides the nice value set below).
            // A thread that cannot start (a process or address-space limit: RLIMIT_NPROC,
            // ulimit -v) is no error: the calling thread runs every block no pool thread
            // claims, so the call finishes on fewer threads (issue 25).
            while (m_idle + m_starting < m_unclaimed && m_threads.size() < kMaxThreads) {
                ++m_starting;
                try {
                    m_threads.emplace_back([this] { work(); });
                } catch (const std::system_error&) {
                    --m_starting;
                    break;
                } catch (const std::bad_alloc&) {
                    --m_starting;
                    break;
                }
            }
            m_wake.notify_all();
        }
        runBlock(job, 0, m_mutex);
        for (;;) {  // blocks no pool thread has claimed yet
            unsigned b = 0;
            {
                std::lock_guard lock(m_mutex);
                if (job.next == job.blocks) break;
                b = claim(job);
            }
            runBlock(job, b, m_mutex);
        }
        std::unique_lock lock(m_mutex);
        job.finished.wait(lock, [&] { return job.done == job.blocks; });
        if (job.error) std::rethrow_exception(job.error);
    }

private:
    static constexpr std::size_t kMaxThreads = 256;

    // Claims the next block of a queued job; the pool's mutex is held.
    unsigned claim(Job& job) {
        const unsigned b = job.next++;
        --m_unclaimed;
        if (job.next == job.blocks) m_queue.erase(std::find(m_queue.begin(), m_queue.end(), &job));
        return b;
    }

    void work() {
#if defined(__linux__)
        // Signals go to the application's own threads (an interrupt must reach the thread that
        // writes an export), never to a pool thread.
        sigset_t all;
        sigfillset(&all);
        pthread_sigmask(SIG_BLOCK, &all, nullptr);
        // Inherited from the starting thread already; set again in case it changed since.
        (void)setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), m_niceness);
#endif
        std::unique_lock lock(m_mutex);
        --m_starting;
        for (;;) {
            ++m_idle;
            m_wake.wait(lock, [&] { return !m_queue.empty(); });
            --m_idle;
            while (!m_queue.empty()) {
                Job& job = *m_queue.front();
                const unsigned b = claim(job);
                lock.unlock();
                runBlock(job, b, m_mutex);
                lock.lock();
            }
        }
    }

    const int m_niceness;
    std::mutex m_mutex;
    std::condition_variable m_wake;
    std::deque<Job*> m_queue;  // calls with unclaimed blocks, oldest first
    std::size_t m_unclaimed = 0, m_idle = 0, m_starting = 0;
    std::vector<std::thread> m_threads;  // never joined: the pools live as long as the process
};

// The pools, by nice value. Never destroyed: a thread may still call parallelFor while the
// process exits, and pool threads blocked on their condition variable need no joining.
struct Registry {
    std::mutex mutex;
    std::map<int, std::unique_ptr<Pool>> pools;
};
Registry* g_registry = nullptr;
std::once_flag g_registryOnce;

Registry& registry() {
    std::call_once(g_registryOnce, [] {
        g_registry = new Registry;
#if defined(__linux__)
        // A forked child has none of the pool threads (and maybe a locked mutex): it starts
        // from an empty registry; the parent's objects are left as they are.
        pthread_atfork(nullptr, nullptr, [] { g_registry = new Registry; });
#endif
    });
    return *g_registry;
}

int callingThreadNiceness() {
#if defined(__linux__)
    errno = 0;
    const int nice = getpriority(PRIO_PROCESS, static_cast<id_t>(gettid()));
    if (errno == 0) return nice;
#endif
    return 0;
}

Pool& poolFor(int niceness) {
    Registry& r = registry();
    std::lock_guard lock(r.mutex);
    auto& pool = r.pools[niceness];
    if (!pool) pool = std::make_unique<Pool>(niceness);
    return *pool;
}

}  // namespace

void parallelFor(std::uint64_t n, unsigned threads, std::uint64_t grain, const Body& body) {
    if (n == 0) return;
    grain = std::max<std::uint64_t>(grain, 1);
    const std::uint64_t maxBlocks = (n + grain - 1) / grain;
    const auto blocks = static_cast<unsigned>(std::min<std::uint64_t>(resolveThreads(threads), maxBlocks));
    if (blocks <= 1 || t_inBlock) {
        body(0, n);
        return;
    }
    Job job;
    job.body = &body;
    job.n = n;
    job.blocks = blocks;
    poolFor(callingThreadNiceness()).run(job);
}

}  // namespace alibi::detail
