// PlotWidget: axes, ticks, decimated polylines, bars and a legend.
#include "plot_widget.hpp"

#include "view_util.hpp"

#include <QCoreApplication>
#include <alibi/render/legend_layout.hpp>
#include <alibi/render/ticks.hpp>

#include <QMouseEvent>
#include <QPainter>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>
#include <limits>

using namespace Qt::Literals::StringLiterals;

namespace alibi::qt {

namespace {

// Up to this many series are drawn antialiased with wide pens; beyond it, crisp 1-pixel lines.
constexpr int kSmoothSeries = 16;
// A curve that changes vertical direction more often than this is drawn with a one-pixel pen.
constexpr int kSmoothTurns = 8;

// One legend text line per entry (a line's height and one pixel): five T's of the Extrapolation
// plot fit its 110 px at 1280x720 in presentation mode, where two more pixels a line and the
// 8 px margin left three listed and two drawn curves unnamed (issue 27).
int legendLine(const QFontMetrics& fm) {
    return std::max(16, fm.height() + 1);
}

// How often the polylines change vertical direction: ALiBi's bias and attention curves are
// monotone on each side of the query (a turn or two); noisy content turns at most points.
int turns(const std::vector<QPolygonF>& lines) {
    int count = 0;
    for (const QPolygonF& line : lines) {
        double previous = 0;
        for (qsizetype k = 1; k < line.size(); ++k) {
            const double dy = line[k].y() - line[k - 1].y();
            if (dy == 0) continue;
            if (previous != 0 && (dy > 0) != (previous > 0)) ++count;
            previous = dy;
        }
    }
    return count;
}

}  // namespace

PlotWidget::PlotWidget(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);
}

void PlotWidget::setSeries(std::vector<Series> series) {
    m_series = std::move(series);
    if (m_highlight >= static_cast<int>(m_series.size())) m_highlight = -1;
    computeRanges();
    findCoinciding();
    update();
}

void PlotWidget::findCoinciding() {
    // The core's rule (render/coinciding_curves.hpp), on the y span drawn; bars stand side by
    // side, never on one another.
    const CurveAxes axes{m_y.lo, m_y.hi, m_axes.logY2, m_axes.logX1p};
    m_turns = m_style == Style::Bars ? std::vector<CurveTurn>(m_series.size()) : coincidingCurves(m_series, axes);
    m_stretches = m_style == Style::Bars ? std::vector<std::vector<CurveStretch>>(m_series.size())
                                         : coincidingStretches(m_series, axes);
}

QString PlotWidget::shownNote() const {
    QStringList parts;
    if (!m_note.isEmpty()) parts << m_note;
    for (const std::string& phrase : coincidingNote(m_turns)) parts << QString::fromStdString(phrase);
    return parts.join(u" · "_s);
}

void PlotWidget::wheelEvent(QWheelEvent* event) {
    const QRectF a = dataArea();
    if (m_series.empty() || !a.contains(event->position()) || event->angleDelta().y() == 0) {
        event->ignore();
        return;
    }
    // Zoom the x axis about the point under the mouse; all the way out leaves zoom.
    const double at = m_x.lo + (event->position().x() - a.left()) / a.width() * (m_x.hi - m_x.lo);
    const double factor = event->angleDelta().y() > 0 ? 0.8 : 1.25;
    m_zoomX = Range{at - (at - m_x.lo) * factor, at + (m_x.hi - at) * factor};
    const Range before = m_x;
    computeRanges();
    if (factor > 1 && m_x.lo == before.lo && m_x.hi == before.hi) m_zoomX.reset();
    update();
    event->accept();
}

void PlotWidget::mouseDoubleClickEvent(QMouseEvent* event) {
    if (!m_zoomX) return QWidget::mouseDoubleClickEvent(event);
    m_zoomX.reset();  // back to every point
    computeRanges();
    update();
}

void PlotWidget::setEmphasis(std::vector<int> indices) {
    if (indices == m_emphasis) return;
    m_emphasis = std::move(indices);
    update();
}

void PlotWidget::setHighlight(int index) {
    if (index == m_highlight) return;
    m_highlight = index;
    update();
}

void PlotWidget::setAxes(const PlotStyle& axes) {
    m_axes = PlotStyle{};
    m_axes.logY2 = axes.logY2;
    m_axes.logX1p = axes.logX1p;
    m_axes.yFromZero = axes.yFromZero;
    m_axes.categorical = axes.categorical;
    if (axes.bars)
        m_style = Style::Bars;
    else if (m_style == Style::Bars)
        m_style = Style::Lines;
    update();
}

