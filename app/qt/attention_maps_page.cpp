// The Attention maps tab: its file, fit and prior state over AttentionMapsModel and the page's
// layout; the controls are built in attention_maps_controls.cpp, the views refreshed in
// attention_maps_views.cpp, the exports in attention_maps_figures.cpp, lessons in
// attention_maps_lesson.cpp. Pictures, texts, rows and columns come from the core.
#include "attention_maps_page.hpp"

#include "maps_heatmap_view.hpp"
#include "two_heads_view.hpp"
#include "view_util.hpp"

#include <alibi/explore/attention_maps_view.hpp>
#include <alibi/model/slopes.hpp>

#include <QCheckBox>
#include <QComboBox>
#include <QEvent>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSlider>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QTabWidget>
#include <QToolButton>

#include <algorithm>
#include <cmath>

using namespace Qt::Literals::StringLiterals;

namespace alibi::qt {

QScrollArea* AttentionMapsPage::enclosingScrollArea() const {
    for (QWidget* w = parentWidget(); w != nullptr; w = w->parentWidget())
        if (auto* area = qobject_cast<QScrollArea*>(w)) return area;
    return nullptr;
}

int AttentionMapsPage::heightForWidth(int w) const {
    // The controls above and the status line below the views as the layout gives them: their
    // preferred heights (wrapped texts at this width), with the spacing between them.
    QLayout* column = layout();
    const QMargins margins = column->contentsMargins();
    const int inner = w - margins.left() - margins.right();
    int controls = margins.top() + margins.bottom(), items = 0;
    for (int i = 0; i < column->count(); ++i) {
        QLayoutItem* item = column->itemAt(i);
        if (item->isEmpty()) continue;
        ++items;
        if (item->widget() == m_views) continue;
        controls += item->hasHeightForWidth() ? item->heightForWidth(inner) : item->sizeHint().height();
    }
    controls += std::max(0, items - 1) * std::max(0, column->spacing());
    const int views = m_views->minimumSizeHint().height();
    const QScrollArea* area = enclosingScrollArea();
    if (area == nullptr) return controls + views;
    // Where the views under the controls keep 60 % of the tab's height, the page fits it (the
    // scroll area stretches it to the tab). Where the controls leave them less (a projector's
    // 720 px at 175 %: 1.1 x 1.8 px cells in a strip of tiles), the views get the tab's whole
    // height and the controls scroll above them (a lesson step scrolls to the views).
    const int room = area->viewport()->height();
    if (room - controls >= std::max(views, room * 3 / 5)) return controls + views;
    return controls + std::max(room, views);
}

void AttentionMapsPage::setPriorSources(std::function<SlopeParams()> session, std::vector<Preset> presets) {
    m_sessionSlopes = std::move(session);
    m_presets = std::move(presets);
    m_prior->clear();
    m_prior->addItem(u"no ALiBi prior"_s);
    m_prior->addItem(u"current session's slopes"_s);
    m_prior->addItem(u"the file's slopes"_s);  // a model run's (the item's tooltip says so)
    for (const Preset& p : m_presets) m_prior->addItem(u"%1 (H = %2)"_s.arg(qs(p.name)).arg(p.heads));
    updateControls();
}

void AttentionMapsPage::openFile(const QString& path) {
    m_model->open(path);
    m_progress->setValue(0);
    m_status->setText(openingText({}));
    updateControls();
}

QString AttentionMapsPage::openingText(const QString& stage) const {
    return u"Opening "_s + QFileInfo(m_model->openingPath()).fileName() + u"… "_s +
           (stage.isEmpty() ? u""_s : stage + u" "_s) + u"(Cancel stops it)"_s;
}

QString AttentionMapsPage::summaryText() const {
    return m_file->toolTip();
}

int AttentionMapsPage::layerIndex() const {
    return m_layer->value();
}
int AttentionMapsPage::head() const {
    return m_head->value();
}
std::int64_t AttentionMapsPage::row() const {
    return m_row->value();
}

void AttentionMapsPage::setLayerIndex(int layerIndex) {
    m_layer->setValue(layerIndex);
}
void AttentionMapsPage::setHead(int head) {
    m_head->setValue(head);
}
void AttentionMapsPage::setRow(std::int64_t row) {
    m_row->setValue(static_cast<int>(row));
}

void AttentionMapsPage::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    placeColourOptions();
}

