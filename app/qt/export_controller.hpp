// Tensor export from the explorer: the plan the core makes for the current session (what the
// file will hold, its size, the free space where it goes, and whether it can work at all), and
// the export dialog that shows that plan before anything is written and offers the fix.
#pragma once

#include "model/session_model.hpp"
#include "model/tasks.hpp"

#include <alibi/io/export_plan.hpp>

#include <QDialog>

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
    QPushButton* fixButton;   // "Use mask = min", shown when the plan offers that fix
    QDialogButtonBox* buttons;

private:
    void onFormatChosen();

    SessionModel* m_model;
    FreeSpaceFn m_freeSpace;
    std::optional<ExportPlan> m_plan;
};

}  // namespace alibi::qt
