// Stages view: four plots of one row and a statistics table.
#include "stages_view.hpp"

#include <alibi/explore/stages.hpp>
#include <alibi/render/plot_kinds.hpp>

#include "view_util.hpp"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QTableView>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

using namespace Qt::Literals::StringLiterals;

namespace alibi::qt {

namespace {
QString fixed(double v) {
    return std::isfinite(v) ? QString::number(v, 'f', 3) : valueText(v);
}
QString whole(double v) {
    return QString::number(v, 'g', 10);
}
}  // namespace

StagesView::StagesView(QWidget* parent) : QWidget(parent) {
    auto* top = new QHBoxLayout;
    m_head = new QSpinBox(this);
    m_head->setRange(0, 0);
    m_head->setToolTip(u"The head whose row is shown (click a head in the grid to choose it too)"_s);
    m_caption = new QLabel(this);
    m_caption->setWordWrap(true);
    top->addWidget(new QLabel(u"Head"_s, this));
    top->addWidget(m_head);
    top->addSpacing(16);
    top->addWidget(m_caption, 1);
    connect(m_head, &QSpinBox::valueChanged, this, &StagesView::headChosen);

    auto* plots = new QWidget(this);
    auto* row = new QHBoxLayout(plots);
    row->setContentsMargins(0, 0, 0, 0);
    const QString titles[4] = {u"1 · content logits"_s, u"2 · + ALiBi bias"_s, u"3 · masked"_s, u"4 · softmax"_s};
    const QString yLabels[4] = {u"logit"_s, u"logit + bias"_s, u"masked logit"_s, u"probability"_s};
    for (int n = 0; n < 4; ++n) {
        m_plots[n] = new PlotWidget(plots);
        m_plots[n]->setTitle(titles[n]);
        m_plots[n]->setAxisLabels(u"key j"_s, yLabels[n]);
        m_plots[n]->setLegendLimit(0);
        m_plots[n]->setCategorical(true);
        // Four plots side by side beside the parameters must fit a 1280x720 projector.
        m_plots[n]->setMinimumSize(150, 180);
        row->addWidget(m_plots[n]);
    }

    m_model = new NumberTable(this);
    // Two-line headers keep nine columns narrow enough for a projector, each header whole.
    // Up to three lines each, so the whole table fits beside a lesson at a presentation font.
    m_model->setColumns({u"head"_s, u"slope\nm"_s, u"half-\nlife"_s, u"entropy"_s, u"mean\ndist."_s, u"50%\nwithin"_s,
                         u"90%\nwithin"_s, u"entropy\n(avg)"_s, u"mean\ndist.\n(avg)"_s},
                        {whole, slopeText, fixed, fixed, fixed, whole, whole, fixed, fixed});
    m_lessonRows = new LessonRowsProxy(Head, this);
    m_lessonRows->setSourceModel(m_model);
    m_proxy = new QSortFilterProxyModel(this);
    m_proxy->setSourceModel(m_lessonRows);
    m_proxy->setSortRole(Qt::UserRole);
    m_table = new QTableView(this);
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(Head, Qt::AscendingOrder);
    // The sort arrow only when the rows are not in head order: every header keeps room for the
    // arrow while it is shown (nine columns of it cost a table its fit beside a lesson).
    m_table->horizontalHeader()->setSortIndicatorShown(false);
    connect(m_table->horizontalHeader(), &QHeaderView::sortIndicatorChanged, this,
            [this](int column, Qt::SortOrder order) {
                m_table->horizontalHeader()->setSortIndicatorShown(column != Head || order != Qt::AscendingOrder);
            });
    m_table->setAlternatingRowColors(true);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->verticalHeader()->hide();
    // Every column at least as wide as its header and numbers (a narrow window scrolls the
    // table), the last one taking what is left.
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setStretchLastSection(true);
    connect(m_table, &QTableView::clicked, this, [this](const QModelIndex& index) {
        emit headChosen(m_proxy->index(index.row(), Head).data(Qt::UserRole).toInt());
    });

    layoutControlsPlotsTable(this, top, plots, m_table);
    m_stale = new StaleOverlay(this);
}

void StagesView::markStale() {
    m_stale->markStale();
}

void StagesView::setLessonMark(LessonMark mark) {
    m_lesson = std::move(mark);
    m_lessonRows->setHeads(m_lesson.heads);
    applyLessonCell();
    scrollToLessonRow();
}

void StagesView::scrollToLessonRow() {
    if (m_lesson.heads.empty()) return;
    for (int row = 0; row < m_proxy->rowCount(); ++row)
        if (m_proxy->index(row, Head).data(Qt::UserRole).toInt() == m_lesson.heads.front()) {
            m_table->scrollTo(m_proxy->index(row, Head), QAbstractItemView::EnsureVisible);
            return;
        }
}

void StagesView::applyLessonCell() {
    std::optional<double> key;
    if (m_snapshot && m_snapshot->stages && m_lesson.cellHead >= 0 && m_lesson.cellHead == m_snapshot->head &&
        m_lesson.query == m_snapshot->queryRow && m_lesson.key >= 0 &&
        m_lesson.key < static_cast<std::int64_t>(m_snapshot->stages->probabilities.size()))
        key = static_cast<double>(m_lesson.key);
    for (PlotWidget* plot : m_plots) plot->setMarkedX(key);
}

void StagesView::setSnapshot(const SnapshotPtr& s) {
    if (!s) return;
    m_snapshot = s;
    m_stale->clear();
    const auto& session = s->grid->session;
    {
        QSignalBlocker block(m_head);
        m_head->setRange(0, session.attention.bias.slopes.heads - 1);
        m_head->setValue(s->head);
    }
    const double m = s->grid->slopes[static_cast<std::size_t>(s->head)];
    m_caption->setText(
        u"Query row i = %1 of head %2 (m = %3). Softmax turns the biased, masked logits into "
        "probabilities; the temperature τ = %4 divides the logits first. Columns marked (avg) "
        "average the statistics over rows."_s.arg(s->queryRow)
            .arg(s->head)
            .arg(slopeText(m))
            .arg(session.attention.content.temperature));
    if (s->stages) {
        const std::vector<double>* rows[4] = {&s->stages->content, &s->stages->withBias, &s->stages->masked,
                                              &s->stages->probabilities};
        // Every panel spans the same keys (up to the query where the mode masks), with the
        // core's note under it.
        const explore::StageKeySpan span = explore::stageKeySpan(session.attention, s->queryRow);
        for (int n = 0; n < 4; ++n) {
            Series ser;
            ser.label = "row";
            for (std::int64_t j = span.first; j <= span.last && j < static_cast<std::int64_t>(rows[n]->size()); ++j) {
                const double v = (*rows[n])[static_cast<std::size_t>(j)];
                ser.x.push_back(static_cast<double>(j));
                ser.y.push_back(std::isfinite(v) ? v : std::numeric_limits<double>::quiet_NaN());
            }
            // A bar a key up to the core's kStageBarKeys, a line past them; the softmax from 0.
            m_plots[n]->setAxes(stagePanelAxes(n, ser.x.size()));
            m_plots[n]->setNote(
                QString::fromStdString(explore::stageNote(session.attention, s->queryRow, n, *rows[n])));
            m_plots[n]->setSeries({ser});
        }
    }
    applyLessonCell();
    std::vector<std::vector<double>> rows;
    if (s->stats) {
        rows.reserve(s->stats->heads.size());
        for (const HeadStats& h : s->stats->heads)
            rows.push_back({static_cast<double>(h.head), h.slope, h.halfLife, h.row.entropy, h.row.meanDistance,
                            h.row.distance50, h.row.distance90, h.mean.entropy, h.mean.meanDistance});
    }
    m_model->setValues(std::move(rows));
    scrollToLessonRow();
}

}  // namespace alibi::qt
