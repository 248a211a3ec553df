// Main window: wiring between the model, the views, the menus and the settings.
#include "main_window.hpp"

#include "attention_maps_page.hpp"
#include "compare_view.hpp"
#include "curves_view.hpp"
#include "diagnose_view.hpp"
#include "export_controller.hpp"
#include "extrapolation_view.hpp"
#include "head_detail_view.hpp"
#include "head_grid_view.hpp"
#include "lesson_panel.hpp"
#include "live_model_view.hpp"
#include "parameters_panel.hpp"
#include "position_schemes_view.hpp"
#include "recent_files.hpp"
#include "screenshot_driver.hpp"
#include "stages_view.hpp"
#include "view_util.hpp"

#include <alibi/analysis/corrected_session.hpp>
#include <alibi/base/data_dir.hpp>
#include <alibi/explore/line_breaks.hpp>
#include <alibi/explore/view_titles.hpp>
#include <alibi/io/attention_maps.hpp>
#include <alibi/model/attention.hpp>

#include <QActionGroup>
#include <QApplication>
#include <QClipboard>
#include <QCloseEvent>
#include <QComboBox>
#include <QCryptographicHash>
#include <QCursor>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QScreen>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QSpinBox>
#include <QStatusBar>
#include <QStyle>
#include <QStyleFactory>
#include <QTabBar>
#include <QTabWidget>
#include <QToolButton>
#include <QUrl>

#include <array>
#include <cstdio>

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

// The model's session: parameters and Compare's B (an undoable, saved choice), not the open tab.
Session parametersOnly(Session s) {
    s.view.reset();
    s.compare = sessionCompare(compareSpecOf(s.compare));
    return s;
}

}  // namespace

