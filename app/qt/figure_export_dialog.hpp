// File > Export figure: the open tab as a finished figure that the core draws
// (render/view_figure.hpp, the same bytes as `alibi render`), described as a FigureSubject by the
// window, and the dialog that settles the format (PNG 1x/2x/4x, SVG for vector views), the plot
// of the Slopes & curves tab, the size at 1x and the file before anything is drawn.
#pragma once

#include <alibi/analysis/diagnose.hpp>
#include <alibi/base/tensor.hpp>
#include <alibi/figure/view_figure.hpp>

#include <QDialog>
#include <QSize>
#include <QString>

#include <memory>
#include <optional>

class QComboBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;

namespace alibi::qt {

// What the open tab exports: a view of the session (with the tab's own state in the request:
// head, query row, Compare's B, train length, the position schemes' D and quantity), or the
// Diagnose tab's tensor and its diagnosis.
struct FigureSubject {
    enum class Kind { View, Diagnosis };
    Kind kind = Kind::View;
    QString tabName;  // the tab's title, for the dialog
    // Kind::View: everything but the format; request.session.width x height is the size at 1x
    // (for Kind::Diagnosis too).
    ViewFigureRequest request;
    // Kind::Diagnosis: the tensor as loaded, its diagnosis, and the file name for the title.
    std::shared_ptr<const Tensor> tensor;
    std::optional<Diagnosis> diagnosis;
    std::string source;
};

// One figure to write: the subject at a format and size, to a path.
struct FigureJob {
    FigureSubject subject;
    bool svg = false;  // else PNG at subject.request.scale
    QString path;

    [[nodiscard]] int scale() const { return svg ? 1 : subject.request.scale; }
    [[nodiscard]] QSize sizeAt1x() const { return {subject.request.session.width, subject.request.session.height}; }
    // The PNG's pixels (the SVG's user units).
    [[nodiscard]] QSize pixelSize() const { return sizeAt1x() * scale(); }
    // SVG is offered only for views drawn from lines and text.
    [[nodiscard]] bool svgOffered() const;
    // The core's name for the figure ("stages-h3-q15.png"; "diagnosis-NAME.png").
    [[nodiscard]] QString defaultFileName() const;
};

// The figure file's content exactly as `alibi render` writes it: the encoded PNG, or the SVG
// document. Long figures report through `progress`, which cancels by returning false.
[[nodiscard]] Result<std::string> renderFigureFile(const FigureJob& job, const ProgressFn& progress = {});

class FigureExportDialog : public QDialog {
    Q_OBJECT
public:
    // Starts from the last choices (format, plot, size, folder; QSettings group "figureExport"),
    // else PNG 2x at the session's width x height in the current folder.
    explicit FigureExportDialog(FigureSubject subject, QWidget* parent = nullptr);

    // The job as the controls now describe it.
    [[nodiscard]] FigureJob job() const;
    // Keeps the choices for the next time (called when the figure is exported).
    void remember() const;

    // The controls, for tests.
    QComboBox* plotBox;    // the Slopes & curves tab's plots; hidden on other tabs
    QComboBox* formatBox;  // "PNG 1x", "PNG 2x", "PNG 4x", and "SVG" for vector views
    QSpinBox* widthBox;
    QSpinBox* heightBox;
    QLineEdit* pathEdit;
    QPushButton* browseButton;
    QLabel* pixelsLabel;  // "2048 x 1536 px"
    QDialogButtonBox* buttons;

private:
    void refresh();
    void followFileName();  // the default name follows the format and the plot

    FigureSubject m_subject;
    QString m_defaultName;  // the name the path had by default (replaced while the user keeps it)
};

}  // namespace alibi::qt
