// View helpers: conversions and painting only; values and texts come from the core.
#include "view_util.hpp"

#include <alibi/explore/editing.hpp>
#include <alibi/explore/line_breaks.hpp>
#include <alibi/explore/progress_text.hpp>
#include <alibi/explore/readout.hpp>
#include <alibi/explore/view_titles.hpp>
#include <alibi/render/colormap.hpp>
#include <alibi/render/format.hpp>
#include <alibi/render/plot.hpp>
#include <alibi/render/render.hpp>
#include <alibi/render/tile_labels.hpp>

#include <QFontMetricsF>
#include <QPainter>

#include <QApplication>
#include <QEvent>
#include <QHash>
#include <QHeaderView>
#include <QPointer>
#include <QProxyStyle>
#include <QScrollBar>
#include <QSplitter>
#include <QStyleFactory>
#include <QTabBar>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <limits>

using namespace Qt::Literals::StringLiterals;

namespace alibi::qt {

namespace {

QHash<const QWidget*, std::vector<PaintedText>>& paintedRegistry() {
    static QHash<const QWidget*, std::vector<PaintedText>> registry;
    return registry;
}

}  // namespace

void beginPaintedTexts(const QWidget* widget) {
    auto& registry = paintedRegistry();
    if (!registry.contains(widget))
        QObject::connect(widget, &QObject::destroyed, [widget] { paintedRegistry().remove(widget); });
    registry[widget].clear();
}

std::vector<PaintedText> paintedTexts(const QWidget* widget) {
    return paintedRegistry().value(widget);
}

QRectF drawRecordedText(QPainter& p, const QWidget* widget, const QRectF& rect, int flags, const QString& full,
                        const QString& shown) {
    const QString text = shown.isEmpty() ? full : shown;
    const QRectF took = p.boundingRect(rect, flags, text);
    p.drawText(rect, flags, text);
    // Recorded only for a widget whose paint event began a record (beginPaintedTexts).
    if (widget != nullptr && !text.isEmpty() && paintedRegistry().contains(widget)) {
        const QRectF inWidget = p.transform().mapRect(took);
        QRectF room = QRectF(widget->rect()).adjusted(-0.5, -0.5, 0.5, 0.5);
        if (p.hasClipping()) room &= p.transform().mapRect(p.clipBoundingRect()).adjusted(-0.5, -0.5, 0.5, 0.5);
        PaintedText t{full, inWidget, text != full, !room.contains(inWidget)};
        paintedRegistry()[widget].push_back(std::move(t));
    }
    return took;
}

QImage toQImage(const Image& image, double devicePixelRatio) {
    if (image.width <= 0 || image.height <= 0) return {};
    QImage out(reinterpret_cast<const uchar*>(image.pixels.data()), image.width, image.height, image.width * 4,
               QImage::Format_RGBA8888);
    QImage copy = out.copy();
    copy.setDevicePixelRatio(devicePixelRatio);
    return copy;
}

QString slopeText(double slope) {
    return QString::fromStdString(alibi::formatSlope(slope));
}

QString valueText(double value) {
    return QString::fromStdString(alibi::formatValue(value));
}

QColor toQColor(const Rgba& c) {
    return QColor(c.r, c.g, c.b, c.a);
}

QColor contrastingText(const QColor& bg) {
    const double luminance = 0.2126 * bg.redF() + 0.7152 * bg.greenF() + 0.0722 * bg.blueF();
    return luminance > 0.5 ? QColor(20, 20, 20) : QColor(245, 245, 245);
}

QColor seriesColor(int n, int count, bool categorical) {
    static const QColor kCategorical[] = {QColor(31, 119, 180),  QColor(255, 127, 14),  QColor(44, 160, 44),
                                          QColor(214, 39, 40),   QColor(148, 103, 189), QColor(140, 86, 75),
                                          QColor(227, 119, 194), QColor(127, 127, 127)};
    if (categorical) return kCategorical[n % 8];
    return toQColor(
        alibi::seriesColor(static_cast<std::size_t>(std::max(n, 0)), static_cast<std::size_t>(std::max(count, 1))));
}

QString cellDescription(const Session& session, const std::vector<double>& slopes, int head, std::int64_t query,
                        std::int64_t key, bool html) {
    const QString text =
        QString::fromStdString(explore::heatmapReadoutComputed(heatmapParams(session), slopes, head, query, key));
    if (html) return readoutTooltip(text);
    return QString(text).replace(u'\n', u"   "_s);
}

void paintColorBar(QPainter& p, const QRect& bar, const alibi::ColorBar& colorBar, Colormap map,
                   const QPalette& palette, int labelWidth) {
    if (bar.height() < 8) return;
    const auto* widget = dynamic_cast<const QWidget*>(p.device());
    const Image gradient = renderColorBar(map, 1, bar.height(), true);
    p.drawImage(bar, toQImage(gradient));
    p.setBrush(Qt::NoBrush);
    p.setPen(palette.color(QPalette::Mid));
    p.drawRect(bar.adjusted(0, 0, -1, -1));
    const QFontMetrics fm(p.font());
    p.setPen(palette.color(QPalette::WindowText));
    // Ends first (they must show), then the round ticks that do not collide with a label.
    std::vector<const alibi::Tick*> order;
    if (!colorBar.ticks.empty()) {
        order.push_back(&colorBar.ticks.back());
        if (colorBar.ticks.size() > 1) order.push_back(&colorBar.ticks.front());
        for (std::size_t n = 1; n + 1 < colorBar.ticks.size(); ++n) order.push_back(&colorBar.ticks[n]);
    }
    std::vector<int> used;
    for (const alibi::Tick* t : order) {
        const double pos = alibi::colorBarPosition(colorBar, t->value);
        const int y = bar.bottom() - static_cast<int>(std::lround(pos * (bar.height() - 1)));
        const bool clash = std::any_of(used.begin(), used.end(), [&](int u) { return std::abs(u - y) < fm.height(); });
        if (clash) continue;
        used.push_back(y);
        // The tick mark sits on the bar's edge, so it never reads as a minus sign of its label.
        p.drawLine(bar.right() - 3, y, bar.right(), y);
        drawRecordedText(p, widget, QRect(bar.right() + 5, y - fm.height() / 2, labelWidth, fm.height()),
                         Qt::AlignLeft | Qt::AlignVCenter, QString::fromStdString(t->label));
    }
    QFont small = p.font();
    small.setPointSizeF(p.font().pointSizeF() * 0.85);
    const QFont normal = p.font();
    p.setFont(small);
    const QFontMetrics smallFm(small);
    QString title = QString::fromStdString(colorBar.title);
    const QString head = QString::fromStdString(colorBar.head);
    const int titleWidth = labelWidth + bar.width() + 8;
    // Heights follow the font (a presentation font is twice the size): the title sits above the
    // top label's upper half, the swatches below the bottom label's lower half.
    const int titleLine = smallFm.height();
    const int titleBottom = bar.y() - fm.height() / 2 - 2;
    if (!head.isEmpty() && smallFm.horizontalAdvance(title + u"  "_s + head) > titleWidth) {
        // Too long for one line ("probability  head 3, T = L"): the head on a line of its own,
        // never cut.
        drawRecordedText(p, widget, QRect(bar.x() - 4, titleBottom - 2 * titleLine, titleWidth, titleLine),
                         Qt::AlignLeft | Qt::AlignVCenter, title);
        drawRecordedText(p, widget, QRect(bar.x() - 4, titleBottom - titleLine, titleWidth, titleLine),
                         Qt::AlignLeft | Qt::AlignVCenter, head);
    } else {
        if (!head.isEmpty()) title += u"  "_s + head;
        drawRecordedText(p, widget, QRect(bar.x() - 4, titleBottom - titleLine, titleWidth, titleLine),
                         Qt::AlignLeft | Qt::AlignVCenter, title);
    }
    const int swatchSize = std::max(12, smallFm.height() * 3 / 4);
    int swatchTop = bar.bottom() + fm.height() / 2 + 4;
    if (colorBar.maskedSwatch) {
        const QRect swatch(bar.x(), swatchTop + (smallFm.height() - swatchSize) / 2, swatchSize, swatchSize);
        p.fillRect(swatch, toQColor(kMaskedColor));
        drawRecordedText(p, widget,
                         QRect(swatch.right() + 5, swatchTop, labelWidth + bar.width() - swatchSize, smallFm.height()),
                         Qt::AlignLeft | Qt::AlignVCenter, u"masked"_s);
        swatchTop += smallFm.height() + 2;
    }
    if (colorBar.fullyMaskedSwatch) {
        const QRect swatch(bar.x(), swatchTop + (smallFm.height() - swatchSize) / 2, swatchSize, swatchSize);
        for (int y = 0; y < swatch.height(); ++y)
            for (int x = 0; x < swatch.width(); ++x)
                p.fillRect(swatch.x() + x, swatch.y() + y, 1, 1, toQColor(fullyMaskedStripe(x, y)));
        drawRecordedText(p, widget,
                         QRect(swatch.right() + 5, swatchTop, labelWidth + bar.width() - swatchSize, smallFm.height()),
                         Qt::AlignLeft | Qt::AlignVCenter, u"fully masked row"_s);
        swatchTop += smallFm.height() + 2;
    }
    p.setFont(normal);
    // What the bar covers (title, gradient, labels, swatches), for placing what floats over the
    // widget (presentation mode's read-out) clear of it.
    if (widget != nullptr) {
        const int top = titleBottom - 2 * titleLine;
        const_cast<QWidget*>(widget)->setProperty(
            "alibiColorBarRect",
            QRect(bar.x() - 4, top, std::max(titleWidth, bar.width() + 5 + labelWidth), swatchTop - top));
    }
}

QRect paintedColorBarRect(const QWidget* widget) {
    return widget->property("alibiColorBarRect").toRect();
}

int colorBarTitleRoom(const QFontMetrics& fm) {
    // The title line (at 85 %) above the top label's upper half.
    return fm.height() / 2 + fm.height() + 4;
}

int colorBarKeyRoom(const QFontMetrics& fm, bool fullyMaskedRows) {
    return fm.height() / 2 + 6 + (fm.height() + 2) * (fullyMaskedRows ? 2 : 1);
}

int colorBarLabelRoom(const QFontMetrics& fm, const QString& widestLabel) {
    return fm.horizontalAdvance(widestLabel) + 12;
}

QRect staleMarkRect(const QRect& area, const QFontMetrics& fm, const QString& text, bool refining) {
    const int width = fm.horizontalAdvance(text) + 24, height = fm.height() + 12;
    const int y = refining ? area.bottom() - 8 - height : area.center().y() - height / 2;
    return QRect(area.center().x() - width / 2, y, width, height);
}

void paintStale(QPainter& p, const QRect& area, double progress, const QPalette& palette, double secondsLeft,
                bool refining) {
    if (!refining) {
        QColor veil = palette.color(QPalette::Base);
        veil.setAlpha(150);
        p.fillRect(area, veil);
    }
    const QString text = QString::fromStdString(explore::progressText(
        refining ? explore::ProgressPhase::Refining : explore::ProgressPhase::Updating, progress, secondsLeft));
    QFont bold = p.font();
    bold.setBold(true);
    const QFont normal = p.font();
    p.setFont(bold);
    const QRect box = staleMarkRect(area, QFontMetrics(bold), text, refining);
    p.setPen(Qt::NoPen);
    p.setBrush(QColor(0, 0, 0, 170));
    p.drawRoundedRect(box, 6, 6);
    p.setPen(Qt::white);
    p.drawText(box, Qt::AlignCenter, text);
    p.setFont(normal);
}

StaleOverlay::StaleOverlay(QWidget* parent) : QWidget(parent), m_timer(new QTimer(this)) {
    setAttribute(Qt::WA_TransparentForMouseEvents);
    setAttribute(Qt::WA_NoSystemBackground);
    hide();
    m_timer->setSingleShot(true);
    m_timer->setInterval(60);
    QObject::connect(m_timer, &QTimer::timeout, this, [this] {
        if (!m_asked) return;
        setGeometry(parentWidget()->rect());
        raise();
        show();
    });
    parent->installEventFilter(this);
}

void StaleOverlay::markStale() {
    m_asked = true;
    m_refining = false;
    m_progress = -1;
    m_since.invalidate();
    if (!m_timer->isActive() && !isVisible()) m_timer->start();
}

void StaleOverlay::showRefining() {
    // The progress and its clock carry on from the request: the preview is part of its work.
    m_asked = false;
    m_refining = true;
    m_timer->stop();
    setGeometry(parentWidget()->rect());
    raise();
    show();
    update();
}

void StaleOverlay::clear() {
    m_asked = false;
    m_refining = false;
    m_timer->stop();
    hide();
}

void StaleOverlay::setProgress(double fraction) {
    if (m_progress < 0 || !m_since.isValid()) m_since.start();
    m_progress = fraction;
    if (isVisible()) update();
}

void StaleOverlay::paintEvent(QPaintEvent*) {
    QPainter p(this);
    paintStale(
        p, rect(), m_progress, palette(),
        m_since.isValid() ? explore::secondsLeft(static_cast<double>(m_since.elapsed()) / 1000.0, m_progress) : -1,
        m_refining);
}

bool StaleOverlay::eventFilter(QObject* watched, QEvent* event) {
    if (watched == parentWidget() && event->type() == QEvent::Resize) setGeometry(parentWidget()->rect());
    return QWidget::eventFilter(watched, event);
}

QString shownError(const std::string& coreMessage) {
    return keepBreaksAtSpaces(explore::guiMessage(coreMessage));
}

namespace {
// Whether the '/' at `i` belongs to a formula: its word (up to the ordinary spaces around it)
// holds a no-break space the core put there ("mₕ = 2^(−8(h+1)/H)"), or the '/' is not between
// two letters ("1/8", "(h+1)/H"). A '/' between the letters of a word without one is a path's
// ("scripts/make_example_attention.py"): Qt may break after it, or it force-broke the path's
// word before its "," (s39 L2: "...attention.py)" | ", not a real checkpoint"). A word with an
// operator in it, or a parenthesis after its start, is a formula too ("2^(−8h/H)," broke after
// its '/' in lines narrower than 230 px at the lesson's size: issue 27 L4).
bool slashInFormula(const QString& text, qsizetype i) {
    const auto ordinarySpace = [](QChar c) { return c == u' ' || c == u'\n'; };
    if (i == 0 || i + 1 >= text.size() || !text[i - 1].isLetter() || !text[i + 1].isLetter()) return true;
    qsizetype start = i;
    while (start > 0 && !ordinarySpace(text[start - 1])) --start;
    for (qsizetype j = start; j < text.size() && !ordinarySpace(text[j]); ++j) {
        const QChar c = text[j];
        if (c == QChar(0x00A0) || (c == u'(' && j > start)) return true;
        for (const char16_t op : u"^+=×−*")
            if (op != 0 && c == QChar(op)) return true;
    }
    return false;
}
}  // namespace

QString keepBreaksAtSpaces(const QString& text) {
    QString out;
    out.reserve(text.size() + text.size() / 8);
    for (qsizetype i = 0; i < text.size(); ++i) {
        out += text[i];
        const QChar c = text[i];
        const bool last = i + 1 == text.size();
        if ((c == u'|' || c == u'-' || (c == u'/' && slashInFormula(text, i))) && !last && text[i + 1] != u' ' &&
            text[i + 1] != u'\n')
            out += QChar(0x2060);
    }
    return out;
}

QString keepBreaksAtSpaces(const std::string& text) {
    return keepBreaksAtSpaces(QString::fromStdString(text));
}

QString readoutBreaks(const QString& text) {
    QStringList lines = text.split(u'\n');
    for (QString& line : lines) line = keepBreaksAtSpaces(explore::keepReadoutWhole(line.toStdString()));
    return lines.join(u'\n');
}

QString headerBreaks(const std::string& text) {
    return keepBreaksAtSpaces(
        explore::keepOperatorsWithTheirValues(explore::keepShortGroupsWhole(explore::keepPhrasesWhole(text))));
}

QString titleBreaks(const std::string& text) {
    return keepBreaksAtSpaces(explore::keepOperatorsWithTheirValues(explore::keepShortGroupsWhole(text)));
}

QString readoutTooltip(const QString& text) {
    return readoutBreaks(text).toHtmlEscaped().replace(u'\n', u"<br>"_s);
}

PaintedTileLabels paintTileLabelForms(QPainter& painter, const QFont& font, QPointF target, double sx, double sy,
                                      const std::vector<HeatmapTile>& tiles,
                                      std::vector<std::vector<std::string>> forms) {
    PaintedTileLabels painted;
    painted.rects.assign(tiles.size(), QRectF());
    painted.texts.assign(tiles.size(), QString());
    if (tiles.size() < 2) return painted;  // one tile: the title names it
    // Each tile's band and font first; then one form for every tile of the grid, the core's
    // choice (chooseTileLabels, issue 27): its forms in turn (without any, its head's own: "h3",
    // "3") on every tile, never a mix.
    struct Slot {
        QRectF tile;
        double room = 0;
        QFont font;
    };
    std::vector<Slot> places(tiles.size());
    forms.resize(tiles.size());
    for (std::size_t n = 0; n < tiles.size(); ++n) {
        const HeatmapTile& t = tiles[n];
        Slot& slot = places[n];
        slot.tile = QRectF(target.x() + t.x * sx, target.y() + t.y * sy, t.width * sx, t.height * sy);
        slot.room = alibi::tileLabelRoom(tiles, n) * sy;
        if (forms[n].empty()) {
            alibi::TileLabelParts parts;
            parts.head = t.head;
            forms[n] = alibi::tileLabelForms(parts);
        }
        if (slot.room < 7) continue;
        QFont f = font;
        f.setPointSizeF(font.pointSizeF() * 0.9);
        while (QFontMetricsF(f).height() > slot.room && f.pointSizeF() > 4) f.setPointSizeF(f.pointSizeF() * 0.9);
        slot.font = f;
    }
    const std::vector<std::string> chosen = alibi::chooseTileLabels(forms, [&](std::size_t n, const std::string& text) {
        const Slot& slot = places[n];
        if (slot.room < 7) return false;
        const QFontMetricsF fm(slot.font);
        return fm.height() <= slot.room && fm.horizontalAdvance(QString::fromStdString(text)) <= slot.tile.width();
    });
    painter.save();
    for (std::size_t n = 0; n < tiles.size(); ++n) {
        const Slot& slot = places[n];
        const QString label = QString::fromStdString(chosen[n]);
        if (label.isEmpty()) continue;
        const QFontMetricsF fm(slot.font);
        painter.setFont(slot.font);
        const QRectF box(slot.tile.x(), slot.tile.y() - slot.room, slot.tile.width(), slot.room);
        painter.drawText(box, Qt::AlignLeft | Qt::AlignBottom, label);
        painted.rects[n] = QRectF(box.x(), box.bottom() - fm.height(), fm.horizontalAdvance(label), fm.height());
        painted.texts[n] = label;
    }
    painter.restore();
    return painted;
}

PaintedTileLabels paintTileLabels(QPainter& painter, const QFont& font, QPointF target, double sx, double sy,
                                  const std::vector<HeatmapTile>& tiles, const std::vector<QString>& labels) {
    // The given label first, then the head's own forms ("h3", "3").
    std::vector<std::vector<std::string>> forms(tiles.size());
    for (std::size_t n = 0; n < tiles.size(); ++n) {
        alibi::TileLabelParts parts;
        parts.head = tiles[n].head;
        forms[n] = alibi::tileLabelForms(parts);
        if (n < labels.size() && !labels[n].isEmpty() && labels[n].toStdString() != forms[n].front())
            forms[n].insert(forms[n].begin(), labels[n].toStdString());
    }
    return paintTileLabelForms(painter, font, target, sx, sy, tiles, std::move(forms));
}

namespace {
// The application's style, with narrower tabs on a bar marked "alibiCompactTabs": at 1280x720 in
// presentation mode ten tab names with the style's padding fitted only at 9.45 pt (issue 27); a
// third of a line's height on each side keeps each tab apart and its text at the projector's size.
class CompactTabStyle : public QProxyStyle {
public:
    CompactTabStyle() : QProxyStyle(QStyleFactory::create(QApplication::style()->name())) { setParent(qApp); }
    static CompactTabStyle* instance() {
        static QPointer<CompactTabStyle> style;
        if (style.isNull()) style = new CompactTabStyle;
        return style;
    }
    int pixelMetric(PixelMetric metric, const QStyleOption* option, const QWidget* widget) const override {
        const int base = QProxyStyle::pixelMetric(metric, option, widget);
        if (metric != PM_TabBarTabHSpace || widget == nullptr || !widget->property("alibiCompactTabs").toBool())
            return base;
        return std::min(base, 2 * QFontMetrics(widget->font()).height() / 3);
    }
};

class TabFit : public QObject {
public:
    TabFit(QTabWidget* tabs, QStringList shortNames) : QObject(tabs), m_tabs(tabs), m_short(std::move(shortNames)) {
        for (int t = 0; t < tabs->count(); ++t) m_full << tabs->tabText(t);
        tabs->tabBar()->setElideMode(Qt::ElideNone);
        tabs->tabBar()->setStyle(CompactTabStyle::instance());
        setObjectName(u"alibiTabFit"_s);
        tabs->installEventFilter(this);
        fit();
    }
    bool eventFilter(QObject* watched, QEvent* event) override {
        const QEvent::Type type = event->type();
        if (watched == m_tabs && (type == QEvent::Resize || type == QEvent::FontChange ||
                                  type == QEvent::ApplicationFontChange || type == QEvent::Show))
            QTimer::singleShot(0, this, [this] { fit(); });  // once the new font has reached the bar
        return QObject::eventFilter(watched, event);
    }
    void fit() {
        if (m_fitting || m_tabs->count() != m_full.size()) return;
        m_fitting = true;
        QTabBar* bar = m_tabs->tabBar();
        const int room = m_tabs->width() - 4;
        const auto names = [&](bool shortNames) {
            for (int t = 0; t < m_tabs->count(); ++t) {
                const QString name = shortNames && t < m_short.size() ? m_short[t] : m_full[t];
                if (bar->tabText(t) != name) bar->setTabText(t, name);
                const QString tip =
                    shortNames && name != m_full[t] ? QString(m_full[t]).replace(u"&&"_s, u"&"_s) : QString();
                if (bar->tabToolTip(t) != tip) bar->setTabToolTip(t, tip);
            }
        };
        // The row as the bar lays it out with these names at this scale of the window's font.
        const QFont base = m_tabs->font();
        const auto rowWidth = [&](bool brief, double scale) {
            names(brief);
            QFont font = base;
            font.setPointSizeF(base.pointSizeF() * scale);
            bar->setFont(scale >= 1 ? QFont() : font);  // QFont(): the widget's own (the application's, zoomed)
            return static_cast<double>(bar->sizeHint().width());
        };
        // The core's rule (whole titles, brief names, then a smaller font); narrower tabs first
        // where the text would otherwise shrink.
        setCompact(bar, false);
        explore::TabRowFit fit = explore::fitTabRow(room, 0.5, rowWidth);
        if (fit.scale < 1) {
            setCompact(bar, true);
            fit = explore::fitTabRow(room, 0.5, rowWidth);
        }
        (void)rowWidth(fit.brief, fit.scale);
        m_fitting = false;
    }

private:
    static void setCompact(QTabBar* bar, bool on) {
        if (bar->property("alibiCompactTabs").toBool() == on) return;
        bar->setProperty("alibiCompactTabs", on);
        // The bar measures its tabs again (a font change makes it drop its cached sizes).
        QEvent change(QEvent::StyleChange);
        QCoreApplication::sendEvent(bar, &change);
    }

