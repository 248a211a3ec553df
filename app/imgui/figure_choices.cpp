// Figure choices: the controls File > Export figure... and the export panel share (format, plot,
// size, file, what the export makes, Export or the progress and Cancel, the last outcome).
#include "figure_choices.hpp"
#include "layout_check.hpp"
#include "view_common.hpp"

#include <alibi/base/image_size.hpp>

#include <fmt/format.h>
#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

namespace alibi::imgui {

namespace {

constexpr int kMinFigureSide = 16;

constexpr std::array kFormats{FigureFormat::Png1x, FigureFormat::Png2x, FigureFormat::Png4x, FigureFormat::Svg};
constexpr const char* kFormatNames[] = {"PNG 1x", "PNG 2x", "PNG 4x", "SVG"};

// Why SVG is not offered for heatmap views.
constexpr const char* kSvgViews =
    "SVG is for the views drawn from lines and text (curves, stages, extrapolation, position schemes, the "
    "attention maps' vs distance and row plots); this view is a heatmap: pick PNG.";

const ImVec4 kErrorColor(1.0f, 0.42f, 0.36f, 1.0f);
const ImVec4 kDoneColor(0.55f, 0.85f, 0.55f, 1.0f);

}  // namespace

void drawFigureChoices(AppState& state, const Model& model, const FigurePlan& plan, bool wide) {
    FigureExportState& f = state.figure;
    const float em = ImGui::GetFontSize();
    const float column = (wide ? 6.5f : 5.5f) * em;  // where the fields start, after their labels
    auto label = [column](const char* text) {
        ImGui::AlignTextToFramePadding();
        ImGui::TextUnformatted(text);
        ImGui::SameLine(column);
    };

    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextDisabled("Figure of the open view: %s", plan.what.c_str());
    // The attention maps with a plot on the side: that plot, or the grid beside it (offered even
    // while the plot waits for the fit).
    if (!plan.mapsSidePicture.empty()) {
        label("Picture");
        if (ImGui::RadioButton(plan.mapsSidePicture.c_str(), !f.mapsGrid)) f.mapsGrid = false;
        // Beside the first where it fits, else under it in the same column (the Session and export
        // panel in presentation mode: the second choice ran 300 px past its edge, s39).
        const float second = checkboxWidth(plan.mapsGridPicture.c_str());
        if (ImGui::GetItemRectMax().x + ImGui::GetStyle().ItemSpacing.x + second <=
            ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x) {
            ImGui::SameLine();
        } else {
            ImGui::Dummy(ImVec2(0.0f, 0.0f));
            ImGui::SameLine(column);
        }
        if (ImGui::RadioButton(plan.mapsGridPicture.c_str(), f.mapsGrid)) f.mapsGrid = true;
    }
    if (!plan.task) {
        ImGui::TextUnformatted(plan.reason.c_str());
        ImGui::PopTextWrapPos();
        return;
    }
    ImGui::PopTextWrapPos();

    // Format: SVG only for the views drawn from lines and text.
    const bool wasSvg = f.format == FigureFormat::Svg;
    label("Format");
    if (wide) {
        for (std::size_t i = 0; i < kFormats.size(); ++i) {
            if (i > 0) ImGui::SameLine();
            const bool svg = kFormats[i] == FigureFormat::Svg;
            ImGui::BeginDisabled(svg && !plan.vector);
            if (ImGui::RadioButton(kFormatNames[i], f.format == kFormats[i])) f.format = kFormats[i];
            ImGui::EndDisabled();
            if (svg && !plan.vector && ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) {
                ImGui::BeginTooltip();
                ImGui::PushTextWrapPos(24.0f * em);
                ImGui::TextUnformatted(kSvgViews);
                ImGui::PopTextWrapPos();
                ImGui::EndTooltip();
            }
        }
    } else {
        ImGui::SetNextItemWidth(-1);
        if (ImGui::BeginCombo("##figureFormat", kFormatNames[static_cast<int>(f.format)])) {
            for (std::size_t i = 0; i < kFormats.size(); ++i) {
                const bool svg = kFormats[i] == FigureFormat::Svg;
                const ImGuiSelectableFlags flags = svg && !plan.vector ? ImGuiSelectableFlags_Disabled : 0;
                if (ImGui::Selectable(kFormatNames[i], f.format == kFormats[i], flags)) f.format = kFormats[i];
            }
            ImGui::EndCombo();
        }
    }
    const bool isSvg = f.format == FigureFormat::Svg;
    if (isSvg != wasSvg && f.pathEdited) f.path = withFigureExtension(f.path, isSvg);

    if (plan.curves) {
        label("Plot");
        ImGui::SetNextItemWidth(wide ? 14.0f * em : -1.0f);
        ImGui::Combo("##figureCurves", &f.curves, kFigureCurveNames, IM_ARRAYSIZE(kFigureCurveNames));
    }
    if (plan.maps) {
        label("Heads");
        const std::string only = fmt::format("only head {}", plan.selectedHead);
        ImGui::Checkbox(only.c_str(), &f.mapsOneHead);
    }

    // The size at 1x: the session's width x height until changed here.
    const FigureTask& task = *plan.task;
    label("Size at 1x");
    int width = task.width, height = task.height;
    const float field = (wide ? 5.5f : 4.0f) * em;
    ImGui::SetNextItemWidth(field);
    if (ImGui::InputInt("##figureWidth", &width, 0, 0)) f.width = std::clamp(width, kMinFigureSide, kMaxImageSide);
    ImGui::SameLine();
    ImGui::TextUnformatted("x");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(field);
    if (ImGui::InputInt("##figureHeight", &height, 0, 0)) f.height = std::clamp(height, kMinFigureSide, kMaxImageSide);
    if (wide) {
        ImGui::SameLine();
        ImGui::TextUnformatted("px");
    }

    // The file: the core's name for the figure until the user types one (emptied: back to it).
    label("File");
    std::string path = task.path;
    ImGui::SetNextItemWidth(-1);
    // A click selects the whole path, so typing replaces it (a second click places the cursor).
    const bool enter = ImGui::InputText("##figurePath", &path,
                                        ImGuiInputTextFlags_EnterReturnsTrue | ImGuiInputTextFlags_AutoSelectAll);
    noteTextField();  // its text scrolls in its frame (layout_check.hpp)
    if (path != task.path || (enter && path.empty())) {
        f.pathEdited = !path.empty();
        f.path = path;
        f.pathFor = plan.defaultPath;
    }

    // What the export makes.
    ImGui::PushTextWrapPos(0.0f);
    const std::int64_t pixelsWide = std::int64_t{task.width} * task.scale;
    const std::int64_t pixelsHigh = std::int64_t{task.height} * task.scale;
    if (plan.svgRefused) {
        ImGui::TextColored(kErrorColor, "%s", kSvgViews);
    } else if (task.svg) {
        ImGui::TextDisabled("Writes an SVG of %d x %d (vector: sharp at any size)", task.width, task.height);
    } else {
        ImGui::TextDisabled("Writes %lld x %lld px%s", static_cast<long long>(pixelsWide),
                            static_cast<long long>(pixelsHigh),
                            task.scale > 1 ? " (drawn at that size, not upscaled)" : "");
        if (pixelsWide > kMaxImageSide || pixelsHigh > kMaxImageSide)
            ImGui::TextColored(kErrorColor, "Larger than %d px a side: pick a smaller size or scale.", kMaxImageSide);
    }
    ImGui::PopTextWrapPos();

    if (model.figureRunning) {
        const float fraction = model.figureProgress < 0 ? 0.0f : model.figureProgress;
        ImGui::ProgressBar(fraction, ImVec2(-ImGui::GetFontSize() * 5.0f, 0),
                           model.figureProgress < 0 ? "drawing..." : nullptr);
        ImGui::SameLine();
        if (ImGui::Button("Cancel##figure")) f.cancel = true;
    } else {
        ImGui::BeginDisabled(plan.svgRefused);
        if (ImGui::Button("Export figure", ImVec2(wide ? 9.0f * em : 0.0f, 0)) || (enter && !plan.svgRefused))
            f.start = true;
        ImGui::EndDisabled();
    }
    if (!f.status.empty()) {
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextColored(f.failed ? kErrorColor : kDoneColor, "%s", f.status.c_str());
        ImGui::PopTextWrapPos();
    }
}

}  // namespace alibi::imgui
