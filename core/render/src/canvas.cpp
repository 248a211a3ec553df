// The two canvases of canvas.hpp: SVG text and an anti-aliased raster, fed the same calls.
#include <alibi/render/canvas.hpp>
#include <alibi/render/dashes.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace alibi::detail {

namespace {

// The gap after each dash: the stroke's own, or the default 0.6 of the dash.
double dashGap(const Stroke& s) {
    return s.dashGap >= 0 ? s.dashGap : 0.6 * s.dash;
}

}  // namespace

// ---------------------------------------------------------------------------
// Text metrics

double measureText(std::string_view text, double size, FontWeight weight) {
    return textWidth(text, size, weight);
}

double textLine(double size) {
    return lineHeight(size);
}

std::string fitText(std::string_view text, double size, double width, FontWeight weight) {
    return elideText(text, size, static_cast<int>(std::floor(width)), weight);
}

std::vector<std::string> wrapWords(std::string_view text, double size, double width, FontWeight weight) {
    std::vector<std::string> lines;
    std::string current;
    std::size_t from = 0;
    while (from < text.size()) {
        std::size_t at = text.find(' ', from);
        if (at == std::string_view::npos) at = text.size();
        const std::string word(text.substr(from, at - from));
        const std::string joined = current.empty() ? word : current + " " + word;
        if (!current.empty() && measureText(joined, size, weight) > width) {
            lines.push_back(fitText(current, size, width, weight));
            current = word;
        } else {
            current = joined;
        }
        from = at + 1;
    }
    if (!current.empty()) lines.push_back(fitText(current, size, width, weight));
    return lines;
}

std::string hexColor(Rgba c) {
    return fmt::format("#{:02x}{:02x}{:02x}", c.r, c.g, c.b);
}

std::string escapeXml(std::string_view text) {
    std::string out;
    for (char c : text) {
        switch (c) {
            case '&':
                out += "&amp;";
                break;
            case '<':
                out += "&lt;";
                break;
            case '>':
                out += "&gt;";
                break;
            case '"':
                out += "&quot;";
                break;
            default:
                out += c;
        }
    }
    return out;
}

// ---------------------------------------------------------------------------
// SVG

namespace {

std::string strokeAttributes(const Stroke& s) {
    std::string out = fmt::format(" stroke=\"{}\" stroke-width=\"{:.3g}\"", hexColor(s.color), s.width);
    if (s.opacity < 1) out += fmt::format(" stroke-opacity=\"{:.3g}\"", s.opacity);
    if (s.dash > 0) {
        out += fmt::format(" stroke-dasharray=\"{:.3g} {:.3g}\"", s.dash, dashGap(s));
        if (s.dashOffset != 0) out += fmt::format(" stroke-dashoffset=\"{:.3g}\"", s.dashOffset);
    }
    return out;
}

std::string tooltipElement(std::string_view tooltip) {
    return tooltip.empty() ? std::string() : fmt::format("<title>{}</title>", escapeXml(tooltip));
}

}  // namespace

SvgCanvas::SvgCanvas(int width, int height) {
    m_svg = fmt::format(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} "
        "{1}\" "
        "font-family=\"DejaVu Sans, sans-serif\">\n"
        "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n",
        width, height);
}

void SvgCanvas::line(double x0, double y0, double x1, double y1, const Stroke& stroke) {
    m_svg += fmt::format("<line x1=\"{:.2f}\" y1=\"{:.2f}\" x2=\"{:.2f}\" y2=\"{:.2f}\"{}/>\n", x0, y0, x1, y1,
                         strokeAttributes(stroke));
}