void AttentionMapsPage::changeEvent(QEvent* event) {
    QWidget::changeEvent(event);
    // A new font (presentation mode, zoom) changes every control's width.
    if (event->type() == QEvent::FontChange)
        QMetaObject::invokeMethod(this, &AttentionMapsPage::placeColourOptions, Qt::QueuedConnection);
}

void AttentionMapsPage::placeColourOptions() {
    if (!m_layerRow || !m_colourRow) return;
    // The room is the view's the page is shown in (a scroll area's viewport), not the page's own
    // width: a row too wide makes the page as wide as the row.
    const QWidget* view = parentWidget() ? parentWidget() : this;
    const QMargins margins = layout()->contentsMargins();
    const int room = view->width() - margins.left() - margins.right();
    const int spacing = std::max(m_layerRow->spacing(), 0);
    const int boxes = m_log->sizeHint().width() + m_perHead->sizeHint().width() + 2 * spacing;
    const bool inLayerRow = m_layerRow->indexOf(m_log) >= 0;
    const int layerRow = m_layerRow->sizeHint().width() - (inLayerRow ? boxes : 0);
    const bool fits = layerRow + boxes <= room;
    if (fits == inLayerRow) return;
    QBoxLayout* from = fits ? m_colourRow : m_layerRow;
    QBoxLayout* to = fits ? m_layerRow : m_colourRow;
    from->removeWidget(m_log);
    from->removeWidget(m_perHead);
    to->insertWidget(to->count() - 1, m_log);  // before the row's stretch
    to->insertWidget(to->count() - 1, m_perHead);
}

void AttentionMapsPage::updateControls() {
    const MapsPtr maps = m_model->maps();
    const bool have = maps != nullptr;
    for (QWidget* w : std::initializer_list<QWidget*>{m_values, m_prior, m_layer, m_layerSlider, m_head, m_row, m_log,
                                                      m_perHead, m_firstRow, m_lastRow})
        w->setEnabled(have);
    m_fit->setEnabled(have && !m_model->fitting());
    m_cancel->setEnabled(m_model->fitting() || m_model->opening());
    m_exportCsv->setEnabled(have && !m_model->fits().empty() && !m_model->fitting());
    m_exportJson->setEnabled(m_exportCsv->isEnabled());
    const QStringList names = m_model->tensorNames();
    m_tensor->setVisible(names.size() > 1);
    const bool batched = have && maps->batches() > 1;
    m_batch->setVisible(batched);
    m_batchLabel->setVisible(batched);
    // Presets whose head count differs cannot pair: greyed out, with the reason.
    if (auto* model = qobject_cast<QStandardItemModel*>(m_prior->model()))
        if (QStandardItem* it = model->item(PriorFile)) {
            const bool named = have && !maps->fileSlopes().empty();
            it->setEnabled(named);
            it->setToolTip(named ? u"The slopes the maps were computed with (written by alibi run and the "
                                   "explorers' model runs)"_s
                           : have && !maps->fileSlopesNote().empty() ? qs(maps->fileSlopesNote())
                                                                     : u"This file names no slopes"_s);
        }
    for (int item = PriorFirstPreset; item < m_prior->count(); ++item) {
        const Preset& p = m_presets[static_cast<std::size_t>(item - PriorFirstPreset)];
        const bool fits = !have || p.heads == maps->heads();
        if (auto* model = qobject_cast<QStandardItemModel*>(m_prior->model()))
            if (QStandardItem* it = model->item(item)) {
                it->setEnabled(fits);
                it->setToolTip(fits ? QString() : u"%1 heads; the maps have %2"_s.arg(p.heads).arg(maps->heads()));
            }
    }
}