void applyTheme(Theme theme) {
    QApplication::setStyle(QStyleFactory::create(u"Fusion"_s));
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
    setWindowTitle(u"untitled[*] — ALiBi Explorer"_s);
    setWindowIcon(QIcon(u":/alibi-explorer.svg"_s));
    setAcceptDrops(true);
    // The first window fits the screen's available area (a 1280x720 projector included).
    const QRect available = QGuiApplication::primaryScreen() ? QGuiApplication::primaryScreen()->availableGeometry()
                                                             : QRect(0, 0, 1400, 900);
    resize(std::min(1400, available.width() - 16), std::min(900, available.height() - 40));
    m_baseFontPt = QApplication::font().pointSizeF();
    m_model = new SessionModel(this);
    m_export = new ExportController(m_model, this);
    connect(m_export, &ExportController::statusMessage, statusBar(), &QStatusBar::showMessage);
    connect(m_export, &ExportController::failed, this, &MainWindow::reportError);
    m_recent = new RecentFiles(
        [this](const QString& path) {
            if (path.endsWith(u".npy"_s) || path.endsWith(u".safetensors"_s))
                diagnoseFile(path);
            else if (confirmDiscard())
                startOpenSession(path);
        },
        this);

    QStringList problems;
    auto presets = loadPresets(presetFolders(), &problems);
    for (const QString& problem : problems)
        std::fprintf(stderr, "alibi-explorer: preset skipped: %s\n", qPrintable(problem));

    // Parameters dock, always visible (it can be undocked, not closed).
    const std::vector<Preset> priorPresets = presets;  // the Attention maps tab pairs maps with them
    m_parameters = new ParametersPanel(m_model, std::move(presets), this);
    auto* scroll = new QScrollArea(this);
    scroll->setWidget(m_parameters);
    scroll->setWidgetResizable(true);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_parametersScroll = scroll;
    auto* dock = new QDockWidget(u"Parameters"_s, this);
    m_parametersDock = dock;
    dock->setObjectName(u"parameters"_s);
    dock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
    dock->setWidget(scroll);
    addDockWidget(Qt::LeftDockWidgetArea, dock);
    fitParametersDock();

    // The views.
    m_tabs = new QTabWidget(this);
    m_tabs->setDocumentMode(true);
    m_grid = new HeadGridView(this);
    m_detail = new HeadDetailView(this);
    auto* detailPage = new QWidget(this);
    {
        // The Head and Fit controls: a row above the detail, or (presentation mode) on the
        // detail's title line, so the cells get the row's height (setPresentation).
        m_detailBar = new QWidget(detailPage);
        auto* bar = new QHBoxLayout(m_detailBar);
        bar->setContentsMargins(0, 0, 0, 0);
        auto* head = new QSpinBox(m_detailBar);
        head->setObjectName(u"detailHead"_s);
        auto* fit = new QPushButton(u"Fit"_s, m_detailBar);
        bar->addWidget(new QLabel(u"Head"_s, m_detailBar));
        bar->addWidget(head);
        bar->addWidget(fit);
        bar->addStretch(1);
        auto* col = new QVBoxLayout(detailPage);
        m_detailPageLayout = col;
        col->setContentsMargins(8, 8, 8, 0);
        col->addWidget(m_detailBar);
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
    m_positionSchemes = new PositionSchemesView(this);
    m_attention = new AttentionMapsPage(this);
    m_attention->setPriorSources([this] { return m_model->session().attention.bias.slopes; }, priorPresets);
    m_tabs->addTab(m_grid, tabName(GridTab, false));
    m_tabs->addTab(detailPage, tabName(DetailTab, false));
    m_tabs->addTab(m_curves, tabName(CurvesTab, false));
    // Views with controls side by side scroll inside their tab on a small screen instead of
    // widening the window past it (1280x720 projectors).
    const auto scrolling = [this](QWidget* page) {
        auto* area = new QScrollArea(this);
        area->setWidget(page);
        area->setWidgetResizable(true);
        area->setFrameShape(QFrame::NoFrame);
        return area;
    };
    m_tabs->addTab(scrolling(m_stages), tabName(StagesTab, false));
    m_tabs->addTab(scrolling(m_compare), tabName(CompareTab, false));
    m_tabs->addTab(scrolling(m_extrapolation), tabName(ExtrapolationTab, false));
    m_tabs->addTab(scrolling(m_diagnose), tabName(DiagnoseTab, false));
    m_tabs->addTab(m_positionSchemes, tabName(PositionSchemesTab, false));
    // The attention maps' controls ask for 950-1210 px at 175 %: they scroll too, so a
    // presentation on a 1280x720 projector never widens the window past the screen.
    m_tabs->addTab(scrolling(m_attention), tabName(AttentionTab, false));
    m_live = new LiveModelView(m_model, this);
    m_tabs->addTab(scrolling(m_live), tabName(ModelTab, false));
    // Every tab whole at any width and font (1280x720 presentation cut "Compare" to "Co" behind
    // scroll arrows): the short names, then a smaller font, when the names do not fit.
    QStringList shortNames;
    for (int t = 0; t < TabCount; ++t) shortNames << tabName(t, true);
    fitTabs(m_tabs, shortNames);
    setCentralWidget(m_tabs);

    m_hover = new QLabel(this);
    m_hover->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // A hovered attention-map cell reads layer, head, tokens, the file's value and the prior's:
    // longer than a 1280 px status bar. It wraps rather than being cut (fitHoverReadout).
    m_hover->setWordWrap(true);
    m_latency = new QLabel(this);
    m_latency->setToolTip(
        u"Time from a parameter change to the updated head grid (last and median of recent changes)"_s);
    statusBar()->addWidget(m_hover, 1);
    m_hover->installEventFilter(this);
    fitHoverReadout();
    // An attention-map file being read (opened, or a dropped file being classified), from any
    // tab: the core's progress and a Cancel (issue 25, item 3).
    m_openProgress = new QProgressBar(this);
    m_openProgress->setRange(0, 1000);
    m_openProgress->setMaximumWidth(120);
    m_openProgress->setFormat(u"%p %"_s);
    m_openProgress->setObjectName(u"openProgress"_s);
    m_openCancel = new QToolButton(this);
    m_openCancel->setText(u"Cancel"_s);
    m_openCancel->setObjectName(u"openCancel"_s);
    m_openCancel->setToolTip(u"Stop reading the file (whatever was open stays)"_s);
    statusBar()->addPermanentWidget(m_openProgress);
    statusBar()->addPermanentWidget(m_openCancel);
    m_openProgress->hide();
    m_openCancel->hide();
    // A session file being read (File > Open session, recent files, a drop, the command line):
    // the core's progress and a Cancel that keeps the parameters as they are.
    m_sessionProgress = new QProgressBar(this);
    m_sessionProgress->setRange(0, 1000);
    m_sessionProgress->setMaximumWidth(120);
    m_sessionProgress->setFormat(u"%p %"_s);
    m_sessionProgress->setObjectName(u"sessionProgress"_s);
    m_sessionCancel = new QToolButton(this);
    m_sessionCancel->setText(u"Cancel"_s);
    m_sessionCancel->setObjectName(u"sessionCancel"_s);
    m_sessionCancel->setToolTip(u"Stop reading the session file (the parameters stay as they are)"_s);
    statusBar()->addPermanentWidget(m_sessionProgress);
    statusBar()->addPermanentWidget(m_sessionCancel);
    m_sessionProgress->hide();
    m_sessionCancel->hide();
    connect(m_sessionCancel, &QToolButton::clicked, this, &MainWindow::cancelOpenSession);
    m_sessionRead = std::make_unique<BackgroundRead<SessionRead>>(
        this,
        [this](const ReadProgress& p) {
            m_sessionProgress->setValue(static_cast<int>(std::lround(p.fraction() * 1000)));
            m_sessionProgress->setToolTip(QFileInfo(m_sessionPath).fileName() + u": "_s +
                                          QString::fromStdString(p.text()));
        },
        [this](const SessionRead& read) { onSessionRead(read); });
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
        m_positionSchemes->setSnapshot(s);
        if (m_presentation) fitHoverReadout();  // the longest read-out follows H and T
        if (qEnvironmentVariableIsSet("ALIBI_LOG_LATENCY"))
            std::fprintf(stderr, "views updated in %lld ms (H = %d, T = %lld)\n",
                         static_cast<long long>(spent.elapsed()), s->grid->session.attention.bias.slopes.heads,
                         static_cast<long long>(s->grid->session.attention.bias.queries));
        if (!s->error.empty()) statusBar()->showMessage(shownError(s->error), 8000);
    });
    connect(m_model, &SessionModel::computeFailed, this, [this](const QString& message) {
        m_lastError = message;
        statusBar()->showMessage(message, 10000);
        m_hover->setText(u"<span style='color:#e0433b'>"_s + message.toHtmlEscaped() + u"</span>"_s);
        holdHoverReadout();
    });
    connect(m_model, &SessionModel::latencyMeasured, this, [this](double last, double median) {
        m_latency->setText(u"grid %1 ms · median %2 ms"_s.arg(last, 0, 'f', 1).arg(median, 0, 'f', 1));
        if (qEnvironmentVariableIsSet("ALIBI_LOG_LATENCY"))
            std::fprintf(stderr, "latency: last %.2f ms, median %.2f ms\n", last, median);
    });
    connect(m_model, &SessionModel::errorOccurred, this, [this](const QString& field, const QString& message) {
        m_lastError = message;
        if (field == u"session"_s) reportError(u"Invalid session"_s, message);
    });
    connect(m_model, &SessionModel::sessionChanged, this, &MainWindow::scheduleSave);
    connect(m_model, &SessionModel::adjusted, this,
            [this](const QString& note) { statusBar()->showMessage(note, 6000); });
    connect(m_model, &SessionModel::historyChanged, this, [this] { setWindowModified(m_model->modified()); });
    // Stale feedback: views keep their last picture, dimmed with "updating..." until the new one.
    connect(m_model, &SessionModel::sessionChanged, m_grid, &HeadGridView::markStale);
    connect(m_model, &SessionModel::sessionChanged, m_detail, &HeadDetailView::markStale);
    connect(m_model, &SessionModel::detailPreview, m_detail, &HeadDetailView::setPreview);
    connect(m_model, &SessionModel::sessionChanged, m_curves, &CurvesView::markStale);
    connect(m_model, &SessionModel::sessionChanged, m_stages, &StagesView::markStale);
    connect(m_model, &SessionModel::sessionChanged, m_compare, &CompareView::markStale);
    connect(m_model, &SessionModel::sessionChanged, m_extrapolation, &ExtrapolationView::markStale);
    connect(m_model, &SessionModel::computeProgress, m_grid, &HeadGridView::setProgress);
    // The details' progress on every view still marked stale (detail, curves, stages, ...).
    connect(m_model, &SessionModel::detailsProgress, this, [this](double fraction) {
        for (QWidget* w : findChildren<QWidget*>())
            if (auto* overlay = dynamic_cast<StaleOverlay*>(w)) overlay->setProgress(fraction);
    });
    connect(m_grid, &HeadGridView::logScaleToggled, m_model, &SessionModel::setLogScale);

    // Hover read-outs and linked highlighting.
    connect(m_grid, &HeadGridView::cellHovered, this, &MainWindow::showHoverReadout);
    connect(m_grid, &HeadGridView::cellHovered, this, &MainWindow::holdHoverReadout);
    connect(m_detail, &HeadDetailView::cellHovered, this, &MainWindow::showHoverReadout);
    connect(m_detail, &HeadDetailView::cellHovered, this, &MainWindow::holdHoverReadout);
    connect(m_attention, &AttentionMapsPage::cellHovered, this, &MainWindow::showHoverReadout);
    connect(m_attention, &AttentionMapsPage::cellHovered, this, &MainWindow::holdHoverReadout);
    // The presentation band is as tall as the open file's longest read-out (its layer names,
    // tokens, priors).
    for (const auto changed :
         {&AttentionMapsModel::opened, &AttentionMapsModel::configuredChanged, &AttentionMapsModel::fitted})
        connect(m_attention->model(), changed, this, [this] {
            if (m_presentation) fitHoverReadout();
        });
    connect(m_attention, &AttentionMapsPage::failed, this, &MainWindow::reportError);
    connect(m_attention, &AttentionMapsPage::statusMessage, statusBar(), &QStatusBar::showMessage);
    AttentionMapsModel* maps = m_attention->model();
    connect(m_openCancel, &QToolButton::clicked, maps, &AttentionMapsModel::cancelOpen);
    connect(maps, &AttentionMapsModel::openProgress, this, [this, maps](double f, const QString& stage) {
        m_openProgress->setValue(static_cast<int>(std::lround(f * 1000)));
        m_openProgress->setToolTip(QFileInfo(maps->openingPath()).fileName() + u": "_s + stage);
        m_openProgress->show();
        m_openCancel->show();
    });
    connect(maps, &AttentionMapsModel::opened, this, [this] { hideOpenProgress(); });
    connect(maps, &AttentionMapsModel::openFailed, this, [this] { hideOpenProgress(); });
    connect(maps, &AttentionMapsModel::openCancelled, this, [this](const QString& path) {
        hideOpenProgress();
        if (m_dropPending) {
            m_dropPending = false;
            statusBar()->showMessage(u"Reading "_s + QFileInfo(path).fileName() + u" cancelled"_s, 8000);
        }
    });
    connect(maps, &AttentionMapsModel::classified, this, &MainWindow::onDropClassified);
    connect(m_attention, &AttentionMapsPage::openRequested, this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, u"Open attention maps"_s, {},
                                                          u"Attention maps (*.npy *.safetensors);;All files (*)"_s);
        if (!path.isEmpty()) openAttentionMaps(path);
    });
    // A model run: its maps open in the Attention maps tab (shown there unless B differs: then
    // the Model tab's A vs B stays in view); refusals as the core words them.
    connect(m_model, &SessionModel::liveChanged, this, &MainWindow::scheduleSave);
    connect(m_live, &LiveModelView::runFinished, this, [this](const LiveRunPtr& run) {
        if (!run || !run->maps) return;
        m_attention->model()->adopt(run->maps, QString::fromStdString(run->mapsPath));
        if (!run->loss.b) {
            m_tabs->setCurrentIndex(AttentionTab);
            m_attention->views()->setCurrentIndex(AttentionMapsPage::HeadView);
        }
        statusBar()->showMessage(QString::fromStdString(lm::liveLossLine(*run)), 10000);
    });
    connect(m_live, &LiveModelView::failed, this, &MainWindow::reportError);
    connect(m_live, &LiveModelView::openModelRequested, this, [this] {
        const QString folder = QFileDialog::getExistingDirectory(
            this, u"Open model (a Hugging Face folder with config.json, *.safetensors, tokenizer.json)"_s);
        if (!folder.isEmpty()) openModel(folder);
    });
    connect(m_live, &LiveModelView::exampleRequested, this, &MainWindow::openExampleModel);
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
    connect(m_compare, &CompareView::pictureSizeChanged, m_model, &SessionModel::setComparePixels);
    connect(m_model, &SessionModel::compareSpecChanged, m_compare, &CompareView::setSpec);
    connect(m_diagnose, &DiagnoseView::openRequested, this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, u"Open tensor to diagnose"_s, {},
                                                          u"Tensors (*.npy *.safetensors);;All files (*)"_s);
        if (!path.isEmpty()) diagnoseFile(path);
    });
    connect(m_diagnose, &DiagnoseView::openCorrectedRequested, this, [this] {
        if (!m_diagnose->diagnosis()) return;
        // One undo step, like any edit; the grid shows what was opened.
        if (auto corrected = correctedSession(m_model->session(), *m_diagnose->diagnosis());
            corrected && m_model->setSession(*corrected)) {
            m_tabs->setCurrentIndex(GridTab);
            statusBar()->showMessage(u"Opened the corrected parameters (Ctrl+Z goes back)"_s, 6000);
        }
    });
    connect(m_diagnose, &DiagnoseView::failed, this, [this](const QString& message) {
        if (!m_lastDiagnosed.isEmpty()) m_recent->remove(m_lastDiagnosed);
        reportError(u"Cannot diagnose"_s, message);
    });
    connect(m_tabs, &QTabWidget::currentChanged, this, &MainWindow::onTabChanged);

    m_saveTimer.setSingleShot(true);
    m_saveTimer.setInterval(400);
    connect(&m_saveTimer, &QTimer::timeout, this, &MainWindow::saveToSettings);

    m_lessons = new LessonPanel(this);
    addDockWidget(Qt::BottomDockWidgetArea, m_lessons);
    connect(m_lessons, &LessonPanel::failed, this, &MainWindow::reportError);
    connect(m_lessons, &LessonPanel::lessonChanged, this, &MainWindow::showLessonTabs);
    buildMenus();
    QSettings settings;
    if (settings.contains(u"geometry"_s)) restoreGeometry(settings.value(u"geometry"_s).toByteArray());
    if (settings.contains(u"windowState"_s)) restoreState(settings.value(u"windowState"_s).toByteArray());
    // A size saved on a larger screen must not overflow this one (a 1280x720 projector).
    if (width() > available.width() - 16 || height() > available.height() - 40) {
        resize(std::min(width(), available.width() - 16), std::min(height(), available.height() - 40));
        move(available.topLeft());
    }
    m_theme = static_cast<Theme>(std::clamp(settings.value(u"theme"_s, 0).toInt(), 0, 2));
    m_lessons->hide();  // a saved window state may show the dock; a lesson opens it
}

