// A whole-file read off the UI thread with the core's progress and a Cancel (session files in the
// main window, tensors in the Diagnose view; issue 25, item 3): one read at a time, run through
// runInBackground (so it finishes even when no thread can be started), its progress queued to the
// UI thread at most every 50 ms, and its outcome handed to `done` there. A cancelled read reports
// nothing more: whatever it still delivers is dropped, and what was shown before stays.
#pragma once

#include "background.hpp"

#include <alibi/io/read_progress.hpp>

#include <QFutureWatcher>
#include <QObject>
#include <QPointer>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <utility>

namespace alibi::qt {

template <class T>
class BackgroundRead {
public:
    // The job reads with these options (the core's ReadOptions: pass them on to loadSession or
    // loadTensor) and returns its outcome.
    using Job = std::function<T(const ReadOptions&)>;

    // `progress` and `done` are called on `owner`'s thread (the UI thread), never after `owner` is gone.
    BackgroundRead(QObject* owner, std::function<void(const ReadProgress&)> progress, std::function<void(T)> done)
        : m_owner(owner), m_progress(std::move(progress)), m_done(std::move(done)) {
        QObject::connect(&m_watcher, &QFutureWatcher<T>::finished, owner, [this] { onFinished(); });
    }
    ~BackgroundRead() {
        cancel();
        m_watcher.waitForFinished();
    }
    BackgroundRead(const BackgroundRead&) = delete;
    BackgroundRead& operator=(const BackgroundRead&) = delete;

    // Starts `job`; a read still running is cancelled first (it stops at its next check).
    void start(Job job) {
        cancel();
        m_watcher.waitForFinished();
        m_state = std::make_shared<State>();
        m_state->observer = m_observer;
        m_running = true;
        ReadOptions options;
        options.cancelled = [state = m_state] { return state->cancel.load(std::memory_order_relaxed); };
        QPointer<QObject> owner(m_owner);
        options.progress = [this, owner, state = m_state,
                            last = std::chrono::steady_clock::time_point{}](const ReadProgress& p) mutable {
            if (state->observer && !state->observer(p)) return false;
            if (state->cancel.load()) return false;
            const auto now = std::chrono::steady_clock::now();
            if (now - last < std::chrono::milliseconds(50) && p.done != p.total) return true;
            last = now;
            if (owner)
                QMetaObject::invokeMethod(
                    owner.data(),
                    [this, state, p] {
                        // `this` lives as long as the owner (a member of it); a read cancelled or
                        // replaced since says nothing more.
                        if (state == m_state && m_running && !state->cancel.load()) m_progress(p);
                    },
                    Qt::QueuedConnection);
            return true;
        };
        m_watcher.setFuture(runInBackground([job = std::move(job), options] { return job(options); }));
    }
    // Stops the read: it ends at its next check, and `done` is not called for it.
    void cancel() {
        if (m_state) m_state->cancel.store(true);
        m_running = false;
    }
    [[nodiscard]] bool running() const { return m_running; }
    // Tests: sees every progress report on the reading thread, before the throttle; false cancels
    // the read (a stand-in for the Cancel button), and waiting in it stands in for a slow disk.
    void setObserver(ReadProgressFn observer) { m_observer = std::move(observer); }

private:
    struct State {
        std::atomic<bool> cancel{false};
        ReadProgressFn observer;
    };

    void onFinished() {
        if (!m_running) return;  // cancelled: dropped
        m_running = false;
        m_done(m_watcher.result());
    }

    QObject* m_owner;
    std::function<void(const ReadProgress&)> m_progress;
    std::function<void(T)> m_done;
    ReadProgressFn m_observer;
    std::shared_ptr<State> m_state;
    bool m_running = false;
    QFutureWatcher<T> m_watcher;
};

}  // namespace alibi::qt
