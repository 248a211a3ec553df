// The attention maps view (issue 12): the open file (path, values detected or overridden, batch,
// tensor, the ALiBi prior paired with it), a layer selector, and the layer's heads as small
// multiples rendered by the core at this panel's pixel size (or every layer at once), with the
// colour bar from the numbers and the exact read-out of the file's value under the mouse. The
// side pictures (one head, attention vs distance, one row, similarity) are in panel_maps_side.cpp.
#include "layout_check.hpp"
#include "lesson_panel.hpp"
#include "panels.hpp"

#include <alibi/figure/maps_picture.hpp>
#include "view_common.hpp"

#include <alibi/explore/attention_maps_view.hpp>
#include <alibi/figure/attention_maps_render.hpp>
#include <alibi/figure/maps_picture.hpp>
#include <alibi/render/color_scale.hpp>
#include <alibi/render/format.hpp>
#include <alibi/render/tile_labels.hpp>

#include <fmt/format.h>
#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>

namespace alibi::imgui {

namespace {

constexpr const char* kValuesChoices[] = {"detect", "probabilities", "scores (softmax)"};

// The bar of a maps picture: the tile `tile`'s range (per-head scales, the hovered tile), else the
// picture's shared range; the core's bar, the one the exported figures carry.
alibi::ColorBar mapsColorBar(const AttentionMaps& maps, const Heatmap& map, int tile, const std::string& label,
                             float height) {
    alibi::ColorBar bar = attentionMapsColorBar(maps, map, tile, colorBarTicks(height));
    bar.head = label;
    return bar;
}

// The ALiBi prior's name as the prior box shows it.
std::string priorName(const MapsState& s, const Model& model) {
    return s.prior == MapsPrior::None      ? std::string("none")
           : s.prior == MapsPrior::File    ? std::string("the file's slopes")
           : s.prior == MapsPrior::Session ? std::string("session")
           : s.presetIndex < static_cast<int>(model.presets.size())
               ? model.presets[static_cast<std::size_t>(s.presetIndex)].name
               : std::string("preset");
}

// The file's controls folded into one line of what is open (a short view): the file, its shape,
// its values and the prior, and a button that unfolds the controls.
void drawFileLine(AppState& state, const Model& model) {
    MapsState& s = state.maps;
    const MapsOpenResult* file = model.maps.file.get();
    const AttentionMaps& maps = *file->maps;
    const std::string pieces[] = {fmt::format("{}  {}{}", std::filesystem::path(file->ask.path).filename().string(),
                                              maps.layoutText(), maps.causal() ? ", causal" : ", bidirectional"),
                                  fmt::format("· {}", attentionValuesName(maps.values())),
                                  fmt::format("· ALiBi prior: {}", priorName(s, model))};
    bool first = true;
    for (const std::string& piece : pieces) {
        if (!first) sameLineIfFits(ImGui::CalcTextSize(piece.c_str()).x);
        ImGui::TextUnformatted(piece.c_str());
        first = false;
    }
    sameLineIfFits(buttonWidth("File options"));
    if (ImGui::SmallButton("File options")) s.fileBarOpen = true;
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("the path, the values, the batch, the tensor and the ALiBi prior");
}

// A short view whose lesson step cites a side picture (lesson 5 steps 3 to 6 at 1280x720 with the
// Parameters panel): the file's line and the layer bar fold into one line, the layer and head
// pickers (what the steps set), the file's name and the button that unfolds the rest, so the
// side tab gets their room (under four lines of controls it was 245 px tall, and its tab bar, the
// plot's title and the picker sat above the plot, scrolled out of view).
void drawCitedLine(AppState& state, const Model& model) {
    MapsState& s = state.maps;
    const MapsOpenResult* file = model.maps.file.get();
    const AttentionMaps& maps = *file->maps;
    const auto& info = maps.layerInfo();
    s.layer = std::clamp(s.layer, 0, maps.layers() - 1);
    const AttentionLayerInfo& current = info[static_cast<std::size_t>(s.layer)];
    const std::string layer = current.name.empty() ? fmt::format("layer {}", current.number)
                                                   : fmt::format("layer {} ({})", current.number, current.name);
    const float em = ImGui::GetFontSize();
    ImGui::BeginDisabled(maps.layers() < 2);
    ImGui::SetNextItemWidth(std::max(em * 8.0f, ImGui::CalcTextSize(layer.c_str()).x + em * 2.0f));
    ImGui::SliderInt("##cited-layer", &s.layer, 0, maps.layers() - 1, layer.c_str(), ImGuiSliderFlags_AlwaysClamp);
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) ImGui::SetTooltip("Page Up/Down, wheel: layer");
    ImGui::EndDisabled();
    ImGui::SameLine();
    ImGui::SetNextItemWidth(em * 7.0f);
    ImGui::SliderInt("##cited-head", &s.head, 0, maps.heads() - 1, "head %d", ImGuiSliderFlags_AlwaysClamp);
    const std::string name = std::filesystem::path(file->ask.path).filename().string();
    sameLineIfFits(ImGui::CalcTextSize(name.c_str()).x + ImGui::GetStyle().ItemSpacing.x + buttonWidth("File options"));
    ImGui::TextDisabled("%s", name.c_str());
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("%s  %s%s · %s · ALiBi prior: %s", name.c_str(), maps.layoutText().c_str(),
                          maps.causal() ? ", causal" : ", bidirectional",
                          std::string(attentionValuesName(maps.values())).c_str(), priorName(s, model).c_str());
    sameLineIfFits(buttonWidth("File options"));
    if (ImGui::SmallButton("File options")) s.fileBarOpen = true;
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip(
            "the path, the values, the batch, the tensor, the ALiBi prior, and the maps' check boxes (two heads, all "
            "layers, log colours, per-head scale)");
}

void drawFileBar(AppState& state, const Model& model, bool foldable) {
    MapsState& s = state.maps;
    const MapsOpenResult* file = model.maps.file.get();
    // The field as wide as its path (the line's room allowing), so the whole path reads.
    const float pathWidth =
        ImGui::CalcTextSize(s.path.c_str()).x + 2.0f * ImGui::GetStyle().FramePadding.x + ImGui::GetFontSize();
    const float pathRoom =
        ImGui::GetContentRegionAvail().x - buttonWidth("Open maps") - ImGui::GetStyle().ItemSpacing.x;
    ImGui::SetNextItemWidth(std::floor(std::max(ImGui::GetFontSize() * 16.0f, std::min(pathWidth, pathRoom))));
    const bool enter = ImGui::InputText("##maps-path", &s.path, ImGuiInputTextFlags_EnterReturnsTrue);
    noteTextField();  // its text scrolls in its frame (layout_check.hpp)
    ImGui::SameLine();
    if (ImGui::Button("Open maps") || enter) s.open = MapsOpenAsk{s.path, "", 0, 0, false};
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip(
            ".npy (H, Q, K), (L, H, Q, K) or (B, L, H, Q, K), or .safetensors with one tensor per "
            "layer; or drop the file on the window");
    if (model.maps.opening) {
        ImGui::SameLine();
        ImGui::TextDisabled("opening %s...", std::filesystem::path(model.maps.openingPath).filename().string().c_str());
        // The core's progress: the header's bytes read and parsed, then the sampled rows.
        if (const MapsOpenProgress* progress = model.maps.openProgress.get()) {
            ImGui::SameLine();
            const std::string stage = progress->stageText();
            ImGui::ProgressBar(progress->fraction.load(), ImVec2(ImGui::GetFontSize() * 8.0f, 0.0f),
                               fmt::format("{:.0f} %", 100.0 * progress->fraction.load()).c_str());
            if (ImGui::IsItemHovered() && !stage.empty()) ImGui::SetTooltip("%s", stage.c_str());
        }
        ImGui::SameLine();
        if (ImGui::SmallButton("Cancel##maps-open")) s.cancelOpen = true;
    }
    if (file == nullptr) return;
    const AttentionMaps& maps = *file->maps;
    const std::string what = fmt::format("{}  {}{}", std::filesystem::path(file->ask.path).filename().string(),
                                         maps.layoutText(), maps.causal() ? ", causal" : ", bidirectional");
    sameLineIfFits(ImGui::CalcTextSize(what.c_str()).x);
    ImGui::TextUnformatted(what.c_str());

    // Values: detected with the reason, or overridden (a re-open of the same file).
    const float combo = ImGui::GetFontSize() * 8.5f;
    ImGui::SetNextItemWidth(combo);
    int values = s.valuesChoice;
    if (ImGui::Combo("values", &values, kValuesChoices, 3) && values != s.valuesChoice) {
        s.valuesChoice = values;
        s.open = MapsOpenAsk{file->ask.path, s.tensor, s.batch, values, true};
    }
    ImGui::SameLine();
    ImGui::TextDisabled("%s: %s", std::string(attentionValuesName(maps.values())).c_str(), maps.valuesReason().c_str());
    if (maps.batches() > 1) {
        ImGui::SameLine();
        ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6.0f);
        int batch = s.batch;
        if (ImGui::InputInt("batch", &batch, 1, 1, ImGuiInputTextFlags_EnterReturnsTrue)) {
            batch = std::clamp(batch, 0, maps.batches() - 1);
            if (batch != s.batch) s.open = MapsOpenAsk{file->ask.path, s.tensor, batch, s.valuesChoice, true};
        }
        ImGui::SameLine();
        ImGui::TextDisabled("of %d", maps.batches());
    }
    if (!file->tensors.empty()) {
        ImGui::SameLine();
        ImGui::SetNextItemWidth(ImGui::GetFontSize() * 11.0f);
        const std::string preview = s.tensor.empty() ? fmt::format("all {} layers", file->tensors.size()) : s.tensor;
        if (ImGui::BeginCombo("tensors", preview.c_str())) {
            if (ImGui::Selectable("all layers", s.tensor.empty()) && !s.tensor.empty())
                s.open = MapsOpenAsk{file->ask.path, "", s.batch, s.valuesChoice, false};
            for (const std::string& name : file->tensors)
                if (ImGui::Selectable(name.c_str(), name == s.tensor) && name != s.tensor)
                    s.open = MapsOpenAsk{file->ask.path, name, s.batch, s.valuesChoice, false};
            ImGui::EndCombo();
        }
    }