void PlotWidget::computeRanges() {
    // The core's rule (render/plot_ranges.hpp), the figures' and ImGui's: one curve, one axis.
    PlotStyle axes = m_axes;
    axes.bars = m_style == Style::Bars;
    if (m_spans && !m_zoomX) {
        m_x = {m_spans->xmin, m_spans->xmax};
        m_y = {m_spans->ymin, m_spans->ymax};
        return;
    }
    // Zoomed (wheel): the x range asked for, inside the data's; y spans what it shows.
    const PlotRanges r =
        plotRanges(m_series, axes, m_zoomX ? std::optional(std::pair{m_zoomX->lo, m_zoomX->hi}) : std::nullopt);
    m_x = {r.xmin, r.xmax};
    m_y = {r.ymin, r.ymax};
}

QFont PlotWidget::plotFont() const {
    QFont f = font();
    const double scale = qApp->property("alibiPlotTextScale").toDouble();
    if (scale > 0 && scale != 1.0) f.setPointSizeF(f.pointSizeF() * std::clamp(scale, 0.25, 4.0));
    return f;
}

QSize PlotWidget::minimumSizeHint() const {
    const QFontMetrics fm(plotFont());
    return {std::max(240, 22 * fm.averageCharWidth()), std::max(180, 9 * fm.height())};
}

std::vector<alibi::Tick> PlotWidget::xTicks(double length) const {
    if (m_axes.logX1p) return alibi::axisTicks(alibi::AxisScale::Log2OnePlus, xValue(m_x.lo), xValue(m_x.hi), 10);
    const QFontMetrics fm(plotFont());
    const double spacing = std::max(90.0, 7.0 * fm.averageCharWidth());
    return alibi::axisTicks(alibi::AxisScale::Linear, m_x.lo, m_x.hi, std::max(2, static_cast<int>(length / spacing)));
}

std::vector<alibi::Tick> PlotWidget::yTicks(double length) const {
    if (m_axes.logY2) return alibi::axisTicks(alibi::AxisScale::Log2, std::exp2(m_y.lo), std::exp2(m_y.hi), 10);
    const QFontMetrics fm(plotFont());
    const double spacing = std::max(45.0, 2.2 * fm.height());
    // At least two labelled ticks spanning the data, the core's rule for every plot axis (issue 27:
    // a short stage panel from -4.5 to 1.5 got the single tick "0").
    const int wanted = std::max(3, static_cast<int>(length / spacing));
    return alibi::atLeastTwoTicks(
        wanted, [&](int target) { return alibi::axisTicks(alibi::AxisScale::Linear, m_y.lo, m_y.hi, target); });
}

PlotWidget::Margins PlotWidget::margins() const {
    Margins m;
    const QFont f = plotFont();
    const QFontMetrics fm(f);
    QFont bold = f;
    bold.setBold(true);
    const QFontMetrics bfm(bold);
    const double textWidth = std::max(40, width() - 16);
    // The title: one line, or two when it is wider than the widget (never cut).
    const QRect title = bfm.boundingRect(QRect(0, 0, static_cast<int>(textWidth), 1000), Qt::TextWordWrap, m_title);
    m.titleHeight = std::max(bfm.height(), title.height()) + 2;
    // The note beside the title when both fit on the line, else on a line of its own below.
    if (const QString note = shownNote(); !note.isEmpty()) {
        QFont small = f;
        small.setPointSizeF(f.pointSizeF() * 0.9);
        const QFontMetrics sfm(small);
        const double beside = textWidth - bfm.horizontalAdvance(m_title) - 24;
        m.noteBelowTitle = title.height() > bfm.height() || sfm.horizontalAdvance(note) > beside;
        if (m.noteBelowTitle)
            m.noteHeight =
                sfm.boundingRect(QRect(0, 0, static_cast<int>(textWidth), 1000), Qt::TextWordWrap, note).height();
    }
    m.top = 6 + m.titleHeight + m.noteHeight + std::max(6, fm.height() / 2);
    if (m_referenceX) m.top += fm.height() + 2;  // the reference line's label, above the frame
    m.bottom = 4 + 2.0 * fm.height() + 8;
    // The widest y tick label, measured on the ticks of a plot about this tall.
    int widest = fm.horizontalAdvance(u"0"_s);
    for (const alibi::Tick& t : yTicks(std::max(40.0, height() - m.top - m.bottom)))
        widest = std::max(widest, fm.horizontalAdvance(QString::fromStdString(t.label)));
    // The y label along the plot's height, on two lines when it is longer than that.
    const int along = static_cast<int>(std::max(40.0, height() - m.top - m.bottom));
    m.yLabelHeight =
        std::max(fm.height(), fm.boundingRect(QRect(0, 0, along, 1000), Qt::TextWordWrap, m_yLabel).height());
    m.left = 4 + m.yLabelHeight + 6 + widest + 6;
    return m;
}

