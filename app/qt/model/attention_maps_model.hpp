// The Qt explorer's state for a trained model's saved attention maps (Qt Core only, testable
// without a window): the open file (read by the core, opened off the UI thread with progress, the
// previous file kept when a new one fails), the ALiBi slopes it is paired with, and the per-head
// fit, run in the background with progress and cancel. Every number comes from the core.
#pragma once

#include <alibi/analysis/fit_report.hpp>
#include <alibi/analysis/head_fit.hpp>
#include <alibi/io/attention_maps.hpp>
#include <alibi/io/tensor_io.hpp>

#include <QFutureWatcher>
#include <QObject>
#include <QString>

#include <atomic>
#include <memory>
#include <optional>
#include <vector>

namespace alibi::qt {

using MapsPtr = std::shared_ptr<const AttentionMaps>;

class AttentionMapsModel : public QObject {
    Q_OBJECT
public:
    explicit AttentionMapsModel(QObject* parent = nullptr);
    ~AttentionMapsModel() override;

    // Opens `path` in the background; openProgress() reports as the header is read and parsed
    // and rows are sampled, then opened() or openFailed() follows. On failure the maps open
    // before (if any) stay as they were.
    void open(const QString& path, const AttentionOpenOptions& options = {});
    // The same background open for a dropped file whose kind is not known yet: classified()
    // follows (attention: it opens and its rows sum to 1) and the maps open before stay; then
    // adoptClassified() shows the file read (no second read) or dropClassified() forgets it.
    void classify(const QString& path);
    void adoptClassified();
    void dropClassified();
    // Shows maps opened elsewhere (a model run's, lm/live_run.hpp) as if `path` had been opened:
    // an open under way is cancelled, then opened() follows at once.
    void adopt(MapsPtr maps, const QString& path);
    // The open under way: how far it is (0 to 1) and what it does ("reading the header: ...").
    [[nodiscard]] double openFraction() const { return m_openFraction; }
    [[nodiscard]] const QString& openStage() const { return m_openStage; }
    [[nodiscard]] const QString& openingPath() const { return m_pendingPath; }
    // The same file again with other options (a safetensors tensor, a batch element, values).
    void reopen(const AttentionOpenOptions& options);
    // Stops an open under way (its header read); openCancelled() follows and the maps open
    // before (if any) stay.
    void cancelOpen();
    // True from open() until opened() or openFailed() has been emitted.
    [[nodiscard]] bool opening() const { return m_openPending; }
    void waitForOpen();

    [[nodiscard]] MapsPtr maps() const { return m_maps; }
    [[nodiscard]] const QString& path() const { return m_path; }
    [[nodiscard]] const AttentionOpenOptions& options() const { return m_options; }
    // Every tensor (layer) name of the file when it was last opened with all layers (safetensors).
    [[nodiscard]] const QStringList& tensorNames() const { return m_tensorNames; }

    // The ALiBi slopes the maps are paired with (one per head; empty: none) and where they come
    // from ("current session", "preset bloom-560m"). A pairing whose head count differs is refused.
    Result<void> setConfigured(std::vector<double> slopes, const QString& source);
    [[nodiscard]] const std::vector<double>& configured() const { return m_configured; }
    [[nodiscard]] const QString& configuredSource() const { return m_configuredSource; }

    // Fits every head of every layer over query rows [firstRow, lastRow) in the background
    // (cancelling a fit under way); fitProgress() reports, fitted() / fitFailed() follow.
    void startFit(std::int64_t firstRow = 0, std::int64_t lastRow = -1);
    void cancelFit();
    // True from startFit() until fitted() or fitFailed() has been emitted.
    [[nodiscard]] bool fitting() const { return m_fitPending; }
    void waitForFit();
    [[nodiscard]] const std::vector<HeadFit>& fits() const { return m_fits; }
    [[nodiscard]] std::int64_t fitFirstRow() const { return m_fitFirst; }
    [[nodiscard]] std::int64_t fitLastRow() const { return m_fitLast; }
    // The fit of (layer index, head), when fitted.
    [[nodiscard]] const HeadFit* fitOf(int layerIndex, int head) const;

    // The table as `alibi fit FILE --format csv|json` prints it for the same file, rows and
    // slopes (index order, no similarity), written atomically to `path`.
    [[nodiscard]] Result<void> exportTable(const QString& path, FileFormat format) const;
    [[nodiscard]] Result<std::string> tableText(FileFormat format) const;

signals:
    void opened();
    void openProgress(double fraction, const QString& stage);
    void classified(const QString& path, bool attention);
    void openFailed(const QString& message);
    void openCancelled(const QString& path);
    void configuredChanged();
    void fitProgress(double fraction);
    void fitted();
    void fitFailed(const QString& message);

private:
    struct Opened {
        std::shared_ptr<const AttentionMaps> maps;  // null: failed
        QString error;
        bool cancelled = false;
        QStringList tensorNames;
    };
    struct FitOutcome {
        std::vector<HeadFit> fits;
        QString error;  // empty: fitted (or cancelled)
        bool cancelled = false;
        std::uint64_t generation = 0;
        std::int64_t firstRow = 0, lastRow = -1;
    };
    void startOpen(const QString& path, const AttentionOpenOptions& options, bool classify);
    void onOpened();
    void install(const Opened& out);
    void onFitted();

    QFutureWatcher<Opened> m_open;
    QFutureWatcher<FitOutcome> m_fit;
    QString m_pendingPath;
    std::shared_ptr<std::atomic<bool>> m_openCancel;  // of the open under way
    AttentionOpenOptions m_pendingOptions;
    bool m_pendingClassify = false;
    std::optional<Opened> m_classified;  // a dropped file read, waiting for adoptClassified()
    double m_openFraction = 0;
    QString m_openStage;
    MapsPtr m_maps;
    QString m_path;
    AttentionOpenOptions m_options;
    QStringList m_tensorNames;
    std::vector<double> m_configured;
    QString m_configuredSource;
    std::vector<HeadFit> m_fits;
    std::int64_t m_fitFirst = 0, m_fitLast = -1;      // the rows of m_fits
    std::int64_t m_askedFirst = 0, m_askedLast = -1;  // the rows of the last fit started
    std::shared_ptr<std::atomic<bool>> m_cancel;
    std::uint64_t m_generation = 0;
    bool m_openPending = false;
    bool m_fitPending = false;  // bumped by every open and pairing: older fits are dropped
};

}  // namespace alibi::qt
