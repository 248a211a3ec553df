// The diagnose view: a bias tensor from a file (.npy, .safetensors) or a built-in example with a
// known bug, checked by the core's diagnose: what reproduces it, which known bug it shows, the
// slopes read off it, and |error| per cell against correct ALiBi (the core's correctAlibiError,
// not the buggy reproduction that matched) as a heatmap. "Open the corrected parameters" sets the
// explorer to that correct ALiBi (undoable).
#include "layout_check.hpp"
#include "panels.hpp"
#include "view_common.hpp"
#include "view_models.hpp"

#include <alibi/analysis/buggy_examples.hpp>
#include <alibi/explore/diagnosis_error_map.hpp>
#include <alibi/explore/diagnosis_report.hpp>
#include <alibi/render/format.hpp>
#include <alibi/render/tile_labels.hpp>

#include <imgui_stdlib.h>

#include <fmt/format.h>

#include <algorithm>

namespace alibi::imgui {

namespace {

// Whether the map's tiles are a batch's (batch row, head) pairs, labelled "b1 h3" by the core.
bool batchTileLabels(const DiagnoseResult& result) {
    return !result.tileLabels.empty() && result.tileLabels.front().starts_with('b');
}

// The report: the core's words (explore::diagnosisReportText, the same the Qt explorer shows).
void drawReport(const DiagnoseResult& result) {
    const explore::DiagnosisReportText r =
        explore::diagnosisReportText(*result.diagnosis, result.source, result.shape, result.dtype);
    const ImVec4 green(0.4f, 0.85f, 0.4f, 1);
    ImGui::PushTextWrapPos(0.0f);
    textWrappedAtSpaces(r.heading);
    textWrappedAtSpaces(r.summary);
    textWrappedAtSpaces(r.readAs);
    ImGui::PushStyleColor(ImGuiCol_Text, r.matches ? green : kErrorTextColor);
    textWrappedAtSpaces(r.match);
    ImGui::PopStyleColor();
    if (r.findings.empty()) {
        textWrappedAtSpaces(r.noFindings);
    } else {
        ImGui::Spacing();
        ImGui::TextDisabled("Findings");
        for (const explore::DiagnosisFindingText& f : r.findings) {
            ImGui::Bullet();
            // A harmless finding is never shown as an error: its effect after softmax says so.
            ImGui::TextColored(f.changesAttention ? kErrorTextColor : green, "%s: %s", f.code.c_str(),
                               f.effect.c_str());
            textWrappedAtSpaces(f.message);
            if (!f.fix.empty()) textWrappedAtSpaces(f.fix);
        }
    }
    if (!r.slopes.empty()) {
        ImGui::Spacing();
        ImGui::TextDisabled("Slopes read off the tensor");
        // One item per head, flowed by hand: a slope is never split mid-number ("h5: 0." / "015625").
        const float right = ImGui::GetContentRegionMax().x;
        for (std::size_t h = 0; h < r.slopes.size(); ++h) {
            const std::string entry = r.slopes[h] + (h + 1 < r.slopes.size() ? "," : "");
            if (h > 0) {
                ImGui::SameLine();
                if (ImGui::GetCursorPosX() + ImGui::CalcTextSize(entry.c_str()).x > right) ImGui::NewLine();
            }
            ImGui::TextUnformatted(entry.c_str());
        }
    }
    textWrappedAtSpaces(r.maxError);
    if (!r.firstMismatch.empty()) textWrappedAtSpaces(r.firstMismatch);
    ImGui::PopTextWrapPos();
}

// "Open the corrected parameters", under the report's scroll area (at its end it was cut in half
// by the area's bottom at 1280x720): always whole, always reachable.
void drawCorrectedButton(AppState& state, const DiagnoseResult& result) {
    const explore::DiagnosisReportText r =
        explore::diagnosisReportText(*result.diagnosis, result.source, result.shape, result.dtype);
    if (r.offerCorrected) {
        if (ImGui::Button("Open the corrected parameters")) state.openCorrected = true;
        state.diagnoseButtonRect = ScreenRect{ImGui::GetItemRectMin().x, ImGui::GetItemRectMin().y,
                                              ImGui::GetItemRectSize().x, ImGui::GetItemRectSize().y};
        if (ImGui::IsItemHovered())
            ImGui::SetTooltip(
                "Set the explorer to correct ALiBi with this tensor's shape, mode, mask and dtype "
                "(%s); Ctrl+Z goes back",
                r.correctedSummary.c_str());
    }
}

// The read under way: the core's progress and a Cancel (the diagnosis shown stays). Drawn in the
// text column, so the map's size, and with it the request, does not change while it shows.
void drawProgress(AppState& state, const Model& model) {
    if (!model.diagnosisPending || !model.diagnosisProgress) return;
    const float fraction = model.diagnosisProgress->fraction.load();
    const std::string text = model.diagnosisProgress->stageText();
    ImGui::ProgressBar(fraction, ImVec2(ImGui::GetFontSize() * 8.0f, 0.0f),
                       fmt::format("{:.0f} %", 100.0 * fraction).c_str());
    if (ImGui::IsItemHovered() && !text.empty()) ImGui::SetTooltip("%s", text.c_str());
    ImGui::SameLine();
    if (ImGui::SmallButton("Cancel##diagnose")) state.actions.cancelDiagnosis = true;
    if (!text.empty()) ImGui::TextDisabled("%s", fraction < 1.0f ? text.c_str() : "diagnosing...");
}

}  // namespace

void drawDiagnoseView(AppState& state, const Model& model) {
    ImGui::SetNextItemWidth(
        std::min(ImGui::GetFontSize() * 18.0f,
                 ImGui::GetContentRegionAvail().x - buttonWidth("Diagnose file") - ImGui::GetStyle().ItemSpacing.x));
    ImGui::InputText("##diagnose-path", &state.diagnosePath);
    noteTextField();  // its text scrolls in its frame (layout_check.hpp)
    sameLineIfFits(buttonWidth("Diagnose file"));
    if (ImGui::Button("Diagnose file")) {
        state.diagnoseUseExample = false;
        ++state.diagnoseSerial;
    }
    // The combo as wide as its preview and its arrow button, at any font size.
    constexpr const char* kExamples = "Example with a known bug...";
    const float combo = ImGui::CalcTextSize(kExamples).x + ImGui::GetStyle().FramePadding.x * 2.0f +
                        ImGui::GetStyle().ItemInnerSpacing.x + ImGui::GetFrameHeight();
    sameLineIfFits(combo);
    ImGui::SetNextItemWidth(std::ceil(combo));
    if (ImGui::BeginCombo("##examples", kExamples)) {
        for (const BuggyExample& example : buggyExamples()) {
            const std::string code(example.code);
            if (ImGui::Selectable(code.c_str())) {
                state.diagnoseExample = code;
                state.diagnoseUseExample = true;
                ++state.diagnoseSerial;
            }
            if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", std::string(example.description).c_str());
        }
        ImGui::EndCombo();
    }

    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float textWidth = std::max(avail.x * 0.42f, ImGui::GetFontSize() * 18.0f);
    // The report, the gap SameLine leaves, the map and its colour bar: together the panel's width.
    state.diagnoseWidth =
        std::max(16, static_cast<int>(avail.x - textWidth - ImGui::GetStyle().ItemSpacing.x - colorBarWidth()));
    state.diagnoseLabelBand = tileLabelBand();
    // The caption above the map, wrapped at the map's width (a presentation font wraps it to more
    // lines), then the map in what is left.
    const DiagnoseResult* shown = model.diagnosis.get();
    const std::string caption = shown == nullptr ? std::string()
                                : !shown->mapCaption.empty()
                                    ? shown->mapCaption
                                    : "|error| per cell against correct ALiBi: " +
                                          (shown->diagnosis ? correctAlibiSummary(*shown->diagnosis) : std::string());
    const bool batchTiles = shown != nullptr && batchTileLabels(*shown);
    const float captionHeight =
        ImGui::CalcTextSize(caption.c_str(), nullptr, false, static_cast<float>(state.diagnoseWidth) + colorBarWidth())
            .y +
        (batchTiles ? ImGui::GetTextLineHeightWithSpacing() : 0.0f) + ImGui::GetStyle().ItemSpacing.y * 3 +
        ImGui::GetTextLineHeight() * 0.5f;
    state.diagnoseHeight =
        std::max(16, static_cast<int>(avail.y - std::max(captionHeight, 2 * ImGui::GetTextLineHeightWithSpacing())));

    const DiagnoseResult* result = model.diagnosis.get();
    if (result == nullptr) {
        ImGui::TextWrapped(model.diagnosisPending ? "Diagnosing..."
                                                  : "Type the path of a .npy or .safetensors file of your model's "
                                                    "ALiBi bias and press 'Diagnose file', or load an example.");
        drawProgress(state, model);
        return;
    }
    if (!result->error.empty()) {
        coreErrorText(result->error);
        drawProgress(state, model);
        return;
    }
    // The report scrolls above the button (drawCorrectedButton); the two share the text column.
    // Whole lines: every line of the report one text line below the last (no item spacing, the
    // bullet a line tall) and the area a whole number of lines tall, so its bottom never cuts a
    // line in half (the button, then the last line, were cut at 1280x720).
    const bool offer =
        result->diagnosis &&
        explore::diagnosisReportText(*result->diagnosis, result->source, result->shape, result->dtype).offerCorrected;
    const float line = ImGui::GetTextLineHeight();
    const float room = ImGui::GetContentRegionAvail().y - (offer ? ImGui::GetFrameHeightWithSpacing() : 0.0f);
    const ImVec2 spacing = ImGui::GetStyle().ItemSpacing;
    ImGui::BeginGroup();
    beginTextChild("report", ImVec2(textWidth, std::max(line, std::floor(room / line) * line)));
    ImGui::PushStyleVar(ImGuiStyleVar_ItemSpacing, ImVec2(spacing.x, 0.0f));
    ImGui::PushStyleVar(ImGuiStyleVar_FramePadding, ImVec2(ImGui::GetStyle().FramePadding.x, 0.0f));
    drawProgress(state, model);
    drawReport(*result);
    ImGui::PopStyleVar(2);
    state.diagnoseReportRect = ScreenRect{ImGui::GetWindowPos().x, ImGui::GetWindowPos().y, ImGui::GetWindowSize().x,
                                          ImGui::GetWindowSize().y};
    ImGui::EndChild();
    if (offer) drawCorrectedButton(state, *result);
    ImGui::EndGroup();
    ImGui::SameLine();
    ImGui::BeginGroup();
    const std::string against = result->diagnosis ? correctAlibiSummary(*result->diagnosis) : std::string();
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + static_cast<float>(state.diagnoseWidth) + colorBarWidth());
    if (!result->mapCaption.empty())
        ImGui::TextDisabled("%s", result->mapCaption.c_str());
    else
        ImGui::TextDisabled("|error| per cell against correct ALiBi%s%s", against.empty() ? "" : ": ", against.c_str());
    // A batch's tiles are (batch row, head) pairs: their labels' letters said once.
    if (batchTileLabels(*result)) ImGui::TextDisabled("%s", kBatchTilesKey);
    ImGui::PopTextWrapPos();
    // The colour bar's top label is centred on the map's first row: half a line of room for it.
    ImGui::Dummy(ImVec2(0.0f, ImGui::GetTextLineHeight() * 0.5f));
    const Image& image = result->errorMap.image;
    if (image.width > 0) {
        const ImVec2 origin = ImGui::GetCursorScreenPos();
        const ImVec2 size(static_cast<float>(image.width), static_cast<float>(image.height));
        if (model.diagnosisTexture != nullptr) {
            ImGui::Image(model.diagnosisTexture, size);
        } else {
            ImGui::Dummy(size);
        }
        if (const Shape& shape = result->shape; shape.size() >= 2)
            noteHeatmapTiles("diagnose error map", result->errorMap.tiles, origin, shape[shape.size() - 2],
                             shape.back());
        // Each tile's label ("h3", or "b1 h3" for a batch) in the band above it: the core's forms
        // of "h3" ("h3", "3"); a batch's "b1 h3" alone (its tile's head is the flat index).
        std::vector<std::vector<std::string>> forms;
        for (std::size_t n = 0; n < result->errorMap.tiles.size() && n < result->tileLabels.size(); ++n) {
            const std::string& label = result->tileLabels[n];
            alibi::TileLabelParts parts;
            parts.head = result->errorMap.tiles[n].head;
            forms.push_back(label == "h" + std::to_string(parts.head) ? alibi::tileLabelForms(parts)
                                                                      : std::vector<std::string>{label});
        }
        state.diagnoseLabels = drawTileLabels(result->errorMap.tiles, forms, origin);
        if (model.diagnosisPending) drawStaleMark(origin, ImVec2(origin.x + size.x, origin.y + size.y), 0.0f);
        // The core's bar (range, masked swatch); its title is in the caption above the map.
        explore::DiagnosisErrorMap words;
        words.errorMax = result->errorMax;
        words.anyMasked = result->anyMasked;
        // The masked swatch goes under the bar, inside the map's height.
        const float barHeight =
            result->anyMasked ? std::max(size.y - 1.8f * ImGui::GetTextLineHeight(), 16.0f) : size.y;
        ColorBar bar = explore::diagnosisColorBar(words, colorBarTicks(barHeight));
        bar.title.clear();
        drawColorBar(model.diagnosisBarTexture, ImVec2(origin.x + size.x + kColorBarGap, origin.y), barHeight, bar);
    } else {
        ImGui::TextDisabled("No error heatmap: nothing comparable was found.");
    }
    ImGui::EndGroup();
}

}  // namespace alibi::imgui
