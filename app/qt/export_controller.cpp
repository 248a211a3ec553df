// Export planning and the export dialog (see export_controller.hpp).
#include "export_controller.hpp"

#include <alibi/io/session_export.hpp>
#include <alibi/model/attention.hpp>
#include <alibi/model/bias.hpp>

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>

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

}  // namespace alibi::qt