alibi::LegendRoom PlotWidget::legendRoom() const {
    const QFontMetrics fm(plotFont());
    const Margins m = margins();
    alibi::LegendRoom room;
    room.width = 0.45 * width() - 8;
    // The rows from the frame's top inset (4 px, as painted) to its bottom.
    room.rows = std::max(1, static_cast<int>((std::max(40.0, height() - m.top - m.bottom) - 4) / legendLine(fm)));
    room.swatch = 16 + 4 + 8 + fm.averageCharWidth();
    room.noteWidth = fm.horizontalAdvance(QString::fromStdString(alibi::legendNote(m_series.size(), m_series.size())));
    return room;
}

void PlotWidget::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    for (const QPointer<PlotWidget>& sibling : m_legendSiblings)
        if (sibling && sibling != this) sibling->update();
}

PlotWidget::LegendLayout PlotWidget::legendLayout() const {
    LegendLayout l;
    const int count = static_cast<int>(m_series.size());
    if (count == 0 || count > m_legendLimit) return l;
    // The core's plan (render/legend_layout.hpp): whole names, else brief ones ("h3"), else the
    // emphasised, the first, the last and evenly spaced others with "k of n listed"; each
    // column as wide as its longest entry (never cut), all of them within 45 % of the widget.
    const QFontMetrics fm(plotFont());
    l.line = legendLine(fm);
    std::vector<alibi::LegendEntryWidths> widths;
    for (int s = 0; s < count; ++s) {
        const std::string& label = m_series[static_cast<std::size_t>(s)].label;
        const bool emphasised = std::find(m_emphasis.begin(), m_emphasis.end(), s) != m_emphasis.end();
        widths.push_back(
            {static_cast<double>(fm.horizontalAdvance(QString::fromStdString(label))),
             static_cast<double>(fm.horizontalAdvance(QString::fromStdString(alibi::briefLegendName(label)))),
             emphasised || s == m_highlight});
    }
    // The room shared with sibling plots over the same series, so they list the same entries.
    std::vector<alibi::LegendRoom> rooms{legendRoom()};
    for (const QPointer<PlotWidget>& sibling : m_legendSiblings)
        if (sibling && sibling != this && !sibling->isHidden()) rooms.push_back(sibling->legendRoom());
    const alibi::LegendRoom room = alibi::sharedLegendRoom(rooms);
    // The core's plan: brief names when one column of whole names is wider than the room (a
    // 360 px plot at 1280x720 gave three quarters to "head 6 (m = 0.007812)").
    const alibi::LegendPlan plan = alibi::planLegend(widths, room);
    l.columns = plan.columns;
    l.rows = plan.rows;
    l.columnWidth = plan.columnWidth;
    l.width = plan.width() + 8.0;
    l.shown = plan.shown;
    for (int s : plan.shown) {
        const std::string& label = m_series[static_cast<std::size_t>(s)].label;
        l.labels.push_back(QString::fromStdString(plan.brief ? alibi::briefLegendName(label) : label));
    }
    if (plan.note) l.note = QString::fromStdString(alibi::legendNote(plan.shown.size(), m_series.size()));
    return l;
}

QRectF PlotWidget::plotArea() const {
    const double legendWidth = legendLayout().width;
    const Margins m = margins();
    return QRectF(m.left, m.top, std::max(40.0, width() - m.left - 16 - legendWidth),
                  std::max(40.0, height() - m.top - m.bottom));
}

double PlotWidget::curvePad() const {
    if (m_style == Style::Bars || m_series.empty()) return 0;
    // The widest pen drawCurve uses (a lesson's thick curve), at the presentation line scale;
    // a marker's radius beyond it. Capped, so a small plot keeps its room (a wider pen is cut
    // by the frame, its centre line never).
    double widest = 4.5;
    widest *= std::clamp(qApp->property("alibiLineScale").toDouble(), 1.0, 4.0);
    double extent = widest / 2;
    if (m_style == Style::LinesAndMarkers) extent = 2.2 + widest / 2;
    return std::min(12.0, extent) + 1;
}

