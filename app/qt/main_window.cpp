// Main window: wiring between the model, the views, the menus and the settings.
#include "main_window.hpp"

#include "compare_view.hpp"
#include "curves_view.hpp"
#include "diagnose_view.hpp"
#include "extrapolation_view.hpp"
#include "head_detail_view.hpp"
#include "head_grid_view.hpp"
#include "parameters_panel.hpp"
#include "stages_view.hpp"
#include "view_util.hpp"

#include <alibi/io/output_file.hpp>
#include <alibi/render/plot.hpp>
#include <alibi/base/thread_priority.hpp>

#include <QActionGroup>
#include <QApplication>
#include <QClipboard>
#include <QCloseEvent>
#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QFutureWatcher>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPainter>
#include <QProgressDialog>
#include <QPushButton>
#include <QScrollArea>
#include <QSettings>
#include <QSpinBox>
#include <QStatusBar>
#include <QStyle>
#include <QStyleFactory>
#include <QTabWidget>
#include <QUrl>
#include <QtConcurrent/QtConcurrentRun>

#include <cstdio>

namespace alibi::qt {

namespace {

constexpr int kMaxRecent = 8;

QString whatIsAlibi() {
    return "<h3>What is ALiBi?</h3>"
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
           "click a head to read its matrix cell by cell.</p>";
}

struct ExportProgress {
    std::atomic<std::uint64_t> done{0}, total{0};
};

}  // namespace

void applyTheme(Theme theme) {
    QApplication::setStyle(QStyleFactory::create("Fusion"));
    QPalette p = QApplication::style()->standardPalette();
    if (theme == Theme::Dark) {
        const QColor window(37, 39, 46), base(27, 29, 35), text(225, 227, 232), mid(70, 73, 82);
        p.setColor(QPalette::Window, window);
        p.setColor(QPalette::WindowText, text);
        p.setColor(QPalette::Base, base);
        p.setColor(QPalette::AlternateBase, QColor(34, 36, 43));
        p.setColor(QPalette::ToolTipBase, QColor(50, 52, 60));
        p.setColor(QPalette::ToolTipText, text);
        p.setColor(QPalette::Text, text);
        p.setColor(QPalette::Button, QColor(48, 50, 58));
        p.setColor(QPalette::ButtonText, text);
        p.setColor(QPalette::BrightText, Qt::white);
        p.setColor(QPalette::Highlight, QColor(88, 166, 255));
        p.setColor(QPalette::HighlightedText, QColor(10, 10, 10));
        p.setColor(QPalette::PlaceholderText, QColor(150, 153, 162));
        p.setColor(QPalette::Mid, mid);
        p.setColor(QPalette::Light, QColor(80, 83, 92));
        p.setColor(QPalette::Dark, QColor(20, 21, 26));
        p.setColor(QPalette::Disabled, QPalette::Text, QColor(110, 112, 120));
        p.setColor(QPalette::Disabled, QPalette::ButtonText, QColor(110, 112, 120));
        p.setColor(QPalette::Disabled, QPalette::WindowText, QColor(110, 112, 120));
    } else if (theme == Theme::Light) {
        p.setColor(QPalette::Window, QColor(246, 246, 248));
        p.setColor(QPalette::Base, Qt::white);
        p.setColor(QPalette::Highlight, QColor(30, 110, 220));
    }
    QApplication::setPalette(p);
}

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
    m_exportPool.setMaxThreadCount(1);
    setWindowTitle("ALiBi Explorer");
    setWindowIcon(QIcon(":/alibi-explorer.svg"));
    setAcceptDrops(true);
    resize(1400, 900);
    m_model = new SessionModel(this);

    QStringList problems;
    auto presets = loadPresets(presetFolders(), &problems);
    for (const QString& problem : problems) std::fprintf(stderr, "alibi-explorer: preset skipped: %s\n", qPrintable(problem));

    // Parameters dock, always visible (it can be undocked, not closed).
    m_parameters = new ParametersPanel(m_model, std::move(presets), this);
    auto* scroll = new QScrollArea(this);
    scroll->setWidget(m_parameters);
    scroll->setWidgetResizable(true);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    scroll->setMinimumWidth(m_parameters->sizeHint().width() + 24);
    auto* dock = new QDockWidget("Parameters", this);
    dock->setObjectName("parameters");
    dock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
    dock->setWidget(scroll);
    addDockWidget(Qt::LeftDockWidgetArea, dock);

