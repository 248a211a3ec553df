// The position-schemes figure: one layout (title, plot frame, ticks, legend, caption) computed
// once at 1x, then drawn through a canvas (canvas.hpp) as SVG text or an anti-aliased raster.
#include <alibi/figure/position_schemes_figure.hpp>

#include <alibi/render/plot.hpp>

#include <alibi/render/canvas.hpp>
#include <alibi/render/label_font.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace alibi {
namespace {

constexpr Rgba kText{32, 32, 32, 255};
constexpr Rgba kCaption{80, 80, 80, 255};
constexpr Rgba kFrame{64, 64, 64, 255};
constexpr Rgba kGrid{221, 221, 221, 255};

using detail::FontWeight;

struct Line {
    std::string text;
    Rgba color = kText;
    bool bold = false;
};

struct LegendEntry {
    std::string text;
    Rgba color;
    bool dashed = false;
};

// Everything in device pixels (layout pixels times the scale).
struct FigureLayout {
    int width = 0, height = 0, scale = 1;
    double font = 13, small = 12, title = 16;
    int line = 16, smallLine = 15, titleLine = 20, margin = 12;
    double left = 0, top = 0, right = 0, bottom = 0;  // the plot frame
    double xMin = 0, xMax = 1, yMin = 0, yMax = 1;    // y in axis units: log2 of the value when logY
    bool logY = false;
    std::vector<double> xTicks, yTicks;
    std::string xLabel, yLabel;
    std::vector<LegendEntry> legend;
    double legendX = 0, legendY = 0;
    std::vector<Line> caption;  // wrapped
    double captionY = 0;
    [[nodiscard]] double px(double x) const { return left + (x - xMin) / (xMax - xMin) * (right - left); }
    [[nodiscard]] double axisY(double y) const { return logY ? std::log2(std::max(y, kSchemesAttentionFloor)) : y; }
    [[nodiscard]] double py(double y) const { return bottom - (axisY(y) - yMin) / (yMax - yMin) * (bottom - top); }
    [[nodiscard]] std::string yLabelAt(double y) const;
};

std::string tickLabel(double v) {
    if (std::fabs(v) < 1e-12) return "0";
    return fmt::format("{:.4g}", v);
}

// Text widths from the font the figure is drawn with (the SVG names the same DejaVu Sans).
int measure(std::string_view text, double size, bool bold = false) {
    return detail::textWidth(text, size, bold ? FontWeight::Bold : FontWeight::Regular);
}

// Greedy word wrap at spaces; a continuation line is indented.
std::vector<std::string> wrap(const std::string& text, double size, int width) {
    std::vector<std::string> lines;
    std::string current;
    std::size_t from = 0;
    while (from < text.size()) {
        std::size_t at = text.find(' ', from);
        if (at == std::string::npos) at = text.size();
        const std::string word = text.substr(from, at - from);
        const std::string joined = current.empty() ? word : current + " " + word;
        if (!current.empty() && measure(joined, size) > width) {
            lines.push_back(current);
            current = "    " + word;
        } else {
            current = joined;
        }
        from = at + 1;
    }
    if (!current.empty()) lines.push_back(current);
    return lines;
}

FigureLayout makeLayout(const PositionSchemes& s, int width, int height, int scale) {
    FigureLayout L;
    L.width = width * scale;
    L.height = height * scale;
    L.scale = scale;
    const double base = std::clamp(std::min(width, height) / 55.0, 10.0, 15.0);
    L.font = base * scale;
    L.small = base * 0.9 * scale;
    L.title = base * 1.2 * scale;
    L.line = detail::lineHeight(base) * scale;
    L.smallLine = detail::lineHeight(base * 0.9) * scale;
    L.titleLine = detail::lineHeight(base * 1.2) * scale;
    L.margin = static_cast<int>(std::lround(base)) * scale;
    L.xLabel = "distance d = i - j";
    L.yLabel = positionSchemesYLabel(s);
    L.legend.clear();
    int heads = 0;
    for (const PositionCurve& c : s.curves) heads += c.scheme == PositionScheme::ALiBi;
    for (const PositionCurve& c : s.curves) {
        if (!L.legend.empty() && L.legend.back().text == c.legend) continue;
        L.legend.push_back({c.legend, positionCurveColor(c, heads), positionCurveDashed(c)});
    }
    for (PositionScheme omitted : s.omitted)
        L.legend.push_back(
            {fmt::format("{}: none under zero content", positionSchemeLabel(omitted)), Rgba{170, 170, 170, 255}, true});

    // Caption: the note, then one line per scheme variant: "legend: formula. source". Text is
    // measured at 1x, so every pixel ratio breaks the same lines and lays out the same figure.
    const int inner = width - 2 * L.margin / scale;
    // The caption never takes more than a fifth of the figure: the formulas with their sources
    // where they fit, else the formulas alone, else a pointer to docs/POSITION_SCHEMES.md (the
    // figure's own legend still names every curve).
    const int maxCaptionLines = std::max(2, static_cast<int>(height / 5.0 / detail::lineHeight(base * 0.9)));
    for (const std::string& w : wrap(s.note, base * 0.9, inner)) L.caption.push_back({w, kCaption});
    const std::vector<Line> noteOnly = L.caption;
    for (const bool sources : {true, false}) {
        L.caption = noteOnly;
        for (const SchemeNote& n : schemeNotes(s)) {
            const std::string text = sources ? fmt::format("{}: {}. {}", n.legend, n.formula, n.source)
                                             : fmt::format("{}: {}", n.legend, n.formula);
            for (const std::string& w : wrap(text, base * 0.9, inner)) L.caption.push_back({w, kCaption});
        }
        if (static_cast<int>(L.caption.size()) <= maxCaptionLines) break;
    }
    if (static_cast<int>(L.caption.size()) > maxCaptionLines) {
        L.caption = noteOnly;
        for (const std::string& w :
             wrap("Each scheme's formula and source: docs/POSITION_SCHEMES.md", base * 0.9, inner))
            L.caption.push_back({w, kCaption});
    }

    // Legend column width: the longest entry plus its swatch.
    int legendWidth = 0;
    for (const LegendEntry& e : L.legend) legendWidth = std::max(legendWidth, measure(e.text, base * 0.9) * scale);
    legendWidth = std::min(legendWidth + 3 * L.margin, L.width / 3);

    L.logY = s.quantity == SchemeQuantity::Attention;
    const PlotRanges ranges = positionSchemesRanges(s);
    L.xMin = ranges.xmin, L.xMax = ranges.xmax, L.yMin = ranges.ymin, L.yMax = ranges.ymax;

    const int captionHeight = static_cast<int>(L.caption.size()) * L.smallLine;
    const int tickLabelWidth =
        scale * std::max({measure(tickLabel(L.yMin), base * 0.9), measure(tickLabel(L.yMax), base * 0.9),
                          measure("-0.0000", base * 0.9), measure("2^-40", base * 0.9)});
    L.left = L.margin + L.line + L.margin / 2 + tickLabelWidth + L.margin / 2;
    L.top = L.margin + L.titleLine + L.margin;
    L.right = L.width - L.margin - legendWidth;
    L.bottom = L.height - L.margin - captionHeight - L.margin - L.line - L.smallLine - L.margin / 2;
    L.captionY = L.height - L.margin - captionHeight;
    L.legendX = L.right + L.margin;
    L.legendY = L.top;
    L.xTicks = niceTicks(L.xMin, L.xMax, std::max(2, static_cast<int>((L.right - L.left) / (90.0 * scale))));
    const int yTarget = std::max(2, static_cast<int>((L.bottom - L.top) / (45.0 * scale)));
    if (L.logY) {
        const double step = std::max(1.0, std::ceil((L.yMax - L.yMin) / yTarget));
        for (double e = L.yMax; e >= L.yMin - 1e-9; e -= step) L.yTicks.insert(L.yTicks.begin(), std::exp2(e));
    } else {
        L.yTicks = niceTicks(L.yMin, L.yMax, yTarget);
    }
    return L;
}

std::string FigureLayout::yLabelAt(double y) const {
    return logY ? fmt::format("2^{}", static_cast<int>(std::lround(std::log2(y)))) : tickLabel(y);
}

Result<void> checkRoom(const FigureLayout& L, int width, int height) {
    if (L.right - L.left < 60 * L.scale || L.bottom - L.top < 60 * L.scale)
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("a {} x {} figure leaves no room for the position-schemes plot (its caption lists "
                                "every formula): make it at least 900 x 700 (at 1x)",
                                width, height));
    return {};
}

