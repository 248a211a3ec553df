// The Qt half of the layout test (issue 27): for every visible label, button, check box, spin
// box value, combo box text, tab title, group title, table header and cell, the text's measured
// width (QFontMetrics) fits its widget's contents rectangle, and no two text widgets overlap. A
// widget partly outside the window or its parent is a problem unless a scroll area holds it
// (then it scrolls). The text a view paints itself (plots, heatmap titles, colour bars) is
// recorded by drawRecordedText at its last paint: each must be whole (not elided, not cut by
// its widget or the painter's clip), visible, and clear of the view's other painted texts.
#pragma once

#include <QAbstractButton>
#include <QAbstractItemModel>
#include <QAbstractScrollArea>
#include <QAbstractSpinBox>
#include <QCheckBox>
#include <QComboBox>
#include <QGroupBox>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QStyle>
#include <QStyleOptionComboBox>
#include <QTabBar>
#include <QTableView>
#include <QTextDocument>
#include <QToolButton>
#include <QWidget>

#include "plot_widget.hpp"
#include "view_util.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace alibi::qt::test {

using namespace Qt::Literals::StringLiterals;

struct LayoutText {
    QWidget* widget = nullptr;
    QString text;
    QRect shown;  // in the root's coordinates, clipped by every parent
};

inline QString plain(QString text) {
    if (Qt::mightBeRichText(text)) {
        QTextDocument doc;
        doc.setHtml(text);
        text = doc.toPlainText();
    }
    return text;
}

inline QString describe(const QWidget* w) {
    QString name = w->objectName();
    return QString("%1%2").arg(w->metaObject()->className(), name.isEmpty() ? QString() : "#" + name);
}

// Whether a scroll area's viewport lies between `w` and `root` (w then scrolls into view).
inline bool inScrollArea(const QWidget* w, const QWidget* root) {
    for (const QWidget* p = w->parentWidget(); p != nullptr && p != root; p = p->parentWidget())
        if (qobject_cast<const QAbstractScrollArea*>(p)) return true;
    return false;
}

// The distance from `pt` to `rect` (0 inside).
inline double distanceTo(const QPointF& pt, const QRectF& rect) {
    const double dx = std::max({rect.left() - pt.x(), 0.0, pt.x() - rect.right()});
    const double dy = std::max({rect.top() - pt.y(), 0.0, pt.y() - rect.bottom()});
    return std::hypot(dx, dy);
}

// A plot's curves stay inside its frame (a marker's or wide pen's edge too, up to 6 px of a
// pen), and none of its painted texts (the "L = 64" of the reference line, a note) lies on a
// curve's stroke where the painter draws curves. Measured on the curves as drawn, sampled every
// pixel along each segment.
inline QStringList checkPlot(const PlotWidget* plot, const std::vector<PaintedText>& painted) {
    QStringList problems;
    const QRectF frame = plot->frameRect();
    const QRectF clip = frame.adjusted(-4, -4, 4, 4);  // where the plot lets curves paint
    int outside = 0;
    QString firstOutside;
    for (const PlotWidget::DrawnCurve& c : plot->drawnCurves()) {
        const double edge = c.dots ? c.halfWidth : std::min(c.halfWidth, 6.0);
        for (const QPointF& pt : c.points)
            if (!frame.adjusted(-0.5, -0.5, 0.5, 0.5)
                     .contains(QRectF(pt.x() - edge, pt.y() - edge, 2 * edge, 2 * edge))) {
                if (outside++ == 0)
                    firstOutside = QString("(%1, %2) +- %3 outside the frame (%4, %5, %6 x %7)")
                                       .arg(pt.x())
                                       .arg(pt.y())
                                       .arg(edge)
                                       .arg(frame.x())
                                       .arg(frame.y())
                                       .arg(frame.width())
                                       .arg(frame.height());
            }
    }
    if (outside > 0)
        problems << QString("%1 \"%2\": %3 curve points run off the plotting area, first %4")
                        .arg(describe(plot), plot->title().left(60))
                        .arg(outside)
                        .arg(firstOutside);
    for (const PaintedText& t : painted) {
        const QRectF text = t.rect.adjusted(1, 1, -1, -1) & clip;
        if (text.isEmpty()) continue;
        bool hit = false;
        for (const PlotWidget::DrawnCurve& c : plot->drawnCurves()) {
            const QPolygonF& pts = c.points;
            for (qsizetype k = 0; k < pts.size() && !hit; ++k) {
                if (c.dots || k == 0) {
                    hit = distanceTo(pts[k], text) < c.halfWidth;
                    if (c.dots) continue;
                }
                if (k == 0) continue;
                const QLineF seg(pts[k - 1], pts[k]);
                const int samples = std::max(1, static_cast<int>(std::ceil(seg.length())));
                for (int n = 0; n <= samples && !hit; ++n)
                    hit = distanceTo(seg.pointAt(static_cast<double>(n) / samples), text) < c.halfWidth;
            }
            if (hit) break;
        }
        if (hit)
            problems << QString("%1 \"%2\": painted \"%3\" lies on a curve")
                            .arg(describe(plot), plot->title().left(60), t.text.left(40));
    }
    return problems;
}