    // The ALiBi prior the maps are paired with: none, the session's slopes, or a preset's.
    ImGui::SetNextItemWidth(combo);
    const std::string prior = priorName(s, model);
    if (ImGui::BeginCombo("ALiBi prior", prior.c_str())) {
        if (ImGui::Selectable("none", s.prior == MapsPrior::None)) s.prior = MapsPrior::None;
        if (ImGui::Selectable("the file's slopes (the model run's)", s.prior == MapsPrior::File,
                              maps.fileSlopes().empty() ? ImGuiSelectableFlags_Disabled : 0))
            s.prior = MapsPrior::File;
        if (ImGui::Selectable("the session's parameters", s.prior == MapsPrior::Session)) s.prior = MapsPrior::Session;
        for (std::size_t p = 0; p < model.presets.size(); ++p) {
            const Preset& preset = model.presets[p];
            const bool fits = preset.heads == maps.heads();
            const std::string label = fmt::format("{} (H = {})", preset.name, preset.heads);
            if (ImGui::Selectable(label.c_str(), s.prior == MapsPrior::Preset && s.presetIndex == static_cast<int>(p),
                                  fits ? 0 : ImGuiSelectableFlags_Disabled)) {
                s.prior = MapsPrior::Preset;
                s.presetIndex = static_cast<int>(p);
            }
        }
        ImGui::EndCombo();
    }
    ImGui::SameLine();
    ImGui::TextDisabled("%s", model.maps.priorNote.c_str());
    if (foldable) {
        sameLineIfFits(buttonWidth("Fold"));
        if (ImGui::SmallButton("Fold")) s.fileBarOpen = false;
    }
}

