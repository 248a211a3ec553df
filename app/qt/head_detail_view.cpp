// Head detail view: zoom and pan over a one-pixel-per-cell image drawn without smoothing.
#include "head_detail_view.hpp"

#include "view_util.hpp"

#include <alibi/explore/compute.hpp>
#include <alibi/explore/line_breaks.hpp>
#include <alibi/render/cell_numbers.hpp>
#include <alibi/render/format.hpp>
#include <alibi/render/square_cells.hpp>
#include <alibi/render/ticks.hpp>

#include <QCoreApplication>
#include <QFontMetrics>
#include <QMouseEvent>
#include <QPainter>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>
#include <limits>

using namespace Qt::Literals::StringLiterals;

namespace alibi::qt {

// The bands above the picture, from the fonts (so a zoomed font moves them apart instead of
// onto each other): title, subtitle, a gap, the key ticks (the "key j" label on their line,
// right of the picture, so the cells get that line's height).
struct TopBands {
    int title, subtitle, keyLabel, ticks, area;
};

namespace {
const QString kMouseHint = u"wheel to zoom, drag to pan, double-click to fit"_s;
constexpr int kRight = 24, kBottom = 10, kBarWidth = 16, kBarGap = 16, kScrollBar = 6;

// The title and subtitle wrap onto as many lines as `width` needs (never elided).
TopBands topBands(const QFont& font, int width = 0, const QString& title = QString(),
                  const QString& subtitle = QString(), int cornerWidth = 0, int cornerHeight = 0) {
    QFont bold = font;
    bold.setBold(true);
    bold.setPointSizeF(font.pointSizeF() * 1.1);
    int titleHeight = QFontMetrics(bold).height() + 4;
    const int line = QFontMetrics(font).height() + 2;
    int subtitleHeight = line;
    if (width > 0) {
        titleHeight = std::max(
            {titleHeight,
             QFontMetrics(bold)
                     .boundingRect(QRect(0, 0, std::max(40, width - cornerWidth), 10000), Qt::TextWordWrap, title)
                     .height() +
                 4,
             cornerHeight - 4});
        subtitleHeight = std::max(
            line, QFontMetrics(font).boundingRect(QRect(0, 0, width, 10000), Qt::TextWordWrap, subtitle).height() + 2);
    }
    TopBands b{};
    b.title = 8;
    b.subtitle = b.title + titleHeight;
    b.ticks = b.subtitle + subtitleHeight + line / 4;
    b.keyLabel = b.ticks;
    b.area = b.ticks + line + 2;
    return b;
}

// Room for the rotated "query i" label and the widest row number.
int leftMargin(const QFont& font, std::int64_t queries) {
    const QFontMetrics fm(font);
    return fm.height() + 10 + fm.horizontalAdvance(QString::number(std::max<std::int64_t>(queries - 1, 0))) + 8;
}
}  // namespace

HeadDetailView::HeadDetailView(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);
    setMinimumSize(320, 240);
    setCursor(Qt::OpenHandCursor);
    m_stale = new StaleOverlay(this);
}

void HeadDetailView::markStale() {
    m_stale->markStale();
}

// The colour bar's column right of the cells: the gap, the bar, its labels (and the "key j"
// label on the tick line, which is as wide).
static int barColumn(const QFont& font) {
    const QFontMetrics fm(font);
    return kBarGap + kBarWidth + std::max(colorBarLabelRoom(fm), fm.horizontalAdvance(u"key j →"_s) + 8);
}

QFont HeadDetailView::textFont() const {
    // The plots' text scale (presentation mode scales plot text less than the lesson text): the
    // cells keep the height at a projector's size, where the numbers print.
    QFont f = font();
    const double scale = qApp->property("alibiPlotTextScale").toDouble();
    if (scale > 0 && scale != 1.0) f.setPointSizeF(f.pointSizeF() * std::clamp(scale, 0.25, 4.0));
    return f;
}

QRectF HeadDetailView::area() const {
    const int left = leftMargin(textFont(), m_queries), top = bands().area;
    return QRectF(left, top, std::max(10, width() - left - kRight - barColumn(textFont())),
                  std::max(10, height() - top - kBottom));
}