void AttentionMapsPage::onOpened() {
    const MapsPtr maps = m_model->maps();
    {
        QSignalBlocker b1(m_layer), b2(m_layerSlider), b3(m_head), b4(m_row), b5(m_tensor), b6(m_batch), b7(m_values),
            b8(m_prior), b9(m_firstRow), b10(m_lastRow);
        m_layer->setRange(0, maps->layers() - 1);
        // The positions the file's layers take: "1 / 3" read "layer 1 of 3" for 4 layers (s40
        // review F4), right after a lesson said "4 layers".
        m_layer->setSuffix(u" of 0–%1"_s.arg(maps->layers() - 1));
        m_layerSlider->setRange(0, maps->layers() - 1);
        m_layer->setValue(std::min(m_layer->value(), maps->layers() - 1));
        m_layerSlider->setValue(m_layer->value());
        m_head->setRange(0, maps->heads() - 1);
        const int lastRow = static_cast<int>(std::min<std::int64_t>(maps->queries(), 1 << 30));
        m_row->setRange(0, lastRow - 1);
        if (m_row->value() == 0 || m_row->value() >= lastRow) m_row->setValue(lastRow - 1);
        m_firstRow->setRange(0, lastRow - 1);
        m_firstRow->setValue(0);
        m_lastRow->setRange(0, lastRow - 1);
        m_lastRow->setValue(lastRow - 1);
        m_tensor->clear();
        const QStringList names = m_model->tensorNames();
        m_tensor->addItem(u"all %1 layer tensors"_s.arg(names.size()));
        m_tensor->addItems(names);
        m_tensor->setCurrentIndex(m_model->options().tensor.empty() ? 0
                                                                    : names.indexOf(qs(m_model->options().tensor)) + 1);
        m_batch->setRange(0, maps->batches() - 1);
        m_batch->setValue(maps->batch());
        m_values->clear();
        m_values->addItem(u"%1 (detected)"_s.arg(qs(std::string(attentionValuesName(maps->values())))));
        m_values->addItem(u"probabilities"_s);
        m_values->addItem(u"scores (pre-softmax)"_s);
        m_values->setCurrentIndex(!m_model->options().values                                     ? 0
                                  : *m_model->options().values == AttentionValues::Probabilities ? 1
                                                                                                 : 2);
        m_values->setItemData(0, qs(maps->valuesReason()), Qt::ToolTipRole);
        if (m_model->configured().empty()) m_prior->setCurrentIndex(0);
    }
    const QString name = QFileInfo(m_model->path()).fileName();
    const QString summary = qs(explore::mapsSummary(*maps));
    m_file->setText(u"<b>%1</b> · %2"_s.arg(name.toHtmlEscaped(), summary.toHtmlEscaped()));
    m_file->setToolTip(m_model->path() + u"\n"_s + summary);
    m_status->setText(u"Opened %1: %2 · values: %3 (%4)"_s.arg(
        name, summary, qs(std::string(attentionValuesName(maps->values()))), qs(maps->valuesReason())));
    updateControls();
    // A model run's maps name the slopes they were computed with: the prior a reader wants beside
    // them (explore::pairedSlopes, as `alibi fit` and `alibi render FILE` pair them).
    if (!maps->fileSlopes().empty())
        (void)choosePrior(PriorFile);
    else if (m_priorItem == PriorFile)
        (void)choosePrior(PriorNone);
    m_overviewMap = MapsOverview();
    m_grid->setRenderer(mapsRenderer(MapsShows::Layer));
    m_headView->setRenderer(mapsRenderer(MapsShows::Head));
    m_overview->setRenderer(mapsRenderer(MapsShows::Overview));
    m_distances = DistanceMatrix();
    m_similarityOrder.clear();
    refreshTable();
    refreshLayer();
    // Two heads: the shown head against the next head of its layer (or its prior, one head).
    m_twoHeads->refresh();  // the pickers' ranges first
    m_twoHeads->setA(m_layer->value(), m_head->value());
    if (maps->heads() > 1)
        m_twoHeads->setB(explore::CompareSource::Head, m_layer->value(), (m_head->value() + 1) % maps->heads());
    else
        m_twoHeads->setB(explore::CompareSource::FittedPrior);
    startFit();
    applyLessonTarget();
    if (isVisible()) m_views->currentWidget()->setFocus();  // PageUp / PageDown step layers at once
}

