// The drawing surface of the vector figures (line plots, stages, extrapolation, position
// schemes): a figure is laid out once, in layout pixels (the 1x figure), and drawn through a
// Canvas, which either writes SVG text or rasterises the same calls into an anti-aliased Image at
// 1x, 2x or 4x. Text is DejaVu Sans measured with FreeType (label_font.hpp) in both, so the SVG
// places every label where the PNG draws it.
#pragma once

#include <alibi/base/error.hpp>
#include <alibi/render/render.hpp>

#include <alibi/render/label_font.hpp>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace alibi::detail {

using Point = std::pair<double, double>;

struct Stroke {
    Rgba color{32, 32, 32, 255};
    double width = 1;       // layout pixels
    double opacity = 1;     // 0..1
    double dash = 0;        // > 0: dashed, `dash` on and then `dashGap` off
    double dashGap = -1;    // < 0: 0.6 `dash`
    double dashOffset = 0;  // how far into its period the pattern starts (SVG's stroke-dashoffset)
};

enum class TextAnchor { Start, Middle, End };

struct TextStyle {
    double size = 12;  // pixels per em at 1x
    Rgba color{32, 32, 32, 255};
    FontWeight weight = FontWeight::Regular;
    TextAnchor anchor = TextAnchor::Start;
    // Turned a quarter anticlockwise, reading upwards (a y axis label): (x, y) is then the left
    // edge of the turned line box and the anchor point along it.
    bool upward = false;
    const char* svgClass = nullptr;  // SVG: the element's class (the figure's title), for readers
};

// Text metrics in layout pixels, the same for both canvases (zero until loadLabelFont succeeded).
[[nodiscard]] double measureText(std::string_view text, double size, FontWeight weight = FontWeight::Regular);
[[nodiscard]] double textLine(double size);
// `text` cut to `width` layout pixels, ending in "…" when cut.
[[nodiscard]] std::string fitText(std::string_view text, double size, double width,
                                  FontWeight weight = FontWeight::Regular);
// Greedy word wrap at spaces into lines of at most `width` layout pixels (a word longer than a
// line is elided).
[[nodiscard]] std::vector<std::string> wrapWords(std::string_view text, double size, double width,
                                                 FontWeight weight = FontWeight::Regular);

class Canvas {
public:
    virtual ~Canvas() = default;
    // `tooltip` is what an SVG viewer shows on hover (the series and value); the raster ignores it.
    virtual void line(double x0, double y0, double x1, double y1, const Stroke& stroke) = 0;
    // `label`: the SVG's data-label attribute (which curve this is, for scripts reading it back).
    virtual void polyline(const std::vector<Point>& points, const Stroke& stroke, std::string_view tooltip = {},
                          std::string_view label = {}) = 0;
    virtual void fillRect(double x, double y, double width, double height, Rgba fill, double opacity = 1,
                          std::string_view tooltip = {}) = 0;
    virtual void strokeRect(double x, double y, double width, double height, const Stroke& stroke) = 0;
    virtual void circle(double cx, double cy, double r, Rgba fill) = 0;
    // One line of text with the top of its line box at y.
    virtual void text(double x, double y, std::string_view text, const TextStyle& style) = 0;
    // A named group (SVG <g class="...">, which tests and scripts read back); the raster ignores it.
    virtual void beginGroup(std::string_view) {}
    virtual void endGroup() {}
};

// A standalone SVG 1.1 document of width x height layout pixels.
class SvgCanvas final : public Canvas {
public:
    SvgCanvas(int width, int height);
    void line(double x0, double y0, double x1, double y1, const Stroke& stroke) override;
    void polyline(const std::vector<Point>& points, const Stroke& stroke, std::string_view tooltip,
                  std::string_view label) override;
    void fillRect(double x, double y, double width, double height, Rgba fill, double opacity,
                  std::string_view tooltip) override;
    void strokeRect(double x, double y, double width, double height, const Stroke& stroke) override;
    void circle(double cx, double cy, double r, Rgba fill) override;
    void text(double x, double y, std::string_view text, const TextStyle& style) override;
    void beginGroup(std::string_view name) override;
    void endGroup() override;
    [[nodiscard]] std::string finish();

private:
    std::string m_svg;
};

// The same calls rasterised into (width * scale) x (height * scale) pixels on white: lines and
// circles anti-aliased by their coverage, axis-parallel hairlines snapped to whole pixels so grid
// lines stay crisp, text by FreeType at `scale` times the size.
class RasterCanvas final : public Canvas {
public:
    RasterCanvas(int width, int height, int scale);
    void line(double x0, double y0, double x1, double y1, const Stroke& stroke) override;
    void polyline(const std::vector<Point>& points, const Stroke& stroke, std::string_view tooltip,
                  std::string_view label) override;
    void fillRect(double x, double y, double width, double height, Rgba fill, double opacity,
                  std::string_view tooltip) override;
    void strokeRect(double x, double y, double width, double height, const Stroke& stroke) override;
    void circle(double cx, double cy, double r, Rgba fill) override;
    void text(double x, double y, std::string_view text, const TextStyle& style) override;
    [[nodiscard]] Image take() { return std::move(m_image); }

private:
    Image m_image;
    int m_scale = 1;
};

// "#rrggbb".
[[nodiscard]] std::string hexColor(Rgba color);
[[nodiscard]] std::string escapeXml(std::string_view text);

}  // namespace alibi::detail