void drawLayerBar(AppState& state, const AttentionMaps& maps) {
    MapsState& s = state.maps;
    const auto& info = maps.layerInfo();
    const int layers = maps.layers();
    s.layer = std::clamp(s.layer, 0, layers - 1);
    const AttentionLayerInfo& current = info[static_cast<std::size_t>(s.layer)];
    const std::string label = current.name.empty() ? fmt::format("layer {}", current.number)
                                                   : fmt::format("layer {} ({})", current.number, current.name);
    ImGui::Checkbox("two heads", &s.twoHeads);
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("Any head against any other head, or against its ALiBi prior, with the difference B - A");
    ImGui::SameLine();
    if (s.twoHeads) return;  // the two heads mode has pickers of its own
    ImGui::BeginDisabled(s.overview || layers < 2);
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 14.0f);
    ImGui::SliderInt("##layer", &s.layer, 0, layers - 1, label.c_str(), ImGuiSliderFlags_AlwaysClamp);
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) ImGui::SetTooltip("Page Up/Down, wheel: layer");
    ImGui::EndDisabled();
    // The check boxes go on as many lines as the view needs ("per-head scale" ran off the edge at
    // 1920x1080 with the Parameters panel open in presentation mode).
    sameLineIfFits(checkboxWidth("all layers"));
    ImGui::Checkbox("all layers", &s.overview);
    sameLineIfFits(checkboxWidth("log colours"));
    ImGui::Checkbox("log colours", &s.logColors);
    sameLineIfFits(checkboxWidth("per-head scale"));
    ImGui::Checkbox("per-head scale", &s.perHead);
    if (s.shortView) {
        sameLineIfFits(ImGui::GetFontSize() * 9.0f);
        // The side tabs' head picker, here (a short view keeps their lines for the pictures).
        ImGui::SetNextItemWidth(ImGui::GetFontSize() * 9.0f);
        ImGui::SliderInt("##layer-bar-head", &s.head, 0, maps.heads() - 1, "head %d", ImGuiSliderFlags_AlwaysClamp);
        return;
    }
    // The keys' hint only where the line has room for it (a line of its own would take the
    // pictures' room; the layer slider's tooltip says the same).
    const char* hint = "Page Up/Down, wheel: layer";
    const float gap = ImGui::GetStyle().ItemSpacing.x;
    if (ImGui::GetItemRectMax().x + gap + ImGui::CalcTextSize(hint).x <=
        ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x) {
        ImGui::SameLine(0, gap);
        ImGui::TextDisabled("%s", hint);
    }
}

