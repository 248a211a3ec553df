// Export planning and the export dialog (see export_controller.hpp).
#include "export_controller.hpp"

#include "model/background.hpp"

#include <alibi/base/thread_priority.hpp>
#include <alibi/io/output_file.hpp>
#include <alibi/io/session_export.hpp>
#include <alibi/model/attention.hpp>
#include <alibi/model/bias.hpp>

#include <QBuffer>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QEventLoop>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QFutureWatcher>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProgressDialog>
#include <QPushButton>
#include <QTimer>

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

// Runs `dialog` modally and tells whether it was accepted. Tests pass `drive`, which acts on the
// open dialog instead of a user; the export then goes on as if its button had been pressed.
template <typename Dialog>
bool accepted(Dialog& dialog, const std::function<void(Dialog&)>& drive) {
    if (!drive) return dialog.exec() == QDialog::Accepted;
    dialog.show();
    drive(dialog);
    return dialog.result() == QDialog::Accepted;
}

QString fileExtension(FileFormat f) {
    return QString::fromUtf8(formatName(f).data());
}

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

ExportWhat ExportDialog::what() const {
    return static_cast<ExportWhat>(whatBox->currentData().toInt());
}
FileFormat ExportDialog::format() const {
    return static_cast<FileFormat>(formatBox->currentData().toInt());
}
QString ExportDialog::path() const {
    return pathEdit->text().trimmed();
}

