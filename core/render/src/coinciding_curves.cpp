// Which curves draw the same line, and the dashes that keep each of them visible.
#include <alibi/render/coinciding_curves.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <unordered_map>

namespace alibi {

namespace {

constexpr std::size_t kMostDashed = 8;
constexpr double kSameLine = 0.002;  // of the y span

// Which drawn points a series has, as the test of "the same line" compares them.
struct CurveAxesTest {
    const CurveAxes& axes;
    bool drawn(double x, double y) const {
        return std::isfinite(x) && std::isfinite(y) && !(axes.logX && x < 0) && !(axes.logY && y <= 0);
    }
    double axisY(double y) const { return axes.logY ? std::log2(y) : y; }
};

// The index of each series' group's first series (itself when it coincides with none); every
// series its own group when there are too few or too many to dash.
std::vector<std::size_t> coincidingGroups(const std::vector<Series>& series, const CurveAxes& axes) {
    const std::size_t count = series.size();
    std::vector<std::size_t> group(count);
    for (std::size_t s = 0; s < count; ++s) group[s] = s;
    if (count < 2 || count > kMostDashed) return group;
    const double tolerance = kSameLine * std::abs(axes.yHi - axes.yLo);
    const CurveAxesTest test{axes};
    const auto coincide = [&](const Series& a, const Series& b) {
        std::unordered_map<double, double> at;
        for (std::size_t k = 0; k < a.x.size() && k < a.y.size(); ++k)
            if (test.drawn(a.x[k], a.y[k])) at.emplace(a.x[k], test.axisY(a.y[k]));
        int shared = 0;
        for (std::size_t k = 0; k < b.x.size() && k < b.y.size(); ++k) {
            if (!test.drawn(b.x[k], b.y[k])) continue;
            const auto it = at.find(b.x[k]);
            if (it == at.end()) continue;
            if (std::abs(it->second - test.axisY(b.y[k])) > tolerance) return false;
            ++shared;
        }
        return shared >= 2;
    };
    std::vector<bool> placed(count, false);
    for (std::size_t s = 0; s < count; ++s) {
        if (placed[s]) continue;
        placed[s] = true;
        for (std::size_t t = s + 1; t < count; ++t)
            if (!placed[t] && coincide(series[s], series[t])) group[t] = s, placed[t] = true;
    }
    return group;
}

}  // namespace

std::vector<CurveTurn> coincidingCurves(const std::vector<Series>& series, const CurveAxes& axes) {
    const std::vector<std::size_t> group = coincidingGroups(series, axes);
    const std::size_t count = series.size();
    std::vector<CurveTurn> turns(count, CurveTurn{0, 0});
    for (std::size_t s = 0; s < count; ++s)
        for (std::size_t t = 0; t < count; ++t)
            if (group[t] == group[s]) {
                if (t < s) ++turns[s].turn;
                ++turns[s].groupSize;
            }
    return turns;
}

std::vector<std::vector<CurveStretch>> coincidingStretches(const std::vector<Series>& series, const CurveAxes& axes) {
    const std::vector<std::size_t> group = coincidingGroups(series, axes);
    const CurveAxesTest test{axes};
    // Each series' drawn x range.
    struct Span {
        double lo = INFINITY, hi = -INFINITY;
        bool empty() const { return lo > hi; }
    };
    std::vector<Span> spans(series.size());
    for (std::size_t s = 0; s < series.size(); ++s)
        for (std::size_t k = 0; k < series[s].x.size() && k < series[s].y.size(); ++k)
            if (test.drawn(series[s].x[k], series[s].y[k]))
                spans[s].lo = std::min(spans[s].lo, series[s].x[k]),
                spans[s].hi = std::max(spans[s].hi, series[s].x[k]);
    std::vector<std::vector<CurveStretch>> out(series.size());
    for (std::size_t s = 0; s < series.size(); ++s) {
        if (spans[s].empty()) continue;
        // The stretches end where a member of the group starts or ends inside this series' range:
        // over each, a member is drawn throughout or not at all.
        std::vector<double> cuts{spans[s].lo, spans[s].hi};
        for (std::size_t t = 0; t < series.size(); ++t)
            if (group[t] == group[s] && !spans[t].empty())
                for (const double end : {spans[t].lo, spans[t].hi})
                    if (end > spans[s].lo && end < spans[s].hi) cuts.push_back(end);
        std::sort(cuts.begin(), cuts.end());
        cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
        if (cuts.size() == 1) cuts.push_back(cuts.front());  // a single point
        for (std::size_t c = 0; c + 1 < cuts.size(); ++c) {
            CurveStretch stretch{cuts[c], cuts[c + 1], CurveTurn{0, 0}};
            for (std::size_t t = 0; t < series.size(); ++t)
                if (group[t] == group[s] && !spans[t].empty() && spans[t].lo <= stretch.xFrom &&
                    spans[t].hi >= stretch.xTo) {
                    if (t < s) ++stretch.turn.turn;
                    ++stretch.turn.groupSize;
                }
            out[s].push_back(stretch);
        }
    }
    return out;
}

Series seriesStretch(const Series& series, double xFrom, double xTo) {
    Series out = series;
    out.x.clear();
    out.y.clear();
    for (std::size_t k = 0; k < series.x.size() && k < series.y.size(); ++k)
        if (series.x[k] >= xFrom && series.x[k] <= xTo) out.x.push_back(series.x[k]), out.y.push_back(series.y[k]);
    return out;
}

bool markerInTurn(const CurveTurn& turn, std::size_t point) {
    if (turn.groupSize <= 1) return true;
    return point % static_cast<std::size_t>(turn.groupSize) == static_cast<std::size_t>(turn.turn);
}

DashPattern dashInTurn(const CurveTurn& turn, double lineWidthPx) {
    if (turn.groupSize <= 1) return {};
    // Dashes long enough to show their colour beside a wide pen, each series' one dash in the
    // period of the whole group.
    const double on = std::max(6.0, 3.0 * lineWidthPx);
    return {on, on * (turn.groupSize - 1), on * ((turn.groupSize - turn.turn) % turn.groupSize)};
}

std::vector<std::string> coincidingNote(const std::vector<CurveTurn>& turns) {
    std::vector<std::string> phrases;
    for (const CurveTurn& t : turns)
        if (t.groupSize > 1 && t.turn == 0)
            phrases.push_back(fmt::format("{} curves coincide, dashed in turn", t.groupSize));
    return phrases;
}

}  // namespace alibi