bool MainWindow::openLesson(const QString& nameOrPath) {
    placeLessonDock();
    if (auto ok = m_lessons->openLesson(nameOrPath); !ok) {
        reportError(u"Cannot open lesson"_s, QString::fromStdString(ok.error().message));
        return false;
    }
    return true;
}

MainWindow::~MainWindow() = default;

// ---------------------------------------------------------------------------
// Menus

void MainWindow::buildMenus() {
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

    // A right click on a view offers its figure too (the Attention maps tab has its own menu).
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

void MainWindow::reportError(const QString& title, const QString& message) {
    m_lastError = message;
    statusBar()->showMessage(title + u": "_s + message, 10000);
    if (m_interactive && !m_screenshotMode) QMessageBox::warning(this, title, message);
}

// ---------------------------------------------------------------------------
// Sessions and settings

namespace {

// The bytes of a session file, hashed: what "changed on disk since it was opened" compares
// (a time stamp misses two saves within its resolution). Empty when it cannot be read. It runs
// on the UI thread before a save, so it reads only what a session can be (16 MiB, the core's
// limit): a larger file, or a pipe or device put at the path, hashes as "changed" at once.
QByteArray fileHash(const QString& path) {
    constexpr qint64 kMaxSessionBytes = qint64{16} << 20;
    const QFileInfo info(path);
    if (!info.isFile()) return {};
    if (info.size() > kMaxSessionBytes) return QByteArray("larger than a session: ") + QByteArray::number(info.size());
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) return {};
    return QCryptographicHash::hash(file.read(kMaxSessionBytes), QCryptographicHash::Sha256);
}

}  // namespace

