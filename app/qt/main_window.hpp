// The main window: parameters dock, the seven views as tabs, menus with shortcuts, settings
// (recent files, last session, theme, geometry), export with a cancellable progress dialog,
// drag and drop of tensors for diagnosis or as attention maps, and the --screenshot mode.
#pragma once

#include "figure_export_dialog.hpp"
#include "model/background_read.hpp"
#include "model/presets.hpp"
#include "model/session_model.hpp"
#include "model/tasks.hpp"

#include <alibi/io/export_plan.hpp>

#include <QMainWindow>
#include <QTimer>

#include <functional>
#include <memory>
#include <optional>
#include <vector>

class QDockWidget;
class QLabel;
class QScrollArea;
class QMenu;
class QProgressBar;
class QTabWidget;
class QToolButton;
class QVBoxLayout;

namespace alibi::qt {

class AttentionMapsPage;
class CompareView;
class CurvesView;
class PositionSchemesView;
class DiagnoseView;
class ExportController;
class ExtrapolationView;
class HeadDetailView;
class HeadGridView;
class LessonPanel;
class LiveModelView;
class ParametersPanel;
class RecentFiles;
class StagesView;

enum class Theme { System, Light, Dark };
void applyTheme(Theme theme);

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    enum Tab {
        GridTab,
        DetailTab,
        CurvesTab,
        StagesTab,
        CompareTab,
        ExtrapolationTab,
        DiagnoseTab,
        PositionSchemesTab,
        AttentionTab,
        ModelTab,
        TabCount
    };

    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    // Without interaction, errors go to the status bar and lastError() instead of dialogs
    // (tests, the storm test and --screenshot).
    void setInteractive(bool on) { m_interactive = on; }
    [[nodiscard]] QString lastError() const { return m_lastError; }

    // The actions behind the menus, callable with a file name (no file dialog).
    //
    // File > Open session, a recent file, a dropped session and the command line: reads `path` in
    // the background with its progress and Cancel in the status bar (a session file may be
    // 16 MiB); the parameters change only once it has been read and checked, so an open that
    // fails or is cancelled keeps them, saved or not. sessionOpenFinished() follows.
    void startOpenSession(const QString& path);
    [[nodiscard]] bool openingSession() const { return m_sessionRead->running(); }
    void cancelOpenSession();
    // The same, waiting for the outcome in a local event loop (the window stays live): true when
    // the session was opened (tests, --screenshot, the Reload of a save).
    bool openSession(const QString& path);
    // Tests: sees every progress report of a session read and a Diagnose read on the reading
    // thread; false cancels the read, and waiting in it stands in for a slow disk.
    void setReadObserver(const ReadProgressFn& observer);
    bool saveSessionTo(const QString& path);
    void restoreLastSession();
    // Exports with a progress dialog that can be cancelled; `observer` sees every progress
    // step and cancels the export by returning false (the tests' stand-in for the Cancel button).
    Result<void> exportTensorTo(const QString& path, ExportWhat what, FileFormat format,
                                const ProgressFn& observer = {});
    void cancelExport();
    [[nodiscard]] bool exporting() const;
    // What File > Export figure draws from the open tab: the view with the tab's own state
    // (head, query row, Compare's B, train length, the position schemes' D and quantity) or the
    // Diagnose tab's tensor; nullopt, with the reason in `why`, where there is none (nothing
    // diagnosed yet; the Attention maps tab, which has its own Figure menu).
    [[nodiscard]] std::optional<FigureSubject> figureSubject(QString* why = nullptr) const;
    Result<QSize> exportFigure(const FigureJob& job, const ProgressFn& observer = {});
    // File > Export figure (Ctrl+Shift+P): the dialog for the open tab, or on the Attention
    // maps tab that tab's Figure menu; `drive` (tests) acts on the dialog while it is open.
    void exportFigureDialog(const std::function<void(FigureExportDialog&)>& drive = {});
    QString copyCliCommand();
    void diagnoseFile(const QString& path);
    // Opens a trained model's saved attention maps in the Attention maps tab (in the background).
    void openAttentionMaps(const QString& path);
    // File > Open model: a Hugging Face BLOOM, MPT or Falcon folder, set in the session and run on the
    // Model tab's text in the background (its maps open in the Attention maps tab).
    void openModel(const QString& folder);
    // Help > Example model: assets/models/license-bloom-tiny (installed, or the build tree's link).
    void openExampleModel();
    // The example model's folder; empty when it is not found.
    [[nodiscard]] static QString exampleModelPath();
    // What a dropped .npy / .safetensors file is for, when dropped outside the Attention maps tab
    // (a bias to diagnose or attention maps): tests answer themselves; without an answerer the
    // question is a message box (or, with nobody to ask, the file's rank and name decide).
    enum class DropChoice { Diagnose, AttentionMaps, Cancel };
    void setDropPrompt(std::function<DropChoice(const QString&)> answer) { m_dropPrompt = std::move(answer); }
    // The drop as dropEvent handles it (tests call it without a QDropEvent).
    void handleDroppedFile(const QString& path);
    void setTheme(Theme theme);
    // The file system's free space as the export plan sees it (tests stand in a small disk).
    void setFreeSpaceQuery(FreeSpaceFn query);
    // The export dialog, as the menu opens it; `drive` (tests) acts on it while it is open.
    void exportTensorDialog(const std::function<void(class ExportDialog&)>& drive = {});

