// The side pictures of the attention maps view, one tab each: the selected head alone (the core's
// picture at this size, exact read-out under the mouse), its attention vs distance with the ALiBi
// prior at the fitted slope m* and at the configured slope, one query row of the file against the
// same priors, and the layer's head similarity matrix (Jensen-Shannon distances, ordered by index,
// fitted slope or clustering). Everything drawn is a core result; this file only lays it out.
#include "layout_check.hpp"
#include "lesson_panel.hpp"
#include "panels.hpp"
#include "plot_canvas.hpp"
#include "view_common.hpp"

#include <alibi/explore/attention_maps_view.hpp>
#include <alibi/figure/attention_maps_plots.hpp>
#include <alibi/figure/attention_maps_render.hpp>
#include <alibi/render/color_scale.hpp>
#include <alibi/render/format.hpp>
#include <alibi/render/square_cells.hpp>
#include <alibi/render/ticks.hpp>
#include <alibi/text/visible.hpp>

#include <imgui_internal.h>

#include <fmt/format.h>
#include <imgui.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

namespace alibi::imgui {

namespace {

constexpr ImU32 kFileColor = IM_COL32(240, 240, 240, 255);
constexpr ImU32 kFittedColor = IM_COL32(90, 200, 250, 255);
constexpr ImU32 kConfiguredColor = IM_COL32(255, 170, 60, 255);

void legendSwatch(ImU32 color, const char* text) {
    const ImVec2 at = ImGui::GetCursorScreenPos();
    const float line = ImGui::GetTextLineHeight();
    ImGui::GetWindowDrawList()->AddRectFilled(ImVec2(at.x, at.y + line * 0.4f), ImVec2(at.x + line, at.y + line * 0.6f),
                                              color);
    ImGui::Dummy(ImVec2(line, line));
    ImGui::SameLine(0, 4);
    ImGui::TextUnformatted(text);
}

// A legend entry after another: on the same line while it fits, else on the next.
void nextLegendSwatch(ImU32 color, const char* text) {
    sameLineIfFits(ImGui::GetTextLineHeight() + 4 + ImGui::CalcTextSize(text).x);
    legendSwatch(color, text);
}

// The plot's title above it, wrapped to the side's width: the core's, the exported figure's.
// At spaces only: ImGui's own wrap also breaks after a '.', which split "KL 1." / "83927e-08".
void plotTitle(const std::string& title) {
    textWrappedAtSpaces(title);
}

// In a short view the picker is the layer bar's (panel_maps.cpp); returns whether it was drawn here.
bool headPicker(MapsState& s, const AttentionMaps& maps) {
    if (s.shortView) return false;
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 9.0f);
    ImGui::SliderInt("head", &s.head, 0, maps.heads() - 1, "head %d", ImGuiSliderFlags_AlwaysClamp);
    return true;
}

// The layer's fit, when it is the current layer's (else a note that it is computing).
const LayerFitResult* currentFit(const Model& model, const MapsState& s) {
    const LayerFitResult* fit = model.maps.layerFit.get();
    if (fit == nullptr || fit->request.maps != model.maps.file->maps || fit->request.layer != s.layer) {
        ImGui::TextDisabled("fitting the layer's heads...");
        return nullptr;
    }
    if (!fit->error.empty()) {
        ImGui::PushTextWrapPos(0.0f);
        coreErrorText(fit->error);
        ImGui::PopTextWrapPos();
        return nullptr;
    }
    if (s.head >= static_cast<int>(fit->fits.size())) return nullptr;
    return fit;
}

// Greyed text wrapped at spaces to the window's edge (a narrow side column).
void textDisabledWrapped(const char* text) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    textWrappedAtSpaces(text);
    ImGui::PopStyleColor();
}

// Pieces of one line, each on the line while it fits, else starting the next (never a number
// split across two lines, as a wrap at a "." would).
void textPieces(std::initializer_list<std::string> pieces) {
    bool first = true;
    for (const std::string& piece : pieces) {
        if (!first) sameLineIfFits(ImGui::CalcTextSize(piece.c_str()).x, ImGui::GetFontSize());
        ImGui::TextUnformatted(piece.c_str());
        first = false;
    }
}

// The fit's numbers under the plot's title, which already gives its KL (the core's fitProfileTitle:
// a second "KL ..." line pushed the legend under the tab's edge in lesson 5 step 5 at 1280x720
// with the Parameters panel).
void fitSummary(const HeadFit& h) {
    textPieces({fmt::format("m* = {}{}", h.slopeAtBound ? ">= " : "", alibi::formatValue(h.slope)),
                fmt::format("[{}, {}]", alibi::formatValue(h.slopeLow), alibi::formatValue(h.slopeHigh))});
    if (h.configuredSlope)
        textPieces({fmt::format("configured m = {}", alibi::formatSlope(*h.configuredSlope)),
                    fmt::format("(m*/m {},", alibi::formatValue(h.slope / *h.configuredSlope)),
                    fmt::format("KL at m {})", alibi::formatValue(h.configuredKl.value_or(0)))});
    else
        textDisabledWrapped("configured m unknown: pair an ALiBi prior above");
}