    // The views.
    m_tabs = new QTabWidget(this);
    m_tabs->setDocumentMode(true);
    m_grid = new HeadGridView(this);
    m_detail = new HeadDetailView(this);
    auto* detailPage = new QWidget(this);
    {
        auto* bar = new QHBoxLayout;
        auto* head = new QSpinBox(detailPage);
        head->setObjectName("detailHead");
        auto* fit = new QPushButton("Fit", detailPage);
        bar->addWidget(new QLabel("Head", detailPage));
        bar->addWidget(head);
        bar->addWidget(fit);
        bar->addStretch(1);
        auto* col = new QVBoxLayout(detailPage);
        col->setContentsMargins(8, 8, 8, 0);
        col->addLayout(bar);
        col->addWidget(m_detail, 1);
        connect(fit, &QPushButton::clicked, m_detail, &HeadDetailView::resetView);
        connect(head, &QSpinBox::valueChanged, m_model, &SessionModel::setSelectedHead);
        connect(m_model, &SessionModel::resultReady, head, [head](const SnapshotPtr& s) {
            QSignalBlocker block(head);
            head->setRange(0, s->grid->session.attention.bias.slopes.heads - 1);
            head->setValue(s->head);
        });
    }
    m_curves = new CurvesView(this);
    m_stages = new StagesView(this);
    m_compare = new CompareView(this);
    m_extrapolation = new ExtrapolationView(this);
    m_diagnose = new DiagnoseView(this);
    m_tabs->addTab(m_grid, "Head grid");
    m_tabs->addTab(detailPage, "Head detail");
    m_tabs->addTab(m_curves, "Slopes && curves");
    m_tabs->addTab(m_stages, "Attention stages");
    m_tabs->addTab(m_compare, "Compare");
    m_tabs->addTab(m_extrapolation, "Extrapolation");
    m_tabs->addTab(m_diagnose, "Diagnose");
    setCentralWidget(m_tabs);

    m_hover = new QLabel(this);
    m_hover->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_latency = new QLabel(this);
    m_latency->setToolTip("Time from a parameter change to the updated head grid (last and median of recent changes)");
    statusBar()->addWidget(m_hover, 1);
    statusBar()->addPermanentWidget(m_latency);

    // Model -> views.
    connect(m_grid, &HeadGridView::pixelSizeChanged, m_model, &SessionModel::setGridPixels);
    connect(m_model, &SessionModel::gridReady, m_grid, &HeadGridView::setGrid);
    connect(m_model, &SessionModel::resultReady, this, [this](const SnapshotPtr& s) {
        QElapsedTimer spent;
        spent.start();
        m_grid->setSelectedHead(s->grid->session.head);
        m_detail->setSnapshot(s);
        m_curves->setSnapshot(s);
        m_stages->setSnapshot(s);
        m_compare->setSnapshot(s);
        m_extrapolation->setSnapshot(s);
        if (qEnvironmentVariableIsSet("ALIBI_LOG_LATENCY"))
            std::fprintf(stderr, "views updated in %lld ms (H = %d, T = %lld)\n", static_cast<long long>(spent.elapsed()),
                         s->grid->session.attention.bias.slopes.heads,
                         static_cast<long long>(s->grid->session.attention.bias.queries));
        if (!s->error.empty()) statusBar()->showMessage(QString::fromStdString(s->error), 8000);
    });
    connect(m_model, &SessionModel::computeFailed, this, [this](const QString& message) {
        m_lastError = message;
        statusBar()->showMessage(message, 10000);
        m_hover->setText("<span style='color:#e0433b'>" + message.toHtmlEscaped() + "</span>");
    });
    connect(m_model, &SessionModel::latencyMeasured, this, [this](double last, double median) {
        m_latency->setText(QString("grid %1 ms · median %2 ms").arg(last, 0, 'f', 1).arg(median, 0, 'f', 1));
        if (qEnvironmentVariableIsSet("ALIBI_LOG_LATENCY"))
            std::fprintf(stderr, "latency: last %.2f ms, median %.2f ms\n", last, median);
    });
    connect(m_model, &SessionModel::errorOccurred, this, [this](const QString& field, const QString& message) {
        m_lastError = message;
        if (field == "session") reportError("Invalid session", message);
    });
    connect(m_model, &SessionModel::sessionChanged, this, &MainWindow::scheduleSave);
    // Stale feedback: views keep their last picture, dimmed with "updating..." until the new one.
    connect(m_model, &SessionModel::sessionChanged, m_grid, &HeadGridView::markStale);
    connect(m_model, &SessionModel::sessionChanged, m_detail, &HeadDetailView::markStale);
    connect(m_model, &SessionModel::sessionChanged, m_stages, &StagesView::markStale);
    connect(m_model, &SessionModel::sessionChanged, m_compare, &CompareView::markStale);
    connect(m_model, &SessionModel::sessionChanged, m_extrapolation, &ExtrapolationView::markStale);
    connect(m_model, &SessionModel::computeProgress, m_grid, &HeadGridView::setProgress);
    connect(m_grid, &HeadGridView::logScaleToggled, m_model, &SessionModel::setLogScale);

