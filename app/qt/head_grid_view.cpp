// Head grid view: paints the core's image 1:1 in device pixels and draws labels over it.
#include "head_grid_view.hpp"

#include "view_util.hpp"

#include <alibi/explore/progress_text.hpp>
#include <alibi/render/color_scale.hpp>
#include <alibi/render/format.hpp>
#include <alibi/render/tile_labels.hpp>

#include <QCheckBox>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QTimer>
#include <QToolTip>

#include <cmath>

using namespace Qt::Literals::StringLiterals;

namespace alibi::qt {

namespace {
constexpr int kMargin = 12;
constexpr int kBarWidth = 16;

QFont titleFont(const QFont& font) {
    QFont title = font;
    title.setBold(true);
    title.setPointSizeF(font.pointSizeF() * 1.1);
    return title;
}

// The header's lines and the colour bar's column follow the font (presentation mode is 175 %):
// fixed pixel heights let the subtitle overlap the title and cut its descenders. The title
// wraps onto a second line and the subtitle onto as many as it needs: never elided.
struct HeaderMetrics {
    int title = 0;      // the title's line(s)
    int subtitle = 0;   // each subtitle line
    int header = 0;     // the title and the subtitle lines (two at least, so the image keeps its place)
    int barArea = 0;    // colour bar plus its labels
    QStringList lines;  // the subtitle's lines
};

// The subtitle in lines, broken after a " · " where the next part would not fit; the last line
// is `lastWidth` wide (the log-colours box sits at its right). A part wider than a line gets a
// line of its own and wraps at its spaces (its height then counts as more lines).
QStringList wrapSubtitle(const QString& text, const QFontMetrics& fm, int width, int lastWidth) {
    const QString separator = u" · "_s;
    QStringList lines{QString()};
    for (const QString& part : text.split(separator)) {
        QString& line = lines.back();
        const QString joined = line.isEmpty() ? part : line + separator + part;
        if (line.isEmpty() || fm.horizontalAdvance(joined) <= width)
            line = joined;
        else
            lines.append(part);
    }
    // The last line leaves room for the box: when it does not fit there, a line of its own.
    if (lines.size() >= 1 && fm.horizontalAdvance(lines.back()) > lastWidth && lastWidth < width) {
        const qsizetype cut = lines.back().lastIndexOf(separator);
        if (cut > 0) {
            const QString tail = lines.back().mid(cut + separator.size());
            lines.back().truncate(cut);
            lines.append(tail);
        }
    }
    return lines;
}

HeaderMetrics headerMetrics(const QFont& font, int width = 0, const QString& title = QString(),
                            const QString& subtitle = QString(), int lastWidth = 0) {
    const QFontMetrics fm(font);
    const QFontMetrics tfm(titleFont(font));
    HeaderMetrics m;
    m.title = tfm.height() + 4;
    m.subtitle = fm.height() + 2;
    int subtitleHeight = 2 * m.subtitle;
    if (width > 0) {
        if (!title.isEmpty())
            m.title = tfm.boundingRect(QRect(0, 0, width, 10000), Qt::TextWordWrap, title).height() + 4;
        m.lines = wrapSubtitle(subtitle, fm, width, lastWidth);
        int lines = 0;
        for (const QString& line : m.lines)
            lines += std::max(1, fm.boundingRect(QRect(0, 0, width, 10000), Qt::TextWordWrap, line).height() /
                                     std::max(1, fm.height()));
        subtitleHeight = std::max(2, lines) * m.subtitle;
    }
    m.header = m.title + subtitleHeight + 4;
    m.barArea = 16 + kBarWidth + colorBarLabelRoom(fm);
    return m;
}
}  // namespace

HeadGridView::HeadGridView(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);
    setMinimumSize(320, 240);
    setAttribute(Qt::WA_OpaquePaintEvent, false);
    m_staleTimer = new QTimer(this);
    m_staleTimer->setSingleShot(true);
    m_staleTimer->setInterval(60);
    connect(m_staleTimer, &QTimer::timeout, this, [this] {
        if (!m_staleAsked) return;
        m_stale = true;
        update();
    });
    m_log = new QCheckBox(u"log colours"_s, this);
    m_log->setToolTip(u"Attention: colours on a log10 scale (probabilities span many orders of magnitude)"_s);
    m_log->setVisible(false);
    connect(m_log, &QCheckBox::toggled, this, &HeadGridView::logScaleToggled);
}

