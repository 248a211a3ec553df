// The Attention maps tab's controls and views built and wired: each part of the page by one
// function, called in order by the constructor.
#include "attention_maps_page.hpp"

#include "lesson_mark.hpp"
#include "maps_heatmap_view.hpp"
#include "number_table.hpp"
#include "plot_widget.hpp"
#include "two_heads_view.hpp"
#include "view_util.hpp"

#include <alibi/explore/attention_maps_view.hpp>
#include <alibi/figure/attention_maps_render.hpp>
#include <alibi/figure/maps_picture.hpp>

#include <QCheckBox>
#include <QComboBox>
#include <QCursor>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QProgressBar>
#include <QPushButton>
#include <QShortcut>
#include <QSlider>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QToolButton>
#include <QToolTip>
#include <QVBoxLayout>

#include <cmath>
#include <optional>

using namespace Qt::Literals::StringLiterals;

namespace alibi::qt {

namespace {

QLabel* label(const QString& text, QWidget* parent) {
    return new QLabel(text, parent);
}

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
    // The widgets are made in the page's order (the focus chain follows it).
    QHBoxLayout* fileRow = buildFileControls();
    const ControlRows rows = buildPositionAndFitControls(fileRow);
    buildMapViews();
    QWidget* distancePage = buildDistanceTab();
    QWidget* similarityPage = buildSimilarityTab();
    buildFitTable();
    buildTabs(distancePage, similarityPage);
    layOut(rows);
    wireModel();
    wireControls();
    wireViews();
    addLayerKeys();
    m_prior->addItem(u"no ALiBi prior"_s);
    updateControls();
}

// The file's controls (the first row).
QHBoxLayout* AttentionMapsPage::buildFileControls() {
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
    connect(open, &QPushButton::clicked, this, &AttentionMapsPage::openRequested);
    return row1;
}

// The position and fit controls (the rows under the file's).
AttentionMapsPage::ControlRows AttentionMapsPage::buildPositionAndFitControls(QHBoxLayout* fileRow) {
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
    return {.file = fileRow, .priorAndTable = row4, .layer = row2, .colours = colours, .fit = row3};
}

// The three picture views: the layer grid, every layer, one head.
void AttentionMapsPage::buildMapViews() {
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
}

// The Distance & rows tab: attention vs distance over one query row's plot.
QWidget* AttentionMapsPage::buildDistanceTab() {
    m_profile = new PlotWidget(this);
    m_profile->setAxisLabels(u"distance i − j"_s, u"share of attention (all rows)"_s);
    m_profile->setKind(PlotKind::FitProfile);
    m_profile->setCategorical(true);
    m_rowPlot = new PlotWidget(this);
    m_rowPlot->setAxisLabels(u"key j"_s, u"probability"_s);
    m_rowPlot->setKind(PlotKind::MapsRow);
    m_rowPlot->setCategorical(true);
    auto* distance = new QSplitter(Qt::Vertical, this);
    distance->addWidget(m_profile);
    distance->addWidget(m_rowPlot);
    m_distancePage = distance;
    return distance;
}

// The Similarity tab: the basis and order, the note, the matrix.
QWidget* AttentionMapsPage::buildSimilarityTab() {
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
    return similarityPage;
}

// The fit table: the core's columns, the lesson's rows marked, sortable.
void AttentionMapsPage::buildFitTable() {
    m_tableModel = new NumberTable(this);
    QStringList headers, tips;
    for (int c = 0; c < explore::kFitColumnCount; ++c) {
        const auto column = static_cast<explore::FitColumn>(c);
        // Two lines ("configured" over "m"), so more columns fit the width.
        headers << qs(std::string(explore::fitColumnTitle(column))).replace(u' ', u'\n');
        tips << qs(std::string(explore::fitColumnToolTip(column)));
    }
    m_tableModel->setColumns(headers, {});
    m_tableModel->setHeaderToolTips(tips);
    // Each cell as the core writes it for its head (explore::fitCellText, as ImGui's table: "no
    // rows", a slope at the search bound as ">= 30", the verdict's words), the verdict in its colour.
    m_tableModel->setRowCells([this](int row, int c) -> NumberTable::Cell {
        const auto& fits = m_model->fits();
        if (row < 0 || row >= static_cast<int>(fits.size())) return {};
        const HeadFit& f = fits[static_cast<std::size_t>(row)];
        const auto column = static_cast<explore::FitColumn>(c);
        const bool verdict = column == explore::FitColumn::Verdict && f.rows > 0;
        return {qs(explore::fitCellText(f, column)), verdict ? verdictColor(fitVerdict(f).role) : QColor()};
    });
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
}

void AttentionMapsPage::buildTabs(QWidget* distancePage, QWidget* similarityPage) {
    m_views->addTab(m_grid, u"Layer grid"_s);
    m_views->addTab(m_overview, u"All layers"_s);
    m_views->addTab(m_headView, u"Head"_s);
    m_views->addTab(distancePage, u"Distance && rows"_s);
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
}

// The column: the file's line, the control rows, the views, the status line.
void AttentionMapsPage::layOut(const ControlRows& rows) {
    m_status = new QLabel(this);
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(8, 8, 8, 4);
    layout->addWidget(m_file);
    layout->addLayout(rows.file);
    layout->addLayout(rows.priorAndTable);
    layout->addLayout(rows.layer);
    layout->addLayout(rows.colours);
    layout->addLayout(rows.fit);
    layout->addWidget(m_views, 1);
    layout->addWidget(m_status);
}

// The model's opens, fits and priors shown.
void AttentionMapsPage::wireModel() {
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
}

void AttentionMapsPage::wireControls() {
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
}

void AttentionMapsPage::wireViews() {
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
}

// PageUp / PageDown step through the layers wherever the focus is in this tab.
void AttentionMapsPage::addLayerKeys() {
    auto* up = new QShortcut(QKeySequence(Qt::Key_PageUp), this);
    up->setContext(Qt::WidgetWithChildrenShortcut);
    connect(up, &QShortcut::activated, this, [this] { m_layer->setValue(m_layer->value() - 1); });
    auto* down = new QShortcut(QKeySequence(Qt::Key_PageDown), this);
    down->setContext(Qt::WidgetWithChildrenShortcut);
    connect(down, &QShortcut::activated, this, [this] { m_layer->setValue(m_layer->value() + 1); });
}

}  // namespace alibi::qt
