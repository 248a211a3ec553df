// A saved-attention-maps picture: rendered by the owner's callback at device pixels, drawn 1:1.
#include "maps_heatmap_view.hpp"

#include "lesson_mark.hpp"
#include "model/background.hpp"
#include "view_util.hpp"

#include <alibi/base/thread_priority.hpp>
#include <alibi/explore/line_breaks.hpp>
#include <alibi/render/color_scale.hpp>
#include <alibi/render/ticks.hpp>
#include <alibi/text/visible.hpp>

#include <QCursor>
#include <QMouseEvent>
#include <QPainter>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

using namespace Qt::Literals::StringLiterals;

namespace alibi::qt {

namespace {
constexpr int kMargin = 10;
constexpr int kBarWidth = 16;
constexpr int kBarArea = 140;  // colour bar plus its labels (an exact f32 end: "5.4119814e-05")
}  // namespace

MapsHeatmapView::MapsHeatmapView(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);
    setMinimumSize(240, 180);
    // Focusable, so the tab's PageUp / PageDown reach it after a click or an open.
    setFocusPolicy(Qt::StrongFocus);
    m_watcher = new QFutureWatcher<RenderedMaps>(this);
    connect(m_watcher, &QFutureWatcherBase::finished, this, &MapsHeatmapView::onRendered);
    m_stale = new StaleOverlay(this);
}

MapsHeatmapView::~MapsHeatmapView() {
    m_queued.reset();
    m_watcher->disconnect(this);
    m_watcher->waitForFinished();  // a running job only holds what it captured; let it end first
}

int MapsHeatmapView::axisMargin() const {
    return std::max(m_axisLabels.isEmpty() ? 0 : fontMetrics().height() + 8, tokenMargin());
}

// Room for the longest token where tokens label the axes (tokensFitAxis: every k-th token a line
// apart; the whole widget is an upper bound on the tile); 0 when none can, so a long file keeps
// its picture's size.
int MapsHeatmapView::tokenMargin() const {
    const int line = fontMetrics().height();
    const double across = width() - 2 * kMargin - kBarArea, down = height() - 2 * kMargin - 2 * (line + 4);
    const auto fits = [&](const std::vector<std::string>& tokens, double room) {
        return alibi::tokensFitAxis(static_cast<std::int64_t>(tokens.size()),
                                    room / std::max<double>(1.0, static_cast<double>(tokens.size())), line,
                                    tokens.size());
    };
    if (!fits(m_keyTokens, across) && !fits(m_queryTokens, down)) return 0;
    int widest = 0;
    for (const auto* tokens : {&m_keyTokens, &m_queryTokens})
        for (const std::string& t : *tokens)
            widest = std::max(widest, fontMetrics().horizontalAdvance(
                                          QString::fromStdString(text::shortenText(t, kMaxTokenLabelChars))));
    return widest + 8;
}

// The header's height: the title and the subtitle wrapped to the width (never elided), and a line
// for the picture's pixel summary.
static int headerHeight(const QWidget& view, const QString& title, const QString& subtitle) {
    const int line = view.fontMetrics().height() + 4;
    const int width = std::max(40, view.width() - 2 * kMargin);
    QFont bold = view.font();
    bold.setBold(true);
    const int titleHeight = std::max(
        line, QFontMetrics(bold).boundingRect(QRect(0, 0, width, 10000), Qt::TextWordWrap, title).height() + 4);
    const int subtitleHeight =
        subtitle.isEmpty()
            ? 0
            : view.fontMetrics().boundingRect(QRect(0, 0, width, 10000), Qt::TextWordWrap, subtitle).height() + 4;
    return titleHeight + line + subtitleHeight;
}

int MapsHeatmapView::noteHeight() const {
    if (!m_perHead || m_noteRoom.isEmpty()) return 0;
    const int width = std::max(40, this->width() - 2 * kMargin);
    return fontMetrics().boundingRect(QRect(0, 0, width, 10000), Qt::TextWordWrap, m_noteRoom).height() + 6;
}

