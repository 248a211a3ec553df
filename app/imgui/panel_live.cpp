// The Model view (issue 29): a BLOOM, MPT or Falcon checkpoint run on the user's text. The folder, the
// text box, B's slope change (every slope times k, another scheme or max_bias, heads' slopes set)
// and the length are the session's (Session::live: saved and undoable; the text reaches it when
// Run is pressed); Run and Cancel are one-shots the Explorer carries out on a worker. Below: the
// core's lines and the A vs B plots (loss per position, each head's attention change). A's maps
// open in the Maps view.
#include "layout_check.hpp"
#include "panels.hpp"
#include "plot_canvas.hpp"
#include "view_common.hpp"

#include <alibi/explore/editing.hpp>

#include <fmt/format.h>
#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>

namespace alibi::imgui {

namespace {

constexpr SlopeScheme kSchemes[] = {SlopeScheme::Press, SlopeScheme::Geometric, SlopeScheme::Linear};

// The series' names in their colours, as the legend beside the plot (the core's plan, as every
// plot's): written over the plot's top-right corner they hid the largest changes.
std::vector<LegendEntry> legendOf(const std::vector<Series>& series, const std::vector<ImU32>& colors) {
    std::vector<LegendEntry> legend;
    for (std::size_t n = 0; n < series.size(); ++n) legend.push_back({series[n].label, colors[n], true});
    return legend;
}

void drawLossPlot(AppState& state, const lm::LiveRun& run, ImVec2 size) {
    const std::vector<Series> series = lm::liveLossSeries(run);
    PlotAxes axes = kindAxes(PlotKind::LiveLoss, series);
    axes.title = "Loss per position: A (the model) vs B (the slope change)";
    axes.xLabel = "position (token predicted)";
    axes.yLabel = "loss (nats)";
    std::vector<ImU32> colors;
    for (std::size_t n = 0; n < series.size(); ++n)
        colors.push_back(n % 2 == 0 ? IM_COL32(80, 160, 255, 255) : IM_COL32(255, 140, 40, 255));
    axes.legend = legendOf(series, colors);
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    state.live.lossPlotRect = {origin.x, origin.y, size.x, size.y};
    PlotCanvas canvas(axes, size);
    // A and B the same line (a slope change that changes nothing) are dashed in turn: B drawn
    // over A hid it.
    canvas.drawSeriesInTurn(series, colors, 1.5f);
    // The training length: a dashed line, labelled at the top.
    if (const auto L = static_cast<double>(run.loss.trainingLength); L > 0 && L >= axes.xMin && L <= axes.xMax) {
        ImDrawList* draw = ImGui::GetWindowDrawList();
        const ImVec2 top = canvas.toScreen(L, axes.yMax), bottom = canvas.toScreen(L, axes.yMin);
        const ImU32 ink = ImGui::GetColorU32(ImGuiCol_Text);
        for (float y = top.y; y < bottom.y; y += 8.0f)
            draw->AddLine(ImVec2(top.x, y), ImVec2(top.x, std::min(y + 4.0f, bottom.y)), ink, 1.5f);
        const std::string label = fmt::format("training length {}", run.loss.trainingLength);
        draw->AddText(ImVec2(top.x + 4.0f, top.y + 2.0f), ink, label.c_str());
    }
    // The hovered position's token and both losses.
    if (canvas.hovered()) {
        const auto p = static_cast<std::int64_t>(std::lround(canvas.mouseX()));
        const auto& tokens = run.loss.tokens;
        if (p >= 1 && p < static_cast<std::int64_t>(tokens.ids.size())) {
            const auto i = static_cast<std::size_t>(p - 1);
            std::string text = fmt::format("position {}: token {} (id {})\nloss A {:.4f}", p,
                                           static_cast<std::size_t>(p) < tokens.display.size()
                                               ? tokens.display[static_cast<std::size_t>(p)]
                                               : std::string("?"),
                                           tokens.ids[static_cast<std::size_t>(p)], run.loss.a.loss[i]);
            if (run.loss.b)
                text += fmt::format(", B {:.4f} (B - A {:+.4f})", run.loss.b->loss[i],
                                    run.loss.b->loss[i] - run.loss.a.loss[i]);
            ImGui::SetTooltip("%s", text.c_str());
        }
    }
}

void drawChangePlot(const lm::LiveRun& run, ImVec2 size) {
    const std::vector<Series> series = lm::liveChangeSeries(run);
    if (series.empty()) {
        ImGui::BeginChild("live-change-empty", size, true);
        ImGui::TextWrapped(
            "Attention change per head: set B's scale, scheme, max_bias or a head's slope above and Run; each head's "
            "change is the mean over query rows of 1/2 sum |P_B - P_A| (0: the same, 1: disjoint).");
        ImGui::EndChild();
        return;
    }
    PlotAxes axes = kindAxes(PlotKind::LiveChange, series);
    axes.title = "Attention change per head, B vs A";
    axes.xLabel = "head";
    axes.yLabel = "mean TV";  // the title and the line below say what it is
    std::vector<ImU32> colors;
    const int count = static_cast<int>(series.size());
    for (int n = 0; n < count; ++n) colors.push_back(headColor(n, std::max(count, 2)));
    axes.legend = legendOf(series, colors);
    PlotCanvas canvas(axes, size);
    for (int n = 0; n < count; ++n) {
        canvas.drawSeries(series[static_cast<std::size_t>(n)], colors[static_cast<std::size_t>(n)], 1.0f);
        canvas.drawPoints(series[static_cast<std::size_t>(n)], colors[static_cast<std::size_t>(n)], 3.5f);
    }
}

void drawChangeControls(AppState& state) {
    LiveModelParams& p = state.session.live;
    const float number = ImGui::GetFontSize() * 6.5f;
    // Each control on the line while it fits, else on the next (presentation mode with the
    // Parameters panel open: the heads field ran past the window's edge, s39).
    const float spacing = ImGui::GetStyle().ItemInnerSpacing.x;
    ImGui::TextUnformatted("B: slopes x");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(number);
    ImGui::InputDouble("##live-scale", &p.change.scale, 0.25, 1.0, "%.4g");
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("B: every slope times k (1: the model's own)");
    sameLineIfFits(ImGui::GetFontSize() * 8.0f + spacing + ImGui::CalcTextSize("scheme").x);
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8.0f);
    const std::string scheme = p.change.scheme ? std::string(schemeName(*p.change.scheme)) : std::string("the model's");
    if (ImGui::BeginCombo("scheme##live", scheme.c_str())) {
        if (ImGui::Selectable("the model's", !p.change.scheme)) p.change.scheme.reset();
        for (SlopeScheme s : kSchemes)
            if (ImGui::Selectable(std::string(schemeName(s)).c_str(), p.change.scheme == s)) p.change.scheme = s;
        ImGui::EndCombo();
    }
    sameLineIfFits(checkboxWidth("max_bias##live-set"));
    bool maxBias = p.change.maxBias.has_value();
    if (ImGui::Checkbox("max_bias##live-set", &maxBias)) {
        if (maxBias)
            p.change.maxBias = 8.0;
        else
            p.change.maxBias.reset();
    }
    if (p.change.maxBias) {
        sameLineIfFits(number);
        ImGui::SetNextItemWidth(number);
        ImGui::InputDouble("##live-max-bias", &*p.change.maxBias, 1.0, 4.0, "%.4g");
    }
    sameLineIfFits(ImGui::CalcTextSize("heads").x + ImGui::GetStyle().ItemSpacing.x + ImGui::GetFontSize() * 9.0f);
    ImGui::TextUnformatted("heads");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 9.0f);
    ImGui::InputTextWithHint("##live-heads", "3=0.25, 0=1/2", &state.live.headsText);
    noteTextField();
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("B: heads' slopes set one by one (heads from 0), after the scale");
    if (ImGui::IsItemDeactivatedAfterEdit()) {
        if (auto heads = parseHeadSlopes(state.live.headsText)) {
            p.change.headSlopes = std::move(*heads);
            state.live.headsError.clear();
        } else {
            state.live.headsError = explore::guiMessage(heads.error().message);
        }
    }
    sameLineIfFits(ImGui::CalcTextSize("length").x + ImGui::GetStyle().ItemSpacing.x + number);
    ImGui::TextUnformatted("length");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(number);
    ImGui::InputScalar("##live-length", ImGuiDataType_S64, &p.length);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("The first N tokens of the text (0: every token)");
}

}  // namespace

