// Diagnose view: text, error heatmap (against correct ALiBi) and the fix of a DiagnosisReport.
#include "diagnose_view.hpp"

#include "compare_view.hpp"
#include "model/background.hpp"
#include "view_util.hpp"

#include <alibi/analysis/buggy_examples.hpp>
#include <alibi/analysis/corrected_session.hpp>
#include <alibi/explore/diagnosis_error_map.hpp>

#include <QComboBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QTextBrowser>
#include <QVBoxLayout>

#include <cmath>

namespace alibi::qt {

namespace {
constexpr QSize kErrorPixels{900, 600};

QString html(const std::string& s) {
    return QString::fromStdString(s).toHtmlEscaped();
}
}  // namespace

DiagnoseView::DiagnoseView(QWidget* parent)
    : QWidget(parent),
      m_read(
          this,
          [this](const ReadProgress& p) {
              const QString text = QString::fromStdString(p.text());
              m_progress->setValue(static_cast<int>(std::lround(p.fraction() * 1000)));
              m_progress->setToolTip(text);
              m_status->setText(p.fraction() < 1 ? QString("Reading %1: %2").arg(m_reading.toHtmlEscaped(), text)
                                                 : QString("Diagnosing %1…").arg(m_reading.toHtmlEscaped()));
              emit progress(p.fraction(), text);
          },
          [this](const Result<DiagnosisReport>& report) {
              hideProgress();
              if (!report && report.error().code == ErrorCode::Cancelled) {
                  m_status->setText(
                      QString("Reading %1 stopped; the diagnosis shown stays.").arg(m_reading.toHtmlEscaped()));
                  emit cancelled();
                  return;
              }
              show(report);
          }) {
    auto* open = new QPushButton("Open tensor…", this);
    open->setToolTip("Open a .npy or .safetensors bias tensor (Ctrl+D), or drop one on the window");
    auto* examples = new QComboBox(this);
    examples->addItem("Load an example with a known bug");
    // Room for its longest text at any font (a presentation's 175 % too), measured in characters.
    examples->setMinimumContentsLength(36);
    examples->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    for (const BuggyExample& example : buggyExamples()) {
        examples->addItem(QString::fromUtf8(example.code.data(), static_cast<qsizetype>(example.code.size())));
        examples->setItemData(
            examples->count() - 1,
            QString::fromUtf8(example.description.data(), static_cast<qsizetype>(example.description.size())),
            Qt::ToolTipRole);
    }
    m_status = new QLabel("Open a .npy or .safetensors file of your model's ALiBi bias, or drop it here.", this);
    m_status->setWordWrap(true);
    m_progress = new QProgressBar(this);
    m_progress->setObjectName("diagnoseProgress");
    m_progress->setRange(0, 1000);
    m_progress->setMaximumWidth(160);
    m_progress->setFormat("%p %");
    m_cancel = new QPushButton("Cancel", this);
    m_cancel->setObjectName("diagnoseCancel");
    m_cancel->setToolTip("Stop reading the tensor (the diagnosis shown stays)");
    hideProgress();
    connect(m_cancel, &QPushButton::clicked, this, &DiagnoseView::cancel);
    auto* top = new QHBoxLayout;
    top->addWidget(open);
    top->addWidget(examples);
    top->addWidget(m_status, 1);
    top->addWidget(m_progress);
    top->addWidget(m_cancel);
    connect(open, &QPushButton::clicked, this, &DiagnoseView::openRequested);
    connect(examples, &QComboBox::activated, this, [this, examples](int index) {
        if (index > 0) openExample(examples->itemText(index));
        examples->setCurrentIndex(0);
    });

    m_text = new QTextBrowser(this);
    m_text->setOpenExternalLinks(false);
    m_text->setMinimumWidth(320);
    m_correct = new QPushButton("Open the corrected parameters", this);
    m_correct->setToolTip(
        "Set the explorer to correct ALiBi with this tensor's shape, mode, mask and dtype "
        "(Ctrl+Z goes back)");
    m_correct->setVisible(false);
    connect(m_correct, &QPushButton::clicked, this, &DiagnoseView::openCorrectedRequested);
    auto* words = new QWidget(this);
    auto* wordsLayout = new QVBoxLayout(words);
    wordsLayout->setContentsMargins(0, 0, 0, 0);
    wordsLayout->addWidget(m_text, 1);
    wordsLayout->addWidget(m_correct, 0, Qt::AlignLeft);

    m_caption = new QLabel(this);
    m_caption->setWordWrap(true);
    m_image = new ImagePanel(this);
    m_image->setMessage("The error against correct ALiBi appears here.");
    auto* picture = new QWidget(this);
    auto* pictureLayout = new QVBoxLayout(picture);
    pictureLayout->setContentsMargins(0, 0, 0, 0);
    pictureLayout->addWidget(m_caption);
    pictureLayout->addWidget(m_image, 1);
    auto* split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(words);
    split->addWidget(picture);
    split->setStretchFactor(0, 2);
    split->setStretchFactor(1, 3);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(8, 8, 8, 8);
    layout->addLayout(top);
    layout->addWidget(split, 1);
}

DiagnoseView::~DiagnoseView() = default;

QString DiagnoseView::summaryText() const {
    return m_text->toPlainText();
}

void DiagnoseView::start(const QString& what, std::function<Result<DiagnosisReport>(const ReadOptions&)> job) {
    m_reading = what;
    m_status->setText(QString("Diagnosing %1…").arg(what.toHtmlEscaped()));
    m_progress->setValue(0);
    m_progress->setToolTip({});
    m_progress->show();
    m_cancel->show();
    m_read.start(std::move(job));  // a read still running is cancelled; finishes even without a thread (issue 25)
}

void DiagnoseView::cancel() {
    if (!m_read.running()) return;
    m_read.cancel();
    hideProgress();
    m_status->setText(QString("Reading %1 stopped; the diagnosis shown stays.").arg(m_reading.toHtmlEscaped()));
    emit cancelled();
}

void DiagnoseView::hideProgress() {
    m_progress->hide();
    m_cancel->hide();
}

void DiagnoseView::openFile(const QString& path) {
    start(QFileInfo(path).fileName(), [path, band = m_image->labelBandFor(kErrorPixels)](const ReadOptions& read) {
        return diagnoseFile(path, kErrorPixels, kDefaultMemoryBudget, band, read);
    });
}

void DiagnoseView::openExample(const QString& code) {
    start("example: " + code,
          [code, band = m_image->labelBandFor(kErrorPixels)](const ReadOptions& read) -> Result<DiagnosisReport> {
              auto tensor = buildBuggyExample(code.toStdString());
              if (!tensor) return std::unexpected(tensor.error());
              return diagnoseTensor(std::make_shared<const Tensor>(std::move(*tensor)), "example: " + code,
                                    kErrorPixels, band, read.cancelled);
          });
}

void DiagnoseView::show(const Result<DiagnosisReport>& report) {
    m_codes.clear();
    m_diagnosis.reset();
    m_tensor.reset();
    m_source.clear();
    m_errorMax = 0;
    m_correct->setVisible(false);
    m_caption->clear();
    if (!report) {
        const QString message = QString::fromStdString(report.error().message);
        m_status->setText("<span style='color:#d33'>" + message.toHtmlEscaped() + "</span>");
        emit failed(message);
        return;
    }
    const Diagnosis& d = report->diagnosis;
    m_status->setText(QString("<b>%1</b> · shape %2 · %3")
                          .arg(report->source.toHtmlEscaped(), QString::fromStdString(shapeString(report->shape)),
                               QString::fromUtf8(dtypeName(report->dtype).data())));
    QString text = "<h3>Diagnosis</h3><p>" + html(d.explorerSummaryText()) + "</p>";
    text += QString("<p>Read as layout <b>%1</b>: %2 heads × %3 queries × %4 keys.</p>")
                .arg(QString::fromUtf8(layoutName(d.layout).data()))
                .arg(d.heads)
                .arg(d.queries)
                .arg(d.keys);
    if (d.match)
        text += QString("<p style='color:#2a2'><b>Reproduced by:</b> %1 slopes, max_bias %2, %3 mode, mask %4.</p>")
                    .arg(QString::fromUtf8(schemeName(d.match->scheme).data()))
                    .arg(d.match->maxBias)
                    .arg(QString::fromUtf8(modeName(d.match->mode).data()))
                    .arg(html(maskName(d.match->mask)));
    else
        text += "<p style='color:#d33'><b>No standard parameter set reproduces this tensor.</b></p>";
    if (!d.findings.empty()) {
        text += "<h3>Findings</h3><ul>";
        for (const Finding& f : d.findings) {
            m_codes << QString::fromStdString(f.code);
            // A harmless finding is never shown as an error: its effect after softmax says so.
            const QString effect =
                f.changesAttention
                    ? QString("<span style='color:#d33'>changes attention, up to %1 in one probability</span>")
                          .arg(f.maxProbabilityChange, 0, 'g', 3)
                    : QString("<span style='color:#2a2'>%1</span>")
                          .arg(f.informational ? "informational, no change after softmax"
                                               : "harmless: no change after softmax");
            text += "<li><b>" + html(f.code) + "</b> (" + effect + "): " + html(f.explorerMessage());
            if (!f.fix.empty()) text += "<br><i>Fix:</i> " + html(f.fix);
            text += "</li>";
        }
        text += "</ul>";
    } else {
        text += "<p>No known bug found.</p>";
    }
    if (!d.inferredSlopes.empty()) {
        text += "<h3>Slopes read off the tensor</h3><p>";
        for (std::size_t h = 0; h < d.inferredSlopes.size(); ++h)
            text += QString("h%1: %2%3")
                        .arg(h)
                        .arg(slopeText(d.inferredSlopes[h]))
                        .arg(h + 1 < d.inferredSlopes.size() ? ", " : "");
        text += "</p>";
    }
    text += QString("<p>Max |error| against the best candidate: %1</p>").arg(valueText(d.maxAbsError));
    if (d.firstMismatchIndex) {
        QStringList idx;
        for (auto v : *d.firstMismatchIndex) idx << QString::number(v);
        text += QString("<p>First mismatch at (%1): actual %2, expected %3.</p>")
                    .arg(idx.join(", "), valueText(d.firstMismatchActual), valueText(d.firstMismatchExpected));
    }
    m_text->setHtml(text);
    m_diagnosis = d;
    m_tensor = report->tensor;
    m_source = report->source;
    m_errorMax = report->errorImage.width > 0 ? report->errorMax : 0.0;
    // A fix to open when something is wrong (a finding, or nothing reproduces the tensor).
    m_correct->setVisible(d.correctParams && (!d.findings.empty() || !d.match));
    if (!report->mapCaption.empty())
        m_caption->setText(html(report->mapCaption));
    else if (d.correctParams)
        m_caption->setText(html(explore::diagnosisErrorMapLabels(d, report->errorMax).caption));
    if (report->errorImage.width > 0) {
        m_image->setImage(report->errorImage, report->tiles, Colormap::Magma, 0,
                          report->errorMax > 0 ? report->errorMax : 1.0, QString::fromStdString(report->barTitle));
        m_image->setTileLabels(report->tileLabels);
    } else
        m_image->setMessage("No error heatmap: nothing comparable was found.");
    emit diagnosed(m_codes);
}

}  // namespace alibi::qt
