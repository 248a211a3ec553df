// Curves that draw the same line: press and geometric slopes when H is a power of two, one head's
// attention at T = 64 ... 1024 once its slope has made the far keys vanish. Drawn one over the
// other, only the last is seen, so each is dashed in its turn (its colour in its own dash, the
// others' in its gaps) and the plot's note says how many coincide. One rule for the explorers'
// plots and the figures.
#pragma once

#include <alibi/render/plot.hpp>

#include <string>
#include <vector>

namespace alibi {

// The plot's y axis, as the test of "the same line" needs it.
struct CurveAxes {
    double yLo = 0, yHi = 1;  // the y span drawn, in axis units (log2 of y on a log axis)
    bool logY = false;        // y compared as log2(y); y <= 0 is not drawn
    bool logX = false;        // a log x axis: x < 0 is not drawn
};

// Where a series stands among those that coincide with it: the turn-th (from 0) of groupSize.
// groupSize 1: drawn as it is.
struct CurveTurn {
    int groupSize = 1;
    int turn = 0;
    bool operator==(const CurveTurn&) const = default;
};

// Two series coincide when they share at least two drawn x and, at every one, their y differ by
// at most 0.2 % of the axis span (a fraction of a pixel on any plot). Groups are transitive from
// each group's first series. Two to eight series only: past that, the legend and colours cannot
// tell the dashes apart anyway, and every series is drawn whole.
[[nodiscard]] std::vector<CurveTurn> coincidingCurves(const std::vector<Series>& series, const CurveAxes& axes);

// The dashes of a series in its turn, in pixels: `on` drawn, `off` left for the others, the
// pattern started `offset` into its period (as SVG's stroke-dashoffset and QPen's dash offset).
struct DashPattern {
    double on = 0, off = 0, offset = 0;
};
[[nodiscard]] DashPattern dashInTurn(const CurveTurn& turn, double lineWidthPx);

// Where the curves of a group end at different x (T = 64 ... 1024 against distance: the shortest
// ends first), the dashes are dealt again past each end among the curves still drawn there, so
// a curve left alone is drawn whole (issue 27: the T = 1024 tail kept empty slots for the ended
// curves, a few short dashes from d = 256 to 1023). A series is drawn as its stretches in
// order, each the points with xFrom <= x <= xTo (neighbours share their end point) dashed by
// dashInTurn(stretch.turn): every member drawn over a stretch starts its pattern at xFrom.
// A series that coincides with none is one stretch with groupSize 1; one with no drawn point
// has none.
struct CurveStretch {
    double xFrom = 0, xTo = 0;
    CurveTurn turn;
};
[[nodiscard]] std::vector<std::vector<CurveStretch>> coincidingStretches(const std::vector<Series>& series,
                                                                         const CurveAxes& axes);
// The points of `series` with xFrom <= x <= xTo, in order.
[[nodiscard]] Series seriesStretch(const Series& series, double xFrom, double xTo);

// The markers of coinciding series (press and geometric at H = 32: 32 dots in 90 px, the last
// series' dots covered the other's line): each series marks every groupSize-th point, in its
// turn, so every colour shows. True for every point of a series drawn as it is.
[[nodiscard]] bool markerInTurn(const CurveTurn& turn, std::size_t point);

// What the plot's note says, one phrase a group: "3 curves coincide, dashed in turn".
[[nodiscard]] std::vector<std::string> coincidingNote(const std::vector<CurveTurn>& turns);

}  // namespace alibi