void drawModelView(AppState& state, const Model& model) {
    LiveState& s = state.live;
    const LiveModel& live = model.live;

    // The model folder.
    ImGui::TextUnformatted("Model");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 22.0f);
    const bool enter = ImGui::InputTextWithHint("##live-folder", "a Hugging Face BLOOM, MPT or Falcon folder",
                                                &s.folderDraft, ImGuiInputTextFlags_EnterReturnsTrue);
    noteTextField();
    sameLineIfFits(buttonWidth("Open model"));
    if (ImGui::Button("Open model") || enter) s.open = s.folderDraft;
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("config.json, model.safetensors (or shards with their index) and tokenizer.json");
    sameLineIfFits(buttonWidth("Example model"));
    if (ImGui::Button("Example model")) s.example = true;

    // The text. ImGui 1.86's multi-line field does not wrap (a long line runs off its right edge),
    // so the text is shown wrapped in a box of the same size, and the field replaces it while the
    // user edits it (a click on the box).
    const ImVec2 box(ImGui::GetContentRegionAvail().x, ImGui::GetTextLineHeight() * 4.5f);
    if (s.editingText) {
        if (!ImGui::IsAnyItemActive()) ImGui::SetKeyboardFocusHere();
        ImGui::InputTextMultiline("##live-text", &s.textDraft, box);
        noteTextField();
        if (ImGui::IsItemDeactivated()) s.editingText = false;
    } else {
        ImGui::PushStyleColor(ImGuiCol_ChildBg, ImGui::GetStyleColorVec4(ImGuiCol_FrameBg));
        beginTextChild("##live-text-shown", box);
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextUnformatted(s.textDraft.c_str(), s.textDraft.c_str() + s.textDraft.size());
        ImGui::PopTextWrapPos();
        const bool clicked = ImGui::IsWindowHovered() && ImGui::IsMouseClicked(ImGuiMouseButton_Left);
        ImGui::EndChild();
        ImGui::PopStyleColor();
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("The text the model reads: click to edit it");
        if (clicked) s.editingText = true;
    }
    drawChangeControls(state);

    // Run, progress, Cancel, and why a run or an edit was refused.
    ImGui::BeginDisabled(live.running);
    if (ImGui::Button("Run")) s.run = true;
    ImGui::EndDisabled();
    if (live.running) {
        ImGui::SameLine();
        const float f = live.progress->load();
        ImGui::ProgressBar(f, ImVec2(ImGui::GetFontSize() * 8.0f, 0.0f), fmt::format("{:.0f} %", 100.0 * f).c_str());
        ImGui::SameLine();
        if (ImGui::Button("Cancel##live")) s.cancel = true;
        ImGui::SameLine();
        ImGui::TextDisabled("running %s...", live.runningModel.c_str());
    }
    // The same run on the command line (A and B loss per position).
    if (const std::string cli = liveCliCommand(state.session.live); !cli.empty()) {
        if (ImGui::SmallButton("Copy command")) ImGui::SetClipboardText(cli.c_str());
        ImGui::SameLine();
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextDisabled("%s", cli.c_str());
        ImGui::PopTextWrapPos();
    }
    ImGui::PushTextWrapPos(0.0f);
    if (!s.headsError.empty()) ImGui::TextColored(kErrorTextColor, "%s", s.headsError.c_str());
    if (!state.validationError.empty()) ImGui::TextColored(kErrorTextColor, "%s", state.validationError.c_str());
    if (!live.error.empty()) ImGui::TextColored(kErrorTextColor, "%s", live.error.c_str());
    ImGui::PopTextWrapPos();

    if (!live.run) {
        ImGui::Spacing();
        ImGui::TextWrapped(
            "Open a BLOOM, MPT or Falcon model folder (File > Open model) or the example model (Help > Example model), "
            "type a "
            "text and press Run: every head's attention on the text's tokens opens in the Attention maps view, and "
            "with a slope change B here shows A against B.");
        return;
    }
    const lm::LiveRun& run = *live.run;
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextUnformatted(lm::liveSummary(run).c_str());
    ImGui::TextUnformatted(lm::liveLossLine(run).c_str());
    const std::string change = lm::liveChangeLine(run);
    ImGui::PopTextWrapPos();
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float lineBelow = change.empty() ? 0.0f : ImGui::GetTextLineHeightWithSpacing() * 2.2f;
    const float height = std::max(avail.y - lineBelow, ImGui::GetFontSize() * 10.0f);
    const float gap = ImGui::GetStyle().ItemSpacing.x;
    const float lossWidth = std::floor((avail.x - gap) * 0.6f);
    drawLossPlot(state, run, ImVec2(lossWidth, height));
    ImGui::SameLine();
    drawChangePlot(run, ImVec2(avail.x - lossWidth - gap, height));
    if (!change.empty()) {
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextUnformatted(change.c_str());
        ImGui::PopTextWrapPos();
    }
}

}  // namespace alibi::imgui
