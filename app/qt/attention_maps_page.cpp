// The Attention maps tab: controls and views over AttentionMapsModel; pictures, texts, rows and
// table columns from the core (render/attention_maps_render.hpp, explore/attention_maps_view.hpp).
#include "attention_maps_page.hpp"

#include "lesson_mark.hpp"

#include "maps_heatmap_view.hpp"
#include "number_table.hpp"
#include "plot_widget.hpp"
#include "two_heads_view.hpp"
#include "view_util.hpp"

#include <alibi/explore/attention_maps_view.hpp>
#include <alibi/figure/attention_maps_plots.hpp>
#include <alibi/figure/maps_picture.hpp>
#include <alibi/io/output_file.hpp>
#include <alibi/model/slopes.hpp>
#include <alibi/render/format.hpp>
#include <alibi/render/png.hpp>
#include <alibi/render/square_cells.hpp>

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QCursor>
#include <QElapsedTimer>
#include <QFileDialog>
#include <QFileInfo>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QPointer>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QShortcut>
#include <QSlider>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QSplitter>
#include <QStandardItemModel>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>
#include <QToolButton>
#include <QToolTip>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>

using namespace Qt::Literals::StringLiterals;

namespace alibi::qt {

namespace {

QString qs(const std::string& s) {
    return QString::fromStdString(s);
}

QLabel* label(const QString& text, QWidget* parent) {
    return new QLabel(text, parent);
}

// The verdict column's value: the core's verdict kind (for sorting) times this, plus the head's
// position in the model's fits (to read its verdict back when the cell is drawn).
constexpr double kVerdictStride = 1e9;

// The core's verdict roles in this explorer's palette (cell backgrounds).
QColor verdictColor(FitVerdictRole role) {
    switch (role) {
        case FitVerdictRole::Agrees:
            return QColor(200, 235, 200);
        case FitVerdictRole::Differs:
            return QColor(250, 220, 180);
        case FitVerdictRole::Unlike:
            return QColor(245, 195, 195);
        default:
            return {};
    }
}

}  // namespace

AttentionMapsPage::AttentionMapsPage(QWidget* parent) : QWidget(parent) {
    m_model = new AttentionMapsModel(this);

    // --- The file's controls (first row) and the position and fit controls (second row).
    auto* open = new QPushButton(u"Open…"_s, this);
    open->setToolTip(
        u"Open a .npy (H, Q, K), (L, H, Q, K) or (B, L, H, Q, K) or a .safetensors file with one "
        "tensor per layer (Ctrl+Shift+O), or drop one on this tab"_s);
    m_file = new QLabel(u"No attention maps open."_s, this);
    m_file->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_file->setMinimumWidth(100);
    m_file->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    // The file's name and shape: a line of their own above the controls, wrapped rather than cut
    // at the window's edge.
    m_file->setWordWrap(true);
    m_tensor = new QComboBox(this);
    m_tensor->setToolTip(u"The safetensors file's layer tensors, ordered by layer number: all of them, or one"_s);
    // Combos as wide as a short entry (their lists open as wide as needed): the tab fits 1280 px.
    m_tensor->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_tensor->setMinimumContentsLength(14);
    m_batchLabel = label(u"Batch"_s, this);
    m_batch = new QSpinBox(this);
    m_batch->setToolTip(u"Which element of the batched array to read"_s);
    m_values = new QComboBox(this);
    m_values->setToolTip(
        u"Whether the file holds probabilities (rows sum to 1) or pre-softmax scores: detected from "
        "sampled rows, or as you say"_s);
    m_values->setSizeAdjustPolicy(QComboBox::AdjustToContents);  // "probabilities (detected)" whole
    m_prior = new QComboBox(this);
    m_prior->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    // "current session's slopes" whole (24 characters); never squeezed below that by the row.
    m_prior->setMinimumContentsLength(24);
    m_prior->setSizePolicy(QSizePolicy::Minimum, QSizePolicy::Fixed);
    m_values->setSizePolicy(QSizePolicy::Minimum, QSizePolicy::Fixed);
    m_prior->setToolTip(
        u"The model's ALiBi parameters, so each head's configured slope shows beside its fitted one "
        "(only parameters with the maps' head count pair)"_s);
    auto* row1 = new QHBoxLayout;
    row1->addWidget(open);
    row1->addWidget(m_tensor);
    row1->addWidget(m_batchLabel);
    row1->addWidget(m_batch);
    row1->addWidget(m_values);
    row1->addStretch(1);
    // The shown layer (or head) as a finished figure for slides, drawn at 1x, 2x or 4x.
    m_figure = new QToolButton(this);
    m_figure->setText(u"Figure"_s);
    m_figure->setToolTip(
        u"Save the open tab's picture as a figure with title, axes, colour bar or legend and caption: "
        "PNG rendered at 1x, 2x or 4x the view's size, SVG for the distance and row plots (the same "
        "as alibi render FILE; Ctrl+Shift+P, or a right click on the view)"_s);
    m_figure->setPopupMode(QToolButton::InstantPopup);
    auto* figureMenu = new QMenu(m_figure);
    connect(figureMenu, &QMenu::aboutToShow, this, [this, figureMenu] {
        figureMenu->clear();
        fillFigureMenu(figureMenu);
    });
    m_figure->setMenu(figureMenu);
    row1->addWidget(m_figure);

    m_layer = new QSpinBox(this);
    m_layer->setToolTip(u"Layer (position in the file; PageUp / PageDown, or the wheel over the grid)"_s);
    m_layerSlider = new QSlider(Qt::Horizontal, this);
    m_layerSlider->setMinimumWidth(40);
    m_layerSlider->setMaximumWidth(90);
    m_head = new QSpinBox(this);
    m_head->setToolTip(
        u"Head shown in the head, distance and row views (click a tile, or the wheel over the head view)"_s);
    m_row = new QSpinBox(this);
    m_row->setToolTip(u"Query row shown in the row view (click a row in the head view)"_s);
    m_log = new QCheckBox(u"log colours"_s, this);
    m_log->setToolTip(u"Colours on a log10 scale (probabilities span many orders of magnitude)"_s);
    // As ImGui's maps view has it (and the figures): each tile coloured on its own range, the bar
    // showing the hovered tile's (the core's ScaleMode::PerHead and attentionMapsColorBar).
    m_perHead = new QCheckBox(u"per-head scale"_s, this);
    m_perHead->setToolTip(
        u"Each head's tile coloured on its own range (the colour bar shows the hovered tile's); rows of one key "
        "(p = 1) are left out of the ranges"_s);
    m_firstRow = new QSpinBox(this);
    m_firstRow->setToolTip(u"Fit on query rows from this one…"_s);
    // The last row fitted, included, as the core's caption beside it says ("Fitted 32 heads on
    // query rows 0 to 63"): the field read 64, the fit request's exclusive end (issue 27). The
    // request stays exclusive underneath (startFit adds one); ImGui uses the same words.
    m_lastRow = new QSpinBox(this);
    m_lastRow->setToolTip(u"…up to and including this one"_s);
    m_fit = new QPushButton(u"Fit"_s, this);
    m_fit->setToolTip(u"Fit every head's effective slope m* on the chosen rows (in the background)"_s);
    m_cancel = new QPushButton(u"Cancel"_s, this);
    m_progress = new QProgressBar(this);
    m_progress->setRange(0, 1000);
    m_progress->setMaximumWidth(80);
    m_progress->setTextVisible(true);
    m_progress->setFormat(u"%p %"_s);
    m_exportCsv = new QPushButton(u"CSV…"_s, this);
    m_exportCsv->setToolTip(u"Export the fit table as CSV (the same bytes as alibi fit --format csv)"_s);
    m_exportJson = new QPushButton(u"JSON…"_s, this);
    // As wide as their text at any font (a width fixed in pixels cut them at 175 %).
    for (QPushButton* b : {m_fit, m_cancel, m_exportCsv, m_exportJson})
        b->setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Fixed);
    m_exportJson->setToolTip(u"Export the fit table as JSON (the same bytes as alibi fit --format json)"_s);
    auto* row2 = new QHBoxLayout;
    row2->addWidget(label(u"Layer"_s, this));
    row2->addWidget(m_layer);
    row2->addWidget(m_layerSlider);
    row2->addWidget(label(u"Head"_s, this));
    row2->addWidget(m_head);
    row2->addWidget(label(u"Row"_s, this));
    row2->addWidget(m_row);
    row2->addStretch(1);
    m_layerRow = row2;
    // The fit's controls on a row of their own: on one row with the above they made the page
    // wider than a presentation beside the lesson panel (it scrolled sideways).
    auto* row3 = new QHBoxLayout;
    row3->addWidget(label(u"Fit rows"_s, this));
    row3->addWidget(m_firstRow);
    row3->addWidget(label(u"to"_s, this));
    row3->addWidget(m_lastRow);
    row3->addWidget(m_fit);
    row3->addWidget(m_cancel);
    row3->addWidget(m_progress);
    row3->addStretch(1);
    // The colour options: on the layer's row, or on a row of their own where it has no room
    // (placeColourOptions; on the fit's row they made the page 123 px too wide).
    auto* colours = new QHBoxLayout;
    colours->addWidget(m_log);
    colours->addWidget(m_perHead);
    colours->addStretch(1);
    m_colourRow = colours;
    // The prior and the table's exports on a row of their own (with the values box and the fit's
    // controls they made the page wider than a presentation beside the lesson panel).
    auto* row4 = new QHBoxLayout;
    row4->addWidget(label(u"Prior"_s, this));
    row4->addWidget(m_prior);
    row4->addStretch(1);
    row4->addWidget(label(u"Table"_s, this));
    row4->addWidget(m_exportCsv);
    row4->addWidget(m_exportJson);