void HeadDetailView::fit() {
    if (m_queries <= 0 || m_keys <= 0) return;
    const QRectF a = area();
    m_cell = std::min(a.width() / static_cast<double>(m_keys), a.height() / static_cast<double>(m_queries));
    m_origin = QPointF(a.x() + (a.width() - m_cell * m_keys) / 2, a.y());
    m_fitted = true;
    // A lesson's marked cell in this head: its number and its neighbours' print at least at the
    // interface's normal size, with fewer cells shown around it (issue 27: at 1280x720 in
    // presentation mode lesson 1 step 2's 16 x 16 cells printed 6.5 pt numbers, unreadable on a
    // projector).
    if (!m_snapshot || m_lessonHead != m_snapshot->head || m_lessonQuery >= m_queries || m_lessonKey >= m_keys) return;
    // The core's rule for numbers in square cells (alibi/render/cell_numbers.hpp).
    const double need = cellForNumbers(m_snapshot->detailValues, probabilities(), numberFont(), kLessonNumberPt);
    if (need <= m_cell) return;
    // The core's zoom rule; numbers never smaller than kLessonNumberPt here (least = need: a
    // projector's reader, the lessons' 9 pt floor), where ImGui allows 3/4 of its size.
    m_cell = alibi::citedZoomCell(need, need, a.width(), a.height(), m_queries, m_keys);
    // Where the picture is larger than the area: whole cells from the area's start, the marked
    // one in the middle of them (the core's cellsAround, which the ImGui detail uses too; a
    // picture centred on the marked cell cut a column and a row at the edges: issue 27 L1). The
    // rest of the area's length, less than a cell, is left after the last one (the scroll bar).
    const auto place = [this](double start, double length, std::int64_t count, std::int64_t marked) {
        const double picture = m_cell * static_cast<double>(count);
        if (picture <= length) return start + (length - picture) / 2;
        return start - static_cast<double>(alibi::cellsAround(count, marked, length, m_cell).first) * m_cell;
    };
    m_origin =
        QPointF(place(a.x(), a.width(), m_keys, m_lessonKey), place(a.y(), a.height(), m_queries, m_lessonQuery));
}

QRectF HeadDetailView::wholeCells(const QRectF& a, Span& keys, Span& queries) const {
    // One dimension: the cells wholly inside [start, start + length) (half a pixel of slack),
    // or, where none is (a cell larger than the area), the ones the area cuts.
    const auto span = [this](double start, double length, double origin, std::int64_t count, Span& out, double& low,
                             double& high) {
        const double n = static_cast<double>(count);
        const auto index = [n](double v) { return static_cast<std::int64_t>(std::clamp(v, 0.0, n)); };
        out = {index(std::ceil((start - origin - 0.5) / m_cell)),
               index(std::floor((start + length - origin + 0.5) / m_cell))};
        if (out.last <= out.first)
            out = {index(std::floor((start - origin) / m_cell)), index(std::ceil((start + length - origin) / m_cell))};
        if (out.last <= out.first) {
            out = {};
            low = high = start;
            return;
        }
        low = std::max(start, origin + static_cast<double>(out.first) * m_cell);
        high = std::min(start + length, origin + static_cast<double>(out.last) * m_cell);
    };
    double left = 0, right = 0, top = 0, bottom = 0;
    span(a.x(), a.width(), m_origin.x(), m_keys, keys, left, right);
    span(a.y(), a.height(), m_origin.y(), m_queries, queries, top, bottom);
    if (keys.last <= keys.first || queries.last <= queries.first) {
        keys = queries = {};
        return {};
    }
    return QRectF(QPointF(left, top), QPointF(right, bottom));
}

NumberFont HeadDetailView::numberFont() const {
    const QFont f = textFont();
    const QFontMetricsF at(f);
    return {f.pointSizeF(), at.height(), [at](std::string_view t) {
                return at.horizontalAdvance(QString::fromUtf8(t.data(), static_cast<qsizetype>(t.size())));
            }};
}

bool HeadDetailView::probabilities() const {
    return m_snapshot && m_snapshot->grid->session.what == RenderWhat::Attention;
}

void HeadDetailView::resetView() {
    fit();
    update();
}

void HeadDetailView::resizeEvent(QResizeEvent*) {
    placeCorner();
    if (m_fitted) fit();
}

void HeadDetailView::setCornerWidget(QWidget* corner) {
    if (m_corner == corner) return;
    if (m_corner) m_corner->removeEventFilter(this);
    m_corner = corner;
    if (m_corner) {
        m_corner->setParent(this);
        m_corner->installEventFilter(this);
        m_corner->show();
    }
    placeCorner();
    fit();
    update();
}