// Text turned a quarter anticlockwise (reading upwards), ending at (x, bottom): the draw list's
// vertices of the glyphs are turned about that point.
void drawUpwardText(ImDrawList* draw, float x, float bottom, const std::string& text, ImU32 colour) {
    const int first = draw->VtxBuffer.Size;
    const float line = ImGui::GetTextLineHeight();
    draw->AddText(ImVec2(x, bottom - line / 2), colour, text.c_str());
    for (int v = first; v < draw->VtxBuffer.Size; ++v) {
        ImVec2& pos = draw->VtxBuffer[v].pos;
        const float dx = pos.x - x, dy = pos.y - bottom;
        pos = ImVec2(x + dy, bottom - dx);
    }
}

// One head's tokens along its axes, every k-th cell's, k the smallest step that keeps them a
// line apart (the core's rule, indexAxisLabels): query tokens left of the picture, key tokens
// above it, turned a quarter. Records the key axis's step in `s.headTokenStep` (0: none).
void drawHeadTokens(MapsState& s, const AttentionMaps& maps, const Heatmap& map, ImVec2 origin) {
    s.headTokenStep = 0;
    if (map.tiles.size() != 1) return;
    const HeatmapTile& t = map.tiles.front();
    ImDrawList* draw = ImGui::GetWindowDrawList();
    const float line = ImGui::GetTextLineHeight();
    const ImU32 colour = ImGui::GetColorU32(ImGuiCol_Text);
    const std::vector<std::string> queries = explore::mapsQueryTokenLabels(maps),
                                   keys = explore::mapsKeyTokenLabels(maps);
    const double cellY = static_cast<double>(t.height) / static_cast<double>(maps.queries());
    for (const IndexLabel& l : indexAxisLabels(maps.queries(), cellY, line, 1e9, queries)) {
        if (!l.token) continue;
        const float y = origin.y + static_cast<float>(t.y + (static_cast<double>(l.index) + 0.5) * cellY);
        draw->AddText(ImVec2(origin.x - ImGui::CalcTextSize(l.text.c_str()).x - 4, y - line / 2), colour,
                      l.text.c_str());
    }
    const double cellX = static_cast<double>(t.width) / static_cast<double>(maps.keys());
    if (tokensFitAxis(maps.keys(), cellX, line, keys.size())) s.headTokenStep = tokenLabelStep(cellX, line);
    for (const IndexLabel& l : indexAxisLabels(maps.keys(), cellX, line, 1e9, keys)) {
        if (!l.token) continue;
        const float x = origin.x + static_cast<float>(t.x + (static_cast<double>(l.index) + 0.5) * cellX);
        drawUpwardText(draw, x, origin.y - 4, l.text, colour);
    }
}

// Room for the longest token beside and above the head's picture, when tokens label its axes
// (tokensFitAxis; the whole area is an upper bound on the picture); 0 otherwise.
float headTokenMargin(const AttentionMaps& maps, ImVec2 area) {
    const float line = ImGui::GetTextLineHeight();
    const auto fits = [&](std::int64_t count, float room) {
        return tokensFitAxis(count, room / static_cast<float>(std::max<std::int64_t>(count, 1)), line,
                             maps.tokens().size());
    };
    if (!fits(maps.keys(), area.x) && !fits(maps.queries(), area.y)) return 0.0f;
    float widest = 0;
    for (const std::string& token : explore::mapsKeyTokenLabels(maps))
        widest = std::max(widest, ImGui::CalcTextSize(text::shortenText(token, kMaxTokenLabelChars).c_str()).x);
    return std::ceil(widest) + 8.0f;
}