void MainWindow::startOpenSession(const QString& path) {
    if (openingSession()) cancelOpenSession();
    m_sessionPath = path;
    m_sessionProgress->setValue(0);
    m_sessionProgress->setToolTip(u"Reading "_s + QFileInfo(path).fileName());
    m_sessionProgress->show();
    m_sessionCancel->show();
    statusBar()->showMessage(u"Opening "_s + QFileInfo(path).fileName() + u"… (Cancel stops it)"_s);
    m_sessionRead->start([file = path.toStdString()](const ReadOptions& options) {
        SessionRead out;
        std::string bytes;
        auto session = loadSession(file, SessionReadOptions{.read = options, .bytes = &bytes});
        if (!session) {
            out.error = QString::fromStdString(session.error().message);
            out.cancelled = session.error().code == ErrorCode::Cancelled;
            return out;
        }
        out.session = std::move(*session);
        out.hash = QCryptographicHash::hash(QByteArrayView(bytes.data(), static_cast<qsizetype>(bytes.size())),
                                            QCryptographicHash::Sha256);
        return out;
    });
}

void MainWindow::cancelOpenSession() {
    if (!openingSession()) return;
    m_sessionRead->cancel();
    hideSessionProgress();
    statusBar()->showMessage(u"Opening "_s + QFileInfo(m_sessionPath).fileName() + u" cancelled; the parameters stay"_s,
                             8000);
    emit sessionOpenFinished(m_sessionPath, false);
}

