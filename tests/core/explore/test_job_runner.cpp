// JobRunner, Mailbox and LatestJob: latest-wins, queueing, cancel, progress, and the runs
// without a thread (the system refused one).
#include <alibi/explore/job_runner.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <vector>

using namespace alibi;
using namespace alibi::explore;

namespace {

// Waits (without a wall-clock assertion) until the runner has nothing left.
void settle(const JobRunner& runner) {
    while (!runner.idle()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

}  // namespace

TEST(JobRunner, LatestWinsCancelsTheRunningJobAndDropsTheWaitingOne) {
    JobRunner runner;
    std::promise<void> started;
    std::promise<void> release;
    std::shared_future<void> released = release.get_future().share();
    std::atomic<bool> firstSawCancel{false};
    std::atomic<int> ran{0};
    runner.submit([&](const JobContext& job) {
        started.set_value();
        released.wait();
        firstSawCancel = job.cancelled();
        ++ran;
    });
    started.get_future().wait();
    std::vector<std::uint64_t> seen;
    std::mutex seenMutex;
    for (int i = 0; i < 5; ++i)
        runner.submit([&](const JobContext& job) {
            std::lock_guard lock(seenMutex);
            seen.push_back(job.generation());
        });
    release.set_value();
    settle(runner);
    EXPECT_TRUE(firstSawCancel.load());
    EXPECT_EQ(ran.load(), 1);
    ASSERT_EQ(seen.size(), 1u);  // only the newest of the five waiting ran
    EXPECT_EQ(seen[0], 6u);
    EXPECT_EQ(runner.latest(), 6u);
}

TEST(JobRunner, QueueRunsEveryJobInOrder) {
    JobRunner runner({.queue = true});
    std::vector<int> order;
    std::mutex mutex;
    for (int i = 0; i < 20; ++i)
        runner.submit([&, i](const JobContext&) {
            std::lock_guard lock(mutex);
            order.push_back(i);
        });
    settle(runner);
    ASSERT_EQ(order.size(), 20u);
    for (int i = 0; i < 20; ++i) EXPECT_EQ(order[static_cast<std::size_t>(i)], i);
}

TEST(JobRunner, ProgressIsVisibleWhileTheJobRunsAndCancelStopsIt) {
    JobRunner runner;
    std::promise<void> reported;
    std::atomic<bool> stopped{false};
    runner.submit([&](const JobContext& job) {
        const ProgressFn progress = job.progress();
        (void)progress(3, 12);
        reported.set_value();
        while (progress(3, 12)) std::this_thread::yield();
        stopped = true;
    });
    reported.get_future().wait();
    const auto progress = runner.progress();
    ASSERT_TRUE(progress.has_value());
    EXPECT_EQ(progress->first, 3u);
    EXPECT_EQ(progress->second, 12u);
    runner.cancel();
    settle(runner);
    EXPECT_TRUE(stopped.load());
    EXPECT_FALSE(runner.progress().has_value());
}

TEST(JobRunner, WithoutAThreadJobsRunInsideSubmit) {
    JobRunner runner({.startThread = false});
    EXPECT_TRUE(runner.runsWithoutThread());
    int ran = 0;
    const auto self = std::this_thread::get_id();
    runner.submit([&](const JobContext& job) {
        EXPECT_EQ(std::this_thread::get_id(), self);
        EXPECT_FALSE(job.cancelled());
        ++ran;
    });
    EXPECT_EQ(ran, 1);
    EXPECT_TRUE(runner.idle());
}

TEST(JobRunner, WithoutAThreadPostedJobsRunLaterAndOnlyTheNewest) {
    std::vector<std::function<void()>> loop;  // a stand-in for a GUI's event loop
    JobRunner runner({.startThread = false, .post = [&](std::function<void()> f) { loop.push_back(std::move(f)); }});
    std::vector<std::uint64_t> ran;
    for (int i = 0; i < 3; ++i) runner.submit([&](const JobContext& job) { ran.push_back(job.generation()); });
    EXPECT_TRUE(ran.empty());
    EXPECT_FALSE(runner.idle());
    for (auto& f : loop) f();
    ASSERT_EQ(ran.size(), 1u);
    EXPECT_EQ(ran[0], 3u);
    EXPECT_TRUE(runner.idle());
}

TEST(JobRunner, DestroyingCancelsTheRunningJob) {
    std::atomic<bool> sawCancel{false};
    std::promise<void> started;
    {
        JobRunner runner;
        runner.submit([&](const JobContext& job) {
            started.set_value();
            while (!job.cancelled()) std::this_thread::yield();
            sawCancel = true;
        });
        started.get_future().wait();
    }
    EXPECT_TRUE(sawCancel.load());
}

TEST(Mailbox, KeepsTheNewestGenerationOnce) {
    Mailbox<int> box;
    box.put(2, std::make_shared<const int>(20));
    box.put(1, std::make_shared<const int>(10));  // late and older: ignored
    std::uint64_t generation = 0;
    auto value = box.take(generation);
    ASSERT_TRUE(value);
    EXPECT_EQ(*value, 20);
    EXPECT_EQ(generation, 2u);
    EXPECT_FALSE(box.take(generation));
}

TEST(LatestJob, ComputesOnlyChangedRequestsAndKeepsTheNewestResult) {
    std::atomic<int> computed{0};
    LatestJob<int, int> view(
        [&](const int& request, const JobContext&) {
            ++computed;
            return std::make_shared<const int>(request * 2);
        },
        {});
    view.submit(4);
    view.submit(4);  // unchanged: no work
    while (!view.runner().idle()) std::this_thread::yield();
    view.collect();
    ASSERT_TRUE(view.result());
    EXPECT_EQ(*view.result(), 8);
    EXPECT_FALSE(view.pending());
    EXPECT_EQ(computed.load(), 1);
}

// The user's Cancel: the running job sees its flag, whatever it still delivers is dropped, the
// result shown before stays, and the same request is not started again (a new one is).
TEST(LatestJob, CancelStopsTheJobAndKeepsThePreviousResult) {
    std::promise<void> started;
    std::promise<void> release;
    std::shared_future<void> released = release.get_future().share();
    std::atomic<bool> sawCancel{false};
    std::atomic<int> computed{0};
    LatestJob<int, int> view(
        [&](const int& request, const JobContext& job) {
            ++computed;
            if (request == 2) {
                started.set_value();
                released.wait();
                sawCancel = job.cancelled();
            }
            return std::make_shared<const int>(request * 10);  // delivered even when cancelled
        },
        {});
    view.submit(1);
    while (!view.runner().idle()) std::this_thread::yield();
    view.collect();
    ASSERT_TRUE(view.result());
    view.submit(2);
    started.get_future().wait();
    EXPECT_TRUE(view.pending());
    view.cancel();
    EXPECT_FALSE(view.pending());
    release.set_value();
    while (!view.runner().idle()) std::this_thread::yield();
    view.collect();
    EXPECT_TRUE(sawCancel.load());
    EXPECT_EQ(*view.result(), 10);  // the late 20 was dropped
    EXPECT_FALSE(view.pending());
    view.submit(2);  // the cancelled request again: nothing starts
    EXPECT_FALSE(view.pending());
    view.submit(3);
    while (!view.runner().idle()) std::this_thread::yield();
    view.collect();
    EXPECT_EQ(*view.result(), 30);
    EXPECT_EQ(computed.load(), 3);
}

TEST(TaskJob, RefusesASecondTaskAndHandsTheOutcomeOnce) {
    TaskJob<int> task;
    std::promise<void> release;
    std::shared_future<void> released = release.get_future().share();
    EXPECT_TRUE(task.start([&](const JobContext& job) {
        (void)job.report(1, 4);
        released.wait();
        return 7;
    }));
    EXPECT_FALSE(task.start([](const JobContext&) { return 8; }));
    release.set_value();
    while (task.running()) std::this_thread::yield();
    auto outcome = task.takeOutcome();
    ASSERT_TRUE(outcome.has_value());
    EXPECT_EQ(*outcome, 7);
    EXPECT_FALSE(task.takeOutcome().has_value());
}