    // --- The views.
    m_views = new QTabWidget(this);
    m_views->setDocumentMode(true);
    // The pictures scale to what is left: the tab never needs more than a small window.
    m_views->setMinimumSize(320, 240);
    m_grid = new MapsHeatmapView(this);
    m_overview = new MapsHeatmapView(this);
    m_headView = new MapsHeatmapView(this);
    for (MapsHeatmapView* v : {m_grid, m_overview, m_headView}) {
        v->setMessage(
            u"Open attention maps (File > Open attention maps…, Ctrl+Shift+O), drop a .npy or .safetensors "
            "file here, or open an example from the Help menu."_s);
        v->setMaskedSwatch(true);
    }
    m_profile = new PlotWidget(this);
    m_profile->setAxisLabels(u"distance i − j"_s, u"share of attention (all rows)"_s);
    m_profile->setCategorical(true);
    m_rowPlot = new PlotWidget(this);
    m_rowPlot->setAxisLabels(u"key j"_s, u"probability"_s);
    m_rowPlot->setCategorical(true);
    auto* distance = new QSplitter(Qt::Vertical, this);
    distance->addWidget(m_profile);
    distance->addWidget(m_rowPlot);

    auto* similarityPage = new QWidget(this);
    m_basis = new QComboBox(similarityPage);
    m_basis->addItem(u"attention-vs-distance profiles (JS distance)"_s);
    m_basis->addItem(u"full maps (JS distance, row by row)"_s);
    m_order = new QComboBox(similarityPage);
    m_order->addItem(u"heads by index"_s);
    m_order->addItem(u"heads by fitted slope (steepest first)"_s);
    m_order->addItem(u"heads in clustering order"_s);
    m_order->setCurrentIndex(2);
    for (QComboBox* box : {m_basis, m_order}) {
        box->setSizeAdjustPolicy(QComboBox::AdjustToContents);
        box->setSizePolicy(QSizePolicy::Minimum, QSizePolicy::Fixed);
    }
    m_similarity = new MapsHeatmapView(similarityPage);
    m_similarity->setColorBarTitle(u"JS distance"_s);
    m_similarity->setColormap(Colormap::Magma);
    m_similarity->setMessage(u"Fit the heads first: the profile distances come from the fit."_s);
    m_similarityNote = new QLabel(similarityPage);
    m_similarityNote->setWordWrap(true);
    // The basis on one row, the order and the note on the next: on one row they were wider
    // than a presentation beside the lesson panel (the boxes were cut).
    auto* simRow1 = new QHBoxLayout;
    simRow1->addWidget(label(u"Between"_s, similarityPage));
    simRow1->addWidget(m_basis);
    simRow1->addStretch(1);
    auto* simRow2 = new QHBoxLayout;
    simRow2->addWidget(m_order);
    simRow2->addWidget(m_similarityNote, 1);
    auto* simBar = new QVBoxLayout;
    simBar->addLayout(simRow1);
    simBar->addLayout(simRow2);
    auto* simLayout = new QVBoxLayout(similarityPage);
    simLayout->setContentsMargins(0, 4, 0, 0);
    simLayout->addLayout(simBar);
    simLayout->addWidget(m_similarity, 1);

    m_tableModel = new NumberTable(this);
    {
        QStringList headers;
        std::vector<NumberTable::Format> formats;
        std::vector<NumberTable::Shade> shades(explore::kFitColumnCount);
        // The verdict cell shows the core's verdict of the head its value points at.
        const auto verdictOf = [this](double v) -> std::optional<FitVerdict> {
            const auto index = static_cast<std::size_t>(std::fmod(v, kVerdictStride));
            if (std::isnan(v) || index >= m_model->fits().size()) return std::nullopt;
            return fitVerdict(m_model->fits()[index]);
        };
        for (int c = 0; c < explore::kFitColumnCount; ++c) {
            const auto column = static_cast<explore::FitColumn>(c);
            // Two lines ("configured" over "m"), so more columns fit the width.
            headers << qs(std::string(explore::fitColumnTitle(column))).replace(u' ', u'\n');
            if (column == explore::FitColumn::Verdict) {
                formats.push_back([verdictOf](double v) {
                    const auto verdict = verdictOf(v);
                    return verdict ? qs(verdict->text) : QString();
                });
                shades[static_cast<std::size_t>(c)] = [verdictOf](double v) {
                    const auto verdict = verdictOf(v);
                    return verdict ? verdictColor(verdict->role) : QColor();
                };
            } else {
                formats.push_back([column](double v) { return qs(explore::formatFitColumn(column, v)); });
            }
        }
        m_tableModel->setColumns(headers, formats, shades);
        QStringList tips;
        for (int c = 0; c < explore::kFitColumnCount; ++c)
            tips << qs(std::string(explore::fitColumnToolTip(static_cast<explore::FitColumn>(c))));
        m_tableModel->setHeaderToolTips(tips);
    }
    // The lesson's rows marked (lesson_mark.hpp) between the numbers and the sorting.
    m_lessonRows = new LessonRowsProxy(-1, this);
    m_lessonRows->setSourceModel(m_tableModel);
    m_lessonRows->setRowTest([this](int row) { return marksFitRow(row); });
    m_sorted = new QSortFilterProxyModel(this);
    m_sorted->setSourceModel(m_lessonRows);
    m_sorted->setSortRole(Qt::UserRole);
    m_table = new QTableView(this);
    m_table->setModel(m_sorted);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(-1, Qt::AscendingOrder);  // file order until a header is clicked
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->verticalHeader()->setVisible(false);
    // Columns as wide as their contents, widened to fill the view (keepTableTextAtPlotScale), in
    // the core's order (the columns a lesson compares side by side first).
    keepTableTextAtPlotScale(
        this, m_table,
        m_table->horizontalHeader()->visualIndex(static_cast<int>(explore::FitColumn::ConfiguredSlope)) + 1);
    m_table->setToolTip(u"Click a header to sort; select a row to show that head in the other views"_s);

