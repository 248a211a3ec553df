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
#include <alibi/render/cell_numbers.hpp>
#include <alibi/render/color_scale.hpp>
#include <alibi/render/format.hpp>
#include <alibi/render/square_cells.hpp>
#include <alibi/render/ticks.hpp>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <optional>
#include <string>
#include <string_view>

namespace alibi::imgui {

namespace {

// The cells on screen: `keys` x `queries` of the head's K x Q (all of them, or the window a zoom
// to a lesson's cited cell shows), the first of them at `at`, each `cellWidth` x `cellHeight`.
struct ShownCells {
    ImVec2 at;
    float cellWidth = 0, cellHeight = 0;
    CellRange keys, queries;
    std::int64_t keyCount = 0, queryCount = 0;  // K and Q, the whole head's

    [[nodiscard]] float x(std::int64_t key) const { return at.x + static_cast<float>(key - keys.first) * cellWidth; }
    [[nodiscard]] float y(std::int64_t query) const {
        return at.y + static_cast<float>(query - queries.first) * cellHeight;
    }
    [[nodiscard]] ImVec2 size() const {
        return ImVec2(static_cast<float>(keys.count) * cellWidth, static_cast<float>(queries.count) * cellHeight);
    }
    [[nodiscard]] bool shows(std::int64_t query, std::int64_t key) const {
        return query >= queries.first && query < queries.first + queries.count && key >= keys.first &&
               key < keys.first + keys.count;
    }
    [[nodiscard]] bool zoomed() const { return keys.count < keyCount || queries.count < queryCount; }
};

float textWidth(const std::string& text, float fontSize) {
    return ImGui::GetFont()->CalcTextSizeA(fontSize, FLT_MAX, 0.0f, text.c_str()).x;
}

// The smallest text the detail prints in or beside its cells.
constexpr float kLeastNumberSize = 10.0f;
// A zoom to a lesson's cited cell prints its numbers at the interface's text size, or down to
// this share of it where that shows every row (or key) of the head (the s42 brief: rows 0-2 of 4
// with 140 px empty below).
constexpr float kZoomNumberShare = 0.75f;

bool isProbability(const GridResult& detail) {
    return detail.request.heatmap.what == RenderWhat::Attention;
}

// The interface's font as the core's rule for cell numbers measures it (render/cell_numbers.hpp):
// a line as tall as the font's size.
NumberFont interfaceNumberFont() {
    const float size = ImGui::GetFontSize();
    return NumberFont{size, size, [size](std::string_view s) { return textWidth(std::string(s), size); }};
}

// The size the head's numbers print at in square cells `cell` pixels across: the core's
// numberSizeForCell, at most the interface's text size, at least kLeastNumberSize.
float numberSize(const GridResult& detail, float cell) {
    const double size = numberSizeForCell(detail.values, isProbability(detail), interfaceNumberFont(), cell);
    return std::clamp(std::floor(static_cast<float>(size)), kLeastNumberSize, ImGui::GetFontSize());
}

// The size of the query and key numbers beside cells `cell` pixels tall: a line in the core's
// share of the cell (kNumberLineShare), at most the interface's text size.
float axisNumberSize(float cell) {
    return std::clamp(std::floor(cell * static_cast<float>(kNumberLineShare)), kLeastNumberSize, ImGui::GetFontSize());
}

// Prints each shown value in its cell when the cells are wide enough for the text; false when
// they are too small (the caller says so).
bool drawCellNumbers(const GridResult& detail, const ShownCells& cells) {
    if (detail.values.empty()) return true;
    // The core's rule (render/cell_numbers.hpp): a line at most kNumberLineShare of the cell,
    // numberRoom across it; fewer decimals where the least size leaves too little room.
    const float fontSize = numberSize(detail, cells.cellWidth);
    if (fontSize > cells.cellHeight * static_cast<float>(kNumberLineShare)) return false;
    const auto numbers = cellNumberTexts(
        detail.values, isProbability(detail),
        [fontSize](std::string_view s) { return textWidth(std::string(s), fontSize); },
        numberRoom(cells.cellWidth, fontSize));
    if (!numbers) return false;
    const HeatmapTile& tile = detail.heatmap.tiles.front();
    ImDrawList* draw = ImGui::GetWindowDrawList();
    for (std::int64_t i = cells.queries.first; i < cells.queries.first + cells.queries.count; ++i) {
        for (std::int64_t j = cells.keys.first; j < cells.keys.first + cells.keys.count; ++j) {
            const std::size_t n = static_cast<std::size_t>(i * cells.keyCount + j);
            const double value = detail.values[n];
            if (std::isnan(value)) continue;  // masked: the grey cell says it
            const std::string& text = numbers->texts[n];
            const float width = textWidth(text, fontSize);
            const float x = cells.x(j) + 0.5f * cells.cellWidth;
            const float y = cells.y(i) + 0.5f * cells.cellHeight;
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
void drawMarkedCellNumber(const LessonMark& mark, const GridResult& detail, const ShownCells& cells) {
    if (detail.values.empty() || detail.heatmap.tiles.front().head != mark.cellHead ||
        !cells.shows(mark.query, mark.key))
        return;
    const double value = detail.values[static_cast<std::size_t>(mark.query * cells.keyCount + mark.key)];
    if (std::isnan(value)) return;
    const std::string text =
        alibi::formatCellValue(value, detail.request.heatmap.what == RenderWhat::Attention, /*narrow=*/false);
    const float x0 = cells.x(mark.key);
    const float yMid = cells.y(mark.query) + 0.5f * cells.cellHeight;
    const ImVec2 size = ImGui::CalcTextSize(text.c_str());
    const float pad = 4.0f, gap = std::max(3.0f, ImGui::GetFontSize() / 5.0f) + 3.0f;
    const float left = cells.at.x, right = left + cells.size().x;
    const bool toRight =
        x0 + cells.cellWidth + gap + size.x + 2 * pad <= right || x0 - left < right - x0 - cells.cellWidth;
    const float boxX = toRight ? x0 + cells.cellWidth + gap : x0 - gap - size.x - 2 * pad;
    const ImVec2 a(std::floor(boxX), std::floor(yMid - size.y * 0.5f - pad));
    const ImVec2 b(a.x + size.x + 2 * pad, a.y + size.y + 2 * pad);
    ImDrawList* draw = ImGui::GetWindowDrawList();
    draw->AddRectFilled(a, b, IM_COL32(0, 0, 0, 220), 3.0f);
    draw->AddRect(a, b, kLessonColor, 3.0f, 0, 2.0f);
    draw->AddText(ImVec2(a.x + pad, a.y + pad), IM_COL32(255, 255, 255, 255), text.c_str());
}

// The query numbers left of the shown cells and the key numbers above them (the core's index
// ticks: every row and column where they are a line apart), so "key 12" need not be counted.
void drawAxisNumbers(const ShownCells& cells, float fontSize) {
    if (cells.queries.count <= 0 || cells.keys.count <= 0) return;
    ImDrawList* draw = ImGui::GetWindowDrawList();
    const ImU32 ink = ImGui::GetColorU32(ImGuiCol_TextDisabled);
    const float widest = textWidth(std::to_string(std::max(cells.queryCount, cells.keyCount) - 1), fontSize);
    for (const std::int64_t n : alibi::indexTicks(cells.queries.count, cells.cellHeight, fontSize + 1.0)) {
        const std::int64_t i = cells.queries.first + n;
        const std::string text = std::to_string(i);
        const float y = cells.y(i) + 0.5f * cells.cellHeight;
        draw->AddText(ImGui::GetFont(), fontSize,
                      ImVec2(cells.at.x - textWidth(text, fontSize) - 4.0f, std::floor(y - fontSize * 0.5f)), ink,
                      text.c_str());
    }
    for (const std::int64_t n : alibi::indexTicks(cells.keys.count, cells.cellWidth, widest + 6.0)) {
        const std::int64_t j = cells.keys.first + n;
        const std::string text = std::to_string(j);
        const float x = cells.x(j) + 0.5f * cells.cellWidth;
        draw->AddText(ImGui::GetFont(), fontSize,
                      ImVec2(std::floor(x - textWidth(text, fontSize) * 0.5f), cells.at.y - fontSize - 3.0f), ink,
                      text.c_str());
    }
}

// Where a zoom shows part of the head: a thin track along the shown cells' bottom and right edges
// with a thumb for the part shown (as the Qt detail's scroll bars), in the gap the bands leave.
void drawShownPartMarks(const ShownCells& cells) {
    ImDrawList* draw = ImGui::GetWindowDrawList();
    const ImU32 track = ImGui::GetColorU32(ImGuiCol_ScrollbarBg), thumb = ImGui::GetColorU32(ImGuiCol_ScrollbarGrab);
    const float bar = 4.0f;
    const ImVec2 size = cells.size();
    const auto part = [](float start, float length, CellRange range, std::int64_t count) {
        const float n = static_cast<float>(std::max<std::int64_t>(count, 1));
        return std::pair{start + length * static_cast<float>(range.first) / n,
                         start + length * static_cast<float>(range.first + range.count) / n};
    };
    if (cells.keys.count < cells.keyCount) {
        const float y = cells.at.y + size.y + 2.0f;
        draw->AddRectFilled(ImVec2(cells.at.x, y), ImVec2(cells.at.x + size.x, y + bar), track, bar / 2);
        const auto [a, b] = part(cells.at.x, size.x, cells.keys, cells.keyCount);
        draw->AddRectFilled(ImVec2(a, y), ImVec2(b, y + bar), thumb, bar / 2);
    }
    if (cells.queries.count < cells.queryCount) {
        const float x = cells.at.x + size.x + 2.0f;
        draw->AddRectFilled(ImVec2(x, cells.at.y), ImVec2(x + bar, cells.at.y + size.y), track, bar / 2);
        const auto [a, b] = part(cells.at.y, size.y, cells.queries, cells.queryCount);
        draw->AddRectFilled(ImVec2(x, a), ImVec2(x + bar, b), thumb, bar / 2);
    }
}

// "rows 7–15, keys 0–15 of 16 x 16 (zoomed to the cited cell)": which part a zoom shows.
std::string shownPartText(const ShownCells& cells) {
    const auto span = [](CellRange r) {
        return std::to_string(r.first) + "\u2013" + std::to_string(r.first + r.count - 1);
    };
    return "rows " + span(cells.queries) + ", keys " + span(cells.keys) + " of " + std::to_string(cells.queryCount) +
           " x " + std::to_string(cells.keyCount) + " (zoomed to the cited cell)";
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
    if (image.width <= 0 || image.height <= 0 || detail->heatmap.tiles.empty()) return;
    // The image fills the room its shape allows with square cells (a square head fills the view's
    // height; Q = 4 queries of K = 16 keys a strip as wide as the view), cells kept crisp (the
    // texture samples the nearest pixel). The read-out and the notes go under the picture, or in
    // a column right of the colour bar when that lets the picture grow (a lesson's strip leaves a
    // wide, short view): the picture then takes the whole height.
    const float imageWidth = static_cast<float>(image.width), imageHeight = static_cast<float>(image.height);
    const HeatmapParams& params = detail->request.heatmap;
    const BiasParams& bias = params.attention.bias;
    const std::int64_t Q = std::max<std::int64_t>(bias.queries, 1), K = std::max<std::int64_t>(bias.keyCount(), 1);
    // Bands for the query numbers (left) and the key numbers (above).
    const float axisFont = ImGui::GetFontSize();
    const float leftBand = textWidth(std::to_string(Q - 1), axisFont) + 6.0f;
    const float topBand = axisFont + 4.0f;
    const float barWidth = colorBarWidth();
    const float sideWidth = ImGui::GetFontSize() * 16.0f;
    const float roomX = avail.x - barWidth - leftBand, roomY = avail.y - topBand;
    const float besideZoom = std::min((roomX - sideWidth) / imageWidth, roomY / imageHeight);
    const float belowZoom = std::min(roomX / imageWidth, (roomY - readoutHeight) / imageHeight);
    bool beside = besideZoom > belowZoom;
    // Square cells always (issue 27: a picture whose cells are stretched says other than its
    // numbers; the layout check holds every heatmap to it).
    const float zoom = std::max(0.0f, beside ? besideZoom : belowZoom);
    const HeatmapTile& tile = detail->heatmap.tiles.front();
    const float tileCellWidth = static_cast<float>(tile.width) / static_cast<float>(K);  // image pixels a cell
    const float tileCellHeight = static_cast<float>(tile.height) / static_cast<float>(Q);
    const ImVec2 start = ImGui::GetCursorScreenPos();
    const ImVec2 origin(start.x + leftBand, start.y + topBand);
    ShownCells cells{ImVec2(origin.x + static_cast<float>(tile.x) * zoom, origin.y + static_cast<float>(tile.y) * zoom),
                     tileCellWidth * zoom,
                     tileCellHeight * zoom,
                     {0, K},
                     {0, Q},
                     K,
                     Q};
    // A lesson's cited cell in this head, where the fitted cells are too small for the numbers:
    // cells large enough for them at the interface's size, showing the whole cells around the
    // cited one (the core's cellsAround, as the Qt detail), in whichever place for the read-out
    // shows more of them (issue 27 L7: at 1920x1080 presentation lesson 1 step 2 drew 27 px cells
    // "too small for their numbers" beside 60 % of the width left empty).
    const LessonMark& mark = state.lessonMark;
    const bool cited = tile.head == mark.cellHead && mark.query >= 0 && mark.key >= 0 && mark.query < Q && mark.key < K;
    // The cell in which every number prints at the interface's size, and the least one a zoom
    // takes to show every row or key (core cellForNumbers, render/cell_numbers.hpp).
    const NumberFont font = interfaceNumberFont();
    const auto cellFor = [&](float size) {
        return static_cast<float>(alibi::cellForNumbers(detail->values, isProbability(*detail), font, size));
    };
    const float need = cited && !detail->values.empty() ? cellFor(static_cast<float>(font.size)) : 0.0f;
    const float least =
        need > 0.0f ? cellFor(std::max(kLeastNumberSize, kZoomNumberShare * static_cast<float>(font.size))) : 0.0f;
    // Cells sized here rather than the picture's fitted ones: the texture's part holding them is
    // drawn at their size (the whole head too, where its smaller cells show it all).
    bool resized = false;
    if (need > std::min(cells.cellWidth, cells.cellHeight) && tileCellWidth > 0 && tileCellHeight > 0) {
        resized = true;
        struct Zoomed {
            float cell;
            CellRange keys, queries;
        };
        const auto zoomedIn = [&](float width, float height) {
            // Smaller cells, down to `least`, where they show the whole head, every row or every
            // key (the core's rule, as Qt's detail).
            const auto cell = static_cast<float>(citedZoomCell(need, least, width, height, Q, K));
            return Zoomed{cell, cellsAround(K, mark.key, width, cell), cellsAround(Q, mark.query, height, cell)};
        };
        const float line = ImGui::GetTextLineHeightWithSpacing();
        const Zoomed side = zoomedIn(roomX - sideWidth, roomY);
        const Zoomed under = zoomedIn(roomX, roomY - readoutHeight - line);
        beside = side.keys.count * side.queries.count >= under.keys.count * under.queries.count;
        const Zoomed& z = beside ? side : under;
        cells = ShownCells{origin, z.cell, z.cell, z.keys, z.queries, K, Q};
    }
    const ImVec2 size(std::floor(cells.size().x), std::floor(cells.size().y));
    // The texture's part that holds the shown cells (all of the image when they are the fitted ones).
    const ImVec2 uv0 =
        resized
            ? ImVec2(
                  (static_cast<float>(tile.x) + static_cast<float>(cells.keys.first) * tileCellWidth) / imageWidth,
                  (static_cast<float>(tile.y) + static_cast<float>(cells.queries.first) * tileCellHeight) / imageHeight)
            : ImVec2(0, 0);
    const ImVec2 uv1 = resized ? ImVec2(uv0.x + static_cast<float>(cells.keys.count) * tileCellWidth / imageWidth,
                                        uv0.y + static_cast<float>(cells.queries.count) * tileCellHeight / imageHeight)
                               : ImVec2(1, 1);
    const ImVec2 pictureSize = resized ? size : ImVec2(std::floor(imageWidth * zoom), std::floor(imageHeight * zoom));
    ImGui::SetCursorScreenPos(origin);
    if (model.detailTexture != nullptr) {
        ImGui::Image(model.detailTexture, pictureSize, uv0, uv1);
    } else {
        ImGui::Dummy(pictureSize);
    }
    const bool hovered = ImGui::IsItemHovered();
    state.detailRect = ScreenRect{cells.at.x, cells.at.y, size.x, size.y};
    const bool numbers = drawCellNumbers(*detail, cells);
    state.detailCells = {cells.queries.first,
                         cells.queries.count,
                         Q,
                         cells.keys.first,
                         cells.keys.count,
                         K,
                         cells.zoomed(),
                         numbers && !detail->values.empty()};
    noteHeatmapTiles("head detail", {HeatmapTile{tile.head, 0, 0, static_cast<int>(size.x), static_cast<int>(size.y)}},
                     cells.at, cells.queries.count, cells.keys.count);
    drawAxisNumbers(cells, std::min(axisFont, axisNumberSize(cells.cellHeight) + 2.0f));
    // The mark on the whole head's picture placed so that its shown cells fall where they are.
    HeatmapTile whole = tile;
    whole.x =
        static_cast<int>(std::lround(cells.at.x - origin.x - static_cast<float>(cells.keys.first) * cells.cellWidth));
    whole.y = static_cast<int>(
        std::lround(cells.at.y - origin.y - static_cast<float>(cells.queries.first) * cells.cellHeight));
    whole.width = static_cast<int>(std::lround(static_cast<float>(K) * cells.cellWidth));
    whole.height = static_cast<int>(std::lround(static_cast<float>(Q) * cells.cellHeight));
    drawLessonMark(mark, {whole}, Q, K, origin);
    if (!numbers) drawMarkedCellNumber(mark, *detail, cells);
    if (cells.zoomed()) drawShownPartMarks(cells);
    const bool refining = model.detailPending && detail->heatmap.rowStep > 1;
    if (model.detailPending || params.head != head)
        drawStaleMark(cells.at, ImVec2(cells.at.x + size.x, cells.at.y + size.y), model.detailsProgress,
                      model.detailsSecondsLeft, refining);
    const float barHeight = size.y - 3.4f * ImGui::GetTextLineHeight();
    drawColorBarBeside(model.detailColorBarTexture, cells.at, size,
                       alibi::heatmapColorBar(detail->heatmap, params, -1, colorBarTicks(barHeight)));

    // The notes and the read-out: in the column right of the bar, or under the picture (wrapped
    // at its width: the colour bar beside it reaches below its bottom edge).
    const ImVec2 below = ImGui::GetCursorScreenPos();
    float wrapRight = below.x + std::max(size.x, ImGui::GetFontSize() * 8);
    if (beside) {
        ImGui::SetCursorScreenPos(ImVec2(cells.at.x + size.x + barWidth, origin.y));
        wrapRight = start.x + avail.x;
        ImGui::BeginGroup();
    }
    ImGui::PushTextWrapPos(wrapRight - ImGui::GetWindowPos().x + ImGui::GetScrollX());
    if (cells.zoomed()) ImGui::TextDisabled("%s", shownPartText(cells).c_str());
    if (!numbers) ImGui::TextDisabled("The cells are too small for their numbers: hover a cell for its value.");
    // The cell under the mouse, asked of the core at its pixel's centre in the image.
    std::optional<CellHit> hit;
    if (hovered && cells.cellWidth > 0 && cells.cellHeight > 0) {
        const ImVec2 mouse = ImGui::GetIO().MousePos;
        const auto key =
            cells.keys.first + static_cast<std::int64_t>(std::floor((mouse.x - cells.at.x) / cells.cellWidth));
        const auto query =
            cells.queries.first + static_cast<std::int64_t>(std::floor((mouse.y - cells.at.y) / cells.cellHeight));
        if (cells.shows(query, key))
            hit = hitTest(detail->heatmap, params,
                          static_cast<int>(std::floor(static_cast<float>(tile.x) +
                                                      (static_cast<float>(key) + 0.5f) * tileCellWidth)),
                          static_cast<int>(std::floor(static_cast<float>(tile.y) +
                                                      (static_cast<float>(query) + 0.5f) * tileCellHeight)));
    }
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