void SvgCanvas::polyline(const std::vector<Point>& points, const Stroke& stroke, std::string_view tooltip,
                         std::string_view label) {
    std::string pts;
    for (const auto& [x, y] : points) pts += fmt::format("{:.2f},{:.2f} ", x, y);
    if (!pts.empty()) pts.pop_back();
    const std::string dataLabel = label.empty() ? std::string() : fmt::format(" data-label=\"{}\"", escapeXml(label));
    m_svg += fmt::format("<polyline{} fill=\"none\" stroke-linejoin=\"round\"{} points=\"{}\">{}</polyline>\n",
                         dataLabel, strokeAttributes(stroke), pts, tooltipElement(tooltip));
}

void SvgCanvas::fillRect(double x, double y, double width, double height, Rgba fill, double opacity,
                         std::string_view tooltip) {
    m_svg += fmt::format("<rect x=\"{:.2f}\" y=\"{:.2f}\" width=\"{:.2f}\" height=\"{:.2f}\" fill=\"{}\"{}>{}</rect>\n",
                         x, y, width, height, hexColor(fill),
                         opacity < 1 ? fmt::format(" fill-opacity=\"{:.3g}\"", opacity) : "", tooltipElement(tooltip));
}

void SvgCanvas::strokeRect(double x, double y, double width, double height, const Stroke& stroke) {
    m_svg += fmt::format("<rect x=\"{:.2f}\" y=\"{:.2f}\" width=\"{:.2f}\" height=\"{:.2f}\" fill=\"none\"{}/>\n", x, y,
                         width, height, strokeAttributes(stroke));
}

void SvgCanvas::circle(double cx, double cy, double r, Rgba fill) {
    m_svg += fmt::format("<circle cx=\"{:.2f}\" cy=\"{:.2f}\" r=\"{:.3g}\" fill=\"{}\"/>\n", cx, cy, r, hexColor(fill));
}

void SvgCanvas::text(double x, double y, std::string_view text, const TextStyle& style) {
    if (text.empty()) return;
    const char* anchor = style.anchor == TextAnchor::Middle ? "middle"
                         : style.anchor == TextAnchor::End  ? "end"
                                                            : "start";
    const double ascent = lineAscent(style.size);
    std::string attributes = fmt::format("font-size=\"{:.3g}\" fill=\"{}\"", style.size, hexColor(style.color));
    if (style.weight == FontWeight::Bold) attributes += " font-weight=\"bold\"";
    if (style.svgClass) attributes = fmt::format("class=\"{}\" {}", style.svgClass, attributes);
    if (style.anchor != TextAnchor::Start) attributes += fmt::format(" text-anchor=\"{}\"", anchor);
    if (style.upward)
        m_svg += fmt::format(
            "<text transform=\"translate({:.2f} {:.2f}) rotate(-90)\" {} xml:space=\"preserve\">{}</text>\n",
            x + ascent, y, attributes, escapeXml(text));
    else
        m_svg += fmt::format("<text x=\"{:.2f}\" y=\"{:.2f}\" {} xml:space=\"preserve\">{}</text>\n", x, y + ascent,
                             attributes, escapeXml(text));
}

void SvgCanvas::beginGroup(std::string_view name) {
    m_svg += fmt::format("<g class=\"{}\">\n", escapeXml(name));
}

void SvgCanvas::endGroup() {
    m_svg += "</g>\n";
}

std::string SvgCanvas::finish() {
    return m_svg + "</svg>\n";
}

// ---------------------------------------------------------------------------
// Raster

