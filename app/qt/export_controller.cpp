// Export planning and the export dialog (see export_controller.hpp).
#include "export_controller.hpp"

#include "head_grid_view.hpp"

#include <alibi/explore/compute.hpp>
#include <alibi/io/session_export.hpp>
#include <alibi/model/attention.hpp>
#include <alibi/model/bias.hpp>
#include <alibi/base/thread_priority.hpp>
#include <alibi/io/output_file.hpp>
#include <alibi/render/plot.hpp>

#include <QApplication>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QEventLoop>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QFutureWatcher>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QPainter>
#include <QProgressDialog>
#include <QPushButton>
#include <QScrollArea>
#include <QTimer>
#include <QtConcurrent/QtConcurrentRun>

namespace alibi::qt {

Result<ExportPlan> planSessionExport(const Session& session, ExportWhat what, const std::string& path,
                                     FileFormat format, const FreeSpaceFn& freeSpace) {
    const BiasParams& b = session.attention.bias;
    switch (what) {
        case ExportWhat::Bias:
        case ExportWhat::Attention: {
            // A session's batch exports as the whole (B, H, T, T) batch, as `alibi bias` writes it.
            auto e = what == ExportWhat::Bias ? sessionBiasExport(session, path, format)
                                              : sessionAttentionExport(session, path, format);
            if (!e) return std::unexpected(e.error());
            return planExport(*e->source, e->request, freeSpace);
        }
        case ExportWhat::Slopes: {
            auto tensor = slopesTensor(b.slopes);
            if (!tensor) return std::unexpected(tensor.error());
            ExportRequest r;
            r.path = path;
            r.format = format;
            r.tensorName = "slopes";
            return planExport(*tensorSource(*tensor), r, freeSpace);
        }
    }
    return fail(ErrorCode::Internal, "unknown export kind");
}

namespace {

QString fileExtension(FileFormat f) { return QString::fromUtf8(formatName(f).data()); }

}  // namespace

ExportDialog::ExportDialog(SessionModel* model, FreeSpaceFn freeSpace, QWidget* parent)
    : QDialog(parent), m_model(model), m_freeSpace(std::move(freeSpace)) {
    setWindowTitle("Export tensor");
    auto* form = new QFormLayout(this);
    whatBox = new QComboBox(this);
    whatBox->addItem("Bias", static_cast<int>(ExportWhat::Bias));
    whatBox->addItem("Attention probabilities", static_cast<int>(ExportWhat::Attention));
    whatBox->addItem("Slopes", static_cast<int>(ExportWhat::Slopes));
    formatBox = new QComboBox(this);
    for (FileFormat f : {FileFormat::Npy, FileFormat::Safetensors, FileFormat::Csv, FileFormat::Json, FileFormat::Raw})
        formatBox->addItem(fileExtension(f), static_cast<int>(f));
    pathEdit = new QLineEdit(QDir::current().filePath("bias.npy"), this);
    browseButton = new QPushButton("Browse…", this);
    auto* pathRow = new QHBoxLayout;
    pathRow->addWidget(pathEdit, 1);
    pathRow->addWidget(browseButton);
    summaryLabel = new QLabel(this);
    summaryLabel->setWordWrap(true);
    summaryLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    problemLabel = new QLabel(this);
    problemLabel->setWordWrap(true);
    problemLabel->setStyleSheet("color: #e0433b;");
    fixButton = new QPushButton("Use mask = min", this);
    fixButton->setToolTip("Set the mask to the dtype's lowest finite value, so masked entries stay finite");
    buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons->button(QDialogButtonBox::Ok)->setText("Export");
    form->addRow("Export", whatBox);
    form->addRow("Format", formatBox);
    form->addRow("File", pathRow);
    form->addRow("Will write", summaryLabel);
    form->addRow(problemLabel);
    form->addRow(fixButton);
    form->addRow(buttons);
    setMinimumWidth(560);

    connect(whatBox, &QComboBox::currentIndexChanged, this, &ExportDialog::onFormatChosen);
    connect(formatBox, &QComboBox::currentIndexChanged, this, &ExportDialog::onFormatChosen);
    connect(pathEdit, &QLineEdit::textChanged, this, &ExportDialog::refresh);
    connect(browseButton, &QPushButton::clicked, this, [this] {
        const QString chosen = QFileDialog::getSaveFileName(this, "Export tensor", path());
        if (!chosen.isEmpty()) pathEdit->setText(chosen);
    });
    connect(fixButton, &QPushButton::clicked, this, [this] { m_model->setMask("min"); });
    connect(m_model, &SessionModel::sessionChanged, this, &ExportDialog::refresh);
    connect(buttons, &QDialogButtonBox::accepted, this, [this] {
        refresh();
        if (m_plan && m_plan->allowed() && !path().isEmpty()) accept();
    });
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    refresh();
}

ExportWhat ExportDialog::what() const { return static_cast<ExportWhat>(whatBox->currentData().toInt()); }
FileFormat ExportDialog::format() const { return static_cast<FileFormat>(formatBox->currentData().toInt()); }
QString ExportDialog::path() const { return pathEdit->text().trimmed(); }

void ExportDialog::onFormatChosen() {
    // Keep the folder and the name the user typed; follow the choice in name and extension.
    QFileInfo info(path());
    const QString base = what() == ExportWhat::Bias ? "bias" : what() == ExportWhat::Attention ? "attention" : "slopes";
    const QString stem = QStringList{"bias", "attention", "slopes"}.contains(info.completeBaseName()) ? base
                                                                                                      : info.completeBaseName();
    pathEdit->setText(QDir(info.path()).filePath(stem + "." + fileExtension(format())));
}

void ExportDialog::refresh() {
    auto* ok = buttons->button(QDialogButtonBox::Ok);
    auto planned = planSessionExport(m_model->session(), what(), path().toStdString(), format(), m_freeSpace);
    if (!planned) {
        m_plan.reset();
        summaryLabel->setText("—");
        problemLabel->setText(QString::fromStdString(planned.error().message));
        problemLabel->setVisible(true);
        fixButton->setVisible(false);
        ok->setEnabled(false);
        return;
    }
    m_plan = std::move(*planned);
    summaryLabel->setText(QString::fromStdString(m_plan->summary()));
    const QString problem = QString::fromStdString(m_plan->allowed() ? m_plan->warning : m_plan->reason);
    problemLabel->setText(problem.isEmpty() ? QString() : (m_plan->allowed() ? "Note: " : "Cannot export: ") + problem);
    problemLabel->setVisible(!problem.isEmpty());
    fixButton->setVisible(m_plan->fix == ExportFix::UseMaskMin);
    ok->setEnabled(m_plan->allowed() && !path().isEmpty());
}

// ---------------------------------------------------------------------------
// The controller

namespace {

struct ExportProgress {
    std::atomic<std::uint64_t> done{0}, total{0};
};

}  // namespace

ExportController::ExportController(SessionModel* model, QWidget* window)
    : QObject(window), m_model(model), m_window(window) {
    m_pool.setMaxThreadCount(1);
}

Result<void> ExportController::exportTensorTo(const QString& path, ExportWhat what, FileFormat format,
                                        const ProgressFn& observer) {
    if (m_exporting) return fail(ErrorCode::InvalidArgument, "an export is already running; wait for it or cancel it");
    // The same rules as the CLI, before anything is opened for writing.
    auto plan = planSessionExport(m_model->session(), what, path.toStdString(), format, m_freeSpace);
    if (!plan) return std::unexpected(plan.error());
    if (auto ok = plan->check(); !ok) return ok;
    m_exporting = true;
    m_cancel = false;
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
                return !m_cancel.load();
            });
        } catch (const std::bad_alloc&) {
            return fail(ErrorCode::TooLarge, "export ran out of memory; lower H or T, or export the bias instead of attention");
        } catch (const std::exception& e) {
            return fail(ErrorCode::Internal, std::string("export failed unexpectedly: ") + e.what());
        }
    };
    QFutureWatcher<Result<void>> watcher;
    QProgressDialog dialog(QString("Exporting to %1…").arg(QFileInfo(path).fileName()), "Cancel", 0, 1000, m_window);
    dialog.setWindowTitle("Export tensor");
    dialog.setWindowModality(Qt::WindowModal);
    dialog.setMinimumDuration(400);
    dialog.setAutoClose(false);
    dialog.setAutoReset(false);
    connect(&dialog, &QProgressDialog::canceled, this, [this] { m_cancel = true; });
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
    watcher.setFuture(QtConcurrent::run(&m_pool, job));
    poll.start();
    dialog.setValue(0);
    if (!watcher.isFinished()) loop.exec();
    poll.stop();
    Result<void> result = watcher.result();
    m_exporting = false;
    if (result) emit statusMessage("Exported " + path, 5000);
    else if (result.error().code == ErrorCode::Cancelled) emit statusMessage("Export cancelled; no file written", 5000);
    return result;
}

