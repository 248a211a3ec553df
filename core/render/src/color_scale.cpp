// Exact colour ranges (closed form for the bias) and colour bars with exact ends.
#include <alibi/model/bias.hpp>
#include <alibi/render/color_scale.hpp>
#include <alibi/render/format.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace alibi {

ValueRange biasRange(const BiasParams& params, std::span<const double> slopes, int head) {
    // Every mode is linear in (p, j) on each side of the diagonal j = p, and the masked part is
    // the side j > p: so the extremes over the rectangle of rows [K - Q, K - 1] and keys [0, K)
    // sit at its corners or next to the diagonal. Checking those few cells per head is exact.
    ValueRange range;
    range.lo = std::numeric_limits<double>::infinity();
    range.hi = -range.lo;
    const std::int64_t K = params.keyCount(), Q = params.queries;
    if (K <= 0 || Q <= 0) return range;
    const std::int64_t pFirst = K - Q, pLast = K - 1;
    auto clampP = [&](std::int64_t p) { return std::clamp(p, pFirst, pLast); };
    auto clampJ = [&](std::int64_t j) { return std::clamp<std::int64_t>(j, 0, K - 1); };
    const int first = head < 0 ? 0 : head;
    const int last = head < 0 ? static_cast<int>(slopes.size()) - 1 : head;
    for (int h = first; h <= last && h < static_cast<int>(slopes.size()); ++h) {
        const double m = slopes[static_cast<std::size_t>(h)];
        for (std::int64_t p : {pFirst, pLast, clampP(0), clampP(K - 1), clampP(-1), clampP(1)}) {
            for (std::int64_t j : {std::int64_t{0}, K - 1, clampJ(p), clampJ(p - 1), clampJ(p + 1)}) {
                const auto v = biasCell(params.mode, m, p, j, K);
                if (!v) continue;
                const double stored = roundTo(params.dtype, *v);
                range.lo = std::min(range.lo, stored);
                range.hi = std::max(range.hi, stored);
                range.empty = false;
            }
        }
    }
    if (range.empty) range.lo = range.hi = 0;
    return range;
}

namespace {

// The end labels: four significant digits ("-10.61", "8.216e-15"), more only where the two ends
// would otherwise read the same, and never more than the stored value's exact text.
std::pair<std::string, std::string> endLabels(double lo, double hi, DType dtype) {
    const std::string exactLo = formatExact(lo, dtype), exactHi = formatExact(hi, dtype);
    for (int digits = 4; digits < 17; ++digits) {
        std::string a = formatSignificant(lo, digits), b = formatSignificant(hi, digits);
        if (a.size() >= exactLo.size()) a = exactLo;
        if (b.size() >= exactHi.size()) b = exactHi;
        if (a != b || !(hi > lo)) return {a, b};
    }
    return {exactLo, exactHi};
}

}  // namespace

DType exactTextType(double value) {
    return static_cast<double>(static_cast<float>(value)) == value ? DType::F32 : DType::F64;
}

ColorBar makeColorBar(double lo, double hi, bool log, DType dtype, int targetTicks) {
    ColorBar bar;
    bar.lo = lo;
    bar.hi = hi;
    bar.log = log && lo > 0 && hi > 0;
    const auto [loLabel, hiLabel] = endLabels(lo, hi, dtype);
    bar.ticks.push_back({lo, loLabel});
    if (!(hi > lo)) return bar;
    if (bar.log) {
        for (const Tick& t : axisTicks(AxisScale::Log10, lo, hi, targetTicks)) {
            const double a = std::log10(t.value);
            if (a - std::log10(lo) > 0.25 && std::log10(hi) - a > 0.25) bar.ticks.push_back(t);
        }
    } else {
        const std::vector<Tick> inner = axisTicks(AxisScale::Linear, lo, hi, targetTicks);
        const double step = inner.size() > 1 ? inner[1].value - inner[0].value : hi - lo;
        // A round tick too close to an end would print over the end's exact label.
        for (const Tick& t : inner)
            if (t.value - lo > 0.35 * step && hi - t.value > 0.35 * step) bar.ticks.push_back(t);
    }
    bar.ticks.push_back({hi, hiLabel});
    return bar;
}