namespace {

void blendPixel(Image& image, int x, int y, Rgba c, double coverage) {
    if (x < 0 || y < 0 || x >= image.width || y >= image.height || coverage <= 0) return;
    const double a = std::min(1.0, coverage);
    Rgba& d = image.at(x, y);
    const auto mix = [a](std::uint8_t under, std::uint8_t over) {
        return static_cast<std::uint8_t>(std::lround(over * a + under * (1 - a)));
    };
    d = Rgba{mix(d.r, c.r), mix(d.g, c.g), mix(d.b, c.b), 255};
}

// An anti-aliased segment `width` device pixels wide (coverage from the distance to the segment).
void drawSegment(Image& image, double x0, double y0, double x1, double y1, double width, Rgba c, double opacity) {
    const double r = width / 2;
    const int bx0 = std::max(0, static_cast<int>(std::floor(std::min(x0, x1) - r - 1)));
    const int bx1 = std::min(image.width - 1, static_cast<int>(std::ceil(std::max(x0, x1) + r + 1)));
    const int by0 = std::max(0, static_cast<int>(std::floor(std::min(y0, y1) - r - 1)));
    const int by1 = std::min(image.height - 1, static_cast<int>(std::ceil(std::max(y0, y1) + r + 1)));
    const double dx = x1 - x0, dy = y1 - y0, len2 = dx * dx + dy * dy;
    for (int y = by0; y <= by1; ++y)
        for (int x = bx0; x <= bx1; ++x) {
            const double cx = x + 0.5, cy = y + 0.5;
            const double t = len2 > 0 ? std::clamp(((cx - x0) * dx + (cy - y0) * dy) / len2, 0.0, 1.0) : 0.0;
            const double ex = x0 + t * dx - cx, ey = y0 + t * dy - cy;
            const double coverage = std::clamp(r + 0.5 - std::sqrt(ex * ex + ey * ey), 0.0, 1.0);
            if (coverage > 0) blendPixel(image, x, y, c, coverage * opacity);
        }
}

// A polyline in device pixels, dashed when `dash` > 0 (on `dash`, off `gap`, starting `offset`
// into the pattern).
void drawPolyline(Image& image, const std::vector<Point>& pts, double width, Rgba c, double opacity, double dash,
                  double gap, double offset) {
    for (const std::vector<Point>& piece : dashSegments(pts, dash, gap, offset))  // dash <= 0: the whole line
        for (std::size_t k = 1; k < piece.size(); ++k)
            drawSegment(image, piece[k - 1].first, piece[k - 1].second, piece[k].first, piece[k].second, width, c,
                        opacity);
}

// Fills device pixels [x0, x1) x [y0, y1), blending by `opacity`.
void fillPixels(Image& image, int x0, int y0, int x1, int y1, Rgba c, double opacity) {
    x0 = std::max(x0, 0), y0 = std::max(y0, 0);
    x1 = std::min(x1, image.width), y1 = std::min(y1, image.height);
    for (int y = y0; y < y1; ++y)
        for (int x = x0; x < x1; ++x) {
            if (opacity >= 1)
                image.at(x, y) = Rgba{c.r, c.g, c.b, 255};
            else
                blendPixel(image, x, y, c, opacity);
        }
}

int snap(double v) {
    return static_cast<int>(std::lround(v));
}

}  // namespace

RasterCanvas::RasterCanvas(int width, int height, int scale) : m_scale(scale) {
    m_image.width = width * scale;
    m_image.height = height * scale;
    m_image.pixels.assign(static_cast<std::size_t>(m_image.width) * m_image.height, Rgba{255, 255, 255, 255});
}

void RasterCanvas::line(double x0, double y0, double x1, double y1, const Stroke& stroke) {
    const double s = m_scale, w = stroke.width * s;
    if (stroke.dash <= 0 && (x0 == x1 || y0 == y1)) {
        // Axis-parallel: whole device pixels, a 1x hairline exactly one pixel.
        const int thick = std::max(1, snap(w));
        if (x0 == x1) {
            const int x = snap(x0 * s - w / 2);
            fillPixels(m_image, x, snap(std::min(y0, y1) * s), x + thick, snap(std::max(y0, y1) * s), stroke.color,
                       stroke.opacity);
        } else {
            const int y = snap(y0 * s - w / 2);
            fillPixels(m_image, snap(std::min(x0, x1) * s), y, snap(std::max(x0, x1) * s), y + thick, stroke.color,
                       stroke.opacity);
        }
        return;
    }
    polyline({{x0, y0}, {x1, y1}}, stroke, {}, {});
}