// Outlines the selected head and labels the tiles in the band the core left above each (as the
// head grid, Compare and Diagnose do: never over a cell), with the core's forms
// (mapsTileLabelForms: "L1 h3" on the overview, a layer's slopes, a per-head tile's own range) and
// one form for every tile (drawTileLabels).
std::vector<TileLabelPlace> drawGridLabels(const MapsState& s, const MapsModel& model, const MapsGridResult& grid,
                                           const AttentionMaps& maps, ImVec2 origin) {
    ImDrawList* draw = ImGui::GetWindowDrawList();
    const Heatmap& picture = grid.picture();
    for (std::size_t n = 0; n < picture.tiles.size(); ++n) {
        const HeatmapTile& tile = picture.tiles[n];
        if (tile.head != s.head || grid.shown.tileLayer[n] != s.layer) continue;
        const ImVec2 a(origin.x + static_cast<float>(tile.x), origin.y + static_cast<float>(tile.y));
        const ImVec2 b(a.x + static_cast<float>(tile.width), a.y + static_cast<float>(tile.height));
        draw->AddRect(ImVec2(a.x - 1, a.y - 1), ImVec2(b.x + 1, b.y + 1), kHighlightColor, 0.0f, 0, 2.0f);
    }
    const auto forms =
        mapsTileLabelForms(maps, grid.shown, grid.request.perHead ? ScaleMode::PerHead : ScaleMode::Shared,
                           [&](int layer, int head) { return headSlopesOf(model, layer, head); });
    return drawTileLabels(picture.tiles, forms, origin);
}