void ExportDialog::onFormatChosen() {
    // Keep the folder and the name the user typed; follow the choice in name and extension.
    QFileInfo info(path());
    const QString base = what() == ExportWhat::Bias ? "bias" : what() == ExportWhat::Attention ? "attention" : "slopes";
    const QString stem =
        QStringList{"bias", "attention", "slopes"}.contains(info.completeBaseName()) ? base : info.completeBaseName();
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
    : QObject(window), m_model(model), m_window(window) {}

Result<void> ExportController::exportTensorTo(const QString& path, ExportWhat what, FileFormat format,
                                              const ProgressFn& observer) {
    if (m_exporting) return fail(ErrorCode::InvalidArgument, "an export is already running; wait for it or cancel it");
    // The same rules as the CLI, before anything is opened for writing.
    auto plan = planSessionExport(m_model->session(), what, path.toStdString(), format, m_freeSpace);
    if (!plan) return std::unexpected(plan.error());
    if (auto ok = plan->check(); !ok) return ok;
    const Session session = m_model->session();
    const std::string target = path.toStdString();
    Result<void> result = runInBackground(
        "Export tensor", QString("Exporting to %1…").arg(QFileInfo(path).fileName()),
        [session, what, target, format](const ProgressFn& progress) {
            return exportSessionTensor(session, what, target, format, progress);
        },
        [](std::uint64_t done, std::uint64_t total) {
            return QString("Exporting… %1 of %2")
                .arg(QString::fromStdString(humanBytes(done)))
                .arg(QString::fromStdString(humanBytes(total)));
        },
        observer);
    if (result)
        emit statusMessage("Exported " + path, 5000);
    else if (result.error().code == ErrorCode::Cancelled)
        emit statusMessage("Export cancelled; no file written", 5000);
    return result;
}

Result<void> ExportController::runInBackground(const QString& title, const QString& label,
                                               std::function<Result<void>(const ProgressFn&)> work,
                                               std::function<QString(std::uint64_t, std::uint64_t)> describe,
                                               const ProgressFn& observer) {
    m_exporting = true;
    m_cancel = false;
    auto progress = std::make_shared<ExportProgress>();
    auto job = [this, progress, work = std::move(work), observer]() -> Result<void> {
        // The core reports errors as values; a stray exception (e.g. bad_alloc) must still end
        // as a message, not as a crash of the explorer.
        if (t_inBackground) lowerThisThreadPriority(10);  // the export's thread; the UI comes first
        try {
            return work([&](std::uint64_t done, std::uint64_t total) {
                progress->done = done;
                progress->total = total;
                if (observer && !observer(done, total)) return false;
                return !m_cancel.load();
            });
        } catch (const std::bad_alloc&) {
            return fail(ErrorCode::TooLarge, "export ran out of memory; lower H or T, or the figure's size or scale");
        } catch (const std::exception& e) {
            return fail(ErrorCode::Internal, std::string("export failed unexpectedly: ") + e.what());
        }
    };
    // The UI keeps running in this loop while the pool works; the dialog appears only for
    // exports slower than 400 ms.
    QFutureWatcher<Result<void>> watcher;
    QProgressDialog dialog(label, "Cancel", 0, 1000, m_window);
    dialog.setWindowTitle(title);
    dialog.setWindowModality(Qt::WindowModal);
    dialog.setMinimumDuration(400);
    dialog.setAutoClose(false);
    dialog.setAutoReset(false);
    connect(&dialog, &QProgressDialog::canceled, this, [this] { m_cancel = true; });
    QTimer poll;
    poll.setInterval(50);
    connect(&poll, &QTimer::timeout, &dialog, [&dialog, progress, &describe] {
        const std::uint64_t total = progress->total.load(), done = progress->done.load();
        if (total > 0)
            dialog.setValue(static_cast<int>(1000.0 * static_cast<double>(done) / static_cast<double>(total)));
        dialog.setLabelText(describe(done, total));
    });
    QEventLoop loop;
    connect(&watcher, &QFutureWatcher<Result<void>>::finished, &loop, &QEventLoop::quit);
    watcher.setFuture(alibi::qt::runInBackground(job));  // finishes even without a thread (issue 25)
    poll.start();
    dialog.setValue(0);
    if (!watcher.isFinished()) loop.exec();
    poll.stop();
    Result<void> result = watcher.result();
    m_exporting = false;
    return result;
}

void ExportController::exportTensorDialog(const std::function<void(ExportDialog&)>& drive) {
    ExportDialog dialog(m_model, m_freeSpace, m_window);
    if (!accepted(dialog, drive)) return;
    auto result = exportTensorTo(dialog.path(), dialog.what(), dialog.format());
    if (!result && result.error().code != ErrorCode::Cancelled)
        emit failed("Export failed", QString::fromStdString(result.error().message));
}

Result<QSize> ExportController::exportFigure(const FigureJob& job, const ProgressFn& observer) {
    const auto refuse = [this](const Error& error) -> Result<QSize> {
        if (error.code == ErrorCode::Cancelled)
            emit statusMessage("Figure export cancelled; no file written", 5000);
        else
            emit failed("Cannot export the figure", QString::fromStdString(error.message));
        return std::unexpected(error);
    };
    if (m_exporting)
        return refuse({ErrorCode::InvalidArgument, "an export is already running; wait for it or cancel it"});
    if (job.path.isEmpty()) return refuse({ErrorCode::InvalidArgument, "no file name given for the figure"});
    if (job.svg && !job.svgOffered())
        return refuse({ErrorCode::InvalidArgument, "this view is a heatmap: export it as PNG (1x, 2x or 4x)"});
    const std::string target = job.path.toStdString();
    const QSize pixels = job.pixelSize();
    Result<void> result = runInBackground(
        "Export figure", QString("Drawing %1…").arg(QFileInfo(job.path).fileName()),
        [job, target](const ProgressFn& progress) -> Result<void> {
            auto bytes = renderFigureFile(job, progress);
            if (!bytes) return std::unexpected(bytes.error());
            // Drawn whole, then written atomically: a failure never leaves a partial file.
            return writeFileAtomic(target, *bytes);
        },
        [](std::uint64_t done, std::uint64_t total) {
            return total > 0 ? QString("Drawing the figure… %1%").arg(100 * done / total)
                             : QString("Drawing the figure…");
        },
        observer);
    if (!result) return refuse(result.error());
    emit statusMessage(QString("Saved %1 (%2 x %3 %4)")
                           .arg(job.path)
                           .arg(pixels.width())
                           .arg(pixels.height())
                           .arg(job.svg ? "SVG" : "px"),
                       8000);
    return pixels;
}

void ExportController::exportFigureDialog(const FigureSubject& subject,
                                          const std::function<void(FigureExportDialog&)>& drive) {
    FigureExportDialog dialog(subject, m_window);
    if (!accepted(dialog, drive)) return;
    dialog.remember();
    (void)exportFigure(dialog.job());
}

Result<void> ExportController::exportWindowPng(QWidget* window, const QString& path) {
    // A screenshot of the window as it is on screen (controls, tables and all), at the
    // screen's pixel ratio; figures for slides come from exportFigure.
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    if (!window->grab().save(&buffer, "PNG")) return fail(ErrorCode::Internal, "could not encode the window as PNG");
    auto result = writeFileAtomic(path.toStdString(),
                                  std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size())));
    if (result)
        emit statusMessage("Saved " + path, 5000);
    else
        emit failed("Cannot save the window", QString::fromStdString(result.error().message));
    return result;
}

void ExportController::exportWindowDialog(QWidget* window) {
    const QString path =
        QFileDialog::getSaveFileName(m_window, "Export window as PNG", "window.png", "PNG images (*.png)");
    if (!path.isEmpty()) (void)exportWindowPng(window, path);
}

}  // namespace alibi::qt
