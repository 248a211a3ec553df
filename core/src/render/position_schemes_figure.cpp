// The position-schemes figure: one layout (title, plot frame, ticks, legend, caption) computed
// once, then written as SVG text or rasterised (anti-aliased lines, FreeType text).
#include <alibi/render/position_schemes_figure.hpp>

#include <alibi/render/plot.hpp>

#include "label_font.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace alibi {
namespace {

constexpr Rgba kBackground{255, 255, 255, 255};
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
    double xMin = 0, xMax = 1, yMin = 0, yMax = 1;  // y in axis units: log2 of the value when logY
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
        L.legend.push_back({fmt::format("{}: none under zero content", positionSchemeLabel(omitted)), Rgba{170, 170, 170, 255}, true});

    // Caption: the note, then one line per scheme variant: "legend: formula. source". Text is
    // measured at 1x, so every pixel ratio breaks the same lines and lays out the same figure.
    const int inner = width - 2 * L.margin / scale;
    for (const std::string& w : wrap(s.note, base * 0.9, inner)) L.caption.push_back({w, kCaption});
    for (const SchemeNote& n : schemeNotes(s))
        for (const std::string& w : wrap(fmt::format("{}: {}. {}", n.legend, n.formula, n.source), base * 0.9, inner))
            L.caption.push_back({w, kCaption});

    // Legend column width: the longest entry plus its swatch.
    int legendWidth = 0;
    for (const LegendEntry& e : L.legend) legendWidth = std::max(legendWidth, measure(e.text, base * 0.9) * scale);
    legendWidth = std::min(legendWidth + 3 * L.margin, L.width / 3);

    // Ranges over every curve.
    double yLo = std::numeric_limits<double>::infinity(), yHi = -yLo;
    for (const PositionCurve& c : s.curves)
        for (double v : c.y)
            if (std::isfinite(v)) yLo = std::min(yLo, v), yHi = std::max(yHi, v);
    if (!(yLo <= yHi)) yLo = 0, yHi = 1;
    L.logY = s.quantity == SchemeQuantity::Attention;
    if (L.logY) {
        // Whole powers of two around the probabilities, at most 40 octaves below 1.
        L.yMin = std::floor(std::log2(std::max(yLo, kSchemesAttentionFloor)));
        L.yMax = std::min(0.0, std::ceil(std::log2(std::max(yHi, kSchemesAttentionFloor))));
        if (L.yMax <= L.yMin) L.yMax = L.yMin + 1;
    } else {
        if (yHi == yLo) yHi = yLo + 1;
        const double pad = 0.04 * (yHi - yLo);
        L.yMin = yLo - pad;
        L.yMax = yHi + pad;
    }
    L.xMin = 0;
    L.xMax = static_cast<double>(std::max<std::int64_t>(s.maxDistance, 1));

    const int captionHeight = static_cast<int>(L.caption.size()) * L.smallLine;
    const int tickLabelWidth = scale * std::max({measure(tickLabel(L.yMin), base * 0.9), measure(tickLabel(L.yMax), base * 0.9),
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
                                "every formula): use --width 900 --height 700 or more",
                                width, height));
    return {};
}

// ---------------------------------------------------------------------------
// SVG

std::string escapeXml(std::string_view text) {
    std::string out;
    for (char c : text) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            default: out += c;
        }
    }
    return out;
}

std::string hex(Rgba c) { return fmt::format("#{:02x}{:02x}{:02x}", c.r, c.g, c.b); }

// ---------------------------------------------------------------------------
// Raster

void blendPixel(Image& image, int x, int y, Rgba c, double coverage) {
    if (x < 0 || y < 0 || x >= image.width || y >= image.height || coverage <= 0) return;
    const double a = std::min(1.0, coverage);
    Rgba& d = image.at(x, y);
    const auto mix = [a](std::uint8_t under, std::uint8_t over) {
        return static_cast<std::uint8_t>(std::lround(over * a + under * (1 - a)));
    };
    d = Rgba{mix(d.r, c.r), mix(d.g, c.g), mix(d.b, c.b), 255};
}

