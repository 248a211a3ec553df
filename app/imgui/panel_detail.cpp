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
#include <alibi/render/ticks.hpp>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <optional>
#include <string>
#include <string_view>

namespace alibi::imgui {

namespace {

// The tiles of `map` as drawn at `zoomX` x `zoomY` screen pixels per image pixel.
std::vector<HeatmapTile> zoomedTiles(const Heatmap& map, float zoomX, float zoomY) {
    std::vector<HeatmapTile> tiles = map.tiles;
    for (HeatmapTile& t : tiles) {
        t.x = static_cast<int>(std::lround(static_cast<float>(t.x) * zoomX));
        t.y = static_cast<int>(std::lround(static_cast<float>(t.y) * zoomY));
        t.width = static_cast<int>(std::lround(static_cast<float>(t.width) * zoomX));
        t.height = static_cast<int>(std::lround(static_cast<float>(t.height) * zoomY));
    }
    return tiles;
}

// The size cell numbers and axis numbers are printed at for cells `cellHeight` tall: the
// interface's text size, smaller where the rows are shorter (never under 10 px).
float numberFontSize(float cellHeight) {
    return std::clamp(std::floor(cellHeight - 3.0f), 10.0f, ImGui::GetFontSize());
}

float textWidth(const std::string& text, float fontSize) {
    return ImGui::GetFont()->CalcTextSizeA(fontSize, FLT_MAX, 0.0f, text.c_str()).x;
}

// The head's numbers as the core writes them for cells `room` pixels across at `fontSize` (one
// number of decimals for the whole head); nullopt when they do not fit.
std::optional<CellNumbers> cellNumbers(const GridResult& detail, float fontSize, float room) {
    return cellNumberTexts(
        detail.values, detail.request.heatmap.what == RenderWhat::Attention,
        [fontSize](std::string_view s) { return textWidth(std::string(s), fontSize); }, room);
}

// Prints each value in its cell when the cells are wide enough for the text; false when they are
// too small (the caller says so).
bool drawCellNumbers(const GridResult& detail, ImVec2 origin, float zoomX, float zoomY) {
    if (detail.values.empty() || detail.heatmap.tiles.empty()) return true;
    const HeatmapTile tile = zoomedTiles(detail.heatmap, zoomX, zoomY).front();
    const BiasParams& bias = detail.request.heatmap.attention.bias;
    const std::int64_t queries = bias.queries;
    const std::int64_t keys = bias.keyCount();
    const float cellWidth = static_cast<float>(tile.width) / static_cast<float>(keys);
    const float cellHeight = static_cast<float>(tile.height) / static_cast<float>(queries);
    const float fontSize = numberFontSize(cellHeight);
    if (cellHeight < fontSize) return false;
    const auto numbers = cellNumbers(detail, fontSize, cellWidth - 2.0f);
    if (!numbers) return false;
    ImDrawList* draw = ImGui::GetWindowDrawList();
    for (std::int64_t i = 0; i < queries; ++i) {
        for (std::int64_t j = 0; j < keys; ++j) {
            const std::size_t n = static_cast<std::size_t>(i * keys + j);
            const double value = detail.values[n];
            if (std::isnan(value)) continue;  // masked: the grey cell says it
            const std::string& text = numbers->texts[n];
            const float width = textWidth(text, fontSize);
            const float x = origin.x + static_cast<float>(tile.x) + (static_cast<float>(j) + 0.5f) * cellWidth;
            const float y = origin.y + static_cast<float>(tile.y) + (static_cast<float>(i) + 0.5f) * cellHeight;
            // Light text on dark cells, dark on light (the colormaps run dark to light).
            const double lo = tile.lo, hi = tile.hi;
            const double t = hi > lo ? (value - lo) / (hi - lo) : 0.5;
            const ImU32 color = t > 0.6 ? IM_COL32(0, 0, 0, 230) : IM_COL32(255, 255, 255, 230);
            draw->AddText(ImGui::GetFont(), fontSize,
                          ImVec2(std::floor(x - width * 0.5f), std::floor(y - fontSize * 0.5f)), color, text.c_str());
        }
    }
    return true;
}

// Where the cells are too small for their numbers, the number of a lesson's marked cell (the one
// its text quotes) beside the cell, on a dark box outlined in the lesson's orange: right of the
// cell, or left of it when the picture's right edge is nearer.
void drawMarkedCellNumber(const LessonMark& mark, const GridResult& detail, ImVec2 origin, float zoomX, float zoomY) {
    if (detail.values.empty() || detail.heatmap.tiles.empty()) return;
    const HeatmapTile tile = zoomedTiles(detail.heatmap, zoomX, zoomY).front();
    const BiasParams& bias = detail.request.heatmap.attention.bias;
    const std::int64_t queries = bias.queries, keys = bias.keyCount();
    if (tile.head != mark.cellHead || mark.query < 0 || mark.key < 0 || mark.query >= queries || mark.key >= keys)
        return;
    const double value = detail.values[static_cast<std::size_t>(mark.query * keys + mark.key)];
    if (std::isnan(value)) return;
    const std::string text =
        alibi::formatCellValue(value, detail.request.heatmap.what == RenderWhat::Attention, /*narrow=*/false);
    const float cellWidth = static_cast<float>(tile.width) / static_cast<float>(keys);
    const float cellHeight = static_cast<float>(tile.height) / static_cast<float>(queries);
    const float x0 = origin.x + static_cast<float>(tile.x) + static_cast<float>(mark.key) * cellWidth;
    const float yMid = origin.y + static_cast<float>(tile.y) + (static_cast<float>(mark.query) + 0.5f) * cellHeight;
    const ImVec2 size = ImGui::CalcTextSize(text.c_str());
    const float pad = 4.0f, gap = std::max(3.0f, ImGui::GetFontSize() / 5.0f) + 3.0f;
    const float right = origin.x + static_cast<float>(tile.x + tile.width);
    const bool toRight = x0 + cellWidth + gap + size.x + 2 * pad <= right || x0 - origin.x < right - x0 - cellWidth;
    const float boxX = toRight ? x0 + cellWidth + gap : x0 - gap - size.x - 2 * pad;
    const ImVec2 a(std::floor(boxX), std::floor(yMid - size.y * 0.5f - pad));
    const ImVec2 b(a.x + size.x + 2 * pad, a.y + size.y + 2 * pad);
    ImDrawList* draw = ImGui::GetWindowDrawList();
    draw->AddRectFilled(a, b, IM_COL32(0, 0, 0, 220), 3.0f);
    draw->AddRect(a, b, kLessonColor, 3.0f, 0, 2.0f);
    draw->AddText(ImVec2(a.x + pad, a.y + pad), IM_COL32(255, 255, 255, 255), text.c_str());
}

// The query numbers left of the map and the key numbers above it (the core's index ticks: every
// row and column where they are a line apart), so "key 12" need not be counted.
void drawAxisNumbers(const GridResult& detail, ImVec2 origin, float zoomX, float zoomY, float fontSize) {
    if (detail.heatmap.tiles.empty()) return;
    const HeatmapTile tile = zoomedTiles(detail.heatmap, zoomX, zoomY).front();
    const BiasParams& bias = detail.request.heatmap.attention.bias;
    const std::int64_t queries = bias.queries, keys = bias.keyCount();
    if (queries <= 0 || keys <= 0) return;
    const double cellWidth = static_cast<double>(tile.width) / static_cast<double>(keys);
    const double cellHeight = static_cast<double>(tile.height) / static_cast<double>(queries);
    ImDrawList* draw = ImGui::GetWindowDrawList();
    const ImU32 ink = ImGui::GetColorU32(ImGuiCol_TextDisabled);
    const float widest = textWidth(std::to_string(std::max(queries, keys) - 1), fontSize);
    for (const std::int64_t i : alibi::indexTicks(queries, cellHeight, fontSize + 1.0)) {
        const std::string text = std::to_string(i);
        const float y = origin.y + static_cast<float>(tile.y + (static_cast<double>(i) + 0.5) * cellHeight);
        draw->AddText(ImGui::GetFont(), fontSize,
                      ImVec2(origin.x + static_cast<float>(tile.x) - textWidth(text, fontSize) - 4.0f,
                             std::floor(y - fontSize * 0.5f)),
                      ink, text.c_str());
    }
    for (const std::int64_t j : alibi::indexTicks(keys, cellWidth, widest + 6.0)) {
        const std::string text = std::to_string(j);
        const float x = origin.x + static_cast<float>(tile.x + (static_cast<double>(j) + 0.5) * cellWidth);
        draw->AddText(ImGui::GetFont(), fontSize,
                      ImVec2(std::floor(x - textWidth(text, fontSize) * 0.5f),
                             origin.y + static_cast<float>(tile.y) - fontSize - 3.0f),
                      ink, text.c_str());
    }
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
        textWrappedAtSpaces(explore::headTitle(shown.head, slope));
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
        textWrappedAtSpaces(detail->title);
        ImGui::PopStyleColor();
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
        coreErrorText(detail->error);
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
    const BiasParams& shownBias = detail->request.heatmap.attention.bias;
    const auto queries = static_cast<float>(std::max<std::int64_t>(shownBias.queries, 1));
    // Bands for the query numbers (left) and the key numbers (above).
    const float axisFont = ImGui::GetFontSize();
    const float leftBand = textWidth(std::to_string(static_cast<long long>(queries) - 1), axisFont) + 6.0f;
    const float topBand = axisFont + 4.0f;
    const float barWidth = colorBarWidth();
    const float sideWidth = ImGui::GetFontSize() * 16.0f;
    const float roomX = avail.x - barWidth - leftBand, roomY = avail.y - topBand;
    const float besideZoom = std::min((roomX - sideWidth) / imageWidth, roomY / imageHeight);
    const float belowZoom = std::min(roomX / imageWidth, (roomY - readoutHeight) / imageHeight);
    const bool beside = besideZoom > belowZoom;
    // Square cells always (issue 27: a picture whose cells are stretched says other than its
    // numbers; the layout check holds every heatmap to it): where the cells are too small for the
    // numbers, a lesson's marked cell gets its number beside it (drawMarkedCellNumber).
    const float zoom = std::max(0.0f, beside ? besideZoom : belowZoom);
    const float zoomX = zoom;
    const float zoomY = zoom;
    const ImVec2 size(std::floor(imageWidth * zoomX), std::floor(imageHeight * zoomY));
    const ImVec2 start = ImGui::GetCursorScreenPos();
    const ImVec2 origin(start.x + leftBand, start.y + topBand);
    ImGui::SetCursorScreenPos(origin);
    if (model.detailTexture != nullptr) {
        ImGui::Image(model.detailTexture, size);
    } else {
        ImGui::Dummy(size);
    }
    const bool hovered = ImGui::IsItemHovered();
    state.detailRect = ScreenRect{origin.x, origin.y, size.x, size.y};
    noteHeatmapTiles("head detail", detail->heatmap.tiles, origin, shownBias.queries, shownBias.keyCount(), zoomX,
                     zoomY);
    const bool numbers = drawCellNumbers(*detail, origin, zoomX, zoomY);
    drawAxisNumbers(*detail, origin, zoomX, zoomY,
                    std::min(axisFont, numberFontSize(zoomY * imageHeight / queries) + 2.0f));
    const HeatmapParams& params = detail->request.heatmap;
    drawLessonMark(state.lessonMark, zoomedTiles(detail->heatmap, zoomX, zoomY), params.attention.bias.queries,
                   params.attention.bias.keyCount(), origin);
    if (!numbers) drawMarkedCellNumber(state.lessonMark, *detail, origin, zoomX, zoomY);
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
        wrapRight = start.x + avail.x;
        ImGui::BeginGroup();
    }
    ImGui::PushTextWrapPos(wrapRight - ImGui::GetWindowPos().x + ImGui::GetScrollX());
    if (!numbers) ImGui::TextDisabled("The cells are too small for their numbers: hover a cell for its value.");
    const BiasParams& bias = params.attention.bias;
    const auto hit = hovered && zoom > 0
                         ? hitTest(detail->heatmap, params,
                                   static_cast<int>(std::floor((ImGui::GetIO().MousePos.x - origin.x) / zoomX)),
                                   static_cast<int>(std::floor((ImGui::GetIO().MousePos.y - origin.y) / zoomY)))
                         : std::nullopt;
    if (hit) {
        // The same read-out as the grid's (and the Qt explorer's); attention values come with the image.
        std::optional<double> probability;
        if (!detail->values.empty() && params.what == RenderWhat::Attention) {
            const double value = detail->values[static_cast<std::size_t>(hit->query * bias.keyCount() + hit->key)];
            probability = std::isnan(value) ? 0.0 : value;  // a masked cell: the core's NaN, probability 0
        }
        // Broken only between its phrases: ImGui's wrap left "position p_i = i + K - Q =" above
        // "15" (lesson 4 step 5).
        textWrappedAtPhrases(
            explore::heatmapReadout(params, detail->slopes, hit->head, hit->query, hit->key, probability),
            wrapRight - ImGui::GetCursorScreenPos().x);
    }
    ImGui::PopTextWrapPos();
    if (beside) {
        ImGui::EndGroup();
        ImGui::SetCursorScreenPos(below);
    }
}

}  // namespace alibi::imgui