// The overview's order of layers, in its subtitle: where a tile is too narrow for "L1 h3" its
// label is "h3" alone, and the rows' layers are read from here. Of `shown` (the overview drawn;
// null: every layer of the file), the layers it shows, and, where the room held only some of the
// tiles (the core places what fits: a deep model in a small view), how many.
std::string overviewOrder(const AttentionMaps& maps, const MapsOverview* shown) {
    const auto& info = maps.layerInfo();
    std::size_t first = 0, last = info.size() - 1;
    if (shown != nullptr && !shown->tileLayer.empty()) {
        first = static_cast<std::size_t>(shown->tileLayer.front());
        last = static_cast<std::size_t>(shown->tileLayer.back());
    }
    const std::size_t all = static_cast<std::size_t>(maps.layers()) * static_cast<std::size_t>(maps.heads());
    if (shown != nullptr && shown->map.tiles.size() < all)
        return fmt::format(
            "only {} of {} heads fit, layers L{} to L{} top to bottom: widen the view or look at one layer at a "
            "time; ",
            shown->map.tiles.size(), all, info[first].number, info[last].number);
    return fmt::format("layers L{} to L{} top to bottom; ", info[first].number, info[last].number);
}

// The width the grid's colour bar takes beside it: its labels', its title's and its swatches' (the
// room colorBarWidth() keeps for the widest any bar may need, about 9 em, took most of a narrow
// grid's width).
float gridBarWidth(const alibi::ColorBar& bar) {
    if (bar.ticks.empty()) return colorBarWidth();  // no bar drawn yet: the widest
    const char* swatch = bar.fullyMaskedSwatch ? "fully masked row" : "masked";
    return std::max(colorBarWidth(bar), kColorBarGap + colorBarSwatchSize() + 4.0f + ImGui::CalcTextSize(swatch).x);
}

