// The Model tab: controls over Session::live, Run/Cancel over LiveRunModel, A vs B plots.
#include "live_model_view.hpp"

#include "plot_widget.hpp"

#include <alibi/explore/editing.hpp>
#include <alibi/model/live_model.hpp>

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QEvent>
#include <QFileInfo>
#include <QFontMetricsF>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QTextDocument>
#include <QVBoxLayout>

#include <cmath>

using namespace Qt::Literals::StringLiterals;

namespace alibi::qt {

namespace {

constexpr SlopeScheme kSchemes[] = {SlopeScheme::Press, SlopeScheme::Geometric, SlopeScheme::Linear};

QLabel* wrapping(QWidget* parent) {
    auto* label = new QLabel(parent);
    label->setWordWrap(true);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    return label;
}

}  // namespace

LiveModelView::LiveModelView(SessionModel* session, QWidget* parent)
    : QWidget(parent), m_session(session), m_runner(new LiveRunModel(this)) {
    auto* column = new QVBoxLayout(this);
    column->setContentsMargins(8, 8, 8, 8);

    auto* folderRow = new QHBoxLayout;
    m_folder = new QLabel(this);
    m_folder->setObjectName(u"liveFolder"_s);
    m_folder->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* open = new QPushButton(u"Open model…"_s, this);
    open->setToolTip(
        u"A Hugging Face folder: config.json, model.safetensors (or shards with their index), tokenizer.json"_s);
    auto* example = new QPushButton(u"Example model"_s, this);
    example->setToolTip(u"assets/models/license-bloom-tiny: a 2-layer BLOOM trained on Debian's licence texts"_s);
    folderRow->addWidget(new QLabel(u"Model:"_s, this));
    folderRow->addWidget(m_folder, 1);
    folderRow->addWidget(open);
    folderRow->addWidget(example);
    column->addLayout(folderRow);

    m_text = new QPlainTextEdit(this);
    m_text->setObjectName(u"liveText"_s);
    m_text->setPlaceholderText(u"Type the text the model reads"_s);
    fitTextHeight();
    m_text->installEventFilter(this);
    column->addWidget(m_text);

    m_scale = new QDoubleSpinBox(this);
    m_scale->setObjectName(u"liveScale"_s);
    m_scale->setRange(kSlopeScaleRange.min, kSlopeScaleRange.max);
    m_scale->setDecimals(4);
    m_scale->setSingleStep(0.25);
    m_scale->setToolTip(u"B: every slope times k (1: the model's own)"_s);
    m_scheme = new QComboBox(this);
    m_scheme->setObjectName(u"liveScheme"_s);
    m_scheme->addItem(u"the model's"_s);
    for (SlopeScheme s : kSchemes)
        m_scheme->addItem(QString::fromUtf8(schemeName(s).data(), static_cast<qsizetype>(schemeName(s).size())));
    m_scheme->setToolTip(u"B: the slopes computed by another scheme"_s);
    // Never narrower than its longest item: at 175 % the row would squeeze it below its text.
    m_scheme->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_scheme->setMinimumContentsLength(static_cast<int>(u"the model's"_s.size()) + 1);
    m_maxBiasSet = new QCheckBox(u"max_bias"_s, this);
    m_maxBias = new QDoubleSpinBox(this);
    m_maxBias->setRange(kSlopeMaxBiasRange.min, kSlopeMaxBiasRange.max);
    m_maxBias->setDecimals(3);
    m_maxBias->setValue(8);
    m_heads = new QLineEdit(this);
    m_heads->setObjectName(u"liveHeads"_s);
    m_heads->setPlaceholderText(u"3=0.25, 0=1/2"_s);
    m_heads->setToolTip(u"B: heads' slopes set one by one (heads from 0), after the scale"_s);
    m_length = new QSpinBox(this);
    m_length->setObjectName(u"liveLength"_s);
    m_length->setRange(0, static_cast<int>(kMaxLength));
    m_length->setSpecialValueText(u"every token"_s);
    m_length->setToolTip(
        u"Run the first N tokens of the text (0: every token); beyond the training length is allowed"_s);
    // One row per field: a single row of them does not fit 1280 px at the presentation's 175 %.
    auto* change = new QFormLayout;
    change->setFieldGrowthPolicy(QFormLayout::FieldsStayAtSizeHint);
    change->addRow(u"B: slopes ×"_s, m_scale);
    change->addRow(u"B: scheme"_s, m_scheme);
    change->addRow(m_maxBiasSet, m_maxBias);
    change->addRow(u"B: heads' slopes"_s, m_heads);
    change->addRow(u"Length"_s, m_length);
    m_heads->setMinimumWidth(m_heads->fontMetrics().horizontalAdvance(m_heads->placeholderText()) * 2);
    column->addLayout(change);

    auto* runRow = new QHBoxLayout;
    m_run = new QPushButton(u"Run"_s, this);
    m_run->setObjectName(u"liveRun"_s);
    m_run->setToolTip(u"Run the model on the text (A), and with B's slopes when they differ (Ctrl+Return)"_s);
    m_run->setShortcut(QKeySequence(u"Ctrl+Return"_s));
    m_cancel = new QPushButton(u"Cancel"_s, this);
    m_cancel->setEnabled(false);
    m_progress = new QProgressBar(this);
    m_progress->setRange(0, 1000);
    m_progress->setMaximumWidth(160);
    m_progress->setFormat(u"%p %"_s);
    m_progress->hide();
    m_status = wrapping(this);
    m_status->setObjectName(u"liveStatus"_s);
    runRow->addWidget(m_run);
    runRow->addWidget(m_cancel);
    runRow->addWidget(m_progress);
    runRow->addWidget(m_status, 1);
    column->addLayout(runRow);
    m_cli = wrapping(this);
    m_cli->setObjectName(u"liveCli"_s);
    m_cli->setToolTip(u"The same run on the command line: A and B loss per position (add --format csv or json)"_s);
    column->addWidget(m_cli);

    m_summary = wrapping(this);
    m_lossLine = wrapping(this);
    column->addWidget(m_summary);
    column->addWidget(m_lossLine);
    auto* plots = new QHBoxLayout;
    m_lossPlot = new PlotWidget(this);
    m_lossPlot->setTitle(u"Loss per position: A (the model) vs B (the slope change)"_s);
    m_lossPlot->setAxisLabels(u"position (token predicted)"_s, u"loss (nats)"_s);
    m_lossPlot->setKind(PlotKind::LiveLoss);
    m_lossPlot->setCategorical(true);
    m_changePlot = new PlotWidget(this);
    m_changePlot->setTitle(u"Attention change per head, B vs A"_s);
    m_changePlot->setAxisLabels(u"head"_s, u"mean over rows of ½Σ|P_B − P_A|"_s);
    m_changePlot->setKind(PlotKind::LiveChange);
    m_changePlot->setStyle(PlotWidget::Style::LinesAndMarkers);
    m_changePlot->setCategorical(true);
    plots->addWidget(m_lossPlot, 3);
    plots->addWidget(m_changePlot, 2);
    column->addLayout(plots, 1);
    m_changeLine = wrapping(this);
    column->addWidget(m_changeLine);

    connect(open, &QPushButton::clicked, this, &LiveModelView::openModelRequested);
    connect(example, &QPushButton::clicked, this, &LiveModelView::exampleRequested);
    connect(m_run, &QPushButton::clicked, this, &LiveModelView::run);
    connect(m_cancel, &QPushButton::clicked, m_runner, &LiveRunModel::cancel);
    connect(m_scale, &QDoubleSpinBox::editingFinished, this, &LiveModelView::commit);
    connect(m_scheme, &QComboBox::activated, this, &LiveModelView::commit);
    connect(m_maxBiasSet, &QCheckBox::toggled, this, &LiveModelView::commit);
    connect(m_maxBias, &QDoubleSpinBox::editingFinished, this, &LiveModelView::commit);
    connect(m_heads, &QLineEdit::editingFinished, this, &LiveModelView::commit);
    connect(m_length, &QSpinBox::editingFinished, this, &LiveModelView::commit);
    connect(m_session, &SessionModel::liveChanged, this, &LiveModelView::syncFromSession);
    connect(m_session, &SessionModel::errorOccurred, this, [this](const QString& field, const QString& message) {
        if (field == u"model"_s) setStatus(message, true);
    });
    connect(m_runner, &LiveRunModel::progress, this,
            [this](double f) { m_progress->setValue(static_cast<int>(std::lround(f * 1000))); });
    connect(m_runner, &LiveRunModel::finished, this, [this] {
        m_run->setEnabled(true);
        m_cancel->setEnabled(false);
        m_progress->hide();
        showRun();
        emit runFinished(m_runner->run());
    });
    connect(m_runner, &LiveRunModel::failed, this, [this](const QString& message) {
        m_run->setEnabled(true);
        m_cancel->setEnabled(false);
        m_progress->hide();
        const QString words = SessionModel::controlMessage(message.toStdString());
        setStatus(words, true);
        emit failed(u"Cannot run the model"_s, words);
    });
    connect(m_runner, &LiveRunModel::cancelled, this, [this] {
        m_run->setEnabled(true);
        m_cancel->setEnabled(false);
        m_progress->hide();
        setStatus(u"Run cancelled (the maps shown before stay)"_s, false);
    });
    syncFromSession();
    setStatus(u"Open a BLOOM, MPT or Falcon model folder (or the example model), type a text, and Run."_s, false);
}

QString LiveModelView::statusText() const {
    return m_status->text();
}

QString LiveModelView::cliText() const {
    return m_cli->text();
}

void LiveModelView::setStatus(const QString& text, bool error) {
    m_statusError = error;
    m_status->setText(text);
    m_status->setStyleSheet(error ? u"color: #e0433b;"_s : u""_s);
}

void LiveModelView::syncFromSession() {
    const LiveModelParams& p = m_session->session().live;
    m_folder->setText(p.path.empty() ? u"(none)"_s : QString::fromStdString(p.path));
    const std::string cli = liveCliCommand(p);
    m_cli->setText(cli.empty() ? QString() : u"Command line: "_s + QString::fromStdString(cli));
    if (m_text->toPlainText().toStdString() != p.text) {
        QSignalBlocker block(m_text);
        m_text->setPlainText(QString::fromStdString(p.text));
    }
    {
        QSignalBlocker b1(m_scale), b2(m_scheme), b3(m_maxBiasSet), b4(m_maxBias), b5(m_heads), b6(m_length);
        m_scale->setValue(p.change.scale);
        int scheme = 0;
        for (int i = 0; i < 3; ++i)
            if (p.change.scheme == kSchemes[i]) scheme = i + 1;
        m_scheme->setCurrentIndex(scheme);
        m_maxBiasSet->setChecked(p.change.maxBias.has_value());
        if (p.change.maxBias) m_maxBias->setValue(*p.change.maxBias);
        m_maxBias->setEnabled(p.change.maxBias.has_value());
        m_heads->setText(QString::fromStdString(headSlopesText(p.change.headSlopes)));
        m_length->setValue(static_cast<int>(std::min<std::int64_t>(p.length, m_length->maximum())));
    }
}

void LiveModelView::commit() {
    LiveModelParams p = m_session->session().live;
    p.change.scale = m_scale->value();
    p.change.scheme =
        m_scheme->currentIndex() > 0 ? std::optional(kSchemes[m_scheme->currentIndex() - 1]) : std::nullopt;
    m_maxBias->setEnabled(m_maxBiasSet->isChecked());
    p.change.maxBias = m_maxBiasSet->isChecked() ? std::optional(m_maxBias->value()) : std::nullopt;
    auto heads = parseHeadSlopes(m_heads->text().toStdString());
    if (!heads) {
        setStatus(SessionModel::controlMessage(heads.error().message), true);
        return;
    }
    p.change.headSlopes = std::move(*heads);
    p.length = m_length->value();
    if (p == m_session->session().live) return;
    if (m_session->setLive(p) && m_statusError) setStatus({}, false);
}

void LiveModelView::run() {
    commit();
    LiveModelParams p = m_session->session().live;
    const std::string text = m_text->toPlainText().toStdString();
    if (text != p.text) {
        p.text = text;
        if (!m_session->setLive(p)) return;  // refused (the status says why)
    }
    if (p.path.empty()) {
        setStatus(u"No model is open: use Open model… or Example model first."_s, true);
        return;
    }
    m_runner->start(m_session->session().live);  // a run under way is cancelled first
    m_run->setEnabled(false);
    m_cancel->setEnabled(true);
    m_progress->setValue(0);
    m_progress->show();
    setStatus(u"Running %1…"_s.arg(QFileInfo(QString::fromStdString(p.path)).fileName()), false);
}

void LiveModelView::openModel(const QString& folder) {
    LiveModelParams p = m_session->session().live;
    p.path = folder.toStdString();
    if (!m_session->setLive(p)) return;
    run();
}

void LiveModelView::showRun() {
    const LiveRunPtr& run = m_runner->run();
    if (!run) return;
    m_summary->setText(QString::fromStdString(lm::liveSummary(*run)));
    m_lossLine->setText(QString::fromStdString(lm::liveLossLine(*run)));
    m_lossPlot->setSeries(lm::liveLossSeries(*run));
    const std::int64_t trained = run->loss.trainingLength;
    m_lossPlot->setReferenceX(trained > 0 ? std::optional<double>(static_cast<double>(trained)) : std::nullopt,
                              u"training length %1"_s.arg(trained));
    auto change = lm::liveChangeSeries(*run);
    m_changePlot->setNote(
        change.empty() ? u"No slope change: set B's scale, scheme, max_bias or a head's slope, and Run."_s : QString());
    m_changePlot->setSeries(std::move(change));
    m_changeLine->setText(QString::fromStdString(lm::liveChangeLine(*run)));
    setStatus(
        u"Ran %1 on %2 tokens: its maps are in the Attention maps tab (tokens on the axes and in the "
        "read-out)."_s.arg(QString::fromStdString(run->model))
            .arg(run->loss.tokens.ids.size()),
        false);
}

// Four whole lines of the text box at the current font: the height followed the font it was built
// with, so presentation mode's larger font showed two and a half lines (issue 27).
void LiveModelView::fitTextHeight() {
    const double margin = m_text->document()->documentMargin();
    m_text->setFixedHeight(static_cast<int>(std::ceil(4 * QFontMetricsF(m_text->font()).lineSpacing() + 2 * margin)) +
                           2 * m_text->frameWidth() + 2);
}

// The text box's own font change (the application font reaches it after this view's).
bool LiveModelView::eventFilter(QObject* watched, QEvent* event) {
    if (watched == m_text && event->type() == QEvent::FontChange) fitTextHeight();
    return QWidget::eventFilter(watched, event);
}

}  // namespace alibi::qt
