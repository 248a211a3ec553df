// Position schemes view: controls, plot, legend-and-read-out table and formulas over the core's
// curves (position_schemes.hpp) in the figure's colours (position_schemes_figure.hpp).
#include "position_schemes_view.hpp"

#include "plot_widget.hpp"
#include "view_util.hpp"

#include <alibi/figure/position_schemes_figure.hpp>

#include <QComboBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPixmap>
#include <QScrollArea>
#include <QSpinBox>
#include <QSplitter>
#include <QStyle>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

using namespace Qt::Literals::StringLiterals;

namespace alibi::qt {

namespace {

// The explorers offer D up to this (the core allows kMaxSchemeDistance): enough to see every
// scheme's long-range shape, and instant to compute on the UI thread.
constexpr int kViewMaxDistance = 4096;

}  // namespace

PositionSchemesView::PositionSchemesView(QWidget* parent) : QWidget(parent) {
    setObjectName(u"positionSchemesView"_s);
    m_quantity = new QComboBox(this);
    m_quantity->setObjectName(u"schemesQuantity"_s);
    m_quantity->addItem(u"Logit contribution"_s, static_cast<int>(SchemeQuantity::Logit));
    m_quantity->addItem(u"Attention vs distance (zero content)"_s, static_cast<int>(SchemeQuantity::Attention));
    m_maxDistance = new QSpinBox(this);
    m_maxDistance->setObjectName(u"schemesMaxDistance"_s);
    m_maxDistance->setRange(1, kViewMaxDistance);
    m_maxDistance->setValue(static_cast<int>(m_params.maxDistance));
    m_maxDistance->setKeyboardTracking(false);
    m_maxDistance->setToolTip(u"The distance axis d = 0..D (1 to %1)"_s.arg(kViewMaxDistance));
    auto* bar = new QHBoxLayout;
    bar->addWidget(new QLabel(u"Show"_s, this));
    bar->addWidget(m_quantity);
    bar->addSpacing(16);
    bar->addWidget(new QLabel(u"Max distance D"_s, this));
    bar->addWidget(m_maxDistance);
    bar->addStretch(1);

    m_plot = new PlotWidget(this);
    m_plot->setObjectName(u"schemesPlot"_s);
    m_plot->setLegendLimit(0);  // the table beside the plot is the legend
    m_table = new QTableWidget(0, 2, this);
    m_table->setObjectName(u"schemesReadout"_s);
    m_table->setHorizontalHeaderLabels({u"curve"_s, u"value"_s});
    m_table->verticalHeader()->hide();
    // The names as wide as their text (with the swatch); the values' column as wide as the widest
    // header and number it can show (placeTable), so hovering never changes the table's width.
    m_table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(1, QHeaderView::Fixed);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionMode(QAbstractItemView::NoSelection);
    m_middle = new QBoxLayout(QBoxLayout::LeftToRight);
    m_middle->addWidget(m_plot, 1);
    m_middle->addWidget(m_table);

    m_note = new QLabel(this);
    m_note->setWordWrap(true);
    m_formulas = new QLabel(this);
    m_formulas->setObjectName(u"schemesFormulas"_s);
    m_formulas->setWordWrap(true);
    m_formulas->setTextFormat(Qt::RichText);
    m_formulas->setTextInteractionFlags(Qt::TextSelectableByMouse);

    // The formulas under the plot scroll when the window is small (1280x720), and the splitter
    // lets the plot take the room back.
    auto* notes = new QWidget(this);
    auto* notesLayout = new QVBoxLayout(notes);
    notesLayout->setContentsMargins(0, 0, 0, 0);
    notesLayout->addWidget(m_note);
    notesLayout->addWidget(m_formulas);
    notesLayout->addStretch(1);
    auto* scroll = new QScrollArea(this);
    scroll->setWidget(notes);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    auto* top = new QWidget(this);
    top->setLayout(m_middle);
    m_middle->setContentsMargins(0, 0, 0, 0);
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(top);
    split->addWidget(scroll);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 1);
    split->setChildrenCollapsible(false);
    auto* col = new QVBoxLayout(this);
    col->setContentsMargins(8, 8, 8, 8);
    col->addLayout(bar);
    col->addWidget(split, 1);