// `compact` (a short view whose step cites a side picture): the subtitle is left to the tooltip
// and the colour bar keeps only its own width, so the tiles take that room (they were 26 px,
// too small for their labels). Returns whether the mouse is over the grid.
bool drawGrid(AppState& state, const Model& model, ImVec2 size, bool compact) {
    const bool subtitleInTooltip = compact;
    MapsState& s = state.maps;
    const MapsGridResult* grid = model.maps.grid.get();
    const AttentionMaps& maps = *model.maps.file->maps;
    // The subtitle: what a pixel shows, wrapped at the grid's width (the side pictures sit to its
    // right); the grid takes the height it leaves.
    std::string note, subtitle = " ";
    if (grid != nullptr && grid->error.empty()) {
        // A per-head scale says what each tile's range leaves out (the core's note).
        note = alibi::perHeadScaleNote(grid->picture(), grid->request.perHead ? ScaleMode::PerHead : ScaleMode::Shared);
        if (!note.empty()) note = " · " + note;
        subtitle =
            fmt::format("drawn in {:.0f} ms; {}{}{}", grid->ms,
                        grid->request.overview ? overviewOrder(*grid->request.maps, &grid->shown) : std::string(),
                        grid->picture().summary, note);
    }
    // The subtitle comes with the grid it describes, and its length with the size the grid was
    // asked for ("1 px = 1 x 1 cells" or "1 px = 1 x 1.14 cells, ... 1 exact query row of 1.14 per
    // pixel row"): room for the longer form at least, or a grid asked for under a one-line
    // subtitle came back with a three-line one and ran past the view (and the next size asked
    // for flipped it back, frame after frame).
    constexpr const char* kLongSubtitle =
        "drawn in 000 ms; 1 px = 1 x 1.14 cells, max over keys, 1 exact query row of 1.14 per pixel row";
    const std::string longSubtitle = (s.overview ? overviewOrder(maps, nullptr) : std::string()) + kLongSubtitle;
    // Wrapped by the core's rule, at spaces only ("1 px = 2." | "46 x 2.46 cells" was ImGui's own
    // wrap, which breaks after a '.').
    const float subtitleHeight =
        subtitleInTooltip ? 0.0f
                          : std::max(wrappedTextHeight(subtitle, size.x), wrappedTextHeight(longSubtitle, size.x)) +
                                ImGui::GetStyle().ItemSpacing.y;
    s.gridWidth = std::max(0, static_cast<int>(size.x - (compact ? gridBarWidth(state.mapsBar) : colorBarWidth())));
    // Compact: the labels over the tiles' masked corners, no band (a band per row, clamped to a
    // quarter of a tall, narrow grid's height, made the core's square-cell search drop its two
    // columns for one of 30 px tiles, too small to label: lesson 5 step 4 at 1280x720 with the
    // Parameters panel once the lesson text's lines were further apart).
    s.gridLabelBand = compact ? 0 : tileLabelBand();
    s.gridHeight = std::max(0, static_cast<int>(size.y - subtitleHeight));
    state.mapsSubtitle = subtitle;
    if (!subtitleInTooltip) {
        ImGui::BeginGroup();
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
        textWrappedAtSpaces(subtitle, size.x);
        ImGui::PopStyleColor();
        ImGui::EndGroup();
        if (grid != nullptr && grid->error.empty() && ImGui::IsItemHovered())
            ImGui::SetTooltip("%s%s", grid->picture().summary.c_str(), note.c_str());
    }
    const bool current = grid != nullptr && grid->request.maps == model.maps.file->maps;
    if (grid == nullptr || !current) {
        ImGui::Dummy(ImVec2(static_cast<float>(s.gridWidth), static_cast<float>(s.gridHeight)));
        return false;
    }
    if (!grid->error.empty()) {
        ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + size.x);
        coreErrorText(grid->error);
        ImGui::PopTextWrapPos();
        return false;
    }
    const Heatmap& picture = grid->picture();
    const ImVec2 imageSize(static_cast<float>(picture.image.width), static_cast<float>(picture.image.height));
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    if (model.maps.gridTexture != nullptr) {
        ImGui::Image(model.maps.gridTexture, imageSize);
    } else {
        ImGui::Dummy(imageSize);
    }
    s.gridShown = lastItemShown();
    noteHeatmapTiles(grid->request.overview ? "attention maps overview" : "attention maps layer grid", picture.tiles,
                     origin, maps.queries(), maps.keys());
    s.gridX = origin.x;
    s.gridY = origin.y;
    const bool hovered = ImGui::IsItemHovered();
    // The bar: the picture's shared range, or under per-head scales the hovered tile's (the
    // core's mapsPictureHit or mapsHitTest finds it).
    int barTile = -1;
    std::string barLabel;
    if (hovered) {
        const ImVec2 mouse = ImGui::GetIO().MousePos;
        const int x = static_cast<int>(std::floor(mouse.x - origin.x));
        const int y = static_cast<int>(std::floor(mouse.y - origin.y));
        if (auto cell = mapsCellAt(*grid, x, y)) {
            s.hover = cell;
            if (ImGui::IsMouseClicked(ImGuiMouseButton_Left)) {
                s.layer = cell->layer;
                s.head = cell->head;
                s.row = cell->query;
                s.overview = false;  // a click on a tile of the overview opens its layer and head
            }
            if (grid->request.perHead) {
                barTile = mapsTileOf(*grid, *cell);
                barLabel = grid->request.overview ? explore::mapsHeadLabel(maps, cell->layer, cell->head)
                                                  : fmt::format("h{}", cell->head);
            }
        }
        // The wheel steps through the layers.
        const float wheel = ImGui::GetIO().MouseWheel;
        if (wheel != 0.0f && !s.overview) s.layer = std::clamp(s.layer + (wheel < 0 ? 1 : -1), 0, maps.layers() - 1);
    }
    state.mapsLabels = drawGridLabels(s, model.maps, *grid, maps, origin);
    // A layer's heads are told apart by their labels (the s40 brief: 26 px tiles carried none).
    if (!grid->request.overview && picture.tiles.size() > 1)
        noteTileLabels("attention maps layer grid", picture.tiles.size(), state.mapsLabels.size());
    // A lesson step's heads and cell, on the layer it shows.
    if (!grid->request.overview && s.lessonLayer >= 0 && grid->request.layer == s.lessonLayer)
        drawLessonMark(s.lessonMark, grid->shown.map.tiles, maps.queries(), maps.keys(), origin);
    if (model.maps.gridPending) drawStaleMark(origin, ImVec2(origin.x + imageSize.x, origin.y + imageSize.y), 0.0f);
    const float line = ImGui::GetTextLineHeight();
    const float barHeight = std::max(imageSize.y - 3.4f * line, 2.0f * line);
    state.mapsBar = mapsColorBar(maps, picture, barTile, barLabel, barHeight);
    drawColorBarBeside(model.maps.gridBarTexture, origin, imageSize, state.mapsBar);
    return hovered;
}

}  // namespace