    // What to do with unsaved changes before they would be lost (open, quit).
    enum class DiscardChoice { Save, Discard, Cancel };
    // Tests answer the prompt themselves; without an answerer the prompt is a message box.
    void setDiscardPrompt(std::function<DiscardChoice()> answer) { m_discardPrompt = std::move(answer); }
    // True when nothing unsaved would be lost (saved, discarded, or unmodified).
    bool confirmDiscard();

    // Saving over the open session file when it changed on disk since it was opened or last saved
    // here (another explorer saved it): overwrite it, reload it (this window's changes are
    // dropped), or cancel. Tests answer themselves; without an answerer the question is a message
    // box, and with nobody to ask the save is refused with a message (never a silent overwrite).
    enum class ChangedOnDiskChoice { Overwrite, Reload, Cancel };
    void setChangedOnDiskPrompt(std::function<ChangedOnDiskChoice(const QString&)> answer) {
        m_changedPrompt = std::move(answer);
    }

    // Lecture-hall mode: every font and plot label scaled by zoom (1 = the system size).
    void setZoom(double zoom);
    [[nodiscard]] double zoom() const { return m_zoom; }
    // Presentation mode; an interactive window (not a test's or a screenshot run's) also fills
    // its screen's available area while on, and goes back to its size after.
    void setPresentation(bool on);
    [[nodiscard]] bool presentation() const { return m_presentation; }
    // The session as it would be saved: parameters plus the open view and Compare's B.
    [[nodiscard]] Session sessionWithView() const;
    void applyView(const Session& session);

    // Renders every tab into DIR as PNG once the first results arrive, then calls `done`.
    void takeScreenshots(const QString& dir, std::function<void(bool)> done);