void RasterCanvas::polyline(const std::vector<Point>& points, const Stroke& stroke, std::string_view,
                            std::string_view) {
    std::vector<Point> device;
    device.reserve(points.size());
    for (const auto& [x, y] : points) device.emplace_back(x * m_scale, y * m_scale);
    drawPolyline(m_image, device, stroke.width * m_scale, stroke.color, stroke.opacity, stroke.dash * m_scale,
                 dashGap(stroke) * m_scale, stroke.dashOffset * m_scale);
}

void RasterCanvas::fillRect(double x, double y, double width, double height, Rgba fill, double opacity,
                            std::string_view) {
    const double s = m_scale;
    fillPixels(m_image, snap(x * s), snap(y * s), snap((x + width) * s), snap((y + height) * s), fill, opacity);
}

void RasterCanvas::strokeRect(double x, double y, double width, double height, const Stroke& stroke) {
    line(x, y, x + width, y, stroke);
    line(x, y + height, x + width, y + height, stroke);
    line(x, y, x, y + height, stroke);
    line(x + width, y, x + width, y + height, stroke);
    // The corner pixel the half-open spans leave out.
    const double s = m_scale, w = stroke.width * s;
    const int thick = std::max(1, snap(w));
    fillPixels(m_image, snap((x + width) * s - w / 2), snap((y + height) * s - w / 2),
               snap((x + width) * s - w / 2) + thick, snap((y + height) * s - w / 2) + thick, stroke.color,
               stroke.opacity);
}

void RasterCanvas::circle(double cx, double cy, double r, Rgba fill) {
    const double s = m_scale, x = cx * s, y = cy * s, rr = r * s;
    for (int py = std::max(0, static_cast<int>(y - rr - 1));
         py <= std::min(m_image.height - 1, static_cast<int>(y + rr + 1)); ++py)
        for (int px = std::max(0, static_cast<int>(x - rr - 1));
             px <= std::min(m_image.width - 1, static_cast<int>(x + rr + 1)); ++px)
            blendPixel(m_image, px, py, fill, std::clamp(rr + 0.5 - std::hypot(px + 0.5 - x, py + 0.5 - y), 0.0, 1.0));
}

void RasterCanvas::text(double x, double y, std::string_view text, const TextStyle& style) {
    if (text.empty()) return;
    const double size = style.size * m_scale;
    const int width = textWidth(text, size, style.weight);
    const int shift = style.anchor == TextAnchor::Middle ? width / 2 : style.anchor == TextAnchor::End ? width : 0;
    if (!style.upward) {
        drawText(m_image, snap(x * m_scale) - shift, snap(y * m_scale), text, size, style.color, style.weight);
        return;
    }
    // Upwards: draw the line into the region turned a quarter clockwise, then turn it back, so
    // the glyphs blend over whatever lies beneath them.
    const int line = lineHeight(size), length = width + 2;
    const int left = snap(x * m_scale), bottom = snap(y * m_scale) + shift;
    Image turned;
    turned.width = length;
    turned.height = line;
    turned.pixels.assign(static_cast<std::size_t>(length) * line, Rgba{255, 255, 255, 255});
    const auto source = [&](int tx, int ty, auto&& visit) {
        const int dx = left + ty, dy = bottom - 1 - tx;
        if (dx >= 0 && dy >= 0 && dx < m_image.width && dy < m_image.height) visit(m_image.at(dx, dy));
    };
    for (int ty = 0; ty < line; ++ty)
        for (int tx = 0; tx < length; ++tx) source(tx, ty, [&](Rgba& p) { turned.at(tx, ty) = p; });
    drawText(turned, 0, 0, text, size, style.color, style.weight);
    for (int ty = 0; ty < line; ++ty)
        for (int tx = 0; tx < length; ++tx) source(tx, ty, [&](Rgba& p) { p = turned.at(tx, ty); });
}

}  // namespace alibi::detail
