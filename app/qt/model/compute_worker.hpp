// Runs the core's explorer layer (<alibi/explore/compute.hpp>) off the UI thread, on the core's
// latest-wins runner (<alibi/explore/job_runner.hpp>): a request (explore::Request: the whole
// session plus the pixel sizes of the views) is answered with immutable snapshots, while a job
// runs only the newest request waits, and a running job stops at its next checkpoint once a
// newer request exists, so dragging a slider never queues work behind itself. This class only
// turns the runner's results into queued Qt signals.
#pragma once

#include "snapshot.hpp"

#include <alibi/explore/compute.hpp>
#include <alibi/explore/job_runner.hpp>

#include <QObject>

#include <atomic>

namespace alibi::qt {

class ComputeWorker : public QObject {
    Q_OBJECT
public:
    explicit ComputeWorker(QObject* parent = nullptr);
    ~ComputeWorker() override;

    // Replaces any pending request; `request.generation` tags what comes back.
    void submit(explore::Request request);
    [[nodiscard]] bool busy() const { return !m_runner.idle(); }

signals:
    void gridReady(alibi::qt::GridPtr grid);
    void resultReady(alibi::qt::SnapshotPtr snapshot);
    // A first picture of the head image of the details (explore::DetailPreviewFn): only its
    // detail fields are set; the exact one comes with resultReady.
    void detailPreview(alibi::qt::SnapshotPtr snapshot);
    void failed(quint64 generation, const QString& message);
    // Fraction of the grid of `generation` done so far, at most every 50 ms while it computes.
    void progress(quint64 generation, double fraction);
    // Fraction of the details of `generation` (detail image, statistics, curves, stages) done.
    void detailsProgress(quint64 generation, double fraction);

private:
    void run(const explore::Request& request, const explore::JobContext& job);

    explore::JobRunner m_runner;
};

}  // namespace alibi::qt
