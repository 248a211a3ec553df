// The head-grid panel: the core's heatmap (rendered by renderHeatmap at exactly the pixel size this
// panel has room for, so nothing is scaled), its colour bar, and a read-out of the cell under the
// mouse (head, query, key, distance, slope, value) found with the core's hitTest. The panel reports
// its size in AppState; the Explorer asks the core for a grid of that size.
#include "panels.hpp"
#include "view_common.hpp"

#include <alibi/model/bias.hpp>

#include <imgui.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>

namespace alibi::imgui {

namespace {

void drawGridColorBar(const AppState& state, const Model& model, const GridResult& grid, ImVec2 origin, float height) {
    // Per-head scales: the bar labels the hovered head's own range (else the union of all).
    double lo = grid.heatmap.lo;
    double hi = grid.heatmap.hi;
    if (grid.request.heatmap.scale == ScaleMode::PerHead && state.hoveredHead >= 0) {
        for (const HeatmapTile& tile : grid.heatmap.tiles) {
            if (tile.head != state.hoveredHead) continue;
            lo = tile.lo;
            hi = tile.hi;
            ImGui::GetWindowDrawList()->AddText(ImVec2(origin.x, origin.y + height + 2.0f), kHighlightColor,
                                                fmt::format("h{}", tile.head).c_str());
        }
    }
    drawColorBar(model.colorBarTexture, origin, height, lo, hi);
}

void drawReadout(const AppState& state, const Model& model, const GridResult& grid) {
    if (!state.hoverCell) {
        ImGui::TextDisabled("Hover the grid for head, query, key, distance, slope and value.");
        return;
    }
    const HoverCell& cell = *state.hoverCell;
    const HeatmapParams& params = grid.request.heatmap;
    const BiasParams& bias = params.attention.bias;
    const double slope = cell.head < static_cast<int>(grid.slopes.size()) ? grid.slopes[cell.head] : 0.0;
    const std::int64_t distance = bias.queryPosition(cell.query) - cell.key;
    ImGui::Text("head %d   slope m = %.6g   query %lld   key %lld   distance %lld", cell.head, slope,
                static_cast<long long>(cell.query), static_cast<long long>(cell.key),
                static_cast<long long>(distance));

    if (params.what == RenderWhat::Attention) {
        const HoverRow* row = model.hoverRow.get();
        const bool current = row != nullptr && row->request.head == cell.head && row->request.query == cell.query &&
                             sameAttention(row->request.attention, params.attention);
        if (!current) {
            ImGui::TextDisabled("attention probability: computing...");
        } else if (!row->error.empty()) {
            ImGui::TextColored(ImVec4(1, 0.42f, 0.36f, 1), "%s", row->error.c_str());
        } else if (cell.key < static_cast<std::int64_t>(row->probabilities.size())) {
            ImGui::Text("attention probability %s", valueText(row->probabilities[cell.key]).c_str());
        }
        return;
    }
    const double value = biasValue(bias, slope, cell.head, cell.query, cell.key);
    const bool masked = !biasCell(bias.mode, slope, bias.queryPosition(cell.query), cell.key, bias.keyCount());
    ImGui::Text("bias %s%s (%s)", valueText(value).c_str(), masked ? "  masked" : "",
                std::string(dtypeName(bias.dtype)).c_str());
}

}  // namespace

void drawGridPanel(AppState& state, const Model& model) {
    const GridResult* grid = model.grid.get();
    // The title describes what is drawn (the finished grid), not what was asked for.
    if (grid != nullptr) {
        const HeatmapParams& shown = grid->request.heatmap;
        const BiasParams& bias = shown.attention.bias;
        ImGui::Text("%s   H = %d   T = %lld   K = %lld   %s   %s",
                    shown.what == RenderWhat::Attention ? "attention" : "bias", bias.slopes.heads,
                    static_cast<long long>(bias.queries), static_cast<long long>(bias.keyCount()),
                    std::string(modeName(bias.mode)).c_str(), std::string(schemeName(bias.slopes.scheme)).c_str());
    } else {
        ImGui::TextDisabled("head grid");
    }

    // Room for the grid: the colour bar and its labels on the right, two read-out lines below.
    const float readoutHeight = ImGui::GetTextLineHeightWithSpacing() * 2.0f + ImGui::GetStyle().ItemSpacing.y;
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    state.gridWidth = std::max(0, static_cast<int>(avail.x - colorBarWidth()));
    state.gridHeight = std::max(0, static_cast<int>(avail.y - readoutHeight));

    if (grid == nullptr) {
        ImGui::Dummy(ImVec2(static_cast<float>(state.gridWidth), static_cast<float>(state.gridHeight)));
        ImGui::TextDisabled("Rendering the first grid...");
        return;
    }
    if (!grid->error.empty()) {
        ImGui::Dummy(ImVec2(static_cast<float>(state.gridWidth), static_cast<float>(state.gridHeight)));
        ImGui::TextColored(kErrorTextColor, "%s", grid->error.c_str());
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
        if (tile.head == state.hoveredHead) draw->AddRect(ImVec2(a.x - 1, a.y - 1), ImVec2(b.x + 1, b.y + 1),
                                                          kHighlightColor, 0.0f, 0, 2.0f);
        if (tile.width >= 48 && tile.height >= 24 && grid->heatmap.tiles.size() > 1) {
            const std::string label = fmt::format("h{}", tile.head);
            draw->AddRectFilled(ImVec2(a.x + 2, a.y + 2),
                                ImVec2(a.x + 6 + ImGui::CalcTextSize(label.c_str()).x, a.y + 2 + ImGui::GetTextLineHeight()),
                                IM_COL32(0, 0, 0, 140));
            draw->AddText(ImVec2(a.x + 4, a.y + 2), IM_COL32(255, 255, 255, 230), label.c_str());
        }
    }

    if (model.gridPending) drawStaleMark(origin, ImVec2(origin.x + size.x, origin.y + size.y), model.gridProgress);
    const ImVec2 barOrigin(origin.x + size.x + kColorBarGap, origin.y);
    drawGridColorBar(state, model, *grid, barOrigin, size.y);
    drawReadout(state, model, *grid);
}

}  // namespace alibi::imgui