void drawHeadTab(AppState& state, const Model& model) {
    MapsState& s = state.maps;
    const AttentionMaps& maps = *model.maps.file->maps;
    (void)headPicker(s, maps);
    const MapsGridResult* head = model.maps.head.get();
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float tokenMargin =
        headTokenMargin(maps, ImVec2(avail.x - colorBarWidth(), avail.y - ImGui::GetTextLineHeightWithSpacing()));
    // The room beside the colour bar, asked for with square cells (as the head grid and the Qt
    // explorer draw a head): the picture is letterboxed in the room, never stretched.
    const int roomWidth = static_cast<int>(avail.x - colorBarWidth() - tokenMargin);
    const int roomHeight = static_cast<int>(avail.y - ImGui::GetTextLineHeightWithSpacing() - tokenMargin);
    s.headWidth = s.headHeight = 0;
    s.headRect = {};
    if (roomWidth > 0 && roomHeight > 0) {
        const TileSize tile = squareCellTile(roomWidth, roomHeight, maps.queries(), maps.keys());
        s.headWidth = tile.width;
        s.headHeight = tile.height;
    }
    if (head == nullptr || head->request.maps != model.maps.file->maps || !head->error.empty()) {
        if (head != nullptr && !head->error.empty()) coreErrorText(head->error);
        return;
    }
    ImGui::TextDisabled("%s", head->picture().summary.c_str());
    const Image& image = head->picture().image;
    const ImVec2 size(static_cast<float>(image.width), static_cast<float>(image.height));
    if (tokenMargin > 0) {
        const ImVec2 at = ImGui::GetCursorScreenPos();
        ImGui::SetCursorScreenPos(ImVec2(at.x + tokenMargin, at.y + tokenMargin));
    }
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    if (model.maps.headTexture != nullptr) {
        ImGui::Image(model.maps.headTexture, size);
    } else {
        ImGui::Dummy(size);
    }
    s.headShown = lastItemShown();
    noteHeatmapTiles("attention maps head", head->picture().tiles, origin, maps.queries(), maps.keys());
    if (!head->picture().tiles.empty()) {
        const HeatmapTile& t = head->picture().tiles.front();
        s.headRect = {origin.x + static_cast<float>(t.x), origin.y + static_cast<float>(t.y),
                      static_cast<float>(t.width), static_cast<float>(t.height)};
    }
    if (ImGui::IsItemHovered()) {
        const ImVec2 mouse = ImGui::GetIO().MousePos;
        if (auto cell = mapsCellAt(*head, static_cast<int>(std::floor(mouse.x - origin.x)),
                                   static_cast<int>(std::floor(mouse.y - origin.y)))) {
            s.hover = cell;
            if (ImGui::IsMouseClicked(ImGuiMouseButton_Left)) s.row = cell->query;
        }
    }
    if (model.maps.headPending) drawStaleMark(origin, ImVec2(origin.x + size.x, origin.y + size.y), 0.0f);
    s.headTokenStep = 0;
    if (tokenMargin > 0) drawHeadTokens(s, maps, head->picture(), origin);
    if (s.lessonLayer >= 0 && head->request.layer == s.lessonLayer)
        drawLessonMark(s.lessonMark, head->picture().tiles, maps.queries(), maps.keys(), origin);
    const Heatmap& map = head->picture();
    const float height = std::max(size.y - 3.4f * ImGui::GetTextLineHeight(), 2.0f * ImGui::GetTextLineHeight());
    alibi::ColorBar bar = attentionMapsColorBar(maps, map, -1, colorBarTicks(height));  // the figures' bar
    bar.head = fmt::format("h{}", head->request.head);
    drawColorBarBeside(model.maps.headBarTexture, origin, size, bar);
}

// A plot a lesson step cites, drawn under the tab's text where the tab is narrow: the tab scrolls
// on each step's first frames so the plot is in view (the s39 review's F2b: at 1280x720 with the
// Parameters panel only its axis title showed), then the user's scrolling is left alone.
// The height of a plot with `avail` pixels under the tab's text: `least` at least; a cited one
// that does not fit there takes the tab's visible height (scrollCitedPlotIntoView then shows it
// alone, no line of the text above half cut at the tab's top).
float citedPlotHeight(float avail, float least, bool cited) {
    if (avail >= least || !cited) return std::max(avail, least);
    return std::max(least, ImGui::GetCurrentWindow()->InnerClipRect.GetHeight());
}

// `tab`: the tab drawing the plot (a step switching tabs draws the old one a frame more: it must
// not take the step's scroll).
// The scroll is asked for on the step's first few frames, not one: ImGui clamps it to the
// content's height as measured the frame before, and the first frame's tab can be shorter (lesson
// 5 step 4 at 1280x720 with the Parameters panel kept a legend line above the plot and its axis
// title under the edge). A few frames later the user's scrolling is left alone.
void scrollCitedPlotIntoView(const AppState& state, bool cited, MapsSide tab) {
    constexpr int kFrames = 4;
    static std::uint64_t scrolledFor = 0;
    static int frames = 0;
    if (!cited || state.maps.side != tab || state.maps.sideShown != tab) return;
    if (scrolledFor != state.lessonStep) {
        scrolledFor = state.lessonStep;
        frames = 0;
    }
    if (frames >= kFrames) return;
    ++frames;
    const float top = ImGui::GetItemRectMin().y - ImGui::GetWindowPos().y;
    const float bottom = ImGui::GetItemRectMax().y - ImGui::GetWindowPos().y;
    const float shown = ImGui::GetCurrentWindow()->InnerClipRect.GetHeight();  // the tab's visible height
    // Its bottom at the window's bottom where it is shorter than the window, else its top at the
    // window's top (citedPlotHeight made it the window's height).
    if (bottom - top < shown - 1.0f)
        ImGui::SetScrollFromPosY(bottom, 1.0f);
    else
        ImGui::SetScrollFromPosY(top, 0.0f);
}

