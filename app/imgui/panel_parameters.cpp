// The parameters panel: model presets and every ALiBi parameter of the session (shape, slopes,
// bias mode, mask, dtype, attention content, view). Sliders update live while dragged; a number
// typed into a slider or field applies as a whole on Enter, when focus leaves or after a short
// pause in the typing; the mask and the custom slope list on Enter or when focus leaves; never
// per keystroke. The core validates every committed value; a refused one
// shows inline, worded for its control, while the previous valid value stays in force.
#include "layout_check.hpp"
#include "panels.hpp"

#include "keys.hpp"
#include "presets.hpp"

#include <alibi/base/field_names.hpp>
#include <alibi/explore/editing.hpp>
#include <alibi/explore/field_ranges.hpp>
#include <alibi/explore/length_control.hpp>
#include <alibi/io/session.hpp>
#include <alibi/model/attention.hpp>
#include <alibi/model/batch.hpp>
#include <alibi/model/params.hpp>
#include <alibi/render/colormap.hpp>

#include <imgui.h>
#include <imgui_internal.h>
#include <imgui_stdlib.h>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>

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

// Runs `widget` on a copy of `*value` and decides when the copy reaches the session: at once
// for a drag or a click, but while a number is being typed (`typing()` after the widget) the copy
// waits in state.draft and is committed when typing ends (Enter, Tab, a click elsewhere; Escape
// restores the old text first, so it commits nothing) or after a pause of kTypingPause in the
// typing (the field stays open for more). A typed number outside [lo, hi] is refused by the
// core's rule (explore/field_ranges.hpp), never clamped: the field keeps its value and shows the
// message under it, as the Qt explorer does (issue 25).
template <class T, class Widget, class Typing>
bool committedNumber(AppState& state, const char* label, T* value, T lo, T hi, Widget widget, Typing typing) {
    static_assert(sizeof(T) <= sizeof(NumberDraft::bytes));
    const ImGuiID id = ImGui::GetID(label);
    NumberDraft& draft = state.draft;
    T shown = *value;
    if (draft.id == id) std::memcpy(&shown, draft.bytes.data(), sizeof(T));
    const bool changed = widget(&shown);
    // The typed value against the range: taken, or refused with the message kept for the field.
    const auto commit = [&](T typed) {
        const std::string_view name(label, std::strcspn(label, "#"));
        const auto checked =
            explore::checkTyped(name, static_cast<double>(typed), static_cast<double>(lo), static_cast<double>(hi),
                                std::is_integral_v<T>, static_cast<double>(*value));
        if (!checked.accepted) {
            state.fieldRefusal = {id, checked.message};
            return false;
        }
        if (state.fieldRefusal.id == id) state.fieldRefusal = {};
        if (typed == *value) return false;
        *value = typed;
        return true;
    };
    bool committed = false;
    if (typing(id)) {
        if (draft.id != id) draft.pending = false;
        draft.id = id;
        std::memcpy(draft.bytes.data(), &shown, sizeof(T));
        if (changed) {
            draft.pending = true;
            draft.editedAt = ImGui::GetTime();
        }
        if (draft.pending && ImGui::GetTime() - draft.editedAt >= kTypingPause) {
            draft.pending = false;
            committed = commit(shown);
        }
    } else {
        draft.pending = draft.pending && draft.id != id;
        if (draft.id == id) {
            draft.id = 0;
            committed = commit(shown);
        } else if (changed) {
            committed = commit(shown);
        }
    }
    if (state.fieldRefusal.id == id && !state.fieldRefusal.message.empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, kErrorColor);
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextUnformatted(state.fieldRefusal.message.c_str());
        ImGui::PopTextWrapPos();
        ImGui::PopStyleColor();
    }
    return committed;
}

// A slider: live while dragged, typed numbers (Ctrl+click) committed as a whole.
template <class T>
bool slider(AppState& state, const char* label, ImGuiDataType type, T* value, T lo, T hi, const char* format,
            ImGuiSliderFlags flags = 0) {
    return committedNumber(
        state, label, value, lo, hi,
        // No ImGuiSliderFlags_AlwaysClamp: a typed value (Ctrl+click) reaches the rule above as typed.
        [&](T* v) { return ImGui::SliderScalar(label, type, v, &lo, &hi, format, flags); },
        [](ImGuiID id) { return ImGui::TempInputIsActive(id); });
}