    QTabWidget* m_tabs;
    QStringList m_full, m_short;
    bool m_fitting = false;
};
}  // namespace

void fitTabs(QTabWidget* tabs, const QStringList& shortNames) {
    new TabFit(tabs, shortNames);
}

void refitTabs(QTabWidget* tabs) {
    if (auto* fit = tabs->findChild<QObject*>(u"alibiTabFit"_s, Qt::FindDirectChildrenOnly))
        static_cast<TabFit*>(fit)->fit();
}

int tileLabelBandFor(const QFont& font, double scale) {
    QFont f = font;
    f.setPointSizeF(font.pointSizeF() * 0.9);
    return static_cast<int>(std::ceil((QFontMetricsF(f).height() + 2) / std::max(scale, 1e-6)));
}

namespace {

// Keeps a table of a few heads whole (issue 27): its text at the plots' scale (presentation mode
// scales plot text by alibiPlotTextScale, less than the lesson text), smaller still, down to
// three quarters of that, when its columns would not fit the width, and its height that of
// its header and up to kTableRows rows, so the splitter gives the rest to the plots.
class TableFit : public QObject {
public:
    static constexpr int kTableRows = 8;
    // firstColumns > 0: a table of many columns that scrolls sideways, and fills its tab; its
    // first firstColumns columns (in the header's order) are to fit the width.
    TableFit(QWidget* view, QTableView* table, int firstColumns = 0)
        : QObject(table), m_view(view), m_table(table), m_firstColumns(firstColumns) {
        view->installEventFilter(this);
        table->installEventFilter(this);
        if (firstColumns > 0) {
            // A table that scrolls sideways shows whole columns only: it scrolls a column at a
            // time, and the columns in view share the room a cut column would take (lesson 5
            // step 2 at 1280x720 showed the ratio column cut to "0." at the view's edge).
            table->setHorizontalScrollMode(QAbstractItemView::ScrollPerItem);
            table->horizontalHeader()->setSectionResizeMode(QHeaderView::Fixed);
            table->viewport()->installEventFilter(this);
            connect(table->horizontalScrollBar(), &QScrollBar::valueChanged, this, &TableFit::sizeColumns);
        }
        QAbstractItemModel* model = table->model();
        connect(model, &QAbstractItemModel::modelReset, this, &TableFit::schedule);
        connect(model, &QAbstractItemModel::layoutChanged, this, &TableFit::schedule);
        connect(model, &QAbstractItemModel::rowsInserted, this, &TableFit::schedule);
        connect(model, &QAbstractItemModel::rowsRemoved, this, &TableFit::schedule);
        connect(model, &QAbstractItemModel::headerDataChanged, this, &TableFit::schedule);
        connect(model, &QAbstractItemModel::dataChanged, this, &TableFit::schedule);  // numbers widen columns
        schedule();
    }

protected:
    bool eventFilter(QObject* watched, QEvent* event) override {
        if ((watched == m_view && event->type() == QEvent::FontChange) ||
            (watched == m_table && event->type() == QEvent::Resize))
            schedule();
        else if (watched == m_table->viewport() && event->type() == QEvent::Resize && m_firstColumns > 0)
            QTimer::singleShot(0, this, &TableFit::sizeColumns);  // the vertical scroll bar came or went
        return false;
    }

private:
    void schedule() {
        if (m_scheduled) return;
        m_scheduled = true;
        QTimer::singleShot(0, this, [this] {
            m_scheduled = false;
            fit();
        });
    }
    // The width the table's columns (its first m_firstColumns ones) ask for at its current font.
    [[nodiscard]] int neededWidth() const {
        int width = 2 * m_table->frameWidth();
        if (m_table->verticalHeader()->isVisible()) width += m_table->verticalHeader()->sizeHint().width();
        if (m_firstColumns > 0 && m_table->verticalScrollBar()->isVisible())
            width += m_table->verticalScrollBar()->width();
        const QAbstractItemModel* model = m_table->model();
        const QAbstractItemView* view = m_table;  // QTableView makes sizeHintForColumn protected
        const QHeaderView* header = m_table->horizontalHeader();
        for (int c = 0; c < model->columnCount(); ++c)
            if (!m_table->isColumnHidden(c) && (m_firstColumns <= 0 || header->visualIndex(c) < m_firstColumns))
                width += std::max(view->sizeHintForColumn(c), m_table->horizontalHeader()->sectionSizeHint(c));
        return width;
    }
    void setScale(double scale) {
        QFont font = m_view->font();
        font.setPointSizeF(m_view->font().pointSizeF() * scale);
        if (m_table->font() != font) m_table->setFont(font);
        const int line = QFontMetrics(font).height() + 3;
        m_table->verticalHeader()->setMinimumSectionSize(std::min(line, 18));
        m_table->verticalHeader()->setDefaultSectionSize(line);
    }
    void fit() {
        const double plotScale = qApp->property("alibiPlotTextScale").toDouble();
        const double top = plotScale > 0 ? std::clamp(plotScale, 0.25, 4.0) : 1.0;
        double scale = top;
        setScale(scale);
        while (scale > top * 0.76 && neededWidth() > m_table->width()) {
            scale -= top * 0.05;
            setScale(scale);
        }
        if (m_firstColumns > 0) {
            sizeColumns();
            return;  // its height is its layout's
        }
        const QAbstractItemModel* model = m_table->model();
        const int rows = std::min(model->rowCount(), kTableRows);
        int height = 2 * m_table->frameWidth() + m_table->horizontalHeader()->sizeHint().height() +
                     std::max(1, rows) * m_table->verticalHeader()->defaultSectionSize();
        if (neededWidth() > m_table->width()) height += m_table->horizontalScrollBar()->sizeHint().height();
        if (m_table->minimumHeight() != height || m_table->maximumHeight() != height) m_table->setFixedHeight(height);
    }

