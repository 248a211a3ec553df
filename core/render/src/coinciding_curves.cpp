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

}  // namespace

std::vector<CurveTurn> coincidingCurves(const std::vector<Series>& series, const CurveAxes& axes) {
    const std::size_t count = series.size();
    std::vector<CurveTurn> turns(count);
    if (count < 2 || count > kMostDashed) return turns;
    const double tolerance = kSameLine * std::abs(axes.yHi - axes.yLo);
    const auto drawn = [&](double x, double y) {
        return std::isfinite(x) && std::isfinite(y) && !(axes.logX && x < 0) && !(axes.logY && y <= 0);
    };
    const auto axisY = [&](double y) { return axes.logY ? std::log2(y) : y; };
    const auto coincide = [&](const Series& a, const Series& b) {
        std::unordered_map<double, double> at;
        for (std::size_t k = 0; k < a.x.size() && k < a.y.size(); ++k)
            if (drawn(a.x[k], a.y[k])) at.emplace(a.x[k], axisY(a.y[k]));
        int shared = 0;
        for (std::size_t k = 0; k < b.x.size() && k < b.y.size(); ++k) {
            if (!drawn(b.x[k], b.y[k])) continue;
            const auto it = at.find(b.x[k]);
            if (it == at.end()) continue;
            if (std::abs(it->second - axisY(b.y[k])) > tolerance) return false;
            ++shared;
        }
        return shared >= 2;
    };
    std::vector<std::size_t> group(count, count);  // index of the group's first series
    for (std::size_t s = 0; s < count; ++s) {
        if (group[s] < count) continue;
        group[s] = s;
        for (std::size_t t = s + 1; t < count; ++t)
            if (group[t] == count && coincide(series[s], series[t])) group[t] = s;
    }
    for (std::size_t s = 0; s < count; ++s) {
        turns[s] = {0, 0};
        for (std::size_t t = 0; t < count; ++t)
            if (group[t] == group[s]) {
                if (t < s) ++turns[s].turn;
                ++turns[s].groupSize;
            }
    }
    return turns;
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