bool HeadDetailView::eventFilter(QObject* watched, QEvent* event) {
    // The corner's size follows its font (presentation mode changes it): placed again, and the
    // bands follow.
    if (watched == m_corner && (event->type() == QEvent::LayoutRequest || event->type() == QEvent::FontChange)) {
        placeCorner();
        if (m_fitted) fit();
        update();
    }
    return QWidget::eventFilter(watched, event);
}

void HeadDetailView::placeCorner() {
    if (!m_corner) return;
    m_corner->resize(m_corner->sizeHint());
    m_corner->move(width() - m_corner->width() - 8, 4);
}

int HeadDetailView::cornerRoom() const {
    return m_corner ? m_corner->width() + 12 : 0;
}

void HeadDetailView::setPreview(SnapshotPtr preview) {
    setSnapshot(std::move(preview));
    if (m_snapshot) m_stale->showRefining();
}

void HeadDetailView::setSnapshot(SnapshotPtr snapshot) {
    m_snapshot = std::move(snapshot);
    if (!m_snapshot) return;
    m_stale->clear();
    const auto& bias = m_snapshot->grid->session.attention.bias;
    const bool reshaped = bias.queries != m_queries || bias.keyCount() != m_keys;
    m_queries = bias.queries;
    m_keys = bias.keyCount();
    m_image = toQImage(m_snapshot->detail.image);
    if (reshaped || m_fitted) fit();
    update();
}

void HeadDetailView::wheelEvent(QWheelEvent* event) {
    const double steps = event->angleDelta().y() / 120.0;
    if (steps == 0) return;
    const double factor = std::pow(1.25, steps);
    const double next = std::clamp(m_cell * factor, 1e-3, 400.0);
    const QPointF at = event->position();
    m_origin = at - (at - m_origin) * (next / m_cell);
    m_cell = next;
    m_fitted = false;
    update();
}

void HeadDetailView::mousePressEvent(QMouseEvent* event) {
    if (event->button() != Qt::LeftButton) return;
    m_dragging = true;
    m_dragStart = event->position();
    setCursor(Qt::ClosedHandCursor);
}

void HeadDetailView::mouseReleaseEvent(QMouseEvent*) {
    m_dragging = false;
    setCursor(Qt::OpenHandCursor);
}

void HeadDetailView::mouseDoubleClickEvent(QMouseEvent*) {
    resetView();
}

void HeadDetailView::mouseMoveEvent(QMouseEvent* event) {
    if (m_dragging) {
        m_origin += event->position() - m_dragStart;
        m_dragStart = event->position();
        m_fitted = false;
        update();
        return;
    }
    if (!m_snapshot) return;
    if (!m_cellsRect.contains(event->position())) {  // beside the shown cells (the scroll bars' room)
        emit cellHovered({});
        return;
    }
    const QPointF rel = (event->position() - m_origin) / m_cell;
    const auto j = static_cast<std::int64_t>(std::floor(rel.x()));
    const auto i = static_cast<std::int64_t>(std::floor(rel.y()));
    if (i < 0 || j < 0 || i >= m_queries || j >= m_keys) {
        emit cellHovered({});
        return;
    }
    emit cellHovered(
        cellDescription(m_snapshot->grid->session, m_snapshot->grid->slopes, m_snapshot->head, i, j, false));
    if (m_hoverTips)
        setToolTip(cellDescription(m_snapshot->grid->session, m_snapshot->grid->slopes, m_snapshot->head, i, j, true));
}

void HeadDetailView::setHoverTips(bool on) {
    m_hoverTips = on;
    if (!on) setToolTip(QString());
}

void HeadDetailView::setLessonCell(int head, std::int64_t query, std::int64_t key) {
    m_lessonHead = head;
    m_lessonQuery = query;
    m_lessonKey = key;
    if (m_fitted) fit();  // zoomed to the marked cell, or the whole head again
    update();
}

std::string HeadDetailView::shownSummary() const {
    const Heatmap& map = m_snapshot->detail;
    if (m_image.isNull() || m_keys <= 0 || m_queries <= 0) return map.summary;
    // The image holds m_keys cells in its width; on screen a cell is m_cell logical pixels.
    const double zoomX = m_cell * static_cast<double>(m_keys) / m_image.width();
    const double zoomY = m_cell * static_cast<double>(m_queries) / m_image.height();
    return alibi::heatmapSummary(map, m_snapshot->detailParams.what == RenderWhat::Attention, zoomX, zoomY);
}