QRect MapsHeatmapView::imageRect() const {
    const int top = kMargin + headerHeight(*this, m_title, m_subtitle) + axisMargin();
    const int left = kMargin + axisMargin();
    return QRect(left, top, std::max(16, width() - left - kMargin - kBarArea),
                 std::max(16, height() - top - kMargin - noteHeight()));
}

void MapsHeatmapView::setPerHeadScale(bool on) {
    if (on == m_perHead) return;
    m_perHead = on;
    if (!on) m_noteRoom.clear();
    update();
}

int MapsHeatmapView::tileAt(QPointF pos) const {
    for (std::size_t n = 0; n < m_map.tiles.size(); ++n)
        if (tileRect(n).contains(pos)) return static_cast<int>(n);
    return -1;
}

QSize MapsHeatmapView::imagePixels() const {
    const double dpr = devicePixelRatioF();
    const QRect r = imageRect();
    return QSize(static_cast<int>(std::floor(r.width() * dpr)), static_cast<int>(std::floor(r.height() * dpr)));
}

void MapsHeatmapView::setRenderer(Renderer renderer) {
    m_renderer = std::move(renderer);
    refresh();
}

void MapsHeatmapView::refresh() {
    ++m_generation;
    if (!m_renderer) {
        m_queued.reset();
        m_shownGeneration = m_generation;
        m_error.clear();
        m_image = QImage();
        m_map = Heatmap();
        m_shownLayer = -1;
        m_stale->clear();
        update();
        return;
    }
    m_requestedPixels = imagePixels();
    m_queued = Queued{m_generation, m_renderer(m_requestedPixels), devicePixelRatioF()};
    if (!m_image.isNull()) m_stale->markStale();
    startNext();
}

void MapsHeatmapView::startNext() {
    if (!m_queued || m_watcher->isRunning()) return;
    Queued next = std::move(*m_queued);
    m_queued.reset();
    m_runningGeneration = next.generation;
    m_runningRatio = next.ratio;
    // One job at a time (the next starts when this one is shown), on a thread of its own, or
    // here when the system refuses one (issue 25).
    m_watcher->setFuture(runInBackground([job = std::move(next.job)]() -> RenderedMaps {
        // Below the UI thread, so dragging a control stays smooth while rows are read.
        if (t_inBackground) lowerThisThreadPriority(4);
        // The core returns errors as values; anything thrown anyway becomes this picture's message.
        try {
            return job();
        } catch (const std::bad_alloc&) {
            return RenderedMaps{
                fail(ErrorCode::TooLarge, "out of memory while rendering the picture; use a smaller window"), -1, {}};
        } catch (const std::exception& e) {
            return RenderedMaps{
                fail(ErrorCode::Internal, std::string("unexpected error while rendering: ") + e.what()), -1, {}};
        }
    }));
}

void MapsHeatmapView::onRendered() {
    // Only the latest request's picture is shown; an older one is dropped.
    if (m_runningGeneration == m_generation && m_watcher->future().resultCount() > 0)
        show(m_watcher->result(), m_runningRatio);
    startNext();
}

void MapsHeatmapView::show(RenderedMaps picture, double ratio) {
    m_shownGeneration = m_runningGeneration;
    m_error.clear();
    m_renderedRatio = ratio;
    if (!picture.map) {
        m_error = shownError(picture.map.error().message);
        m_image = QImage();
        m_map = Heatmap();
        m_shownLayer = -1;
    } else {
        m_map = std::move(*picture.map);
        m_image = toQImage(m_map.image, m_renderedRatio);
        m_shownLayer = picture.layerIndex;
    }
    // What a per-head scale leaves out of this picture's ranges (the core's words); a longer
    // note than the band holds widens the band, and the picture is asked for at its new size.
    m_note = m_perHead && m_map.tiles.size() > 1
                 ? QString::fromStdString(alibi::perHeadScaleNote(m_map, ScaleMode::PerHead))
                 : QString();
    const bool moreRoom = m_note.size() > m_noteRoom.size();
    if (moreRoom) m_noteRoom = m_note;
    m_hoveredTile = underMouse() ? tileAt(mapFromGlobal(QCursor::pos())) : -1;
    m_stale->clear();
    if (picture.shown) picture.shown();
    if (!m_error.isEmpty()) emit renderFailed(m_error);
    if (moreRoom && m_renderer && imagePixels() != m_requestedPixels) {
        refresh();  // the picture at the size the note leaves (pictureShown once that one is shown)
        update();
        return;
    }
    emit pictureShown();
    update();
    // A new picture under a still mouse (a layer switched by key or wheel): read out what is now there.
    if (underMouse()) {
        const auto p = devicePixelAt(mapFromGlobal(QCursor::pos()));
        emit hovered(p ? *p : QPoint(-1, -1));
    }
}

