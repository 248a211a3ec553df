// Axis ticks: 1-2-5 steps on linear axes, powers of two or ten on log axes.
#include <alibi/render/format.hpp>
#include <alibi/render/plot.hpp>
#include <alibi/render/ticks.hpp>
#include <alibi/text/visible.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace alibi {

namespace {

constexpr int kMaxTicks = 64;

std::string log2Label(int k) {
    if (k == 0) return "1";
    if (k < 0 && k > -20) return fmt::format("1/{}", 1LL << (-k));
    if (k > 0 && k < 20) return fmt::format("{}", 1LL << k);
    return fmt::format("2^{}", k);
}

std::string log10Label(int k) {
    return formatValue(std::pow(10.0, k));
}

std::vector<Tick> powerTicks(double base, double lo, double hi, int target) {
    if (!(lo > 0) || !(hi >= lo) || !std::isfinite(lo) || !std::isfinite(hi)) return {};
    const double logB = std::log(base);
    const int first = static_cast<int>(std::ceil(std::log(lo) / logB - 1e-9));
    const int last = static_cast<int>(std::floor(std::log(hi) / logB + 1e-9));
    if (last < first) return {};
    const int stride =
        std::max(1, static_cast<int>(std::ceil(static_cast<double>(last - first) / std::clamp(target, 1, kMaxTicks))));
    std::vector<Tick> ticks;
    for (int k = first; k <= last && static_cast<int>(ticks.size()) < kMaxTicks; k += stride)
        ticks.push_back({std::pow(base, k), base == 2 ? log2Label(k) : log10Label(k)});
    return ticks;
}

std::vector<Tick> onePlusTicks(double lo, double hi, int target) {
    if (!std::isfinite(lo) || !std::isfinite(hi) || hi < 0) return {};
    std::vector<double> values;
    if (lo <= 0) values.push_back(0);
    for (double d = 1; d <= hi * (1 + 1e-12) && d < 1e18; d *= 2)
        if (d >= lo * (1 - 1e-12)) values.push_back(d);
    const int wanted = std::clamp(target, 1, kMaxTicks);
    const auto stride =
        static_cast<std::size_t>(std::max(1, static_cast<int>(std::ceil(static_cast<double>(values.size()) / wanted))));
    std::vector<Tick> ticks;
    for (std::size_t n = 0; n < values.size(); ++n)
        if (n % stride == 0) ticks.push_back({values[n], formatTick(values[n], 1)});
    return ticks;
}

// Each side of 0 takes Log2OnePlus ticks, the target shared by the sides' lengths on the axis
// (powers of four alone left distance 15 labelled 0, 1 and 4).
std::vector<Tick> signedOnePlusTicks(double lo, double hi, int target) {
    if (!std::isfinite(lo) || !std::isfinite(hi) || hi < lo) return {};
    const auto at = [](double v) { return axisPosition(AxisScale::SignedLog2OnePlus, v); };
    const double span = std::max(at(hi) - at(lo), 1e-9);
    const auto sideTarget = [&](double from, double to) {
        return std::max(1,
                        static_cast<int>(std::lround(std::clamp(target, 1, kMaxTicks) * (at(to) - at(from)) / span)));
    };
    std::vector<Tick> ticks;
    if (lo < 0)
        for (const Tick& t : onePlusTicks(std::max(-hi, 0.0), -lo, sideTarget(lo, std::min(hi, 0.0))))
            if (t.value > 0) ticks.push_back({-t.value, "-" + t.label});
    std::reverse(ticks.begin(), ticks.end());
    if (hi >= 0)
        for (const Tick& t : onePlusTicks(std::max(lo, 0.0), hi, sideTarget(std::max(lo, 0.0), hi))) ticks.push_back(t);
    return ticks;
}

}  // namespace

double axisPosition(AxisScale scale, double value) {
    switch (scale) {
        case AxisScale::Log2:
            return std::log2(value);
        case AxisScale::Log10:
            return std::log10(value);
        case AxisScale::Log2OnePlus:
            return std::log2(1 + value);
        case AxisScale::SignedLog2OnePlus:
            return value < 0 ? -std::log2(1 - value) : std::log2(1 + value);
        case AxisScale::Linear:
            break;
    }
    return value;
}