    // Hover read-outs and linked highlighting.
    connect(m_grid, &HeadGridView::cellHovered, m_hover, &QLabel::setText);
    connect(m_detail, &HeadDetailView::cellHovered, m_hover, &QLabel::setText);
    connect(m_grid, &HeadGridView::headHovered, m_curves, &CurvesView::setHighlightedHead);
    connect(m_curves, &CurvesView::headHovered, m_grid, &HeadGridView::setHighlightedHead);
    connect(m_grid, &HeadGridView::headClicked, this, [this](int head) {
        m_model->setSelectedHead(head);
        m_tabs->setCurrentIndex(DetailTab);
    });
    connect(m_stages, &StagesView::headChosen, m_model, &SessionModel::setSelectedHead);
    connect(m_extrapolation, &ExtrapolationView::headChosen, m_model, &SessionModel::setSelectedHead);
    connect(m_extrapolation, &ExtrapolationView::trainLengthChanged, m_model, &SessionModel::setTrainLength);
    connect(m_compare, &CompareView::specChanged, m_model, &SessionModel::setCompareSpec);
    connect(m_diagnose, &DiagnoseView::openRequested, this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, "Open tensor to diagnose", {},
                                                          "Tensors (*.npy *.safetensors);;All files (*)");
        if (!path.isEmpty()) diagnoseFile(path);
    });
    connect(m_diagnose, &DiagnoseView::failed, this, [this](const QString& message) {
        reportError("Cannot diagnose", message);
    });
    connect(m_tabs, &QTabWidget::currentChanged, this, &MainWindow::onTabChanged);

    m_saveTimer.setSingleShot(true);
    m_saveTimer.setInterval(400);
    connect(&m_saveTimer, &QTimer::timeout, this, &MainWindow::saveToSettings);

    buildMenus();
    QSettings settings;
    if (settings.contains("geometry")) restoreGeometry(settings.value("geometry").toByteArray());
    if (settings.contains("windowState")) restoreState(settings.value("windowState").toByteArray());
    m_theme = static_cast<Theme>(std::clamp(settings.value("theme", 0).toInt(), 0, 2));
}

MainWindow::~MainWindow() = default;

// ---------------------------------------------------------------------------
// Menus

