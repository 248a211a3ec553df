// A dashed polyline as the polylines of its dashes: the walk along a line's length that every
// dashed curve of the tool takes (the figures' raster canvas, the ImGui explorer's plots), so
// a dash pattern starts and turns corners the same way on screen and in an exported PNG.
#pragma once

#include <utility>
#include <vector>

namespace alibi {

using PathPoint = std::pair<double, double>;  // x, y in pixels

// The dashes of `points` (in pixels): the pattern is `on` drawn, `off` skipped, started `offset`
// into its period (SVG's stroke-dashoffset, QPen's dash offset). A dash that runs past a vertex
// keeps it, so corners stay joined. With no pattern (on <= 0 or off <= 0) the whole line is one
// dash; fewer than two points give none.
[[nodiscard]] std::vector<std::vector<PathPoint>> dashSegments(const std::vector<PathPoint>& points, double on,
                                                               double off, double offset = 0);

}  // namespace alibi