    m_views->addTab(m_grid, u"Layer grid"_s);
    m_views->addTab(m_overview, u"All layers"_s);
    m_views->addTab(m_headView, u"Head"_s);
    m_distancePage = distance;
    m_views->addTab(distance, u"Distance && rows"_s);
    m_views->addTab(similarityPage, u"Similarity"_s);
    m_views->addTab(m_table, u"Fit table"_s);
    m_twoHeads = new TwoHeadsView(m_model, this);
    m_views->addTab(m_twoHeads, u"Two heads"_s);
    fitTabs(m_views, {u"Layer"_s, u"Layers"_s, u"Head"_s, u"Distance"_s, u"Similarity"_s, u"Fits"_s, u"Two heads"_s});
    connect(m_twoHeads, &TwoHeadsView::cellHovered, this, [this](const QString& text) {
        m_hoverText = m_twoHeads->hoverText();
        emit cellHovered(text);
    });

    // A right click on any view offers the open tab's figures (the views ignore the event, so
    // it reaches the tab widget).
    m_views->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_views, &QWidget::customContextMenuRequested, this, [this](const QPoint& pos) {
        QMenu menu(this);
        fillFigureMenu(&menu);
        menu.exec(m_views->mapToGlobal(pos));
    });

    m_status = new QLabel(this);
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(8, 8, 8, 4);
    layout->addWidget(m_file);
    layout->addLayout(row1);
    layout->addLayout(row4);
    layout->addLayout(row2);
    layout->addLayout(colours);
    layout->addLayout(row3);
    layout->addWidget(m_views, 1);
    layout->addWidget(m_status);

    // --- Wiring.
    connect(open, &QPushButton::clicked, this, &AttentionMapsPage::openRequested);
    connect(m_model, &AttentionMapsModel::opened, this, &AttentionMapsPage::onOpened);
    connect(m_model, &AttentionMapsModel::openFailed, this, [this](const QString& message) {
        m_lessonTarget.reset();
        updateControls();
        m_status->setText(u"Cannot open attention maps: "_s + message +
                          (m_model->maps() ? u"  (the open file stays)"_s : u""_s));
        emit failed(u"Cannot open attention maps"_s, message);
    });
    connect(m_model, &AttentionMapsModel::openCancelled, this, [this](const QString& path) {
        m_lessonTarget.reset();
        updateControls();
        m_status->setText(u"Opening "_s + QFileInfo(path).fileName() + u" cancelled"_s +
                          (m_model->maps() ? u"; the open file stays."_s : u"."_s));
    });
    connect(m_model, &AttentionMapsModel::fitProgress, this,
            [this](double f) { m_progress->setValue(static_cast<int>(std::lround(f * 1000))); });
    // An open's progress (the core's: header bytes read and parsed, sampled rows checked).
    connect(m_model, &AttentionMapsModel::openProgress, this, [this](double f, const QString& stage) {
        m_progress->setValue(static_cast<int>(std::lround(f * 1000)));
        m_status->setText(openingText(stage));
    });
    connect(m_model, &AttentionMapsModel::fitted, this, &AttentionMapsPage::onFitted);
    connect(m_model, &AttentionMapsModel::fitFailed, this, [this](const QString& message) {
        updateControls();
        m_status->setText(message == u"fit cancelled"_s ? u"Fit cancelled: the table shows the last finished fit."_s
                                                        : u"Fit failed: "_s + message);
        if (message != u"fit cancelled"_s) emit failed(u"Cannot fit the heads"_s, message);
    });
    connect(m_model, &AttentionMapsModel::configuredChanged, this, [this] {
        refreshTable();
        refreshLayer();
        m_twoHeads->refresh();
    });
    connect(m_tensor, &QComboBox::activated, this, [this](int item) {
        AttentionOpenOptions options = m_model->options();
        options.tensor = item <= 0 ? std::string() : m_tensor->itemText(item).toStdString();
        m_model->reopen(options);
    });
    connect(m_batch, &QSpinBox::editingFinished, this, [this] {
        if (!m_model->maps() || m_batch->value() == m_model->maps()->batch()) return;
        AttentionOpenOptions options = m_model->options();
        options.batch = m_batch->value();
        m_model->reopen(options);
    });
    connect(m_values, &QComboBox::activated, this, [this](int item) {
        AttentionOpenOptions options = m_model->options();
        options.values = item == 1   ? std::optional(AttentionValues::Probabilities)
                         : item == 2 ? std::optional(AttentionValues::Scores)
                                     : std::nullopt;
        m_model->reopen(options);
    });
    connect(m_prior, &QComboBox::activated, this, [this](int item) { choosePrior(item); });
    connect(m_layer, &QSpinBox::valueChanged, this, [this](int v) {
        QSignalBlocker block(m_layerSlider);
        m_layerSlider->setValue(v);
        refreshLayer();
        refreshSimilarity();
    });
    connect(m_layerSlider, &QSlider::valueChanged, m_layer, &QSpinBox::setValue);
    connect(m_head, &QSpinBox::valueChanged, this, [this] { refreshLayer(); });
    connect(m_row, &QSpinBox::valueChanged, this, [this] { refreshPlots(); });
    connect(m_log, &QCheckBox::toggled, this, [this] {
        m_grid->refresh();
        m_overview->refresh();
        m_headView->refresh();
    });
    // One head's picture keeps the shared scale (its one tile's range is the picture's), as ImGui's.
    connect(m_perHead, &QCheckBox::toggled, this, [this](bool on) {
        m_grid->setPerHeadScale(on);
        m_overview->setPerHeadScale(on);
        m_grid->refresh();
        m_overview->refresh();
    });
    // A tile's own bar (per-head scales): the core's, as the exported figures carry it, named by
    // the tile's head ("L1 h3" on the overview, as its tiles are named).
    m_grid->setColorBarSource([this](const Heatmap& map, int tile, int ticks) {
        const MapsPtr maps = m_model->maps();
        if (!maps) return alibi::ColorBar{};
        alibi::ColorBar bar = attentionMapsColorBar(*maps, map, tile, ticks);
        if (tile >= 0 && tile < static_cast<int>(map.tiles.size()))
            bar.head = "h" + std::to_string(map.tiles[static_cast<std::size_t>(tile)].head);
        return bar;
    });
    m_overview->setColorBarSource([this](const Heatmap& map, int tile, int ticks) {
        const MapsPtr maps = m_model->maps();
        if (!maps) return alibi::ColorBar{};
        alibi::ColorBar bar = attentionMapsColorBar(*maps, map, tile, ticks);
        const auto n = static_cast<std::size_t>(tile);
        if (tile >= 0 && n < map.tiles.size() && n < m_overviewMap.tileLayer.size())
            bar.head = explore::mapsHeadLabel(*maps, m_overviewMap.tileLayer[n], map.tiles[n].head);
        return bar;
    });
    connect(m_fit, &QPushButton::clicked, this, &AttentionMapsPage::startFit);
    // Cancel stops whatever is under way: an open (its header read) or a fit.
    connect(m_cancel, &QPushButton::clicked, m_model, [this] {
        m_model->cancelOpen();
        m_model->cancelFit();
    });
    connect(m_exportCsv, &QPushButton::clicked, this, [this] { exportDialog(FileFormat::Csv); });
    connect(m_exportJson, &QPushButton::clicked, this, [this] { exportDialog(FileFormat::Json); });
    connect(m_basis, &QComboBox::activated, this, [this] { refreshSimilarity(); });
    connect(m_order, &QComboBox::activated, this, [this] { refreshSimilarity(); });
    connect(m_views, &QTabWidget::currentChanged, this, [this](int index) {
        if (index == SimilarityView) refreshSimilarity();
        if (isVisible()) m_views->currentWidget()->setFocus();  // PageUp / PageDown work at once
    });

    for (MapsHeatmapView* v : {m_grid, m_overview, m_headView, m_similarity}) {
        connect(v, &MapsHeatmapView::hovered, this, [this, v](QPoint p) {
            const QString text = p.x() < 0 ? QString() : hoverAt(v, p);
            m_hoverText = text;
            emit cellHovered(QString(text).replace(u'\n', u"   "_s));
            if (text.isEmpty() || !m_hoverTips)
                QToolTip::hideText();
            else
                QToolTip::showText(QCursor::pos(), readoutTooltip(text), v);
        });
    }
    connect(m_grid, &MapsHeatmapView::pictureShown, this, &AttentionMapsPage::onGridShown);
    for (MapsHeatmapView* v : {m_grid, m_headView, m_similarity})
        connect(v, &MapsHeatmapView::pictureShown, this, &AttentionMapsPage::scrollToCited);
    connect(m_grid, &MapsHeatmapView::clicked, this, [this](QPoint p) {
        if (!m_model->maps()) return;
        if (const auto hit = mapsHitTest(m_grid->heatmap(), *m_model->maps(), p.x(), p.y())) {
            setHead(hit->head);
            setRow(hit->query);
        }
    });
    connect(m_overview, &MapsHeatmapView::clicked, this, [this](QPoint p) {
        if (!m_model->maps()) return;
        if (const auto hit = mapsPictureHit(m_overviewMap, *m_model->maps(), p.x(), p.y())) {
            setLayerIndex(hit->layerIndex);
            setHead(hit->cell.head);
            setRow(hit->cell.query);
        }
    });
    connect(m_headView, &MapsHeatmapView::clicked, this, [this](QPoint p) {
        if (!m_model->maps()) return;
        if (const auto hit = mapsHitTest(m_headView->heatmap(), *m_model->maps(), p.x(), p.y())) setRow(hit->query);
    });
    connect(m_grid, &MapsHeatmapView::wheelSteps, this,
            [this](int steps) { m_layer->setValue(m_layer->value() - steps); });
    connect(m_overview, &MapsHeatmapView::wheelSteps, this,
            [this](int steps) { m_layer->setValue(m_layer->value() - steps); });
    connect(m_headView, &MapsHeatmapView::wheelSteps, this,
            [this](int steps) { m_head->setValue(m_head->value() - steps); });
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& index) {
        if (!index.isValid()) return;
        const QModelIndex source = m_sorted->mapToSource(index);
        const auto& fits = m_model->fits();
        if (source.row() < 0 || source.row() >= static_cast<int>(fits.size())) return;
        const HeadFit& f = fits[static_cast<std::size_t>(source.row())];
        setLayerIndex(f.layerIndex);
        setHead(f.head);
    });

    // PageUp / PageDown step through the layers wherever the focus is in this tab.
    auto* up = new QShortcut(QKeySequence(Qt::Key_PageUp), this);
    up->setContext(Qt::WidgetWithChildrenShortcut);
    connect(up, &QShortcut::activated, this, [this] { m_layer->setValue(m_layer->value() - 1); });
    auto* down = new QShortcut(QKeySequence(Qt::Key_PageDown), this);
    down->setContext(Qt::WidgetWithChildrenShortcut);
    connect(down, &QShortcut::activated, this, [this] { m_layer->setValue(m_layer->value() + 1); });

    m_prior->addItem(u"no ALiBi prior"_s);
    updateControls();
}

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

