// Tests for the fork-join pool (core/src/base/parallel.hpp): every index covered exactly once
// on odd sizes, the calling thread takes block 0, nested calls, exceptions, many short calls,
// concurrent callers, and pool threads running at the calling thread's nice value.
#include <alibi/base/parallel.hpp>

#include <alibi/base/thread_priority.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <barrier>
#include <cstdint>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#if defined(__linux__)
#include <cerrno>

#include <sys/resource.h>
#include <unistd.h>
#endif

using alibi::detail::parallelFor;

namespace {

// Runs parallelFor(n, threads, grain) and checks that [0, n) is covered exactly once.
void expectCoveredOnce(std::uint64_t n, unsigned threads, std::uint64_t grain) {
    std::vector<std::atomic<int>> hits(n);
    std::mutex lock;
    std::vector<std::pair<std::uint64_t, std::uint64_t>> blocks;
    parallelFor(n, threads, grain, [&](std::uint64_t b, std::uint64_t e) {
        for (std::uint64_t i = b; i < e; ++i) ++hits[i];
        std::lock_guard guard(lock);
        blocks.emplace_back(b, e);
    });
    for (std::uint64_t i = 0; i < n; ++i) ASSERT_EQ(hits[i].load(), 1) << "index " << i << " of " << n;
    if (n == 0) {
        EXPECT_TRUE(blocks.empty());
        return;
    }
    // As many equal blocks (sizes differing by at most one) as threads allow, but no more
    // than grain-sized pieces would make.
    EXPECT_LE(blocks.size(), std::max(1U, threads));
    EXPECT_LE(blocks.size(), (n + grain - 1) / grain);
    std::uint64_t smallest = n, largest = 0;
    for (const auto& [b, e] : blocks) {
        smallest = std::min(smallest, e - b);
        largest = std::max(largest, e - b);
    }
    EXPECT_LE(largest - smallest, 1U);
}

#if defined(__linux__)
int threadNice() {
    errno = 0;
    return getpriority(PRIO_PROCESS, static_cast<id_t>(gettid()));
}
#endif

}  // namespace

TEST(Parallel, OddSizesAreCoveredExactlyOnce) {
    for (const std::uint64_t n : {0, 1, 2, 3, 7, 63, 64, 65, 1000, 4097, 99991})
        for (const unsigned threads : {1U, 2U, 3U, 5U, 8U, 64U})
            for (const std::uint64_t grain : {1, 3, 64, 5000}) expectCoveredOnce(n, threads, grain);
}

TEST(Parallel, CallingThreadTakesTheFirstBlock) {
    const auto caller = std::this_thread::get_id();
    for (int run = 0; run < 50; ++run) {
        std::atomic<bool> firstOnCaller{false};
        parallelFor(1000, 4, 1, [&](std::uint64_t b, std::uint64_t) {
            if (b == 0) firstOnCaller = std::this_thread::get_id() == caller;
        });
        ASSERT_TRUE(firstOnCaller);
    }
}

TEST(Parallel, BlocksRunConcurrently) {
    // Every block waits for all the others: this finishes only if each has a thread of its own
    // at the same time, as the render's calling block (which waits for its siblings) needs.
    for (const unsigned threads : {2U, 4U, 9U}) {
        std::barrier sync(threads);
        std::set<std::thread::id> ids;
        std::mutex lock;
        parallelFor(threads, threads, 1, [&](std::uint64_t, std::uint64_t) {
            sync.arrive_and_wait();
            std::lock_guard guard(lock);
            ids.insert(std::this_thread::get_id());
        });
        EXPECT_EQ(ids.size(), threads);
    }
}

TEST(Parallel, NestedCallsRunInline) {
    std::vector<std::atomic<int>> hits(37 * 41);
    parallelFor(37, 4, 1, [&](std::uint64_t b, std::uint64_t e) {
        for (std::uint64_t i = b; i < e; ++i) {
            const auto outer = std::this_thread::get_id();
            parallelFor(41, 4, 1, [&](std::uint64_t b2, std::uint64_t e2) {
                EXPECT_EQ(std::this_thread::get_id(), outer);  // inline: no thread waits for another
                for (std::uint64_t j = b2; j < e2; ++j) ++hits[i * 41 + j];
            });
        }
    });
    for (auto& h : hits) ASSERT_EQ(h.load(), 1);
}