    [[nodiscard]] SessionModel* model() const { return m_model; }
    [[nodiscard]] ParametersPanel* parameters() const { return m_parameters; }
    [[nodiscard]] HeadGridView* gridView() const { return m_grid; }
    [[nodiscard]] HeadDetailView* detailView() const { return m_detail; }
    [[nodiscard]] CurvesView* curvesView() const { return m_curves; }
    [[nodiscard]] PositionSchemesView* positionSchemesView() const { return m_positionSchemes; }
    [[nodiscard]] StagesView* stagesView() const { return m_stages; }
    [[nodiscard]] CompareView* compareView() const { return m_compare; }
    [[nodiscard]] ExtrapolationView* extrapolationView() const { return m_extrapolation; }
    [[nodiscard]] DiagnoseView* diagnoseView() const { return m_diagnose; }
    // Guided lessons (Help > Lessons, --lesson NAME): a name or path; errors as for a session.
    bool openLesson(const QString& nameOrPath);
    [[nodiscard]] LessonPanel* lessonPanel() const { return m_lessons; }
    [[nodiscard]] AttentionMapsPage* attentionPage() const { return m_attention; }
    [[nodiscard]] LiveModelView* liveView() const { return m_live; }
    [[nodiscard]] QTabWidget* tabs() const { return m_tabs; }
    [[nodiscard]] QString hoverText() const;
    // The status bar's hover read-out (its band's height and what it covers, for tests).
    [[nodiscard]] QLabel* hoverReadout() const { return m_hover; }
    // A view's read-out into the band, its arrows and short parenthesised phrases kept whole on
    // their line (public for tests).
    void showHoverReadout(const QString& text);
    [[nodiscard]] QString latencyText() const;
    [[nodiscard]] const QString& currentFile() const { return m_currentFile; }

signals:
    void sessionOpenFinished(const QString& path, bool opened);

protected:
    void closeEvent(QCloseEvent* event) override;
    bool eventFilter(QObject* watched, QEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    // The window's parts, built and wired in this order by the constructor (main_window.cpp).
    void buildParametersDock(std::vector<Preset> presets);
    void buildViews(const std::vector<Preset>& priorPresets);
    QWidget* buildDetailPage();
    void buildStatusBar();
    void wireResults();
    void wireHoverReadouts();
    void wireAttentionMaps();
    void wireModelTab();
    void wireViews();
    void restoreWindow(const QRect& available);
    // The menus (main_window_menus.cpp).
    void buildMenus();
    void buildFileMenu();
    void addFigureContextMenus();
    void buildEditMenu();
    void buildViewMenu();
    void buildHelpMenu();
    // The tab that shows a session's view.
    [[nodiscard]] static int tabOf(ExplorerView view);
    void reportError(const QString& title, const QString& message);
    void scheduleSave();
    void saveToSettings();
    void setCurrentFile(const QString& path);
    void onTabChanged(int index);
    // The Parameters dock at least as wide as its controls need at the current font (every
    // value whole), re-fitted after a zoom or presentation change.
    void fitParametersDock();
    // The hover read-out in the status bar: word-wrapped, as many lines high as the longest needs.
    void fitHoverReadout();
    // The longest read-out the current tab's views give (empty: the tab reads out nothing here).
    [[nodiscard]] QString longestReadout() const;
    // The read-out band's height: two lines in normal mode; in presentation mode what the current
    // tab's longest read-out needs at the band's width (0 on a tab without one).
    [[nodiscard]] int readoutBandHeight() const;
    [[nodiscard]] int readoutHeight(const QString& text) const;
    // Tab `tab`'s name ("Slopes && curves"), or its short name ("Curves"): the core's table.
    [[nodiscard]] static QString tabName(int tab, bool shortName);
    // Presentation mode: a read-out longer than the band's estimate grows the band (never cut).
    void holdHoverReadout();
    // Presentation mode puts the lesson beside the views, tabbed with the Parameters (the views
    // keep the window's height); otherwise it is a strip under them.
    void placeLessonDock();
    // In presentation mode with a lesson open, the tab bar shows the tabs the lesson's steps open
    // (and the current one), so their names keep the presentation font at 1280x720; every tab
    // otherwise.
    void showLessonTabs();
    // Presentation fills the screen: maximised (a window manager's), and the screen's available
    // geometry set as well, since without a window manager (a projector's kiosk, Xvfb) nothing
    // acts on the maximised state and the window kept its 1400x900 or screen-minus-margins size.
    void fillScreen(bool on);
    // A dropped file classified in the background: the question, then the tab it goes to.
    void onDropClassified(const QString& path, bool attention);
    void hideOpenProgress();
    // A session file read in the background (startOpenSession).
    struct SessionRead {
        std::optional<Session> session;
        QString error;
        bool cancelled = false;
        QByteArray hash;  // of the bytes read (what "changed on disk" compares)
    };
    void onSessionRead(const SessionRead& read);
    void hideSessionProgress();

    SessionModel* m_model;
    ParametersPanel* m_parameters;
    QScrollArea* m_parametersScroll = nullptr;
    QDockWidget* m_parametersDock = nullptr;
    QAction* m_presentationAction = nullptr;
    bool m_presentation = false;
    std::optional<QRect> m_geometryBeforePresentation;  // set while presentation fills the screen
    QTabWidget* m_tabs;
    HeadGridView* m_grid;
    HeadDetailView* m_detail;
    QWidget* m_detailBar = nullptr;             // the detail's Head and Fit controls
    QVBoxLayout* m_detailPageLayout = nullptr;  // the detail tab's column (the bar's row)
    CurvesView* m_curves;
    PositionSchemesView* m_positionSchemes;
    StagesView* m_stages;
    CompareView* m_compare;
    ExtrapolationView* m_extrapolation;
    DiagnoseView* m_diagnose;
    LessonPanel* m_lessons = nullptr;
    AttentionMapsPage* m_attention;
    LiveModelView* m_live;
    QLabel* m_hover;
    QLabel* m_latency;
    QProgressBar* m_openProgress;  // an attention-map file being read, seen from any tab
    QToolButton* m_openCancel;
    bool m_dropPending = false;       // a dropped file is being classified
    QProgressBar* m_sessionProgress;  // a session file being read
    QToolButton* m_sessionCancel;
    QString m_sessionPath;  // of the session read running
    std::unique_ptr<BackgroundRead<SessionRead>> m_sessionRead;
    ExportController* m_export;
    RecentFiles* m_recent;
    QTimer m_saveTimer;
    QString m_currentFile;
    QString m_lastError;
    bool m_interactive = true;
    bool m_screenshotMode = false;
    Theme m_theme = Theme::System;
    std::function<DiscardChoice()> m_discardPrompt;
    std::function<DropChoice(const QString&)> m_dropPrompt;
    std::function<ChangedOnDiskChoice(const QString&)> m_changedPrompt;
    QByteArray m_currentFileHash;  // of m_currentFile's bytes when opened or last saved here
    double m_zoom = 1;
    double m_baseFontPt = 0;
    QString m_lastDiagnosed;
};

}  // namespace alibi::qt
