// Extrapolation view over ExtrapolationSnapshot.
#include "extrapolation_view.hpp"

#include "compare_view.hpp"
#include "number_table.hpp"
#include "plot_widget.hpp"
#include "view_util.hpp"

#include <alibi/model/params.hpp>
#include <alibi/render/format.hpp>

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSpinBox>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

using namespace Qt::Literals::StringLiterals;

namespace alibi::qt {

ExtrapolationView::ExtrapolationView(QWidget* parent) : QWidget(parent) {
    m_length = new QSpinBox(this);
    m_length->setRange(0, static_cast<int>(kMaxLength));  // the core's (a session's train_length)
    m_length->setSpecialValueText(u"same as T"_s);
    m_length->setToolTip(u"Training length L; the curves grow T from L to 16 L"_s);
    m_head = new QSpinBox(this);
    m_head->setRange(0, 0);
    m_caption = new QLabel(this);
    m_caption->setWordWrap(true);
    auto* top = new QHBoxLayout;
    top->addWidget(new QLabel(u"Training length L"_s, this));
    top->addWidget(m_length);
    top->addSpacing(12);
    top->addWidget(new QLabel(u"Head"_s, this));
    top->addWidget(m_head);
    top->addStretch(1);
    // The caption on a row of its own under the controls, so at a presentation font it takes
    // three lines of the whole width, not eight of a third of it (the plots keep the height).
    auto* controls = new QVBoxLayout;
    controls->addLayout(top);
    controls->addWidget(m_caption);
    connect(m_length, &QSpinBox::valueChanged, this, [this](int v) { emit trainLengthChanged(v); });
    connect(m_head, &QSpinBox::valueChanged, this, &ExtrapolationView::headChosen);

    m_headImage = new ImagePanel(this);
    m_headImage->setMinimumWidth(300);
    m_plot = new PlotWidget(this);
    m_plot->setAxisLabels(QString::fromUtf8(explore::kExtrapolationDistanceAxis), u"probability"_s);
    m_plot->setKind(PlotKind::Extrapolation);
    m_plot->setCategorical(true);
    m_model = new NumberTable(this);
    m_table = new QTableView(this);
    m_lessonRows = new LessonRowsProxy(-1, this);  // one row per head, in head order
    m_lessonRows->setSourceModel(m_model);
    m_table->setModel(m_lessonRows);
    m_table->verticalHeader()->setDefaultSectionSize(22);
    // Every column at least as wide as its header (a narrow window scrolls the table).
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setStretchLastSection(true);

    auto* upper = new QSplitter(Qt::Horizontal, this);
    upper->addWidget(m_headImage);
    upper->addWidget(m_plot);
    upper->setStretchFactor(0, 2);
    upper->setStretchFactor(1, 3);
    layoutControlsPlotsTable(this, controls, upper, m_table);
    m_stale = new StaleOverlay(this);
    m_headImage->setMessage(u"Computing the extrapolation (attention rows at L, 2 L, ..., 16 L)..."_s);
}

void ExtrapolationView::markStale() {
    m_stale->markStale();
}

void ExtrapolationView::setTrainLength(std::int64_t length) {
    QSignalBlocker block(m_length);
    m_length->setValue(static_cast<int>(length));
}

void ExtrapolationView::setLessonMark(LessonMark mark) {
    m_lesson = std::move(mark);
    m_lessonRows->setHeads(m_lesson.heads);
    applyLessonHeads();
}

void ExtrapolationView::applyLessonHeads() {
    // Every curve is the shown head (one per length), so all of them are emphasised, as the
    // curves view draws a highlighted head.
    std::vector<int> all;
    if (m_shownHead >= 0 && m_lesson.marksHead(m_shownHead))
        for (std::size_t n = 0; n < m_curveCount; ++n) all.push_back(static_cast<int>(n));
    m_plot->setEmphasis(std::move(all));
    // The marked heads' rows in sight (8 heads do not fit the table at 1280x720): the last, then
    // the first, so both ends show when they fit (lesson 3 step 5 cites heads 6 and 7).
    for (const int head :
         {m_lesson.heads.empty() ? -1 : m_lesson.heads.back(), m_lesson.heads.empty() ? -1 : m_lesson.heads.front()})
        if (head >= 0 && head < m_lessonRows->rowCount())
            m_table->scrollTo(m_lessonRows->index(head, 0), QAbstractItemView::EnsureVisible);
}

void ExtrapolationView::setSnapshot(const SnapshotPtr& s) {
    if (!s || !s->extrapolation) return;
    m_stale->clear();
    const ExtrapolationSnapshot& e = *s->extrapolation;
    {
        QSignalBlocker block(m_head);
        m_head->setRange(0, s->grid->session.attention.bias.slopes.heads - 1);
        m_head->setValue(e.head);
    }
    setTrainLength(s->grid->session.trainLength);
    if (!e.error.empty())
        m_caption->setText(u"<span style='color:#d33'>"_s + shownError(e.error).toHtmlEscaped() + u"</span>"_s);
    else {
        // Say what the table says: the head's mass beyond L at the longest length.
        const std::size_t h = static_cast<std::size_t>(e.head);
        const bool known = h < e.massBeyond.size() && !e.massBeyond[h].empty() && !e.lengths.empty();
        const double beyond = known ? e.massBeyond[h].back() : 0.0;
        m_caption->setText(
            known ? u"Last query row at each length. At T = %1, head %2 puts %3 % of its attention beyond "
                    "distance L = %4 (the table lists every head): %5."_s.arg(e.lengths.back())
                        .arg(e.head)
                        .arg(beyond * 100, 0, 'f', 2)
                        .arg(e.trainLength)
                        .arg(beyond < 0.05 ? u"the bias keeps far keys down, so it looks much as it did at T = L"_s
                                           : u"a flat slope lets attention spread past the trained length"_s)
                  : u"Last query row at each length."_s);
    }
    m_plot->setTitle(u"Head %1: attention vs distance as T grows"_s.arg(e.head));
    m_plot->setSeries(e.curves);
    m_plot->setReferenceX(e.error.empty() ? std::optional<double>(static_cast<double>(e.trainLength)) : std::nullopt,
                          u"L = %1"_s.arg(e.trainLength));
    m_shownHead = e.error.empty() ? e.head : -1;
    m_curveCount = e.curves.size();
    alibi::ColorBar bar = alibi::heatmapColorBar(e.headAtL, e.headAtLParams, -1, 5);
    bar.head = "h" + std::to_string(e.head) + ", T = L = " + std::to_string(e.trainLength);
    m_headImage->setImage(e.headAtL.image, {}, s->grid->session.colormap, bar);

    QStringList headers{u"slope m"_s};
    std::vector<NumberTable::Format> formats{slopeText};
    std::vector<NumberTable::Shade> shades{{}};
    for (std::int64_t t : e.lengths) {
        headers << u"beyond L\nat T = %1"_s.arg(t);
        formats.push_back([](double mass) { return QString::fromStdString(alibi::formatPercent(mass)); });
        shades.push_back([](double mass) {
            QColor bg = toQColor(colormapColor(Colormap::Magma, 0.25 + 0.7 * std::min(1.0, mass)));
            bg.setAlpha(110);
            return bg;
        });
    }
    m_model->setColumns(headers, std::move(formats), std::move(shades));
    QStringList rows;
    std::vector<std::vector<double>> values;
    values.reserve(e.massBeyond.size());
    for (std::size_t h = 0; h < e.massBeyond.size(); ++h) {
        rows << u"head %1"_s.arg(h);
        std::vector<double> row{s->grid->slopes[h]};
        row.insert(row.end(), e.massBeyond[h].begin(), e.massBeyond[h].end());
        values.push_back(std::move(row));
    }
    m_model->setRowHeaders(rows);
    m_model->setValues(std::move(values));
    applyLessonHeads();
}

}  // namespace alibi::qt
