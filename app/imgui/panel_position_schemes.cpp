// The position-schemes view (view id `position-schemes`): ALiBi's per-head bias beside RoPE,
// sinusoidal, T5, KERPLE and Sandwich on one distance axis, drawn from the core's curves in the
// figure's colours. Beside the plot a table is the legend and the hover read-out (every curve's
// value at the hovered distance); under it each curve's formula and source.
#include "panels.hpp"
#include "plot_canvas.hpp"
#include "position_schemes_model.hpp"
#include "view_common.hpp"

#include <alibi/figure/position_schemes_figure.hpp>

#include <imgui.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace alibi::imgui {

namespace {

// The explorers offer D up to this (the core allows kMaxSchemeDistance).
constexpr int kViewMaxDistance = 4096;

ImU32 toImColor(Rgba c) {
    return IM_COL32(c.r, c.g, c.b, 255);
}

// A curve dashed in screen space: segments of `dash` pixels on and 0.6 dash off.
void drawDashed(const PlotCanvas& canvas, const PositionCurve& c, ImU32 color, float thickness) {
    ImDrawList* draw = ImGui::GetWindowDrawList();
    const float dash = 7.0f;
    float phase = 0.0f;
    const std::size_t n = std::min(c.x.size(), c.y.size());
    const std::size_t step = std::max<std::size_t>(1, n / 2000);
    for (std::size_t k = step; k < n; k += step) {
        const ImVec2 a = canvas.toScreen(c.x[k - step], c.y[k - step]);
        const ImVec2 b = canvas.toScreen(c.x[k], c.y[k]);
        const float len = std::hypot(b.x - a.x, b.y - a.y);
        float t = 0.0f;
        while (t < len) {
            const float inPeriod = std::fmod(phase + t, 1.6f * dash);
            const float piece = std::min(len - t, inPeriod < dash ? dash - inPeriod : 1.6f * dash - inPeriod);
            if (inPeriod < dash) {
                const float t0 = t / len, t1 = (t + piece) / len;
                draw->AddLine(ImVec2(a.x + (b.x - a.x) * t0, a.y + (b.y - a.y) * t0),
                              ImVec2(a.x + (b.x - a.x) * t1, a.y + (b.y - a.y) * t1), color, thickness);
            }
            t += std::max(piece, 0.01f);
        }
        phase += len;
    }
}

}  // namespace

