// The main window's menus (File, Edit, View, Help) and their actions, and the views' right-click
// figure menu.
#include "main_window.hpp"

#include "export_controller.hpp"
#include "head_detail_view.hpp"
#include "head_grid_view.hpp"
#include "lesson_panel.hpp"
#include "recent_files.hpp"

#include <alibi/base/data_dir.hpp>
#include <alibi/model/attention.hpp>

#include <QActionGroup>
#include <QDir>
#include <QFileDialog>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QScrollArea>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>

using namespace Qt::Literals::StringLiterals;

namespace alibi::qt {

namespace {

QString whatIsAlibi() {
    return u"<h3>What is ALiBi?</h3>"
           "<p><b>Attention with Linear Biases</b> (Press, Smith, Lewis, <i>Train Short, Test Long</i>, ICLR 2022) "
           "replaces position embeddings with a fixed penalty added to each attention logit:</p>"
           "<p style='margin-left:16px'>score(h, i, j) = q<sub>i</sub>·k<sub>j</sub> / √d<sub>k</sub> "
           "&minus; m<sub>h</sub> · (i &minus; j)</p>"
           "<p>The further key j lies behind query i, the lower its score. Each head h has its own slope "
           "m<sub>h</sub>: with 8 heads they are 1/2, 1/4, …, 1/256. Steep heads look only at nearby tokens; "
           "flat heads look far back. Because the penalty keeps growing with distance, a model trained on "
           "short inputs still behaves sensibly on longer ones.</p>"
           "<p>The <b>head grid</b> shows this bias for every head: bright on the diagonal (distance 0), darker "
           "with distance, grey where future keys are masked. Hover a cell to see the formula with its numbers; "
           "click a head to read its matrix cell by cell.</p>"
           "<p><b>Help &gt; Lessons</b> (Ctrl+L) walks through ALiBi step by step; Page Down / Page Up "
           "step through a lesson.</p>"_s;
}

}  // namespace

void MainWindow::buildMenus() {
    buildFileMenu();
    addFigureContextMenus();
    buildEditMenu();
    buildViewMenu();
    buildHelpMenu();
}

void MainWindow::buildFileMenu() {
    QMenu* file = menuBar()->addMenu(u"&File"_s);
    file->addAction(u"&Open session…"_s, QKeySequence::Open, this, [this] {
        if (!confirmDiscard()) return;
        const QString path = QFileDialog::getOpenFileName(this, u"Open session"_s, exampleSessionFolder(),
                                                          u"ALiBi sessions (*.alibi.json *.json);;All files (*)"_s);
        if (!path.isEmpty()) startOpenSession(path);
    });
    file->addAction(u"&Save session"_s, QKeySequence::Save, this, [this] {
        if (m_currentFile.isEmpty()) {
            const QString path = QFileDialog::getSaveFileName(this, u"Save session"_s, u"session.alibi.json"_s,
                                                              u"ALiBi sessions (*.alibi.json)"_s);
            if (!path.isEmpty()) saveSessionTo(path);
        } else {
            saveSessionTo(m_currentFile);
        }
    });
    file->addAction(u"Save session &as…"_s, QKeySequence(u"Ctrl+Shift+S"_s), this, [this] {
        const QString path = QFileDialog::getSaveFileName(
            this, u"Save session as"_s, m_currentFile.isEmpty() ? u"session.alibi.json"_s : m_currentFile,
            u"ALiBi sessions (*.alibi.json)"_s);
        if (!path.isEmpty()) saveSessionTo(path);
    });
    m_recent->setMenu(file->addMenu(u"&Recent files"_s));
    file->addSeparator();
    file->addAction(u"Open tensor to &diagnose…"_s, QKeySequence(u"Ctrl+D"_s), this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, u"Open tensor to diagnose"_s, {},
                                                          u"Tensors (*.npy *.safetensors);;All files (*)"_s);
        if (!path.isEmpty()) diagnoseFile(path);
    });
    file->addAction(u"Open &attention maps…"_s, QKeySequence(u"Ctrl+Shift+O"_s), this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, u"Open attention maps"_s, {},
                                                          u"Attention maps (*.npy *.safetensors);;All files (*)"_s);
        if (!path.isEmpty()) openAttentionMaps(path);
    });
    file->addAction(u"Open &model…"_s, QKeySequence(u"Ctrl+Shift+M"_s), this, [this] {
        const QString folder = QFileDialog::getExistingDirectory(
            this, u"Open model (a Hugging Face folder with config.json, *.safetensors, tokenizer.json)"_s);
        if (!folder.isEmpty()) openModel(folder);
    });
    file->addAction(u"&Export tensor…"_s, QKeySequence(u"Ctrl+E"_s), this, [this] { exportTensorDialog(); });
    file->addAction(u"Export &figure…"_s, QKeySequence(u"Ctrl+Shift+P"_s), this, [this] { exportFigureDialog(); });
    file->addAction(u"Export &window as PNG…"_s, this, [this] { m_export->exportWindowDialog(this); });
    file->addAction(u"&Copy as CLI command"_s, QKeySequence(u"Ctrl+Shift+C"_s), this, [this] { copyCliCommand(); });
    file->addSeparator();
    file->addAction(u"&Quit"_s, QKeySequence::Quit, this, &QWidget::close);
}

