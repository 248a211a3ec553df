// The compute worker: the explorer layer's computations behind every view, in the order the user
// sees them (the head grid first, then statistics, curves, stages and the optional views).
#include "compute_worker.hpp"

#include <QElapsedTimer>
#include <QMetaObject>

using namespace Qt::Literals::StringLiterals;

namespace alibi::qt {

ComputeWorker::ComputeWorker(QObject* parent)
    : QObject(parent),
      // On a busy machine the UI thread wins the CPU and keeps answering. Without a thread (a
      // process or address-space limit) the views are computed from this thread's event loop:
      // slower, but every request is answered (issue 25).
      m_runner({.niceness = 4, .post = [this](std::function<void()> f) {
                    QMetaObject::invokeMethod(this, std::move(f), Qt::QueuedConnection);
                }}) {
    qRegisterMetaType<GridPtr>();
    qRegisterMetaType<SnapshotPtr>();
}

ComputeWorker::~ComputeWorker() = default;

void ComputeWorker::submit(explore::Request request) {
    m_runner.submit([this, request = std::move(request)](const explore::JobContext& job) {
        // The core returns errors as values; anything thrown anyway (bad_alloc at extreme sizes)
        // becomes a message for this request instead of terminating the application.
        try {
            run(request, job);
        } catch (const std::bad_alloc&) {
            emit failed(request.generation, u"out of memory while computing the views; lower H or T"_s);
        } catch (const std::exception& e) {
            emit failed(request.generation, u"unexpected error: %1"_s.arg(QString::fromUtf8(e.what())));
        }
    });
}

void ComputeWorker::run(const explore::Request& request, const explore::JobContext& job) {
    const std::uint64_t generation = request.generation;
    const auto cancelled = job.cancelledFn();
    QElapsedTimer sinceReport;
    sinceReport.start();
    auto reportProgress = [&](std::uint64_t done, std::uint64_t total) {
        if (total > 0 && sinceReport.elapsed() >= 50) {
            sinceReport.restart();
            emit progress(generation, static_cast<double>(done) / static_cast<double>(total));
        }
        return job.report(done, total);
    };
    // A costly grid sends a first picture from fewer exact rows (then finer ones) before the exact one.
    auto preview = [&](GridSnapshot coarse) {
        if (!job.cancelled()) emit gridReady(std::make_shared<const GridSnapshot>(std::move(coarse)));
    };
    auto gridResult = explore::computeGrid(request, cancelled, reportProgress, preview);
    if (!gridResult && gridResult.error().code == ErrorCode::Cancelled) return;
    if (!gridResult) {
        emit failed(generation, QString::fromStdString(gridResult.error().message));
        return;
    }
    if (job.cancelled()) return;
    auto grid = std::make_shared<const GridSnapshot>(std::move(*gridResult));
    emit gridReady(grid);
    auto reportDetails = [&](std::uint64_t done, std::uint64_t total) {
        if (total > 0 && sinceReport.elapsed() >= 50) {
            sinceReport.restart();
            emit detailsProgress(generation, static_cast<double>(done) / static_cast<double>(total));
        }
        return !job.cancelled();
    };
    auto detailPreview = [&](const Snapshot& first) {
        if (!job.cancelled()) emit this->detailPreview(std::make_shared<const Snapshot>(first));
    };
    auto snapshot = std::make_shared<Snapshot>(
        explore::computeDetails(request, std::move(grid), cancelled, reportDetails, detailPreview));
    if (job.cancelled()) return;
    emit resultReady(std::move(snapshot));
}

}  // namespace alibi::qt
