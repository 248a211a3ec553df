// The main window's files: Diagnose, attention maps and models opened, dropped files (asked what
// they are), the tensor and figure exports, the CLI command, and the screenshots.
#include "main_window.hpp"

#include "attention_maps_page.hpp"
#include "diagnose_view.hpp"
#include "export_controller.hpp"
#include "live_model_view.hpp"
#include "position_schemes_view.hpp"
#include "recent_files.hpp"
#include "screenshot_driver.hpp"

#include <alibi/base/data_dir.hpp>

#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QDir>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileInfo>
#include <QMenu>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QStatusBar>
#include <QTabWidget>
#include <QToolButton>
#include <QUrl>

using namespace Qt::Literals::StringLiterals;

namespace alibi::qt {

void MainWindow::diagnoseFile(const QString& path) {
    m_lastDiagnosed = path;
    m_tabs->setCurrentIndex(DiagnoseTab);
    m_diagnose->openFile(path);
    m_recent->add(path);
}

QString MainWindow::exampleModelPath() {
    if (const auto folder = findDataDir("models")) {
        const QDir dir(QString::fromStdString(folder->string()));
        if (dir.exists(u"license-bloom-tiny/config.json"_s)) return dir.filePath(u"license-bloom-tiny"_s);
    }
    return {};
}

void MainWindow::openModel(const QString& folder) {
    m_tabs->setCurrentIndex(ModelTab);
    m_live->openModel(folder);
}

void MainWindow::openExampleModel() {
    const QString folder = exampleModelPath();
    if (folder.isEmpty()) {
        reportError(u"Cannot open the example model"_s,
                    u"assets/models/license-bloom-tiny was not found under share/alibi-explorer/models next to the "
                    "program; reinstall ALiBi Explorer, or open a model folder with File > Open model"_s);
        return;
    }
    openModel(folder);
}

void MainWindow::openAttentionMaps(const QString& path) {
    m_tabs->setCurrentIndex(AttentionTab);
    m_attention->openFile(path);
}

void MainWindow::handleDroppedFile(const QString& path) {
    if (path.endsWith(u".json"_s)) {
        if (confirmDiscard()) startOpenSession(path);
        return;
    }
    // Dropped on the Attention maps tab: attention maps, no question.
    if (m_tabs->currentIndex() == AttentionTab) {
        openAttentionMaps(path);
        return;
    }
    // Elsewhere the same file could be a bias to diagnose or saved attention: rows that sum to 1
    // are attention, anything else (scores, a bias, an unreadable file) goes to the diagnosis.
    // Which one is read in the background, through the attention maps' own open (a legal header
    // may be 100 MB: reading it here froze the window), with its progress and Cancel in the
    // status bar; onDropClassified asks the question once it is known.
    m_dropPending = true;
    m_attention->model()->classify(path);
    m_openProgress->setValue(0);
    m_openProgress->setToolTip(u"Reading "_s + QFileInfo(path).fileName());
    m_openProgress->show();
    m_openCancel->show();
    statusBar()->showMessage(u"Reading the dropped "_s + QFileInfo(path).fileName() + u"… (Cancel stops it)"_s);
}

void MainWindow::hideOpenProgress() {
    m_openProgress->hide();
    m_openCancel->hide();
}

void MainWindow::onDropClassified(const QString& path, bool attention) {
    hideOpenProgress();
    m_dropPending = false;
    statusBar()->clearMessage();
    AttentionMapsModel* maps = m_attention->model();
    DropChoice choice = attention ? DropChoice::AttentionMaps : DropChoice::Diagnose;
    if (m_dropPrompt) {
        choice = m_dropPrompt(path);
    } else if (m_interactive && !m_screenshotMode) {
        QMessageBox box(QMessageBox::Question, u"Open the dropped file"_s,
                        u"What is %1?"_s.arg(QFileInfo(path).fileName()), QMessageBox::Cancel, this);
        box.setInformativeText(attention
                                   ? u"Its rows sum to 1, so it looks like saved attention maps."_s
                                   : u"It does not read as attention probabilities, so it looks like a bias tensor."_s);
        QPushButton* asMaps = box.addButton(u"Attention maps"_s, QMessageBox::AcceptRole);
        QPushButton* asBias = box.addButton(u"Bias to diagnose"_s, QMessageBox::AcceptRole);
        box.setDefaultButton(attention ? asMaps : asBias);
        box.exec();
        choice = box.clickedButton() == asMaps   ? DropChoice::AttentionMaps
                 : box.clickedButton() == asBias ? DropChoice::Diagnose
                                                 : DropChoice::Cancel;
    }
    if (choice != DropChoice::AttentionMaps) maps->dropClassified();
    if (choice == DropChoice::AttentionMaps) {
        // The file read for the question is the one shown: no second read.
        m_tabs->setCurrentIndex(AttentionTab);
        maps->adoptClassified();
        statusBar()->showMessage(
            u"Opened the dropped file as attention maps (its rows sum to 1); to diagnose it as a "
            "bias use File > Open tensor to diagnose"_s,
            8000);
    } else if (choice == DropChoice::Diagnose) {
        diagnoseFile(path);
        statusBar()->showMessage(
            u"Opened the dropped file for diagnosis; to read it as attention maps drop it on the "
            "Attention maps tab or use File > Open attention maps (Ctrl+Shift+O)"_s,
            8000);
    }
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
    if (!event->mimeData()->hasUrls()) return;
    for (const QUrl& url : event->mimeData()->urls()) {
        const QString path = url.toLocalFile();
        if (path.endsWith(u".npy"_s) || path.endsWith(u".safetensors"_s) || path.endsWith(u".json"_s)) {
            event->acceptProposedAction();
            return;
        }
    }
}

void MainWindow::dropEvent(QDropEvent* event) {
    for (const QUrl& url : event->mimeData()->urls()) {
        const QString path = url.toLocalFile();
        if (path.isEmpty()) continue;
        event->acceptProposedAction();
        handleDroppedFile(path);
        return;
    }
}

Result<void> MainWindow::exportTensorTo(const QString& path, ExportWhat what, FileFormat format,
                                        const ProgressFn& observer) {
    return m_export->exportTensorTo(path, what, format, observer);
}

void MainWindow::exportTensorDialog(const std::function<void(ExportDialog&)>& drive) {
    m_export->exportTensorDialog(drive);
}

void MainWindow::cancelExport() {
    m_export->cancel();
}
bool MainWindow::exporting() const {
    return m_export->exporting();
}
void MainWindow::setFreeSpaceQuery(FreeSpaceFn query) {
    m_export->setFreeSpaceQuery(std::move(query));
}

std::optional<FigureSubject> MainWindow::figureSubject(QString* why) const {
    const auto none = [why](const QString& reason) -> std::optional<FigureSubject> {
        if (why) *why = reason;
        return std::nullopt;
    };
    const int tab = m_tabs->currentIndex();
    if (tab == AttentionTab) return none(u"the Attention maps tab saves its figures from its Figure menu"_s);
    if (tab == ModelTab) return none(u"the Model tab has no figure: its maps are in the Attention maps tab"_s);
    FigureSubject subject;
    subject.tabName = tabName(tab, false).replace(u"&&"_s, u"&"_s);
    ViewFigureRequest& r = subject.request;
    r.session = sessionWithView();  // the parameters, the open view and Compare's B
    r.view = openView(r.session);
    if (tab == GridTab) r.logScale = m_model->logScale();  // the grid's "log colours" box (attention)
    if (tab == PositionSchemesTab) {
        if (const auto* d = m_positionSchemes->findChild<QSpinBox*>(u"schemesMaxDistance"_s))
            r.schemesMaxDistance = d->value();
        if (const auto* q = m_positionSchemes->findChild<QComboBox*>(u"schemesQuantity"_s))
            r.schemesQuantity = static_cast<SchemeQuantity>(q->currentData().toInt());
    }
    if (tab == DiagnoseTab) {
        if (!m_diagnose->tensor() || !m_diagnose->diagnosis())
            return none(u"nothing diagnosed yet: open a tensor with File > Open tensor to diagnose (Ctrl+D)"_s);
        subject.kind = FigureSubject::Kind::Diagnosis;
        subject.tensor = m_diagnose->tensor();
        subject.diagnosis = m_diagnose->diagnosis();
        subject.source = m_diagnose->source().toStdString();
    }
    return subject;
}

Result<QSize> MainWindow::exportFigure(const FigureJob& job, const ProgressFn& observer) {
    return m_export->exportFigure(job, observer);
}

void MainWindow::exportFigureDialog(const std::function<void(FigureExportDialog&)>& drive) {
    if (m_tabs->currentIndex() == AttentionTab) {
        // The same as that tab's Figure menu (PNG at 1x, 2x, 4x of the shown layer or head).
        for (auto* button : m_attention->findChildren<QToolButton*>())
            if (button->menu() && button->text() == u"Figure"_s) {
                button->menu()->popup(button->mapToGlobal(QPoint(0, button->height())));
                return;
            }
        return;
    }
    QString why;
    if (auto subject = figureSubject(&why))
        m_export->exportFigureDialog(*subject, drive);
    else
        reportError(u"No figure to export"_s, why);
}

QString MainWindow::copyCliCommand() {
    const Session& s = m_model->session();
    const bool attention = s.what == RenderWhat::Attention;
    const QString command = QString::fromStdString(
        cliCommand(s, attention ? "attention" : "bias", attention ? "attention.npy" : "bias.npy"));
    QApplication::clipboard()->setText(command);
    statusBar()->showMessage(u"Copied: "_s + command, 8000);
    return command;
}

void MainWindow::takeScreenshots(const QString& dir, std::function<void(bool)> done) {
    m_screenshotMode = true;
    runScreenshots(*this, dir, std::move(done));
}

}  // namespace alibi::qt