QRectF PlotWidget::dataArea() const {
    const double pad = curvePad();
    return plotArea().adjusted(pad, pad, -pad, -pad);
}

double PlotWidget::mapX(double x, const QRectF& a) const {
    const double v = xPosition(x);
    return a.left() + (v - m_x.lo) / (m_x.hi - m_x.lo) * a.width();
}

double PlotWidget::mapY(double y, const QRectF& a) const {
    const double v = m_axes.logY2 ? std::log2(y) : y;
    return a.bottom() - (v - m_y.lo) / (m_y.hi - m_y.lo) * a.height();
}

std::vector<QPolygonF> PlotWidget::screenPolylines(const Series& series, const QRectF& a, double columnWidth) const {
    // Keep, per column of `columnWidth` pixels, the first, lowest, highest and last point: the
    // polyline looks the same as the full one and costs at most four points per column,
    // however long the series is.
    const double scaleX = a.width() / (m_x.hi - m_x.lo), scaleY = a.height() / (m_y.hi - m_y.lo);
    auto screenX = [&](double x) { return a.left() + (xPosition(x) - m_x.lo) * scaleX; };
    auto screenY = [&](double y) { return a.bottom() - ((m_axes.logY2 ? std::log2(y) : y) - m_y.lo) * scaleY; };
    std::vector<QPolygonF> lines;
    QPolygonF line;
    auto append = [&](QPointF pt) {
        // Exact comparison: QPointF's operator== is fuzzy and costs more than the drawing.
        if (line.isEmpty() || line.constLast().x() != pt.x() || line.constLast().y() != pt.y()) line.append(pt);
    };
    constexpr long kNoColumn = std::numeric_limits<long>::min();
    long current = kNoColumn;
    QPointF first, last, low, high;
    std::size_t lowAt = 0, highAt = 0;
    auto flushColumn = [&] {
        if (current == kNoColumn) return;
        append(first);
        append(lowAt <= highAt ? low : high);
        append(lowAt <= highAt ? high : low);
        append(last);
        current = kNoColumn;
    };
    auto breakLine = [&] {
        flushColumn();
        if (!line.isEmpty()) lines.push_back(std::move(line));
        line = QPolygonF();
    };
    const std::size_t n = std::min(series.x.size(), series.y.size());
    for (std::size_t k = 0; k < n; ++k) {
        if (!usable(series.x[k], series.y[k])) {
            breakLine();
            continue;
        }
        const QPointF pt(screenX(series.x[k]), screenY(series.y[k]));
        // NaN (an x range beyond what doubles resolve) joins column 0 instead of reaching the cast.
        const double clamped = std::isnan(pt.x()) ? 0.0 : std::clamp(pt.x() / columnWidth, -1e9, 1e9);
        auto index = static_cast<long>(clamped);  // floor, without a libm call per point
        if (static_cast<double>(index) > clamped) --index;
        if (index != current) {
            flushColumn();
            current = index;
            first = low = high = pt;
            lowAt = highAt = k;
        }
        if (pt.y() > low.y()) low = pt, lowAt = k;  // screen y grows downwards
        if (pt.y() < high.y()) high = pt, highAt = k;
        last = pt;
    }
    breakLine();
    return lines;
}

std::optional<double> PlotWidget::dataXAt(QPointF position) const {
    const QRectF a = dataArea();
    if (!plotArea().contains(position) || a.width() <= 0) return std::nullopt;
    const double v = m_x.lo + (position.x() - a.left()) / a.width() * (m_x.hi - m_x.lo);
    return xValue(v);
}

double PlotWidget::xPosition(double x) const {
    return plotAxisX(m_axes, x);
}

double PlotWidget::xValue(double position) const {
    return m_axes.logX1p ? alibi::axisValue(alibi::AxisScale::Log2OnePlus, position) : position;
}

void PlotWidget::mouseMoveEvent(QMouseEvent* event) {
    const QPointF pos = event->position();
    emit xHovered(dataXAt(pos));
    const QRectF a = dataArea();
    int best = -1;
    double bestDist = 10.0;  // pixels
    for (std::size_t s = 0; s < m_series.size(); ++s) {
        const Series& ser = m_series[s];
        const std::size_t n = ser.x.size();
        const std::size_t step = std::max<std::size_t>(1, n / 2000);
        for (std::size_t k = 0; k < n; k += step) {
            if (!usable(ser.x[k], ser.y[k])) continue;
            const double d = std::hypot(mapX(ser.x[k], a) - pos.x(), mapY(ser.y[k], a) - pos.y());
            if (d < bestDist) bestDist = d, best = static_cast<int>(s);
        }
    }
    setHighlight(best);
    emit seriesHovered(best);
    if (best >= 0) setToolTip(QString::fromStdString(m_series[static_cast<std::size_t>(best)].label));
}