void drawDistanceTab(AppState& state, const Model& model) {
    MapsState& s = state.maps;
    const AttentionMaps& maps = *model.maps.file->maps;
    // As the row tab: on a wide tab the picker, the title, the fit's numbers and the legend go in a
    // column right of the plot, which then takes the tab's whole height (above it, they left lesson
    // 5 step 5's plot 65 px tall at 1280x720 in presentation mode, its ticks "0.1" and "0" only).
    // The column is wider than the row tab's (up to 20 em): the fit's numbers and three legend
    // entries must fit under the title in the tab's height.
    const ImVec2 start = ImGui::GetCursorScreenPos();
    const ImVec2 room = ImGui::GetContentRegionAvail();
    const float em = ImGui::GetFontSize();
    // The plot beside the column from 12 em (at 1920x1080 with the Parameters panel the tab is
    // about 32 em: above the plot, the text pushed it under the tab's edge, the s39 review's F13;
    // at 1280x720 with it, a step citing this tab gives it kSideColumnLayout, 26 em); a column of
    // 14 em holds the fit's numbers wrapped.
    const float column = std::min(em * 20.0f, room.x - em * (kSideColumnLayout - 14.0f));
    const bool inColumn = column >= em * 14.0f;
    const float gap = ImGui::GetStyle().ItemSpacing.x * 2.0f;
    if (inColumn) {
        ImGui::SetCursorScreenPos(ImVec2(start.x + room.x - column, start.y));
        ImGui::BeginGroup();
    }
    (void)headPicker(s, maps);
    const LayerFitResult* fit = currentFit(model, s);
    if (fit != nullptr) {
        const HeadFit& head = fit->fits[static_cast<std::size_t>(s.head)];
        plotTitle(fitProfileTitle(head, maps));
        fitSummary(head);
        legendSwatch(kFileColor, "the file: mean by distance");
        nextLegendSwatch(kFittedColor, "prior at m*");
        if (fit->profiles[static_cast<std::size_t>(s.head)].series.size() > 2) {
            nextLegendSwatch(kConfiguredColor, "prior at configured m");
        }
    }
    float columnBottom = start.y;  // where the column's text ends (the curves' note goes under it)
    if (inColumn) {
        ImGui::EndGroup();
        columnBottom = ImGui::GetItemRectMax().y;
        ImGui::SetCursorScreenPos(start);
    }
    if (fit == nullptr) return;
    const auto h = static_cast<std::size_t>(s.head);
    // The core's plot: its curves over the distances it shows (Qt's and the figure's).
    const FitProfilePlot& plot = fit->profiles[h];
    const std::vector<Series>& lines = plot.series;
    // The title is above the legend; the axes named, scaled and spanned as in the figure.
    PlotAxes axes = kindAxes(PlotKind::FitProfile, lines);
    axes.xLabel = maps.causal() ? "distance i − j" : "distance |i − j|";
    axes.yLabel = "share of attention";
    // A lesson step showing attention against distance cites this plot (lesson 5 step 5).
    axes.cited = state.lessonOpen && s.lessonSide;
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    // Never shorter than the layout check's least (the tab scrolls to it; the s39 review's F13).
    const float least = plotHeightForFrame(axes.cited ? kMinCitedPlotHeight : kMinPlotHeight);
    PlotCanvas canvas(axes,
                      ImVec2(inColumn ? room.x - column - gap : avail.x, citedPlotHeight(avail.y, least, axes.cited)));
    s.plotShown = lastItemShown();
    scrollCitedPlotIntoView(state, axes.cited, MapsSide::Distance);
    // Where a head follows its prior the lines coincide: dashed in turn (the core's
    // coincidingCurves, as Qt draws them), so the file's line shows; drawn under the fitted
    // prior it showed as a pixel's fringe (lesson 5 step 5, the s40 review's L3).
    const std::vector<ImU32> colours{kFileColor, kFittedColor, kConfiguredColor};
    std::vector<std::string> note = canvas.drawSeriesInTurn(
        lines, std::vector<ImU32>(colours.begin(), colours.begin() + static_cast<std::ptrdiff_t>(lines.size())), 2.5f);
    if (!plot.note.empty()) note.push_back(plot.note);  // the distances shown, when not all
    // In the column, under the legend, the note saying so ("2 curves coincide, dashed in turn"):
    // the canvas has no legend of its own to put it under, nor room on its x label's line. Where
    // the column has no room left for it, the legend alone (as the canvas does).
    std::string text;
    for (const std::string& phrase : note) text += (text.empty() ? "" : " · ") + phrase;
    const float noteTop = columnBottom + ImGui::GetStyle().ItemSpacing.y;
    bool noteHovered = false;
    if (inColumn && !text.empty() &&
        noteTop + ImGui::CalcTextSize(text.c_str(), nullptr, false, column).y <=
            ImGui::GetCurrentWindow()->InnerClipRect.Max.y) {
        ImGui::SetCursorScreenPos(ImVec2(start.x + room.x - column, noteTop));
        ImGui::PushTextWrapPos(start.x + room.x - ImGui::GetWindowPos().x);
        ImGui::TextDisabled("%s", text.c_str());
        ImGui::PopTextWrapPos();
    } else if (!text.empty()) {
        // No room for it: behind a (?) in the plot's top-right corner, where a profile falling
        // with distance leaves room, so the note is never lost (the s40 re-check: with the
        // Parameters panel at 1280x720 the distances' cut went unsaid).
        // Drawn, not laid out: the tab's items keep their extent.
        const ImVec2 corner = canvas.toScreen(axes.xMax, axes.yMax);
        const ImVec2 mark = ImGui::CalcTextSize("(?)");
        const ImVec2 at(corner.x - mark.x - 3.0f, corner.y + 2.0f);
        ImGui::GetWindowDrawList()->AddText(at, ImGui::GetColorU32(ImGuiCol_TextDisabled), "(?)");
        noteHovered = ImGui::IsMouseHoveringRect(at, ImVec2(at.x + mark.x, at.y + mark.y));
        if (noteHovered) ImGui::SetTooltip("%s", text.c_str());
    }
    // The curves' values under the mouse; not over the (?), whose note this tooltip replaced (the
    // (?) lies inside the plot: the s41 check found the note never shown).
    if (canvas.hovered() && !noteHovered) {
        const auto d = static_cast<std::int64_t>(std::llround(canvas.mouseX()));
        if (d >= plot.window.first && d <= plot.window.last && !lines.empty() &&
            d - plot.window.first < std::ssize(lines.front().y)) {
            const auto k = static_cast<std::size_t>(d - plot.window.first);
            std::string tip = fmt::format("distance {}\nfile {}\nprior at m* {}", d, alibi::formatValue(lines[0].y[k]),
                                          alibi::formatValue(lines[1].y[k]));
            if (lines.size() > 2) tip += fmt::format("\nprior at configured m {}", alibi::formatValue(lines[2].y[k]));
            ImGui::SetTooltip("%s", tip.c_str());
        }
    }
}