void AttentionMapsPage::startFit() {
    if (!m_model->maps()) return;
    m_progress->setValue(0);
    // The field's last row included; the request's end excluded (-1: every row to the last).
    m_model->startFit(m_firstRow->value(), m_lastRow->value() >= m_lastRow->maximum() ? -1 : m_lastRow->value() + 1);
    m_status->setText(u"Fitting every head on query rows %1 to %2…"_s.arg(m_firstRow->value()).arg(m_lastRow->value()));
    updateControls();
}

void AttentionMapsPage::onFitted() {
    m_progress->setValue(1000);
    updateControls();
    const auto& fits = m_model->fits();
    m_status->setText(QString::fromStdString(explore::fitSummaryLine(
        fits.size(), m_model->fitFirstRow(), m_model->fitLastRow(), m_model->maps()->queries(),
        m_model->configured().empty() ? std::string() : m_model->configuredSource().toStdString())));
    refreshTable();
    refreshLayer();
    if (m_views->currentIndex() == SimilarityView) refreshSimilarity();
    m_twoHeads->refresh();  // the fit table's fits and rows
}

explore::HeadSlopes AttentionMapsPage::slopesOf(int layerIndex, int head) const {
    explore::HeadSlopes s;
    if (const HeadFit* f = m_model->fitOf(layerIndex, head)) s.fitted = f->slope;
    const auto& configured = m_model->configured();
    if (head >= 0 && head < static_cast<int>(configured.size()))
        s.configured = configured[static_cast<std::size_t>(head)];
    return s;
}

QString AttentionMapsPage::priorText() const {
    return m_model->configured().empty() ? u"no ALiBi prior paired"_s : u"prior: "_s + m_model->configuredSource();
}

bool AttentionMapsPage::choosePrior(int item) {
    const MapsPtr maps = m_model->maps();
    const auto refuse = [this](const QString& message) {
        QSignalBlocker block(m_prior);
        m_prior->setCurrentIndex(m_priorItem);
        m_status->setText(message);
        emit failed(u"Cannot pair the ALiBi prior"_s, message);
        return false;
    };
    if (item <= 0) {
        (void)m_model->setConfigured({}, {});
        m_priorItem = 0;
        return true;
    }
    std::vector<double> slopes;
    QString source;
    if (item == PriorFile) {
        if (!maps || maps->fileSlopes().empty())
            return refuse(maps && !maps->fileSlopesNote().empty()
                              ? qs(maps->fileSlopesNote())
                              : u"this file names no slopes (alibi run and the explorers' model runs write them)"_s);
        slopes = maps->fileSlopes();  // one per head: read so by the core
        source = u"the file"_s;
    } else {
        SlopeParams params;
        if (item == PriorSession) {
            if (!m_sessionSlopes) return refuse(u"no session to take the slopes from"_s);
            params = m_sessionSlopes();
            source = u"the current session"_s;
        } else if (item - PriorFirstPreset < static_cast<int>(m_presets.size())) {
            const Preset& preset = m_presets[static_cast<std::size_t>(item - PriorFirstPreset)];
            Session s;
            applyPreset(s, preset);
            params = s.attention.bias.slopes;
            source = u"preset "_s + qs(preset.id);
        } else {
            return refuse(u"unknown prior"_s);
        }
        if (maps)
            if (auto ok = explore::checkPairing(*maps, params.heads, source.toStdString()); !ok)
                return refuse(shownError(ok.error().message));
        auto computed = computeSlopes(params);
        if (!computed) return refuse(shownError(computed.error().message));
        slopes = std::move(*computed);
    }
    if (auto ok = m_model->setConfigured(std::move(slopes), source); !ok) return refuse(shownError(ok.error().message));
    m_priorItem = item;
    {
        QSignalBlocker block(m_prior);
        m_prior->setCurrentIndex(item);
    }
    m_status->setText(u"Paired with the ALiBi slopes of "_s + source + u"; refitting for the configured KL…"_s);
    updateControls();
    return true;
}

}  // namespace alibi::qt