// Screen points of a curve, at most about two per pixel column (min and max kept), so D = 65536
// costs no more to draw than D = 1000.
std::vector<std::pair<double, double>> screenPoints(const PositionCurve& c, const FigureLayout& L) {
    std::vector<std::pair<double, double>> pts;
    const std::size_t n = std::min(c.x.size(), c.y.size());
    const double perPixel = static_cast<double>(n) / std::max(1.0, L.right - L.left);
    if (perPixel <= 2) {
        for (std::size_t k = 0; k < n; ++k)
            if (std::isfinite(c.y[k])) pts.emplace_back(L.px(c.x[k]), L.py(c.y[k]));
        return pts;
    }
    const auto columns = static_cast<std::size_t>(L.right - L.left) + 1;
    for (std::size_t col = 0; col < columns; ++col) {
        const std::size_t a = col * n / columns, b = std::min(n, (col + 1) * n / columns);
        if (a >= b) continue;
        std::size_t lo = a, hi = a;
        for (std::size_t k = a; k < b; ++k) {
            if (c.y[k] < c.y[lo]) lo = k;
            if (c.y[k] > c.y[hi]) hi = k;
        }
        for (std::size_t k : {std::min(lo, hi), std::max(lo, hi)}) pts.emplace_back(L.px(c.x[k]), L.py(c.y[k]));
    }
    return pts;
}

}  // namespace

