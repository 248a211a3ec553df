// A small QPainter line/bar plot for the core's Series: linear or log2 axes, 1-2-5 ticks,
// a legend, and linked highlighting (hovering a series reports its index; setHighlight
// emphasises one and fades the rest).
#pragma once

#include <alibi/render/coinciding_curves.hpp>
#include <alibi/render/legend_layout.hpp>
#include <alibi/render/plot.hpp>
#include <alibi/render/plot_kinds.hpp>
#include <alibi/render/plot_ranges.hpp>
#include <alibi/render/ticks.hpp>

#include <QPointer>
#include <QPolygonF>
#include <QWidget>

#include <optional>
#include <vector>

namespace alibi::qt {

class PlotWidget : public QWidget {
    Q_OBJECT
public:
    enum class Style { Lines, LinesAndMarkers, Bars };
    explicit PlotWidget(QWidget* parent = nullptr);

    void setSeries(std::vector<Series> series);
    void setTitle(const QString& title) {
        m_title = title;
        update();
    }
    void setAxisLabels(const QString& x, const QString& y) {
        m_xLabel = x;
        m_yLabel = y;
        update();
    }
    // The axes of a kind of plot, as the figures and the ImGui explorer draw it (the core's
    // plotAxes): log2 y, a log2(1 + x) x axis (distance 0 stays on it), bars, from zero, half a
    // category of room; what the axes span is then the core's plotRanges.
    void setKind(PlotKind kind) { setAxes(plotAxes(kind)); }
    // The same from a style the core gave (stagePanelAxes); only its axis flags are read.
    void setAxes(const PlotStyle& axes);
    // Spans the core computed for a plot with a rule of its own (positionSchemesRanges), in axis
    // units; nullopt: plotRanges over the series. A wheel zoom still spans what it shows.
    void setSpans(std::optional<PlotRanges> spans) {
        m_spans = spans;
        update();
    }
    // A labelled dashed vertical line at x (the training length L); nullopt: none.
    void setReferenceX(std::optional<double> x, const QString& label) {
        m_referenceX = x;
        m_referenceLabel = label;
        update();
    }
    void setStyle(Style style) {
        m_style = style;
        update();
    }
    void setCategorical(bool on) {
        m_categorical = on;
        update();
    }  // distinct colours vs. viridis by order
    void setNote(const QString& note) {
        m_note = note;
        update();
    }
    void setHighlight(int index);
    // Series a lesson points at: drawn thick on top, the others faded (a hover highlight wins).
    void setEmphasis(std::vector<int> indices);
    [[nodiscard]] const std::vector<int>& emphasis() const { return m_emphasis; }
    void setLegendLimit(int n) {
        m_legendLimit = n;
        update();
    }
    // Plots shown together over the same series (the curves view's bias and attention plots):
    // each plans its legend in the room all of them hold (the core's sharedLegendRoom), so they
    // list the same entries (issue 27 L9: at H = 32 one listed h5 h10 h16, the other h6 h12 h19).
    // Every plot of the group is given the others; a hidden sibling does not count, nor one
    // deleted first (held as QPointer: it is forgotten, never read).
    void setLegendSiblings(const std::vector<PlotWidget*>& siblings) {
        m_legendSiblings.assign(siblings.begin(), siblings.end());
        update();
    }
    // This plot's own legend room, before any sharing: its width, rows, swatch and note width.
    [[nodiscard]] alibi::LegendRoom legendRoom() const;
    // The series listed in the legend as last planned (empty: no legend), for tests.
    [[nodiscard]] std::vector<int> legendShown() const { return legendLayout().shown; }
    // Fixed colours and dashes per series (empty: the default ramp, solid), for views whose
    // series belong to named families (the position schemes).
    void setSeriesColors(std::vector<QColor> colors) {
        m_colors = std::move(colors);
        update();
    }
    void setSeriesDashed(std::vector<bool> dashed) {
        m_dashed = std::move(dashed);
        update();
    }
    // A vertical line at data x (the hovered distance); nullopt: none.
    void setCursorX(std::optional<double> x) {
        m_cursorX = x;
        update();
    }
    // A key a lesson points at (data x): its bar filled orange and its column framed in orange,
    // so the mark shows even where the bar is zero or masked; nullopt: none.
    void setMarkedX(std::optional<double> x) {
        m_markedX = x;
        update();
    }
    [[nodiscard]] std::optional<double> markedX() const { return m_markedX; }
    // The data x under widget position `pixelX`, or nullopt outside the plotting area.
    [[nodiscard]] std::optional<double> dataXAt(QPointF position) const;
    [[nodiscard]] const std::vector<Series>& series() const { return m_series; }
    [[nodiscard]] QString title() const { return m_title; }
    [[nodiscard]] QSize sizeHint() const override { return {520, 340}; }
    [[nodiscard]] QSize minimumSizeHint() const override;
    // What the last paint drew, for the layout test (issue 27): the frame of the plotting area,
    // each curve's polylines with the half width of its pen (or a marker's radius), and where
    // the reference line's label went.
    struct DrawnCurve {
        QPolygonF points;
        double halfWidth = 0;
        bool dots = false;  // separate dots (markers), not a polyline
        int series = -1;
        bool dashed = false;  // drawn dashed (a fixed dash, or a coinciding curve's turn)
    };
    [[nodiscard]] QRectF frameRect() const { return plotArea(); }
    [[nodiscard]] const std::vector<DrawnCurve>& drawnCurves() const { return m_drawn; }
    [[nodiscard]] QRectF referenceLabelRect() const { return m_referenceLabelRect; }
    // The note as drawn: the view's, then "k curves coincide, dashed in turn" where series lie
    // on one another (every pen has one width, so a line never moves a value; issue 27).
    [[nodiscard]] QString shownNote() const;

signals:
    void seriesHovered(int index);           // -1: none
    void xHovered(std::optional<double> x);  // data x under the mouse (nullopt: outside the plot)

protected:
    void paintEvent(QPaintEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;
    // The wheel zooms the x axis about the mouse; a double-click shows every point again.
    void wheelEvent(QWheelEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    // A resize changes this plot's room and so its siblings' shared one: they repaint too.
    void resizeEvent(QResizeEvent* event) override;

private:
    struct Range {
        double lo = 0, hi = 1;
    };
    [[nodiscard]] QRectF plotArea() const;
    // The area the data maps to: the frame inset by the widest pen's half width (or a marker's
    // radius), so no curve or marker crosses the frame at the data's ends.
    [[nodiscard]] QRectF dataArea() const;
    [[nodiscard]] double curvePad() const;
    [[nodiscard]] double mapX(double x, const QRectF& area) const;
    [[nodiscard]] double mapY(double y, const QRectF& area) const;
    // The series in widget pixels, decimated per column `columnWidth` pixels wide; split where a
    // value is unusable.
    [[nodiscard]] std::vector<QPolygonF> screenPolylines(const Series& series, const QRectF& area,
                                                         double columnWidth) const;
    // Whether a point is drawn at all (the core's plotDrawable for these axes).
    [[nodiscard]] bool usable(double x, double y) const { return plotDrawable(m_axes, x, y); }
    void computeRanges();
    // Which series coincide and each one's turn in its group (the core's coincidingCurves).
    void findCoinciding();

    std::vector<Series> m_series;
    std::optional<Range> m_zoomX;  // the wheel's x range, in axis units (nullopt: every point)
    QString m_title, m_xLabel, m_yLabel, m_note;
    bool m_categorical = false;
    // The axes' flags (setAxes: log2 y, log2(1 + x), from zero, categorical x); whether bars is
    // m_style's.
    PlotStyle m_axes;
    std::optional<PlotRanges> m_spans;
    std::optional<double> m_referenceX;
    QString m_referenceLabel;
    [[nodiscard]] double xPosition(double x) const;      // x in axis units
    [[nodiscard]] double xValue(double position) const;  // and back
    Style m_style = Style::Lines;
    int m_highlight = -1;
    std::vector<int> m_emphasis;
    int m_legendLimit = 64;
    std::vector<QPointer<PlotWidget>> m_legendSiblings;
    // The legend at the right (the core's plan, render/legend_layout.hpp): columns of `rows`
    // entries `line` pixels apart, `width` in all, the listed series' labels (whole or brief)
    // and, when some are left out, the note "k of n listed" after them.
    struct LegendLayout {
        int columns = 0, rows = 0, line = 18;
        double columnWidth = 0, width = 0;
        std::vector<int> shown;
        std::vector<QString> labels;
        QString note;
    };
    [[nodiscard]] LegendLayout legendLayout() const;
    // The plot's text font: the widget's, scaled by the application's "alibiPlotTextScale"
    // (presentation mode scales plot text less than the lesson text, so the plots keep room).
    [[nodiscard]] QFont plotFont() const;
    // The bands around the plotting area, from the font and the texts to fit: the title (two
    // lines when it is wider than the widget) and note above, the widest y tick label and the
    // y label at the left, the x ticks and x label below.
    struct Margins {
        double top = 34, left = 68, bottom = 48, titleHeight = 22, noteHeight = 0, yLabelHeight = 18;
        bool noteBelowTitle = false;
    };
    [[nodiscard]] Margins margins() const;
    // The core's ticks for a plotting area `length` pixels long, in axis units.
    [[nodiscard]] std::vector<alibi::Tick> xTicks(double length) const;
    [[nodiscard]] std::vector<alibi::Tick> yTicks(double length) const;
    std::vector<QColor> m_colors;
    std::vector<bool> m_dashed;
    std::optional<double> m_cursorX;
    std::optional<double> m_markedX;
    Range m_x, m_y;  // in axis units (log2 when logarithmic)
    std::vector<DrawnCurve> m_drawn;
    std::vector<CurveTurn> m_turns;                      // per series: its group's size and its turn (size 1: alone)
    std::vector<std::vector<CurveStretch>> m_stretches;  // per series: where it is dashed in which turn
    QRectF m_referenceLabelRect;
};

}  // namespace alibi::qt