void MainWindow::buildMenus() {
    QMenu* file = menuBar()->addMenu("&File");
    file->addAction("&Open session…", QKeySequence::Open, this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, "Open session", {},
                                                          "ALiBi sessions (*.alibi.json *.json);;All files (*)");
        if (!path.isEmpty()) openSession(path);
    });
    file->addAction("&Save session", QKeySequence::Save, this, [this] {
        if (m_currentFile.isEmpty()) {
            const QString path = QFileDialog::getSaveFileName(this, "Save session", "session.alibi.json",
                                                              "ALiBi sessions (*.alibi.json)");
            if (!path.isEmpty()) saveSessionTo(path);
        } else {
            saveSessionTo(m_currentFile);
        }
    });
    file->addAction("Save session &as…", QKeySequence("Ctrl+Shift+S"), this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, "Save session as", m_currentFile.isEmpty() ? "session.alibi.json" : m_currentFile,
                                                          "ALiBi sessions (*.alibi.json)");
        if (!path.isEmpty()) saveSessionTo(path);
    });
    m_recentMenu = file->addMenu("&Recent files");
    rebuildRecentMenu();
    file->addSeparator();
    file->addAction("Open tensor to &diagnose…", QKeySequence("Ctrl+D"), this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, "Open tensor to diagnose", {},
                                                          "Tensors (*.npy *.safetensors);;All files (*)");
        if (!path.isEmpty()) diagnoseFile(path);
    });
    file->addAction("&Export tensor…", QKeySequence("Ctrl+E"), this, &MainWindow::exportTensorDialog);
    file->addAction("Export view as &PNG…", QKeySequence("Ctrl+Shift+P"), this, &MainWindow::exportViewDialog);
    file->addAction("Export curves as S&VG…", QKeySequence("Ctrl+Shift+G"), this, &MainWindow::exportCurvesDialog);
    file->addAction("&Copy as CLI command", QKeySequence("Ctrl+Shift+C"), this, [this] { copyCliCommand(); });
    file->addSeparator();
    file->addAction("&Quit", QKeySequence::Quit, this, &QWidget::close);

    QMenu* view = menuBar()->addMenu("&View");
    for (int t = 0; t < TabCount; ++t) {
        const QString name = m_tabs->tabText(t).replace("&&", "&");
        view->addAction(name, QKeySequence(QString("Ctrl+%1").arg(t + 1)), this, [this, t] { m_tabs->setCurrentIndex(t); });
    }
    view->addSeparator();
    QMenu* theme = view->addMenu("&Theme");
    auto* group = new QActionGroup(this);
    const std::pair<const char*, Theme> themes[] = {{"&System", Theme::System}, {"&Light", Theme::Light}, {"&Dark", Theme::Dark}};
    int key = 0;
    for (const auto& [name, value] : themes) {
        QAction* a = theme->addAction(name, QKeySequence(QString("Ctrl+Alt+%1").arg(++key)), this, [this, value] { setTheme(value); });
        a->setCheckable(true);
        a->setChecked(value == static_cast<Theme>(QSettings().value("theme", 0).toInt()));
        group->addAction(a);
    }
    view->addAction("&Reset view", QKeySequence("Ctrl+0"), this, [this] {
        m_detail->resetView();
        m_model->setSelectedHead(-1);
        m_grid->setHighlightedHead(-1);
    });

    QMenu* help = menuBar()->addMenu("&Help");
    help->addAction("&What is ALiBi?", QKeySequence::HelpContents, this, [this] {
        QMessageBox box(this);
        box.setWindowTitle("What is ALiBi?");
        box.setTextFormat(Qt::RichText);
        box.setText(whatIsAlibi());
        box.exec();
    });
    help->addAction("&About ALiBi Explorer", QKeySequence("Ctrl+Shift+A"), this, [this] {
        QMessageBox::about(this, "About ALiBi Explorer",
                           "<h3>ALiBi Explorer</h3><p>See, compare and check Attention with Linear Biases: slopes, "
                           "bias tensors, attention, statistics, exports and diagnosis of your own tensors.</p>"
                           "<p>Every number comes from the same core library as the <tt>alibi</tt> command line.</p>");
    });
}

void MainWindow::reportError(const QString& title, const QString& message) {
    m_lastError = message;
    statusBar()->showMessage(title + ": " + message, 10000);
    if (m_interactive && !m_screenshotMode) QMessageBox::warning(this, title, message);
}

// ---------------------------------------------------------------------------
// Sessions and settings

bool MainWindow::openSession(const QString& path) {
    auto session = loadSession(path.toStdString());
    if (!session) {
        reportError("Cannot open session", QString::fromStdString(session.error().message));
        return false;
    }
    if (!m_model->setSession(*session)) return false;
    m_extrapolation->setTrainLength(session->trainLength);
    setCurrentFile(path);
    addRecent(path);
    return true;
}

bool MainWindow::saveSessionTo(const QString& path) {
    if (auto ok = saveSession(m_model->session(), path.toStdString()); !ok) {
        reportError("Cannot save session", QString::fromStdString(ok.error().message));
        return false;
    }
    setCurrentFile(path);
    addRecent(path);
    statusBar()->showMessage("Saved " + path, 4000);
    return true;
}

void MainWindow::restoreLastSession() {
    const QString text = QSettings().value("session").toString();
    if (text.isEmpty()) return;
    auto session = parseSession(text.toStdString());
    if (session && validateSession(*session)) {
        m_model->setSession(*session);
        m_extrapolation->setTrainLength(session->trainLength);
    }
}

void MainWindow::setCurrentFile(const QString& path) {
    m_currentFile = path;
    setWindowTitle(path.isEmpty() ? "ALiBi Explorer" : QFileInfo(path).fileName() + " — ALiBi Explorer");
}