PlotRanges positionSchemesRanges(const PositionSchemes& s) {
    double yLo = std::numeric_limits<double>::infinity(), yHi = -yLo;
    for (const PositionCurve& c : s.curves)
        for (double v : c.y)
            if (std::isfinite(v)) yLo = std::min(yLo, v), yHi = std::max(yHi, v);
    if (!(yLo <= yHi)) yLo = 0, yHi = 1;
    PlotRanges r;
    if (s.quantity == SchemeQuantity::Attention) {
        // Whole powers of two around the probabilities, at most 40 octaves below 1.
        r.ymin = std::floor(std::log2(std::max(yLo, kSchemesAttentionFloor)));
        r.ymax = std::min(0.0, std::ceil(std::log2(std::max(yHi, kSchemesAttentionFloor))));
        if (r.ymax <= r.ymin) r.ymax = r.ymin + 1;
    } else {
        if (yHi == yLo) yHi = yLo + 1;
        const double pad = 0.04 * (yHi - yLo);
        r.ymin = yLo - pad;
        r.ymax = yHi + pad;
    }
    r.xmin = 0;
    r.xmax = static_cast<double>(std::max<std::int64_t>(s.maxDistance, 1));
    return r;
}

Rgba positionCurveColor(const PositionCurve& curve, int heads) {
    switch (curve.scheme) {
        case PositionScheme::ALiBi: {
            // Mid blue (head 0, the steepest for powers of two) to light blue: readable on white figures
            // and on the explorers' dark theme alike.
            const double t = heads <= 1 ? 0.0 : static_cast<double>(std::max(curve.head, 0)) / (heads - 1);
            const auto mix = [t](int a, int b) { return static_cast<std::uint8_t>(std::lround(a + (b - a) * t)); };
            return Rgba{mix(31, 158), mix(119, 202), mix(180, 225), 255};
        }
        case PositionScheme::RoPE:
            return Rgba{214, 39, 40, 255};
        case PositionScheme::Sinusoidal:
            return Rgba{255, 127, 14, 255};
        case PositionScheme::T5:
            return Rgba{44, 160, 44, 255};
        case PositionScheme::KERPLE:
            return Rgba{148, 103, 189, 255};
        case PositionScheme::Sandwich:
            return Rgba{227, 119, 194, 255};
    }
    return kText;
}

std::string positionSchemesTitle(const PositionSchemes& s) {
    return s.quantity == SchemeQuantity::Attention
               ? fmt::format("ALiBi beside other position schemes: attention vs distance, zero content (D = {})",
                             s.maxDistance)
               : fmt::format("ALiBi beside other position schemes: logit contribution vs distance (D = {})",
                             s.maxDistance);
}

std::string positionSchemesYLabel(const PositionSchemes& s) {
    return s.quantity == SchemeQuantity::Attention ? "attention probability (log2 axis)" : "logit contribution";
}