    // Each column as wide as its contents, and the columns in view from the first one shown
    // widened to fill the view exactly, so none is cut at its right edge (a view wider than
    // every remaining column leaves the rest empty).
    void sizeColumns() {
        if (m_sizing) return;
        m_sizing = true;
        QHeaderView* header = m_table->horizontalHeader();
        const QAbstractItemView* view = m_table;  // QTableView makes sizeHintForColumn protected
        const int count = header->count();
        for (int c = 0; c < count; ++c)
            if (!header->isSectionHidden(c))
                header->resizeSection(c, std::max(view->sizeHintForColumn(c), header->sectionSizeHint(c)));
        const int room = m_table->viewport()->width();
        const int first = std::max(0, header->visualIndexAt(0));
        std::vector<int> shown;  // logical indices of the columns wholly in view
        int used = 0;
        for (int v = first; v < count; ++v) {
            const int c = header->logicalIndex(v);
            if (header->isSectionHidden(c)) continue;
            if (used + header->sectionSize(c) > room) {
                // A column would be cut: the whole ones take its room.
                if (!shown.empty()) {
                    const int extra = room - used, each = extra / static_cast<int>(shown.size());
                    for (std::size_t n = 0; n < shown.size(); ++n)
                        header->resizeSection(shown[n],
                                              header->sectionSize(shown[n]) + each +
                                                  (n + 1 == shown.size() ? extra % static_cast<int>(shown.size()) : 0));
                }
                break;
            }
            used += header->sectionSize(c);
            shown.push_back(c);
        }
        m_sizing = false;
    }

    QWidget* m_view;
    QTableView* m_table;
    int m_firstColumns;
    bool m_scheduled = false;
    bool m_sizing = false;
};

}  // namespace

void keepTableTextAtPlotScale(QWidget* view, QTableView* table, int firstColumns) {
    new TableFit(view, table, std::max(firstColumns, 1));
}

void layoutControlsPlotsTable(QWidget* view, QLayout* controls, QWidget* upper, QWidget* table) {
    auto* split = new QSplitter(Qt::Vertical, view);
    split->addWidget(upper);
    split->addWidget(table);
    // The table as tall as its rows (up to eight, the rest scroll): at 1280x720 the plots would
    // otherwise squeeze it to its header and two rows, or leave it empty space.
    if (auto* tableView = qobject_cast<QTableView*>(table)) new TableFit(view, tableView);
    split->setCollapsible(1, false);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    auto* layout = new QVBoxLayout(view);
    layout->setContentsMargins(8, 8, 8, 8);
    layout->addLayout(controls);
    layout->addWidget(split, 1);
}

}  // namespace alibi::qt
