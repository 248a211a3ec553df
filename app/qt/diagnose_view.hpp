// Diagnose: a user's .npy or .safetensors bias tensor (opened, dropped on the window, or one of
// the built-in buggy examples), the core's diagnosis in words with its findings, and a heatmap
// of the error against the best match. Loading and diagnosis run off the UI thread.
#pragma once

#include "model/tasks.hpp"

#include <QFutureWatcher>
#include <QWidget>

class QLabel;
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

signals:
    void diagnosed(const QStringList& findingCodes);
    void failed(const QString& message);
    void openRequested();

private:
    void start(std::function<Result<DiagnosisReport>()> job);
    void show(const Result<DiagnosisReport>& report);

    QFutureWatcher<Result<DiagnosisReport>> m_watcher;
    QTextBrowser* m_text;
    ImagePanel* m_image;
    QLabel* m_status;
    QStringList m_codes;
};

// The examples' bias tensors, each with one known bug of REFERENCES.md (for teaching and tests).
[[nodiscard]] Result<Tensor> buggyExample(const QString& code);
[[nodiscard]] QStringList buggyExampleCodes();

}  // namespace alibi::qt