void MainWindow::hideSessionProgress() {
    m_sessionProgress->hide();
    m_sessionCancel->hide();
}

void MainWindow::setReadObserver(const ReadProgressFn& observer) {
    m_sessionRead->setObserver(observer);
    m_diagnose->setReadObserver(observer);
}

void MainWindow::onSessionRead(const SessionRead& read) {
    const QString path = m_sessionPath;
    hideSessionProgress();
    statusBar()->clearMessage();
    const auto finish = [&](bool opened) { emit sessionOpenFinished(path, opened); };
    if (read.cancelled) {
        statusBar()->showMessage(u"Opening "_s + QFileInfo(path).fileName() + u" cancelled; the parameters stay"_s,
                                 8000);
        return finish(false);
    }
    if (!read.session) {
        reportError(u"Cannot open session"_s, read.error);
        m_recent->remove(path);
        return finish(false);
    }
    // The model holds the parameters; the view fields go to the window.
    if (!m_model->loadSession(parametersOnly(*read.session))) {
        m_recent->remove(path);
        return finish(false);
    }
    m_extrapolation->setTrainLength(read.session->trainLength);
    applyView(*read.session);
    setCurrentFile(path);
    m_currentFileHash = read.hash;
    m_recent->add(path);
    finish(true);
}

bool MainWindow::openSession(const QString& path) {
    if (openingSession()) cancelOpenSession();
    bool opened = false;
    QEventLoop loop;
    const auto connection =
        connect(this, &MainWindow::sessionOpenFinished, &loop, [&](const QString& finished, bool ok) {
            if (finished != path) return;
            opened = ok;
            loop.quit();
        });
    startOpenSession(path);
    loop.exec();
    disconnect(connection);
    return opened;
}

bool MainWindow::saveSessionTo(const QString& path) {
    // Three explorers saving one session: the last writer won without a word (issue 25).
    if (!m_currentFile.isEmpty() && QFileInfo(path) == QFileInfo(m_currentFile) && !m_currentFileHash.isEmpty() &&
        QFileInfo::exists(path) && fileHash(path) != m_currentFileHash) {
        const QString name = QFileInfo(path).fileName();
        ChangedOnDiskChoice choice = ChangedOnDiskChoice::Cancel;
        if (m_changedPrompt) {
            choice = m_changedPrompt(path);
        } else if (m_interactive && !m_screenshotMode) {
            QMessageBox box(QMessageBox::Warning, u"Session changed on disk"_s,
                            u"%1 changed on disk since it was opened here (another window or program saved "
                            "it)."_s.arg(name),
                            QMessageBox::Cancel, this);
            box.setInformativeText(
                u"Overwrite it with this window's session, or reload it (this window's changes "
                "are dropped)?"_s);
            QPushButton* overwrite = box.addButton(u"Overwrite"_s, QMessageBox::AcceptRole);
            QPushButton* reload = box.addButton(u"Reload"_s, QMessageBox::DestructiveRole);
            box.setDefaultButton(QMessageBox::Cancel);
            box.exec();
            choice = box.clickedButton() == overwrite ? ChangedOnDiskChoice::Overwrite
                     : box.clickedButton() == reload  ? ChangedOnDiskChoice::Reload
                                                      : ChangedOnDiskChoice::Cancel;
        } else {
            reportError(
                u"Cannot save session"_s,
                u"%1 changed on disk since it was opened here; reload it or save under another name"_s.arg(path));
            return false;
        }
        if (choice == ChangedOnDiskChoice::Cancel) return false;
        if (choice == ChangedOnDiskChoice::Reload) return openSession(path);
    }
    if (auto ok = saveSession(sessionWithView(), path.toStdString()); !ok) {
        reportError(u"Cannot save session"_s, QString::fromStdString(ok.error().message));
        return false;
    }
    m_model->markSaved();
    setCurrentFile(path);
    m_currentFileHash = fileHash(path);
    m_recent->add(path);
    statusBar()->showMessage(u"Saved "_s + path, 4000);
    return true;
}

void MainWindow::restoreLastSession() {
    const QString text = QSettings().value(u"session"_s).toString();
    if (text.isEmpty()) return;
    auto session = parseSession(text.toStdString());
    if (session && validateSession(*session)) {
        m_model->loadSession(parametersOnly(*session));
        m_extrapolation->setTrainLength(session->trainLength);
        applyView(*session);
    }
}

void MainWindow::setCurrentFile(const QString& path) {
    m_currentFile = path;
    // [*] shows the modified mark (setWindowModified follows the model's history). The title ends
    // with the application's display name, so Qt does not append it a second time ("ALiBi
    // Explorer* — ALiBi Explorer").
    setWindowTitle((path.isEmpty() ? u"untitled"_s : QFileInfo(path).fileName()) + u"[*] — ALiBi Explorer"_s);
    setWindowModified(m_model->modified());
}

void MainWindow::scheduleSave() {
    m_saveTimer.start();
}