void HeadGridView::markStale() {
    m_staleAsked = true;
    m_progress = -1;
    m_refining = false;
    m_sinceChange.start();
    if (!m_staleTimer->isActive() && !m_stale) m_staleTimer->start();
}

void HeadGridView::setProgress(double fraction) {
    m_progress = fraction;
    if (m_stale || m_refining || !m_grid) update();
}

static HeaderMetrics HeadGridView_header(const HeadGridView& view, const QFont& font, const GridPtr& grid,
                                         int logWidth) {
    const int headerWidth = view.width() - 2 * kMargin;
    if (!grid) return headerMetrics(font);
    return headerMetrics(font, headerWidth, QString::fromStdString(grid->title), QString::fromStdString(grid->subtitle),
                         headerWidth - logWidth);
}

QRect HeadGridView::imageRect() const {
    const HeaderMetrics m = HeadGridView_header(*this, font(), m_grid, m_log->isVisible() ? m_log->width() + 8 : 0);
    return QRect(kMargin, kMargin + m.header, std::max(16, width() - 2 * kMargin - m.barArea),
                 std::max(16, height() - 2 * kMargin - m.header));
}

QFont HeadGridView::labelFont() const {
    QFont f = font();
    f.setPointSizeF(font().pointSizeF() * 0.9);
    return f;
}

int HeadGridView::labelBand() const {
    return static_cast<int>(std::lround((QFontMetrics(labelFont()).height() + 4) * devicePixelRatioF()));
}

QSize HeadGridView::imagePixels() const {
    const double dpr = devicePixelRatioF();
    const QRect r = imageRect();
    return QSize(static_cast<int>(std::floor(r.width() * dpr)), static_cast<int>(std::floor(r.height() * dpr)));
}

void HeadGridView::setGrid(GridPtr grid) {
    const QRect before = imageRect();
    m_grid = std::move(grid);
    m_image = m_grid ? toQImage(m_grid->grid.image, m_grid->devicePixelRatio) : QImage();
    m_staleAsked = m_stale = false;
    m_staleTimer->stop();
    // A preview keeps its progress (and the estimate's clock) until the exact grid replaces it.
    m_refining = m_grid && m_grid->grid.rowStep > 1;
    if (!m_refining) m_progress = -1;
    if (m_grid) {
        const bool attention = m_grid->gridParams.what == RenderWhat::Attention;
        m_log->setVisible(attention);
        QSignalBlocker block(m_log);
        m_log->setChecked(m_grid->grid.log);
    }
    // A title or subtitle on more (or fewer) lines moves the image: ask for one of the new size.
    if (imageRect() != before) resizeEvent(nullptr);
    update();
}

void HeadGridView::swapGridForExport(GridPtr grid) {
    m_grid = std::move(grid);
    m_image = m_grid ? toQImage(m_grid->grid.image, m_grid->devicePixelRatio) : QImage();
}

void HeadGridView::setHighlightedHead(int head) {
    if (head == m_highlight) return;
    m_highlight = head;
    update();
}

void HeadGridView::setLessonMark(LessonMark mark) {
    m_lesson = std::move(mark);
    update();
}

void HeadGridView::setSelectedHead(int head) {
    if (head == m_selected) return;
    m_selected = head;
    update();
}

void HeadGridView::resizeEvent(QResizeEvent*) {
    m_log->adjustSize();
    m_log->move(width() - kMargin - m_log->width(),
                kMargin +
                    HeadGridView_header(*this, font(), m_grid, m_log->isVisible() ? m_log->width() + 8 : 0).header -
                    m_log->height() - 2);
    emit pixelSizeChanged(imagePixels(), devicePixelRatioF(), labelBand());
}

void HeadGridView::changeEvent(QEvent* event) {
    QWidget::changeEvent(event);
    // A new font (zoom, presentation) moves the header's lines and the image's room.
    if (event->type() == QEvent::FontChange) resizeEvent(nullptr);
}

std::optional<CellHit> HeadGridView::hitAt(QPointF pos) const {
    if (!m_grid || m_image.isNull()) return std::nullopt;
    const QRect r = imageRect();
    const double dpr = m_grid->devicePixelRatio;
    const int x = static_cast<int>(std::floor((pos.x() - r.x()) * dpr));
    const int y = static_cast<int>(std::floor((pos.y() - r.y()) * dpr));
    if (x < 0 || y < 0 || x >= m_grid->grid.image.width || y >= m_grid->grid.image.height) return std::nullopt;
    return hitTest(m_grid->grid, m_grid->gridParams, x, y);
}