double axisValue(AxisScale scale, double position) {
    switch (scale) {
        case AxisScale::Log2:
            return std::exp2(position);
        case AxisScale::Log10:
            return std::pow(10.0, position);
        case AxisScale::Log2OnePlus:
            return std::exp2(position) - 1;
        case AxisScale::SignedLog2OnePlus:
            return position < 0 ? -(std::exp2(-position) - 1) : std::exp2(position) - 1;
        case AxisScale::Linear:
            break;
    }
    return position;
}

std::vector<Tick> axisTicks(AxisScale scale, double lo, double hi, int target) {
    if (scale == AxisScale::Log2OnePlus) return onePlusTicks(lo, hi, target);
    if (scale == AxisScale::SignedLog2OnePlus) return signedOnePlusTicks(lo, hi, target);
    if (scale == AxisScale::Log2) return powerTicks(2, lo, hi, target);
    if (scale == AxisScale::Log10) return powerTicks(10, lo, hi, target);
    if (!std::isfinite(lo) || !std::isfinite(hi)) return {};
    const std::vector<double> values = niceTicks(lo, hi, target);
    const double step = values.size() > 1 ? values[1] - values[0] : std::max(std::abs(lo), 1.0);
    std::vector<Tick> ticks;
    for (double v : values) ticks.push_back({v, formatTick(v, step)});
    return ticks;
}

std::vector<std::int64_t> indexTicks(std::int64_t count, double pixelsPerCell, double minPixels) {
    std::vector<std::int64_t> ticks;
    if (count <= 0) return ticks;
    std::int64_t step = 1;
    for (std::int64_t decade = 1; decade <= count; decade *= 10) {
        bool found = false;
        for (std::int64_t f : {1, 2, 5}) {
            step = f * decade;
            if (static_cast<double>(step) * pixelsPerCell >= minPixels) {
                found = true;
                break;
            }
        }
        if (found) break;
    }
    for (std::int64_t i = 0; i < count && ticks.size() < 4096; i += step) ticks.push_back(i);
    return ticks;
}

std::int64_t tokenLabelStep(double pixelsPerCell, double lineHeight) {
    if (!(pixelsPerCell > 0) || !std::isfinite(pixelsPerCell) || !std::isfinite(lineHeight)) return 0;
    if (lineHeight <= pixelsPerCell) return 1;
    const double ratio = lineHeight / pixelsPerCell;
    if (ratio > 1e9) return 0;
    auto k = static_cast<std::int64_t>(std::ceil(ratio));
    // ceil of a ratio a rounding error above an integer: the step below may already fit.
    if (k > 1 && static_cast<double>(k - 1) * pixelsPerCell >= lineHeight) --k;
    return k;
}

bool tokensFitAxis(std::int64_t count, double pixelsPerCell, double lineHeight, std::size_t tokens) {
    const std::int64_t step = tokenLabelStep(pixelsPerCell, lineHeight);
    return count > 0 && tokens == static_cast<std::size_t>(count) && step >= 1 && step <= kMaxTokenStep;
}

std::vector<IndexLabel> indexAxisLabels(std::int64_t count, double pixelsPerCell, double lineHeight,
                                        double minNumberPixels, std::span<const std::string> tokens) {
    std::vector<IndexLabel> labels;
    if (tokensFitAxis(count, pixelsPerCell, lineHeight, tokens.size())) {
        const std::int64_t step = tokenLabelStep(pixelsPerCell, lineHeight);
        for (std::int64_t i = 0; i < count; i += step)
            labels.push_back({i, text::shortenText(tokens[static_cast<std::size_t>(i)], kMaxTokenLabelChars), true});
        return labels;
    }
    for (const std::int64_t i : indexTicks(count, pixelsPerCell, minNumberPixels))
        labels.push_back({i, std::to_string(i), false});
    return labels;
}

}  // namespace alibi