void MainWindow::saveToSettings() {
    QSettings settings;
    settings.setValue(u"session"_s, QString::fromStdString(serializeSession(sessionWithView())));
}

bool MainWindow::confirmDiscard() {
    if (!m_model->modified()) return true;
    DiscardChoice choice = DiscardChoice::Cancel;
    if (m_discardPrompt) {
        choice = m_discardPrompt();
    } else if (!m_interactive || m_screenshotMode) {
        return true;  // nobody to ask (screenshots, the storm test)
    } else {
        const auto answer = QMessageBox::question(
            this, u"Unsaved changes"_s,
            u"The parameters of %1 have changed. Save them before going on?"_s.arg(
                m_currentFile.isEmpty() ? u"this session"_s : QFileInfo(m_currentFile).fileName()),
            QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
        choice = answer == QMessageBox::Save      ? DiscardChoice::Save
                 : answer == QMessageBox::Discard ? DiscardChoice::Discard
                                                  : DiscardChoice::Cancel;
    }
    if (choice == DiscardChoice::Cancel) return false;
    if (choice == DiscardChoice::Discard) return true;
    QString path = m_currentFile;
    if (path.isEmpty())
        path = QFileDialog::getSaveFileName(this, u"Save session"_s, u"session.alibi.json"_s,
                                            u"ALiBi sessions (*.alibi.json)"_s);
    return !path.isEmpty() && saveSessionTo(path);
}

Session MainWindow::sessionWithView() const {
    Session s = m_model->session();
    static constexpr ExplorerView kTabViews[TabCount] = {
        ExplorerView::Grid,    ExplorerView::Detail,        ExplorerView::Curves,   ExplorerView::Stages,
        ExplorerView::Compare, ExplorerView::Extrapolation, ExplorerView::Diagnose, ExplorerView::PositionSchemes,
        ExplorerView::Grid,    ExplorerView::Grid};
    s.view = kTabViews[std::clamp(m_tabs->currentIndex(), 0, TabCount - 1)];
    s.compare = m_compare->spec();
    return s;
}

namespace {
int tabOf(ExplorerView view) {
    switch (view) {
        case ExplorerView::Grid:
            return MainWindow::GridTab;
        case ExplorerView::Detail:
            return MainWindow::DetailTab;
        case ExplorerView::Curves:
            return MainWindow::CurvesTab;
        case ExplorerView::Stages:
        case ExplorerView::Stats:
            return MainWindow::StagesTab;  // the stages view holds the row statistics
        case ExplorerView::Compare:
            return MainWindow::CompareTab;
        case ExplorerView::Extrapolation:
            return MainWindow::ExtrapolationTab;
        case ExplorerView::Diagnose:
            return MainWindow::DiagnoseTab;
        case ExplorerView::PositionSchemes:
            return MainWindow::PositionSchemesTab;
    }
    return MainWindow::GridTab;
}
}  // namespace

void MainWindow::showLessonTabs() {
    const explore::LessonState* lesson = m_lessons ? m_lessons->state() : nullptr;
    std::vector<bool> shown(TabCount, !m_presentation || lesson == nullptr);
    if (lesson != nullptr) {
        for (const LessonStep& step : lesson->lesson().steps) {
            if (step.explorerView)
                shown[static_cast<std::size_t>(tabOf(openView(step.session)))] = true;
            else if (!step.attentionMaps.empty())
                shown[AttentionTab] = true;
        }
    }
    if (m_tabs->currentIndex() >= 0) shown[static_cast<std::size_t>(m_tabs->currentIndex())] = true;
    bool changed = false;
    for (int t = 0; t < TabCount; ++t)
        if (m_tabs->isTabVisible(t) != shown[static_cast<std::size_t>(t)]) {
            m_tabs->setTabVisible(t, shown[static_cast<std::size_t>(t)]);
            changed = true;
        }
    if (changed) refitTabs(m_tabs);
}

void MainWindow::applyView(const Session& session) {
    const int tab = tabOf(openView(session));
    if (session.compare) {
        m_compare->setSpec(*session.compare);
        m_model->setCompareSpec(*session.compare);
    }
    m_tabs->setCurrentIndex(tab);
}

void MainWindow::setZoom(double zoom) {
    m_zoom = std::clamp(zoom, 0.5, 4.0);
    QFont font = QApplication::font();
    font.setPointSizeF(m_baseFontPt * m_zoom);
    // The application font reaches every widget and every plot label drawn with the widget's font.
    QApplication::setFont(font);
    statusBar()->showMessage(u"Zoom %1%"_s.arg(std::lround(m_zoom * 100)), 2000);
    // The new font reaches the widgets through posted events: fit the dock once they are in.
    QTimer::singleShot(0, this, [this] {
        fitParametersDock();
        fitHoverReadout();
    });
}

namespace {
// What QStatusBar adds around its widgets' row (3 px above it, 2 below, measured): its minimum
// height is the band's plus this, so hiding the read-out for a message moves nothing.
constexpr int kStatusBarRim = 5;
}  // namespace

void MainWindow::fitHoverReadout() {
    // A band of fixed height in the status bar, in presentation mode too: the status bar never
    // grows or shrinks while the pointer moves (the page above would shift under it), and the
    // read-out never covers a view, the dock's tabs or a colour bar (a read-out floating over the
    // views did, wrapped to three lines at 1280x720, issue 27).
    const int band = readoutBandHeight();
    // The status bar hides the read-out while it shows a message ("Zoom 175%", an error): it is
    // shown again by the status bar then, and the bar keeps the band's height meanwhile.
    if (band == 0)
        m_hover->hide();
    else if (statusBar()->currentMessage().isEmpty())
        m_hover->show();
    m_hover->setFixedHeight(band);
    statusBar()->setMinimumHeight(band > 0 ? band + kStatusBarRim : 0);
    holdHoverReadout();
}

QString MainWindow::longestReadout() const {
    switch (m_tabs->currentIndex()) {
        case GridTab:
        case DetailTab: {
            // The grid's and the detail's read-out of a masked cell of the last head on the last
            // row: the longest indices, the masked value's note.
            const SnapshotPtr s = m_model->snapshot();
            if (!s || !s->grid) return {};
            const auto& session = s->grid->session;
            const int heads = session.attention.bias.slopes.heads;
            const std::int64_t queries = session.attention.bias.queries;
            if (heads <= 0 || queries <= 0) return {};
            QString longest;
            for (const std::int64_t key : {std::int64_t{0}, queries - 1, queries / 2}) {
                const QString text = cellDescription(session, s->grid->slopes, heads - 1, queries - 1, key, false);
                if (text.size() > longest.size()) longest = text;
            }
            return longest;
        }
        case AttentionTab:
            return m_attention->longestReadout();
        default:
            return {};  // the other views read out in their own panels or tooltips
    }
}

int MainWindow::readoutBandHeight() const {
    const int line = m_hover->fontMetrics().lineSpacing();
    // Normal mode: two lines hold the longest read-out at 1280 px, on every tab.
    if (!m_presentation) return 2 * line + 2;
    // Presentation mode: only as tall as the longest read-out of the current tab's views needs
    // at the band's width (none on a tab with no read-out), so the views keep the rest.
    const QString longest = longestReadout();
    if (longest.isEmpty()) return 0;
    return std::max(line, readoutHeight(longest)) + 2;
}

int MainWindow::readoutHeight(const QString& text) const {
    // The band's width: the status bar's, less its margins and size grip (the read-out is the
    // only widget in it in presentation mode, where the latency is hidden).
    const int width = m_hover->isVisible() && m_hover->width() > 0 ? m_hover->width() : statusBar()->width() - 24;
    // Measured as the read-out measures itself (selectable text lays out in a document).
    QLabel probe;
    probe.setWordWrap(true);
    probe.setTextInteractionFlags(m_hover->textInteractionFlags());
    probe.setFont(m_hover->font());
    probe.setText(readoutBreaks(text));  // as shown
    return probe.heightForWidth(std::max(width, 100));
}

void MainWindow::holdHoverReadout() {
    if (!m_presentation || m_hover->text().isEmpty()) return;
    // A read-out longer than the tab's estimate (a long token, an error) grows the band rather
    // than being cut; the next fit (tab change, resize) brings it back to the estimate.
    // Measured on a probe: the read-out's own heightForWidth is never below its fixed height.
    const int needed = readoutHeight(m_hover->text()) + 2;
    if (needed > m_hover->height()) {
        m_hover->setFixedHeight(needed);
        statusBar()->setMinimumHeight(needed + kStatusBarRim);
    }
    if (!m_hover->isVisible() && statusBar()->currentMessage().isEmpty()) m_hover->show();
}

bool MainWindow::eventFilter(QObject* watched, QEvent* event) {
    // The band's height follows its width (a resized window, a shown or hidden progress bar).
    if (watched == m_hover && event->type() == QEvent::Resize && m_presentation) {
        const auto* resize = static_cast<QResizeEvent*>(event);
        if (resize->size().width() != resize->oldSize().width())
            QTimer::singleShot(0, this, &MainWindow::fitHoverReadout);
    }
    return QMainWindow::eventFilter(watched, event);
}

QString MainWindow::tabName(int tab, bool shortName) {
    // The core's names (explore::tabTitle, the ImGui explorer's too): the full ones, and the
    // short ones for a narrow window at a large font ("&" doubled: a tab's mnemonic marker).
    static constexpr std::array<explore::ExplorerTab, TabCount> tabs{
        explore::ExplorerTab::Grid,     explore::ExplorerTab::Detail,          explore::ExplorerTab::Curves,
        explore::ExplorerTab::Stages,   explore::ExplorerTab::Compare,         explore::ExplorerTab::Extrapolation,
        explore::ExplorerTab::Diagnose, explore::ExplorerTab::PositionSchemes, explore::ExplorerTab::Maps,
        explore::ExplorerTab::Model};
    if (tab < 0 || tab >= TabCount) return {};
    const explore::TabTitle title = explore::tabTitle(tabs[static_cast<std::size_t>(tab)]);
    const std::string_view name = shortName ? title.brief : title.full;
    return QString::fromUtf8(name.data(), static_cast<qsizetype>(name.size())).replace(u"&"_s, u"&&"_s);
}

void MainWindow::setPresentation(bool on) {
    if (m_presentationAction && m_presentationAction->isChecked() != on) {
        m_presentationAction->setChecked(on);  // toggled() comes back here
        return;
    }
    // Large fonts for the back row; the plots draw their lines thicker with the larger font.
    m_presentation = on;
    qApp->setProperty("alibiLineScale", on ? 2.5 : 1.0);
    // Plot text (ticks, legends, axis labels) grows less than the lesson text: the plots keep room.
    qApp->setProperty("alibiPlotTextScale", on ? 0.75 : 1.0);
    // The room goes to the read-out: a lecture does not need the grid's latency.
    m_latency->setVisible(!on);
    m_compare->setHintShown(!on);
    m_attention->setHoverTips(!on);  // the read-out band says it; the tooltip covered the maps
    m_grid->setHoverTips(!on);       // ... the neighbouring tiles (s40 review F2)
    m_detail->setHoverTips(!on);     // ... the cited cell
    setZoom(on ? 1.75 : 1.0);
    if (on) {
        m_detail->setCornerWidget(m_detailBar);
    } else if (m_detailBar->parentWidget() == m_detail) {
        m_detail->setCornerWidget(nullptr);
        m_detailPageLayout->insertWidget(0, m_detailBar);
    }
    placeLessonDock();
    showLessonTabs();
    if (m_interactive && !m_screenshotMode) fillScreen(on);
    update();
}

void MainWindow::fillScreen(bool on) {
    if (!on) {
        if (!m_geometryBeforePresentation) return;
        const QRect before = *m_geometryBeforePresentation;
        m_geometryBeforePresentation.reset();
        setWindowState(windowState() & ~Qt::WindowMaximized);
        setGeometry(before);
        return;
    }
    // Already maximised or full screen (by the user or the window manager): left as it is.
    if (m_geometryBeforePresentation || (windowState() & (Qt::WindowMaximized | Qt::WindowFullScreen))) return;
    QScreen* screen = this->screen() ? this->screen() : QGuiApplication::primaryScreen();
    if (screen == nullptr) return;
    m_geometryBeforePresentation = geometry();
    // The frame a window manager draws (none without one, or before the first show).
    const QRect frame = frameGeometry(), inner = geometry();
    const QMargins margins(inner.left() - frame.left(), inner.top() - frame.top(), frame.right() - inner.right(),
                           frame.bottom() - inner.bottom());
    setGeometry(screen->availableGeometry().marginsRemoved(margins));
    setWindowState(windowState() | Qt::WindowMaximized);
}

void MainWindow::placeLessonDock() {
    if (!m_lessons || !m_parametersDock || m_lessons->isFloating()) return;
    const Qt::DockWidgetArea want = m_presentation ? Qt::LeftDockWidgetArea : Qt::BottomDockWidgetArea;
    if (dockWidgetArea(m_lessons) == want) return;
    const bool shown = m_lessons->isVisible();
    if (m_presentation)
        tabifyDockWidget(m_parametersDock, m_lessons);
    else
        addDockWidget(Qt::BottomDockWidgetArea, m_lessons);
    m_lessons->setVisible(shown);
    if (shown) m_lessons->raise();
}

void MainWindow::fitParametersDock() {
    if (!m_parametersScroll || !m_parameters) return;
    // The panel's controls at the current font, plus the scroll area's frame and vertical bar.
    m_parameters->adjustSize();
    const int needed = m_parameters->sizeHint().width() + 2 * m_parametersScroll->frameWidth() +
                       m_parametersScroll->verticalScrollBar()->sizeHint().width();
    m_parametersScroll->setMinimumWidth(needed);
    if (m_parametersDock && !m_parametersDock->isFloating() && m_parametersDock->width() < needed)
        resizeDocks({m_parametersDock}, {needed}, Qt::Horizontal);
}

void MainWindow::setTheme(Theme theme) {
    m_theme = theme;
    QSettings().setValue(u"theme"_s, static_cast<int>(theme));
    applyTheme(theme);
}

void MainWindow::closeEvent(QCloseEvent* event) {
    if (!confirmDiscard()) {
        event->ignore();
        return;
    }
    m_saveTimer.stop();
    saveToSettings();
    QSettings settings;
    settings.setValue(u"geometry"_s, saveGeometry());
    settings.setValue(u"windowState"_s, saveState());
    if (m_export->exporting()) m_export->cancel();
    QMainWindow::closeEvent(event);
}

void MainWindow::onTabChanged(int index) {
    showLessonTabs();  // the tab opened stays in the bar
    // A cell read-out belongs to the tab it was read on (an error message stays).
    if (!m_hover->text().startsWith(u"<span"_s)) m_hover->clear();
    fitHoverReadout();  // the band as tall as this tab's read-outs
    if (m_screenshotMode) return;
    m_model->setCompareEnabled(index == CompareTab);
    m_model->setExtrapolationEnabled(index == ExtrapolationTab);
    if (index == CompareTab) m_model->setCompareSpec(m_compare->spec());
}

// A word joiner inside every "->": the band wrapped "configured m = 1/32 -" | "> 0.0356" (Qt
// breaks after a hyphen); it is invisible and taken out again for hoverText().
constexpr QChar kWordJoiner(0x2060);

// The band lays a read-out out by the tooltips' rule (readoutBreaks): its " · " phrases and
// arrows whole, an operator with its value, a short parenthesised phrase on one line ("p = 0
// (row renormalised to sum" | "1)" broke at 1280x720 in presentation, the s40 review's L8).
void MainWindow::showHoverReadout(const QString& text) {
    m_hover->setText(readoutBreaks(text));
}

QString MainWindow::hoverText() const {
    return m_hover->text().remove(kWordJoiner).replace(QChar(0x00A0), u' ');
}
QString MainWindow::latencyText() const {
    return m_latency->text();
}

// ---------------------------------------------------------------------------
// Diagnose, drag and drop

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

// ---------------------------------------------------------------------------
// Export

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

// ---------------------------------------------------------------------------
// Screenshots

void MainWindow::takeScreenshots(const QString& dir, std::function<void(bool)> done) {
    m_screenshotMode = true;
    runScreenshots(*this, dir, std::move(done));
}

}  // namespace alibi::qt
