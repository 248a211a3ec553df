// PlotCanvas: a small ImDrawList plot frame (axes, ticks, labels, data-to-screen mapping) for the
// curves panel. It draws series the core computed; it computes nothing about ALiBi.
#pragma once

#include <alibi/render/plot.hpp>

#include <imgui.h>

#include <string>
#include <vector>

namespace alibi::imgui {

enum class AxisKind {
    Linear,
    Log2,        // value v plotted at log2(v) (v > 0), ticks at powers of two
    SignedLog2,  // value v plotted at sign(v) * log2(1 + |v|), for distances spanning 0..65535
};

struct PlotAxes {
    const char* title = "";
    const char* xLabel = "";
    const char* yLabel = "";
    double xMin = 0, xMax = 1, yMin = 0, yMax = 1;  // data units
    AxisKind xKind = AxisKind::Linear;
    AxisKind yKind = AxisKind::Linear;
};

class PlotCanvas {
public:
    // Reserves `size` pixels at the cursor and draws the frame, the ticks and the labels.
    PlotCanvas(const PlotAxes& axes, ImVec2 size);

    [[nodiscard]] ImVec2 toScreen(double x, double y) const;
    // Data x under the mouse, when the mouse is inside the plotting area.
    [[nodiscard]] bool hovered() const { return m_hovered; }
    [[nodiscard]] double mouseX() const;

    // One series as a polyline, thinned to about one point per pixel column (dense series would
    // otherwise cost hundreds of thousands of vertices per frame at H = 256).
    void drawSeries(const Series& series, ImU32 color, float thickness) const;
    void drawPoints(const Series& series, ImU32 color, float radius) const;

private:
    [[nodiscard]] double mapX(double x) const;
    [[nodiscard]] double mapY(double y) const;

    PlotAxes m_axes;
    ImVec2 m_min, m_max;                            // plotting area (inside the axes)
    double m_x0 = 0, m_x1 = 1, m_y0 = 0, m_y1 = 1;  // mapped ranges
    bool m_hovered = false;
    ImDrawList* m_draw = nullptr;
    mutable std::vector<ImVec2> m_points;  // scratch for polylines
};

}  // namespace alibi::imgui
