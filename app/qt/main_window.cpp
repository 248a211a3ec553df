// The main window: the parameters dock, the views as tabs and the status bar built and wired
// (each part by one function the constructor calls), the theme, lessons, errors and closing.
// Menus, sessions, files and presentation are in main_window_*.cpp.
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
#include "stages_view.hpp"
#include "view_util.hpp"

#include <alibi/analysis/corrected_session.hpp>
#include <alibi/explore/view_titles.hpp>

#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QScreen>
#include <QScrollArea>
#include <QSettings>
#include <QSpinBox>
#include <QStatusBar>
#include <QStyle>
#include <QStyleFactory>
#include <QTabWidget>
#include <QToolButton>
#include <QVBoxLayout>

#include <array>
#include <cstdio>

using namespace Qt::Literals::StringLiterals;

namespace alibi::qt {

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
    const std::vector<Preset> priorPresets = presets;  // the Attention maps tab pairs maps with them
    buildParametersDock(std::move(presets));
    buildViews(priorPresets);
    buildStatusBar();
    wireResults();
    wireHoverReadouts();
    wireAttentionMaps();
    wireModelTab();
    wireViews();

    m_saveTimer.setSingleShot(true);
    m_saveTimer.setInterval(400);
    connect(&m_saveTimer, &QTimer::timeout, this, &MainWindow::saveToSettings);

    m_lessons = new LessonPanel(this);
    addDockWidget(Qt::BottomDockWidgetArea, m_lessons);
    connect(m_lessons, &LessonPanel::failed, this, &MainWindow::reportError);
    connect(m_lessons, &LessonPanel::lessonChanged, this, &MainWindow::showLessonTabs);
    buildMenus();
    restoreWindow(available);
}

// The Parameters dock, always visible (it can be undocked, not closed).
void MainWindow::buildParametersDock(std::vector<Preset> presets) {
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
}

// The views, one tab each.
void MainWindow::buildViews(const std::vector<Preset>& priorPresets) {
    m_tabs = new QTabWidget(this);
    m_tabs->setDocumentMode(true);
    m_grid = new HeadGridView(this);
    m_detail = new HeadDetailView(this);
    QWidget* detailPage = buildDetailPage();
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
}

// The detail's tab: its Head and Fit controls over the view.
QWidget* MainWindow::buildDetailPage() {
    auto* detailPage = new QWidget(this);
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
    return detailPage;
}

// The status bar: the hover read-out's band, the grid's latency, and the progress and Cancel of
// an attention-map file and of a session file being read.
void MainWindow::buildStatusBar() {
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
}

// Model -> views.
void MainWindow::wireResults() {
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
}

// Hover read-outs into the status bar's band.
void MainWindow::wireHoverReadouts() {
    connect(m_grid, &HeadGridView::cellHovered, this, &MainWindow::showHoverReadout);
    connect(m_grid, &HeadGridView::cellHovered, this, &MainWindow::holdHoverReadout);
    connect(m_detail, &HeadDetailView::cellHovered, this, &MainWindow::showHoverReadout);
    connect(m_detail, &HeadDetailView::cellHovered, this, &MainWindow::holdHoverReadout);
    connect(m_attention, &AttentionMapsPage::cellHovered, this, &MainWindow::showHoverReadout);
    connect(m_attention, &AttentionMapsPage::cellHovered, this, &MainWindow::holdHoverReadout);
}

// The Attention maps tab: its band height, errors, file reads and opens.
void MainWindow::wireAttentionMaps() {
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
}

// The Model tab: a run's maps, its errors and its open requests.
void MainWindow::wireModelTab() {
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
}

// Linked highlighting, the views' head and B choices, Diagnose's requests, the tab changes.
void MainWindow::wireViews() {
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
}

// The saved window geometry and state, kept inside `available` (the screen's area), and the theme.
void MainWindow::restoreWindow(const QRect& available) {
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

void MainWindow::reportError(const QString& title, const QString& message) {
    m_lastError = message;
    statusBar()->showMessage(title + u": "_s + message, 10000);
    if (m_interactive && !m_screenshotMode) QMessageBox::warning(this, title, message);
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

}  // namespace alibi::qt