// A right click on a view offers its figure too (the Attention maps tab has its own menu).
void MainWindow::addFigureContextMenus() {
    for (int t = 0; t < TabCount; ++t) {
        if (t == AttentionTab || t == ModelTab) continue;
        QWidget* page = m_tabs->widget(t);
        if (auto* area = qobject_cast<QScrollArea*>(page)) page = area->widget();
        page->setContextMenuPolicy(Qt::CustomContextMenu);
        connect(page, &QWidget::customContextMenuRequested, this, [this, page](const QPoint& pos) {
            QMenu menu(this);
            menu.addAction(u"Export &figure…"_s, this, [this] { exportFigureDialog(); });
            menu.addAction(u"Export &window as PNG…"_s, this, [this] { m_export->exportWindowDialog(this); });
            menu.exec(page->mapToGlobal(pos));
        });
    }
}

void MainWindow::buildEditMenu() {
    QMenu* edit = menuBar()->addMenu(u"&Edit"_s);
    QAction* undo = edit->addAction(u"&Undo"_s, QKeySequence::Undo, m_model, [this] { m_model->undo(); });
    QAction* redo = edit->addAction(u"&Redo"_s, QKeySequence(u"Ctrl+Shift+Z"_s), m_model, [this] { m_model->redo(); });
    redo->setShortcuts({QKeySequence(u"Ctrl+Shift+Z"_s), QKeySequence(u"Ctrl+Y"_s)});
    edit->addSeparator();
    edit->addAction(u"Reset to &defaults"_s, QKeySequence(u"Ctrl+Shift+R"_s), this, [this] {
        m_model->setSession(defaultSession());
        statusBar()->showMessage(u"Parameters reset to the defaults (Ctrl+Z brings them back)"_s, 6000);
    });
    const auto history = [this, undo, redo] {
        undo->setEnabled(m_model->canUndo());
        redo->setEnabled(m_model->canRedo());
    };
    connect(m_model, &SessionModel::historyChanged, this, history);
    history();
}

