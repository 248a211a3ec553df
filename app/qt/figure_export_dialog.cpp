// The figure export dialog and the figure file of a job (see figure_export_dialog.hpp).
#include "figure_export_dialog.hpp"

#include <alibi/base/image_size.hpp>
#include <alibi/figure/figure_job.hpp>
#include <alibi/render/png.hpp>

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
#include <QRegularExpression>
#include <QSettings>
#include <QSpinBox>

using namespace Qt::Literals::StringLiterals;

namespace alibi::qt {

namespace {

constexpr const char* kGroup = "figureExport";
// The size spin boxes' range at 1x; the core refuses what it cannot draw (a side over its
// limit at the chosen scale) with a message, shown when the export runs.
constexpr int kMinSide = 64;

// The format box's items: PNG at a scale (1, 2, 4), or SVG (0).
constexpr int kSvgItem = 0;

QString extensionOf(bool svg) {
    return svg ? u"svg"_s : u"png"_s;
}

}  // namespace

bool FigureJob::svgOffered() const {
    return subject.kind == FigureSubject::Kind::View && viewFigureIsVector(subject.request.view);
}

QString FigureJob::defaultFileName() const {
    if (subject.kind == FigureSubject::Kind::Diagnosis) {
        // "example: slope-off-by-one" or "my_bias.npy" -> a plain file name
        QString stem = QFileInfo(QString::fromStdString(subject.source)).completeBaseName();
        stem.remove(QRegularExpression(u"^example: *"_s));
        stem.replace(QRegularExpression(u"[^A-Za-z0-9_.-]+"_s), u"-"_s);
        return (stem.isEmpty() ? u"diagnosis"_s : u"diagnosis-"_s + stem) + u".png"_s;
    }
    return QString::fromStdString(viewFigureFileName(subject.request, svg));
}

Result<std::string> renderFigureFile(const FigureJob& job, const ProgressFn& progress) {
    // The core's figure job, as the ImGui explorer's File > Export figure uses it.
    const FigureSubject& s = job.subject;
    FigureJobRequest r;
    r.view = s.request;
    r.width = s.request.session.width;
    r.height = s.request.session.height;
    r.scale = s.request.scale;
    r.svg = job.svg;
    if (s.kind == FigureSubject::Kind::Diagnosis) {
        if (!s.tensor || !s.diagnosis)
            return fail(ErrorCode::InvalidArgument,
                        "no tensor diagnosed yet: open one with File > Open tensor to diagnose");
        r.kind = FigureJobRequest::Kind::Diagnosis;
        r.tensor = s.tensor;
        r.diagnosis = s.diagnosis;
        r.source = s.source;
    }
    auto file = renderFigureJob(r, progress);
    if (!file) return std::unexpected(file.error());
    return std::move(file->bytes);
}

FigureExportDialog::FigureExportDialog(FigureSubject subject, QWidget* parent)
    : QDialog(parent), m_subject(std::move(subject)) {
    setWindowTitle(u"Export figure — "_s + m_subject.tabName);
    QSettings settings;
    settings.beginGroup(kGroup);
    auto* form = new QFormLayout(this);

    plotBox = new QComboBox(this);
    plotBox->addItem(u"Slopes per head"_s, static_cast<int>(CurveKind::Slopes));
    plotBox->addItem(u"Bias vs distance"_s, static_cast<int>(CurveKind::BiasDistance));
    plotBox->addItem(u"Attention vs distance"_s, static_cast<int>(CurveKind::AttentionDistance));
    plotBox->setCurrentIndex(std::max(0, plotBox->findData(settings.value(u"curves"_s, 0).toInt())));

    formatBox = new QComboBox(this);
    for (const int scale : {1, 2, 4}) formatBox->addItem(u"PNG %1x"_s.arg(scale), scale);
    FigureJob probe{m_subject, false, {}};
    if (probe.svgOffered()) formatBox->addItem(u"SVG"_s, kSvgItem);
    formatBox->setToolTip(
        u"PNG: the figure drawn at 1, 2 or 4 times its size (text, lines and heatmaps at that "
        "resolution, not an upscaled picture); SVG for views drawn from lines and text"_s);
    const int remembered = formatBox->findData(settings.value(u"format"_s, 2).toInt());
    formatBox->setCurrentIndex(remembered >= 0 ? remembered : formatBox->findData(2));

    widthBox = new QSpinBox(this);
    heightBox = new QSpinBox(this);
    for (QSpinBox* box : {widthBox, heightBox}) {
        box->setRange(kMinSide, kMaxImageSide);
        box->setSuffix(u" px"_s);
        box->setKeyboardTracking(true);
    }
    widthBox->setValue(settings.value(u"width"_s, m_subject.request.session.width).toInt());
    heightBox->setValue(settings.value(u"height"_s, m_subject.request.session.height).toInt());
    widthBox->setToolTip(u"The figure's width at 1x: its layout (fonts, margins) is this size, drawn at the scale"_s);
    heightBox->setToolTip(u"The figure's height at 1x"_s);
    auto* sizeRow = new QHBoxLayout;
    sizeRow->addWidget(widthBox);
    sizeRow->addWidget(new QLabel(u"×"_s, this));
    sizeRow->addWidget(heightBox);
    sizeRow->addStretch(1);

    const QString folder = settings.value(u"folder"_s, QDir::currentPath()).toString();
    pathEdit = new QLineEdit(this);
    browseButton = new QPushButton(u"Browse…"_s, this);
    auto* pathRow = new QHBoxLayout;
    pathRow->addWidget(pathEdit, 1);
    pathRow->addWidget(browseButton);

    pixelsLabel = new QLabel(this);
    pixelsLabel->setObjectName(u"figurePixels"_s);
    buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons->button(QDialogButtonBox::Ok)->setText(u"Export"_s);

    const bool curves = m_subject.kind == FigureSubject::Kind::View && m_subject.request.view == ExplorerView::Curves;
    if (curves)
        form->addRow(u"Plot"_s, plotBox);
    else
        plotBox->hide();
    form->addRow(u"Format"_s, formatBox);
    form->addRow(u"Size at 1x"_s, sizeRow);
    form->addRow(u"File"_s, pathRow);
    form->addRow(u"Writes"_s, pixelsLabel);
    form->addRow(buttons);
    setMinimumWidth(520);

    m_defaultName = job().defaultFileName();
    pathEdit->setText(QDir(folder).filePath(m_defaultName));
    refresh();

    connect(plotBox, &QComboBox::currentIndexChanged, this, [this] {
        followFileName();
        refresh();
    });
    connect(formatBox, &QComboBox::currentIndexChanged, this, [this] {
        followFileName();
        refresh();
    });
    connect(widthBox, &QSpinBox::valueChanged, this, &FigureExportDialog::refresh);
    connect(heightBox, &QSpinBox::valueChanged, this, &FigureExportDialog::refresh);
    connect(pathEdit, &QLineEdit::textChanged, this, &FigureExportDialog::refresh);
    connect(browseButton, &QPushButton::clicked, this, [this] {
        const bool svg = job().svg;
        const QString chosen = QFileDialog::getSaveFileName(this, windowTitle(), pathEdit->text().trimmed(),
                                                            svg ? u"SVG (*.svg)"_s : u"PNG images (*.png)"_s);
        if (!chosen.isEmpty()) pathEdit->setText(chosen);
    });
    connect(buttons, &QDialogButtonBox::accepted, this, [this] {
        if (!pathEdit->text().trimmed().isEmpty()) accept();
    });
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
}

FigureJob FigureExportDialog::job() const {
    FigureJob j;
    j.subject = m_subject;
    ViewFigureRequest& r = j.subject.request;
    r.session.width = widthBox->value();
    r.session.height = heightBox->value();
    if (r.view == ExplorerView::Curves) r.curves = static_cast<CurveKind>(plotBox->currentData().toInt());
    const int item = formatBox->currentData().toInt();
    j.svg = item == kSvgItem;
    r.scale = j.svg ? 1 : item;
    j.path = pathEdit->text().trimmed();
    return j;
}

void FigureExportDialog::remember() const {
    QSettings settings;
    settings.beginGroup(kGroup);
    settings.setValue(u"format"_s, formatBox->currentData().toInt());
    if (!plotBox->isHidden()) settings.setValue(u"curves"_s, plotBox->currentData().toInt());
    settings.setValue(u"width"_s, widthBox->value());
    settings.setValue(u"height"_s, heightBox->value());
    const QString path = pathEdit->text().trimmed();
    if (!path.isEmpty()) settings.setValue(u"folder"_s, QFileInfo(path).absolutePath());
}

void FigureExportDialog::followFileName() {
    // The default name follows the choice; a name the user typed keeps its stem and only
    // changes its extension.
    const FigureJob j = job();
    const QFileInfo info(j.path);
    const QString folder = j.path.contains(u'/') ? info.path() : QString();
    const QString next = j.defaultFileName();
    QString name = info.fileName() == m_defaultName ? next : info.completeBaseName() + u"."_s + extensionOf(j.svg);
    m_defaultName = next;
    pathEdit->setText(folder.isEmpty() ? name : QDir(folder).filePath(name));
}

void FigureExportDialog::refresh() {
    const FigureJob j = job();
    const QSize px = j.pixelSize();
    pixelsLabel->setText(j.svg ? u"SVG, %1 x %2 (scalable)"_s.arg(px.width()).arg(px.height())
                               : u"%1 x %2 px"_s.arg(px.width()).arg(px.height()));
    buttons->button(QDialogButtonBox::Ok)->setEnabled(!j.path.isEmpty());
}

}  // namespace alibi::qt
