// Export planning and the export dialog (see export_controller.hpp).
#include "export_controller.hpp"

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
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProgressDialog>
#include <QPushButton>
#include <QTimer>

using namespace Qt::Literals::StringLiterals;

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
    setWindowTitle(u"Export tensor"_s);
    auto* form = new QFormLayout(this);
    whatBox = new QComboBox(this);
    whatBox->addItem(u"Bias"_s, static_cast<int>(ExportWhat::Bias));
    whatBox->addItem(u"Attention probabilities"_s, static_cast<int>(ExportWhat::Attention));
    whatBox->addItem(u"Slopes"_s, static_cast<int>(ExportWhat::Slopes));
    formatBox = new QComboBox(this);
    for (FileFormat f : {FileFormat::Npy, FileFormat::Safetensors, FileFormat::Csv, FileFormat::Json, FileFormat::Raw})
        formatBox->addItem(fileExtension(f), static_cast<int>(f));
    pathEdit = new QLineEdit(QDir::current().filePath(u"bias.npy"_s), this);
    browseButton = new QPushButton(u"Browse…"_s, this);
    auto* pathRow = new QHBoxLayout;
    pathRow->addWidget(pathEdit, 1);
    pathRow->addWidget(browseButton);
    summaryLabel = new QLabel(this);
    summaryLabel->setWordWrap(true);
    summaryLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    problemLabel = new QLabel(this);
    problemLabel->setWordWrap(true);
    problemLabel->setStyleSheet(u"color: #e0433b;"_s);
    fixButton = new QPushButton(u"Use mask = min"_s, this);
    fixButton->setToolTip(u"Set the mask to the dtype's lowest finite value, so masked entries stay finite"_s);
    buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons->button(QDialogButtonBox::Ok)->setText(u"Export"_s);
    form->addRow(u"Export"_s, whatBox);
    form->addRow(u"Format"_s, formatBox);
    form->addRow(u"File"_s, pathRow);
    form->addRow(u"Will write"_s, summaryLabel);
    form->addRow(problemLabel);
    form->addRow(fixButton);
    form->addRow(buttons);
    setMinimumWidth(560);

    connect(whatBox, &QComboBox::currentIndexChanged, this, &ExportDialog::onFormatChosen);
    connect(formatBox, &QComboBox::currentIndexChanged, this, &ExportDialog::onFormatChosen);
    connect(pathEdit, &QLineEdit::textChanged, this, &ExportDialog::refresh);
    connect(browseButton, &QPushButton::clicked, this, [this] {
        const QString chosen = QFileDialog::getSaveFileName(this, u"Export tensor"_s, path());
        if (!chosen.isEmpty()) pathEdit->setText(chosen);
    });
    connect(fixButton, &QPushButton::clicked, this, [this] { m_model->setMask(u"min"_s); });
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
    const QString base = what() == ExportWhat::Bias        ? u"bias"_s
                         : what() == ExportWhat::Attention ? u"attention"_s
                                                           : u"slopes"_s;
    const QString stem = QStringList{u"bias"_s, u"attention"_s, u"slopes"_s}.contains(info.completeBaseName())
                             ? base
                             : info.completeBaseName();
    pathEdit->setText(QDir(info.path()).filePath(stem + u"."_s + fileExtension(format())));
}

void ExportDialog::refresh() {
    auto* ok = buttons->button(QDialogButtonBox::Ok);
    auto planned = planSessionExport(m_model->session(), what(), path().toStdString(), format(), m_freeSpace);
    if (!planned) {
        m_plan.reset();
        summaryLabel->setText(u"—"_s);
        problemLabel->setText(QString::fromStdString(planned.error().message));
        problemLabel->setVisible(true);
        fixButton->setVisible(false);
        ok->setEnabled(false);
        return;
    }
    m_plan = std::move(*planned);
    summaryLabel->setText(QString::fromStdString(m_plan->summary()));
    const QString problem = QString::fromStdString(m_plan->allowed() ? m_plan->warning : m_plan->reason);
    problemLabel->setText(problem.isEmpty() ? QString()
                                            : (m_plan->allowed() ? u"Note: "_s : u"Cannot export: "_s) + problem);
    problemLabel->setVisible(!problem.isEmpty());
    fixButton->setVisible(m_plan->fix == ExportFix::UseMaskMin);
    ok->setEnabled(m_plan->allowed() && !path().isEmpty());
}

// ---------------------------------------------------------------------------
// The controller

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
        u"Export tensor"_s, u"Exporting to %1…"_s.arg(QFileInfo(path).fileName()),
        [session, what, target, format](const ProgressFn& progress) {
            return exportSessionTensor(session, what, target, format, progress);
        },
        [](std::uint64_t done, std::uint64_t total) {
            return u"Exporting… %1 of %2"_s.arg(QString::fromStdString(humanBytes(done)))
                .arg(QString::fromStdString(humanBytes(total)));
        },
        observer);
    if (result)
        emit statusMessage(u"Exported "_s + path, 5000);
    else if (result.error().code == ErrorCode::Cancelled)
        emit statusMessage(u"Export cancelled; no file written"_s, 5000);
    return result;
}