QString HeadDetailView::titleText() const {
    if (!m_snapshot) return {};
    // The mouse hint only when it fits on the title's line: a presentation font gives its line
    // to the cells (the hint stays in the tooltip).
    const QString title = QString::fromStdString(m_snapshot->detailTitle);
    const QString withHint = title + u"  -  "_s + kMouseHint;
    QFont bold = textFont();
    bold.setBold(true);
    bold.setPointSizeF(textFont().pointSizeF() * 1.1);
    return QFontMetrics(bold).horizontalAdvance(withHint) <= width() - 24 - cornerRoom() ? withHint : title;
}

QString HeadDetailView::subtitleText() const {
    if (!m_snapshot || m_image.isNull()) return {};
    return headerBreaks(explore::heatmapTitle(m_snapshot->detailParams) + " · " + shownSummary());
}

TopBands HeadDetailView::bands() const {
    if (!m_snapshot) return topBands(textFont());
    return topBands(textFont(), width() - 24, titleText(), subtitleText(), cornerRoom(),
                    m_corner ? m_corner->height() : 0);
}

void HeadDetailView::paintScrollBars(QPainter& p, const QRectF& cells, Span keys, Span queries) {
    m_keyTrack = m_keyThumb = m_queryTrack = m_queryThumb = QRectF();
    if (cells.isEmpty()) return;
    // A track along the shown cells' edge and a thumb for the part shown, where the picture goes
    // on beyond them (issue 27 L1: a lesson's zoom showed rows 5-15 and keys 0-11 with nothing
    // saying that rows 0-4 and keys 12-15 lay beyond). Drawn in the gaps the layout leaves below
    // and right of the cells (kBottom, kBarGap); they show, dragging the cells pans.
    const auto thumb = [](double start, double length, Span s, std::int64_t count) {
        const double n = static_cast<double>(count);
        const double size = std::max(8.0, length * static_cast<double>(s.last - s.first) / n);
        const double at = start + (length - size) * static_cast<double>(s.first) /
                                      std::max(1.0, n - static_cast<double>(s.last - s.first));
        return std::pair{at, size};
    };
    const QColor track = palette().color(QPalette::Midlight);
    QColor handle = palette().color(QPalette::WindowText);
    handle.setAlpha(140);  // a handle, lighter than the text and the cells' numbers
    p.save();
    p.setPen(Qt::NoPen);
    p.setRenderHint(QPainter::Antialiasing, true);
    if (keys.first > 0 || keys.last < m_keys) {
        m_keyTrack = QRectF(cells.left(), cells.bottom() + 2, cells.width(), kScrollBar);
        const auto [x, w] = thumb(cells.left(), cells.width(), keys, m_keys);
        m_keyThumb = QRectF(x, m_keyTrack.top(), w, kScrollBar);
    }
    if (queries.first > 0 || queries.last < m_queries) {
        m_queryTrack = QRectF(cells.right() + 3, cells.top(), kScrollBar, cells.height());
        const auto [y, h] = thumb(cells.top(), cells.height(), queries, m_queries);
        m_queryThumb = QRectF(m_queryTrack.left(), y, kScrollBar, h);
    }
    for (const auto& [rect, colour] : {std::pair{m_keyTrack, track}, std::pair{m_queryTrack, track},
                                       std::pair{m_keyThumb, handle}, std::pair{m_queryThumb, handle}}) {
        if (rect.isEmpty()) continue;
        p.setBrush(colour);
        p.drawRoundedRect(rect, kScrollBar / 2.0, kScrollBar / 2.0);
    }
    p.restore();
}

