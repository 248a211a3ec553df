// The compute worker: the explorer layer's computations behind every view, in the order the user
// sees them (the head grid first, then statistics, curves, stages and the optional views).
#include "compute_worker.hpp"

#include <QElapsedTimer>
#include <QMetaObject>

#include <alibi/base/thread_priority.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace alibi::qt {

namespace compute {

explore::Request toCore(const ComputeRequest& request) {
    explore::Request r;
    r.generation = request.generation;
    r.session = request.session;
    r.gridWidth = request.gridPixels.width();
    r.gridHeight = request.gridPixels.height();
    r.devicePixelRatio = request.devicePixelRatio;
    r.logScale = request.logScale;
    r.wantCompare = request.wantCompare;
    r.compare = request.compare;
    r.wantExtrapolation = request.wantExtrapolation;
    return r;
}

Result<GridSnapshot> grid(const ComputeRequest& request, const std::function<bool()>& cancelled,
                          const ProgressFn& progress, const explore::GridPreviewFn& preview) {
    return explore::computeGrid(toCore(request), cancelled, progress, preview);
}

Snapshot details(const ComputeRequest& request, GridPtr grid, const std::function<bool()>& cancelled,
                 const ProgressFn& progress) {
    return explore::computeDetails(toCore(request), std::move(grid), cancelled, progress);
}

}  // namespace compute

// ---------------------------------------------------------------------------
// ComputeWorker

ComputeWorker::ComputeWorker(QObject* parent) : QObject(parent) {
    qRegisterMetaType<GridPtr>();
    qRegisterMetaType<SnapshotPtr>();
    m_thread.setObjectName("alibi-compute");
    m_runner = new QObject;
    m_thread.start();
    if (!m_thread.isRunning() && !m_thread.isFinished()) {
        // The system refused the thread (a process or address-space limit: ulimit -u, ulimit -v;
        // Qt printed "QThread::start: Thread creation error"). The views are then computed on
        // this thread: slower, but every request is answered instead of waited for forever (issue 25).
        m_inline = true;
        return;
    }
    m_runner->moveToThread(&m_thread);
    connect(&m_thread, &QThread::finished, m_runner, &QObject::deleteLater);
    // On a busy machine the UI thread then wins the CPU and keeps answering.
    QMetaObject::invokeMethod(
        m_runner, [] { lowerThisThreadPriority(4); }, Qt::QueuedConnection);
}

ComputeWorker::~ComputeWorker() {
    m_stopping = true;
    if (m_inline) delete m_runner;
    m_thread.quit();
    m_thread.wait();
}

void ComputeWorker::submit(ComputeRequest request) {
    std::lock_guard lock(m_mutex);
    m_latest = request.generation;
    m_pending = std::move(request);
    if (!m_scheduled) {
        m_scheduled = true;
        QMetaObject::invokeMethod(
            m_runner, [this] { drain(); }, Qt::QueuedConnection);
    }
}

void ComputeWorker::drain() {
    for (;;) {
        ComputeRequest request;
        {
            std::lock_guard lock(m_mutex);
            if (!m_pending || m_stopping) {
                m_scheduled = false;
                m_busy = false;
                return;
            }
            request = std::move(*m_pending);
            m_pending.reset();
            m_busy = true;
        }
        // The core returns errors as values; anything thrown anyway (bad_alloc at extreme sizes)
        // becomes a message for this request instead of terminating the application.
        try {
            run(request);
        } catch (const std::bad_alloc&) {
            emit failed(request.generation, "out of memory while computing the views; lower H or T");
        } catch (const std::exception& e) {
            emit failed(request.generation, QString("unexpected error: %1").arg(e.what()));
        }
    }
}

void ComputeWorker::run(const ComputeRequest& request) {
    const std::uint64_t generation = request.generation;
    auto cancelled = [this, generation] { return superseded(generation); };
    QElapsedTimer sinceReport;
    sinceReport.start();
    auto reportProgress = [&](std::uint64_t done, std::uint64_t total) {
        if (total > 0 && sinceReport.elapsed() >= 50) {
            sinceReport.restart();
            emit progress(generation, static_cast<double>(done) / static_cast<double>(total));
        }
        return true;
    };
    // A costly grid sends a first picture from fewer exact rows (then finer ones) before the exact one.
    auto preview = [&](GridSnapshot coarse) {
        if (!superseded(generation)) emit gridReady(std::make_shared<const GridSnapshot>(std::move(coarse)));
    };
    auto gridResult = compute::grid(request, cancelled, reportProgress, preview);
    if (!gridResult && gridResult.error().code == ErrorCode::Cancelled) return;
    if (!gridResult) {
        emit failed(generation, QString::fromStdString(gridResult.error().message));
        return;
    }
    if (superseded(generation)) return;
    auto grid = std::make_shared<const GridSnapshot>(std::move(*gridResult));
    emit gridReady(grid);
    auto reportDetails = [&](std::uint64_t done, std::uint64_t total) {
        if (total > 0 && sinceReport.elapsed() >= 50) {
            sinceReport.restart();
            emit detailsProgress(generation, static_cast<double>(done) / static_cast<double>(total));
        }
        return true;
    };
    auto snapshot = std::make_shared<Snapshot>(compute::details(request, grid, cancelled, reportDetails));
    if (superseded(generation)) return;
    emit resultReady(std::move(snapshot));
}

}  // namespace alibi::qt
