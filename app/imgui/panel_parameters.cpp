// The parameters panel: every ALiBi parameter of the session (shape, slopes, bias mode, mask,
// dtype, attention content, view). Sliders are clamped to the ranges the explorer supports; text
// fields (custom slopes, mask) are parsed and validated by the core before they reach the session,
// and a refused value shows inline while the previous valid one stays in force.
#include "panels.hpp"

#include <alibi/model/attention.hpp>
#include <alibi/render/colormap.hpp>
#include <alibi/model/params.hpp>
#include <alibi/io/session.hpp>

#include <imgui.h>
#include <imgui_stdlib.h>

#include <fmt/format.h>

#include <array>
#include <cerrno>
#include <cstdlib>
#include <string>
#include <string_view>

namespace alibi::imgui {

namespace {

const ImVec4 kErrorColor{1.0f, 0.42f, 0.36f, 1.0f};

// A combo box over an enum, labelled with the core's names for it.
template <class Enum, std::size_t N, class NameFn>
bool enumCombo(const char* label, Enum& value, const std::array<Enum, N>& values, NameFn name) {
    bool changed = false;
    const std::string current(name(value));
    if (ImGui::BeginCombo(label, current.c_str())) {
        for (Enum candidate : values) {
            const std::string text(name(candidate));
            const bool selected = candidate == value;
            if (ImGui::Selectable(text.c_str(), selected) && !selected) {
                value = candidate;
                changed = true;
            }
            if (selected) ImGui::SetItemDefaultFocus();
        }
        ImGui::EndCombo();
    }
    return changed;
}

void sectionHeader(const char* title) {
    ImGui::Spacing();
    ImGui::TextDisabled("%s", title);
    ImGui::Separator();
}

void inlineError(const std::string& message) {
    if (message.empty()) return;
    ImGui::PushStyleColor(ImGuiCol_Text, kErrorColor);
    ImGui::TextWrapped("%s", message.c_str());
    ImGui::PopStyleColor();
}

// "0.5, 0.25 0.125": numbers separated by commas, spaces or semicolons. Returns an error message
// naming the first token that is not a number; range checks are the core's (validateSession).
std::string parseNumberList(const std::string& text, std::vector<double>& out) {
    out.clear();
    std::size_t i = 0;
    while (i < text.size()) {
        while (i < text.size() && (text[i] == ',' || text[i] == ';' || text[i] == ' ' || text[i] == '\t')) ++i;
        if (i >= text.size()) break;
        std::size_t end = i;
        while (end < text.size() && text[end] != ',' && text[end] != ';' && text[end] != ' ' && text[end] != '\t')
            ++end;
        const std::string token = text.substr(i, end - i);
        char* parsedEnd = nullptr;
        errno = 0;
        const double value = std::strtod(token.c_str(), &parsedEnd);
        if (parsedEnd != token.c_str() + token.size() || errno == ERANGE)
            return fmt::format("custom slopes: '{}' is not a number", token);
        out.push_back(value);
        i = end;
    }
    if (out.empty()) return "custom slopes: enter one positive number per head";
    return {};
}

// Installs `candidate` if the core accepts it; otherwise returns the core's message.
std::string tryCommit(AppState& state, const Session& candidate) {
    if (auto valid = validateSession(candidate); !valid) return valid.error().message;
    state.session = candidate;
    return {};
}

void drawShape(AppState& state) {
    BiasParams& bias = state.session.attention.bias;
    sectionHeader("Shape");
    ImGui::SliderInt("H (heads)", &bias.slopes.heads, 1, kSliderMaxHeads, "%d", ImGuiSliderFlags_AlwaysClamp);

    const std::int64_t one = 1;
    const std::int64_t maxLength = kSliderMaxLength;
    ImGui::SliderScalar("T (queries)", ImGuiDataType_S64, &bias.queries, &one, &maxLength, "%lld",
                        ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp);

    bool keysEqual = bias.keys <= 0;
    if (ImGui::Checkbox("K = T", &keysEqual)) bias.keys = keysEqual ? 0 : bias.queries;
    if (!keysEqual) {
        ImGui::SameLine();
        ImGui::SetNextItemWidth(-ImGui::CalcTextSize("K (keys)").x - ImGui::GetStyle().ItemInnerSpacing.x);
        ImGui::SliderScalar("K (keys)", ImGuiDataType_S64, &bias.keys, &one, &maxLength, "%lld",
                            ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp);
    }

    const std::int64_t lastRow = -1;
    const std::int64_t maxRow = bias.queries - 1;
    state.session.queryRow = std::min(state.session.queryRow, maxRow);
    ImGui::SliderScalar("query row", ImGuiDataType_S64, &state.session.queryRow, &lastRow, &maxRow,
                        state.session.queryRow < 0 ? "last" : "%lld", ImGuiSliderFlags_AlwaysClamp);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Row the curves and the statistics' 'row' columns describe");
}

void drawSlopes(AppState& state) {
    SlopeParams& slopes = state.session.attention.bias.slopes;
    sectionHeader("Slopes and bias");
    constexpr std::array schemes{SlopeScheme::Press, SlopeScheme::Geometric, SlopeScheme::Linear, SlopeScheme::Custom};
    SlopeScheme scheme = slopes.scheme;
    if (enumCombo("scheme", scheme, schemes, schemeName)) {
        if (scheme == SlopeScheme::Custom) {
            // Start the custom list from the slopes in use, so switching is always valid.
            Session candidate = state.session;
            std::vector<double> values;
            if (parseNumberList(state.customSlopesText, values).empty()) {
                candidate.attention.bias.slopes.custom = values;
                candidate.attention.bias.slopes.scheme = SlopeScheme::Custom;
                state.customSlopesError = tryCommit(state, candidate);
            }
        } else {
            slopes.scheme = scheme;
            state.customSlopesError.clear();
        }
    }
    if (slopes.scheme == SlopeScheme::Press || slopes.scheme == SlopeScheme::Geometric) {
        const double lo = 0.0;
        const double hi = 16.0;
        ImGui::SliderScalar("max_bias (B)", ImGuiDataType_Double, &slopes.maxBias, &lo, &hi, "%.3f",
                            ImGuiSliderFlags_AlwaysClamp);
    }
    if (slopes.scheme == SlopeScheme::Custom) {
        if (ImGui::InputTextMultiline("##custom", &state.customSlopesText,
                                      ImVec2(-1, ImGui::GetTextLineHeight() * 3.5f))) {
            std::vector<double> values;
            state.customSlopesError = parseNumberList(state.customSlopesText, values);
            if (state.customSlopesError.empty()) {
                Session candidate = state.session;
                candidate.attention.bias.slopes.custom = values;
                state.customSlopesError = tryCommit(state, candidate);
            }
        }
        ImGui::TextDisabled("custom slopes: %d positive numbers", slopes.heads);
        inlineError(state.customSlopesError);
    }

    BiasParams& bias = state.session.attention.bias;
    constexpr std::array modes{BiasMode::Causal, BiasMode::Symmetric, BiasMode::Clamped, BiasMode::Bloom,
                               BiasMode::Mpt};
    enumCombo("mode", bias.mode, modes, modeName);

    if (ImGui::InputText("mask", &state.maskText)) {
        if (auto mask = parseMask(state.maskText); !mask) {
            state.maskError = "mask: expected a finite number (e.g. -1e9), -inf or min";
        } else {
            Session candidate = state.session;
            candidate.attention.bias.mask = *mask;
            state.maskError = tryCommit(state, candidate);
        }
    }
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("-1e9, -inf, min (the dtype's lowest), or any finite number");
    inlineError(state.maskError);

    constexpr std::array dtypes{DType::F32, DType::F64, DType::F16, DType::BF16};
    enumCombo("dtype", bias.dtype, dtypes, dtypeName);
}

void drawContent(AppState& state) {
    ContentParams& content = state.session.attention.content;
    sectionHeader("Attention content");
    constexpr std::array kinds{ContentKind::Zero, ContentKind::Gaussian, ContentKind::Qk};
    enumCombo("content", content.kind, kinds, contentName);
    if (content.kind == ContentKind::Gaussian) {
        const double lo = 0.0;
        const double hi = 10.0;
        ImGui::SliderScalar("sigma", ImGuiDataType_Double, &content.sigma, &lo, &hi, "%.3f",
                            ImGuiSliderFlags_AlwaysClamp);
    }
    if (content.kind == ContentKind::Qk) ImGui::SliderInt("d_k", &content.dk, 1, 4096, "%d",
                                                          ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp);
    if (content.kind != ContentKind::Zero)
        ImGui::InputScalar("seed", ImGuiDataType_U64, &content.seed, nullptr, nullptr, "%llu");
    const double tLo = 0.01;
    const double tHi = 100.0;
    ImGui::SliderScalar("temperature", ImGuiDataType_Double, &content.temperature, &tLo, &tHi, "%.3f",
                        ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp);
}

void drawView(AppState& state) {
    Session& session = state.session;
    sectionHeader("View");
    int what = session.what == RenderWhat::Attention ? 1 : 0;
    ImGui::RadioButton("bias", &what, 0);
    ImGui::SameLine();
    ImGui::RadioButton("attention", &what, 1);
    session.what = what == 1 ? RenderWhat::Attention : RenderWhat::Bias;

    const int heads = session.attention.bias.slopes.heads;
    session.head = std::min(session.head, heads - 1);
    ImGui::SliderInt("head", &session.head, -1, heads - 1, session.head < 0 ? "all (grid)" : "%d",
                     ImGuiSliderFlags_AlwaysClamp);

    constexpr std::array maps{Colormap::Viridis, Colormap::Magma, Colormap::Cividis, Colormap::Diverging};
    enumCombo("colormap", session.colormap, maps, colormapName);
    constexpr std::array scales{ScaleMode::Shared, ScaleMode::PerHead};
    enumCombo("scale", session.scale, scales, scaleModeName);
}

}  // namespace

void drawParametersPanel(AppState& state, const Model& /*model*/) {
    ImGui::PushItemWidth(-ImGui::GetFontSize() * 7.0f);
    drawShape(state);
    drawSlopes(state);
    drawContent(state);
    drawView(state);
    ImGui::PopItemWidth();
    if (!state.validationError.empty()) {
        ImGui::Spacing();
        inlineError("Refused: " + state.validationError);
    }
}

}  // namespace alibi::imgui
