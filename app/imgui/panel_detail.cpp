// The head detail view: the core's image of the selected head (explore::computeDetails, one pixel
// per cell up to its cap, as in the Qt explorer) scaled to the panel without smoothing, its colour
// bar, and, for a small head, every cell's number printed in the cell (the values come from the
// core with the picture). A costly head shows a first picture from fewer exact rows first, marked
// "preview, refining..." with the details' progress. Hovering a cell reads it out.
#include "lesson_panel.hpp"
#include "panels.hpp"
#include "view_common.hpp"

#include <alibi/explore/compute.hpp>
#include <alibi/explore/progress_text.hpp>
#include <alibi/explore/readout.hpp>
#include <alibi/render/color_scale.hpp>
#include <alibi/render/format.hpp>

#include <algorithm>
#include <cmath>

namespace alibi::imgui {

namespace {

// The tiles of `map` as drawn at `zoom` screen pixels per image pixel.
std::vector<HeatmapTile> zoomedTiles(const Heatmap& map, float zoom) {
    std::vector<HeatmapTile> tiles = map.tiles;
    for (HeatmapTile& t : tiles) {
        t.x = static_cast<int>(std::lround(static_cast<float>(t.x) * zoom));
        t.y = static_cast<int>(std::lround(static_cast<float>(t.y) * zoom));
        t.width = static_cast<int>(std::lround(static_cast<float>(t.width) * zoom));
        t.height = static_cast<int>(std::lround(static_cast<float>(t.height) * zoom));
    }
    return tiles;
}

// Prints each value in its cell when the cells are wide enough for the text; false when they are
// too small (the caller says so).
bool drawCellNumbers(const GridResult& detail, ImVec2 origin, float zoom) {
    if (detail.values.empty() || detail.heatmap.tiles.empty()) return true;
    const HeatmapTile tile = zoomedTiles(detail.heatmap, zoom).front();
    const BiasParams& bias = detail.request.heatmap.attention.bias;
    const std::int64_t queries = bias.queries;
    const std::int64_t keys = bias.keyCount();
    const float cellWidth = static_cast<float>(tile.width) / static_cast<float>(keys);
    const float cellHeight = static_cast<float>(tile.height) / static_cast<float>(queries);
    if (cellWidth < ImGui::CalcTextSize("-0.0").x + 2.0f || cellHeight < ImGui::GetTextLineHeight()) return false;
    ImDrawList* draw = ImGui::GetWindowDrawList();
    const bool attention = detail.request.heatmap.what == RenderWhat::Attention;
    for (std::int64_t i = 0; i < queries; ++i) {
        for (std::int64_t j = 0; j < keys; ++j) {
            const double value = detail.values[static_cast<std::size_t>(i * keys + j)];
            if (std::isnan(value)) continue;  // masked: the grey cell says it
            std::string text = alibi::formatCellValue(value, attention);
            ImVec2 size = ImGui::CalcTextSize(text.c_str());
            if (size.x > cellWidth - 2.0f) {
                text = alibi::formatCellValue(value, attention, /*narrow=*/true);
                size = ImGui::CalcTextSize(text.c_str());
            }
            if (size.x > cellWidth - 2.0f) continue;
            const float x = origin.x + static_cast<float>(tile.x) + (static_cast<float>(j) + 0.5f) * cellWidth;
            const float y = origin.y + static_cast<float>(tile.y) + (static_cast<float>(i) + 0.5f) * cellHeight;
            // Light text on dark cells, dark on light (the colormaps run dark to light).
            const double lo = tile.lo, hi = tile.hi;
            const double t = hi > lo ? (value - lo) / (hi - lo) : 0.5;
            const ImU32 color = t > 0.6 ? IM_COL32(0, 0, 0, 230) : IM_COL32(255, 255, 255, 230);
            draw->AddText(ImVec2(std::floor(x - size.x * 0.5f), std::floor(y - size.y * 0.5f)), color, text.c_str());
        }
    }
    return true;
}

}  // namespace

void drawDetailView(AppState& state, const Model& model) {
    const Session& session = state.session;
    const int head = detailHead(session);
    const GridResult* detail = model.detail.get();
    if (detail != nullptr) {
        // What is drawn: the explore layer's head title over the heatmap's own title (which says
        // "preview ..., refining" while the picture is a first one).
        const HeatmapParams& shown = detail->request.heatmap;
        const double slope = shown.head < static_cast<int>(detail->slopes.size()) ? detail->slopes[shown.head] : 0.0;
        ImGui::TextUnformatted(explore::headTitle(shown.head, slope).c_str());
        ImGui::TextDisabled("%s", detail->title.c_str());
    } else {
        ImGui::TextDisabled("head %d", head);
    }
    if (session.head < 0)
        ImGui::TextDisabled("No head selected: showing head 0 (click a head in the grid, or set 'head').");

    const float readoutHeight = ImGui::GetTextLineHeightWithSpacing() * 3.0f;
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    if (detail == nullptr) {
        ImGui::TextDisabled("%s", explore::progressText(explore::ProgressPhase::Computing,
                                                        model.detailsProgress > 0 ? model.detailsProgress : -1.0,
                                                        model.detailsSecondsLeft)
                                      .c_str());
        return;
    }
    if (!detail->error.empty()) {
        ImGui::TextColored(kErrorTextColor, "%s", detail->error.c_str());
        return;
    }
    const Image& image = detail->heatmap.image;
    if (image.width <= 0 || image.height <= 0) return;
    // The image fills the room its shape allows with square cells (a square head fills the view's
    // height; Q = 4 queries of K = 16 keys a strip as wide as the view), cells kept crisp (the
    // texture samples the nearest pixel). The read-out and the notes go under the picture, or in
    // a column right of the colour bar when that lets the picture grow (a lesson's strip leaves a
    // wide, short view): the picture then takes the whole height.
    const float imageWidth = static_cast<float>(image.width), imageHeight = static_cast<float>(image.height);
    const float barWidth = colorBarWidth();
    const float sideWidth = ImGui::GetFontSize() * 16.0f;
    const float besideZoom = std::min((avail.x - barWidth - sideWidth) / imageWidth, avail.y / imageHeight);
    const float belowZoom = std::min((avail.x - barWidth) / imageWidth, (avail.y - readoutHeight) / imageHeight);
    const bool beside = besideZoom > belowZoom;
    const float zoom = std::max(0.0f, beside ? besideZoom : belowZoom);
    const ImVec2 size(std::floor(imageWidth * zoom), std::floor(imageHeight * zoom));
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    if (model.detailTexture != nullptr) {
        ImGui::Image(model.detailTexture, size);
    } else {
        ImGui::Dummy(size);
    }
    const bool hovered = ImGui::IsItemHovered();
    state.detailRect = ScreenRect{origin.x, origin.y, size.x, size.y};
    const bool numbers = drawCellNumbers(*detail, origin, zoom);
    const HeatmapParams& params = detail->request.heatmap;
    drawLessonMark(state.lessonMark, zoomedTiles(detail->heatmap, zoom), params.attention.bias.queries,
                   params.attention.bias.keyCount(), origin);
    const bool refining = model.detailPending && detail->heatmap.rowStep > 1;
    if (model.detailPending || params.head != head)
        drawStaleMark(origin, ImVec2(origin.x + size.x, origin.y + size.y), model.detailsProgress,
                      model.detailsSecondsLeft, refining);
    const float barHeight = size.y - 3.4f * ImGui::GetTextLineHeight();
    drawColorBarBeside(model.detailColorBarTexture, origin, size,
                       alibi::heatmapColorBar(detail->heatmap, params, -1, colorBarTicks(barHeight)));

    // The notes and the read-out: in the column right of the bar, or under the picture (wrapped
    // at its width: the colour bar beside it reaches below its bottom edge).
    const ImVec2 below = ImGui::GetCursorScreenPos();
    float wrapRight = below.x + std::max(size.x, ImGui::GetFontSize() * 8);
    if (beside) {
        ImGui::SetCursorScreenPos(ImVec2(origin.x + size.x + barWidth, origin.y));
        wrapRight = origin.x + avail.x;
        ImGui::BeginGroup();
    }
    ImGui::PushTextWrapPos(wrapRight - ImGui::GetWindowPos().x + ImGui::GetScrollX());
    if (!numbers) ImGui::TextDisabled("Widen the window (or zoom out) to print every number in its cell.");
    const BiasParams& bias = params.attention.bias;
    const auto hit = hovered && zoom > 0
                         ? hitTest(detail->heatmap, params,
                                   static_cast<int>(std::floor((ImGui::GetIO().MousePos.x - origin.x) / zoom)),
                                   static_cast<int>(std::floor((ImGui::GetIO().MousePos.y - origin.y) / zoom)))
                         : std::nullopt;
    if (hit) {
        // The same read-out as the grid's (and the Qt explorer's); attention values come with the image.
        std::optional<double> probability;
        if (!detail->values.empty() && params.what == RenderWhat::Attention) {
            const double value = detail->values[static_cast<std::size_t>(hit->query * bias.keyCount() + hit->key)];
            probability = std::isnan(value) ? 0.0 : value;  // a masked cell: the core's NaN, probability 0
        }
        ImGui::TextUnformatted(
            explore::heatmapReadout(params, detail->slopes, hit->head, hit->query, hit->key, probability).c_str());
    }
    ImGui::PopTextWrapPos();
    if (beside) {
        ImGui::EndGroup();
        ImGui::SetCursorScreenPos(below);
    }
}

}  // namespace alibi::imgui