void MainWindow::buildViewMenu() {
    QMenu* view = menuBar()->addMenu(u"&View"_s);
    for (int t = 0; t < TabCount; ++t) {
        const QString name = tabName(t, false);  // "&&" stays escaped: no stray mnemonic
        view->addAction(name, t < 9 ? QKeySequence(u"Ctrl+%1"_s.arg(t + 1)) : QKeySequence(), this,
                        [this, t] { m_tabs->setCurrentIndex(t); });
    }
    view->addSeparator();
    QMenu* theme = view->addMenu(u"&Theme"_s);
    auto* group = new QActionGroup(this);
    const std::pair<QString, Theme> themes[] = {
        {u"&System"_s, Theme::System}, {u"&Light"_s, Theme::Light}, {u"&Dark"_s, Theme::Dark}};
    int key = 0;
    for (const auto& [name, value] : themes) {
        QAction* a =
            theme->addAction(name, QKeySequence(u"Ctrl+Alt+%1"_s.arg(++key)), this, [this, value] { setTheme(value); });
        a->setCheckable(true);
        a->setChecked(value == static_cast<Theme>(QSettings().value(u"theme"_s, 0).toInt()));
        group->addAction(a);
    }
    view->addSeparator();
    view->addAction(u"Zoom &in"_s, QKeySequence(u"Ctrl+="_s), this, [this] { setZoom(m_zoom * 1.15); })
        ->setShortcuts({QKeySequence(u"Ctrl+="_s), QKeySequence(u"Ctrl++"_s)});
    view->addAction(u"Zoom &out"_s, QKeySequence(u"Ctrl+-"_s), this, [this] { setZoom(m_zoom / 1.15); });
    view->addAction(u"Reset &zoom"_s, QKeySequence(u"Ctrl+0"_s), this, [this] { setZoom(1); });
    QAction* presentation =
        view->addAction(u"&Presentation (large fonts, thick lines)"_s, QKeySequence(u"Ctrl+Shift+F5"_s));
    presentation->setCheckable(true);
    m_presentationAction = presentation;
    connect(presentation, &QAction::toggled, this, &MainWindow::setPresentation);
    view->addAction(u"&Full screen"_s, QKeySequence(Qt::Key_F11), this,
                    [this] { setWindowState(windowState() ^ Qt::WindowFullScreen); });
    view->addSeparator();
    view->addAction(u"&Deselect head"_s, QKeySequence(Qt::Key_Escape), this, [this] {
        m_detail->resetView();
        m_model->setSelectedHead(-1);
        m_grid->setHighlightedHead(-1);
    });
}

void MainWindow::buildHelpMenu() {
    QMenu* help = menuBar()->addMenu(u"&Help"_s);
    help->addAction(u"&Lessons…"_s, QKeySequence(u"Ctrl+L"_s), m_lessons, &LessonPanel::chooseLesson);
    help->addAction(u"&What is ALiBi?"_s, QKeySequence::HelpContents, this, [this] {
        QMessageBox box(this);
        box.setWindowTitle(u"What is ALiBi?"_s);
        box.setTextFormat(Qt::RichText);
        box.setText(whatIsAlibi());
        box.exec();
    });
    QMenu* examples = help->addMenu(u"Example &attention maps"_s);
    if (const auto folder = findDataDir("attention")) {
        QStringList files = QDir(QString::fromStdString(folder->string()))
                                .entryList({u"*.npy"_s, u"*.safetensors"_s}, QDir::Files, QDir::Name);
        for (const QString& name : files) {
            const QString path = QDir(QString::fromStdString(folder->string())).filePath(name);
            examples->addAction(name, this, [this, path] { openAttentionMaps(path); });
        }
    }
    if (examples->isEmpty())
        examples->addAction(u"(no examples found: share/alibi-explorer/attention)"_s)->setEnabled(false);
    QAction* example = help->addAction(u"Example &model (license-bloom-tiny)"_s, this, &MainWindow::openExampleModel);
    if (exampleModelPath().isEmpty()) {
        example->setText(u"Example model (not found: share/alibi-explorer/models)"_s);
        example->setEnabled(false);
    }
    help->addAction(u"&About ALiBi Explorer"_s, QKeySequence(u"Ctrl+Shift+A"_s), this, [this] {
        QMessageBox::about(this, u"About ALiBi Explorer"_s,
                           u"<h3>ALiBi Explorer</h3><p>See, compare and check Attention with Linear Biases: slopes, "
                           "bias tensors, attention, statistics, exports and diagnosis of your own tensors.</p>"
                           "<p>Every number comes from the same core library as the <tt>alibi</tt> command line.</p>"
                           "<p>Attention kernels: "_s +
                               QString::fromStdString(attentionKernelDescription()).toHtmlEscaped() + u"</p>"_s);
    });
}

}  // namespace alibi::qt
