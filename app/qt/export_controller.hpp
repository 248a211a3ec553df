// Tensor export from the explorer: the plan the core makes for the current session (what the
// file will hold, its size, the free space where it goes, and whether it can work at all), and
// the export dialog that shows that plan before anything is written and offers the fix, and the
// controller that runs exports on a low-priority thread (tensors, and the open tab as a finished
// figure drawn by the core, both behind a progress dialog with Cancel) and window screenshots.
#pragma once

#include "figure_export_dialog.hpp"
#include "model/session_model.hpp"
#include "model/tasks.hpp"

#include <alibi/io/export_plan.hpp>

#include <QDialog>

#include <atomic>
#include <functional>

class QComboBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QPushButton;

namespace alibi::qt {

// The core's export plan for the session's bias, attention or slopes (the same rules as
// `alibi bias/attention/slopes -o PATH`). `freeSpace` empty: the real file system.
[[nodiscard]] Result<ExportPlan> planSessionExport(const Session& session, ExportWhat what, const std::string& path,
                                                   FileFormat format, const FreeSpaceFn& freeSpace = {});

class ExportDialog : public QDialog {
    Q_OBJECT
public:
    ExportDialog(SessionModel* model, FreeSpaceFn freeSpace, QWidget* parent = nullptr);

    [[nodiscard]] ExportWhat what() const;
    [[nodiscard]] FileFormat format() const;
    [[nodiscard]] QString path() const;
    // The plan shown now; refreshed whenever the session, the choice or the path changes.
    [[nodiscard]] const std::optional<ExportPlan>& plan() const { return m_plan; }
    void refresh();

    // The controls, for tests.
    QComboBox* whatBox;
    QComboBox* formatBox;
    QLineEdit* pathEdit;
    QPushButton* browseButton;
    QLabel* summaryLabel;
    QLabel* problemLabel;
    QPushButton* fixButton;  // "Use mask = min", shown when the plan offers that fix
    QDialogButtonBox* buttons;

private:
    void onFormatChosen();

    SessionModel* m_model;
    FreeSpaceFn m_freeSpace;
    std::optional<ExportPlan> m_plan;
};

// Runs the window's exports. Tensor and figure exports run on their own low-priority thread
// behind a progress dialog, one at a time; problems go out as `failed` (the window shows them),
// progress notes as `statusMessage`.
class ExportController : public QObject {
    Q_OBJECT
public:
    // `window` parents the dialogs.
    ExportController(SessionModel* model, QWidget* window);

    // Exports with a progress dialog that can be cancelled; `observer` sees every progress
    // step and cancels the export by returning false (the tests' stand-in for the Cancel button).
    Result<void> exportTensorTo(const QString& path, ExportWhat what, FileFormat format,
                                const ProgressFn& observer = {});
    void cancel() { m_cancel = true; }
    [[nodiscard]] bool exporting() const { return m_exporting; }
    // The file system's free space as the export plan sees it (tests stand in a small disk).
    void setFreeSpaceQuery(FreeSpaceFn query) { m_freeSpace = std::move(query); }
    // The export dialog, as the menu opens it; `drive` (tests) acts on it while it is open.
    void exportTensorDialog(const std::function<void(ExportDialog&)>& drive = {});

    // The figure of `job` drawn by the core on the export thread and written atomically to
    // job.path, behind a progress dialog (after 400 ms) whose Cancel stops it; `observer` as for
    // tensors. The PNG's pixel size (the SVG's user units) on success; on failure the message
    // also goes out as `failed` (a cancel as a status message), and no file is left.
    Result<QSize> exportFigure(const FigureJob& job, const ProgressFn& observer = {});
    // The figure dialog for `subject` (File > Export figure); `drive` (tests) acts on it while it
    // is open.
    void exportFigureDialog(const FigureSubject& subject, const std::function<void(FigureExportDialog&)>& drive = {});

    // A screenshot of `window` as the screen shows it (File > Export window as PNG).
    Result<void> exportWindowPng(QWidget* window, const QString& path);
    void exportWindowDialog(QWidget* window);

signals:
    void statusMessage(const QString& text, int timeoutMs);
    void failed(const QString& title, const QString& message);

private:
    // Runs `work` on the export pool while the UI goes on, with a progress dialog labelled by
    // `describe(done, total)` that appears for slow work; Cancel and `observer` stop it.
    Result<void> runInBackground(const QString& title, const QString& label,
                                 std::function<Result<void>(const ProgressFn&)> work,
                                 std::function<QString(std::uint64_t, std::uint64_t)> describe,
                                 const ProgressFn& observer);

    SessionModel* m_model;
    QWidget* m_window;
    FreeSpaceFn m_freeSpace;
    bool m_exporting = false;
    std::atomic<bool> m_cancel{false};
    // Exports run here at low priority, apart from the global pool that interactive jobs
    // (diagnosis) use; one thread, since one export runs at a time.
};

}  // namespace alibi::qt
