// The "Model" tab (issue 29): a BLOOM, MPT or Falcon checkpoint run on the user's text. The folder, the
// text and B's slope change (every slope times k, another scheme or max_bias, heads' slopes set,
// the length) are the session's (Session::live, edited through SessionModel: saved and undoable);
// Run hands them to LiveRunModel (the core's lm::runLive off the UI thread, with progress and
// Cancel). A's maps open in the Attention maps tab; here are A against B: the loss per position
// and each head's attention change, with the core's lines. Refusals are the core's words.
#pragma once

#include "model/live_run_model.hpp"
#include "model/session_model.hpp"

#include <QWidget>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;

namespace alibi::qt {

class PlotWidget;

class LiveModelView : public QWidget {
    Q_OBJECT
public:
    LiveModelView(SessionModel* session, QWidget* parent = nullptr);

    [[nodiscard]] LiveRunModel* runner() const { return m_runner; }
    // Commits the typed text (one undo step) and runs the session's model on it.
    void run();
    // Sets the model folder (an undoable edit) and runs it.
    void openModel(const QString& folder);
    [[nodiscard]] QPlainTextEdit* textEdit() const { return m_text; }
    [[nodiscard]] QDoubleSpinBox* scaleBox() const { return m_scale; }
    [[nodiscard]] QComboBox* schemeBox() const { return m_scheme; }
    [[nodiscard]] QLineEdit* headSlopesEdit() const { return m_heads; }
    [[nodiscard]] QSpinBox* lengthBox() const { return m_length; }
    [[nodiscard]] PlotWidget* lossPlot() const { return m_lossPlot; }
    [[nodiscard]] PlotWidget* changePlot() const { return m_changePlot; }
    [[nodiscard]] QString statusText() const;
    [[nodiscard]] QString cliText() const;

signals:
    void openModelRequested();
    void exampleRequested();
    // A run finished: its maps are for the Attention maps tab.
    void runFinished(const alibi::qt::LiveRunPtr& run);
    void failed(const QString& title, const QString& message);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void fitTextHeight();

    void syncFromSession();  // the controls show the session's parameters
    void commit();           // the controls' parameters (text as the session holds it) into the session
    void showRun();
    void setStatus(const QString& text, bool error);

    SessionModel* m_session;
    LiveRunModel* m_runner;
    QLabel* m_folder;
    QPlainTextEdit* m_text = nullptr;
    QDoubleSpinBox* m_scale;
    QComboBox* m_scheme;
    QCheckBox* m_maxBiasSet;
    QDoubleSpinBox* m_maxBias;
    QLineEdit* m_heads;
    QSpinBox* m_length;
    QPushButton* m_run;
    QPushButton* m_cancel;
    QProgressBar* m_progress;
    QLabel* m_status;
    QLabel* m_cli;  // the same run as an `alibi loss` command
    QLabel* m_summary;
    QLabel* m_lossLine;
    QLabel* m_changeLine;
    PlotWidget* m_lossPlot;
    PlotWidget* m_changePlot;
    bool m_statusError = false;
};

}  // namespace alibi::qt
