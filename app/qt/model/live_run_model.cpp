// The model run off the UI thread: the core's runLive, progress queued to the UI thread.
#include "live_run_model.hpp"

#include "background.hpp"

#include <QCoreApplication>
#include <QPointer>

#include <chrono>

namespace alibi::qt {

LiveRunModel::LiveRunModel(QObject* parent) : QObject(parent) {
    connect(&m_watcher, &QFutureWatcher<Outcome>::finished, this, &LiveRunModel::onFinished);
}

LiveRunModel::~LiveRunModel() {
    if (m_cancel) m_cancel->store(true);
    m_watcher.waitForFinished();
}

void LiveRunModel::start(const LiveModelParams& params) {
    if (m_pending && m_cancel) m_cancel->store(true);
    waitForRun();
    m_pendingParams = params;
    m_pending = true;
    m_fraction = 0;
    m_error.clear();
    m_cancel = std::make_shared<std::atomic<bool>>(false);
    QPointer<LiveRunModel> self(this);
    lm::LiveRunOptions options;
    // The core's progress, at most every 50 ms, queued to the UI thread; false once cancelled.
    options.progress = [self, flag = m_cancel, last = std::chrono::steady_clock::time_point{}](
                           std::uint64_t done, std::uint64_t total) mutable {
        if (flag->load()) return false;
        const auto now = std::chrono::steady_clock::now();
        if (now - last < std::chrono::milliseconds(50) && done != total) return true;
        last = now;
        const double f = total > 0 ? static_cast<double>(done) / static_cast<double>(total) : 0.0;
        if (self)
            QMetaObject::invokeMethod(
                self.data(),
                [self, flag, f] {
                    if (!self || flag != self->m_cancel || flag->load() || !self->m_pending) return;
                    self->m_fraction = f;
                    emit self->progress(f);
                },
                Qt::QueuedConnection);
        return true;
    };
    m_watcher.setFuture(runInBackground([params, options, flag = m_cancel] {
        Outcome out;
        auto run = lm::runLive(params, options);
        if (!run) {
            out.cancelled = run.error().code == ErrorCode::Cancelled || flag->load();
            out.error = QString::fromStdString(run.error().message);
            return out;
        }
        out.run = std::make_shared<const lm::LiveRun>(std::move(*run));
        return out;
    }));
}

void LiveRunModel::cancel() {
    if (m_pending && m_cancel) m_cancel->store(true);
}

void LiveRunModel::waitForRun() {
    if (!m_pending) return;
    m_watcher.waitForFinished();
    QCoreApplication::sendPostedEvents(&m_watcher);
}

void LiveRunModel::onFinished() {
    if (!m_pending) return;
    m_pending = false;
    Outcome out = m_watcher.result();
    if (out.cancelled) {
        emit cancelled();
        return;
    }
    if (!out.run) {
        m_error = out.error;
        emit failed(out.error);
        return;
    }
    m_run = std::move(out.run);
    m_runParams = m_pendingParams;
    emit finished();
}

}  // namespace alibi::qt