void HeadGridView::mouseMoveEvent(QMouseEvent* event) {
    const auto hit = hitAt(event->position());
    if (!hit) {
        QToolTip::hideText();
        emit cellHovered({});
        emit headHovered(-1);
        return;
    }
    emit headHovered(hit->head);
    emit cellHovered(cellDescription(m_grid->session, m_grid->slopes, hit->head, hit->query, hit->key, false));
    if (!m_hoverTips) return;
    QToolTip::showText(event->globalPosition().toPoint(),
                       cellDescription(m_grid->session, m_grid->slopes, hit->head, hit->query, hit->key, true), this);
}

void HeadGridView::mousePressEvent(QMouseEvent* event) {
    if (event->button() != Qt::LeftButton) return;
    if (const auto hit = hitAt(event->position())) emit headClicked(hit->head);
}

void HeadGridView::leaveEvent(QEvent*) {
    emit cellHovered({});
    emit headHovered(-1);
}

void HeadGridView::paintColorBar(QPainter& p, const QRect& bar) {
    if (!m_grid) return;
    // Per-head scale: the bar shows the hovered (else selected, else first) tile's own range;
    // every tile also carries its range in its label.
    int tile = -1;
    if (m_grid->session.scale == ScaleMode::PerHead && !m_grid->grid.tiles.empty()) {
        const int want = m_highlight >= 0 ? m_highlight : std::max(m_selected, 0);
        for (std::size_t t = 0; t < m_grid->grid.tiles.size(); ++t)
            if (m_grid->grid.tiles[t].head == want) tile = static_cast<int>(t);
        if (tile < 0) tile = 0;
    }
    // Below the bar: the masked swatch, and the fully-masked-row swatch when the grid has such rows.
    const QFontMetrics fm(p.font());
    const int above = colorBarTitleRoom(fm);
    const int below = colorBarKeyRoom(fm, m_grid->grid.fullyMaskedRows);
    const QRect barRect(bar.x(), bar.y() + above, kBarWidth, std::max(16, bar.height() - above - below));
    const int ticks = std::clamp(barRect.height() / std::max(60, 3 * fm.height()), 2, 10);
    const alibi::ColorBar colorBar = alibi::heatmapColorBar(m_grid->grid, m_grid->gridParams, tile, ticks);
    qt::paintColorBar(p, barRect, colorBar, m_grid->session.colormap, palette(),
                      headerMetrics(font()).barArea - kBarWidth - 8);
}

// A lesson's outline is orange and thicker than the hover highlight, so it reads on a projector;
// the marked cell is framed in the same colour (at least 7 px, however small the cell).
void HeadGridView::paintLessonMark(QPainter& p, const HeatmapTile& t, const QRectF& tr) const {
    if (!m_grid || (m_lesson.heads.empty() && m_lesson.cellHead < 0)) return;
    const QColor orange(255, 140, 0);
    const double pen = std::max(3.0, fontMetrics().height() / 5.0);
    if (std::find(m_lesson.heads.begin(), m_lesson.heads.end(), t.head) != m_lesson.heads.end()) {
        p.setPen(QPen(orange, pen));
        p.setBrush(Qt::NoBrush);
        p.drawRect(tr.adjusted(-pen / 2 - 1, -pen / 2 - 1, pen / 2 + 1, pen / 2 + 1));
    }
    const std::int64_t Q = m_grid->gridParams.attention.bias.queries, K = m_grid->gridParams.attention.bias.keyCount();
    if (t.head != m_lesson.cellHead || m_lesson.query >= Q || m_lesson.key >= K || Q <= 0 || K <= 0) return;
    // Cell c of n covers [c * size / n, (c + 1) * size / n) of its tile (render.cpp's pixelCells).
    const double x0 = tr.x() + tr.width() * static_cast<double>(m_lesson.key) / static_cast<double>(K);
    const double x1 = tr.x() + tr.width() * static_cast<double>(m_lesson.key + 1) / static_cast<double>(K);
    const double y0 = tr.y() + tr.height() * static_cast<double>(m_lesson.query) / static_cast<double>(Q);
    const double y1 = tr.y() + tr.height() * static_cast<double>(m_lesson.query + 1) / static_cast<double>(Q);
    QRectF cell(x0, y0, x1 - x0, y1 - y0);
    const double grow = std::max(0.0, (7.0 - std::min(cell.width(), cell.height())) / 2);
    cell.adjust(-grow, -grow, grow, grow);
    p.setBrush(Qt::NoBrush);
    p.setPen(QPen(QColor(0, 0, 0, 200), pen + 2));
    p.drawRect(cell);
    p.setPen(QPen(orange, pen));
    p.drawRect(cell);
}