void ExportController::exportTensorDialog(const std::function<void(ExportDialog&)>& drive) {
    ExportDialog dialog(m_model, m_freeSpace, m_window);
    if (drive) {
        // Tests: act on the open dialog, then go on as if its button had been pressed.
        dialog.show();
        drive(dialog);
        if (dialog.result() != QDialog::Accepted) return;
    } else if (dialog.exec() != QDialog::Accepted) {
        return;
    }
    auto result = exportTensorTo(dialog.path(), dialog.what(), dialog.format());
    if (!result && result.error().code != ErrorCode::Cancelled)
        emit failed("Export failed", QString::fromStdString(result.error().message));
}

bool ExportController::exportViewPng(QWidget* view, HeadGridView* grid, const QString& path, int scale) {
    // A wide tab sits in a scroll area: the picture is its whole page, not the visible part.
    if (auto* area = qobject_cast<QScrollArea*>(view); area && area->widget()) view = area->widget();
    QImage image(view->size() * scale, QImage::Format_ARGB32_Premultiplied);
    image.setDevicePixelRatio(scale);
    image.fill(m_window->palette().color(QPalette::Window));
    // The heatmap is rendered again at the export's pixel size (a 2x PNG shows twice the cells
    // per side where the tensor has them), not the on-screen image scaled up.
    const GridPtr shown = grid ? grid->grid() : nullptr;
    GridPtr sharp;
    if (shown && shown->devicePixelRatio != scale) {
        QApplication::setOverrideCursor(Qt::WaitCursor);
        explore::Request request;
        request.session = shown->session;
        request.gridWidth = grid->imageRect().width() * scale;
        request.gridHeight = grid->imageRect().height() * scale;
        request.devicePixelRatio = scale;
        request.reduce = shown->gridParams.reduce;
        request.logScale = shown->gridParams.logScale;
        auto rendered = explore::computeGrid(request);
        QApplication::restoreOverrideCursor();
        if (!rendered) {
            emit failed("Cannot export view", QString::fromStdString(rendered.error().message));
            return false;
        }
        sharp = std::make_shared<const explore::GridSnapshot>(std::move(*rendered));
        grid->swapGridForExport(sharp);
    }
    // The dashed frame of the selected head is a screen aid, not part of the picture.
    const int selected = m_model->session().head;
    if (grid) {
        grid->setSelectedHead(-1);
        grid->setHighlightedHead(-1);
    }
    {
        QPainter painter(&image);
        view->render(&painter);
    }
    if (grid) grid->setSelectedHead(selected);
    if (sharp) grid->swapGridForExport(shown);
    if (!image.save(path, "PNG")) {
        emit failed("Cannot export view", "could not write " + path + " (check the folder exists and is writable)");
        return false;
    }
    emit statusMessage("Saved " + path, 4000);
    return true;
}

