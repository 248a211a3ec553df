// Curves view: four plots over the core's series.
#include "curves_view.hpp"

#include "view_util.hpp"

#include <alibi/explore/batch_view.hpp>

#include <QGridLayout>

using namespace Qt::Literals::StringLiterals;

namespace alibi::qt {

CurvesView::CurvesView(QWidget* parent) : QWidget(parent) {
    m_slopes = new PlotWidget(this);
    m_slopes->setTitle(u"Slope per head (log2 axis)"_s);
    m_slopes->setAxisLabels(u"head h"_s, u"slope m"_s);
    m_slopes->setKind(PlotKind::Slopes);
    m_slopes->setLegendLimit(0);
    m_schemes = new PlotWidget(this);
    m_schemes->setTitle(u"Slope schemes, same H and B"_s);
    m_schemes->setAxisLabels(u"head h"_s, u"slope m"_s);
    m_schemes->setKind(PlotKind::SlopeSchemes);
    m_schemes->setStyle(PlotWidget::Style::LinesAndMarkers);
    m_schemes->setCategorical(true);
    m_bias = new PlotWidget(this);
    m_bias->setTitle(u"Bias vs distance, every head"_s);
    m_bias->setAxisLabels(u"distance i − j"_s, u"bias"_s);
    m_bias->setKind(PlotKind::BiasDistance);
    m_attention = new PlotWidget(this);
    m_attention->setTitle(u"Attention vs distance at the query row"_s);
    m_attention->setAxisLabels(u"distance i − j"_s, u"probability"_s);
    m_attention->setKind(PlotKind::AttentionDistance);
    // Bias and attention plot the same heads side by side: one legend room, the same heads listed.
    m_bias->setLegendSiblings({m_attention});
    m_attention->setLegendSiblings({m_bias});
    auto* grid = new QGridLayout(this);
    grid->setContentsMargins(8, 8, 8, 8);
    grid->setSpacing(10);
    grid->addWidget(m_slopes, 0, 0);
    grid->addWidget(m_schemes, 0, 1);
    grid->addWidget(m_bias, 1, 0);
    grid->addWidget(m_attention, 1, 1);
    for (PlotWidget* plot : {m_slopes, m_bias, m_attention})
        connect(plot, &PlotWidget::seriesHovered, this, &CurvesView::headHovered);
    m_stale = new StaleOverlay(this);
}

void CurvesView::markStale() {
    m_stale->markStale();
}
bool CurvesView::stale() const {
    return m_stale->stale();
}

void CurvesView::setSnapshot(const SnapshotPtr& s) {
    if (!s) return;
    m_stale->clear();
    // One bar per head, each its own series, so a head's index is its series index everywhere.
    std::vector<Series> perHead;
    for (const Series& ser : s->slopeCurves)
        for (std::size_t n = 0; n < ser.x.size() && n < ser.y.size(); ++n)
            perHead.push_back(
                Series{"head " + std::to_string(perHead.size()) + " (m = " + slopeText(ser.y[n]).toStdString() + ")",
                       {ser.x[n]},
                       {ser.y[n]}});
    m_slopes->setSeries(std::move(perHead));
    m_schemes->setSeries(s->schemeCurves);
    const int heads = s->grid->session.attention.bias.slopes.heads;
    m_schemes->setNote((heads & (heads - 1)) == 0 ? u"H = %1 = 2^k: press = geometric"_s.arg(heads)
                                                  : u"H = %1: press ≠ geometric"_s.arg(heads));
    m_bias->setSeries(s->biasCurves);
    m_attention->setSeries(s->attentionCurves);
    m_attention->setTitle(u"Attention vs distance at query row %1"_s.arg(s->queryRow));
    // With a batch, these curves still describe one unpadded sequence: the core's note says so.
    const Session& session = s->grid->session;
    const QString batchNote = QString::fromStdString(explore::batchScopeNote(session.batch, session.batchRow, true));
    m_bias->setNote(batchNote);
    m_attention->setNote(!batchNote.isEmpty()                                  ? batchNote
                         : session.attention.content.kind == ContentKind::Zero ? u"zero content: bias only"_s
                                                                               : QString());
}

void CurvesView::setHighlightedHead(int head) {
    for (PlotWidget* plot : {m_slopes, m_bias, m_attention}) plot->setHighlight(head);
}

}  // namespace alibi::qt

namespace alibi::qt {

void CurvesView::setLessonHeads(const std::vector<int>& heads) {
    for (PlotWidget* plot : {m_slopes, m_bias, m_attention}) plot->setEmphasis(heads);
}

}  // namespace alibi::qt