void HeadGridView::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().color(QPalette::Base));
    if (!m_grid) {
        // The first picture of a costly view: its progress and estimate too (issue 26).
        if (!m_sinceChange.isValid()) m_sinceChange.start();
        const QString text = QString::fromStdString(
            explore::progressText(explore::ProgressPhase::Computing, m_progress,
                                  explore::secondsLeft(m_sinceChange.elapsed() / 1000.0, m_progress)));
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter, text);
        return;
    }
    // Moved to a screen with another scale: ask for an image at the new device-pixel size.
    if (m_grid->devicePixelRatio != devicePixelRatioF())
        QMetaObject::invokeMethod(
            this, [this] { emit pixelSizeChanged(imagePixels(), devicePixelRatioF(), labelBand()); },
            Qt::QueuedConnection);
    const QRect r = imageRect();

    // Header: what is drawn (the core's title of the snapshot, not of the pending parameters).
    beginPaintedTexts(this);
    // The log-colours box sits at the right of the header's last line; the lines above use the whole width.
    const HeaderMetrics metrics =
        HeadGridView_header(*this, font(), m_grid, m_log->isVisible() ? m_log->width() + 8 : 0);
    const QFont title = titleFont(font());
    p.setFont(title);
    p.setPen(palette().color(QPalette::WindowText));
    const QString header = QString::fromStdString(m_grid->title);
    const int headerWidth = width() - 2 * kMargin;
    drawRecordedText(p, this, QRect(kMargin, kMargin, headerWidth, metrics.title),
                     Qt::AlignLeft | Qt::AlignVCenter | Qt::TextWordWrap, header);
    p.setFont(font());
    p.setPen(palette().color(QPalette::PlaceholderText));
    int lineTop = kMargin + metrics.title;
    for (const QString& line : metrics.lines) {
        const int h =
            std::max(1, fontMetrics().boundingRect(QRect(0, 0, headerWidth, 10000), Qt::TextWordWrap, line).height() /
                            std::max(1, fontMetrics().height())) *
            metrics.subtitle;
        drawRecordedText(p, this, QRect(kMargin, lineTop, headerWidth, h),
                         Qt::AlignLeft | Qt::AlignVCenter | Qt::TextWordWrap, line);
        lineTop += h;
    }
    p.setPen(palette().color(QPalette::WindowText));

    // The image at 1:1 device pixels (scaled only while a resize is in flight).
    const QSizeF logical = m_image.deviceIndependentSize();
    p.drawImage(QRectF(r.topLeft(), logical.boundedTo(QSizeF(r.size()))), m_image,
                QRectF(0, 0, std::min<double>(m_image.width(), r.width() * m_grid->devicePixelRatio),
                       std::min<double>(m_image.height(), r.height() * m_grid->devicePixelRatio)));

    // Head labels over the tiles.
    const double dpr = m_grid->devicePixelRatio;
    p.setRenderHint(QPainter::Antialiasing, true);
    const QFontMetrics fm(labelFont());
    p.setFont(labelFont());
    // The labels sit in the band the core left above every tile (HeatmapParams::labelBand): the
    // placement keeps less than asked in a short picture (a quarter of a row at most), and the
    // first row's top is what it kept (Baichuan-13B's 40 heads at 1280x720 in presentation drew
    // 26 px labels into a 10 px band, over the row above).
    int kept = m_grid->gridParams.labelBand;
    for (const HeatmapTile& t : m_grid->grid.tiles) kept = std::min(kept, t.y);
    const double band = std::max(kept, 0) / dpr;
    const bool perHead = m_grid->session.scale == ScaleMode::PerHead && m_grid->grid.tiles.size() > 1;
    // Each tile's label forms and the one form the whole grid takes are the core's
    // (tileLabelForms, chooseTileLabels: no tile reads "h3" beside "h2  m = 1/8", issue 27); Qt
    // only measures them with its font against the tile.
    const std::size_t tileCount = m_grid->grid.tiles.size();
    std::vector<std::vector<std::string>> forms(tileCount);
    std::vector<QRectF> tileRects(tileCount);
    for (std::size_t n = 0; n < tileCount; ++n) {
        const HeatmapTile& t = m_grid->grid.tiles[n];
        tileRects[n] = QRectF(r.x() + t.x / dpr, r.y() + t.y / dpr, t.width / dpr, t.height / dpr);
        alibi::TileLabelParts parts;
        parts.head = t.head;
        if (t.head >= 0 && t.head < static_cast<int>(m_grid->slopes.size()))
            parts.slope = m_grid->slopes[static_cast<std::size_t>(t.head)];
        if (perHead) {
            // Each tile's own colour range, exact ends as on the bar.
            const alibi::ColorBar own =
                alibi::heatmapColorBar(m_grid->grid, m_grid->gridParams, static_cast<int>(n), 2);
            if (!own.ticks.empty()) parts.range = "[" + own.ticks.front().label + ", " + own.ticks.back().label + "]";
        }
        forms[n] = alibi::tileLabelForms(parts);
    }
    const std::vector<std::string> chosen = alibi::chooseTileLabels(forms, [&](std::size_t n, const std::string& text) {
        const QRectF& tr = tileRects[n];
        // A tile too small for any label is left out of the choice (it shows none).
        if (tr.width() < 24 || tr.height() < 16) return true;
        return fm.horizontalAdvance(QString::fromStdString(text)) + 10 <= tr.width();
    });
    m_tileLabels.assign(tileCount, QString());
    for (int tileIndex = 0; tileIndex < static_cast<int>(tileCount); ++tileIndex) {
        const HeatmapTile& t = m_grid->grid.tiles[static_cast<std::size_t>(tileIndex)];
        const QRectF tr = tileRects[static_cast<std::size_t>(tileIndex)];
        if (t.head == m_selected || t.head == m_highlight) {
            QPen pen(
                t.head == m_highlight ? palette().color(QPalette::Highlight) : palette().color(QPalette::WindowText),
                t.head == m_highlight ? 3 : 1.5, t.head == m_highlight ? Qt::SolidLine : Qt::DashLine);
            p.setPen(pen);
            p.setBrush(Qt::NoBrush);
            p.drawRect(tr.adjusted(-1.5, -1.5, 1.5, 1.5));
        }
        paintLessonMark(p, t, tr);
        if (tr.width() < 24 || tr.height() < 16) continue;
        const QString label = QString::fromStdString(chosen[static_cast<std::size_t>(tileIndex)]);
        if (tileCount > 1) m_tileLabels[static_cast<std::size_t>(tileIndex)] = label;
        if (band >= fm.height() && m_grid->grid.tiles.size() > 1) {
            p.setPen(palette().color(QPalette::WindowText));
            // Recorded, so the layout check sees a label over another tile's cells or text.
            drawRecordedText(p, this, QRectF(tr.x(), tr.y() - band, tr.width(), band), Qt::AlignLeft | Qt::AlignVCenter,
                             label);
        } else if (m_grid->grid.tiles.size() > 1) {
            // No band (many heads in a short room, the core's squareCellGrid; or an image from
            // before the font changed): the label goes over the tile's own corner, the masked one
            // (top right) where the mode masks keys after the query, inside the tile.
            const QSizeF size(fm.horizontalAdvance(label) + 10, fm.height() + 4);
            // A label that would hide more than half the tile's height is left out (the read-out
            // and the tooltip name the head).
            if (size.width() > tr.width() || 2 * size.height() > tr.height()) {
                m_tileLabels[static_cast<std::size_t>(tileIndex)].clear();
                continue;
            }
            const BiasMode mode = m_grid->session.attention.bias.mode;
            const bool maskedCorner = mode != BiasMode::Symmetric && mode != BiasMode::Clamped;
            const double inset = std::min(4.0, (tr.width() - size.width()) / 2);
            const double insetY = std::min(4.0, (tr.height() - size.height()) / 2);
            const QRectF box(maskedCorner ? tr.right() - inset - size.width() : tr.x() + inset, tr.y() + insetY,
                             size.width(), size.height());
            p.setPen(Qt::NoPen);
            p.setBrush(QColor(0, 0, 0, 150));
            p.drawRoundedRect(box, 4, 4);
            p.setPen(QColor(255, 255, 255));
            drawRecordedText(p, this, box, Qt::AlignCenter, label);
        }
    }
    p.setFont(font());
    p.setRenderHint(QPainter::Antialiasing, false);
    paintColorBar(p, QRect(r.right() + 16, r.y(), metrics.barArea - 16, r.height()));
    const double left =
        m_sinceChange.isValid() ? explore::secondsLeft(m_sinceChange.elapsed() / 1000.0, m_progress) : -1;
    if (m_stale || m_refining) paintStale(p, r, m_progress, palette(), left, !m_stale && m_refining);
}

}  // namespace alibi::qt
