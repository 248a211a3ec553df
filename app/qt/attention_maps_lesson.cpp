// The Attention maps tab's lesson steps: opening the step's file, showing its layer, view, head
// and row, marking its heads and cell, and scrolling the page to what the step cites.
#include "attention_maps_page.hpp"

#include "lesson_mark.hpp"
#include "maps_heatmap_view.hpp"

#include <QFileInfo>
#include <QLabel>
#include <QScrollArea>
#include <QScrollBar>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>

#include <algorithm>

using namespace Qt::Literals::StringLiterals;

namespace alibi::qt {

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

}  // namespace alibi::qt