void drawPositionSchemesView(AppState& state, const Model& model) {
    // Controls: what to draw and the distance axis.
    // The two controls share the line at their full widths where it is wide enough; on a narrow
    // view (the Parameters panel open in presentation mode) they shrink to share it, their
    // labels whole ("max distance D" ran off the edge at 1920x1080).
    int quantity = state.schemesQuantity == SchemeQuantity::Attention ? 1 : 0;
    const float labelsWidth = ImGui::CalcTextSize("show").x + ImGui::CalcTextSize("max distance D").x +
                              2.0f * ImGui::GetStyle().ItemInnerSpacing.x + ImGui::GetStyle().ItemSpacing.x;
    const float controlsScale =
        std::min(1.0f, (ImGui::GetContentRegionAvail().x - labelsWidth) / (ImGui::GetFontSize() * 32.0f));
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 18.0f * controlsScale);
    if (ImGui::Combo("show", &quantity, "logit contribution\0attention vs distance (zero content)\0"))
        state.schemesQuantity = quantity == 1 ? SchemeQuantity::Attention : SchemeQuantity::Logit;
    ImGui::SameLine();
    int maxDistance = static_cast<int>(std::clamp<std::int64_t>(state.schemesMaxDistance, 1, kViewMaxDistance));
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 14.0f * controlsScale);
    if (ImGui::SliderInt("max distance D", &maxDistance, 1, kViewMaxDistance, "%d", ImGuiSliderFlags_Logarithmic))
        state.schemesMaxDistance = std::clamp(maxDistance, 1, kViewMaxDistance);

    const PositionSchemesResult* result = model.positionSchemes.get();
    if (result == nullptr) {
        ImGui::TextDisabled("Computing the curves...");
        return;
    }
    if (!result->error.empty()) {
        coreErrorText(result->error);
        return;
    }
    const PositionSchemes& s = result->schemes;
    int heads = 0;
    for (const PositionCurve& c : s.curves) heads += c.scheme == PositionScheme::ALiBi;
    const std::vector<SchemeNote> notes = schemeNotes(s);

    // Room: the plot and the table take about two thirds; the formulas scroll beneath them. The
    // table is as wide as its widest curve name and a value (a share of the view cut "RoPE decay
    // bound" and the header with the Parameters panel open), up to half the view.
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const ImGuiStyle& style = ImGui::GetStyle();
    const float swatch = ImGui::GetTextLineHeight();
    float widestName = 0.0f;
    for (const PositionCurve& c : s.curves) widestName = std::max(widestName, ImGui::CalcTextSize(c.name.c_str()).x);
    const float nameColumn = std::ceil(swatch + style.ItemSpacing.x + widestName);
    // "at d = 4096" is the widest header; the values are valueText's (at most "-0.000123457").
    const float valueColumn =
        std::ceil(std::max(ImGui::CalcTextSize("at d = 4096").x, ImGui::CalcTextSize("-0.000123457").x));
    const float tableWidth =
        std::min(nameColumn + valueColumn + 4.0f * style.CellPadding.x + style.ScrollbarSize + 2.0f, avail.x * 0.5f);
    const float plotHeight = std::max(160.0f, avail.y * 0.64f);
    const ImVec2 plotSize(std::max(200.0f, avail.x - tableWidth - ImGui::GetStyle().ItemSpacing.x), plotHeight);

    // The figure's axes: a log2 axis for attention (probabilities span tens of octaves), spanned
    // by the core's rule.
    PlotStyle scales;
    scales.logY2 = s.quantity == SchemeQuantity::Attention;
    PlotAxes axes = styleAxes(scales, positionSchemesRanges(s));
    // The tab names the view; the plot's own title says what is drawn (the figure's, shortened).
    const std::string title = s.quantity == SchemeQuantity::Attention
                                  ? fmt::format("zero-content attention (D = {})", s.maxDistance)
                                  : fmt::format("logit contribution vs distance (D = {})", s.maxDistance);
    const std::string yLabel = positionSchemesYLabel(s);
    axes.title = title.c_str();
    axes.xLabel = "distance d = i - j";
    axes.yLabel = yLabel.c_str();
    ImGui::BeginGroup();
    const ImVec2 plotOrigin = ImGui::GetCursorScreenPos();
    state.schemesPlotRect = ScreenRect{plotOrigin.x, plotOrigin.y, plotSize.x, plotSize.y};
    PlotCanvas canvas(axes, plotSize);
    // Beyond 64 heads every n-th ALiBi head is drawn (the first and last always): thousands of
    // lines would cost the frame and show nothing more.
    const int stride = std::max(1, heads / 64);
    for (const PositionCurve& c : s.curves) {
        if (c.scheme == PositionScheme::ALiBi && c.head % stride != 0 && c.head != heads - 1) continue;
        const ImU32 color = toImColor(positionCurveColor(c, heads));
        const float thickness = c.scheme == PositionScheme::ALiBi ? 1.5f : 2.0f;
        if (positionCurveDashed(c))
            drawDashed(canvas, c, color, thickness);
        else
            canvas.drawSeries(Series{c.name, c.x, c.y}, color, thickness);
    }
    state.schemesHoverDistance.reset();
    if (canvas.hovered()) {
        const double d = std::clamp(std::round(canvas.mouseX()), 0.0, static_cast<double>(s.maxDistance));
        state.schemesHoverDistance = d;
        const ImVec2 top = canvas.toScreen(d, axes.yMax), bottom = canvas.toScreen(d, axes.yMin);
        ImGui::GetWindowDrawList()->AddLine(top, bottom, IM_COL32(230, 230, 230, 150), 1.0f);
        ImGui::SetTooltip("d = %.0f: values in the table", d);
    }
    ImGui::EndGroup();

    // Legend and read-out.
    ImGui::SameLine();
    const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY | ImGuiTableFlags_BordersInnerV |
                                  ImGuiTableFlags_SizingFixedFit;
    // Whole rows: the table as tall as the header and the rows that fit beside the plot (a row cut
    // in half at its bottom read "KERPLE ..." half hidden at 1280x720).
    const float rowPitch = ImGui::GetTextLineHeight() + 2.0f * style.CellPadding.y;
    const float tableHeight = std::floor(plotHeight / rowPitch) * rowPitch;
    if (ImGui::BeginTable("schemes readout", 2, flags, ImVec2(tableWidth, tableHeight))) {
        // The header says "value" until the plot is hovered (its tooltip says the table has them).
        const std::string valueHeader = state.schemesHoverDistance
                                            ? fmt::format("at d = {:.0f}", *state.schemesHoverDistance)
                                            : std::string("value");
        ImGui::TableSetupScrollFreeze(0, 1);
        ImGui::TableSetupColumn("curve", ImGuiTableColumnFlags_WidthFixed, nameColumn);
        ImGui::TableSetupColumn(valueHeader.c_str(), ImGuiTableColumnFlags_WidthFixed, valueColumn);
        ImGui::TableHeadersRow();
        ImGuiListClipper clipper;  // only the visible rows (H may be 4096)
        clipper.Begin(static_cast<int>(s.curves.size()));
        while (clipper.Step()) {
            for (int row = clipper.DisplayStart; row < clipper.DisplayEnd; ++row) {
                const PositionCurve& c = s.curves[static_cast<std::size_t>(row)];
                ImGui::TableNextRow();
                ImGui::TableNextColumn();
                const ImVec2 at = ImGui::GetCursorScreenPos();
                const float h = ImGui::GetTextLineHeight();
                ImGui::GetWindowDrawList()->AddRectFilled(ImVec2(at.x, at.y + h * 0.35f),
                                                          ImVec2(at.x + h, at.y + h * 0.65f),
                                                          toImColor(positionCurveColor(c, heads)));
                ImGui::Dummy(ImVec2(h, h));
                ImGui::SameLine();
                ImGui::TextUnformatted(c.name.c_str());
                if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s\n%s", c.formula.c_str(), c.source.c_str());
                ImGui::TableNextColumn();
                if (state.schemesHoverDistance)
                    if (const auto v = curveValueAt(c, *state.schemesHoverDistance))
                        ImGui::TextUnformatted(valueText(*v).c_str());
            }
        }
        ImGui::EndTable();
    }

    // Formulas and sources, in whole lines: every line one text line below the last (no item
    // spacing) and the child a whole number of lines tall, so its bottom never cuts a line in half
    // (the last line and the legend were cut at 1280x720); it scrolls by lines.
    const float line = ImGui::GetTextLineHeight();
    const float room = ImGui::GetContentRegionAvail().y;
    beginTextChild("schemes formulas", ImVec2(0, std::max(line, std::floor(room / line) * line)));
    ImGui::PushStyleVar(ImGuiStyleVar_ItemSpacing, ImVec2(style.ItemSpacing.x, 0.0f));
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextDisabled("%s", s.note.c_str());
    for (const SchemeNote& note : notes) {
        Rgba colour{200, 200, 200, 255};
        for (const PositionCurve& c : s.curves)
            if (c.legend == note.legend) {
                colour = positionCurveColor(c, heads);
                break;
            }
        ImGui::TextColored(ImVec4(colour.r / 255.0f, colour.g / 255.0f, colour.b / 255.0f, 1.0f),
                           "%s:", note.legend.c_str());
        ImGui::SameLine();
        ImGui::Text("%s. %s", note.formula.c_str(), note.source.c_str());
    }
    ImGui::PopTextWrapPos();
    ImGui::PopStyleVar();
    state.schemesTextRect = ScreenRect{ImGui::GetWindowPos().x, ImGui::GetWindowPos().y, ImGui::GetWindowSize().x,
                                       ImGui::GetWindowSize().y};
    ImGui::EndChild();
}

}  // namespace alibi::imgui
