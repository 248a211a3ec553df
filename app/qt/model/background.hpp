// Work off the UI thread that finishes even when the system refuses a thread (issue 25, item 8).
//
// QtConcurrent::run hands its job to a QThreadPool, which starts a thread without checking that
// it started: under a process or address-space limit (ulimit -u, ulimit -v) Qt prints
// "QThread::start: Thread creation error", the job never runs, and whatever waits for its
// QFuture (a QFutureWatcher, waitForFinished) waits forever: the --screenshot run hung at 600 MB.
// runInBackground starts a thread of its own and, when the system refuses it, runs the job here,
// on the calling thread: slower, but every job is answered. The QFuture it returns is used as
// QtConcurrent's is (QFutureWatcher, result(), waitForFinished()); a finished future's watcher
// still emits finished() from the event loop.
#pragma once

#include <QFuture>
#include <QPromise>

#include <exception>
#include <memory>
#include <optional>
#include <system_error>
#include <thread>
#include <type_traits>
#include <utility>

namespace alibi::qt {

// True on a thread runInBackground started (false on the calling thread it fell back to): a job
// lowers its thread's priority only there, never the UI thread's.
inline thread_local bool t_inBackground = false;

template <class Job>
QFuture<std::invoke_result_t<Job&>> runInBackground(Job job) {
    using T = std::invoke_result_t<Job&>;
    struct State {
        QPromise<T> promise;
        std::optional<Job> job;
    };
    auto state = std::make_shared<State>();
    state->job.emplace(std::move(job));
    QFuture<T> future = state->promise.future();
    state->promise.start();
    const auto run = [state] {
        try {
            if constexpr (std::is_void_v<T>) {
                (*state->job)();
            } else {
                state->promise.addResult((*state->job)());
            }
        } catch (...) {
            state->promise.setException(std::current_exception());
        }
        state->job.reset();  // what the job captured goes before anyone waiting is released
        state->promise.finish();
    };
    try {
        std::thread([run] {
            t_inBackground = true;
            run();
        }).detach();
    } catch (const std::system_error&) {
        run();
    }
    return future;
}

}  // namespace alibi::qt