TEST(Parallel, ExceptionsReachTheCallerAfterEveryBlockFinished) {
    for (const std::uint64_t thrower : {0, 1, 3}) {  // the calling thread's block, and pool blocks
        std::atomic<int> finished{0};
        EXPECT_THROW(parallelFor(4, 4, 1,
                                 [&](std::uint64_t b, std::uint64_t) {
                                     if (b == thrower) throw std::runtime_error("block failed");
                                     std::this_thread::sleep_for(std::chrono::milliseconds(5));
                                     ++finished;
                                 }),
                     std::runtime_error);
        EXPECT_EQ(finished.load(), 3);  // nothing still runs on the caller's stack variables
    }
    // The pool still works afterwards.
    expectCoveredOnce(1001, 4, 1);
}

TEST(Parallel, ManyShortCalls) {
    std::uint64_t total = 0;
    for (int call = 0; call < 5000; ++call) {
        std::atomic<std::uint64_t> sum{0};
        parallelFor(17, 2, 1, [&](std::uint64_t b, std::uint64_t e) {
            for (std::uint64_t i = b; i < e; ++i) sum += i;
        });
        total += sum;
    }
    EXPECT_EQ(total, 5000U * (16U * 17U / 2U));
}

TEST(Parallel, ConcurrentCallersFromTwoThreads) {
    auto caller = [](std::uint64_t seed, std::uint64_t& result) {
        std::uint64_t total = 0;
        for (int call = 0; call < 2000; ++call) {
            const std::uint64_t n = 1 + (seed * 7919 + static_cast<std::uint64_t>(call) * 104729) % 5000;
            std::vector<std::atomic<int>> hits(n);
            parallelFor(n, 3, 7, [&](std::uint64_t b, std::uint64_t e) {
                for (std::uint64_t i = b; i < e; ++i) ++hits[i];
            });
            for (auto& h : hits) total += static_cast<std::uint64_t>(h.load());
            total -= n;  // zero when every index ran exactly once
        }
        result = total;
    };
    std::uint64_t a = 1, b = 1;
    std::thread first(caller, 1, std::ref(a)), second(caller, 2, std::ref(b));
    first.join();
    second.join();
    EXPECT_EQ(a, 0U);
    EXPECT_EQ(b, 0U);
}

#if defined(__linux__)
TEST(Parallel, PoolThreadsRunAtTheCallingThreadsNiceValue) {
    // A front end's worker lowers its priority; the blocks it hands out must run at that
    // priority too, below the UI, while a caller at normal priority (run before and after, so
    // the pool's threads exist) still gets threads at its own.
    const int base = threadNice();
    auto record = [](unsigned threads) {
        std::barrier sync(threads);  // one thread per block, so pool threads do run blocks
        std::mutex lock;
        std::set<std::pair<std::thread::id, int>> seen;
        parallelFor(threads, threads, 1, [&](std::uint64_t, std::uint64_t) {
            sync.arrive_and_wait();
            std::lock_guard guard(lock);
            seen.emplace(std::this_thread::get_id(), threadNice());
        });
        return seen;
    };
    for (const auto& [id, nice] : record(3)) EXPECT_EQ(nice, base);
    if (base >= 19) GTEST_SKIP() << "already at the lowest priority";
    std::set<std::pair<std::thread::id, int>> lowered;
    int workerNice = 0;
    std::thread worker([&] {
        alibi::lowerThisThreadPriority(4);
        workerNice = threadNice();
        lowered = record(3);
    });
    worker.join();
    EXPECT_GT(workerNice, base);
    EXPECT_EQ(lowered.size(), 3U);
    for (const auto& [id, nice] : lowered) EXPECT_EQ(nice, workerNice);
    for (const auto& [id, nice] : record(3)) EXPECT_EQ(nice, base);
}
#endif
