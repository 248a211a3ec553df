// Diagnose: a user's .npy or .safetensors bias tensor (opened, dropped on the window, or one of
// the built-in buggy examples), the core's diagnosis in words with its findings, and a heatmap
// of the error against correct ALiBi, with a button that opens the corrected parameters. Loading
// and diagnosis run off the UI thread, the read with the core's progress and a Cancel that keeps
// the diagnosis shown before.
#pragma once

#include "model/background_read.hpp"
#include "model/tasks.hpp"

#include <alibi/explore/diagnosis_error_map.hpp>
#include <alibi/explore/job_runner.hpp>

#include <QWidget>

#include <cstdint>
#include <optional>

class QLabel;
class QProgressBar;
class QPushButton;
class QTextBrowser;
class QTimer;

namespace alibi::qt {

class ImagePanel;

class DiagnoseView : public QWidget {
    Q_OBJECT
public:
    explicit DiagnoseView(QWidget* parent = nullptr);
    ~DiagnoseView() override;

    // Loads and diagnoses `path` in the background; diagnosed() or failed() follows.
    void openFile(const QString& path);
    // Diagnoses one of the built-in examples (a bias with a known bug) in the background.
    void openExample(const QString& code);
    [[nodiscard]] bool busy() const { return m_read.running(); }
    // Stops the read or diagnosis under way; the diagnosis shown before stays.
    void cancel();
    // Tests: sees every progress report of the read on the reading thread (BackgroundRead).
    void setReadObserver(const ReadProgressFn& observer) { m_read.setObserver(observer); }
    [[nodiscard]] QStringList findingCodes() const { return m_codes; }
    [[nodiscard]] QString summaryText() const;
    // The last diagnosis shown (for "Open the corrected parameters").
    [[nodiscard]] const std::optional<Diagnosis>& diagnosis() const { return m_diagnosis; }
    // The tensor of that diagnosis and its name (File > Export figure draws them).
    [[nodiscard]] const std::shared_ptr<const Tensor>& tensor() const { return m_tensor; }
    [[nodiscard]] const QString& source() const { return m_source; }
    // The largest finite |error| against correct ALiBi in the map (0 without a map).
    [[nodiscard]] double errorMax() const { return m_errorMax; }
    // How many error maps this view has drawn (tests: one per diagnosis shown, more only when the
    // panel's size changes).
    [[nodiscard]] int mapsDrawn() const { return m_mapsDrawn; }

signals:
    // The diagnosis is shown, with its error map when it has one.
    void diagnosed(const QStringList& findingCodes);
    void failed(const QString& message);
    // The core's progress of the read (fraction 0..1 and its words), and a stop by Cancel.
    void progress(double fraction, const QString& text);
    void cancelled();
    void openRequested();
    void openCorrectedRequested();

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    // The error map at the panel's size, with square cells (the core's squareCells) and a label
    // line of the panel's font above each tile, drawn off the UI thread by the core's latest-wins
    // runner: first when a diagnosis is shown, again after the panel is resized.
    [[nodiscard]] QSize roomPixels() const;  // the panel's picture area in device pixels
    void redrawMap();
    void showMap(std::uint64_t generation, const std::shared_ptr<const Tensor>& tensor, QSize pixels,
                 std::optional<explore::DiagnosisErrorMap> map);
    void start(const QString& what, std::function<Result<DiagnosisReport>(const ReadOptions&)> job);
    void show(const Result<DiagnosisReport>& report);
    void hideProgress();

    QTextBrowser* m_text;
    ImagePanel* m_image;
    QLabel* m_status;
    QLabel* m_caption;
    QPushButton* m_correct;
    QStringList m_codes;
    std::optional<Diagnosis> m_diagnosis;
    std::shared_ptr<const Tensor> m_tensor;
    QString m_source;
    double m_errorMax = 0;
    QProgressBar* m_progress;
    QPushButton* m_cancel;
    QString m_reading;          // what is read or diagnosed now
    QTimer* m_resized;          // the panel's size settled: redraw the map for it
    QSize m_mapAsked;           // the pixels of the last map asked for (shown, or drawing)
    bool m_mapPending = false;  // the diagnosis shown waits for its first map (then diagnosed())
    int m_mapsDrawn = 0;
    explore::JobRunner m_mapRunner;
    BackgroundRead<Result<DiagnosisReport>> m_read;  // last: destroyed (cancelled and waited for) first
};

}  // namespace alibi::qt