// An anti-aliased segment `width` pixels wide (coverage from the distance to the segment),
// clipped to `clip` (x0, y0, x1, y1).
void drawSegment(Image& image, double x0, double y0, double x1, double y1, double width, Rgba c, const double clip[4]) {
    const double r = width / 2;
    const int bx0 = static_cast<int>(std::floor(std::max(std::min(x0, x1) - r - 1, clip[0])));
    const int bx1 = static_cast<int>(std::ceil(std::min(std::max(x0, x1) + r + 1, clip[2])));
    const int by0 = static_cast<int>(std::floor(std::max(std::min(y0, y1) - r - 1, clip[1])));
    const int by1 = static_cast<int>(std::ceil(std::min(std::max(y0, y1) + r + 1, clip[3])));
    const double dx = x1 - x0, dy = y1 - y0, len2 = dx * dx + dy * dy;
    for (int y = by0; y <= by1; ++y)
        for (int x = bx0; x <= bx1; ++x) {
            const double cx = x + 0.5, cy = y + 0.5;
            const double t = len2 > 0 ? std::clamp(((cx - x0) * dx + (cy - y0) * dy) / len2, 0.0, 1.0) : 0.0;
            const double ex = x0 + t * dx - cx, ey = y0 + t * dy - cy;
            const double dist = std::sqrt(ex * ex + ey * ey);
            const double coverage = std::clamp(r + 0.5 - dist, 0.0, 1.0);
            if (coverage <= 0) continue;
            blendPixel(image, x, y, c, coverage);
        }
}