    connect(m_quantity, &QComboBox::currentIndexChanged, this,
            [this] { setQuantity(static_cast<SchemeQuantity>(m_quantity->currentData().toInt())); });
    connect(m_maxDistance, &QSpinBox::valueChanged, this, &PositionSchemesView::setMaxDistance);
    connect(m_plot, &PlotWidget::xHovered, this, &PositionSchemesView::showDistance);
    recompute();
}

void PositionSchemesView::setSnapshot(const SnapshotPtr& s) {
    if (!s) return;
    const SlopeParams& slopes = s->grid->session.attention.bias.slopes;
    if (slopes == m_params.slopes) return;
    m_params.slopes = slopes;
    // A hidden view waits until it is shown: a storm of edits at H = 4096 would otherwise rebuild
    // thousands of curves and table rows on every snapshot nobody looks at.
    m_dirty = true;
    if (isVisible()) recompute();
}

void PositionSchemesView::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    if (m_dirty) recompute();
}

void PositionSchemesView::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    placeTable();
}

void PositionSchemesView::changeEvent(QEvent* event) {
    QWidget::changeEvent(event);
    if (event->type() == QEvent::FontChange) QTimer::singleShot(0, this, &PositionSchemesView::placeTable);
}

void PositionSchemesView::placeTable() {
    // The values' column: its widest header or number ("value at d = 4096", "-0.000123457").
    const QFontMetrics fm(m_table->horizontalHeader()->font());
    const QFontMetrics cells(m_table->font());
    const int margin = 2 * m_table->style()->pixelMetric(QStyle::PM_HeaderMargin, nullptr, m_table) + 12;
    const int values = std::max({fm.horizontalAdvance(u"value (hover the plot)"_s),
                                 fm.horizontalAdvance(u"value at d = %1"_s.arg(kViewMaxDistance)),
                                 cells.horizontalAdvance(u"-0.000123457"_s)}) +
                       margin;
    m_table->horizontalHeader()->resizeSection(1, values);
    m_table->resizeColumnToContents(0);
    const int names = std::max(m_table->columnWidth(0), m_table->horizontalHeader()->sectionSizeHint(0));
    const int scrollBar = m_table->style()->pixelMetric(QStyle::PM_ScrollBarExtent, nullptr, m_table);
    const int whole = names + values + 2 * m_table->frameWidth() + scrollBar + 2;
    m_tableBeside = whole <= width() * 2 / 5;
    if (m_tableBeside) {
        m_middle->setDirection(QBoxLayout::LeftToRight);
        m_table->setFixedWidth(whole);
        m_table->setMaximumHeight(QWIDGETSIZE_MAX);
    } else {
        // Under the plot: every row as tall as the table's rows need, up to 35 % of the view.
        m_middle->setDirection(QBoxLayout::TopToBottom);
        m_table->setMinimumWidth(0);
        m_table->setMaximumWidth(QWIDGETSIZE_MAX);
        const int rowsHeight = m_table->horizontalHeader()->sizeHint().height() +
                               m_table->rowCount() * m_table->verticalHeader()->defaultSectionSize() +
                               2 * m_table->frameWidth() + scrollBar;
        m_table->setMaximumHeight(std::max(std::min(rowsHeight, height() * 35 / 100), 3 * fm.height()));
    }
}

void PositionSchemesView::setMaxDistance(int d) {
    d = std::clamp(d, 1, kViewMaxDistance);
    if (m_maxDistance->value() != d) m_maxDistance->setValue(d);  // comes back here through valueChanged
    if (m_params.maxDistance == d) return;
    m_params.maxDistance = d;
    recompute();
}

void PositionSchemesView::setQuantity(SchemeQuantity quantity) {
    const int index = m_quantity->findData(static_cast<int>(quantity));
    if (m_quantity->currentIndex() != index) m_quantity->setCurrentIndex(index);
    if (m_params.quantity == quantity) return;
    m_params.quantity = quantity;
    recompute();
}