void MapsHeatmapView::setHeader(const QString& title, const QString& subtitle) {
    const QRect before = imageRect();
    m_title = titleBreaks(title.toStdString());
    m_subtitle = headerBreaks(subtitle.toStdString());
    // A header on more (or fewer) lines moves the picture: render it at its new size.
    if (imageRect() != before) resizeEvent(nullptr);
    update();
}

void MapsHeatmapView::setMessage(const QString& message) {
    m_message = message;
    update();
}

void MapsHeatmapView::setTileLabels(std::vector<std::vector<std::string>> forms) {
    m_tileLabels = std::move(forms);
    update();
}

int MapsHeatmapView::labelBand() const {
    return tileLabelBandFor(font(), 1.0 / devicePixelRatioF());
}

QRectF MapsHeatmapView::tileRect(std::size_t n) const {
    if (m_image.isNull() || n >= m_map.tiles.size()) return {};
    const QRect r = imageRect();
    const double dpr = m_renderedRatio;
    const HeatmapTile& t = m_map.tiles[n];
    return {r.x() + t.x / dpr, r.y() + t.y / dpr, t.width / dpr, t.height / dpr};
}

void MapsHeatmapView::setAxisLabels(QStringList labels) {
    m_axisLabels = std::move(labels);
    update();
}

void MapsHeatmapView::setCellTokens(std::vector<std::string> keys, std::vector<std::string> queries) {
    m_keyTokens = std::move(keys);
    m_queryTokens = std::move(queries);
    update();
}

void MapsHeatmapView::setHighlightedTile(int tile) {
    if (tile == m_highlight) return;
    m_highlight = tile;
    update();
}

std::optional<QPoint> MapsHeatmapView::devicePixelAt(QPointF pos) const {
    if (m_image.isNull()) return std::nullopt;
    const QRect r = imageRect();
    const int x = static_cast<int>(std::floor((pos.x() - r.x()) * m_renderedRatio));
    const int y = static_cast<int>(std::floor((pos.y() - r.y()) * m_renderedRatio));
    if (x < 0 || y < 0 || x >= m_map.image.width || y >= m_map.image.height) return std::nullopt;
    return QPoint(x, y);
}

QPoint MapsHeatmapView::widgetPosOf(QPoint p) const {
    const QRect r = imageRect();
    return QPoint(r.x() + static_cast<int>((p.x() + 0.5) / m_renderedRatio),
                  r.y() + static_cast<int>((p.y() + 0.5) / m_renderedRatio));
}

void MapsHeatmapView::resizeEvent(QResizeEvent*) {
    if (m_renderer && imagePixels() != m_requestedPixels) refresh();
}

void MapsHeatmapView::mouseMoveEvent(QMouseEvent* event) {
    if (const int tile = tileAt(event->position()); tile != m_hoveredTile) {
        m_hoveredTile = tile;
        if (m_perHead) update();  // the bar follows the hovered tile
    }
    const auto p = devicePixelAt(event->position());
    emit hovered(p ? *p : QPoint(-1, -1));
}

void MapsHeatmapView::mousePressEvent(QMouseEvent* event) {
    if (event->button() != Qt::LeftButton) return;
    if (const auto p = devicePixelAt(event->position())) emit clicked(*p);
}

void MapsHeatmapView::wheelEvent(QWheelEvent* event) {
    const int steps = event->angleDelta().y() / 120;
    if (steps == 0) return;
    emit wheelSteps(steps);
    event->accept();
}

void MapsHeatmapView::leaveEvent(QEvent*) {
    m_hoveredTile = -1;
    if (m_perHead) update();
    emit hovered(QPoint(-1, -1));
}