void HeadDetailView::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().color(QPalette::Base));
    if (!m_snapshot || m_image.isNull()) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter, u"Computing…"_s);
        return;
    }
    if (!m_fitted && m_cell <= 0) fit();
    const Session& s = m_snapshot->grid->session;

    QFont title = textFont();
    title.setBold(true);
    title.setPointSizeF(textFont().pointSizeF() * 1.1);
    beginPaintedTexts(this);
    m_colorBarRect = m_lessonCellRect = m_lessonFrameRect = m_titleBox = m_subtitleBox = QRectF();
    const TopBands bands = this->bands();
    const int line = QFontMetrics(textFont()).height() + 2;
    p.setFont(title);
    p.setPen(palette().color(QPalette::WindowText));
    // Wrapped (the bands make room), so a large (presentation) font loses no word.
    m_titleBox = QRect(12, bands.title, width() - 24 - cornerRoom(), bands.subtitle - bands.title);
    drawRecordedText(p, this, m_titleBox, Qt::AlignLeft | Qt::AlignVCenter | Qt::TextWordWrap, titleText());
    p.setFont(textFont());
    p.setPen(palette().color(QPalette::PlaceholderText));
    // The whole band topBands gave the subtitle (its lines' full height, descent and underscores
    // included): QPainter clips a text to its rectangle, and a quarter line less cut the "_" of
    // "max_bias" at 1920x1080 presentation (s39 F6). The gap before the ticks stays below it.
    m_subtitleBox = QRect(12, bands.subtitle, width() - 24, bands.keyLabel - line / 4 - bands.subtitle);
    drawRecordedText(p, this, m_subtitleBox, Qt::AlignLeft | Qt::AlignVCenter | Qt::TextWordWrap, subtitleText());

    const QRectF a = area();
    const QRectF target(m_origin, QSizeF(m_cell * m_keys, m_cell * m_queries));
    // Only whole cells (each with its header and its number); the picture's edge where it is shown.
    Span keys, queries;
    const QRectF cells = wholeCells(a, keys, queries);
    m_shownKeys = keys;
    m_shownQueries = queries;
    m_cellsRect = cells;
    p.save();
    p.setClipRect(cells);
    p.setRenderHint(QPainter::SmoothPixmapTransform, false);
    p.drawImage(target, m_image);

    // Every cell's number when cells are large enough to read and values were fetched.
    const auto& values = m_snapshot->detailValues;
    m_numberPt = 0;
    // A lesson's marked cell prints its number after its frame, inside it (issue 27: the frame
    // hid the minus and the last digit of lesson 1 step 2's "-1.00").
    const bool marking =
        m_lessonHead >= 0 && m_lessonHead == m_snapshot->head && m_lessonQuery < m_queries && m_lessonKey < m_keys;
    QString markedText;
    QFont markedFont;
    QColor markedPen;
    if (!values.empty() && m_cell >= 26) {
        QFont f = textFont();
        const bool probability = probabilities();
        const auto numbersAt = [&](const QFont& font, double room) {
            const QFontMetricsF at(font);
            return cellNumberTexts(
                values, probability,
                [&at](std::string_view t) {
                    return at.horizontalAdvance(QString::fromUtf8(t.data(), static_cast<qsizetype>(t.size())));
                },
                room);
        };
        // As the core's rule says (numberSizeForCell), up to the view's own font size (presentation mode makes it
        // larger). Where even 6.5 pt is too large, the core drops decimals for the whole head.
        f.setPointSizeF(std::clamp(numberSizeForCell(values, probability, numberFont(), m_cell), 6.5,
                                   std::max(12.0, textFont().pointSizeF())));
        // A marked cell's number goes inside its frame (a line of 3 px at least either side):
        // every number of the head gets that room, so the cited one prints at its neighbours'
        // size and with their decimals (at 1920x1080 the cited "-1.000" shrank to fit: s40 F5).
        // Where the cells are too small for that (lesson 4 step 5's 32.6 px), the cells' own room,
        // and the cited number shrinks into its frame.
        // The room across a cell (the core's numberRoom), less a marked cell's frame when `framed`.
        const auto numbersIn = [&](const QFont& font, bool framed) {
            return numbersAt(font, numberRoom(m_cell, QFontMetricsF(font).height()) - (framed ? 2 * 3.0 : 0.0));
        };
        auto numbers = numbersIn(f, marking);
        if (!numbers && marking) numbers = numbersIn(f, false);
        // The size numberSizeForCell scaled from the view's font can come out a fraction of a pixel
        // too wide at this size (font hinting): under X at 1280x720 presentation, lesson 4 step 5's
        // 32.2 px cells printed no number at 11.05 pt. A little smaller, down to the floor.
        while (!numbers && f.pointSizeF() > 6.5) {
            f.setPointSizeF(std::max(6.5, f.pointSizeF() * 0.95));
            numbers = numbersIn(f, marking);
            if (!numbers && marking) numbers = numbersIn(f, false);
        }
        m_numberPt = numbers ? f.pointSizeF() : 0;
        p.setFont(f);
        for (std::int64_t i = queries.first; numbers && i < queries.last; ++i) {
            for (std::int64_t j = keys.first; j < keys.last; ++j) {
                const std::size_t n = static_cast<std::size_t>(i * m_keys + j);
                if (std::isnan(values[n])) continue;
                const QRectF cell(m_origin.x() + j * m_cell, m_origin.y() + i * m_cell, m_cell, m_cell);
                // Whole cells only: a cell cut by the area's edge (a cell larger than the area)
                // would print a cut number ("-0." for "-0.13").
                if (!cells.adjusted(-0.5, -0.5, 0.5, 0.5).contains(cell)) continue;
                const int px = static_cast<int>(static_cast<double>(j) * m_image.width() / m_keys);
                const int py = static_cast<int>(static_cast<double>(i) * m_image.height() / m_queries);
                if (marking && i == m_lessonQuery && j == m_lessonKey) {
                    markedText = QString::fromStdString(numbers->texts[n]);
                    markedFont = f;
                    markedPen = contrastingText(m_image.pixelColor(px, py));
                    continue;
                }
                p.setPen(contrastingText(m_image.pixelColor(px, py)));
                drawRecordedText(p, this, cell, Qt::AlignCenter, QString::fromStdString(numbers->texts[n]));
            }
        }
        p.setFont(textFont());
    }
    // Grid lines between cells when they are big.
    if (m_cell >= 12) {
        p.setPen(QPen(QColor(0, 0, 0, 40), 1));
        for (std::int64_t j = keys.first; j <= keys.last; ++j)
            p.drawLine(QPointF(target.x() + j * m_cell, target.top()),
                       QPointF(target.x() + j * m_cell, target.bottom()));
        for (std::int64_t i = queries.first; i <= queries.last; ++i)
            p.drawLine(QPointF(target.left(), target.y() + i * m_cell),
                       QPointF(target.right(), target.y() + i * m_cell));
    }
    m_lessonNumberRect = QRectF();
    m_lessonNumberPt = 0;
    if (marking) {
        // A lesson's marked cell: an orange frame (with a dark edge so it shows on any colour).
        double pen = std::max(3.0, QFontMetrics(textFont()).height() / 5.0);
        // No wider than the room its number leaves in the cell: at 1920x1080 in presentation the
        // frame took 7 px a side of a 55 px cell and its "-1.000" shrank to two thirds of its
        // neighbours' size (s40 review F5), the one number the step is about. At least a 1 px
        // orange line with its dark edge.
        if (!markedText.isEmpty()) {
            const double text = QFontMetricsF(markedFont).horizontalAdvance(markedText);
            const double side = (m_cell - text) / 2 - 1;  // either side of the number
            pen = std::clamp(side - 2, 1.0, pen);
        }
        const QRectF cell(m_origin.x() + m_lessonKey * m_cell, m_origin.y() + m_lessonQuery * m_cell, m_cell, m_cell);
        m_lessonCellRect = cell & cells;
        // Inside the cell (over the frame line at most): a frame centred on the cell's edge
        // covered the last digit of the neighbour's number ("-1.13" read "-1.1").
        const double inset = std::min((pen + 2) / 2, m_cell / 4);
        const QRectF frame = cell.adjusted(inset, inset, -inset, -inset);
        p.setBrush(Qt::NoBrush);
        p.setPen(QPen(QColor(0, 0, 0, 200), pen + 2));
        p.drawRect(frame);
        p.setPen(QPen(QColor(255, 140, 0), pen));
        p.drawRect(frame);
        m_lessonFrameRect = frame.adjusted(-(pen + 2) / 2, -(pen + 2) / 2, (pen + 2) / 2, (pen + 2) / 2);
        m_lessonFrameLine = pen + 2;
        if (!markedText.isEmpty()) {
            // Its number in the frame's clear inside, a smaller font where the cell's own does
            // not fit there (never under the frame's line).
            const QRectF inner = frame.adjusted((pen + 2) / 2, (pen + 2) / 2, -(pen + 2) / 2, -(pen + 2) / 2);
            while (QFontMetricsF(markedFont).horizontalAdvance(markedText) > inner.width() - 1 &&
                   markedFont.pointSizeF() > 5)
                markedFont.setPointSizeF(markedFont.pointSizeF() * 0.95);
            const double w = QFontMetricsF(markedFont).horizontalAdvance(markedText);
            const double h = QFontMetricsF(markedFont).height();
            m_lessonNumberRect = QRectF(inner.center().x() - w / 2, inner.center().y() - h / 2, w, h);
            m_lessonNumberPt = markedFont.pointSizeF();
            p.setFont(markedFont);
            p.setPen(markedPen);
            drawRecordedText(p, this, m_lessonNumberRect, Qt::AlignCenter, markedText);
            p.setFont(textFont());
        }
    }
    p.restore();
    paintScrollBars(p, cells, keys, queries);

    // Axis ticks: keys along the top, queries down the left.
    p.setPen(palette().color(QPalette::WindowText));
    const QFontMetrics fm(textFont());
    const double minSpacing = 36;
    // Right of the last key tick, "key j →" (barX below): a tick stops short of it.
    // The shown cells' edge (the area's where none is shown).
    const double cellsRight = cells.isEmpty() ? std::min(target.right(), a.right()) : cells.right();
    const double cellsLeft = cells.isEmpty() ? a.left() : cells.left();
    const double keyLabelX = cellsRight + kBarGap - 8;
    for (std::int64_t j : alibi::indexTicks(m_keys, m_cell, minSpacing)) {
        const double x = m_origin.x() + (j + 0.5) * m_cell;
        if (j < keys.first || j >= keys.last || x + fm.horizontalAdvance(QString::number(j)) / 2.0 + 4 > keyLabelX)
            continue;
        drawRecordedText(p, this, QRectF(x - 40, bands.ticks, 80, line), Qt::AlignCenter, QString::number(j));
    }
    for (std::int64_t i : alibi::indexTicks(m_queries, m_cell, line + 4)) {
        const double y = m_origin.y() + (i + 0.5) * m_cell;
        if (i < queries.first || i >= queries.last) continue;
        // Right-aligned against the shown cells, not the area's edge: a picture narrower than
        // the area is centred in it, and its row numbers stood 130 px away (s40 review L6).
        drawRecordedText(p, this, QRectF(4, y - line / 2.0, cellsLeft - 10, line), Qt::AlignRight | Qt::AlignVCenter,
                         QString::number(i));
    }
    // "key j →" on the tick line, right of the picture (over the colour bar's column).
    const double barX = cellsRight + kBarGap;
    drawRecordedText(p, this, QRectF(barX - 8, bands.ticks, width() - barX, line), Qt::AlignLeft | Qt::AlignVCenter,
                     u"key j →"_s);
    // The colour bar beside the cells (the numbers in them are rounded; the bar gives the
    // scale when they are too small to print).
    const alibi::ColorBar colorBar = alibi::heatmapColorBar(m_snapshot->detail, m_snapshot->detailParams, -1, 5);
    const int above = colorBarTitleRoom(fm), below = colorBarKeyRoom(fm, m_snapshot->detail.fullyMaskedRows);
    const double shown = (cells.isEmpty() ? std::min(target.bottom(), a.bottom()) : cells.bottom()) - a.top();
    // As tall as the cells shown, and at least 160 px where the view has the room (a short,
    // wide picture such as Q = 4 would leave a stub of a bar).
    const int room = static_cast<int>(a.height()) - above - below;
    const QRect bar(static_cast<int>(barX), static_cast<int>(a.top()) + above, kBarWidth,
                    std::max({40, static_cast<int>(shown) - above - below, std::min(160, room)}));
    paintColorBar(p, bar, colorBar, s.colormap, palette(), width() - bar.right() - 8);
    m_colorBarRect = bar;
    // Turned clockwise, so the text reads downwards and its arrow points the way i grows.
    p.save();
    // Beside the row numbers, halfway down the rows shown (it stood beside empty space under
    // lesson 4 step 5's 4 rows: s40 review L4).
    const double rowNumbers = fm.horizontalAdvance(QString::number(std::max<std::int64_t>(m_queries - 1, 0)));
    p.translate(std::max(4 + line / 2.0, cellsLeft - 10 - rowNumbers - 6 - line / 2.0),
                cells.isEmpty() ? a.center().y() : cells.center().y());
    p.rotate(90);
    drawRecordedText(p, this, QRectF(-100, -line / 2.0, 200, line), Qt::AlignCenter, u"query i →"_s);
    p.restore();
}

}  // namespace alibi::qt
