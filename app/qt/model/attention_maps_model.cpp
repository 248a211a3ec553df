// Attention maps state: background open and fit over the core, results handed back by value.
#include "attention_maps_model.hpp"

#include <alibi/io/output_file.hpp>

#include <QCoreApplication>
#include <QPointer>
#include "background.hpp"

#include <chrono>

using namespace Qt::Literals::StringLiterals;

namespace alibi::qt {

AttentionMapsModel::AttentionMapsModel(QObject* parent) : QObject(parent) {
    connect(&m_open, &QFutureWatcher<Opened>::finished, this, &AttentionMapsModel::onOpened);
    connect(&m_fit, &QFutureWatcher<FitOutcome>::finished, this, &AttentionMapsModel::onFitted);
}

AttentionMapsModel::~AttentionMapsModel() {
    if (m_cancel) m_cancel->store(true);
    if (m_openCancel) m_openCancel->store(true);
    m_open.waitForFinished();
    m_fit.waitForFinished();
}

void AttentionMapsModel::open(const QString& path, const AttentionOpenOptions& options) {
    startOpen(path, options, false);
}

void AttentionMapsModel::classify(const QString& path) {
    startOpen(path, {}, true);
}

void AttentionMapsModel::startOpen(const QString& path, const AttentionOpenOptions& options, bool classify) {
    // One open at a time: an open still reading a header (a legal one may be 100 MB) is
    // cancelled first, so waiting for it takes no longer than its next check.
    if (m_openPending && m_openCancel) m_openCancel->store(true);
    waitForOpen();
    m_classified.reset();
    m_pendingPath = path;
    m_pendingOptions = options;
    m_pendingOptions.cancelled = nullptr;
    m_pendingOptions.progress = nullptr;
    m_pendingClassify = classify;
    m_openPending = true;
    m_openFraction = 0;
    m_openStage.clear();
    m_openCancel = std::make_shared<std::atomic<bool>>(false);
    const std::string file = path.toStdString();
    AttentionOpenOptions withCancel = m_pendingOptions;
    withCancel.cancelled = [flag = m_openCancel] { return flag->load(std::memory_order_relaxed); };
    // The core's progress, at most every 50 ms (and at the end of each stage), queued to the UI
    // thread; the open's own cancel flag drops what a cancelled open still reports.
    QPointer<AttentionMapsModel> self(this);
    withCancel.progress = [self, flag = m_openCancel,
                           last = std::chrono::steady_clock::time_point{}](const AttentionOpenProgress& p) mutable {
        const auto now = std::chrono::steady_clock::now();
        if (now - last < std::chrono::milliseconds(50) && p.done != p.total) return true;
        last = now;
        const double fraction = p.fraction();
        const QString stage = QString::fromStdString(p.text());
        if (self)
            QMetaObject::invokeMethod(
                self.data(),
                [self, flag, fraction, stage] {
                    if (!self || flag != self->m_openCancel || flag->load() || !self->m_openPending) return;
                    self->m_openFraction = fraction;
                    self->m_openStage = stage;
                    emit self->openProgress(fraction, stage);
                },
                Qt::QueuedConnection);
        return true;
    };
    m_open.setFuture(runInBackground([file, withCancel] {
        Opened out;
        auto maps = AttentionMaps::open(file, withCancel);
        if (!maps) {
            out.error = QString::fromStdString(maps.error().message);
            out.cancelled = maps.error().code == ErrorCode::Cancelled;
            return out;
        }
        for (const AttentionLayerInfo& info : maps->layerInfo())
            if (!info.name.empty()) out.tensorNames << QString::fromStdString(info.name);
        out.maps = std::make_shared<const AttentionMaps>(std::move(*maps));
        return out;
    }));
}

void AttentionMapsModel::cancelOpen() {
    if (m_openPending && m_openCancel) m_openCancel->store(true);
}

void AttentionMapsModel::reopen(const AttentionOpenOptions& options) {
    if (!m_path.isEmpty()) open(m_path, options);
}

void AttentionMapsModel::waitForOpen() {
    if (!m_openPending) return;
    m_open.waitForFinished();
    QCoreApplication::sendPostedEvents(&m_open);  // deliver finished() now, in order
}

void AttentionMapsModel::onOpened() {
    if (!m_openPending) return;  // delivered already (waitForOpen)
    m_openPending = false;
    const Opened out = m_open.result();
    if (out.cancelled) {
        emit openCancelled(m_pendingPath);
        return;
    }
    if (m_pendingClassify) {
        // A dropped file: attention maps when it opens and its rows sum to 1; anything else
        // (scores, a bias, a file that is not attention maps) is for the diagnosis.
        const bool attention = out.maps && out.maps->values() == AttentionValues::Probabilities;
        m_classified = out;
        emit classified(m_pendingPath, attention);
        return;
    }
    if (!out.maps) {
        emit openFailed(u"%1: %2"_s.arg(m_pendingPath, out.error));
        return;
    }
    install(out);
}

void AttentionMapsModel::adoptClassified() {
    if (!m_classified) return;
    const Opened out = std::move(*m_classified);
    m_classified.reset();
    if (!out.maps) {
        emit openFailed(u"%1: %2"_s.arg(m_pendingPath, out.error));
        return;
    }
    install(out);
}

void AttentionMapsModel::adopt(MapsPtr maps, const QString& path) {
    if (!maps) return;
    if (m_openPending && m_openCancel) m_openCancel->store(true);
    waitForOpen();
    m_classified.reset();
    Opened out;
    for (const AttentionLayerInfo& info : maps->layerInfo())
        if (!info.name.empty()) out.tensorNames << QString::fromStdString(info.name);
    out.maps = std::move(maps);
    m_pendingPath = path;
    m_pendingOptions = {};
    install(out);
}

void AttentionMapsModel::dropClassified() {
    m_classified.reset();
}

void AttentionMapsModel::install(const Opened& out) {
    cancelFit();
    ++m_generation;
    const bool sameFile = m_pendingPath == m_path;
    m_maps = out.maps;
    m_path = m_pendingPath;
    m_options = m_pendingOptions;
    // The tensor list comes from the file opened whole; one tensor of it keeps the list.
    if (m_options.tensor.empty() || !sameFile) m_tensorNames = out.tensorNames;
    m_fits.clear();
    if (!m_configured.empty() && static_cast<int>(m_configured.size()) != m_maps->heads()) {
        m_configured.clear();
        m_configuredSource.clear();
    }
    emit opened();
}

Result<void> AttentionMapsModel::setConfigured(std::vector<double> slopes, const QString& source) {
    if (m_maps && !slopes.empty() && static_cast<int>(slopes.size()) != m_maps->heads())
        return fail(ErrorCode::InvalidArgument, u"%1 gives %2 slopes but the maps have %3 heads"_s.arg(source)
                                                    .arg(slopes.size())
                                                    .arg(m_maps->heads())
                                                    .toStdString());
    m_configured = std::move(slopes);
    m_configuredSource = m_configured.empty() ? QString() : source;
    // The fits carry the configured slope and its KL (a pass over the rows): the slope shows at
    // once, the KL with the refit started here.
    for (HeadFit& f : m_fits) {
        f.configuredSlope.reset();
        f.configuredKl.reset();
        if (f.head < static_cast<int>(m_configured.size()))
            f.configuredSlope = m_configured[static_cast<std::size_t>(f.head)];
    }
    emit configuredChanged();
    if (!m_fits.empty() || fitting()) startFit(m_askedFirst, m_askedLast);
    return {};
}

void AttentionMapsModel::startFit(std::int64_t firstRow, std::int64_t lastRow) {
    if (!m_maps) return;
    cancelFit();
    m_fit.waitForFinished();
    QCoreApplication::sendPostedEvents(&m_fit);  // the cancelled fit's finished(), before the new one starts
    m_askedFirst = firstRow;
    m_askedLast = lastRow;
    m_fitPending = true;
    m_cancel = std::make_shared<std::atomic<bool>>(false);
    const auto cancel = m_cancel;
    const MapsPtr maps = m_maps;
    const std::vector<double> configured = m_configured;
    const std::uint64_t generation = m_generation;
    QPointer<AttentionMapsModel> self(this);
    m_fit.setFuture(runInBackground([=] {
        FitOutcome out;
        out.generation = generation;
        out.firstRow = firstRow;
        out.lastRow = lastRow;
        HeadFitOptions options;
        options.firstRow = firstRow;
        options.lastRow = lastRow;
        // Progress at most every 50 ms, queued to the UI thread; false cancels.
        auto last = std::chrono::steady_clock::now() - std::chrono::seconds(1);
        options.progress = [&, self](std::uint64_t done, std::uint64_t total) {
            if (cancel->load()) return false;
            const auto now = std::chrono::steady_clock::now();
            if (now - last > std::chrono::milliseconds(50) || done == total) {
                last = now;
                const double fraction = total ? static_cast<double>(done) / static_cast<double>(total) : 1.0;
                if (self)
                    QMetaObject::invokeMethod(
                        self.data(),
                        [self, fraction] {
                            if (self) emit self->fitProgress(fraction);
                        },
                        Qt::QueuedConnection);
            }
            return true;
        };
        auto fits = fitHeads(*maps, options, configured);
        if (cancel->load())
            out.cancelled = true;
        else if (!fits)
            out.error = QString::fromStdString(fits.error().message);
        else
            out.fits = std::move(*fits);
        return out;
    }));
}

void AttentionMapsModel::cancelFit() {
    if (m_cancel) m_cancel->store(true);
}

void AttentionMapsModel::waitForFit() {
    if (!m_fitPending) return;
    m_fit.waitForFinished();
    QCoreApplication::sendPostedEvents(&m_fit);
}

void AttentionMapsModel::onFitted() {
    if (!m_fitPending) return;
    FitOutcome out = m_fit.result();
    if (out.generation != m_generation) {  // for maps no longer open
        m_fitPending = false;
        return;
    }
    m_fitPending = false;
    if (out.cancelled) {
        emit fitFailed(u"fit cancelled"_s);
        return;
    }
    if (!out.error.isEmpty()) {
        emit fitFailed(out.error);
        return;
    }
    m_fits = std::move(out.fits);
    m_fitFirst = out.firstRow;
    m_fitLast = out.lastRow;
    emit fitted();
}

const HeadFit* AttentionMapsModel::fitOf(int layerIndex, int head) const {
    for (const HeadFit& f : m_fits)
        if (f.layerIndex == layerIndex && f.head == head) return &f;
    return nullptr;
}

Result<std::string> AttentionMapsModel::tableText(FileFormat format) const {
    if (!m_maps || m_fits.empty())
        return fail(ErrorCode::InvalidArgument, "nothing to export: open attention maps and fit them first");
    if (fitting()) return fail(ErrorCode::InvalidArgument, "a fit is under way: export once it has finished");
    FitReportOptions options;
    options.firstRow = m_fitFirst;
    options.lastRow = m_fitLast;
    auto report = makeFitReport(*m_maps, m_fits, m_path.toStdString(), options);
    if (!report) return std::unexpected(report.error());
    if (format == FileFormat::Json) return fitJson(*report, *m_maps);
    if (format == FileFormat::Csv) return fitCsv(*report);
    return fitText(*report, *m_maps);
}

Result<void> AttentionMapsModel::exportTable(const QString& path, FileFormat format) const {
    auto text = tableText(format);
    if (!text) return std::unexpected(text.error());
    return writeFileAtomic(path.toStdString(), *text);
}

}  // namespace alibi::qt
