// The compare view: A (the session) against B, which is A with some parameters replaced (scheme,
// max_bias, mode, dtype); the explore layer computes A - B per cell over the whole tensor and
// says where the largest difference sits. The difference is drawn on a diverging map whose bar
// spans +-max |A - B|.
#include "lesson_panel.hpp"
#include "panels.hpp"
#include "view_common.hpp"
#include "view_models.hpp"

#include <alibi/explore/compute.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <optional>
#include <string>

namespace alibi::imgui {

namespace {

// The width of an optionalCombo labelled `label` (its box and its visible label).
float comboWidth(const char* label) {
    return ImGui::GetFontSize() * 8.0f + ImGui::GetStyle().ItemInnerSpacing.x +
           ImGui::CalcTextSize(label, nullptr, true).x;
}

// A combo over "same as A" plus every value of an enum.
template <class Enum, std::size_t N, class NameFn>
void optionalCombo(const char* label, std::optional<Enum>& value, const std::array<Enum, N>& values, NameFn name) {
    const std::string current = value ? std::string(name(*value)) : std::string("same as A");
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8.0f);
    if (!ImGui::BeginCombo(label, current.c_str())) return;
    if (ImGui::Selectable("same as A", !value)) value.reset();
    for (Enum candidate : values) {
        const std::string text(name(candidate));
        if (ImGui::Selectable(text.c_str(), value && *value == candidate)) value = candidate;
    }
    ImGui::EndCombo();
}

void drawSpec(CompareOverrides& spec) {
    ImGui::TextDisabled("B = A with:");
    // Each control on the line while it fits, else on the next (a presentation font with the
    // Parameters panel open: the dtype combo ran past the window's edge, the s39 review's F5).
    sameLineIfFits(comboWidth("scheme##B"));
    optionalCombo("scheme##B", spec.scheme, std::array{SlopeScheme::Press, SlopeScheme::Geometric, SlopeScheme::Linear},
                  schemeName);
    sameLineIfFits(checkboxWidth("max_bias##ownB"));
    bool ownBias = spec.maxBias.has_value();
    if (ImGui::Checkbox("max_bias##ownB", &ownBias)) spec.maxBias = ownBias ? std::optional<double>(8.0) : std::nullopt;
    if (spec.maxBias) {
        sameLineIfFits(ImGui::GetFontSize() * 6.0f);
        ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6.0f);
        double value = *spec.maxBias;
        const double lo = kMaxBiasRange.min, hi = kMaxBiasRange.max;
        // Applied when released: B is a whole tensor, recomputed per change.
        ImGui::SliderScalar("##maxBiasB", ImGuiDataType_Double, &value, &lo, &hi, "%.3f",
                            ImGuiSliderFlags_AlwaysClamp | ImGuiSliderFlags_Logarithmic);
        if (ImGui::IsItemDeactivatedAfterEdit() || (!ImGui::IsItemActive() && value != *spec.maxBias))
            spec.maxBias = value;
    }
    sameLineIfFits(comboWidth("mode##B"));
    optionalCombo("mode##B", spec.mode,
                  std::array{BiasMode::Causal, BiasMode::Symmetric, BiasMode::Clamped, BiasMode::Bloom, BiasMode::Mpt},
                  modeName);
    sameLineIfFits(comboWidth("dtype##B"));
    optionalCombo("dtype##B", spec.dtype, std::array{DType::F32, DType::F64, DType::F16, DType::BF16}, dtypeName);
}

}  // namespace

void drawCompareView(AppState& state, const Model& model) {
    drawSpec(state.compareB);
    // B's settings in full, under its controls (the core's line, as the Qt explorer shows it);
    // a blank line until the first result, so the picture's room does not jump when it comes.
    const CompareResult* shownB = model.compare.get();
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    if (shownB != nullptr && !shownB->snapshot.settingsB.empty())
        textWrappedAtPhrases(shownB->snapshot.settingsB, ImGui::GetContentRegionAvail().x);
    else
        ImGui::TextUnformatted(" ");
    ImGui::PopStyleColor();
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float line = ImGui::GetTextLineHeightWithSpacing();
    state.compareWidth = std::max(16, static_cast<int>(avail.x - colorBarWidth()));
    state.compareHeight = std::max(16, static_cast<int>(avail.y - 3.0f * line));
    state.compareLabelBand = tileLabelBand();

    const CompareResult* result = model.compare.get();
    if (result == nullptr) {
        ImGui::TextDisabled("Computing A - B...");
        return;
    }
    const explore::CompareSnapshot& c = result->snapshot;
    if (!c.error.empty()) {
        coreErrorText(c.error);
        return;
    }
    ImGui::TextWrapped("%s", c.summary.c_str());
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    const ImVec2 size(static_cast<float>(c.image.width), static_cast<float>(c.image.height));
    if (model.compareTexture != nullptr) {
        ImGui::Image(model.compareTexture, size);
    } else {
        ImGui::Dummy(size);
    }
    // Hover read-out: A, B and A - B of the cell under the mouse (or which side masks it).
    const std::int64_t queries = state.session.attention.bias.queries, keys = state.session.attention.bias.keyCount();
    if (ImGui::IsItemHovered() && c.cells && queries > 0 && keys > 0) {
        const ImVec2 mouse = ImGui::GetIO().MousePos;
        for (const HeatmapTile& tile : c.tiles) {
            const float x = mouse.x - origin.x - static_cast<float>(tile.x);
            const float y = mouse.y - origin.y - static_cast<float>(tile.y);
            if (x < 0 || y < 0 || x >= static_cast<float>(tile.width) || y >= static_cast<float>(tile.height)) continue;
            const auto query =
                static_cast<std::int64_t>(y / static_cast<float>(tile.height) * static_cast<float>(queries));
            const auto key = static_cast<std::int64_t>(x / static_cast<float>(tile.width) * static_cast<float>(keys));
            const std::string text =
                explore::compareReadout(*c.cells, tile.head, std::min(query, queries - 1), std::min(key, keys - 1));
            if (!text.empty()) ImGui::SetTooltip("%s", text.c_str());
            break;
        }
    }
    noteHeatmapTiles("compare", c.tiles, origin, queries, keys);
    state.compareLabels = drawTileLabels(c.tiles, {}, origin);  // in the band above each tile, as the grid's
    drawLessonMark(state.lessonMark, c.tiles, state.session.attention.bias.queries,
                   state.session.attention.bias.keyCount(), origin);
    if (model.comparePending) drawStaleMark(origin, ImVec2(origin.x + size.x, origin.y + size.y), 0.0f);
    // The core's compare bar, as Qt's and the figure's (one 0 tick when A = B; grey: masked in A or in B).
    const bool masks = modeMasks(state.session.attention.bias.mode) || modeMasks(c.sessionB.attention.bias.mode);
    alibi::ColorBar bar = explore::compareColorBar(c, masks, colorBarTicks(size.y - 3.4f * ImGui::GetTextLineHeight()));
    drawColorBarBeside(model.compareBarTexture, origin, size, bar);
    state.compareBar = std::move(bar);
}

}  // namespace alibi::imgui