void MainWindow::addRecent(const QString& path) {
    QSettings settings;
    QStringList recent = settings.value("recentFiles").toStringList();
    const QString absolute = QFileInfo(path).absoluteFilePath();
    recent.removeAll(absolute);
    recent.prepend(absolute);
    while (recent.size() > kMaxRecent) recent.removeLast();
    settings.setValue("recentFiles", recent);
    rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu() {
    if (!m_recentMenu) return;
    m_recentMenu->clear();
    const QStringList recent = QSettings().value("recentFiles").toStringList();
    int n = 0;
    for (const QString& path : recent) {
        ++n;
        m_recentMenu->addAction(QString("&%1 %2").arg(n).arg(QFileInfo(path).fileName()),
                                QKeySequence(QString("Alt+Shift+%1").arg(n)), this, [this, path] {
                                    if (path.endsWith(".npy") || path.endsWith(".safetensors")) diagnoseFile(path);
                                    else openSession(path);
                                });
    }
    m_recentMenu->setEnabled(!recent.isEmpty());
}

void MainWindow::scheduleSave() { m_saveTimer.start(); }

void MainWindow::saveToSettings() {
    QSettings settings;
    settings.setValue("session", QString::fromStdString(serializeSession(m_model->session())));
}

void MainWindow::setTheme(Theme theme) {
    m_theme = theme;
    QSettings().setValue("theme", static_cast<int>(theme));
    applyTheme(theme);
}

void MainWindow::closeEvent(QCloseEvent* event) {
    m_saveTimer.stop();
    saveToSettings();
    QSettings settings;
    settings.setValue("geometry", saveGeometry());
    settings.setValue("windowState", saveState());
    if (m_exporting) m_exportCancel = true;
    QMainWindow::closeEvent(event);
}

void MainWindow::onTabChanged(int index) {
    if (m_screenshotMode) return;
    m_model->setCompareEnabled(index == CompareTab);
    m_model->setExtrapolationEnabled(index == ExtrapolationTab);
    if (index == CompareTab) m_model->setCompareSpec(m_compare->spec());
}

QString MainWindow::hoverText() const { return m_hover->text(); }
QString MainWindow::latencyText() const { return m_latency->text(); }

// ---------------------------------------------------------------------------
// Diagnose, drag and drop

void MainWindow::diagnoseFile(const QString& path) {
    m_tabs->setCurrentIndex(DiagnoseTab);
    m_diagnose->openFile(path);
    addRecent(path);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
    if (!event->mimeData()->hasUrls()) return;
    for (const QUrl& url : event->mimeData()->urls()) {
        const QString path = url.toLocalFile();
        if (path.endsWith(".npy") || path.endsWith(".safetensors") || path.endsWith(".json")) {
            event->acceptProposedAction();
            return;
        }
    }
}

void MainWindow::dropEvent(QDropEvent* event) {
    for (const QUrl& url : event->mimeData()->urls()) {
        const QString path = url.toLocalFile();
        if (path.endsWith(".json")) openSession(path);
        else if (!path.isEmpty()) diagnoseFile(path);
        event->acceptProposedAction();
        return;
    }
}

// ---------------------------------------------------------------------------
// Export

Result<void> MainWindow::exportTensorTo(const QString& path, ExportWhat what, FileFormat format,
                                        const ProgressFn& observer) {
    if (m_exporting) return fail(ErrorCode::InvalidArgument, "an export is already running; wait for it or cancel it");
    m_exporting = true;
    m_exportCancel = false;
    auto progress = std::make_shared<ExportProgress>();
    const Session session = m_model->session();
    const std::string target = path.toStdString();
    auto job = [this, progress, session, what, target, format, observer]() -> Result<void> {
        // The core reports errors as values; a stray exception (e.g. bad_alloc) must still end
        // as a message, not as a crash of the explorer.
        lowerThisThreadPriority(10);  // the export pool's thread; the UI comes first
        try {
            return exportSessionTensor(session, what, target, format, [&](std::uint64_t done, std::uint64_t total) {
                progress->done = done;
                progress->total = total;
                if (observer && !observer(done, total)) return false;
                return !m_exportCancel.load();
            });
        } catch (const std::bad_alloc&) {
            return fail(ErrorCode::TooLarge, "export ran out of memory; lower H or T, or export the bias instead of attention");
        } catch (const std::exception& e) {
            return fail(ErrorCode::Internal, std::string("export failed unexpectedly: ") + e.what());
        }
    };
    QFutureWatcher<Result<void>> watcher;
    QProgressDialog dialog(QString("Exporting to %1…").arg(QFileInfo(path).fileName()), "Cancel", 0, 1000, this);
    dialog.setWindowTitle("Export tensor");
    dialog.setWindowModality(Qt::WindowModal);
    dialog.setMinimumDuration(400);
    dialog.setAutoClose(false);
    dialog.setAutoReset(false);
    connect(&dialog, &QProgressDialog::canceled, this, [this] { m_exportCancel = true; });
    QTimer poll;
    poll.setInterval(50);
    connect(&poll, &QTimer::timeout, &dialog, [&dialog, progress] {
        const std::uint64_t total = progress->total.load();
        if (total > 0) dialog.setValue(static_cast<int>(1000.0 * static_cast<double>(progress->done.load()) / static_cast<double>(total)));
        dialog.setLabelText(QString("Exporting… %1 of %2")
                                .arg(QString::fromStdString(humanBytes(progress->done.load())))
                                .arg(QString::fromStdString(humanBytes(total))));
    });
    QEventLoop loop;
    connect(&watcher, &QFutureWatcher<Result<void>>::finished, &loop, &QEventLoop::quit);
    watcher.setFuture(QtConcurrent::run(&m_exportPool, job));
    poll.start();
    dialog.setValue(0);
    if (!watcher.isFinished()) loop.exec();
    poll.stop();
    Result<void> result = watcher.result();
    m_exporting = false;
    if (result) statusBar()->showMessage("Exported " + path, 5000);
    else if (result.error().code == ErrorCode::Cancelled) statusBar()->showMessage("Export cancelled; no file written", 5000);
    return result;
}

void MainWindow::exportTensorDialog() {
    QDialog dialog(this);
    dialog.setWindowTitle("Export tensor");
    auto* form = new QFormLayout(&dialog);
    auto* what = new QComboBox(&dialog);
    what->addItem("Bias", static_cast<int>(ExportWhat::Bias));
    what->addItem("Attention probabilities", static_cast<int>(ExportWhat::Attention));
    what->addItem("Slopes", static_cast<int>(ExportWhat::Slopes));
    auto* format = new QComboBox(&dialog);
    for (FileFormat f : {FileFormat::Npy, FileFormat::Safetensors, FileFormat::Csv, FileFormat::Json, FileFormat::Raw, FileFormat::Text})
        format->addItem(QString::fromUtf8(formatName(f).data()), static_cast<int>(f));
    const auto& b = m_model->session().attention.bias;
    auto* info = new QLabel(QString("Shape in layout %1, dtype %2. Large tensors are streamed; the file appears only "
                                    "when complete.")
                                .arg(QString::fromUtf8(layoutName(b.layout).data()), QString::fromUtf8(dtypeName(b.dtype).data())),
                            &dialog);
    info->setWordWrap(true);
    form->addRow("Export", what);
    form->addRow("Format", format);
    form->addRow(info);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, &dialog);
    form->addRow(buttons);
    connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    if (dialog.exec() != QDialog::Accepted) return;
    const auto f = static_cast<FileFormat>(format->currentData().toInt());
    const QString ext = f == FileFormat::Text ? "txt" : QString::fromUtf8(formatName(f).data());
    const QString base = what->currentIndex() == 0 ? "bias" : what->currentIndex() == 1 ? "attention" : "slopes";
    const QString path = QFileDialog::getSaveFileName(this, "Export tensor", base + "." + ext);
    if (path.isEmpty()) return;
    auto result = exportTensorTo(path, static_cast<ExportWhat>(what->currentData().toInt()), f);
    if (!result && result.error().code != ErrorCode::Cancelled)
        reportError("Export failed", QString::fromStdString(result.error().message));
}