void MapsHeatmapView::setLessonMark(explore::LessonMark mark, std::int64_t queries, std::int64_t keys) {
    if (mark == m_lesson && queries == m_lessonQueries && keys == m_lessonKeys) return;
    m_lesson = std::move(mark);
    m_lessonQueries = queries;
    m_lessonKeys = keys;
    update();
}

QRectF MapsHeatmapView::cellRect(int tile, std::int64_t query, std::int64_t key) const {
    if (tile < 0 || tile >= static_cast<int>(m_map.tiles.size()) || m_image.isNull()) return {};
    if (query < 0 || key < 0 || query >= m_lessonQueries || key >= m_lessonKeys) return {};
    const HeatmapTile& t = m_map.tiles[static_cast<std::size_t>(tile)];
    const QRect r = imageRect();
    const double dpr = m_renderedRatio;
    // Cell c of n covers [c * size / n, (c + 1) * size / n) of its tile (render.cpp's pixelCells).
    const auto edge = [](std::int64_t c, int size, std::int64_t n) {
        return static_cast<double>(c) * size / static_cast<double>(n);
    };
    const double x0 = edge(key, t.width, m_lessonKeys), x1 = edge(key + 1, t.width, m_lessonKeys);
    const double y0 = edge(query, t.height, m_lessonQueries), y1 = edge(query + 1, t.height, m_lessonQueries);
    return {r.x() + (t.x + x0) / dpr, r.y() + (t.y + y0) / dpr, (x1 - x0) / dpr, (y1 - y0) / dpr};
}

