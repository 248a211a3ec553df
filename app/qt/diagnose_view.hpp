// Diagnose: a user's .npy or .safetensors bias tensor (opened, dropped on the window, or one of
// the built-in buggy examples), the core's diagnosis in words with its findings, and a heatmap
// of the error against correct ALiBi, with a button that opens the corrected parameters. Loading
// and diagnosis run off the UI thread.
#pragma once

#include "model/tasks.hpp"

#include <QFutureWatcher>
#include <QWidget>

#include <optional>

class QLabel;
class QPushButton;
class QTextBrowser;

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
    [[nodiscard]] bool busy() const { return m_watcher.isRunning(); }
    [[nodiscard]] QStringList findingCodes() const { return m_codes; }
    [[nodiscard]] QString summaryText() const;
    // The last diagnosis shown (for "Open the corrected parameters").
    [[nodiscard]] const std::optional<Diagnosis>& diagnosis() const { return m_diagnosis; }
    // The largest finite |error| against correct ALiBi in the map (0 without a map).
    [[nodiscard]] double errorMax() const { return m_errorMax; }

signals:
    void diagnosed(const QStringList& findingCodes);
    void failed(const QString& message);
    void openRequested();
    void openCorrectedRequested();

private:
    void start(std::function<Result<DiagnosisReport>()> job);
    void show(const Result<DiagnosisReport>& report);

    QFutureWatcher<Result<DiagnosisReport>> m_watcher;
    QTextBrowser* m_text;
    ImagePanel* m_image;
    QLabel* m_status;
    QLabel* m_caption;
    QPushButton* m_correct;
    QStringList m_codes;
    std::optional<Diagnosis> m_diagnosis;
    double m_errorMax = 0;
};

}  // namespace alibi::qt