bool MainWindow::exportViewPng(const QString& path, int scale) {
    QWidget* view = m_tabs->currentWidget();
    QImage image(view->size() * scale, QImage::Format_ARGB32_Premultiplied);
    image.setDevicePixelRatio(scale);
    image.fill(palette().color(QPalette::Window));
    {
        QPainter painter(&image);
        view->render(&painter);
    }
    if (!image.save(path, "PNG")) {
        reportError("Cannot export view", "could not write " + path + " (check the folder exists and is writable)");
        return false;
    }
    statusBar()->showMessage("Saved " + path, 4000);
    return true;
}

void MainWindow::exportViewDialog() {
    bool ok = false;
    const QString choice = QInputDialog::getItem(this, "Export view as PNG", "Scale", {"1x", "2x", "4x"}, 1, false, &ok);
    if (!ok) return;
    const QString path = QFileDialog::getSaveFileName(this, "Export view as PNG", "view.png", "PNG images (*.png)");
    if (!path.isEmpty()) exportViewPng(path, choice.left(1).toInt());
}

Result<void> MainWindow::exportCurvesSvg(const QString& path, int which) {
    const SnapshotPtr s = m_model->snapshot();
    if (!s) return fail(ErrorCode::InvalidArgument, "no curves computed yet");
    PlotStyle style;
    const std::vector<Series>* series = &s->slopeCurves;
    if (which == 0) {
        style.title = "ALiBi slopes per head";
        style.xLabel = "head";
        style.yLabel = "slope";
        style.logY2 = true;
    } else if (which == 1) {
        series = &s->biasCurves;
        style.title = "Bias vs distance";
        style.xLabel = "distance i - j";
        style.yLabel = "bias";
    } else {
        series = &s->attentionCurves;
        style.title = "Attention vs distance, query row " + std::to_string(s->queryRow);
        style.xLabel = "distance i - j";
        style.yLabel = "probability";
    }
    auto result = writeFileAtomic(path.toStdString(), plotSvg(*series, style));
    if (!result) reportError("Cannot export curves", QString::fromStdString(result.error().message));
    return result;
}