double colorBarPosition(const ColorBar& bar, double value) {
    if (!(bar.hi > bar.lo)) return 0.5;
    double t = 0;
    if (bar.log)
        t = value > 0 ? (std::log10(value) - std::log10(bar.lo)) / (std::log10(bar.hi) - std::log10(bar.lo)) : 0;
    else
        t = (value - bar.lo) / (bar.hi - bar.lo);
    return std::clamp(std::isfinite(t) ? t : 0.0, 0.0, 1.0);
}

std::string perHeadScaleNote(const Heatmap& map, ScaleMode scale) {
    if (scale != ScaleMode::PerHead || map.tiles.size() < 2) return {};
    const bool leftOut =
        std::any_of(map.tiles.begin(), map.tiles.end(), [](const HeatmapTile& t) { return t.aboveHi; });
    return leftOut ? "per-head scale: each tile its own [lo, hi], without its rows of one key (row 0, p = 1: the "
                     "top colour, >= hi)"
                   : std::string();
}

void markColorBarEnds(ColorBar& bar) {
    if (bar.ticks.empty()) return;
    if (bar.belowFloor && !bar.ticks.front().label.starts_with("<= "))
        bar.ticks.front().label = "<= " + bar.ticks.front().label;
    if (bar.aboveTop && !bar.ticks.back().label.starts_with(">= "))
        bar.ticks.back().label = ">= " + bar.ticks.back().label;
}

ColorBar perTileColorBar(ColorBar bar, const Heatmap& map) {
    const bool above = std::any_of(map.tiles.begin(), map.tiles.end(), [](const HeatmapTile& t) { return t.aboveHi; });
    bar.lo = 0;
    bar.hi = 1;
    bar.log = false;
    bar.belowFloor = bar.aboveTop = false;
    bar.ticks = {{0.0, "tile's lo"}, {1.0, above ? ">= tile's hi" : "tile's hi"}};
    bar.head.clear();
    return bar;
}

ColorBar heatmapColorBar(const Heatmap& map, const HeatmapParams& params, int tile, int targetTicks) {
    const bool attention = params.what == RenderWhat::Attention;
    const HeatmapTile* t =
        tile >= 0 && tile < static_cast<int>(map.tiles.size()) ? &map.tiles[static_cast<std::size_t>(tile)] : nullptr;
    const double hi = t ? t->hi : map.hi;
    const double lo = map.log ? (t ? t->logLo : map.logLo) : (t ? t->lo : map.lo);
    // Attention is computed in float unless the tensor is f64; the bias is stored in its dtype.
    const DType dtype =
        attention && params.attention.bias.dtype != DType::F64 ? DType::F32 : params.attention.bias.dtype;
    ColorBar bar = makeColorBar(lo, hi, map.log, dtype, targetTicks);
    // Values below a log bar's floor (down to exact zeros) take its lowest colour: say so.
    bar.belowFloor = bar.log && (t ? t->belowLogLo : map.belowLogLo);
    bar.aboveTop = t && t->aboveHi;
    markColorBarEnds(bar);
    bar.maskedSwatch = modeMasks(params.attention.bias.mode) || params.batch.active();
    bar.fullyMaskedSwatch = map.fullyMaskedRows;
    bar.title = !attention ? "bias" : map.reduce == Reduce::Sum ? "probability mass" : "probability";
    if (bar.log) bar.title += " (log)";
    if (t) bar.head = "h" + std::to_string(t->head);
    if (!t && params.scale == ScaleMode::PerHead && params.head < 0 && map.tiles.size() > 1)
        return perTileColorBar(bar, map);
    return bar;
}

}  // namespace alibi