void drawRowTab(AppState& state, const Model& model) {
    MapsState& s = state.maps;
    const AttentionMaps& maps = *model.maps.file->maps;
    // On a wide tab the picker, the title, the legend and the note go in a column right of the
    // plot, which then takes the tab's whole height (above it, they left lesson 5 step 4's plot
    // 57 px tall at 1280x720 in presentation mode, its y axis a lone "0").
    const ImVec2 start = ImGui::GetCursorScreenPos();
    const ImVec2 room = ImGui::GetContentRegionAvail();
    // The column 12 to 16 em, the plot beside it 14 em at least (at 1920x1080 with the Parameters
    // panel the tab is about 30 em: above the plot, the text pushed it under the tab's edge, the
    // s39 review's F13).
    const float column = std::min(ImGui::GetFontSize() * 16.0f, room.x - ImGui::GetFontSize() * 14.0f);
    const bool inColumn = column >= ImGui::GetFontSize() * 12.0f;
    const float gap = ImGui::GetStyle().ItemSpacing.x * 2.0f;
    if (inColumn) {
        ImGui::SetCursorScreenPos(ImVec2(start.x + room.x - column, start.y));
        ImGui::BeginGroup();
    }
    const MapsRowResult* result = model.maps.row.get();
    std::vector<Series> lines;
    explore::KeyWindow window{};
    const bool ready = [&] {
        if (headPicker(s, maps)) sameLineIfFits(ImGui::GetFontSize() * 10.0f);
        const int lastRow = static_cast<int>(std::min<std::int64_t>(maps.queries() - 1, 1 << 30));
        int row = s.row < 0 ? lastRow : static_cast<int>(std::min<std::int64_t>(s.row, lastRow));
        ImGui::SetNextItemWidth(ImGui::GetFontSize() * 10.0f);
        if (ImGui::SliderInt("##row", &row, 0, lastRow, "query row %d", ImGuiSliderFlags_AlwaysClamp)) s.row = row;
        if (result == nullptr || result->request.maps != model.maps.file->maps) {
            ImGui::TextDisabled("reading the row...");
            return false;
        }
        if (!result->error.empty()) {
            ImGui::PushTextWrapPos(0.0f);
            coreErrorText(result->error);
            ImGui::PopTextWrapPos();
            return false;
        }
        const MapsRowRequest& r = result->request;
        plotTitle(mapsRowTitle(maps, r.layer, r.head, r.row));
        legendSwatch(kFileColor, "the file's row");
        if (!result->fittedPrior.empty()) {
            nextLegendSwatch(kFittedColor, explore::fittedPriorLabel(*r.fitted).c_str());
        }
        if (!result->configuredPrior.empty()) {
            nextLegendSwatch(kConfiguredColor, explore::configuredPriorLabel(*r.configured).c_str());
        }
        // The core's lines end where the row can see (keys after a causal query are masked: the
        // plot ran to key 48 past query 40 in lesson 5 step 4, its peak then not at the right).
        lines = {result->lines.empty() ? Series{} : result->lines.front(), Series{}, Series{}};
        std::size_t next = 1;
        if (r.fitted && next < result->lines.size()) lines[1] = result->lines[next++];
        if (r.configured && next < result->lines.size()) lines[2] = result->lines[next++];
        // The figure's keys: a steep head's few keys fill the plot (the core's window).
        window = explore::mapsRowWindow(lines, r.row + maps.keys() - maps.queries(), maps.keys());
        s.rowFirstKey = window.first;
        s.rowLastKey = window.last;
        if (const std::string note = explore::keyWindowNote(window, maps.keys(), false); !note.empty()) {
            // Above the plot only where the plot keeps its least height under it, else behind a
            // (?) (a short tab at 1280x720 with the Parameters panel: the plot's ticks were cut).
            const float least =
                plotHeightForFrame(state.lessonOpen && s.lessonSide ? kMinCitedPlotHeight : kMinPlotHeight);
            const float noteHeight =
                ImGui::CalcTextSize(note.c_str(), nullptr, false, ImGui::GetContentRegionAvail().x).y;
            if (inColumn || ImGui::GetContentRegionAvail().y - noteHeight - ImGui::GetStyle().ItemSpacing.y >= least) {
                ImGui::PushTextWrapPos(0.0f);
                ImGui::TextDisabled("%s", note.c_str());
                ImGui::PopTextWrapPos();
            } else {
                sameLineIfFits(ImGui::CalcTextSize("(?)").x);
                ImGui::TextDisabled("(?)");
                if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", note.c_str());
            }
        }
        return true;
    }();
    if (inColumn) {
        ImGui::EndGroup();
        ImGui::SetCursorScreenPos(start);
    }
    if (!ready) return;
    // The title is above the legend; the axes named, scaled and spanned as in the figure.
    // Over the keys the window shows, as the figure cuts its series (keepKeyWindow): the core's
    // span of the points inside the window, without a copy of the row each frame.
    const std::pair<double, double> keys{static_cast<double>(window.first), static_cast<double>(window.last)};
    PlotAxes axes = kindAxes(PlotKind::MapsRow, plotRanges(lines, plotAxes(PlotKind::MapsRow), keys));
    axes.xLabel = "key j";
    axes.yLabel = "probability";
    // A lesson step showing the row cites this plot (lesson 5 step 4's "peak at the right").
    // Cited in either layout (it was only in the column one, so a narrow tab's plot pushed under
    // its text, the s39 review's F2b, went unseen by the layout check); never shorter than the
    // layout check's least (the tab scrolls to it).
    axes.cited = state.lessonOpen && s.lessonSide;
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float least = plotHeightForFrame(axes.cited ? kMinCitedPlotHeight : kMinPlotHeight);
    PlotCanvas canvas(axes,
                      ImVec2(inColumn ? room.x - column - gap : avail.x, citedPlotHeight(avail.y, least, axes.cited)));
    s.plotShown = lastItemShown();
    scrollCitedPlotIntoView(state, axes.cited, MapsSide::Row);
    canvas.drawSeries(lines[0], kFileColor, 3.0f);
    if (!lines[2].y.empty()) canvas.drawSeries(lines[2], kConfiguredColor, 1.5f);
    if (!lines[1].y.empty()) canvas.drawSeries(lines[1], kFittedColor, 1.5f);
    if (canvas.hovered()) {
        const auto j = static_cast<std::int64_t>(std::llround(std::max(canvas.mouseX(), 0.0)));
        if (j < std::ssize(result->probabilities)) {
            const auto k = static_cast<std::size_t>(j);
            std::string tip = fmt::format("key {}\np = {}", j, alibi::formatValue(result->probabilities[k]));
            if (!result->fittedPrior.empty())
                tip += fmt::format("\nprior at m* {}", alibi::formatValue(result->fittedPrior[k]));
            if (!result->configuredPrior.empty())
                tip += fmt::format("\nprior at configured m {}", alibi::formatValue(result->configuredPrior[k]));
            ImGui::SetTooltip("%s", tip.c_str());
        }
    }
}