void PositionSchemesView::recompute() {
    m_dirty = false;
    auto result = positionSchemeCurves(m_params);
    if (!result) {
        m_error = shownError(result.error().message);
        m_schemes = {};
        m_plot->setSeries({});
        m_note->setText(m_error);
        return;
    }
    m_error.clear();
    m_schemes = std::move(*result);
    int heads = 0;
    for (const PositionCurve& c : m_schemes.curves) heads += c.scheme == PositionScheme::ALiBi;
    std::vector<Series> series;
    std::vector<QColor> colors;
    std::vector<bool> dashed;
    m_table->setRowCount(static_cast<int>(m_schemes.curves.size()));
    for (std::size_t n = 0; n < m_schemes.curves.size(); ++n) {
        const PositionCurve& c = m_schemes.curves[n];
        Series shown{c.name, c.x, c.y};
        // Attention spans tens of octaves: a log2 axis, with what lies below the figure's floor on it.
        if (m_schemes.quantity == SchemeQuantity::Attention)
            for (double& y : shown.y) y = std::max(y, kSchemesAttentionFloor);
        series.push_back(std::move(shown));
        colors.push_back(toQColor(positionCurveColor(c, heads)));
        dashed.push_back(positionCurveDashed(c));
        QPixmap swatch(14, 14);
        swatch.fill(colors.back());
        auto* name = new QTableWidgetItem(QIcon(swatch), QString::fromStdString(c.name));
        name->setToolTip(QString::fromStdString(c.formula + "\n" + c.source));
        m_table->setItem(static_cast<int>(n), 0, name);
        m_table->setItem(static_cast<int>(n), 1, new QTableWidgetItem(QString()));
    }
    // The figure's axes: log2 for attention, spanned by the core's rule for this plot.
    PlotStyle axes;
    axes.logY2 = m_schemes.quantity == SchemeQuantity::Attention;
    m_plot->setAxes(axes);
    m_plot->setSpans(positionSchemesRanges(m_schemes));
    m_plot->setSeries(std::move(series));
    m_plot->setSeriesColors(std::move(colors));
    m_plot->setSeriesDashed(std::move(dashed));
    m_plot->setTitle(QString::fromStdString(positionSchemesTitle(m_schemes)));
    m_plot->setAxisLabels(u"distance d = i − j"_s, QString::fromStdString(positionSchemesYLabel(m_schemes)));
    m_note->setText(QString::fromStdString(m_schemes.note));
    QString html;
    for (const SchemeNote& note : schemeNotes(m_schemes)) {
        QColor colour;
        for (const PositionCurve& c : m_schemes.curves)
            if (c.legend == note.legend) {
                colour = toQColor(positionCurveColor(c, heads));
                break;
            }
        html += u"<span style='color:%1'>&#9632;</span> <b>%2</b>: %3. <i>%4</i><br>"_s.arg(
            colour.name(), QString::fromStdString(note.legend).toHtmlEscaped(),
            QString::fromStdString(note.formula).toHtmlEscaped(), QString::fromStdString(note.source).toHtmlEscaped());
    }
    m_formulas->setText(html);
    showDistance(std::nullopt);
    placeTable();  // the names' column follows the curves
}

void PositionSchemesView::showDistance(std::optional<double> d) {
    std::optional<double> at;
    if (d) at = std::clamp(std::round(*d), 0.0, static_cast<double>(m_schemes.maxDistance));
    m_plot->setCursorX(at);
    m_table->setHorizontalHeaderLabels({u"curve"_s, at ? u"value at d = %1"_s.arg(*at) : u"value (hover the plot)"_s});
    for (std::size_t n = 0; n < m_schemes.curves.size(); ++n) {
        QTableWidgetItem* item = m_table->item(static_cast<int>(n), 1);
        if (!item) continue;
        const std::optional<double> v = at ? curveValueAt(m_schemes.curves[n], *at) : std::nullopt;
        item->setText(v ? valueText(*v) : QString());
    }
}

}  // namespace alibi::qt