void PlotWidget::leaveEvent(QEvent*) {
    setHighlight(-1);
    emit seriesHovered(-1);
    emit xHovered(std::nullopt);
}

void PlotWidget::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().color(QPalette::Base));
    // `frame`: the plotting area's frame; `a`: where the data maps, inset so wide pens and
    // markers at the data's ends stay inside the frame.
    const QRectF frame = plotArea();
    const QRectF a = dataArea();
    m_drawn.clear();
    m_referenceLabelRect = QRectF();
    const QColor text = palette().color(QPalette::WindowText);
    QColor gridColor = text;
    gridColor.setAlpha(35);

    beginPaintedTexts(this);
    const QFont plotText = plotFont();
    const Margins margin = margins();
    QFont titleFont = plotText;
    titleFont.setBold(true);
    p.setFont(titleFont);
    p.setPen(text);
    drawRecordedText(p, this, QRectF(8, 6, width() - 16, margin.titleHeight),
                     Qt::AlignLeft | Qt::AlignVCenter | Qt::TextWordWrap, m_title);
    p.setFont(plotText);

    // Ticks and grid.
    const QFontMetrics fm(plotText);
    // Ticks and labels from the core (alibi::axisTicks), in axis units (log2 when logarithmic).
    std::vector<alibi::Tick> xt = xTicks(a.width());
    std::vector<alibi::Tick> yt = yTicks(a.height());
    if (m_axes.logX1p)
        for (auto& t : xt) t.value = xPosition(t.value);
    if (m_axes.logY2)
        for (auto& t : yt) t.value = std::log2(t.value);
    // A tick label that would touch the one before it is left out (its grid line stays).
    double lastRight = -1e9;
    for (const alibi::Tick& tick : xt) {
        const double t = tick.value;
        const double x = a.left() + (t - m_x.lo) / (m_x.hi - m_x.lo) * a.width();
        p.setPen(gridColor);
        p.drawLine(QPointF(x, frame.top()), QPointF(x, frame.bottom()));
        p.setPen(text);
        const QString label = QString::fromStdString(tick.label);
        const double w = fm.horizontalAdvance(label);
        const double left = std::clamp(x - w / 2, 0.0, width() - w);
        if (left < lastRight + fm.averageCharWidth()) continue;
        lastRight = left + w;
        drawRecordedText(p, this, QRectF(left, frame.bottom() + 4, w, fm.height()), Qt::AlignHCenter | Qt::AlignTop,
                         label);
    }
    double lastTop = 1e9;
    for (const alibi::Tick& tick : yt) {
        const double t = tick.value;
        const double y = a.bottom() - (t - m_y.lo) / (m_y.hi - m_y.lo) * a.height();
        p.setPen(gridColor);
        p.drawLine(QPointF(frame.left(), y), QPointF(frame.right(), y));
        p.setPen(text);
        const QString label = QString::fromStdString(tick.label);
        const double top = std::clamp(y - fm.height() / 2.0, 0.0, height() - fm.height() * 1.0);
        if (top + fm.height() > lastTop) continue;
        lastTop = top;
        drawRecordedText(p, this, QRectF(0, top, frame.left() - 6, fm.height()), Qt::AlignRight | Qt::AlignVCenter,
                         label);
    }
    p.setPen(QPen(text, 1));
    p.drawRect(frame);
    // The x label centred under the plotting area, or under the widget when it is wider.
    const bool wideX = fm.horizontalAdvance(m_xLabel) > frame.width();
    drawRecordedText(p, this,
                     QRectF(wideX ? 0.0 : frame.left(), frame.bottom() + 4 + fm.height() + 2,
                            wideX ? width() : frame.width(), fm.height()),
                     Qt::AlignCenter, m_xLabel);
    p.save();
    p.translate(4 + margin.yLabelHeight / 2.0, frame.center().y());
    p.rotate(-90);
    drawRecordedText(p, this,
                     QRectF(-frame.height() / 2, -margin.yLabelHeight / 2.0, frame.height(), margin.yLabelHeight),
                     Qt::AlignCenter | Qt::TextWordWrap, m_yLabel);
    p.restore();

    if (m_series.empty()) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        drawRecordedText(p, this, frame, Qt::AlignCenter, u"no data"_s);
        return;
    }

    // Series: faded ones first, the highlighted one last and thick.
    p.save();
    p.setClipRect(frame.adjusted(-4, -4, 4, 4));
    const int count = static_cast<int>(m_series.size());
    // Antialiasing hundreds of polylines costs tens of milliseconds a frame; many heads are
    // drawn crisp instead, so the UI stays responsive while sliders move.
    p.setRenderHint(QPainter::Antialiasing, count <= kSmoothSeries);
    // Viridis starts near black, so on a dark theme the steepest heads would vanish: the core's
    // dark ramp starts higher. Presentation mode scales every line (application property).
    const bool dark = palette().color(QPalette::Base).lightness() < 100;
    const double lineScale = std::clamp(qApp->property("alibiLineScale").toDouble(), 1.0, 4.0);
    const auto colourOf = [&](int s) {
        if (s < static_cast<int>(m_colors.size())) return m_colors[static_cast<std::size_t>(s)];
        if (m_categorical) return seriesColor(s, count, true);
        return toQColor(alibi::seriesColor(static_cast<std::size_t>(s), static_cast<std::size_t>(count),
                                           dark ? alibi::PlotBackground::Dark : alibi::PlotBackground::Light));
    };
    const auto isEmphasised = [this](int s) {
        return std::find(m_emphasis.begin(), m_emphasis.end(), s) != m_emphasis.end();
    };
    // A series' colour as its line is drawn: faded behind the hovered one or a lesson's, and
    // its legend swatch the same (issue 27: full-colour swatches beside pale lines).
    const auto shownColour = [&](int s) {
        QColor c = colourOf(s);
        if (m_highlight >= 0 && s != m_highlight)
            c.setAlpha(50);
        else if (m_highlight < 0 && !m_emphasis.empty() && !isEmphasised(s))
            c.setAlpha(70);
        return c;
    };
    auto drawOne = [&](int s, bool emphasised) {
        const Series& ser = m_series[static_cast<std::size_t>(s)];
        const QColor c = shownColour(s);
        const bool lessonMark = m_highlight < 0 && isEmphasised(s);
        const bool highlighted = (emphasised && m_highlight >= 0) || lessonMark;
        // One width for every series (a lesson's or the hovered one thicker): a pen's width
        // never reaches values the curve does not have. Coinciding series (press and geometric
        // when H is a power of two; T = 64 ... 1024 for a steep head) are dashed in turn, each
        // showing its colour in its own dash, and the note says how many coincide.
        double widthPx = (lessonMark ? 4.5 : highlighted ? 3.0 : 2.0) * lineScale;
        const std::size_t at = static_cast<std::size_t>(s);
        const bool inTurn = m_highlight != s && at < m_stretches.size();
        const CurveTurn turn = inTurn && at < m_turns.size() ? m_turns[at] : CurveTurn{};
        const std::size_t n = std::min(ser.x.size(), ser.y.size());
        if (m_style == Style::Bars) {
            const double bw = std::max(1.0, 0.8 * a.width() / std::max<double>(1.0, m_x.hi - m_x.lo));
            const double y0 = mapY(m_axes.logY2 ? std::exp2(m_y.lo) : 0.0, a);
            for (std::size_t k = 0; k < n; ++k) {
                if (!usable(ser.x[k], ser.y[k])) continue;
                const double x = mapX(ser.x[k], a), y = mapY(ser.y[k], a);
                const bool marked = m_markedX && ser.x[k] == *m_markedX;
                p.fillRect(QRectF(x - bw / 2, std::min(y, y0), bw, std::abs(y0 - y)), marked ? QColor(255, 140, 0) : c);
            }
            return;
        }
        // Pens wider than one pixel go through Qt's path stroker and antialiased fill, whose
        // cost explodes on a zigzag (noisy logits: 1252 points took 390 ms, 7 curves of 64
        // noisy points 30 ms). A wide pen shows no detail finer than half its width, so its
        // curve is decimated to columns that wide, and it is kept only for smooth curves: a
        // curve that turns up and down more than a few times, or one of many heads, is drawn
        // with a one-pixel pen, which takes the raster engine's fast path at full detail.
        const bool wide = widthPx > 1.0 && (count <= kSmoothSeries || highlighted);
        const double column = wide ? std::max(1.0, widthPx / 2) : 1.0;
        std::vector<QPolygonF> lines = screenPolylines(ser, a, column);
        const bool jagged = turns(lines) > kSmoothTurns;
        if (wide && jagged) lines = screenPolylines(ser, a, 1.0);
        const bool fixedDash = at < m_dashed.size() && m_dashed[at];
        QPen pen = wide && !jagged
                       ? QPen(c, widthPx, fixedDash ? Qt::DashLine : Qt::SolidLine, Qt::FlatCap, Qt::BevelJoin)
                       : QPen(c, highlighted ? 1.0 : 0.0, fixedDash ? Qt::DashLine : Qt::SolidLine);
        p.setBrush(Qt::NoBrush);
        const double half = wide && !jagged ? widthPx / 2 : 0.5;
        const auto drawLines = [&](const std::vector<QPolygonF>& polylines, bool dashed) {
            for (const QPolygonF& line : polylines)
                if (line.size() > 1) {
                    p.drawPolyline(line);
                    m_drawn.push_back({line, half, false, s, dashed});
                }
        };
        if (turn.groupSize <= 1) {
            p.setPen(pen);
            drawLines(lines, fixedDash);
        } else {
            // Each stretch dashed in its turn among the coinciding curves drawn there, the gaps
            // showing the others' (the core's pattern, in pixels; QPen counts in pen widths). The
            // group's dashes are one length, whatever each line's width: a lesson's thicker line
            // would otherwise dash out of step with the others.
            const double unit = std::max(1.0, pen.widthF());
            const double groupWidthPx = 2.0 * lineScale;
            for (const CurveStretch& stretch : m_stretches[at]) {
                QPen piecePen = pen;
                if (stretch.turn.groupSize > 1) {
                    const DashPattern dash = dashInTurn(stretch.turn, groupWidthPx);
                    piecePen.setDashPattern({dash.on / unit, dash.off / unit});
                    piecePen.setDashOffset(dash.offset / unit);
                }
                p.setPen(piecePen);
                drawLines(
                    screenPolylines(seriesStretch(ser, stretch.xFrom, stretch.xTo), a, wide && !jagged ? column : 1.0),
                    fixedDash || stretch.turn.groupSize > 1);
            }
        }
        // A point alone (T = 1, or between two unusable values) draws no line: show it as a
        // dot, or as a pixel when there are so many that dots would cost a frame.
        QPolygonF alone;
        for (const QPolygonF& line : lines)
            if (line.size() == 1) alone.append(line.constFirst());
        if (alone.size() > 256) {
            p.setPen(QPen(c, 0));
            p.drawPoints(alone);
        } else {
            p.setPen(Qt::NoPen);
            p.setBrush(c);
            const double dot = std::max(1.5, widthPx / 2 + 0.5);
            for (const QPointF& point : alone) p.drawEllipse(point, dot, dot);
            if (!alone.isEmpty()) m_drawn.push_back({alone, dot, true, s});
        }
        if (m_style == Style::LinesAndMarkers && n <= 300) {
            p.setBrush(c);
            p.setPen(Qt::NoPen);
            const double r = 2.2 + widthPx / 2;
            QPolygonF markers;
            // Coinciding series mark their points in turn, so one's dots do not cover the other's.
            for (std::size_t k = 0; k < n; ++k)
                if (usable(ser.x[k], ser.y[k]) && markerInTurn(turn, k)) {
                    markers.append(QPointF(mapX(ser.x[k], a), mapY(ser.y[k], a)));
                    p.drawEllipse(markers.constLast(), r, r);
                }
            if (!markers.isEmpty()) m_drawn.push_back({markers, r, true, s});
        }
    };
    // Beyond 256 series every n-th is drawn (the highlighted one always), so a frame stays cheap.
    const int stride = std::max(1, count / 256);
    for (int s = 0; s < count; s += stride)
        if (s != m_highlight && !isEmphasised(s)) drawOne(s, false);
    for (int s : m_emphasis)
        if (s != m_highlight && s >= 0 && s < count) drawOne(s, false);
    if (m_highlight >= 0) drawOne(m_highlight, true);
    if (m_markedX && *m_markedX >= xValue(m_x.lo) && *m_markedX <= xValue(m_x.hi)) {
        // The lesson's column: an orange frame (dark-edged, as the head grid's cell mark) one slot wide.
        const double x = mapX(*m_markedX, a);
        const double half =
            m_style == Style::Bars ? std::max(3.0, 0.5 * a.width() / std::max(1.0, m_x.hi - m_x.lo)) : 4.0;
        const QRectF column(x - half, frame.top() + 1, 2 * half, frame.height() - 2);
        p.setBrush(Qt::NoBrush);
        p.setPen(QPen(QColor(0, 0, 0, 160), 5));
        p.drawRect(column);
        p.setPen(QPen(QColor(255, 140, 0), 3));
        p.drawRect(column);
    }
    std::optional<double> referenceAt;  // where the reference line was drawn, for its label
    if (m_referenceX && *m_referenceX >= xValue(m_x.lo) && *m_referenceX <= xValue(m_x.hi)) {
        // A reference line (the training length L): dark, dashed, labelled above the frame.
        const double x = mapX(*m_referenceX, a);
        p.setPen(QPen(palette().color(QPalette::WindowText), 1.5, Qt::DashLine));
        p.drawLine(QPointF(x, frame.top()), QPointF(x, frame.bottom()));
        referenceAt = x;
    }
    if (m_cursorX && *m_cursorX >= xValue(m_x.lo) && *m_cursorX <= xValue(m_x.hi)) {
        const double x = mapX(*m_cursorX, a);
        p.setPen(QPen(palette().color(QPalette::WindowText), 1, Qt::DotLine));
        p.drawLine(QPointF(x, frame.top()), QPointF(x, frame.bottom()));
    }
    p.restore();
    if (referenceAt) {
        // The line's label ("L = 64") on the line of its own above the frame (margins() keeps
        // it), centred on the line: never on a curve, however small the plot (issue 27).
        p.setPen(text);
        const double w = fm.horizontalAdvance(m_referenceLabel) + 2;
        const double left = std::clamp(*referenceAt - w / 2, frame.left(), std::max(frame.left(), width() - 2 - w));
        m_referenceLabelRect = drawRecordedText(p, this, QRectF(left, frame.top() - fm.height() - 2, w, fm.height()),
                                                Qt::AlignLeft | Qt::AlignVCenter, m_referenceLabel);
    }

    // Legend, or the highlighted series' name when there are too many for a legend.
    if (const LegendLayout legend = legendLayout(); legend.columns > 0) {
        for (std::size_t n = 0; n < legend.shown.size(); ++n) {
            const int s = legend.shown[n];
            const int at = static_cast<int>(n);
            const double x = frame.right() + 12 + (at / legend.rows) * legend.columnWidth;
            const double y = frame.top() + 4 + (at % legend.rows) * legend.line;
            p.fillRect(QRectF(x, y + legend.line / 2.0 - 2, 16, 4), shownColour(s));
            p.setPen(text);
            drawRecordedText(p, this, QRectF(x + 20, y, legend.columnWidth - 22, legend.line),
                             Qt::AlignLeft | Qt::AlignVCenter, legend.labels[n]);
        }
        if (!legend.note.isEmpty()) {
            // The last line of the last column: how many of the series are listed.
            const int at = static_cast<int>(legend.shown.size());
            const double x = frame.right() + 12 + (at / legend.rows) * legend.columnWidth;
            const double y = frame.top() + 4 + (at % legend.rows) * legend.line;
            p.setPen(palette().color(QPalette::PlaceholderText));
            drawRecordedText(p, this, QRectF(x, y, legend.columnWidth - 2, legend.line),
                             Qt::AlignLeft | Qt::AlignVCenter, legend.note);
        }
    } else if (m_highlight >= 0) {
        p.setPen(text);
        drawRecordedText(p, this, QRectF(a.left() + 8, a.top() + 4, a.width() - 16, fm.height()),
                         Qt::AlignRight | Qt::AlignVCenter,
                         QString::fromStdString(m_series[static_cast<std::size_t>(m_highlight)].label));
    }
    if (const QString note = shownNote(); !note.isEmpty()) {
        QFont small = plotText;
        small.setPointSizeF(plotText.pointSizeF() * 0.9);
        p.setFont(small);
        p.setPen(palette().color(QPalette::PlaceholderText));
        // Beside the title when both fit, else on its own line(s) below it: never cut.
        if (margin.noteBelowTitle) {
            drawRecordedText(p, this, QRectF(8, 6 + margin.titleHeight, width() - 16, margin.noteHeight),
                             Qt::AlignLeft | Qt::AlignVCenter | Qt::TextWordWrap, note);
        } else {
            const double titleWidth = QFontMetrics(titleFont).horizontalAdvance(m_title) + 24;
            drawRecordedText(p, this, QRectF(8 + titleWidth, 6, width() - 16 - titleWidth, margin.titleHeight),
                             Qt::AlignRight | Qt::AlignVCenter, note);
        }
        p.setFont(plotText);
    }
}

}  // namespace alibi::qt