// A typed-only number field, committed as a whole.
template <class T>
bool numberField(AppState& state, const char* label, ImGuiDataType type, T* value, T lo, T hi, const char* format) {
    return committedNumber(
        state, label, value, lo, hi, [&](T* v) { return ImGui::InputScalar(label, type, v, nullptr, nullptr, format); },
        [](ImGuiID) { return ImGui::IsItemActive(); });
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

// Whether this frame drew the last refusal under its control (fieldError), so the panel's foot
// does not repeat it.
bool g_refusalShown = false;

// The last refusal under the control it is about (the core names the field).
void fieldError(const AppState& state, Field field) {
    if (state.validationError.empty() || state.validationField != field) return;
    inlineError("Refused: " + state.validationError);
    g_refusalShown = true;
}

// Installs `candidate` if the core accepts it; otherwise returns the core's message.
std::string tryCommit(AppState& state, const Session& candidate) {
    if (auto valid = validateSession(candidate); !valid) return explore::guiMessage(valid.error().message);
    state.session = candidate;
    return {};
}

void drawPresets(AppState& state, const Model& model) {
    sectionHeader("Model preset");
    const Preset* matched = nullptr;
    for (const Preset& p : model.presets)
        if (presetMatches(state.session, p)) matched = &p;
    // The box names a preset only while the session still has its settings.
    const char* current = matched != nullptr ? matched->name.c_str() : "(custom settings)";
    ImGui::SetNextItemWidth(-1);
    if (ImGui::BeginCombo("##preset", current)) {
        for (const Preset& p : model.presets) {
            if (ImGui::Selectable(p.name.c_str(), &p == matched)) {
                state.session = withPreset(state.session, p);
                state.presetNote = p.notes + (p.notes.empty() ? "" : "\n") + "Source: " + p.source +
                                   "\nArithmetic: " + std::string(arithName(p.arith));
            }
            if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", p.source.c_str());
        }
        if (model.presets.empty()) ImGui::TextDisabled("No preset files found (assets/presets)");
        ImGui::EndCombo();
    }
    if (matched != nullptr && !state.presetNote.empty()) {
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextDisabled("%s", state.presetNote.c_str());
        ImGui::PopTextWrapPos();
    }
}

void drawShape(AppState& state) {
    BiasParams& bias = state.session.attention.bias;
    sectionHeader("Shape");
    slider(state, "H (heads)", ImGuiDataType_S32, &bias.slopes.heads, 1, kSliderMaxHeads, "%d",
           ImGuiSliderFlags_Logarithmic);
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("Drag, or Ctrl+click and type a number (applies on Enter or after a short pause)");
    fieldError(state, Field::Heads);

    const std::int64_t maxLength = kSliderMaxLength;
    // T: a coarse log slider, and a fine one linear over a window of lengths around T with a pixel
    // per value at least; the window follows T (the core's rule, explore/length_control.hpp).
    // Ctrl+click types a value into either; with either one focused (clicked), the arrow keys
    // step T by 1 and Shift+arrows to the next power of two (issue 27).
    const auto lengthKeys = [&bias, maxLength] {
        if (!ImGui::IsItemFocused() || ImGui::GetIO().WantTextInput) return;
        const bool shift = ImGui::GetIO().KeyShift;
        int direction = 0;
        for (int key : {keys::kRight, keys::kUp})
            if (ImGui::IsKeyPressed(key)) ++direction;
        for (int key : {keys::kLeft, keys::kDown})
            if (ImGui::IsKeyPressed(key)) --direction;
        if (direction != 0) bias.queries = explore::stepValue(bias.queries, direction, shift, 1, maxLength);
    };
    slider(state, "T (queries)", ImGuiDataType_S64, &bias.queries, std::int64_t{1}, maxLength, "%lld",
           ImGuiSliderFlags_Logarithmic);
    lengthKeys();
    {
        const ImGuiID fineId = ImGui::GetID("T, fine");
        const float width = ImGui::CalcItemWidth();
        if (ImGui::GetActiveID() != fineId && !ImGui::TempInputIsActive(fineId))
            state.lengthWindow =
                explore::followWindow(state.lengthWindow, bias.queries, static_cast<int>(width), 1, maxLength);
        const explore::LinearWindow w = state.lengthWindow;
        // A typed T is judged against the whole range, not the window.
        committedNumber(
            state, "T, fine", &bias.queries, std::int64_t{1}, maxLength,
            [&w](std::int64_t* v) {
                return ImGui::SliderScalar("T, fine", ImGuiDataType_S64, v, &w.lo, &w.hi, "%lld");
            },
            [](ImGuiID id) { return ImGui::TempInputIsActive(id); });
        lengthKeys();
        if (ImGui::IsItemHovered())
            ImGui::SetTooltip(
                "T from %lld to %lld, one value per step; the range follows T.\n"
                "Arrows: T +/- 1; Shift+arrows: the next power of two; Ctrl+click: type T.",
                static_cast<long long>(w.lo), static_cast<long long>(w.hi));
    }

    fieldError(state, Field::Seq);

    bool keysEqual = bias.keys <= 0;
    if (ImGui::Checkbox("K = T", &keysEqual)) bias.keys = keysEqual ? 0 : bias.queries;
    if (!keysEqual) {
        ImGui::SameLine();
        ImGui::SetNextItemWidth(-ImGui::CalcTextSize("K (keys)").x - ImGui::GetStyle().ItemInnerSpacing.x);
        slider(state, "K (keys)", ImGuiDataType_S64, &bias.keys, std::int64_t{1}, maxLength, "%lld",
               ImGuiSliderFlags_Logarithmic);
        fieldError(state, Field::Keys);
    }

    // The row slider's range follows T; a row past it is clamped when T is committed, not here.
    const std::int64_t maxRow = std::max<std::int64_t>(bias.queries - 1, 0);
    slider(state, "query row", ImGuiDataType_S64, &state.session.queryRow, std::int64_t{-1}, maxRow,
           state.session.queryRow < 0 ? "last" : "%lld");
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Row the curves and the statistics' 'row' columns describe");
    fieldError(state, Field::Query);
}

void drawCustomSlopes(AppState& state) {
    SlopeParams& slopes = state.session.attention.bias.slopes;
    // Enter commits (Ctrl+Enter starts a new line); so does leaving the field.
    const bool enter =
        ImGui::InputTextMultiline("##custom", &state.customSlopesText, ImVec2(-1, ImGui::GetTextLineHeight() * 3.5f),
                                  ImGuiInputTextFlags_EnterReturnsTrue | ImGuiInputTextFlags_CtrlEnterForNewLine);
    const bool commit = enter || ImGui::IsItemDeactivatedAfterEdit();
    // The core's one grammar ("0.5, 1/8, 2^-3"), its message in the panel's words.
    const auto values = explore::parseSlopeList(state.customSlopesText);
    const std::string parseError = values ? "" : explore::guiMessage(values.error().message);
    if (ImGui::IsItemActive()) state.customSlopesError = parseError;  // say what is wrong while typing
    if (commit) {
        state.customSlopesError = parseError;
        if (values) {
            const std::string refused = tryCommit(state, explore::withCustomSlopes(state.session, *values));
            state.customSlopesError = refused;
        }
    }
    ImGui::TextDisabled("%d slopes = %d heads; Enter applies", slopes.heads, slopes.heads);
    inlineError(state.customSlopesError);
}

void drawSlopes(AppState& state) {
    SlopeParams& slopes = state.session.attention.bias.slopes;
    sectionHeader("Slopes and bias");
    constexpr std::array schemes{SlopeScheme::Press, SlopeScheme::Geometric, SlopeScheme::Linear, SlopeScheme::Custom};
    SlopeScheme scheme = slopes.scheme;
    if (enumCombo("scheme", scheme, schemes, schemeName)) {
        if (scheme == SlopeScheme::Custom) {
            // Start the custom list from the slopes in use, so switching is always valid.
            if (const auto values = explore::parseSlopeList(state.customSlopesText))
                state.customSlopesError = tryCommit(state, explore::withCustomSlopes(state.session, *values));
        } else {
            slopes.scheme = scheme;
            state.customSlopesError.clear();
        }
    }
    if (slopes.scheme == SlopeScheme::Press || slopes.scheme == SlopeScheme::Geometric)
        slider(state, "max_bias (B)", ImGuiDataType_Double, &slopes.maxBias, kMaxBiasRange.min, kMaxBiasRange.max,
               "%.3f", ImGuiSliderFlags_Logarithmic);
    fieldError(state, Field::MaxBias);
    if (slopes.scheme == SlopeScheme::Custom) drawCustomSlopes(state);
    constexpr std::array ariths{Arith::Exact,      Arith::HfBloom, Arith::HfFalcon,
                                Arith::LlmFoundry, Arith::Fairseq, Arith::Ggml};
    enumCombo("arithmetic", slopes.arith, ariths, arithName);
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip(
            "Whose float arithmetic makes the numbers: exact (rounded once) or one framework's float32 "
            "operations (--arith; a preset sets its model's)");
    fieldError(state, Field::Arith);

    BiasParams& bias = state.session.attention.bias;
    constexpr std::array modes{BiasMode::Causal, BiasMode::Symmetric, BiasMode::Clamped, BiasMode::Bloom,
                               BiasMode::Mpt};
    enumCombo("mode", bias.mode, modes, modeName);
    fieldError(state, Field::Mode);

    const bool enter = ImGui::InputText("mask", &state.maskText, ImGuiInputTextFlags_EnterReturnsTrue);
    noteTextField();  // its text scrolls in its frame (layout_check.hpp)
    const bool commit = enter || ImGui::IsItemDeactivatedAfterEdit();
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("-1e9, -inf, min (the dtype's lowest), or any finite number");
    const auto mask = parseMask(state.maskText);
    if (!mask) {
        state.maskError = "mask: expected a finite number (e.g. -1e9), -inf or min";
    } else if (commit) {
        Session candidate = state.session;
        candidate.attention.bias.mask = *mask;
        const std::string refused = tryCommit(state, candidate);
        state.maskError = refused.empty() ? "" : "mask: " + refused;
    } else if (!ImGui::IsItemActive()) {
        state.maskError.clear();
    }
    inlineError(state.maskError);

    constexpr std::array dtypes{DType::F32, DType::F64, DType::F16, DType::BF16};
    enumCombo("dtype", bias.dtype, dtypes, dtypeName);
    fieldError(state, Field::Dtype);
}

void drawContent(AppState& state) {
    ContentParams& content = state.session.attention.content;
    sectionHeader("Attention content");
    constexpr std::array kinds{ContentKind::Zero, ContentKind::Gaussian, ContentKind::Qk};
    enumCombo("content", content.kind, kinds, contentName);
    if (content.kind == ContentKind::Gaussian)
        slider(state, "sigma", ImGuiDataType_Double, &content.sigma, kSigmaRange.min, kSigmaRange.max, "%.3f",
               ImGuiSliderFlags_Logarithmic);
    fieldError(state, Field::Sigma);
    if (content.kind == ContentKind::Qk)
        slider(state, "d_k", ImGuiDataType_S32, &content.dk, 1, kMaxDk, "%d", ImGuiSliderFlags_Logarithmic);
    fieldError(state, Field::Dk);
    if (content.kind != ContentKind::Zero)
        numberField(state, "seed", ImGuiDataType_U64, &content.seed, std::uint64_t{0},
                    std::numeric_limits<std::uint64_t>::max(), "%llu");
    slider(state, "temperature", ImGuiDataType_Double, &content.temperature, kTemperatureRange.min,
           kTemperatureRange.max, "%.6g", ImGuiSliderFlags_Logarithmic);
    fieldError(state, Field::Temperature);
}

// A list of lengths ("16, 12, 9") applied on Enter or when focus leaves; parsed by the core.
void lengthListField(AppState& state, const char* label, std::string& text,
                     std::vector<std::int64_t> BatchParams::*list, const char* tooltip) {
    const bool enter = ImGui::InputTextWithHint(label, "none", &text, ImGuiInputTextFlags_EnterReturnsTrue);
    noteTextField();  // its text scrolls in its frame (layout_check.hpp)
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tooltip);
    if (!(enter || ImGui::IsItemDeactivatedAfterEdit())) return;
    auto values = parseLengthList(text, label);
    if (!values) {
        state.batchError = values.error().message;
        return;
    }
    Session candidate = state.session;
    candidate.batch.*list = std::move(*values);
    if (candidate.batchRow >= candidate.batch.batchSize()) candidate.batchRow = candidate.batch.batchSize() - 1;
    state.batchError = tryCommit(state, candidate);
}