void MainWindow::exportCurvesDialog() {
    bool ok = false;
    const QStringList choices{"Slopes per head", "Bias vs distance", "Attention vs distance"};
    const QString choice = QInputDialog::getItem(this, "Export curves as SVG", "Curves", choices, 0, false, &ok);
    if (!ok) return;
    const QString path = QFileDialog::getSaveFileName(this, "Export curves as SVG", "curves.svg", "SVG (*.svg)");
    if (!path.isEmpty()) (void)exportCurvesSvg(path, static_cast<int>(choices.indexOf(choice)));
}

QString MainWindow::copyCliCommand() {
    const Session& s = m_model->session();
    const bool attention = s.what == RenderWhat::Attention;
    const QString command = QString::fromStdString(
        cliCommand(s, attention ? "attention" : "bias", attention ? "attention.npy" : "bias.npy"));
    QApplication::clipboard()->setText(command);
    statusBar()->showMessage("Copied: " + command, 8000);
    return command;
}

// ---------------------------------------------------------------------------
// Screenshots

void MainWindow::takeScreenshots(const QString& dir, std::function<void(bool)> done) {
    m_screenshotMode = true;
    m_model->setCompareEnabled(true);
    m_model->setExtrapolationEnabled(true);
    m_diagnose->openExample(kSlopeOffByOne);
    QDir().mkpath(dir);
    auto shoot = std::make_shared<std::function<void()>>();
    auto timer = std::make_shared<QElapsedTimer>();
    timer->start();
    *shoot = [this, dir, done, shoot, timer] {
        const SnapshotPtr s = m_model->snapshot();
        const bool ready = s && !m_model->pending() && s->compare && s->extrapolation && !m_diagnose->busy();
        if (!ready) {
            if (timer->elapsed() > 60000) {
                std::fprintf(stderr, "alibi-explorer: no results after 60 s, giving up on screenshots\n");
                done(false);
                return;
            }
            QTimer::singleShot(50, this, *shoot);
            return;
        }
        const char* names[TabCount] = {"1-head-grid", "2-head-detail", "3-curves", "4-stages", "5-compare", "6-extrapolation", "7-diagnose"};
        bool ok = true;
        for (int t = 0; t < TabCount; ++t) {
            m_tabs->setCurrentIndex(t);
            QApplication::processEvents();
            const QString file = QDir(dir).filePath(QString("%1.png").arg(names[t]));
            ok = grab().save(file, "PNG") && ok;
            std::fprintf(stdout, "screenshot: %s\n", qPrintable(file));
        }
        m_tabs->setCurrentIndex(GridTab);
        std::fprintf(stdout, "latency: change -> grid median %.2f ms (first render included)\n", m_model->latencyMedianMs());
        done(ok);
    };
    QTimer::singleShot(200, this, *shoot);
}

}  // namespace alibi::qt