void drawMapsView(AppState& state, const Model& model) {
    const MapsOpenResult* file = model.maps.file.get();
    // A short view (a lesson strip under it on a projector): the file's controls fold into a line.
    const float lineHeight = ImGui::GetTextLineHeightWithSpacing();
    const bool shortView = ImGui::GetContentRegionAvail().y < lineHeight * 20.0f;
    state.maps.shortView = shortView;
    // A step citing a side picture in a short view: one line of controls (drawCitedLine).
    const bool citedShort = file != nullptr && shortView && state.lessonOpen && state.maps.lessonSide &&
                            !state.maps.fileBarOpen && !state.maps.twoHeads;
    if (citedShort)
        drawCitedLine(state, model);
    else if (file != nullptr && shortView && !state.maps.fileBarOpen)
        drawFileLine(state, model);
    else
        drawFileBar(state, model, file != nullptr && shortView);
    if (file == nullptr) {
        ImGui::Spacing();
        ImGui::TextWrapped(
            "No attention maps are open. Type a path above, use File > Open attention maps, drop a "
            ".npy or .safetensors file on the window, or open an example from the Help menu.");
        ImGui::TextDisabled(
            "Save them from a Hugging Face ALiBi model (BLOOM, MPT) with output_attentions=True: "
            "see scripts/ and docs/FIT.md.");
        return;
    }
    const AttentionMaps& maps = *file->maps;
    state.maps.gridShown = state.maps.headShown = state.maps.plotShown = state.maps.similarityShown = {};
    if (!citedShort) drawLayerBar(state, maps);
    if (state.maps.twoHeads) {
        drawMapsTwoHeads(state, model);
        return;
    }

    // The grid on the left, the side pictures on the right, the read-out below both: up to four
    // lines (tokens included), or, when the room is tight, one line and the hover read-out in a
    // tooltip, so the pictures keep the room. Below the height the side pictures need (their
    // controls, title, fit and a plot), the three scroll in a child window of that height rather
    // than shrink to a sliver (the wheel stays the layer's). A short view (a lesson strip under it
    // on a projector) never scrolls: what a step cites must show without the lecturer scrolling,
    // so the read-out goes to the tooltip and the pictures share what there is (a body of 9 lines
    // in 8.5 lines' room cut the Head picture's "masked" key and the Row plot's axis title at
    // 1280x720 with the Parameters panel, the s39 round-2 review). When the step cites a side
    // picture, the controls fold into one line and the side tab is as wide as its text column
    // beside its plot needs, so the whole tab shows (drawCitedLine).
    const float minBody = lineHeight * 15.0f;
    ImVec2 avail = ImGui::GetContentRegionAvail();
    const bool scrollBody = !shortView && avail.y < minBody;
    if (scrollBody) {
        ImGui::BeginChild("maps body", ImVec2(0, 0), false,
                          ImGuiWindowFlags_AlwaysVerticalScrollbar | ImGuiWindowFlags_NoScrollWithMouse);
        avail = ImVec2(ImGui::GetContentRegionAvail().x, minBody);
    }
    const bool compactReadout = avail.y < lineHeight * 18.0f;
    const float readoutHeight = shortView ? 0.0f : lineHeight * (compactReadout ? 1.2f : 4.2f);
    // The side pictures get the larger share when a lesson step in a short view is about them
    // (the plot's title and legend then take a line each).
    const float share = shortView && state.maps.lessonSide ? 0.68f : 0.42f;
    const float em = ImGui::GetFontSize();
    float sideWidth = std::floor(std::clamp(avail.x * share, em * 18.0f, avail.x * std::max(share, 0.5f)));
    if (citedShort) {
        // Wide enough for the tabs' text in a column beside their plot (26 em, kSideColumnLayout
        // in panels.hpp): above the plot it pushed the plot's title and picker out of the tab.
        // The grid keeps 8 em at least.
        const float column = em * kSideColumnLayout + 2.0f * std::ceil(em * 0.2f) + 1.0f;
        sideWidth = std::floor(std::min(std::max(sideWidth, column), avail.x - em * 8.0f));
    }
    const ImVec2 gridSize(avail.x - sideWidth - ImGui::GetStyle().ItemSpacing.x, avail.y - readoutHeight);
    ImGui::BeginGroup();
    const bool gridHovered = drawGrid(state, model, gridSize, citedShort);
    ImGui::EndGroup();
    ImGui::SetCursorScreenPos(ImVec2(
        ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMin().x + gridSize.x + ImGui::GetStyle().ItemSpacing.x,
        ImGui::GetItemRectMin().y));
    // While a lesson step cites it, its scroll bar shows (a cited plot scrolled into view on a
    // narrow tab, its text above it: hidden, nobody could tell there was more), from the step's
    // first frame: a bar appearing a frame later narrows the tab after the step's one scroll, and
    // the plot moved under the edge. Otherwise the tab does not scroll: the wheel is the layer's.
    // In a short view (drawCitedLine) the cited tab fits its room whole (the layout check's
    // noteCitedArea): no scroll bar taking its width (one that came for a frame while a step's
    // pictures were computed narrowed the tab and moved its plot); the wheel still scrolls it.
    const bool cited = state.lessonOpen && state.maps.lessonSide;
    beginTextChild("maps-side", ImVec2(sideWidth, gridSize.y),
                   citedShort ? ImGuiWindowFlags_NoScrollbar
                   : cited    ? ImGuiWindowFlags_AlwaysVerticalScrollbar
                              : ImGuiWindowFlags_NoScrollbar);
    drawMapsSide(state, model);
    if (cited) noteCitedArea("attention maps side tab");
    ImGui::EndChild();
    ImGui::SetCursorScreenPos(ImVec2(ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMin().x,
                                     ImGui::GetItemRectMax().y + ImGui::GetStyle().ItemSpacing.y));
    if (citedShort && gridHovered) {
        // The grid's subtitle (what a pixel shows) is the tooltip's here, under the read-out.
        ImGui::SetTooltip("%s%s%s", model.maps.hoverReadout.c_str(), model.maps.hoverReadout.empty() ? "" : "\n\n",
                          state.mapsSubtitle.c_str());
    } else if (!model.maps.hoverReadout.empty() && (compactReadout || shortView)) {
        ImGui::SetTooltip("%s", model.maps.hoverReadout.c_str());
    } else if (shortView) {
        // No line for the read-out: the hover read-out is the tooltip's.
    } else if (!model.maps.hoverReadout.empty()) {
        ImGui::TextUnformatted(model.maps.hoverReadout.c_str());
    } else {
        // One line (the room below the maps has one): the short hint where the long one would
        // run off the view's edge (1280x720 presentation with the Parameters panel).
        const char* hint =
            "Hover the maps for the file's value, its distance and the ALiBi prior there; click a head to inspect it.";
        if (ImGui::CalcTextSize(hint).x > ImGui::GetContentRegionAvail().x)
            hint = "Hover the maps for values; click a head to inspect it.";
        ImGui::TextDisabled("%s", hint);
    }
    if (scrollBody) ImGui::EndChild();
}

}  // namespace alibi::imgui