void drawBatch(AppState& state) {
    Session& session = state.session;
    BatchParams& batch = session.batch;
    sectionHeader("Batch");
    lengthListField(state, "lengths", state.batchLengthsText, &BatchParams::lengths,
                    "Real tokens of each batch row, padded to T (alibi bias --lengths); Enter applies");
    fieldError(state, Field::Lengths);
    constexpr std::array paddings{Padding::Right, Padding::Left};
    enumCombo("padding", batch.padding, paddings, paddingName);
    lengthListField(state, "documents", state.batchDocumentsText, &BatchParams::documents,
                    "Packed documents' lengths in every row: keys of another document are masked (--documents)");
    fieldError(state, Field::Documents);
    numberField(state, "window", ImGuiDataType_S64, &batch.window, std::int64_t{0}, kMaxLength, "%lld");
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Sliding window W: key j is masked when |i - j| >= W (0: none)");
    fieldError(state, Field::Window);
    numberField(state, "prefix", ImGuiDataType_S64, &batch.prefix, std::int64_t{0}, kMaxLength, "%lld");
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Prefix-LM: the first P tokens see each other both ways (0: none)");
    fieldError(state, Field::Prefix);
    constexpr std::array rules{PositionRule::Mask, PositionRule::Naive, PositionRule::Document};
    enumCombo("positions", batch.positions, rules, positionRuleName);
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip(
            "ALiBi positions: from the mask (BLOOM's cumsum), the raw index (naive: the left-padding "
            "bug), or restarting per document");
    fieldError(state, Field::Positions);
    const std::int64_t rows = batch.batchSize();
    ImGui::BeginDisabled(rows <= 1);
    slider(state, "batch row", ImGuiDataType_S64, &session.batchRow, std::int64_t{0},
           std::max<std::int64_t>(rows - 1, 0), "%lld");
    ImGui::EndDisabled();
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
        ImGui::SetTooltip("The batch row the grid and detail views show");
    inlineError(state.batchError);
}

