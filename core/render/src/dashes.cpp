#include <alibi/render/dashes.hpp>

#include <algorithm>
#include <cmath>

namespace alibi {

std::vector<std::vector<PathPoint>> dashSegments(const std::vector<PathPoint>& points, double on, double off,
                                                 double offset) {
    std::vector<std::vector<PathPoint>> dashes;
    if (points.size() < 2) return dashes;
    if (!(on > 0) || !(off > 0)) return {points};
    const double period = on + off;
    std::vector<PathPoint> dash;
    const auto close = [&] {
        if (dash.size() >= 2) dashes.push_back(dash);
        dash.clear();
    };
    double phase = offset;  // the pattern's position at the current segment's start
    for (std::size_t k = 1; k < points.size(); ++k) {
        const auto [x0, y0] = points[k - 1];
        const auto [x1, y1] = points[k];
        const double length = std::hypot(x1 - x0, y1 - y0);
        if (!(length > 0)) continue;
        const auto at = [&](double t) { return PathPoint{x0 + (x1 - x0) * t / length, y0 + (y1 - y0) * t / length}; };
        double t = 0;
        while (t < length) {
            // The pattern's position at t, and the distance to its next change.
            const double here = std::fmod(std::fmod(phase + t, period) + period, period);
            const double step = std::min(length - t, here < on ? on - here : period - here);
            if (here < on) {
                if (dash.empty()) dash.push_back(at(t));
                dash.push_back(at(t + step));
            } else {
                close();
            }
            t += std::max(step, 1e-6);
        }
        phase += length;
    }
    close();
    return dashes;
}

}  // namespace alibi
