// Runs the core's explorer layer (<alibi/explore/compute.hpp>) off the UI thread. A request carries
// the whole session plus the pixel sizes of the views; the worker answers with immutable snapshots. Requests coalesce:
// while a job runs only the newest pending request is kept, and a running job stops at its next checkpoint once a newer
// request exists (its generation is no longer the latest), so dragging a slider never queues work behind itself.
#pragma once

#include "snapshot.hpp"

#include <alibi/explore/compute.hpp>

#include <QObject>
#include <QSize>
#include <QThread>

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>

namespace alibi::qt {

struct ComputeRequest {
    std::uint64_t generation = 0;
    Session session;
    QSize gridPixels{1024, 768};  // device pixels of the grid image
    double devicePixelRatio = 1;
    bool wantCompare = false;
    CompareOverrides compare = explore::geometricCompare();
    bool wantExtrapolation = false;
    bool logScale = false;  // attention: log10 colours
};

// The pieces of work: the explorer layer's functions over the request in core form.
namespace compute {
[[nodiscard]] explore::Request toCore(const ComputeRequest& request);
[[nodiscard]] Result<GridSnapshot> grid(const ComputeRequest& request, const std::function<bool()>& cancelled = {},
                                        const ProgressFn& progress = {}, const explore::GridPreviewFn& preview = {});
// `cancelled` is polled between steps and inside long core calls; `progress` counts the work
// of every step.
[[nodiscard]] Snapshot details(const ComputeRequest& request, GridPtr grid, const std::function<bool()>& cancelled,
                               const ProgressFn& progress = {});
using explore::applyCompare;
using explore::resolvedQueryRow;
}  // namespace compute

class ComputeWorker : public QObject {
    Q_OBJECT
public:
    explicit ComputeWorker(QObject* parent = nullptr);
    ~ComputeWorker() override;

    // Thread-safe; replaces any pending request.
    void submit(ComputeRequest request);
    [[nodiscard]] bool busy() const { return m_busy.load(); }

signals:
    void gridReady(alibi::qt::GridPtr grid);
    void resultReady(alibi::qt::SnapshotPtr snapshot);
    void failed(quint64 generation, const QString& message);
    // Fraction of the grid of `generation` done so far, at most every 50 ms while it computes.
    void progress(quint64 generation, double fraction);
    // Fraction of the details of `generation` (detail image, statistics, curves, stages) done.
    void detailsProgress(quint64 generation, double fraction);

private:
    void drain();  // on the worker thread
    void run(const ComputeRequest& request);
    [[nodiscard]] bool superseded(std::uint64_t generation) const {
        return m_latest.load() != generation || m_stopping.load();
    }

    QThread m_thread;
    QObject* m_runner = nullptr;  // lives in m_thread; drain() runs in its context
    bool m_inline = false;        // m_thread could not start: m_runner stays on the UI thread
    std::mutex m_mutex;
    std::optional<ComputeRequest> m_pending;
    bool m_scheduled = false;
    std::atomic<std::uint64_t> m_latest{0};
    std::atomic<bool> m_busy{false};
    std::atomic<bool> m_stopping{false};
};

}  // namespace alibi::qt