// A polyline, dashed when `dash` > 0 (on `dash` pixels, off 0.6 dash).
void drawPolyline(Image& image, const std::vector<std::pair<double, double>>& pts, double width, Rgba c, double dash,
                  const double clip[4]) {
    double phase = 0;  // distance along the dash pattern
    const double on = dash, period = dash * 1.6;
    for (std::size_t k = 1; k < pts.size(); ++k) {
        const auto [x0, y0] = pts[k - 1];
        const auto [x1, y1] = pts[k];
        const double len = std::hypot(x1 - x0, y1 - y0);
        if (dash <= 0) {
            drawSegment(image, x0, y0, x1, y1, width, c, clip);
            continue;
        }
        double t = 0;
        while (t < len) {
            const double inPeriod = std::fmod(phase + t, period);
            const double step = std::min(len - t, inPeriod < on ? on - inPeriod : period - inPeriod);
            if (inPeriod < on && len > 0)
                drawSegment(image, x0 + (x1 - x0) * t / len, y0 + (y1 - y0) * t / len, x0 + (x1 - x0) * (t + step) / len,
                            y0 + (y1 - y0) * (t + step) / len, width, c, clip);
            t += std::max(step, 1e-6);
        }
        phase += len;
    }
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

Rgba positionCurveColor(const PositionCurve& curve, int heads) {
    switch (curve.scheme) {
        case PositionScheme::ALiBi: {
            // Mid blue (head 0, the steepest for powers of two) to light blue: readable on white figures
            // and on the explorers' dark theme alike.
            const double t = heads <= 1 ? 0.0 : static_cast<double>(std::max(curve.head, 0)) / (heads - 1);
            const auto mix = [t](int a, int b) { return static_cast<std::uint8_t>(std::lround(a + (b - a) * t)); };
            return Rgba{mix(31, 158), mix(119, 202), mix(180, 225), 255};
        }
        case PositionScheme::RoPE: return Rgba{214, 39, 40, 255};
        case PositionScheme::Sinusoidal: return Rgba{255, 127, 14, 255};
        case PositionScheme::T5: return Rgba{44, 160, 44, 255};
        case PositionScheme::KERPLE: return Rgba{148, 103, 189, 255};
        case PositionScheme::Sandwich: return Rgba{227, 119, 194, 255};
    }
    return kText;
}

std::string positionSchemesTitle(const PositionSchemes& s) {
    return s.quantity == SchemeQuantity::Attention
               ? fmt::format("ALiBi beside other position schemes: attention vs distance, zero content (D = {})",
                             s.maxDistance)
               : fmt::format("ALiBi beside other position schemes: logit contribution vs distance (D = {})", s.maxDistance);
}

std::string positionSchemesYLabel(const PositionSchemes& s) {
    return s.quantity == SchemeQuantity::Attention ? "attention probability (log2 axis)" : "logit contribution";
}

Result<std::string> renderPositionSchemesSvg(const PositionSchemesFigure& figure) {
    if (auto font = detail::loadLabelFont(); !font) return std::unexpected(font.error());
    auto schemes = positionSchemeCurves(figure.schemes);
    if (!schemes) return std::unexpected(schemes.error());
    const FigureLayout L = makeLayout(*schemes, figure.width, figure.height, 1);
    if (auto room = checkRoom(L, figure.width, figure.height); !room) return std::unexpected(room.error());
    int heads = 0;
    for (const PositionCurve& c : schemes->curves) heads += c.scheme == PositionScheme::ALiBi;

    std::string svg = fmt::format(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
        "font-family=\"DejaVu Sans, sans-serif\" font-size=\"{2:.1f}\">\n"
        "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n",
        L.width, L.height, L.small);
    svg += fmt::format("<text class=\"title\" x=\"{}\" y=\"{:.1f}\" font-size=\"{:.1f}\" font-weight=\"bold\">{}</text>\n",
                       L.margin, L.margin + L.title, L.title, escapeXml(positionSchemesTitle(*schemes)));
    svg += "<g class=\"grid\" stroke=\"#ddd\">\n";
    for (double x : L.xTicks)
        svg += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\"/>\n", L.px(x), L.top, L.bottom);
    for (double y : L.yTicks)
        svg += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{2:.1f}\" y2=\"{1:.1f}\"/>\n", L.left, L.py(y), L.right);
    svg += "</g>\n<g class=\"x-ticks\" text-anchor=\"middle\" fill=\"#202020\">\n";
    for (double x : L.xTicks)
        svg += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\">{}</text>\n", L.px(x), L.bottom + L.margin / 2 + L.small, tickLabel(x));
    svg += "</g>\n<g class=\"y-ticks\" text-anchor=\"end\" fill=\"#202020\">\n";
    for (double y : L.yTicks)
        svg += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\">{}</text>\n", L.left - L.margin / 2, L.py(y) + L.small / 3, L.yLabelAt(y));
    svg += "</g>\n";
    svg += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"none\" stroke=\"#404040\"/>\n",
                       L.left, L.top, L.right - L.left, L.bottom - L.top);
    svg += fmt::format("<text class=\"x-label\" x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\" font-size=\"{:.1f}\">{}</text>\n",
                       (L.left + L.right) / 2, L.bottom + L.margin / 2 + L.smallLine + L.font, L.font, escapeXml(L.xLabel));
    svg += fmt::format("<text class=\"y-label\" transform=\"translate({:.1f} {:.1f}) rotate(-90)\" text-anchor=\"middle\" "
                       "font-size=\"{:.1f}\">{}</text>\n",
                       L.margin + L.font, (L.top + L.bottom) / 2, L.font, escapeXml(L.yLabel));
    // No clip path: every point lies inside the frame (the ranges cover every curve; attention
    // below the floor is drawn on it), and some SVG renderers drop clipped groups entirely.
    svg += "<g class=\"curves\" fill=\"none\" stroke-linejoin=\"round\">\n";
    for (const PositionCurve& c : schemes->curves) {
        std::string points;
        for (const auto& [x, y] : screenPoints(c, L)) points += fmt::format("{:.2f},{:.2f} ", x, y);
        svg += fmt::format("<polyline data-label=\"{}\" stroke=\"{}\" stroke-width=\"{}\"{} points=\"{}\"><title>{}: {}</title></polyline>\n",
                           escapeXml(c.label), hex(positionCurveColor(c, heads)), c.scheme == PositionScheme::ALiBi ? 1.5 : 2.2,
                           positionCurveDashed(c) ? " stroke-dasharray=\"7 4\"" : "", points, escapeXml(c.name),
                           escapeXml(c.formula));
    }
    svg += "</g>\n<g class=\"legend\">\n";
    for (std::size_t n = 0; n < L.legend.size(); ++n) {
        const LegendEntry& e = L.legend[n];
        const double y = L.legendY + L.smallLine * (static_cast<double>(n) + 0.5);
        svg += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{2:.1f}\" y2=\"{1:.1f}\" stroke=\"{3}\" stroke-width=\"3\"{4}/>"
                           "<text x=\"{5:.1f}\" y=\"{6:.1f}\">{7}</text>\n",
                           L.legendX, y, L.legendX + 2 * L.margin - 4, hex(e.color), e.dashed ? " stroke-dasharray=\"6 3\"" : "",
                           L.legendX + 2 * L.margin, y + L.small / 3, escapeXml(e.text));
    }
    svg += "</g>\n<g class=\"caption\" fill=\"#505050\">\n";
    for (std::size_t n = 0; n < L.caption.size(); ++n)
        svg += fmt::format("<text x=\"{}\" y=\"{:.1f}\" xml:space=\"preserve\">{}</text>\n", L.margin,
                           L.captionY + L.smallLine * static_cast<double>(n) + L.small, escapeXml(L.caption[n].text));
    svg += "</g>\n</svg>\n";
    return svg;
}