void MapsHeatmapView::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().color(QPalette::Base));
    beginPaintedTexts(this);
    const int line = fontMetrics().height() + 4;
    QFont bold = font();
    bold.setBold(true);
    p.setFont(bold);
    p.setPen(palette().color(QPalette::WindowText));
    const int textWidth = width() - 2 * kMargin;
    // Title, the picture's pixel-to-cell summary (it changes with every resize), then the
    // subtitle: each wrapped, never elided.
    const int titleHeight = std::max(
        line, QFontMetrics(bold).boundingRect(QRect(0, 0, textWidth, 10000), Qt::TextWordWrap, m_title).height() + 4);
    drawRecordedText(p, this, QRect(kMargin, kMargin, textWidth, titleHeight),
                     Qt::AlignLeft | Qt::AlignVCenter | Qt::TextWordWrap, m_title);
    p.setFont(font());
    p.setPen(palette().color(QPalette::PlaceholderText));
    const QString summary = m_image.isNull() ? QString() : QString::fromStdString(m_map.summary);
    drawRecordedText(p, this, QRect(kMargin, kMargin + titleHeight, textWidth, line), Qt::AlignLeft | Qt::AlignVCenter,
                     summary);
    if (!m_subtitle.isEmpty())
        drawRecordedText(p, this,
                         QRect(kMargin, kMargin + titleHeight + line, textWidth,
                               headerHeight(*this, m_title, m_subtitle) - titleHeight - line),
                         Qt::AlignLeft | Qt::AlignVCenter | Qt::TextWordWrap, m_subtitle);
    if (m_image.isNull()) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        const QString text = !m_error.isEmpty() ? m_error : m_message;
        p.drawText(imageRect().adjusted(20, 20, -20, -20), Qt::AlignCenter | Qt::TextWordWrap, text);
        return;
    }
    const QRect r = imageRect();
    p.drawImage(QRectF(r.topLeft(), m_image.deviceIndependentSize().boundedTo(QSizeF(r.size()))), m_image,
                QRectF(0, 0, std::min<double>(m_image.width(), r.width() * m_renderedRatio),
                       std::min<double>(m_image.height(), r.height() * m_renderedRatio)));

    // Tile labels and the highlighted tile's frame.
    const double dpr = m_renderedRatio;
    QFont labelFont = font();
    labelFont.setPointSizeF(font().pointSizeF() * 0.9);
    const QFontMetrics fm(labelFont);
    p.setFont(labelFont);
    p.setRenderHint(QPainter::Antialiasing, true);
    for (int n = 0; n < static_cast<int>(m_map.tiles.size()); ++n) {
        const HeatmapTile& t = m_map.tiles[static_cast<std::size_t>(n)];
        const QRectF tr(r.x() + t.x / dpr, r.y() + t.y / dpr, t.width / dpr, t.height / dpr);
        if (n == m_highlight) {
            p.setPen(QPen(palette().color(QPalette::Highlight), 2.5));
            p.setBrush(Qt::NoBrush);
            p.drawRect(tr.adjusted(-1.5, -1.5, 1.5, 1.5));
        }
    }
    // Each tile's label in the band the renderer left above it (labelBand), as Compare's and
    // Diagnose's are: never over a cell.
    p.setPen(palette().color(QPalette::WindowText));
    PaintedTileLabels painted =
        paintTileLabelForms(p, font(), QPointF(r.topLeft()), 1.0 / dpr, 1.0 / dpr, m_map.tiles, m_tileLabels);
    m_labelRects = std::move(painted.rects);
    m_labelTexts = std::move(painted.texts);
    p.setFont(labelFont);
    // The lesson's mark: its heads' tiles outlined (a grid of several) and its cell framed, in
    // the head grid's orange.
    if (!m_lesson.empty()) {
        const double pen = std::max(3.0, fm.height() / 6.0);
        p.setBrush(Qt::NoBrush);
        p.setPen(QPen(lessonOrange(), pen));
        for (int n = 0; n < static_cast<int>(m_map.tiles.size()); ++n) {
            const HeatmapTile& t = m_map.tiles[static_cast<std::size_t>(n)];
            const QRectF tr(r.x() + t.x / dpr, r.y() + t.y / dpr, t.width / dpr, t.height / dpr);
            if (m_map.tiles.size() > 1 && m_lesson.marksHead(t.head))
                p.drawRect(tr.adjusted(-pen / 2 - 1, -pen / 2 - 1, pen / 2 + 1, pen / 2 + 1));
            const QRectF cell = cellRect(n, m_lesson.query, m_lesson.key);
            if (t.head == m_lesson.cellHead && !cell.isEmpty()) {
                // At least a few pixels across, so a cell smaller than a pixel still shows.
                const QPointF c = cell.center();
                const double half = std::max({cell.width() / 2, cell.height() / 2, 2 * pen}) + pen / 2;
                p.drawRect(QRectF(c.x() - half, c.y() - half, 2 * half, 2 * half));
            }
        }
    }
    p.setRenderHint(QPainter::Antialiasing, false);

    // Head labels along the single tile's axes (similarity): every head's where its label fits
    // its cell (the widest label across a column, a line down a row), else every k-th.
    m_axisLabelsDrawn.clear();
    if (!m_axisLabels.isEmpty() && !m_map.tiles.empty()) {
        const HeatmapTile& t = m_map.tiles.front();
        const int n = static_cast<int>(m_axisLabels.size());
        const double cellX = t.width / dpr / n, cellY = t.height / dpr / n;
        int widest = 0;
        for (const QString& l : m_axisLabels) widest = std::max(widest, fm.horizontalAdvance(l));
        const auto stride = [](double need, double cell) {
            return std::max(1, static_cast<int>(std::ceil(need / std::max(cell, 1e-9) - 1e-9)));
        };
        const int everyX = stride(widest + 2.0, cellX), everyY = stride(fm.height(), cellY);
        p.setPen(palette().color(QPalette::WindowText));
        for (int k = 0; k < n; ++k) {
            const double x = r.x() + t.x / dpr + (k + 0.5) * cellX;
            const double y = r.y() + t.y / dpr + (k + 0.5) * cellY;
            const bool across = k % everyX == 0, down = k % everyY == 0;
            if (across)
                p.drawText(QRectF(x - cellX * everyX / 2.0, r.y() - axisMargin(), cellX * everyX, axisMargin()),
                           Qt::AlignCenter, m_axisLabels[k]);
            if (down)
                p.drawText(QRectF(r.x() - axisMargin() - 4, y - fm.height() / 2.0, axisMargin(), fm.height()),
                           Qt::AlignRight | Qt::AlignVCenter, m_axisLabels[k]);
            m_axisLabelsDrawn.push_back({across, down});
        }
    }
    // One head's tokens along its axes, every k-th cell's where the cells are closer than a line (the core's rule).
    if (m_map.tiles.size() == 1 && tokenMargin() > 0) {
        const HeatmapTile& t = m_map.tiles.front();
        const int line = fm.height();
        p.setPen(palette().color(QPalette::WindowText));
        const auto keys = static_cast<std::int64_t>(m_keyTokens.size());
        const auto queries = static_cast<std::int64_t>(m_queryTokens.size());
        const double cellX = t.width / dpr / std::max<double>(1.0, static_cast<double>(keys));
        const double cellY = t.height / dpr / std::max<double>(1.0, static_cast<double>(queries));
        for (const IndexLabel& l : indexAxisLabels(queries, cellY, line, 1e9, m_queryTokens)) {
            if (!l.token) continue;
            const double y = r.y() + t.y / dpr + (static_cast<double>(l.index) + 0.5) * cellY;
            p.drawText(QRectF(r.x() - tokenMargin(), y - line / 2.0, tokenMargin() - 4, line),
                       Qt::AlignRight | Qt::AlignVCenter, QString::fromStdString(l.text));
        }
        for (const IndexLabel& l : indexAxisLabels(keys, cellX, line, 1e9, m_keyTokens)) {
            if (!l.token) continue;
            const double x = r.x() + t.x / dpr + (static_cast<double>(l.index) + 0.5) * cellX;
            p.save();  // turned a quarter: reading upwards from just above the picture
            p.translate(x, r.y() - 4);
            p.rotate(-90);
            p.drawText(QRectF(0, -line / 2.0, tokenMargin() - 4, line), Qt::AlignLeft | Qt::AlignVCenter,
                       QString::fromStdString(l.text));
            p.restore();
        }
    }
    p.setFont(font());

    // The colour bar: the exact range of what is shown.
    const QRect barArea(r.right() + 18, r.y(), kBarArea - 18, r.height());
    const QFontMetrics barFm(p.font());
    const int above = colorBarTitleRoom(barFm);
    const QRect bar(barArea.x(), barArea.y() + above, kBarWidth,
                    std::max(16, barArea.height() - above - colorBarKeyRoom(barFm, false)));
    const bool log = m_map.log;
    const int ticks = std::clamp(bar.height() / 60, 2, 10);
    // Per-head scales: the hovered tile's own range, else the highlighted (selected) tile's,
    // else the first's; the shared range means nothing there (every tile has its own colours).
    m_barTile = -1;
    if (m_perHead && m_map.tiles.size() > 1)
        m_barTile = m_hoveredTile >= 0                                          ? m_hoveredTile
                    : m_highlight >= 0 && m_highlight < int(m_map.tiles.size()) ? m_highlight
                                                                                : 0;
    alibi::ColorBar colorBar;
    if (m_barSource && m_barTile >= 0) {
        colorBar = m_barSource(m_map, m_barTile, ticks);
    } else {
        colorBar = alibi::makeColorBar(log ? m_map.logLo : m_map.lo, m_map.hi, log, m_barDType, ticks);
        colorBar.title = (m_barTitle + (log ? u" (log)"_s : u""_s)).toStdString();
        colorBar.maskedSwatch = m_maskedSwatch;
    }
    // A tile's bar says whose range it is (the source may name it "L1 h3"; else "h3").
    if (m_barTile >= 0 && colorBar.head.empty())
        colorBar.head = "h" + std::to_string(m_map.tiles[static_cast<std::size_t>(m_barTile)].head);
    m_shownBar = colorBar;
    paintColorBar(p, bar, colorBar, m_colormap, palette(), kBarArea - kBarWidth - 26);
    // The per-head note under the picture as drawn (its band kept below it by imageRect).
    m_noteRect = QRectF();
    if (!m_note.isEmpty()) {
        const double drawnBottom = r.y() + std::min<double>(r.height(), m_image.deviceIndependentSize().height());
        const int noteTop = static_cast<int>(std::ceil(drawnBottom)) + 4;
        p.setPen(palette().color(QPalette::PlaceholderText));
        m_noteRect = drawRecordedText(p, this, QRect(kMargin, noteTop, width() - 2 * kMargin, height() - noteTop),
                                      Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap, m_note);
    }
}

}  // namespace alibi::qt
