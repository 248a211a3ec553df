// Parameters panel: controls -> SessionModel setters; model errors -> red lines under controls.
#include "parameters_panel.hpp"

#include "range_spin_box.hpp"

#include "view_util.hpp"

#include <alibi/explore/field_ranges.hpp>
#include <alibi/explore/length_control.hpp>

#include <QAbstractScrollArea>
#include <QComboBox>
#include <QCoreApplication>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QSlider>
#include <QSpinBox>
#include <QTimer>
#include <QVBoxLayout>
#include <QWheelEvent>

#include <cmath>
#include <limits>
#include <string_view>

using namespace Qt::Literals::StringLiterals;

namespace alibi::qt {

namespace {

template <class E>
QComboBox* enumCombo(QWidget* parent, std::initializer_list<E> values, std::string_view (*name)(E)) {
    auto* box = new QComboBox(parent);
    for (E v : values)
        box->addItem(QString::fromUtf8(name(v).data(), static_cast<int>(name(v).size())), static_cast<int>(v));
    return box;
}

template <class E>
void selectData(QComboBox* box, E value) {
    QSignalBlocker block(box);
    box->setCurrentIndex(std::max(0, box->findData(static_cast<int>(value))));
}

std::string_view whatName(RenderWhat w) {
    return w == RenderWhat::Attention ? "attention probabilities" : "bias";
}
std::string_view scaleName(ScaleMode s) {
    return s == ScaleMode::PerHead ? "per head" : "shared by all heads";
}

}  // namespace

int ParametersPanel::lengthToSlider(std::int64_t t) {
    return explore::coarsePosition(t, 1, kMaxLength);
}

std::int64_t ParametersPanel::sliderToLength(int position) {
    return explore::coarseValue(position, 1, kMaxLength);
}

void ParametersPanel::followLengthWindow(std::int64_t t) {
    const explore::LinearWindow current{lengthFine->minimum(), lengthFine->maximum()};
    const explore::LinearWindow w = explore::followWindow(current, t, std::max(lengthFine->width(), 8), 1, kMaxLength);
    QSignalBlocker block(lengthFine);
    if (!(w == current)) lengthFine->setRange(static_cast<int>(w.lo), static_cast<int>(w.hi));
    lengthFine->setValue(static_cast<int>(std::clamp<std::int64_t>(t, w.lo, w.hi)));
    lengthFine->setToolTip(
        u"Length T, one step per value from %1 to %2 (the range follows T; arrows "
        "step by 1, Shift+arrows to the next power of two)"_s.arg(w.lo)
            .arg(w.hi));
}

bool ParametersPanel::stepLengthByPowerOfTwo(QWidget* control, int key) {
    if (control != lengthSlider && control != lengthFine && control != lengthBox) return false;
    const int direction = key == Qt::Key_Up || key == Qt::Key_Right    ? 1
                          : key == Qt::Key_Down || key == Qt::Key_Left ? -1
                                                                       : 0;
    if (direction == 0) return false;
    m_model->setQueries(explore::stepValue(m_model->session().attention.bias.queries, direction, true, 1, kMaxLength));
    return true;
}

QLabel* ParametersPanel::errorLabel(const QString& field) {
    auto* label = new QLabel(this);
    label->setWordWrap(true);
    label->setStyleSheet(u"color: #e0433b;"_s);
    label->setVisible(false);
    label->setObjectName(u"error-"_s + field);
    m_errors.insert(field, label);
    return label;
}

QString ParametersPanel::errorText(const QString& field) const {
    const QLabel* label = m_errors.value(field);
    return label && !label->isHidden() ? label->text() : QString();
}

void ParametersPanel::showError(const QString& field, const QString& message) {
    QLabel* label = m_errors.value(field, m_errors.value(u"session"_s));
    if (!label) return;
    label->setText(message);
    label->setVisible(!message.isEmpty());
}

ParametersPanel::ParametersPanel(SessionModel* model, std::vector<Preset> presets, QWidget* parent)
    : QWidget(parent), m_model(model), m_presets(std::move(presets)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(8, 8, 8, 8);
    layout->setSpacing(8);
    auto group = [&](const QString& title) {
        auto* box = new QGroupBox(title, this);
        auto* form = new QFormLayout(box);
        form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
        form->setLabelAlignment(Qt::AlignRight | Qt::AlignVCenter);
        layout->addWidget(box);
        return form;
    };
    auto withError = [&](QFormLayout* form, const QString& label, QWidget* control, const QString& field) {
        form->addRow(label, control);
        form->addRow(errorLabel(field));
    };

    // Model presets.
    auto* presetForm = group(u"Model preset"_s);
    presetBox = new QComboBox(this);
    presetBox->addItem(u"— choose a model —"_s);
    for (const Preset& p : m_presets) presetBox->addItem(QString::fromStdString(p.name));
    m_presetSource = new QLabel(this);
    m_presetSource->setWordWrap(true);
    m_presetSource->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_presetSource->setForegroundRole(QPalette::PlaceholderText);
    presetForm->addRow(presetBox);
    presetForm->addRow(m_presetSource);
    connect(presetBox, &QComboBox::activated, this, [this](int index) {
        if (index <= 0 || index > static_cast<int>(m_presets.size())) return;
        const Preset& p = m_presets[static_cast<std::size_t>(index - 1)];
        m_presetSource->setText(QString::fromStdString(p.notes + (p.notes.empty() ? "" : "\n") + "Source: " + p.source +
                                                       "\nArithmetic: " + std::string(arithName(p.arith))));
        m_model->setSession(withPreset(m_model->session(), p));
    });

    // Shape.
    auto* shape = group(u"Shape"_s);
    headsSlider = new QSlider(Qt::Horizontal, this);
    headsSlider->setRange(1, std::min(kMaxHeads, 256));  // the drag span; the box takes every H
    headsBox = new RangeSpinBox(this);
    headsBox->setRange(1, kMaxHeads);
    headsBox->setToolTip(u"Heads H (1..%1)"_s.arg(kMaxHeads));
    auto* headsRow = new QHBoxLayout;
    headsRow->addWidget(headsSlider, 1);
    headsRow->addWidget(headsBox);
    shape->addRow(u"Heads H"_s, headsRow);
    shape->addRow(errorLabel(u"heads"_s));
    lengthSlider = new QSlider(Qt::Horizontal, this);
    lengthSlider->setRange(0, explore::coarsePositions(kMaxLength));
    lengthSlider->setToolTip(u"Sequence length T on a log scale (the slider below reaches every value near T)"_s);
    lengthBox = new RangeSpinBox(this);
    lengthBox->setRange(1, static_cast<int>(kMaxLength));
    lengthBox->setToolTip(u"Queries T (keys too, unless K is set)"_s);
    auto* lengthRow = new QHBoxLayout;
    lengthRow->addWidget(lengthSlider, 1);
    lengthRow->addWidget(lengthBox);
    shape->addRow(u"Length T"_s, lengthRow);
    lengthFine = new QSlider(Qt::Horizontal, this);
    lengthFine->setObjectName(u"lengthFine"_s);
    lengthFine->setRange(1, 256);
    shape->addRow(u"T, fine"_s, lengthFine);
    shape->addRow(errorLabel(u"queries"_s));
    keysBox = new RangeSpinBox(this);
    keysBox->setRange(0, static_cast<int>(kMaxLength));
    keysBox->setSpecialValueText(u"same as T"_s);
    keysBox->setToolTip(u"Keys K (KV cache); queries sit bottom-right: p_i = i + K − Q"_s);
    withError(shape, u"Keys K"_s, keysBox, u"keys"_s);

    // Slopes.
    auto* slopes = group(u"Slopes"_s);
    schemeBox = enumCombo(this, {SlopeScheme::Press, SlopeScheme::Geometric, SlopeScheme::Linear, SlopeScheme::Custom},
                          schemeName);
    withError(slopes, u"Scheme"_s, schemeBox, u"scheme"_s);
    maxBiasBox = new RangeDoubleSpinBox(this);
    maxBiasBox->setRange(kMaxBiasRange.min, kMaxBiasRange.max);
    maxBiasBox->setDecimals(2);
    maxBiasBox->setSingleStep(0.5);
    withError(slopes, u"max_bias B"_s, maxBiasBox, u"maxBias"_s);
    arithBox =
        enumCombo(this, {Arith::Exact, Arith::HfBloom, Arith::HfFalcon, Arith::LlmFoundry, Arith::Fairseq, Arith::Ggml},
                  arithName);
    arithBox->setToolTip(
        u"Whose float arithmetic makes the numbers: exact (rounded once) or one framework's "
        "float32 operations (--arith; a preset sets its model's)"_s);
    withError(slopes, u"Arithmetic"_s, arithBox, u"arith"_s);
    customEdit = new QLineEdit(this);
    customEdit->setPlaceholderText(u"e.g. 1/2, 1/4, 0.125, 2^-4"_s);
    customEdit->setToolTip(u"H positive numbers separated by commas; Enter applies them (scheme becomes custom)"_s);
    withError(slopes, u"Custom"_s, customEdit, u"custom"_s);
    // Enter or leaving the box after typing applies the list (and sets H from its length), once.
    connect(customEdit, &QLineEdit::returnPressed, this, [this] {
        customEdit->setModified(false);
        m_model->setCustomSlopes(customEdit->text());
    });
    connect(customEdit, &QLineEdit::editingFinished, this, [this] {
        if (!customEdit->isModified()) return;
        customEdit->setModified(false);
        m_model->setCustomSlopes(customEdit->text());
    });

    // Bias.
    auto* biasForm = group(u"Bias"_s);
    modeBox = enumCombo(
        this, {BiasMode::Causal, BiasMode::Symmetric, BiasMode::Clamped, BiasMode::Bloom, BiasMode::Mpt}, modeName);
    modeBox->setToolTip(u"causal −m(i−j) · symmetric −m|i−j| · clamped −m·max(i−j,0) · bloom +m·j · mpt −m(K−1−j)"_s);
    withError(biasForm, u"Mode"_s, modeBox, u"mode"_s);
    maskBox = new QComboBox(this);
    maskBox->setEditable(true);
    maskBox->addItems({u"-1e9"_s, u"-inf"_s, u"min"_s, u"-10000"_s});
    maskBox->setToolTip(u"Value of masked entries: a finite number, -inf, or min (the dtype's lowest)"_s);
    withError(biasForm, u"Mask"_s, maskBox, u"mask"_s);
    connect(maskBox, &QComboBox::activated, this, [this] { applyMask(); });
    connect(maskBox->lineEdit(), &QLineEdit::editingFinished, this, [this] { applyMask(); });
    dtypeBox = enumCombo(this, {DType::F32, DType::F64, DType::F16, DType::BF16}, dtypeName);
    withError(biasForm, u"dtype"_s, dtypeBox, u"dtype"_s);
    layoutBox = enumCombo(this, {Layout::Hqk, Layout::Qkh, Layout::OneHqk, Layout::Flat}, layoutName);
    layoutBox->setToolTip(u"Layout of exported tensors"_s);
    withError(biasForm, u"Export layout"_s, layoutBox, u"layout"_s);

    // Attention content.
    auto* content = group(u"Attention"_s);
    contentBox = enumCombo(this, {ContentKind::Zero, ContentKind::Gaussian, ContentKind::Qk}, contentName);
    contentBox->setToolTip(u"Content logits before the bias: zero, N(0, σ²), or q·k/√d_k"_s);
    withError(content, u"Content"_s, contentBox, u"content"_s);
    sigmaBox = new RangeDoubleSpinBox(this);
    sigmaBox->setRange(kSigmaRange.min, kSigmaRange.max);
    sigmaBox->setSingleStep(0.25);
    withError(content, u"σ (gaussian)"_s, sigmaBox, u"sigma"_s);
    dkBox = new RangeSpinBox(this);
    dkBox->setRange(1, kMaxDk);
    withError(content, u"d_k (qk)"_s, dkBox, u"dk"_s);
    seedBox = new RangeSpinBox(this);
    seedBox->setRange(0, std::numeric_limits<int>::max());
    withError(content, u"Seed"_s, seedBox, u"seed"_s);
    temperatureBox = new RangeDoubleSpinBox(this);
    // Six decimals reach the core's smallest temperature (kTemperatureRange.min = 1e-6).
    temperatureBox->setDecimals(6);
    temperatureBox->setRange(kTemperatureRange.min, kTemperatureRange.max);
    temperatureBox->setSingleStep(0.1);
    withError(content, u"Temperature"_s, temperatureBox, u"temperature"_s);
    queryRowBox = new RangeSpinBox(this);
    queryRowBox->setRange(-1, static_cast<int>(kMaxLength - 1));
    queryRowBox->setSpecialValueText(u"last"_s);
    queryRowBox->setToolTip(u"Query row for curves, stages and statistics"_s);
    withError(content, u"Query row"_s, queryRowBox, u"queryRow"_s);

    // Batch: B padded sequences, packed documents, window, prefix; the views show one row.
    auto* batchForm = group(u"Batch"_s);
    lengthsEdit = new QLineEdit(this);
    lengthsEdit->setPlaceholderText(u"one sequence (e.g. 16, 12, 9)"_s);
    lengthsEdit->setToolTip(u"Real tokens of each batch row, padded to T; Enter applies (alibi bias --lengths)"_s);
    withError(batchForm, u"Lengths"_s, lengthsEdit, u"lengths"_s);
    paddingBox = enumCombo(this, {Padding::Right, Padding::Left}, paddingName);
    paddingBox->setToolTip(u"Side the padding goes on (--padding)"_s);
    withError(batchForm, u"Padding"_s, paddingBox, u"padding"_s);
    documentsEdit = new QLineEdit(this);
    documentsEdit->setPlaceholderText(u"none (e.g. 6, 10)"_s);
    documentsEdit->setToolTip(
        u"Packed documents' lengths in every row: keys of another document are masked (--documents)"_s);
    withError(batchForm, u"Documents"_s, documentsEdit, u"documents"_s);
    windowBox = new RangeSpinBox(this);
    windowBox->setRange(0, static_cast<int>(kMaxLength));
    windowBox->setSpecialValueText(u"none"_s);
    windowBox->setToolTip(u"Sliding window W: key j is masked when |i − j| ≥ W (--window)"_s);
    withError(batchForm, u"Window"_s, windowBox, u"window"_s);
    prefixBox = new RangeSpinBox(this);
    prefixBox->setRange(0, static_cast<int>(kMaxLength));
    prefixBox->setSpecialValueText(u"none"_s);
    prefixBox->setToolTip(u"Prefix-LM: the first P tokens see each other both ways (--prefix)"_s);
    withError(batchForm, u"Prefix"_s, prefixBox, u"prefix"_s);
    positionsBox = enumCombo(this, {PositionRule::Mask, PositionRule::Naive, PositionRule::Document}, positionRuleName);
    positionsBox->setToolTip(
        u"ALiBi positions: from the mask (BLOOM's cumsum), the raw index (naive: the "
        "left-padding bug), or restarting per document (--positions)"_s);
    withError(batchForm, u"Positions"_s, positionsBox, u"positions"_s);
    batchRowBox = new RangeSpinBox(this);
    batchRowBox->setRange(0, 0);  // 0..B-1, set from the session
    batchRowBox->setToolTip(u"The batch row the grid and detail views show"_s);
    withError(batchForm, u"Batch row"_s, batchRowBox, u"batchRow"_s);

    // Display.
    auto* display = group(u"Display"_s);
    whatBox = enumCombo(this, {RenderWhat::Bias, RenderWhat::Attention}, whatName);
    withError(display, u"Show"_s, whatBox, u"what"_s);
    colormapBox = enumCombo(this, {Colormap::Viridis, Colormap::Magma, Colormap::Cividis}, colormapName);
    withError(display, u"Colour map"_s, colormapBox, u"colormap"_s);
    scaleBox = enumCombo(this, {ScaleMode::Shared, ScaleMode::PerHead}, scaleName);
    withError(display, u"Colour scale"_s, scaleBox, u"scale"_s);
    layout->addWidget(errorLabel(u"session"_s));
    layout->addStretch(1);

    // Controls -> model. Sliders track while dragged: every step is a request, and the whole
    // drag is one undo step. Spin boxes apply a typed number as a whole (keyboard tracking
    // off: on Enter, on leaving the box, or after a pause), never digit by digit.
    for (QSlider* slider : {headsSlider, lengthSlider, lengthFine}) {
        connect(slider, &QSlider::sliderPressed, m_model, &SessionModel::beginStep);
        connect(slider, &QSlider::sliderReleased, m_model, &SessionModel::endStep);
    }
    // The fine window follows T once the drag ends (a drag to its edge moves it on).
    connect(lengthFine, &QSlider::sliderReleased, this,
            [this] { followLengthWindow(m_model->session().attention.bias.queries); });
    guardControls();
    // A whole number typed outside a box's range is refused at the field, by the core's rule
    // (explore/field_ranges.hpp), and the box keeps its value (issue 25).
    const auto refuseOutOfRange = [this](QSpinBox* box, const QString& field, std::string_view label) {
        auto* range = static_cast<RangeSpinBox*>(box);
        range->refused = [this, range, field, label](const QString& typed) {
            const auto checked = explore::checkTypedText(label, typed.toStdString(), range->minimum(), range->maximum(),
                                                         true, range->value());
            if (!checked.accepted) showError(field, QString::fromStdString(checked.message));
        };
    };
    refuseOutOfRange(headsBox, u"heads"_s, explore::fieldRange(explore::NumberField::Heads).label);
    refuseOutOfRange(lengthBox, u"queries"_s, explore::fieldRange(explore::NumberField::Queries).label);
    refuseOutOfRange(keysBox, u"keys"_s, explore::fieldRange(explore::NumberField::Keys).label);
    refuseOutOfRange(dkBox, u"dk"_s, explore::fieldRange(explore::NumberField::Dk).label);
    refuseOutOfRange(windowBox, u"window"_s, explore::fieldRange(explore::NumberField::Window).label);
    refuseOutOfRange(prefixBox, u"prefix"_s, explore::fieldRange(explore::NumberField::Prefix).label);
    refuseOutOfRange(seedBox, u"seed"_s, "Seed");
    refuseOutOfRange(queryRowBox, u"queryRow"_s, "Query row");
    refuseOutOfRange(batchRowBox, u"batchRow"_s, "Batch row");
    const auto refuseDecimalOutOfRange = [this](QDoubleSpinBox* box, const QString& field,
                                                explore::NumberField number) {
        auto* range = static_cast<RangeDoubleSpinBox*>(box);
        range->refused = [this, range, field, number](const QString& typed) {
            // Quoted as typed; the core reads C numbers, so "0,5" of a German locale goes as 0.5.
            QString text = typed.trimmed();
            bool cNumber = false;
            (void)text.toDouble(&cNumber);
            if (!cNumber) {
                bool ok = false;
                const double value = range->locale().toDouble(text, &ok);
                if (ok) text = QString::number(value, 'g', 17);
            }
            const auto checked = explore::checkTypedText(explore::fieldRange(number).label, text.toStdString(),
                                                         range->minimum(), range->maximum(), false, range->value());
            if (!checked.accepted) showError(field, QString::fromStdString(checked.message));
        };
    };
    refuseDecimalOutOfRange(maxBiasBox, u"maxBias"_s, explore::NumberField::MaxBias);
    refuseDecimalOutOfRange(sigmaBox, u"sigma"_s, explore::NumberField::Sigma);
    refuseDecimalOutOfRange(temperatureBox, u"temperature"_s, explore::NumberField::Temperature);
    connect(headsSlider, &QSlider::valueChanged, this, [this](int v) { m_model->setHeads(v); });
    connect(headsBox, &QSpinBox::valueChanged, this, [this](int v) { m_model->setHeads(v); });
    connect(lengthSlider, &QSlider::valueChanged, this, [this](int v) { m_model->setQueries(sliderToLength(v)); });
    connect(lengthFine, &QSlider::valueChanged, this, [this](int v) { m_model->setQueries(v); });
    connect(lengthBox, &QSpinBox::valueChanged, this, [this](int v) { m_model->setQueries(v); });
    connect(keysBox, &QSpinBox::valueChanged, this, [this](int v) { m_model->setKeys(v); });
    connect(schemeBox, &QComboBox::activated, this, [this] {
        const auto scheme = static_cast<SlopeScheme>(schemeBox->currentData().toInt());
        if (scheme == SlopeScheme::Custom) {
            if (customEdit->text().trimmed().isEmpty()) {
                // Start from the current slopes so the list has the right length.
                if (auto grid = m_model->grid())
                    customEdit->setText(QString::fromStdString(explore::slopeListText(grid->slopes)));
            }
            m_model->setCustomSlopes(customEdit->text());
        } else {
            m_model->setScheme(scheme);
        }
    });
    connect(maxBiasBox, &QDoubleSpinBox::valueChanged, this, [this](double v) { m_model->setMaxBias(v); });
    connect(arithBox, &QComboBox::activated, this,
            [this] { m_model->setArith(static_cast<Arith>(arithBox->currentData().toInt())); });
    connect(modeBox, &QComboBox::activated, this,
            [this] { m_model->setMode(static_cast<BiasMode>(modeBox->currentData().toInt())); });
    connect(dtypeBox, &QComboBox::activated, this,
            [this] { m_model->setDType(static_cast<DType>(dtypeBox->currentData().toInt())); });
    connect(layoutBox, &QComboBox::activated, this,
            [this] { m_model->setLayout(static_cast<Layout>(layoutBox->currentData().toInt())); });
    connect(contentBox, &QComboBox::activated, this,
            [this] { m_model->setContentKind(static_cast<ContentKind>(contentBox->currentData().toInt())); });
    connect(sigmaBox, &QDoubleSpinBox::valueChanged, this, [this](double v) { m_model->setSigma(v); });
    connect(dkBox, &QSpinBox::valueChanged, this, [this](int v) { m_model->setDk(v); });
    connect(seedBox, &QSpinBox::valueChanged, this, [this](int v) { m_model->setSeed(static_cast<std::uint64_t>(v)); });
    connect(temperatureBox, &QDoubleSpinBox::valueChanged, this, [this](double v) { m_model->setTemperature(v); });
    connect(queryRowBox, &QSpinBox::valueChanged, this, [this](int v) { m_model->setQueryRow(v); });
    connect(whatBox, &QComboBox::activated, this,
            [this] { m_model->setWhat(static_cast<RenderWhat>(whatBox->currentData().toInt())); });
    connect(colormapBox, &QComboBox::activated, this,
            [this] { m_model->setColormap(static_cast<Colormap>(colormapBox->currentData().toInt())); });
    connect(scaleBox, &QComboBox::activated, this,
            [this] { m_model->setScaleMode(static_cast<ScaleMode>(scaleBox->currentData().toInt())); });

    applyListOnCommit(lengthsEdit, &SessionModel::setBatchLengths);
    applyListOnCommit(documentsEdit, &SessionModel::setBatchDocuments);
    connect(paddingBox, &QComboBox::activated, this,
            [this] { m_model->setBatchPadding(static_cast<Padding>(paddingBox->currentData().toInt())); });
    connect(positionsBox, &QComboBox::activated, this,
            [this] { m_model->setBatchPositions(static_cast<PositionRule>(positionsBox->currentData().toInt())); });
    connect(windowBox, &QSpinBox::valueChanged, this, [this](int v) { m_model->setBatchWindow(v); });
    connect(prefixBox, &QSpinBox::valueChanged, this, [this](int v) { m_model->setBatchPrefix(v); });
    connect(batchRowBox, &QSpinBox::valueChanged, this, [this](int v) { m_model->setBatchRow(v); });

    // Model -> controls.
    connect(m_model, &SessionModel::sessionChanged, this, &ParametersPanel::syncFromSession);
    connect(m_model, &SessionModel::errorOccurred, this, &ParametersPanel::showError);
    connect(m_model, &SessionModel::errorCleared, this, [this](const QString& field) {
        showError(field, {});
        if (field == u"session"_s)
            for (QLabel* label : m_errors) label->setVisible(false);
    });
    syncFromSession();
}

void ParametersPanel::applyMask() {
    m_model->setMask(maskBox->currentText());
}

void ParametersPanel::applyListOnCommit(QLineEdit* edit, bool (SessionModel::*setter)(const QString&)) {
    connect(edit, &QLineEdit::returnPressed, this, [this, edit, setter] {
        edit->setModified(false);
        (m_model->*setter)(edit->text());
    });
    connect(edit, &QLineEdit::editingFinished, this, [this, edit, setter] {
        if (!edit->isModified()) return;
        edit->setModified(false);
        (m_model->*setter)(edit->text());
    });
}

void ParametersPanel::commitAfterPause(QAbstractSpinBox* box) {
    box->setKeyboardTracking(false);
    auto* pause = new QTimer(box);
    pause->setSingleShot(true);
    pause->setInterval(kTypingPauseMs);
    connect(pause, &QTimer::timeout, box, [box] {
        // An out-of-range whole number is committed too: refused, with its message at once.
        const auto* range = dynamic_cast<const RangeSpinBox*>(box);
        const auto* decimal = dynamic_cast<const RangeDoubleSpinBox*>(box);
        if (box->hasAcceptableInput() || (range && range->holdsWholeNumber()) ||
            (decimal && decimal->holdsNumberOutOfRange()))
            box->interpretText();
    });
    // The spin box's own textChanged waits for the value, like valueChanged; the editor inside
    // sees every key.
    if (auto* editor = box->findChild<QLineEdit*>())
        connect(editor, &QLineEdit::textEdited, pause, qOverload<>(&QTimer::start));
    connect(box, &QAbstractSpinBox::editingFinished, pause, &QTimer::stop);
}

void ParametersPanel::guardControls() {
    for (QWidget* w : findChildren<QWidget*>()) {
        const bool spin = qobject_cast<QAbstractSpinBox*>(w) != nullptr;
        if (!spin && !qobject_cast<QComboBox*>(w) && !qobject_cast<QSlider*>(w)) continue;
        // StrongFocus: the wheel no longer gives these controls focus (WheelFocus would).
        w->setFocusPolicy(Qt::StrongFocus);
        w->installEventFilter(this);
        if (spin) commitAfterPause(static_cast<QAbstractSpinBox*>(w));
    }
}

bool ParametersPanel::eventFilter(QObject* watched, QEvent* event) {
    auto* w = qobject_cast<QWidget*>(watched);
    if (event->type() == QEvent::KeyPress && w) {
        const auto* key = static_cast<QKeyEvent*>(event);
        if (key->modifiers() == Qt::ShiftModifier && stepLengthByPowerOfTwo(w, key->key())) return true;
    }
    if (event->type() == QEvent::Resize && w == lengthFine)
        followLengthWindow(m_model->session().attention.bias.queries);
    if (event->type() != QEvent::Wheel || !w || w->hasFocus()) return QWidget::eventFilter(watched, event);
    // Hand the wheel to the scroll area around the panel; without one, just drop it.
    for (QWidget* p = parentWidget(); p; p = p->parentWidget())
        if (auto* area = qobject_cast<QAbstractScrollArea*>(p)) {
            QCoreApplication::sendEvent(area->viewport(), event);
            break;
        }
    return true;
}

void ParametersPanel::syncFromSession() {
    const Session& s = m_model->session();
    // The preset box names a model only while the parameters are still that model's (the core's
    // presetMatches: heads, scheme, max_bias, mode, training length and arithmetic).
    const int presetIndex = presetBox->currentIndex();
    if (presetIndex > 0 && presetIndex <= static_cast<int>(m_presets.size()) &&
        !presetMatches(s, m_presets[static_cast<std::size_t>(presetIndex - 1)])) {
        QSignalBlocker block(presetBox);
        presetBox->setCurrentIndex(0);
        m_presetSource->clear();
    }
    const auto& b = s.attention.bias;
    const auto& c = s.attention.content;
    auto setInt = [](QSpinBox* box, std::int64_t v) {
        QSignalBlocker block(box);
        box->setValue(static_cast<int>(std::clamp<std::int64_t>(v, box->minimum(), box->maximum())));
    };
    auto setDouble = [](QDoubleSpinBox* box, double v) {
        QSignalBlocker block(box);
        box->setValue(v);
    };
    {
        QSignalBlocker a(headsSlider), l(lengthSlider);
        headsSlider->setValue(std::clamp(b.slopes.heads, 1, 256));
        // Keep the slider where the user put it when it already maps to this length.
        if (sliderToLength(lengthSlider->value()) != b.queries) lengthSlider->setValue(lengthToSlider(b.queries));
    }
    if (!lengthFine->isSliderDown())
        followLengthWindow(b.queries);
    else {
        QSignalBlocker block(lengthFine);
        lengthFine->setValue(static_cast<int>(b.queries));
    }
    setInt(headsBox, b.slopes.heads);
    setInt(lengthBox, b.queries);
    setInt(keysBox, b.keys);
    selectData(schemeBox, b.slopes.scheme);
    setDouble(maxBiasBox, b.slopes.maxBias);
    selectData(arithBox, b.slopes.arith);
    if (b.slopes.scheme == SlopeScheme::Custom && !customEdit->hasFocus()) {
        QSignalBlocker block(customEdit);
        customEdit->setText(QString::fromStdString(explore::slopeListText(b.slopes.custom)));
    }
    selectData(modeBox, b.mode);
    if (!maskBox->lineEdit()->hasFocus()) {
        QSignalBlocker block(maskBox);
        maskBox->setCurrentText(QString::fromStdString(maskName(b.mask)));
    }
    selectData(dtypeBox, b.dtype);
    selectData(layoutBox, b.layout);
    selectData(contentBox, c.kind);
    setDouble(sigmaBox, c.sigma);
    setInt(dkBox, c.dk);
    setInt(seedBox, static_cast<std::int64_t>(std::min<std::uint64_t>(c.seed, std::numeric_limits<int>::max())));
    setDouble(temperatureBox, c.temperature);
    {
        QSignalBlocker block(queryRowBox);
        queryRowBox->setMaximum(
            static_cast<int>(std::min<std::int64_t>(b.queries - 1, std::numeric_limits<int>::max())));
    }
    setInt(queryRowBox, s.queryRow);
    const BatchParams& batch = s.batch;
    for (auto [edit, values] : {std::pair{lengthsEdit, &batch.lengths}, std::pair{documentsEdit, &batch.documents}})
        if (!edit->hasFocus()) {
            QSignalBlocker block(edit);
            edit->setText(QString::fromStdString(lengthListText(*values)));
        }
    selectData(paddingBox, batch.padding);
    selectData(positionsBox, batch.positions);
    setInt(windowBox, batch.window);
    setInt(prefixBox, batch.prefix);
    {
        QSignalBlocker block(batchRowBox);
        batchRowBox->setMaximum(static_cast<int>(batch.batchSize() - 1));
    }
    setInt(batchRowBox, s.batchRow);
    batchRowBox->setEnabled(batch.batchSize() > 1);
    selectData(whatBox, s.what);
    selectData(colormapBox, s.colormap);
    selectData(scaleBox, s.scale);
    sigmaBox->setEnabled(c.kind == ContentKind::Gaussian);
    dkBox->setEnabled(c.kind == ContentKind::Qk);
    customEdit->setEnabled(true);
    maxBiasBox->setEnabled(b.slopes.scheme == SlopeScheme::Press || b.slopes.scheme == SlopeScheme::Geometric);
}

}  // namespace alibi::qt
