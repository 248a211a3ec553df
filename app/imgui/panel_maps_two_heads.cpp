// The Maps view's "two heads" mode: pickers for head A (layer, head) and side B (any head of the
// file, or A's prior at its configured slope or at its fitted m*), the core's figure of A | B |
// B - A drawn at the room the panel has (figure/head_compare_figure.hpp), and under it the core's
// read-out of the hovered cell (query and key tokens, A, B and B - A). File > Export figure draws
// the same figure (figure_export.cpp).
#include "layout_check.hpp"
#include "panels.hpp"
#include "view_common.hpp"

#include <alibi/explore/head_compare.hpp>
#include <alibi/figure/head_compare_figure.hpp>

#include <fmt/format.h>
#include <imgui.h>

#include <algorithm>
#include <cmath>

namespace alibi::imgui {

namespace {

// A layer (by index, shown by its number) and a head.
void headPicker(const char* id, int& layer, int& head, const AttentionMaps& maps) {
    ImGui::PushID(id);
    layer = std::clamp(layer, 0, maps.layers() - 1);
    head = std::clamp(head, 0, maps.heads() - 1);
    const std::string name = fmt::format("layer {}", maps.layerInfo()[static_cast<std::size_t>(layer)].number);
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 9.0f);
    ImGui::SliderInt("##layer", &layer, 0, maps.layers() - 1, name.c_str(), ImGuiSliderFlags_AlwaysClamp);
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7.0f);
    ImGui::SliderInt("##head", &head, 0, maps.heads() - 1, "head %d", ImGuiSliderFlags_AlwaysClamp);
    ImGui::PopID();
}

}  // namespace

void drawMapsTwoHeads(AppState& state, const Model& model) {
    MapsState& s = state.maps;
    const AttentionMaps& maps = *model.maps.file->maps;
    s.twoHeadsHover.reset();
    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted("A:");
    ImGui::SameLine();
    headPicker("a", s.aLayer, s.aHead, maps);
    ImGui::SameLine();
    ImGui::TextUnformatted("   B:");
    ImGui::SameLine();
    const char* sources[] = {"another head", "A's prior at the configured slope", "A's prior at its fitted m*"};
    s.bSource = std::clamp(s.bSource, 0, 2);
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 14.0f);
    ImGui::Combo("##b-source", &s.bSource, sources, 3);
    if (s.bSource == 0) {
        ImGui::SameLine();
        headPicker("b", s.bLayer, s.bHead, maps);
    }

    const float readoutHeight = ImGui::GetTextLineHeightWithSpacing() * 3.2f;
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    s.twoWidth = std::max(0, static_cast<int>(avail.x));
    s.twoHeight = std::max(0, static_cast<int>(avail.y - readoutHeight));
    const TwoHeadsResult* two = model.maps.twoHeads.get();
    if (two == nullptr || two->request.maps != model.maps.file->maps) {
        ImGui::TextDisabled("drawing the two heads…");
        return;
    }
    if (!two->error.empty()) {
        coreErrorText(two->error);
        return;
    }
    const Image& image = two->figure.image;
    const ImVec2 size(static_cast<float>(image.width), static_cast<float>(image.height));
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    s.twoX = origin.x;
    s.twoY = origin.y;
    if (model.maps.twoHeadsTexture != nullptr)
        ImGui::Image(model.maps.twoHeadsTexture, size);
    else
        ImGui::Dummy(size);
    for (const HeadComparePanel& p : two->figure.panels)
        if (p.width > 0) {
            const ImVec2 min(origin.x + static_cast<float>(p.x), origin.y + static_cast<float>(p.y));
            noteHeatmapTile("two heads", min,
                            ImVec2(min.x + static_cast<float>(p.width), min.y + static_cast<float>(p.height)),
                            maps.queries(), maps.keys());
        }
    if (ImGui::IsItemHovered() && two->compare) {
        const ImVec2 mouse = ImGui::GetIO().MousePos;
        if (auto hit = headCompareHitTest(two->figure, *two->compare, static_cast<int>(std::floor(mouse.x - origin.x)),
                                          static_cast<int>(std::floor(mouse.y - origin.y))))
            s.twoHeadsHover = MapsCell{hit->panel, 0, hit->query, hit->key};
    }
    if (model.maps.twoHeadsPending) drawStaleMark(origin, ImVec2(origin.x + size.x, origin.y + size.y), 0.0f);
    if (!model.maps.twoHeadsReadout.empty())
        ImGui::TextUnformatted(model.maps.twoHeadsReadout.c_str());
    else
        ImGui::TextDisabled("Hover a panel for the query and key tokens and A, B and B - A at the cell.");
}

}  // namespace alibi::imgui