Result<Image> renderPositionSchemesPng(const PositionSchemesFigure& figure) {
    if (auto font = detail::loadLabelFont(); !font) return std::unexpected(font.error());
    auto schemes = positionSchemeCurves(figure.schemes);
    if (!schemes) return std::unexpected(schemes.error());
    const int scale = std::max(figure.scale, 1);
    const FigureLayout L = makeLayout(*schemes, figure.width, figure.height, scale);
    if (auto room = checkRoom(L, figure.width, figure.height); !room) return std::unexpected(room.error());
    int heads = 0;
    for (const PositionCurve& c : schemes->curves) heads += c.scheme == PositionScheme::ALiBi;

    Image out;
    out.width = L.width;
    out.height = L.height;
    out.pixels.assign(static_cast<std::size_t>(out.width) * out.height, kBackground);
    const auto round = [](double v) { return static_cast<int>(std::lround(v)); };
    const int stroke = scale;
    detail::drawText(out, L.margin, L.margin,
                     detail::elideText(positionSchemesTitle(*schemes), L.title, L.width - 2 * L.margin, FontWeight::Bold),
                     L.title, kText, FontWeight::Bold);
    for (double x : L.xTicks) {
        detail::fillRect(out, round(L.px(x)), round(L.top), stroke, round(L.bottom - L.top), kGrid);
        const std::string label = tickLabel(x);
        detail::drawText(out, round(L.px(x)) - detail::textWidth(label, L.small) / 2, round(L.bottom) + L.margin / 2, label,
                         L.small, kText);
    }
    for (double y : L.yTicks) {
        detail::fillRect(out, round(L.left), round(L.py(y)), round(L.right - L.left), stroke, kGrid);
        const std::string label = L.yLabelAt(y);
        detail::drawText(out, round(L.left) - L.margin / 2 - detail::textWidth(label, L.small),
                         round(L.py(y)) - L.smallLine / 2, label, L.small, kText);
    }
    // Frame.
    detail::fillRect(out, round(L.left), round(L.top), round(L.right - L.left), stroke, kFrame);
    detail::fillRect(out, round(L.left), round(L.bottom), round(L.right - L.left) + stroke, stroke, kFrame);
    detail::fillRect(out, round(L.left), round(L.top), stroke, round(L.bottom - L.top), kFrame);
    detail::fillRect(out, round(L.right), round(L.top), stroke, round(L.bottom - L.top), kFrame);
    detail::drawText(out, round((L.left + L.right) / 2) - detail::textWidth(L.xLabel, L.font) / 2,
                     round(L.bottom) + L.margin / 2 + L.smallLine, L.xLabel, L.font, kText);
    detail::drawText(out, L.margin, round((L.top + L.bottom) / 2) - detail::textWidth(L.yLabel, L.font) / 2, L.yLabel, L.font,
                     kText, FontWeight::Regular, /*vertical=*/true);

    const double clip[4] = {L.left + stroke, L.top + stroke, L.right - 1, L.bottom - 1};
    for (const PositionCurve& c : schemes->curves) {
        const double w = (c.scheme == PositionScheme::ALiBi ? 1.5 : 2.2) * scale;
        drawPolyline(out, screenPoints(c, L), w, positionCurveColor(c, heads), positionCurveDashed(c) ? 7.0 * scale : 0.0,
                     clip);
    }
    const double all[4] = {0, 0, static_cast<double>(out.width - 1), static_cast<double>(out.height - 1)};
    for (std::size_t n = 0; n < L.legend.size(); ++n) {
        const LegendEntry& e = L.legend[n];
        const double y = L.legendY + L.smallLine * (static_cast<double>(n) + 0.5);
        drawPolyline(out, std::vector<std::pair<double, double>>{{L.legendX, y}, {L.legendX + 2 * L.margin - 4 * scale, y}}, 3.0 * scale, e.color,
                     e.dashed ? 6.0 * scale : 0.0, all);
        const int room = L.width - round(L.legendX + 2 * L.margin) - L.margin / 2;
        detail::drawText(out, round(L.legendX + 2 * L.margin), round(y) - L.smallLine / 2,
                         detail::elideText(e.text, L.small, room), L.small, kText);
    }
    for (std::size_t n = 0; n < L.caption.size(); ++n)
        detail::drawText(out, L.margin, round(L.captionY) + L.smallLine * static_cast<int>(n), L.caption[n].text, L.small,
                         L.caption[n].color);
    return out;
}

}  // namespace alibi