void ExportController::exportViewDialog(QWidget* view, HeadGridView* grid) {
    bool ok = false;
    const QString choice = QInputDialog::getItem(m_window, "Export view as PNG", "Scale", {"1x", "2x", "4x"}, 1, false, &ok);
    if (!ok) return;
    const QString path = QFileDialog::getSaveFileName(m_window, "Export view as PNG", "view.png", "PNG images (*.png)");
    if (!path.isEmpty()) exportViewPng(view, grid, path, choice.left(1).toInt());
}

Result<void> ExportController::exportCurvesSvg(const QString& path, int which) {
    const SnapshotPtr s = m_model->snapshot();
    if (!s) return fail(ErrorCode::InvalidArgument, "no curves computed yet");
    PlotStyle style;
    const std::vector<Series>* series = &s->slopeCurves;
    if (which == 0) {
        style.title = "ALiBi slopes per head";
        style.xLabel = "head";
        style.yLabel = "slope";
        style.logY2 = true;
        style.bars = true;  // as the Curves tab shows them
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
    if (!result) emit failed("Cannot export curves", QString::fromStdString(result.error().message));
    return result;
}

void ExportController::exportCurvesDialog() {
    bool ok = false;
    const QStringList choices{"Slopes per head", "Bias vs distance", "Attention vs distance"};
    const QString choice = QInputDialog::getItem(m_window, "Export curves as SVG", "Curves", choices, 0, false, &ok);
    if (!ok) return;
    const QString path = QFileDialog::getSaveFileName(m_window, "Export curves as SVG", "curves.svg", "SVG (*.svg)");
    if (!path.isEmpty()) (void)exportCurvesSvg(path, static_cast<int>(choices.indexOf(choice)));
}

}  // namespace alibi::qt