void drawSimilarityTab(AppState& state, const Model& model) {
    MapsState& s = state.maps;
    constexpr std::array kBasis{"profiles", "full maps"};
    constexpr std::array kOrder{"by index", "by fitted slope", "by clustering"};
    // The matrix as large as the tab allows, a head label on every row (left) and every column
    // (above), each on its cell's centre. The choices, the note and the colour bar go in a column
    // on its right where the tab is wide (above it, they left the matrix 120 px at 1280x720 in
    // presentation mode with 500 px beside it empty); on a narrow tab the choices and the note
    // stay above it and the colour bar beside it, whichever leaves the larger matrix.
    const float lineHeight = ImGui::GetTextLineHeight();
    const ImVec2 start = ImGui::GetCursorScreenPos();
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const LayerFitResult* fit = currentFit(model, s);
    const SimilarityResult* sim = model.maps.similarity.get();
    const bool ready = fit != nullptr && sim != nullptr && sim->request.fit.get() == fit;
    // The bar's range: 0 to the largest distance (renderSimilarity's scale). Its width is its own
    // labels' (the widest any bar may need left the matrix 112 px for 8 heads at 1280x720 with the
    // Parameters panel open: every other head labelled).
    double largest = 0;
    if (ready)
        for (double v : fit->distances.values) largest = std::max(largest, v);
    const auto barFor = [&](float height) {
        alibi::ColorBar bar =
            alibi::makeColorBar(0.0, largest > 0 ? largest : 1.0, false, DType::F32, colorBarTicks(height));
        bar.title = "JS distance";
        return bar;
    };
    const float barWidth = colorBarWidth(barFor(avail.y));
    const std::string note = fmt::format("Jensen-Shannon distance between the heads' {}: 0 same, 1 disjoint",
                                         s.similarityBasis == 0 ? "attention-vs-distance profiles" : "full maps");
    // The row labels' room: the widest head's label (room for "h000" took the matrix the width
    // that eight heads' column labels needed at 1280x720 with the Parameters panel open).
    const std::size_t heads = ready ? sim->order.size() : 1000;
    const float labels = ImGui::CalcTextSize(fmt::format("h{} ", heads > 0 ? heads - 1 : 0).c_str()).x;
    const float gap = ImGui::GetStyle().ItemSpacing.x * 2.0f;
    const float column = std::max(barWidth, ImGui::GetFontSize() * 16.0f + ImGui::GetStyle().ItemSpacing.x);
    const float columnSide = std::min(avail.x - labels - gap - column, avail.y - lineHeight - 4.0f);
    // Above the matrix: the choices and the note as it wraps across the tab (measured: a note of
    // three lines ran into the column labels).
    const float noteHeight = ready ? ImGui::CalcTextSize(note.c_str(), nullptr, false, avail.x).y : lineHeight;
    const float above = ImGui::GetFrameHeightWithSpacing() + noteHeight + ImGui::GetStyle().ItemSpacing.y;
    const float aboveSide = std::min(avail.x - labels - gap - barWidth, avail.y - above - lineHeight - 4.0f);
    const bool inColumn = columnSide >= aboveSide;
    const float side = std::floor(std::max(inColumn ? columnSide : aboveSide, 16.0f));
    s.similarityWidth = s.similarityHeight = static_cast<int>(side);
    const float right = start.x + labels + side + gap;
    const float top = inColumn ? start.y : start.y + above;  // the column labels' line
    if (inColumn) ImGui::SetCursorScreenPos(ImVec2(right, start.y));
    ImGui::BeginGroup();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7.0f);
    ImGui::Combo("##basis", &s.similarityBasis, kBasis.data(), static_cast<int>(kBasis.size()));
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 9.0f);
    ImGui::Combo("##order", &s.similarityOrder, kOrder.data(), static_cast<int>(kOrder.size()));
    if (fit != nullptr && !ready) ImGui::TextDisabled("ordering the heads...");
    if (ready) {
        ImGui::PushTextWrapPos(start.x + avail.x - ImGui::GetWindowPos().x);
        ImGui::TextDisabled("%s", note.c_str());
        ImGui::PopTextWrapPos();
    }
    ImGui::EndGroup();
    if (!ready) return;
    const Image& image = sim->heatmap.image;
    const ImVec2 size(static_cast<float>(image.width), static_cast<float>(image.height));
    // The bar's title goes 0.6 of a line above barTop: under the note in the column, and on the
    // column labels' line (right of them) when the note is above the matrix.
    const float barTop = inColumn ? ImGui::GetItemRectMax().y + lineHeight : top + 0.6f * lineHeight;
    const ImVec2 origin(start.x + labels, top + lineHeight + 4.0f);
    ImGui::SetCursorScreenPos(origin);
    if (model.maps.similarityTexture != nullptr) {
        ImGui::Image(model.maps.similarityTexture, size);
    } else {
        ImGui::Dummy(size);
    }
    s.similarityShown = lastItemShown();
    const bool hovered = ImGui::IsItemHovered();
    const int n = static_cast<int>(sim->order.size());
    ImDrawList* draw = ImGui::GetWindowDrawList();
    if (n > 0) {
        // Every row and column, on its cell's centre (the image's tile, cell k of n covering
        // [k * size / n, (k + 1) * size / n)); where the cells are too small for every label
        // (dozens of heads), evenly spaced ones.
        HeatmapTile tile{0, 0, 0, image.width, image.height};
        if (!sim->heatmap.tiles.empty()) tile = sim->heatmap.tiles.front();
        const float cellW = static_cast<float>(tile.width) / static_cast<float>(n);
        const float cellH = static_cast<float>(tile.height) / static_cast<float>(n);
        // The labels' size: the font's, down to what a cell holds (a line a cell tall, the widest
        // label a cell wide) but not under 9 px, so every head is named where it can be (the
        // s39 review's F8: 14 px cells at 1280x720 with the Parameters panel labelled every other
        // head, hiding the h6 / h5 swap the clustering order is about).
        const float fontSize = ImGui::GetFontSize();
        const float fullWidest = ImGui::CalcTextSize(fmt::format("h{}", n - 1).c_str()).x;
        const float labelSize =
            std::clamp(std::min(fontSize * std::max(cellH, 1.0f) / lineHeight, fontSize * (cellW - 2.0f) / fullWidest),
                       9.0f, fontSize);
        const float shrink = labelSize / fontSize;
        const float widest = fullWidest * shrink;
        const int rowStep =
            std::max(1, static_cast<int>(std::ceil(lineHeight * shrink / std::max(cellH, 1.0f) - 0.01f)));
        const int columnStep =
            std::max(1, static_cast<int>(std::ceil((widest + 2.0f) / std::max(cellW, 1.0f) - 0.01f)));
        noteMatrix("similarity matrix", n, std::min(cellW, cellH));
        noteHeatmapTiles("similarity matrix", {tile}, origin, n, n);
        const ImU32 ink = ImGui::GetColorU32(ImGuiCol_Text);
        for (int k = 0; k < n; ++k) {
            const std::string text = fmt::format("h{}", sim->order[static_cast<std::size_t>(k)]);
            const ImVec2 full = ImGui::CalcTextSize(text.c_str());
            const ImVec2 t(full.x * shrink, full.y * shrink);
            if (k % rowStep == 0) {
                const float centre = origin.y + static_cast<float>(tile.y) + cellH * (static_cast<float>(k) + 0.5f);
                const ImVec2 at(origin.x - t.x - 4.0f, std::round(centre - t.y * 0.5f));
                draw->AddText(ImGui::GetFont(), labelSize, at, ink, text.c_str());
                noteMatrixLabel("similarity matrix", true, k, at.y + t.y * 0.5f, t.y, centre);
            }
            if (k % columnStep == 0) {
                const float centre = origin.x + static_cast<float>(tile.x) + cellW * (static_cast<float>(k) + 0.5f);
                const ImVec2 at(std::round(centre - t.x * 0.5f), top + (lineHeight - t.y));
                draw->AddText(ImGui::GetFont(), labelSize, at, ink, text.c_str());
                noteMatrixLabel("similarity matrix", false, k, at.x + t.x * 0.5f, t.x, centre);
            }
        }
    }
    if (hovered && n > 0) {
        const ImVec2 mouse = ImGui::GetIO().MousePos;
        const int col = std::clamp(static_cast<int>((mouse.x - origin.x) / size.x * static_cast<float>(n)), 0, n - 1);
        const int row = std::clamp(static_cast<int>((mouse.y - origin.y) / size.y * static_cast<float>(n)), 0, n - 1);
        const int a = sim->order[static_cast<std::size_t>(row)], b = sim->order[static_cast<std::size_t>(col)];
        s.similarityHover[0] = a;
        s.similarityHover[1] = b;
        ImGui::SetTooltip("h%d vs h%d: JS distance %s\nm* %s vs %s", a, b,
                          alibi::formatValue(fit->distances.at(a, b)).c_str(),
                          alibi::formatValue(fit->fits[static_cast<std::size_t>(a)].slope).c_str(),
                          alibi::formatValue(fit->fits[static_cast<std::size_t>(b)].slope).c_str());
        if (ImGui::IsMouseClicked(ImGuiMouseButton_Left)) s.head = a;
    }
    // The bar in the right column under the note, down to the matrix's bottom.
    const float bottom = origin.y + size.y;
    const float barHeight = std::max(bottom - barTop - 2.5f * lineHeight, 2.0f * lineHeight);
    drawColorBar(model.maps.similarityBarTexture, ImVec2(right, barTop + lineHeight), barHeight, barFor(barHeight));
    // The window's content reaches the matrix's bottom, and no further (a pixel more showed a
    // scroll bar on a tab that fits it, lesson 5 step 6 at 1280x720 with the Parameters panel).
    ImGui::SetCursorScreenPos(ImVec2(start.x, bottom - 1.0f));
    ImGui::Dummy(ImVec2(1.0f, 1.0f));
}

}  // namespace

void drawMapsSide(AppState& state, const Model& model) {
    MapsState& s = state.maps;
    if (!ImGui::BeginTabBar("maps-side")) return;
    constexpr std::array kTabs{std::pair{MapsSide::Head, "Head"}, std::pair{MapsSide::Distance, "vs distance"},
                               std::pair{MapsSide::Row, "Row"}, std::pair{MapsSide::Similarity, "Similarity"}};
    const bool switched = s.side != s.sideShown;
    for (const auto& [side, title] : kTabs) {
        const ImGuiTabItemFlags flags = switched && side == s.side ? ImGuiTabItemFlags_SetSelected : 0;
        if (!ImGui::BeginTabItem(title, nullptr, flags)) continue;
        if (!switched) s.side = side;
        if (side == s.side) s.sideShown = side;
        switch (side) {
            case MapsSide::Head:
                drawHeadTab(state, model);
                break;
            case MapsSide::Distance:
                drawDistanceTab(state, model);
                break;
            case MapsSide::Row:
                drawRowTab(state, model);
                break;
            case MapsSide::Similarity:
                drawSimilarityTab(state, model);
                break;
        }
        ImGui::EndTabItem();
    }
    ImGui::EndTabBar();
}

}  // namespace alibi::imgui