Result<void> ExportController::runInBackground(const QString& title, const QString& label,
                                               std::function<Result<void>(const ProgressFn&)> work,
                                               std::function<QString(std::uint64_t, std::uint64_t)> describe,
                                               const ProgressFn& observer) {
    m_exporting = true;
    m_cancel = false;
    QEventLoop loop;
    auto outcome = std::make_shared<std::optional<Result<void>>>();
    auto done = std::make_shared<std::atomic<bool>>(false);
    // On the core's runner (a low-priority thread, or here when the system refuses one); the job
    // reports its progress to the runner, which the dialog polls.
    m_runner.submit([this, outcome, done, work = std::move(work), observer](const explore::JobContext& job) {
        // The core reports errors as values; a stray exception (e.g. bad_alloc) must still end
        // as a message, not as a crash of the explorer.
        try {
            *outcome = work([&](std::uint64_t done, std::uint64_t total) {
                const bool going = job.report(done, total);
                if (observer && !observer(done, total)) return false;
                return going && !m_cancel.load();
            });
        } catch (const std::bad_alloc&) {
            *outcome =
                fail(ErrorCode::TooLarge, "export ran out of memory; lower H or T, or the figure's size or scale");
        } catch (const std::exception& e) {
            *outcome = fail(ErrorCode::Internal, std::string("export failed unexpectedly: ") + e.what());
        }
        done->store(true);
        QMetaObject::invokeMethod(
            this,
            [this] {
                if (m_loop != nullptr) m_loop->quit();
            },
            Qt::QueuedConnection);
    });
    // The UI keeps running in this loop while the runner works; the dialog appears only for
    // exports slower than 400 ms.
    QProgressDialog dialog(label, u"Cancel"_s, 0, 1000, m_window);
    dialog.setWindowTitle(title);
    dialog.setWindowModality(Qt::WindowModal);
    dialog.setMinimumDuration(400);
    dialog.setAutoClose(false);
    dialog.setAutoReset(false);
    connect(&dialog, &QProgressDialog::canceled, this, [this] { m_cancel = true; });
    QTimer poll;
    poll.setInterval(50);
    connect(&poll, &QTimer::timeout, &dialog, [this, &dialog, &describe] {
        const auto progress = m_runner.progress();
        if (progress)
            dialog.setValue(static_cast<int>(1000.0 * static_cast<double>(progress->first) /
                                             static_cast<double>(progress->second)));
        dialog.setLabelText(describe(progress ? progress->first : 0, progress ? progress->second : 0));
    });
    poll.start();
    dialog.setValue(0);
    m_loop = &loop;
    while (!done->load()) loop.exec();
    m_loop = nullptr;
    poll.stop();
    m_exporting = false;
    return outcome->value_or(fail(ErrorCode::Internal, "the export did not run"));
}

void ExportController::exportTensorDialog(const std::function<void(ExportDialog&)>& drive) {
    ExportDialog dialog(m_model, m_freeSpace, m_window);
    if (!accepted(dialog, drive)) return;
    auto result = exportTensorTo(dialog.path(), dialog.what(), dialog.format());
    if (!result && result.error().code != ErrorCode::Cancelled)
        emit failed(u"Export failed"_s, QString::fromStdString(result.error().message));
}

Result<QSize> ExportController::exportFigure(const FigureJob& job, const ProgressFn& observer) {
    const auto refuse = [this](const Error& error) -> Result<QSize> {
        if (error.code == ErrorCode::Cancelled)
            emit statusMessage(u"Figure export cancelled; no file written"_s, 5000);
        else
            emit failed(u"Cannot export the figure"_s, QString::fromStdString(error.message));
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
        u"Export figure"_s, u"Drawing %1…"_s.arg(QFileInfo(job.path).fileName()),
        [job, target](const ProgressFn& progress) -> Result<void> {
            auto bytes = renderFigureFile(job, progress);
            if (!bytes) return std::unexpected(bytes.error());
            // Drawn whole, then written atomically: a failure never leaves a partial file.
            return writeFileAtomic(target, *bytes);
        },
        [](std::uint64_t done, std::uint64_t total) {
            return total > 0 ? u"Drawing the figure… %1%"_s.arg(100 * done / total) : u"Drawing the figure…"_s;
        },
        observer);
    if (!result) return refuse(result.error());
    emit statusMessage(u"Saved %1 (%2 x %3 %4)"_s.arg(job.path)
                           .arg(pixels.width())
                           .arg(pixels.height())
                           .arg(job.svg ? u"SVG"_s : u"px"_s),
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
        emit statusMessage(u"Saved "_s + path, 5000);
    else
        emit failed(u"Cannot save the window"_s, QString::fromStdString(result.error().message));
    return result;
}

void ExportController::exportWindowDialog(QWidget* window) {
    const QString path =
        QFileDialog::getSaveFileName(m_window, u"Export window as PNG"_s, u"window.png"_s, u"PNG images (*.png)"_s);
    if (!path.isEmpty()) (void)exportWindowPng(window, path);
}

}  // namespace alibi::qt