void drawViewSettings(AppState& state) {
    Session& session = state.session;
    sectionHeader("Shown");
    // Only a click changes `what` (a session may hold `slopes`, which the grid draws as the bias).
    if (ImGui::RadioButton("bias", session.what != RenderWhat::Attention)) session.what = RenderWhat::Bias;
    ImGui::SameLine();
    if (ImGui::RadioButton("attention", session.what == RenderWhat::Attention)) session.what = RenderWhat::Attention;

    const int heads = session.attention.bias.slopes.heads;
    slider(state, "head", ImGuiDataType_S32, &session.head, -1, heads - 1, session.head < 0 ? "none" : "%d");
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("The head the detail and stages views show (click one in the grid)");

    constexpr std::array maps{Colormap::Viridis, Colormap::Magma, Colormap::Cividis, Colormap::Diverging};
    enumCombo("colormap", session.colormap, maps, colormapName);
    constexpr std::array scales{ScaleMode::Shared, ScaleMode::PerHead};
    enumCombo("scale", session.scale, scales, scaleModeName);
    ImGui::BeginDisabled(session.what != RenderWhat::Attention);
    ImGui::Checkbox("log colours (attention)", &state.logColors);
    ImGui::EndDisabled();
}

}  // namespace

void drawParametersPanel(AppState& state, const Model& model) {
    ImGui::PushItemWidth(-ImGui::GetFontSize() * 7.0f);
    g_refusalShown = false;
    drawPresets(state, model);
    drawShape(state);
    drawSlopes(state);
    drawContent(state);
    drawBatch(state);
    drawViewSettings(state);
    ImGui::PopItemWidth();
    if (!state.validationError.empty() && !g_refusalShown) {  // about no control drawn here
        ImGui::Spacing();
        inlineError("Refused: " + state.validationError);
    }
}

}  // namespace alibi::imgui
