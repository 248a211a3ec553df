// The head-grid panel: the core's heatmap (rendered by renderHeatmap at exactly the pixel size this
// panel has room for, so nothing is scaled), its colour bar, and a read-out of the cell under the
// mouse (head, query, key, distance, slope, value) found with the core's hitTest. The panel reports
// its size in AppState; the Explorer asks the core for a grid of that size.
#include "lesson_panel.hpp"
#include "panels.hpp"
#include "view_common.hpp"

#include <alibi/explore/readout.hpp>
#include <alibi/model/bias.hpp>
#include <alibi/render/color_scale.hpp>
#include <alibi/render/format.hpp>

#include <imgui.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>

namespace alibi::imgui {

namespace {

void drawGridColorBar(const AppState& state, const Model& model, const GridResult& grid, ImVec2 origin, ImVec2 size) {
    // Per-head scales: the bar shows the hovered head's own range (else the shared one); every
    // tile's range is also written in its corner.
    int tileIndex = -1;
    if (grid.request.heatmap.scale == ScaleMode::PerHead && state.hoveredHead >= 0) {
        for (std::size_t t = 0; t < grid.heatmap.tiles.size(); ++t)
            if (grid.heatmap.tiles[t].head == state.hoveredHead) tileIndex = static_cast<int>(t);
    }
    const float height = size.y - 3.4f * ImGui::GetTextLineHeight();
    const alibi::ColorBar bar =
        alibi::heatmapColorBar(grid.heatmap, grid.request.heatmap, tileIndex, colorBarTicks(height));
    drawColorBarBeside(model.colorBarTexture, origin, size, bar);
}

// The read-out of the cell under the mouse: the explore layer's text, the same as the Qt
// explorer's for the same cell.
std::string readoutText(const Model& model, const GridResult& grid, const HoverCell& cell) {
    const HeatmapParams& params = grid.request.heatmap;
    std::optional<double> probability;
    std::string rowError;
    if (params.what == RenderWhat::Attention) {
        const HoverRow* row = model.hoverRow.get();
        const bool current = row != nullptr && row->request.head == cell.head && row->request.query == cell.query &&
                             row->request.attention == params.attention &&
                             row->request.batch == (params.batch.active() ? params.batch : BatchParams{}) &&
                             row->request.batchRow == params.batchRow;
        if (current && row->error.empty() && cell.key < std::ssize(row->probabilities))
            probability = row->probabilities[static_cast<std::size_t>(cell.key)];
        if (current && !row->error.empty()) rowError = "\n" + row->error;
    }
    return explore::heatmapReadout(params, grid.slopes, cell.head, cell.query, cell.key, probability) + rowError;
}

void drawReadout(AppState& state, const Model& model, const GridResult& grid) {
    state.hoverReadout.clear();
    if (!state.hoverCell) {
        // Wrapped (at spaces): with the Parameters panel at 1280x720 in presentation mode it ran
        // off the view's edge ("...click a head for its numb").
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
        textWrappedAtSpaces(
            "Hover the grid for head, query, key, distance, slope and value; click a head for its numbers.");
        ImGui::PopStyleColor();
        return;
    }
    state.hoverReadout = readoutText(model, grid, *state.hoverCell);
    textWrappedAtSpaces(state.hoverReadout);
}

}  // namespace

void drawGridPanel(AppState& state, const Model& model) {
    const GridResult* grid = model.grid.get();
    // The title describes what is drawn (the finished grid), not what was asked for.
    if (grid != nullptr && grid->error.empty()) {
        // Wrapped (at spaces): a per-head scale's note ran off the view's edge at 1280x720.
        textWrappedAtSpaces(grid->title);
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
        textWrappedAtSpaces(grid->subtitle);
        ImGui::PopStyleColor();
    } else {
        ImGui::TextDisabled("head grid");
        ImGui::TextDisabled(" ");
    }

    // Room for the grid: the colour bar and its labels on the right, two read-out lines below.
    const float readoutHeight = ImGui::GetTextLineHeightWithSpacing() * 3.0f + ImGui::GetStyle().ItemSpacing.y;
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    state.gridWidth = std::max(0, static_cast<int>(avail.x - colorBarWidth()));
    state.gridHeight = std::max(0, static_cast<int>(avail.y - readoutHeight));
    state.gridLabelBand = static_cast<int>(std::ceil(ImGui::GetTextLineHeight() + 2.0f));

    if (grid == nullptr) {
        ImGui::Dummy(ImVec2(static_cast<float>(state.gridWidth), static_cast<float>(state.gridHeight)));
        ImGui::TextDisabled("Rendering the first grid...");
        return;
    }
    if (!grid->error.empty()) {
        ImGui::Dummy(ImVec2(static_cast<float>(state.gridWidth), static_cast<float>(state.gridHeight)));
        coreErrorText(grid->error);
        state.hoverCell.reset();
        return;
    }

    // The last finished grid stays on screen, at its own pixel size, while a newer one computes.
    const Image& image = grid->heatmap.image;
    const ImVec2 size(static_cast<float>(image.width), static_cast<float>(image.height));
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    if (model.gridTexture != nullptr) {
        ImGui::Image(model.gridTexture, size);
    } else {
        ImGui::Dummy(size);
        ImGui::GetWindowDrawList()->AddRect(origin, ImVec2(origin.x + size.x, origin.y + size.y),
                                            IM_COL32(128, 128, 128, 255));
    }
    state.gridRect = ScreenRect{origin.x, origin.y, size.x, size.y};
    noteHeatmapTiles("head grid", grid->heatmap.tiles, origin, grid->request.heatmap.attention.bias.queries,
                     grid->request.heatmap.attention.bias.keyCount());
    const bool hovered = ImGui::IsItemHovered();

    state.hoverCell.reset();
    if (hovered) {
        const ImVec2 mouse = ImGui::GetIO().MousePos;
        const int x = static_cast<int>(std::floor(mouse.x - origin.x));
        const int y = static_cast<int>(std::floor(mouse.y - origin.y));
        if (auto hit = hitTest(grid->heatmap, grid->request.heatmap, x, y)) {
            state.hoverCell = HoverCell{hit->head, hit->query, hit->key};
            state.nextHoveredHead = hit->head;
            // A click opens the head in the detail view, as in the Qt explorer.
            if (ImGui::IsMouseClicked(ImGuiMouseButton_Left)) {
                state.session.head = hit->head;
                state.view = View::Detail;
            }
        }
    }

    // Outline and label the highlighted head's tile (hovered here or in another panel).
    ImDrawList* draw = ImGui::GetWindowDrawList();
    for (const HeatmapTile& tile : grid->heatmap.tiles) {
        const ImVec2 a(origin.x + static_cast<float>(tile.x), origin.y + static_cast<float>(tile.y));
        const ImVec2 b(a.x + static_cast<float>(tile.width), a.y + static_cast<float>(tile.height));
        if (tile.head == state.hoveredHead)
            draw->AddRect(ImVec2(a.x - 1, a.y - 1), ImVec2(b.x + 1, b.y + 1), kHighlightColor, 0.0f, 0, 2.0f);
        if (tile.width >= 48 && tile.height >= 24 && grid->heatmap.tiles.size() > 1) {
            const bool perHead = grid->request.heatmap.scale == ScaleMode::PerHead;
            std::string label = fmt::format("h{}", tile.head);
            // Per-head scale: each tile's own exact range (fits when the tile is wide enough).
            if (perHead) {
                // The ends as the tile's own colour bar reads them (">= hi" above rows of one key).
                const alibi::ColorBar own = alibi::heatmapColorBar(
                    grid->heatmap, grid->request.heatmap, static_cast<int>(&tile - grid->heatmap.tiles.data()), 2);
                const std::string ranged =
                    own.ticks.empty()
                        ? label
                        : fmt::format("h{} {}..{}", tile.head, own.ticks.front().label, own.ticks.back().label);
                if (ImGui::CalcTextSize(ranged.c_str()).x + 8.0f < static_cast<float>(tile.width)) label = ranged;
            }
            if (grid->request.heatmap.labelBand >= static_cast<int>(ImGui::GetTextLineHeight())) {
                // In the band the core left above the tile: no cell is covered.
                draw->AddText(ImVec2(a.x, a.y - static_cast<float>(grid->request.heatmap.labelBand) + 1.0f),
                              ImGui::GetColorU32(ImGuiCol_Text), label.c_str());
            } else {
                draw->AddRectFilled(
                    ImVec2(a.x + 2, a.y + 2),
                    ImVec2(a.x + 6 + ImGui::CalcTextSize(label.c_str()).x, a.y + 2 + ImGui::GetTextLineHeight()),
                    IM_COL32(0, 0, 0, 140));
                draw->AddText(ImVec2(a.x + 4, a.y + 2), IM_COL32(255, 255, 255, 230), label.c_str());
            }
        }
    }

    drawLessonMark(state.lessonMark, grid->heatmap, grid->request.heatmap, origin);
    if (model.gridPending)
        drawStaleMark(origin, ImVec2(origin.x + size.x, origin.y + size.y), model.gridProgress, model.gridSecondsLeft,
                      grid->heatmap.rowStep > 1);
    // The bar gets the room of the grid, not only of its tiles: one row of eight tiles (lesson 4
    // step 6 with the Parameters panel open) left it 45 px, its labels "-5" and "-7.5" on each
    // other (the s39 review's F11). It may reach below the tiles, into the room left for them.
    const float barHeight =
        std::max(size.y, std::min(static_cast<float>(state.gridHeight), 9.0f * ImGui::GetTextLineHeight()));
    drawGridColorBar(state, model, *grid, origin, ImVec2(size.x, barHeight));
    if (barHeight > size.y) {
        // The read-out goes under the bar.
        ImGui::SetCursorScreenPos(ImVec2(origin.x, origin.y + barHeight + ImGui::GetStyle().ItemSpacing.y));
    }
    drawReadout(state, model, *grid);
}

}  // namespace alibi::imgui
