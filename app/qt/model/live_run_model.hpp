// The Qt explorer's model run (issue 29), Qt Core only: runs the core's lm::runLive for a
// session's LiveModelParams off the UI thread (runInBackground), with progress, Cancel, and the
// outcome handed back by value: the run (A's maps, loss A and B, each head's attention change),
// or the core's refusal as it words it. One run at a time: a new start cancels the one running.
#pragma once

#include <alibi/lm/live_run.hpp>

#include <QFutureWatcher>
#include <QObject>
#include <QString>

#include <atomic>
#include <memory>

namespace alibi::qt {

using LiveRunPtr = std::shared_ptr<const lm::LiveRun>;

class LiveRunModel : public QObject {
    Q_OBJECT
public:
    explicit LiveRunModel(QObject* parent = nullptr);
    ~LiveRunModel() override;

    // Starts a run of `params` (cancelling one under way); progress() reports, then finished(),
    // failed() or cancelled() follows.
    void start(const LiveModelParams& params);
    void cancel();
    [[nodiscard]] bool running() const { return m_pending; }
    void waitForRun();
    // The last finished run (null before the first).
    [[nodiscard]] const LiveRunPtr& run() const { return m_run; }
    [[nodiscard]] const LiveModelParams& runParams() const { return m_runParams; }
    [[nodiscard]] double fraction() const { return m_fraction; }
    [[nodiscard]] const QString& lastError() const { return m_error; }

signals:
    void progress(double fraction);
    void finished();
    void failed(const QString& message);
    void cancelled();

private:
    struct Outcome {
        LiveRunPtr run;
        QString error;
        bool cancelled = false;
    };
    void onFinished();

    QFutureWatcher<Outcome> m_watcher;
    std::shared_ptr<std::atomic<bool>> m_cancel;
    LiveModelParams m_pendingParams, m_runParams;
    LiveRunPtr m_run;
    QString m_error;
    double m_fraction = 0;
    bool m_pending = false;
};

}  // namespace alibi::qt