namespace {

// The figure through a canvas: the SVG and every pixel ratio of the PNG draw these same calls.
void drawSchemes(detail::Canvas& canvas, const FigureLayout& L, const PositionSchemes& schemes) {
    using detail::Stroke;
    using detail::TextAnchor;
    using detail::TextStyle;
    int heads = 0;
    for (const PositionCurve& c : schemes.curves) heads += c.scheme == PositionScheme::ALiBi;
    canvas.text(L.margin, L.margin,
                detail::fitText(positionSchemesTitle(schemes), L.title, L.width - 2 * L.margin, FontWeight::Bold),
                TextStyle{L.title, kText, FontWeight::Bold, TextAnchor::Start, false, "title"});
    canvas.beginGroup("grid");
    for (double x : L.xTicks) canvas.line(L.px(x), L.top, L.px(x), L.bottom, Stroke{kGrid, 1});
    for (double y : L.yTicks) canvas.line(L.left, L.py(y), L.right, L.py(y), Stroke{kGrid, 1});
    canvas.endGroup();
    canvas.beginGroup("x-ticks");
    for (double x : L.xTicks)
        canvas.text(L.px(x), L.bottom + L.margin / 2.0, tickLabel(x),
                    TextStyle{L.small, kText, FontWeight::Regular, TextAnchor::Middle});
    canvas.endGroup();
    canvas.beginGroup("y-ticks");
    for (double y : L.yTicks)
        canvas.text(L.left - L.margin / 2.0, L.py(y) - L.smallLine / 2.0, L.yLabelAt(y),
                    TextStyle{L.small, kText, FontWeight::Regular, TextAnchor::End});
    canvas.endGroup();
    canvas.strokeRect(L.left, L.top, L.right - L.left, L.bottom - L.top, Stroke{kFrame, 1});
    canvas.text((L.left + L.right) / 2, L.bottom + L.margin / 2.0 + L.smallLine, L.xLabel,
                TextStyle{L.font, kText, FontWeight::Regular, TextAnchor::Middle});
    canvas.text(L.margin, (L.top + L.bottom) / 2, L.yLabel,
                TextStyle{L.font, kText, FontWeight::Regular, TextAnchor::Middle, /*upward=*/true});
    // No clip path: every point lies inside the frame (the ranges cover every curve; attention
    // below the floor is drawn on it), and some SVG renderers drop clipped groups entirely.
    canvas.beginGroup("curves");
    for (const PositionCurve& c : schemes.curves)
        canvas.polyline(screenPoints(c, L),
                        Stroke{positionCurveColor(c, heads), c.scheme == PositionScheme::ALiBi ? 1.5 : 2.2, 1,
                               positionCurveDashed(c) ? 7.0 : 0.0},
                        c.name + ": " + c.formula, c.label);
    canvas.endGroup();
    canvas.beginGroup("legend");
    for (std::size_t n = 0; n < L.legend.size(); ++n) {
        const LegendEntry& e = L.legend[n];
        const double y = L.legendY + L.smallLine * (static_cast<double>(n) + 0.5);
        canvas.line(L.legendX, y, L.legendX + 2 * L.margin - 4, y, Stroke{e.color, 3, 1, e.dashed ? 6.0 : 0.0});
        const double room = L.width - (L.legendX + 2 * L.margin) - L.margin / 2.0;
        canvas.text(L.legendX + 2 * L.margin, y - L.smallLine / 2.0, detail::fitText(e.text, L.small, room),
                    TextStyle{L.small, kText});
    }
    canvas.endGroup();
    canvas.beginGroup("caption");
    for (std::size_t n = 0; n < L.caption.size(); ++n)
        canvas.text(L.margin, L.captionY + L.smallLine * static_cast<double>(n), L.caption[n].text,
                    TextStyle{L.small, L.caption[n].color});
    canvas.endGroup();
}

}  // namespace

// The layout is computed at 1x (text measured there) and the raster canvas multiplies it, so a
// 2x PNG is the 1x figure with twice the pixels and the SVG is the same figure.
Result<std::string> renderPositionSchemesSvg(const PositionSchemesFigure& figure) {
    if (auto font = detail::loadLabelFont(); !font) return std::unexpected(font.error());
    auto schemes = positionSchemeCurves(figure.schemes);
    if (!schemes) return std::unexpected(schemes.error());
    const FigureLayout L = makeLayout(*schemes, figure.width, figure.height, 1);
    if (auto room = checkRoom(L, figure.width, figure.height); !room) return std::unexpected(room.error());
    detail::SvgCanvas canvas(L.width, L.height);
    drawSchemes(canvas, L, *schemes);
    return canvas.finish();
}

Result<Image> renderPositionSchemesPng(const PositionSchemesFigure& figure) {
    if (figure.scale != 1 && figure.scale != 2 && figure.scale != 4)
        return fail(ErrorCode::InvalidArgument, fmt::format("pixel ratio {} is not 1, 2 or 4", figure.scale));
    if (auto font = detail::loadLabelFont(); !font) return std::unexpected(font.error());
    auto schemes = positionSchemeCurves(figure.schemes);
    if (!schemes) return std::unexpected(schemes.error());
    const FigureLayout L = makeLayout(*schemes, figure.width, figure.height, 1);
    if (auto room = checkRoom(L, figure.width, figure.height); !room) return std::unexpected(room.error());
    detail::RasterCanvas canvas(L.width, L.height, figure.scale);
    drawSchemes(canvas, L, *schemes);
    return canvas.take();
}

}  // namespace alibi