void AttentionMapsPage::showLessonTarget(const LessonTarget& target) {
    m_lessonLayer = -1;  // the step's layer, once its file is open
    const auto same = [&](const QString& path) {
        return !path.isEmpty() && QFileInfo(path).canonicalFilePath() == QFileInfo(target.path).canonicalFilePath();
    };
    if (m_model->opening() && same(m_model->openingPath())) {
        m_lessonTarget = target;  // the open under way applies this step instead of the last one
        return;
    }
    if (m_model->maps() && same(m_model->path()) && !m_model->opening()) {
        m_lessonTarget = target;
        applyLessonTarget();
        return;
    }
    // Opening cancels an open under way, which clears its step's target: set this one after.
    openFile(target.path);
    m_lessonTarget = target;  // onOpened applies it
}

void AttentionMapsPage::setLessonMark(explore::LessonMark mark) {
    m_lessonMark = std::move(mark);
    showLessonMark();
}

bool AttentionMapsPage::marksFitRow(int row) const {
    const auto& fits = m_model->fits();
    if (m_lessonMark.heads.empty() || m_lessonLayer < 0 || row < 0 || row >= static_cast<int>(fits.size()))
        return false;
    const HeadFit& f = fits[static_cast<std::size_t>(row)];
    return f.layerIndex == m_lessonLayer && m_lessonMark.marksHead(f.head);
}

void AttentionMapsPage::showLessonMark() {
    const MapsPtr maps = m_model->maps();
    // The mark belongs to the step's layer: another layer shows none.
    const bool on = maps && m_lessonLayer >= 0 && m_layer->value() == m_lessonLayer;
    const explore::LessonMark mark = on ? m_lessonMark : explore::LessonMark{};
    const std::int64_t Q = maps ? maps->queries() : 0, K = maps ? maps->keys() : 0;
    m_grid->setLessonMark(mark, Q, K);
    m_headView->setLessonMark(mark, Q, K);
    m_lessonRows->setRowTest([this](int row) { return marksFitRow(row); });
    // The first marked row in view.
    for (int r = 0; r < m_sorted->rowCount(); ++r)
        if (marksFitRow(m_sorted->mapToSource(m_sorted->index(r, 0)).row())) {
            m_table->scrollTo(m_sorted->index(r, 0));
            break;
        }
}

void AttentionMapsPage::applyLessonTarget() {
    const MapsPtr maps = m_model->maps();
    if (!m_lessonTarget || !maps) return;
    const LessonTarget t = *m_lessonTarget;
    m_lessonTarget.reset();
    m_lessonLayer = -1;
    if (auto index = maps->layerIndexOf(t.layerNumber)) {
        m_lessonLayer = *index;
        setLayerIndex(*index);
    } else  // a lesson naming a layer the file lacks (loading a lesson does not open its files)
        m_status->setText(u"This lesson step shows layer %1, which %2 does not have (%3 layer(s))."_s.arg(t.layerNumber)
                              .arg(QFileInfo(m_model->path()).fileName())
                              .arg(maps->layers()));
    if (t.head >= 0 && t.head < maps->heads()) setHead(t.head);
    if (t.row >= 0 && t.row < maps->queries()) setRow(t.row);
    if (t.view >= 0 && t.view < m_views->count()) m_views->setCurrentIndex(t.view);
    // A lesson reads the maps against the model's own slopes (its session's): pair them, so the
    // fit table's configured m, the configured prior curve and the slope ratio are there.
    if (m_model->configured().empty() && m_sessionSlopes &&
        explore::checkPairing(*maps, m_sessionSlopes().heads, "the current session"))
        (void)choosePrior(PriorSession);
    showLessonMark();
    // Once the view switched and laid out: on a 1280x720 projector the page is taller than its tab.
    m_cited = t;
    QTimer::singleShot(0, this, [this] { scrollToCited(); });
}

