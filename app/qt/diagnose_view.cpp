// Diagnose view: text, error heatmap (against correct ALiBi) and the fix of a DiagnosisReport.
#include "diagnose_view.hpp"

#include "compare_view.hpp"
#include "view_util.hpp"

#include <alibi/analysis/buggy_examples.hpp>
#include <alibi/analysis/corrected_session.hpp>
#include <alibi/explore/diagnosis_error_map.hpp>
#include <alibi/explore/diagnosis_report.hpp>

#include <QApplication>
#include <QComboBox>
#include <QEvent>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QMetaObject>
#include <QPointer>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QTextBrowser>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <utility>

using namespace Qt::Literals::StringLiterals;

namespace alibi::qt {

namespace {
constexpr QSize kErrorPixels{900, 600};  // before the panel is laid out
constexpr int kErrorGap = 4;

QString html(const std::string& s) {
    return QString::fromStdString(s).toHtmlEscaped();
}
}  // namespace

DiagnoseView::DiagnoseView(QWidget* parent)
    : QWidget(parent),
      // Without a thread (a process or address-space limit) the map is drawn from the event loop.
      m_mapRunner({.niceness = 2,
                   .post =
                       [this](std::function<void()> f) {
                           QMetaObject::invokeMethod(this, std::move(f), Qt::QueuedConnection);
                       }}),
      m_read(
          this,
          [this](const ReadProgress& p) {
              const QString text = QString::fromStdString(p.text());
              m_progress->setValue(static_cast<int>(std::lround(p.fraction() * 1000)));
              m_progress->setToolTip(text);
              m_status->setText(p.fraction() < 1 ? u"Reading %1: %2"_s.arg(m_reading.toHtmlEscaped(), text)
                                                 : u"Diagnosing %1…"_s.arg(m_reading.toHtmlEscaped()));
              emit progress(p.fraction(), text);
          },
          [this](const Result<DiagnosisReport>& report) {
              hideProgress();
              if (!report && report.error().code == ErrorCode::Cancelled) {
                  m_status->setText(u"Reading %1 stopped; the diagnosis shown stays."_s.arg(m_reading.toHtmlEscaped()));
                  emit cancelled();
                  return;
              }
              show(report);
          }) {
    auto* open = new QPushButton(u"Open tensor…"_s, this);
    open->setToolTip(u"Open a .npy or .safetensors bias tensor (Ctrl+D), or drop one on the window"_s);
    auto* examples = new QComboBox(this);
    examples->addItem(u"Load an example with a known bug"_s);
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
    m_status = new QLabel(u"Open a .npy or .safetensors file of your model's ALiBi bias, or drop it here."_s, this);
    m_status->setWordWrap(true);
    m_progress = new QProgressBar(this);
    m_progress->setObjectName(u"diagnoseProgress"_s);
    m_progress->setRange(0, 1000);
    m_progress->setMaximumWidth(160);
    m_progress->setFormat(u"%p %"_s);
    m_cancel = new QPushButton(u"Cancel"_s, this);
    m_cancel->setObjectName(u"diagnoseCancel"_s);
    m_cancel->setToolTip(u"Stop reading the tensor (the diagnosis shown stays)"_s);
    hideProgress();
    connect(m_cancel, &QPushButton::clicked, this, &DiagnoseView::cancel);
    // The file's status on a line of its own: beside the buttons it was squeezed into a column
    // of five lines at 175 %, taking the height from the error map.
    auto* top = new QHBoxLayout;
    top->addWidget(open);
    top->addWidget(examples);
    top->addWidget(m_progress);
    top->addWidget(m_cancel);
    top->addStretch(1);
    connect(open, &QPushButton::clicked, this, &DiagnoseView::openRequested);
    connect(examples, &QComboBox::activated, this, [this, examples](int index) {
        if (index > 0) openExample(examples->itemText(index));
        examples->setCurrentIndex(0);
    });

    m_text = new QTextBrowser(this);
    m_text->setOpenExternalLinks(false);
    m_text->setMinimumWidth(320);
    m_correct = new QPushButton(u"Open the corrected parameters"_s, this);
    m_correct->setToolTip(
        u"Set the explorer to correct ALiBi with this tensor's shape, mode, mask and dtype "
        "(Ctrl+Z goes back)"_s);
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
    m_image->setMessage(u"The error against correct ALiBi appears here."_s);
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
    layout->addWidget(m_status);
    layout->addWidget(split, 1);

    m_resized = new QTimer(this);
    m_resized->setSingleShot(true);
    m_resized->setInterval(80);
    connect(m_resized, &QTimer::timeout, this, &DiagnoseView::redrawMap);
    m_image->installEventFilter(this);
}

bool DiagnoseView::eventFilter(QObject* watched, QEvent* event) {
    if (watched == m_image && event->type() == QEvent::FontChange) {
        // The caption at the plots' text scale (presentation mode: 0.75 of its 175 %), as the
        // other views' picture captions: at 1280x720 it took five lines from the map's height.
        QFont caption = m_image->font();
        const double scale = qApp->property("alibiPlotTextScale").toDouble();
        if (scale > 0 && scale != 1.0) caption.setPointSizeF(caption.pointSizeF() * std::clamp(scale, 0.25, 4.0));
        m_caption->setFont(caption);
    }
    if (watched == m_image && (event->type() == QEvent::Resize || event->type() == QEvent::FontChange) && m_diagnosis &&
        m_tensor)
        m_resized->start();
    return QWidget::eventFilter(watched, event);
}

QSize DiagnoseView::roomPixels() const {
    const QSize room = (m_image->pictureArea().size() * m_image->devicePixelRatioF()).toSize();
    return room.width() < 64 || room.height() < 64 ? kErrorPixels : room;  // kErrorPixels: not laid out yet
}

void DiagnoseView::redrawMap() {
    if (!m_diagnosis || !m_tensor) return;
    const QSize pixels = roomPixels();
    if (pixels == m_mapAsked) return;  // shown, or drawing
    m_mapAsked = pixels;
    QPointer<DiagnoseView> self(this);
    m_mapRunner.submit([self, tensor = m_tensor, diagnosis = *m_diagnosis, pixels,
                        band = m_image->labelBandFor(pixels)](const explore::JobContext& job) {
        if (job.cancelled()) return;  // a newer size was asked for before this one started
        auto map = explore::diagnosisErrorMap(*tensor, diagnosis, pixels.width(), pixels.height(), kErrorGap, band,
                                              /*squareCells=*/true);
        QMetaObject::invokeMethod(qApp, [self, generation = job.generation(), tensor, pixels, map = std::move(map)] {
            if (self) self->showMap(generation, tensor, pixels, std::move(map));
        });
    });
}

void DiagnoseView::showMap(std::uint64_t generation, const std::shared_ptr<const Tensor>& tensor, QSize pixels,
                           std::optional<explore::DiagnosisErrorMap> map) {
    ++m_mapsDrawn;
    // A drawing for an older size, or for the diagnosis shown before, is dropped.
    if (generation != m_mapRunner.latest() || tensor != m_tensor || !m_diagnosis) return;
    if (map) {
        m_errorMax = map->errorMax;
        m_caption->setText(html(map->caption));
        m_image->setImage(map->map.image, map->map.tiles, Colormap::Magma, explore::diagnosisColorBar(*map, 5));
        m_image->setTileLabels(std::move(map->tileLabels));
    } else {
        m_errorMax = 0;
        if (m_diagnosis->correctParams)
            m_caption->setText(html(explore::diagnosisErrorMapLabels(*m_diagnosis, 0).caption));
        m_image->setMessage(u"No error heatmap: nothing comparable was found."_s);
    }
    m_mapAsked = pixels;
    if (std::exchange(m_mapPending, false)) emit diagnosed(m_codes);
}

DiagnoseView::~DiagnoseView() = default;

QString DiagnoseView::summaryText() const {
    return m_text->toPlainText();
}

void DiagnoseView::start(const QString& what, std::function<Result<DiagnosisReport>(const ReadOptions&)> job) {
    m_reading = what;
    m_status->setText(u"Diagnosing %1…"_s.arg(what.toHtmlEscaped()));
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
    m_status->setText(u"Reading %1 stopped; the diagnosis shown stays."_s.arg(m_reading.toHtmlEscaped()));
    emit cancelled();
}

void DiagnoseView::hideProgress() {
    m_progress->hide();
    m_cancel->hide();
}

void DiagnoseView::openFile(const QString& path) {
    start(QFileInfo(path).fileName(), [path](const ReadOptions& read) { return diagnoseFile(path, read); });
}

void DiagnoseView::openExample(const QString& code) {
    start(u"example: "_s + code, [code](const ReadOptions& read) -> Result<DiagnosisReport> {
        auto tensor = buildBuggyExample(code.toStdString());
        if (!tensor) return std::unexpected(tensor.error());
        return diagnoseTensor(std::make_shared<const Tensor>(std::move(*tensor)), u"example: "_s + code,
                              read.cancelled);
    });
}

void DiagnoseView::show(const Result<DiagnosisReport>& report) {
    m_codes.clear();
    m_diagnosis.reset();
    m_tensor.reset();
    m_source.clear();
    m_errorMax = 0;
    m_mapPending = false;
    m_correct->setVisible(false);
    m_caption->clear();
    if (!report) {
        const QString message = shownError(report.error().message);
        m_status->setText(u"<span style='color:#d33'>"_s + message.toHtmlEscaped() + u"</span>"_s);
        emit failed(message);
        return;
    }
    const Diagnosis& d = report->diagnosis;
    // The core's words (explore::diagnosisReportText, the ImGui explorer's too), set as HTML.
    const explore::DiagnosisReportText words =
        explore::diagnosisReportText(d, report->source.toStdString(), report->shape, report->dtype);
    m_status->setText(html(words.heading));
    const QString red = u"#d33"_s, green = u"#2a2"_s;
    QString text = u"<h3>Diagnosis</h3><p>"_s + html(words.summary) + u"</p><p>"_s + html(words.readAs) + u"</p>"_s;
    text += u"<p style='color:%1'><b>%2</b></p>"_s.arg(words.matches ? green : red, html(words.match));
    if (!words.findings.empty()) {
        text += u"<h3>Findings</h3><ul>"_s;
        for (const explore::DiagnosisFindingText& f : words.findings) {
            m_codes << QString::fromStdString(f.code);
            // A harmless finding is never shown as an error: its effect after softmax says so.
            text += u"<li><b>%1</b> (<span style='color:%2'>%3</span>): %4"_s.arg(
                html(f.code), f.changesAttention ? red : green, html(f.effect), html(f.message));
            if (!f.fix.empty()) text += u"<br><i>"_s + html(f.fix) + u"</i>"_s;
            text += u"</li>"_s;
        }
        text += u"</ul>"_s;
    } else {
        text += u"<p>"_s + html(words.noFindings) + u"</p>"_s;
    }
    if (!words.slopes.empty()) {
        QStringList slopes;
        for (const std::string& slope : words.slopes) slopes << html(slope);
        text += u"<h3>Slopes read off the tensor</h3><p>"_s + slopes.join(u", "_s) + u"</p>"_s;
    }
    text += u"<p>"_s + html(words.maxError) + u"</p>"_s;
    if (!words.firstMismatch.empty()) text += u"<p>"_s + html(words.firstMismatch) + u"</p>"_s;
    m_text->setHtml(text);
    m_diagnosis = d;
    m_tensor = report->tensor;
    m_source = report->source;
    // A fix to open when something is wrong (a finding, or nothing reproduces the tensor).
    m_correct->setVisible(words.offerCorrected);
    // The error map is drawn once, at the panel's size now; diagnosed() follows when it is shown.
    m_image->setMessage(u"Drawing the error against correct ALiBi…"_s);
    m_mapAsked = QSize();
    m_mapPending = true;
    redrawMap();
}

}  // namespace alibi::qt