// The problems of `root`'s visible text widgets; `texts` receives each measured text.
inline QStringList checkLayout(QWidget* root, std::vector<LayoutText>* texts = nullptr) {
    QStringList problems;
    std::vector<LayoutText> items;
    const auto fail = [&problems](const QWidget* w, const QString& text, const QString& why) {
        problems << QString("%1 \"%2\": %3").arg(describe(w), text.left(80), why);
    };
    for (QWidget* w : root->findChildren<QWidget*>()) {
        if (!w->isVisibleTo(root) || !w->isVisible()) continue;
        QRect full(w->mapTo(root, QPoint(0, 0)), w->size());
        QRect shown = full & root->rect();
        bool hiddenByParent = false;
        for (QWidget* p = w->parentWidget(); p != nullptr && p != root; p = p->parentWidget()) {
            shown &= QRect(p->mapTo(root, QPoint(0, 0)), p->size());
            if (!p->isVisible()) hiddenByParent = true;
        }
        if (hiddenByParent || shown.isEmpty() || w->window() != root->window()) continue;
        // The texts the widget painted itself (its last paint: the caller grabs the window first).
        const std::vector<PaintedText> painted = paintedTexts(w);
        const QPointF origin = w->mapTo(root, QPoint(0, 0));
        for (std::size_t i = 0; i < painted.size(); ++i) {
            const PaintedText& t = painted[i];
            const QRectF at = t.rect.translated(origin);
            if (!(at & QRectF(shown)).isValid()) continue;  // scrolled out of view
            const QString what = u"painted \""_s + t.text.left(80) + u"\""_s;
            if (t.elided) problems << describe(w) + u" "_s + what + u": elided"_s;
            if (t.cut) problems << describe(w) + u" "_s + what + u": cut by its widget or clip"_s;
            if (!QRectF(shown).adjusted(-1, -1, 1, 1).contains(at) && !inScrollArea(w, root))
                problems << describe(w) + u" "_s + what + u": partly outside the window or a parent"_s;
            for (std::size_t j = i + 1; j < painted.size(); ++j) {
                const QRectF both = t.rect.adjusted(1, 1, -1, -1) & painted[j].rect.adjusted(1, 1, -1, -1);
                if (both.isValid() && !both.isEmpty())
                    problems << describe(w) + u" "_s + what + u" overlaps painted \""_s + painted[j].text.left(40) +
                                    u"\""_s;
            }
        }
        if (auto* plot = qobject_cast<PlotWidget*>(w)) problems << checkPlot(plot, painted);
        const QFontMetrics fm = w->fontMetrics();
        QString text;
        bool cut = false;
        if (auto* label = qobject_cast<QLabel*>(w)) {
            text = plain(label->text());
            if (text.trimmed().isEmpty()) continue;
            if (label->wordWrap()) {
                cut = label->heightForWidth(label->width()) > label->height() + 1;
            } else {
                const QSize hint = label->sizeHint();
                cut = hint.width() > label->width() + 1 || hint.height() > label->height() + 1;
            }
        } else if (auto* check = qobject_cast<QCheckBox*>(w); check || qobject_cast<QRadioButton*>(w)) {
            auto* b = static_cast<QAbstractButton*>(w);
            text = b->text().remove('&');
            if (text.isEmpty()) continue;
            cut = b->sizeHint().width() > b->width() + 1;
        } else if (auto* button = qobject_cast<QAbstractButton*>(w)) {
            text = button->text().replace("&&", "\x01").remove('&').replace('\x01', '&');
            if (text.isEmpty()) continue;
            const int icon = button->icon().isNull() ? 0 : button->iconSize().width() + 4;
            const bool menu = qobject_cast<QToolButton*>(w) && static_cast<QToolButton*>(w)->menu() != nullptr;
            // A menu button's arrow is the style's: its size hint says what the style needs.
            cut = menu ? button->sizeHint().width() > button->width() + 1
                       : fm.horizontalAdvance(text) + icon + 6 > button->width();
        } else if (auto* spin = qobject_cast<QAbstractSpinBox*>(w)) {
            const QLineEdit* edit = spin->findChild<QLineEdit*>();
            text = spin->text();
            if (text.isEmpty() || edit == nullptr) continue;
            cut = fm.horizontalAdvance(text) + 4 > edit->width();
        } else if (auto* combo = qobject_cast<QComboBox*>(w)) {
            text = combo->currentText();
            if (text.isEmpty()) continue;
            QStyleOptionComboBox opt;
            opt.initFrom(combo);
            opt.editable = combo->isEditable();
            opt.currentText = text;
            const QRect field =
                combo->style()->subControlRect(QStyle::CC_ComboBox, &opt, QStyle::SC_ComboBoxEditField, combo);
            cut = fm.horizontalAdvance(text) > field.width() + 1;
        } else if (auto* tabs = qobject_cast<QTabBar*>(w)) {
            for (int i = 0; i < tabs->count(); ++i) {
                const QString t = tabs->tabText(i).replace("&&", "&");
                const QRect r = tabs->tabRect(i);
                if (!tabs->isTabVisible(i)) continue;
                // Every tab whole in the bar: none cut at its edge or hidden behind the scroll
                // arrows ("Co", "Extr" at 1280x720 presentation).
                if (!tabs->rect().contains(r)) fail(w, t, "tab is cut by the tab bar's edge (scroll arrows)");
                if (fm.horizontalAdvance(t) + 8 > r.width()) fail(w, t, "tab title does not fit its tab");
            }
            continue;
        } else if (auto* group = qobject_cast<QGroupBox*>(w)) {
            text = group->title().remove('&');
            if (text.isEmpty()) continue;
            cut = fm.horizontalAdvance(text) + 12 > group->width();
            // The group box holds its children: its own text is only the title row.
            shown = QRect(shown.topLeft(), QSize(shown.width(), std::min(shown.height(), fm.height())));
        } else if (auto* header = qobject_cast<QHeaderView*>(w)) {
            if (header->model() == nullptr) continue;
            for (int i = 0; i < header->count(); ++i) {
                if (header->isSectionHidden(i)) continue;
                const int at = header->sectionViewportPosition(i);
                if (at + header->sectionSize(i) < 0 ||
                    at > (header->orientation() == Qt::Horizontal ? header->width() : header->height()))
                    continue;
                const QString t = header->model()->headerData(i, header->orientation()).toString();
                if (t.isEmpty()) continue;
                const int room = header->orientation() == Qt::Horizontal ? header->sectionSize(i) : header->width();
                for (const QString& line : t.split('\n'))
                    if (fm.horizontalAdvance(line) + 8 > room) fail(w, line, "header does not fit its section");
            }
            continue;
        } else if (auto* table = qobject_cast<QTableView*>(w)) {
            const QAbstractItemModel* model = table->model();
            if (model == nullptr || model->rowCount() > 400) continue;
            const QFontMetrics cellFm(table->font());
            for (int r = 0; r < model->rowCount(); ++r)
                for (int c = 0; c < model->columnCount(); ++c) {
                    if (table->isRowHidden(r) || table->isColumnHidden(c)) continue;
                    const QRect cell = table->visualRect(model->index(r, c));
                    if (!(cell & table->viewport()->rect()).isValid()) continue;
                    const QString t = model->index(r, c).data(Qt::DisplayRole).toString();
                    if (!t.isEmpty() && cellFm.horizontalAdvance(t) + 6 > cell.width())
                        fail(w, t, QString("cell (%1, %2) does not fit its column").arg(r).arg(c));
                }
            continue;
        } else {
            continue;
        }
        if (cut) fail(w, text, QString("text needs more than the widget's %1x%2").arg(w->width()).arg(w->height()));
        // A label ending in "…" was shortened to fit; a button's "Open…" is the convention for an
        // action that asks more (Qt never shortens a button's text), so buttons are left out.
        if (text.endsWith(QChar(0x2026)) && !text.startsWith("updating") && !qobject_cast<QAbstractButton*>(w))
            fail(w, text, "text is elided");
        // Cut off by the window or a parent, with no scroll area to bring it into view.
        if (shown != full && !inScrollArea(w, root)) fail(w, text, "partly outside the window or its parent");
        items.push_back({w, text, shown});
    }
    for (std::size_t i = 0; i < items.size(); ++i)
        for (std::size_t j = i + 1; j < items.size(); ++j) {
            const LayoutText& a = items[i];
            const LayoutText& b = items[j];
            if (a.widget->isAncestorOf(b.widget) || b.widget->isAncestorOf(a.widget)) continue;
            const QRect both = a.shown.adjusted(1, 1, -1, -1) & b.shown.adjusted(1, 1, -1, -1);
            if (both.isValid() && !both.isEmpty())
                problems << QString("%1 \"%2\" overlaps %3 \"%4\"")
                                .arg(describe(a.widget), a.text.left(40), describe(b.widget), b.text.left(40));
        }
    if (texts) *texts = std::move(items);
    return problems;
}

}  // namespace alibi::qt::test