void AttentionMapsPage::scrollToCited() {
    if (!m_cited) return;
    const LessonTarget target = *m_cited;
    QScrollArea* area = enclosingScrollArea();
    if (area == nullptr) {
        m_cited.reset();
        return;
    }
    // A picture still on its way may wrap a title otherwise: scroll again when it lands.
    if (!picturesPending()) m_cited.reset();
    QScrollBar* bar = area->verticalScrollBar();
    const int room = area->viewport()->height();
    const int top = m_views->mapTo(this, QPoint(0, 0)).y(), bottom = top + m_views->height();
    if (m_views->height() <= room) {
        // The views whole: their tabs and the open view (the whole grid or similarity matrix, both
        // plots, the table with its header); the page scrolls no further than that needs.
        bar->setValue(std::clamp(bar->value(), bottom - room, top));
        return;
    }
    // A window too small for the views: the marked cell, or the cited view's top.
    const MapsPtr maps = m_model->maps();
    if (target.view == HeadView && maps && m_lessonMark.cellHead >= 0) {
        const QRectF cell = m_headView->cellRect(0, m_lessonMark.query, m_lessonMark.key);
        if (!cell.isEmpty()) {
            const QPoint at = m_headView->mapTo(this, cell.center().toPoint());
            area->ensureVisible(at.x(), at.y(), 80, 80);
            return;
        }
    }
    bar->setValue(top);
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
    // Each renderer captures the current state on the UI thread; its job renders on the view's
    // worker the core's picture for the view's room (renderMapsPicture: square cells, cut to its
    // tiles), and hands the UI thread its tiles' labels (mapsTileLabelForms) with it.
    const auto renderer = [this](MapsShows shows) {
        return [this, shows](QSize px) -> MapsHeatmapView::RenderJob {
            MapsPictureRequest ask;
            ask.shows = shows;
            ask.layerIndex = m_layer->value();
            ask.head = m_head->value();
            ask.logScale = m_log->isChecked();
            // One head keeps the shared scale, as ImGui's and the figures' one-head pictures.
            ask.scale = shows != MapsShows::Head && m_perHead->isChecked() ? ScaleMode::PerHead : ScaleMode::Shared;
            ask.width = std::max(px.width(), 16);
            ask.height = std::max(px.height(), 16);
            MapsHeatmapView* view = shows == MapsShows::Overview ? m_overview : m_grid;
            ask.labelBand = shows == MapsShows::Head ? 0 : view->labelBand();  // the tiles' labels sit above them
            // A layer's labels name the heads' slopes; read here, on the UI thread.
            std::vector<explore::HeadSlopes> slopes;
            if (shows == MapsShows::Layer && m_model->maps())
                for (int h = 0; h < m_model->maps()->heads(); ++h) slopes.push_back(slopesOf(ask.layerIndex, h));
            return [this, maps = m_model->maps(), ask, slopes = std::move(slopes)]() -> RenderedMaps {
                if (!maps) return {fail(ErrorCode::InvalidArgument, "no attention maps open"), -1, {}};
                auto picture = renderMapsPicture(*maps, ask);
                if (!picture) return {std::unexpected(picture.error()), -1, {}};
                auto forms = mapsTileLabelForms(*maps, *picture, ask.scale, [&](int, int head) {
                    return static_cast<std::size_t>(head) < slopes.size() ? slopes[static_cast<std::size_t>(head)]
                                                                          : explore::HeadSlopes{};
                });
                Heatmap map = picture->map;
                const int layer = ask.shows == MapsShows::Overview ? -1 : ask.layerIndex;
                // Runs on the UI thread once shown: the labels, hit test and header of this very picture.
                std::function<void()> shown;
                switch (ask.shows) {
                    case MapsShows::Head:
                        shown = [this, layer, head = ask.head] { setHeadHeader(layer, head); };
                        break;
                    case MapsShows::Layer:
                        shown = [this, forms = std::move(forms)]() mutable { m_grid->setTileLabels(std::move(forms)); };
                        break;
                    case MapsShows::Overview:
                        shown = [this, maps, picture = std::make_shared<MapsPicture>(std::move(*picture)),
                                 forms = std::move(forms)]() mutable {
                            m_overviewMap = std::move(*picture);
                            m_overview->setTileLabels(std::move(forms));
                            m_overview->setHeader(
                                u"All %1 layers x %2 heads"_s.arg(maps->layers()).arg(maps->heads()),
                                u"one row per layer, one column per head · click a tile to open that layer and head"_s);
                            highlightOverview();
                        };
                        break;
                }
                return {std::move(map), layer, std::move(shown)};
            };
        };
    };
    m_grid->setRenderer(renderer(MapsShows::Layer));
    m_headView->setRenderer(renderer(MapsShows::Head));
    m_overview->setRenderer(renderer(MapsShows::Overview));
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

void AttentionMapsPage::refreshLayer() {
    const MapsPtr maps = m_model->maps();
    if (!maps) return;
    const int layer = m_layer->value();
    const QString layerLabel = qs(explore::mapsLayerLabel(*maps, layer));
    m_layer->setToolTip(
        u"%1 of %2 (PageUp / PageDown, or the wheel over the grid)"_s.arg(layerLabel).arg(maps->layers()));
    m_grid->refresh();  // returns at once; the labels and header follow the picture (onGridShown)
    m_gridRequested.start();
    m_headView->setCellTokens(explore::mapsKeyTokenLabels(*maps), explore::mapsQueryTokenLabels(*maps));
    m_headView->refresh();
    highlightOverview();
    refreshPlots();
    showLessonMark();
}

void AttentionMapsPage::setHeadHeader(int layer, int head) {
    const MapsPtr maps = m_model->maps();
    if (!maps || layer < 0 || layer >= maps->layers()) return;
    const explore::HeadSlopes s = slopesOf(layer, head);
    QString slopes;
    if (s.fitted) slopes += u" · fitted m* = "_s + valueText(*s.fitted);
    if (s.configured) slopes += u" · configured m = "_s + slopeText(*s.configured);
    m_headView->setHeader(u"%1, head %2%3"_s.arg(qs(explore::mapsLayerLabel(*maps, layer))).arg(head).arg(slopes),
                          u"hover for the exact cell · click a row to inspect it · wheel: head"_s);
}

void AttentionMapsPage::highlightOverview() {
    // The overview highlights the current layer's head.
    const int layer = m_layer->value(), head = m_head->value();
    for (std::size_t n = 0; n < m_overviewMap.tileLayer.size(); ++n)
        if (m_overviewMap.tileLayer[n] == layer && m_overviewMap.map.tiles[n].head == head)
            m_overview->setHighlightedTile(static_cast<int>(n));
}

void AttentionMapsPage::onGridShown() {
    const MapsPtr maps = m_model->maps();
    const int layer = m_grid->shownLayer();
    if (!maps || layer < 0 || layer >= maps->layers()) return;
    const QString layerLabel = qs(explore::mapsLayerLabel(*maps, layer));
    m_grid->setHighlightedTile(m_head->value());
    m_grid->setHeader(
        u"%1: its %2 heads"_s.arg(layerLabel).arg(maps->heads()),
        priorText() + u" · hover for the file's value · click a tile for its head · PageUp/PageDown or wheel: layer"_s);
    if (qEnvironmentVariableIsSet("ALIBI_LOG_LATENCY"))
        std::fprintf(stderr,
                     "attention maps: layer index %d grid shown %lld ms after the request (%d x %d px, H = %d, Q = "
                     "%lld, K = %lld)\n",
                     layer, static_cast<long long>(m_gridRequested.elapsed()), m_grid->imagePixels().width(),
                     m_grid->imagePixels().height(), maps->heads(), static_cast<long long>(maps->queries()),
                     static_cast<long long>(maps->keys()));
}

bool AttentionMapsPage::picturesPending() const {
    for (const MapsHeatmapView* v : {m_grid, m_overview, m_headView, m_similarity})
        if (v->pending()) return true;
    if (m_twoHeads->pending()) return true;
    return m_rowShown != m_rowRunner.latest();
}

void AttentionMapsPage::refreshPlots() {
    const MapsPtr maps = m_model->maps();
    if (!maps) return;
    const int layer = m_layer->value(), head = m_head->value();
    const QString layerLabel = qs(explore::mapsLayerLabel(*maps, layer));
    if (const HeadFit* f = m_model->fitOf(layer, head)) {
        // The core's curves over the distances where any holds 1/1000 of its peak, and its note.
        FitProfilePlot plot = fitProfilePlot(*f, *maps, m_model->fitFirstRow(), m_model->fitLastRow());
        m_profile->setSeries(std::move(plot.series));
        m_profile->setTitle(qs(fitProfileTitle(*f, *maps)));  // the figure's title too
        QString note = qs(plot.note);
        if (!f->configuredSlope)
            note += (note.isEmpty() ? u""_s : u" · "_s) + u"pair an ALiBi prior (Prior) to see the configured slope"_s;
        m_profile->setNote(note);
    } else {
        m_profile->setSeries({});
        m_profile->setTitle(u"%1 head %2: attention vs distance"_s.arg(layerLabel).arg(head));
        m_profile->setNote(m_model->fitting() ? u"fitting…"_s : u"fit the heads to see the profile and its priors"_s);
    }
    m_profile->setAxisLabels(maps->causal() ? u"distance i − j"_s : u"distance |i − j|"_s,
                             u"share of attention (all rows)"_s);
    m_rowPlot->setTitle(qs(mapsRowTitle(*maps, layer, head, m_row->value())));
    requestRow(RowRequest{maps, layer, head, m_row->value(), slopesOf(layer, head)});
}

void AttentionMapsPage::requestRow(RowRequest request) {
    // The row comes from the file (a disk read when it is not cached), off the UI thread; only
    // the newest request's row is shown.
    QPointer<AttentionMapsPage> self(this);
    m_rowRunner.submit([self, request = std::move(request)](const explore::JobContext& job) {
        auto series = explore::mapsRowSeries(*request.maps, request.layer, request.head, request.row, request.slopes);
        QMetaObject::invokeMethod(
            qApp,
            [self, request, generation = job.generation(), series = std::move(series)]() mutable {
                if (!self || generation != self->m_rowRunner.latest()) return;  // a newer row is on its way
                self->m_rowShown = generation;
                if (request.maps != self->m_model->maps()) return;  // another file since
                if (series) {
                    // The figure's keys: a steep head's few keys fill the plot (the core's window).
                    const auto& maps = *request.maps;
                    const explore::KeyWindow window =
                        explore::mapsRowWindow(*series, request.row + maps.keys() - maps.queries(), maps.keys());
                    explore::keepKeyWindow(*series, window);
                    self->m_rowPlot->setSeries(std::move(*series));
                    self->m_rowPlot->setNote(qs(explore::keyWindowNote(window, maps.keys(), false)));
                } else {
                    self->m_rowPlot->setSeries({});
                    self->m_rowPlot->setNote(shownError(series.error().message));
                }
            },
            Qt::QueuedConnection);
    });
}

void AttentionMapsPage::setSimilarity(SimilarityBasis basis, HeadOrder order) {
    m_basis->setCurrentIndex(basis == SimilarityBasis::Map ? 1 : 0);
    m_order->setCurrentIndex(order == HeadOrder::Slope ? 1 : order == HeadOrder::Similarity ? 2 : 0);
    refreshSimilarity();
}

void AttentionMapsPage::refreshSimilarity() {
    const MapsPtr maps = m_model->maps();
    if (!maps) return;
    const int layer = m_layer->value();
    std::vector<HeadFit> fits = explore::layerFits(m_model->fits(), layer);
    const bool full = m_basis->currentIndex() == 1;
    if (!full && fits.empty()) {
        m_distances = DistanceMatrix();
        m_similarityOrder.clear();
        m_similarity->setRenderer({});
        m_similarity->setMessage(m_model->fitting()
                                     ? u"Fitting… the profile distances come from the fit."_s
                                     : u"Fit the heads first: the profile distances come from the fit."_s);
        return;
    }
    const HeadOrder order = m_order->currentIndex() == 1   ? HeadOrder::Slope
                            : m_order->currentIndex() == 2 ? HeadOrder::Similarity
                                                           : HeadOrder::Index;
    const QString layerLabel = qs(explore::mapsLayerLabel(*maps, layer));
    // The distances (over full maps: every row of every head pair, slow for a large file) are
    // computed once on the view's worker and reused by the re-renders after a resize; jobs of one
    // view run one after another, so only that worker touches the cache.
    struct Distances {
        std::optional<Result<DistanceMatrix>> matrix;
        std::vector<int> order;
    };
    auto cache = std::make_shared<Distances>();
    const std::int64_t first = m_model->fitFirstRow(), last = m_model->fitLastRow();
    m_similarity->setRenderer([=, this, fits = std::move(fits)](QSize px) -> MapsHeatmapView::RenderJob {
        // Square: the matrix's cells stay square whatever the tab's shape.
        const int side = std::max(16, std::min(px.width(), px.height()));
        return [=, this]() -> RenderedMaps {
            if (!cache->matrix) {
                if (full)
                    cache->matrix = mapDistances(*maps, layer, first, last);
                else
                    cache->matrix.emplace(profileDistances(fits));
                if (*cache->matrix) cache->order = explore::similarityHeadOrder(fits, order, **cache->matrix);
            }
            if (!*cache->matrix) return {std::unexpected(cache->matrix->error()), -1, {}};
            const DistanceMatrix& d = **cache->matrix;
            auto picture = renderSimilarity(d, cache->order, Colormap::Magma, side, side);
            // On the UI thread once shown: the hover's distances and the axis labels of this picture.
            auto shown = [this, d, headOrder = cache->order] {
                m_distances = d;
                m_similarityOrder = headOrder;
                QStringList axis;
                for (int h : m_similarityOrder) axis << QString::number(h);
                m_similarity->setAxisLabels(axis);
            };
            return {std::move(picture), layer, std::move(shown)};
        };
    });
    m_similarityNote->setText(
        u"%1 · %2 heads · 0 = same distribution, 1 = disjoint"_s.arg(layerLabel).arg(maps->heads()));
    const QString similarityTitle = u"%1: head x head Jensen-Shannon distance between %2"_s.arg(
        layerLabel, full ? u"full maps"_s : u"attention-vs-distance profiles"_s);
    m_similarityTitle = similarityTitle.toStdString();
    m_similarity->setHeader(similarityTitle,
                            u"heads ordered %1 · hover a cell for the pair's distance"_s.arg(
                                order == HeadOrder::Slope        ? u"by fitted slope, steepest first"_s
                                : order == HeadOrder::Similarity ? u"in average-linkage clustering order"_s
                                                                 : u"by index"_s));
}

void AttentionMapsPage::refreshTable() {
    std::vector<std::vector<double>> values;
    for (const HeadFit& f : m_model->fits()) {
        std::vector<double> row;
        for (int c = 0; c < explore::kFitColumnCount; ++c)
            row.push_back(explore::fitColumnValue(f, static_cast<explore::FitColumn>(c)));
        row[static_cast<std::size_t>(explore::FitColumn::Verdict)] =
            row[static_cast<std::size_t>(explore::FitColumn::Verdict)] * kVerdictStride +
            static_cast<double>(values.size());
        values.push_back(std::move(row));
    }
    m_tableModel->setValues(std::move(values));
}

QString AttentionMapsPage::longestReadout() const {
    const MapsPtr maps = m_model->maps();
    if (!maps || maps->queries() <= 0 || maps->keys() <= 0) return {};
    QString longest;
    const std::int64_t q = maps->queries(), k = maps->keys();
    const int layers = std::min(maps->layers(), 64);  // a sample: layer names are alike
    for (int layer = 0; layer < layers; ++layer)
        for (const int head : {0, maps->heads() - 1})
            for (const std::int64_t query : {q - 1, q / 2})
                for (const std::int64_t key : {std::int64_t{0}, std::min(query, k - 1) / 2, std::min(query, k - 1)}) {
                    explore::HeadSlopes slopes = slopesOf(layer, head);
                    if (!slopes.fitted) slopes.fitted = 0.00123457;  // the fit's six digits, before it ran
                    const auto text = explore::mapsCellReadout(*maps, layer, head, query, key, slopes);
                    if (text && qs(*text).size() > longest.size()) longest = qs(*text);
                }
    // The status bar's form (one line), and room for a value with more digits than these cells'.
    return longest.replace(u'\n', u"   "_s) + u" 0.00000000"_s;
}

QString AttentionMapsPage::hoverAt(MapsHeatmapView* view, QPoint p) {
    const MapsPtr maps = m_model->maps();
    if (!maps) return {};
    if (view == m_similarity) {
        const Heatmap& map = view->heatmap();
        if (map.tiles.empty() || m_distances.n == 0 ||
            m_similarityOrder.size() != static_cast<std::size_t>(m_distances.n))
            return {};
        const HeatmapTile& t = map.tiles.front();
        if (p.x() < t.x || p.y() < t.y || p.x() >= t.x + t.width || p.y() >= t.y + t.height) return {};
        const int a =
            m_similarityOrder[static_cast<std::size_t>(pixelCells(p.y() - t.y, t.height, m_distances.n).first)];
        const int b =
            m_similarityOrder[static_cast<std::size_t>(pixelCells(p.x() - t.x, t.width, m_distances.n).first)];
        return u"head %1 vs head %2: Jensen-Shannon distance %3"_s.arg(a).arg(b).arg(valueText(m_distances.at(a, b)));
    }
    // The layer of the picture under the mouse (a newer one may be pending): the read-out is of what is shown.
    int layer = view->shownLayer() >= 0 ? view->shownLayer() : m_layer->value();
    std::optional<CellHit> hit;
    if (view == m_overview) {
        if (const auto h = mapsPictureHit(m_overviewMap, *maps, p.x(), p.y())) {
            layer = h->layerIndex;
            hit = h->cell;
        }
    } else {
        hit = mapsHitTest(view->heatmap(), *maps, p.x(), p.y());
    }
    if (!hit) return {};
    auto text = explore::mapsCellReadout(*maps, layer, hit->head, hit->query, hit->key, slopesOf(layer, hit->head));
    return text ? qs(*text) : qs(text.error().message);
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

QString AttentionMapsPage::figureFileName(const QString& what, int scale, bool svg) const {
    return QFileInfo(m_model->path()).completeBaseName() + u"-"_s + what +
           (svg         ? u".svg"_s
            : scale > 1 ? u"@%1x.png"_s.arg(scale)
                        : u".png"_s);
}

void AttentionMapsPage::fillFigureMenu(QMenu* menu) {
    const auto note = [menu](const QString& text) { menu->addAction(text)->setEnabled(false); };
    if (!m_model->maps()) {
        note(u"Open attention maps first (Ctrl+Shift+O)"_s);
        return;
    }
    QWidget* tab = m_views->currentWidget();
    if (tab == m_table) {
        note(u"The fit table exports as CSV or JSON (the buttons above)"_s);
        return;
    }
    if (tab == m_distancePage) {
        for (const auto& [plot, name] :
             {std::pair{Plot::Distance, u"Attention vs distance"_s}, std::pair{Plot::Row, u"Query row"_s}}) {
            menu->addSection(name);
            for (const int scale : {1, 2, 4})
                menu->addAction(u"%1: PNG at %2x…"_s.arg(name).arg(scale), this,
                                [this, plot, scale] { exportPlotDialog(plot, scale); });
            menu->addAction(u"%1: SVG…"_s.arg(name), this, [this, plot] { exportPlotDialog(plot, 0); });
        }
        return;
    }
    if (tab == m_twoHeads) {
        for (const int scale : {1, 2, 4})
            menu->addAction(u"Two heads: PNG at %1x…"_s.arg(scale), this, [this, scale] {
                const QString path = QFileDialog::getSaveFileName(this, u"Save the figure"_s,
                                                                  figureFileName(m_twoHeads->figureName(), scale),
                                                                  u"PNG image (*.png)"_s);
                if (path.isEmpty()) return;
                (void)exportTwoHeadsFigure(path, std::max(m_twoHeads->width(), 640),
                                           std::max(m_twoHeads->height(), 400), scale);
            });
        return;
    }
    const QString name = tab == m_overview   ? u"All layers"_s
                         : tab == m_headView ? u"Head %1"_s.arg(m_head->value())
                         : tab == m_grid     ? u"Layer grid"_s
                                             : u"Similarity matrix"_s;
    for (const int scale : {1, 2, 4})
        menu->addAction(u"%1: PNG at %2x…"_s.arg(name).arg(scale), this, [this, scale] { exportFigureDialog(scale); });
}

void AttentionMapsPage::exportFigureDialog(int scale) {
    const MapsPtr maps = m_model->maps();
    if (!maps) return;
    if (m_views->currentWidget() == m_twoHeads) {
        const QString path = QFileDialog::getSaveFileName(
            this, u"Save the figure"_s, figureFileName(m_twoHeads->figureName(), scale), u"PNG image (*.png)"_s);
        if (path.isEmpty()) return;
        (void)exportTwoHeadsFigure(path, std::max(m_twoHeads->width(), 640), std::max(m_twoHeads->height(), 400),
                                   scale);
        return;
    }
    if (m_views->currentWidget() == m_overview) {
        const QString path = QFileDialog::getSaveFileName(
            this, u"Save the figure"_s, figureFileName(u"all-layers"_s, scale), u"PNG image (*.png)"_s);
        if (path.isEmpty()) return;
        MapsHeatmapParams p;
        p.logScale = m_log->isChecked();
        p.scale = m_perHead->isChecked() ? ScaleMode::PerHead : ScaleMode::Shared;  // as the view shows it
        p.width = std::max(m_overview->width(), 480);
        p.height = std::max(m_overview->height(), 320);
        (void)exportOverviewFigure(path, p, scale);
        return;
    }
    if (m_views->currentWidget() == m_similarity->parentWidget()) {
        const QString base = figureFileName(u"layer%1-similarity"_s.arg(m_layer->value()), scale);
        const QString path = QFileDialog::getSaveFileName(this, u"Save the figure"_s, base, u"PNG image (*.png)"_s);
        if (path.isEmpty()) return;
        // Square like the view, whose cells stay square; wide enough for the colour bar and caption.
        const int side = std::max(std::min(m_similarity->width(), m_similarity->height()), 480);
        (void)exportSimilarityFigure(path, side + 160, side, scale);
        return;
    }
    const bool oneHead = m_views->currentWidget() == m_headView;
    const QString base = figureFileName(
        oneHead ? u"layer%1-head%2"_s.arg(m_layer->value()).arg(m_head->value()) : u"layer%1"_s.arg(m_layer->value()),
        scale);
    const QString path = QFileDialog::getSaveFileName(this, u"Save the figure"_s, base, u"PNG image (*.png)"_s);
    if (path.isEmpty()) return;
    MapsHeatmapParams p;
    p.layerIndex = m_layer->value();
    p.head = oneHead ? m_head->value() : -1;
    p.logScale = m_log->isChecked();
    p.scale = !oneHead && m_perHead->isChecked() ? ScaleMode::PerHead : ScaleMode::Shared;
    const QWidget* view = oneHead ? static_cast<QWidget*>(m_headView) : static_cast<QWidget*>(m_grid);
    p.width = std::max(view->width(), 320);
    p.height = std::max(view->height(), 240);
    (void)exportFigure(path, p, scale);
}

bool AttentionMapsPage::exportFigure(const QString& path, const MapsHeatmapParams& params, int scale) {
    const MapsPtr maps = m_model->maps();
    if (!maps) return false;
    FigureJobRequest r;
    r.kind = FigureJobRequest::Kind::Maps;
    r.maps = maps;
    r.mapsParams = params;
    r.scale = scale;
    saveFigureInBackground(path, u"at %1x"_s.arg(scale), std::move(r));
    return true;
}

bool AttentionMapsPage::exportTwoHeadsFigure(const QString& path, int width, int height, int scale) {
    auto request = m_twoHeads->figureRequest(width, height, scale);
    if (!request) return false;
    saveFigureInBackground(path, u"at %1x"_s.arg(scale), std::move(*request));
    return true;
}

bool AttentionMapsPage::exportSimilarityFigure(const QString& path, int width, int height, int scale) {
    if (m_distances.n == 0 || m_similarityOrder.empty()) {
        emit failed(
            u"No similarity matrix to save"_s,
            u"The matrix is not drawn yet: fit the heads (or choose full maps) and open the Similarity tab first."_s);
        return false;
    }
    FigureJobRequest r;
    r.kind = FigureJobRequest::Kind::Similarity;
    r.distances = m_distances;
    r.similarityOrder = m_similarityOrder;
    r.similarityTitle = m_similarityTitle;
    r.width = width;
    r.height = height;
    r.scale = scale;
    saveFigureInBackground(path, u"at %1x"_s.arg(scale), std::move(r));
    return true;
}

bool AttentionMapsPage::exportOverviewFigure(const QString& path, const MapsHeatmapParams& params, int scale) {
    const MapsPtr maps = m_model->maps();
    if (!maps) return false;
    FigureJobRequest r;
    r.kind = FigureJobRequest::Kind::MapsOverview;
    r.maps = maps;
    r.mapsParams = params;
    r.scale = scale;
    saveFigureInBackground(path, u"at %1x"_s.arg(scale), std::move(r));
    return true;
}

void AttentionMapsPage::exportPlotDialog(Plot plot, int scale) {
    if (!m_model->maps()) return;
    const bool svg = scale == 0;
    const QString what = u"layer%1-head%2-"_s.arg(m_layer->value()).arg(m_head->value()) +
                         (plot == Plot::Distance ? u"distance"_s : u"row%1"_s.arg(m_row->value()));
    const QString path = QFileDialog::getSaveFileName(this, u"Save the figure"_s, figureFileName(what, scale, svg),
                                                      svg ? u"SVG image (*.svg)"_s : u"PNG image (*.png)"_s);
    if (path.isEmpty()) return;
    const PlotWidget* widget = plot == Plot::Distance ? m_profile : m_rowPlot;
    (void)exportPlotFigure(plot, path, std::max(widget->width(), 640), std::max(widget->height(), 400),
                           std::max(scale, 1));
}

bool AttentionMapsPage::exportPlotFigure(Plot plot, const QString& path, int width, int height, int scale) {
    const MapsPtr maps = m_model->maps();
    if (!maps) return false;
    const int layer = m_layer->value(), head = m_head->value();
    // The figure's data is gathered here, drawn and written by the core's figure job on the
    // worker: the row plot reads its row from the file, which may be on a slow disk.
    FigureJobRequest r;
    r.maps = maps;
    r.mapsParams.layerIndex = layer;
    r.mapsParams.head = head;
    r.width = width;
    r.height = height;
    r.scale = scale;
    r.svg = path.endsWith(u".svg"_s, Qt::CaseInsensitive);
    if (plot == Plot::Distance) {
        const HeadFit* fit = m_model->fitOf(layer, head);
        if (fit == nullptr) {
            emit failed(u"No distance profile to save"_s,
                        m_model->fitting()
                            ? u"The heads are still being fitted: save the figure once the fit is done."_s
                            : u"Fit the heads first (Fit): the profile and its priors come from the fit."_s);
            return false;
        }
        r.kind = FigureJobRequest::Kind::MapsProfile;
        r.headFit = *fit;
        r.fitFirstRow = m_model->fitFirstRow();
        r.fitLastRow = m_model->fitLastRow();
    } else {
        r.kind = FigureJobRequest::Kind::MapsRow;
        r.rowQuery = m_row->value();
        r.rowSlopes = slopesOf(layer, head);
    }
    saveFigureInBackground(path, r.svg ? u"as SVG"_s : u"at %1x"_s.arg(scale), std::move(r));
    return true;
}

void AttentionMapsPage::saveFigureInBackground(const QString& path, const QString& what, FigureJobRequest request) {
    emit statusMessage(u"Drawing the figure %1…"_s.arg(what), 0);
    // The core's figure job on the page's figure runner (a large file's rows are read from disk);
    // the outcome comes back to the page through its event loop, or is dropped if the page is gone.
    QPointer<AttentionMapsPage> self(this);
    m_figureRunner.submit([self, request = std::move(request), path](const explore::JobContext& job) {
        const auto written = writeFigureJob(request, path.toStdString(), job.progress());
        const Result<void> ok = written ? Result<void>{} : Result<void>{std::unexpected(written.error())};
        QMetaObject::invokeMethod(
            qApp,
            [self, ok, path] {
                if (!self) return;
                if (ok)
                    emit self->statusMessage(u"Saved the figure to "_s + path, 6000);
                else
                    emit self->failed(u"Cannot save the figure"_s, QString::fromStdString(ok.error().message));
                emit self->figureSaved(static_cast<bool>(ok));
            },
            Qt::QueuedConnection);
    });
}

Result<void> AttentionMapsPage::exportTable(const QString& path, FileFormat format) {
    auto ok = m_model->exportTable(path, format);
    if (ok)
        emit statusMessage(u"Exported the fit table to "_s + path, 6000);
    else
        emit failed(u"Cannot export the fit table"_s, qs(ok.error().message));
    return ok;
}

void AttentionMapsPage::exportDialog(FileFormat format) {
    const bool csv = format == FileFormat::Csv;
    const QString base = QFileInfo(m_model->path()).completeBaseName() + (csv ? u"-fit.csv"_s : u"-fit.json"_s);
    const QString path = QFileDialog::getSaveFileName(this, u"Export the fit table"_s, base,
                                                      csv ? u"CSV (*.csv)"_s : u"JSON (*.json)"_s);
    if (!path.isEmpty()) (void)exportTable(path, format);
}

}  // namespace alibi::qt
