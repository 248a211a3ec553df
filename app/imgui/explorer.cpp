// Explorer: results in, panels drawn, edits validated, actions run, changed requests submitted.
#include "explorer.hpp"

#include "panels.hpp"

#include <alibi/model/attention.hpp>
#include <alibi/model/bias.hpp>
#include <alibi/model/slopes.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace alibi::imgui {

namespace {

// The panels tile the whole window, so they draw no background of their own: the shell clears
// to the panel colour instead. On a software rasteriser (llvmpipe under Xvfb) that saves one
// blended full-window pass per frame.
constexpr ImGuiWindowFlags kPanelFlags = ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize |
                                         ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoSavedSettings |
                                         ImGuiWindowFlags_NoBackground | ImGuiWindowFlags_NoBringToFrontOnFocus;

// Positions the next panel window at a fixed rectangle of the display.
bool beginPanel(const char* title, float x, float y, float width, float height) {
    ImGui::SetNextWindowPos(ImVec2(std::floor(x), std::floor(y)));
    ImGui::SetNextWindowSize(ImVec2(std::floor(width), std::floor(height)));
    return ImGui::Begin(title, nullptr, kPanelFlags);
}

std::string slopesText(const std::vector<double>& slopes) {
    std::string text;
    for (std::size_t i = 0; i < slopes.size(); ++i) text += fmt::format("{}{:.9g}", i == 0 ? "" : ", ", slopes[i]);
    return text;
}

}  // namespace

Explorer::Explorer(TextureUploader* textures, std::function<void()> wake)
    : m_textures(textures), m_wake(std::move(wake)), m_lastValid(m_state.session) {
    if (auto slopes = computeSlopes(m_state.session.attention.bias.slopes)) m_model.slopes = std::move(*slopes);
    syncTextFields();
}

Explorer::~Explorer() {
    if (m_textures != nullptr) {
        if (m_model.gridTexture != nullptr) m_textures->release(m_model.gridTexture);
        if (m_model.colorBarTexture != nullptr) m_textures->release(m_model.colorBarTexture);
    }
}

bool Explorer::busy() const {
    return m_model.gridPending || m_model.curvesPending || m_model.statsPending || m_model.exportRunning ||
           m_curvesChangedAt.has_value() || m_statsChangedAt.has_value() || !m_hoverWorker.idle();
}

Result<void> Explorer::applySession(const Session& session) {
    if (auto valid = validateSession(session); !valid) return std::unexpected(valid.error());
    m_state.session = session;
    m_lastValid = session;
    m_state.validationError.clear();
    if (auto slopes = computeSlopes(session.attention.bias.slopes)) m_model.slopes = std::move(*slopes);
    syncTextFields();
    return {};
}

void Explorer::syncTextFields() {
    const SlopeParams& slopes = m_state.session.attention.bias.slopes;
    m_state.customSlopesText = slopesText(slopes.scheme == SlopeScheme::Custom ? slopes.custom : m_model.slopes);
    m_state.customSlopesError.clear();
    m_state.maskText = maskName(m_state.session.attention.bias.mask);
    m_state.maskError.clear();
}

void Explorer::frame() {
    ++m_state.frameCount;

    // Any panel may report the head under the mouse; every panel highlights last frame's report,
    // so the highlight does not depend on the order the panels draw in.
    m_state.hoveredHead = m_state.nextHoveredHead;
    m_state.nextHoveredHead = -1;

    collectResults();
    drawPanels();
    validateEdits();
    runActions();
    submitRequests();
}

void Explorer::framePresented() {
    if (!m_shownRequestedAt) return;
    m_state.gridLatencyMs.push(std::chrono::duration<double, std::milli>(Clock::now() - *m_shownRequestedAt).count());
    m_shownRequestedAt.reset();
}

// ---------------------------------------------------------------------------

void Explorer::collectResults() {
    std::uint64_t generation = 0;
    if (auto grid = m_gridBox.take(generation)) {
        m_model.grid = grid;
        m_model.gridPending = generation != m_gridGeneration;
        m_state.coreMs.push(grid->coreMs);
        m_shownRequestedAt = grid->requestedAt;
        if (m_textures != nullptr && grid->error.empty()) {
            m_model.gridTexture = m_textures->upload(grid->heatmap.image, m_model.gridTexture);
            m_model.colorBarTexture = m_textures->upload(grid->colorBar, m_model.colorBarTexture);
        }
    }
    if (auto curves = m_curvesBox.take(generation)) {
        m_model.curves = curves;
        m_model.curvesPending = generation != m_curvesGeneration;
    }
    if (auto stats = m_statsBox.take(generation)) {
        m_model.stats = stats;
        m_model.statsPending = generation != m_statsGeneration;
    }
    if (auto hover = m_hoverBox.take(generation)) m_model.hoverRow = hover;

    m_model.exportRunning = m_export.running();
    m_model.exportDone = m_export.done();
    m_model.exportTotal = m_export.total();
    if (auto outcome = m_export.takeOutcome()) {
        if (outcome->empty()) {
            m_state.statusMessage = fmt::format("exported {}", m_export.path());
        } else {
            m_state.errorPopup = *outcome;
        }
    }
}

void Explorer::drawPanels() {
    const ImVec2 display = ImGui::GetIO().DisplaySize;
    const float width = std::max(display.x, 640.0f);
    const float height = std::max(display.y, 480.0f);
    const float left = std::clamp(width * 0.23f, 330.0f, 420.0f);
    const float right = std::clamp(width * 0.27f, 360.0f, 520.0f);
    const float centre = std::max(width - left - right, 200.0f);
    const float top = std::floor(height * 0.64f);
    const float frameStrip = 92.0f;

    if (beginPanel("Parameters", 0, 0, left, top)) drawParametersPanel(m_state, m_model);
    ImGui::End();
    if (beginPanel("Session and export", 0, top, left, height - top)) {
        drawSessionPanel(m_state, m_model);
        ImGui::Separator();
        drawExportPanel(m_state, m_model);
    }
    ImGui::End();
    if (beginPanel("Head grid", left, 0, centre, top)) drawGridPanel(m_state, m_model);
    ImGui::End();
    if (beginPanel("Per-head statistics", left, top, centre, height - top)) drawStatsPanel(m_state, m_model);
    ImGui::End();
    if (beginPanel("Curves", left + centre, 0, right, height - frameStrip)) drawCurvesPanel(m_state, m_model);
    ImGui::End();
    if (beginPanel("Frame time", left + centre, height - frameStrip, right, frameStrip))
        drawFrameTimePanel(m_state, m_model);
    ImGui::End();

    drawErrorPopup();
}

void Explorer::drawErrorPopup() {
    if (m_state.errorPopup.empty()) return;
    if (!ImGui::IsPopupOpen("Error")) ImGui::OpenPopup("Error");
    const ImVec2 display = ImGui::GetIO().DisplaySize;
    ImGui::SetNextWindowPos(ImVec2(display.x * 0.5f, display.y * 0.4f), ImGuiCond_Always, ImVec2(0.5f, 0.5f));
    ImGui::SetNextWindowSizeConstraints(ImVec2(360, 0), ImVec2(std::max(display.x * 0.6f, 360.0f), display.y));
    if (ImGui::BeginPopupModal("Error", nullptr, ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoSavedSettings)) {
        ImGui::PushTextWrapPos(std::max(display.x * 0.55f, 340.0f));
        ImGui::TextUnformatted(m_state.errorPopup.c_str());
        ImGui::PopTextWrapPos();
        ImGui::Spacing();
        if (ImGui::Button("OK", ImVec2(120, 0)) || ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape))) {
            m_state.errorPopup.clear();
            ImGui::CloseCurrentPopup();
        }
        ImGui::EndPopup();
    }
}

void Explorer::validateEdits() {
    if (m_state.session == m_lastValid) return;
    if (auto valid = validateSession(m_state.session); !valid) {
        // The previous valid state stays; the parameters panel shows why the edit was refused.
        m_state.validationError = valid.error().message;
        m_state.session = m_lastValid;
        return;
    }
    m_state.validationError.clear();
    const bool slopesChanged = m_state.session.attention.bias.slopes.heads != m_lastValid.attention.bias.slopes.heads ||
                               m_state.session.attention.bias.slopes.scheme != m_lastValid.attention.bias.slopes.scheme ||
                               m_state.session.attention.bias.slopes.maxBias != m_lastValid.attention.bias.slopes.maxBias ||
                               m_state.session.attention.bias.slopes.custom != m_lastValid.attention.bias.slopes.custom;
    m_lastValid = m_state.session;
    if (slopesChanged) {
        if (auto slopes = computeSlopes(m_state.session.attention.bias.slopes)) m_model.slopes = std::move(*slopes);
        // Keep the custom-slopes field showing the slopes in use, so switching to `custom` starts
        // from them (unless the user is typing a custom list right now).
        if (m_state.session.attention.bias.slopes.scheme != SlopeScheme::Custom)
            m_state.customSlopesText = slopesText(m_model.slopes);
    }
    // Keep the hovered head in range when H shrinks.
    if (m_state.hoveredHead >= m_state.session.attention.bias.slopes.heads) m_state.hoveredHead = -1;
}

void Explorer::runActions() {
    Actions& actions = m_state.actions;
    if (actions.openSession) {
        actions.openSession = false;
        if (auto session = loadSession(m_state.sessionPath); !session) {
            m_state.errorPopup = session.error().message;
        } else if (auto applied = applySession(*session); !applied) {
            m_state.errorPopup = fmt::format("{}: {}", m_state.sessionPath, applied.error().message);
        } else {
            m_state.statusMessage = fmt::format("opened {}", m_state.sessionPath);
        }
    }
    if (actions.saveSession) {
        actions.saveSession = false;
        if (auto saved = saveSession(m_lastValid, m_state.sessionPath); !saved) {
            m_state.errorPopup = saved.error().message;
        } else {
            m_state.statusMessage = fmt::format("saved {}", m_state.sessionPath);
        }
    }
    if (actions.exportTensor) {
        actions.exportTensor = false;
        const AttentionParams& attention = m_lastValid.attention;
        const bool probabilities = m_lastValid.what == RenderWhat::Attention;
        auto source = probabilities ? attentionSource(attention) : biasSource(attention.bias);
        if (!source) {
            m_state.errorPopup = source.error().message;
        } else if (!m_export.start(std::move(*source), m_state.exportPath, m_state.exportFormat,
                                   probabilities ? "attention" : "bias")) {
            m_state.errorPopup = "An export is already running; wait for it or cancel it first.";
        } else {
            m_model.exportRunning = true;
            m_state.statusMessage.clear();
        }
    }
    if (actions.cancelExport) {
        actions.cancelExport = false;
        m_export.cancel();
    }
}

void Explorer::notify() const {
    if (m_wake) m_wake();
}

void Explorer::submitRequests() {
    if (auto grid = gridRequest(m_state); grid && grid != m_lastGrid) {
        m_lastGrid = grid;
        const std::uint64_t generation = ++m_gridGeneration;
        m_model.gridPending = true;
        m_gridWorker.submit([this, request = *grid, generation, at = Clock::now()](const CancelFlag& cancel) {
            if (auto result = computeGrid(request, at, cancel)) {
                m_gridBox.put(generation, std::move(result));
                notify();
            }
        });
    }
    // Curves and statistics are slower than the grid and matter less mid-drag: while their worker
    // is still busy, a changed request waits until the parameters rest for kSettleTime, so a drag
    // leaves the cores to the grid instead of starting and cancelling statistics every frame.
    const Clock::time_point now = Clock::now();
    auto ready = [&](bool changed, const LatestWorker& worker, std::optional<Clock::time_point>& changedAt) {
        if (!changed) {
            changedAt.reset();
            return false;
        }
        if (!changedAt) changedAt = now;
        return worker.idle() || now - *changedAt >= kSettleTime;
    };
    const CurvesRequest curves = curvesRequest(m_state);
    if (ready(curves != m_lastCurves, m_curvesWorker, m_curvesChangedAt)) {
        m_curvesChangedAt.reset();
        m_lastCurves = curves;
        const std::uint64_t generation = ++m_curvesGeneration;
        m_model.curvesPending = true;
        m_curvesWorker.submit([this, request = curves, generation](const CancelFlag& cancel) {
            if (auto result = computeCurves(request, cancel)) {
                m_curvesBox.put(generation, std::move(result));
                notify();
            }
        });
    }
    const StatsRequest stats = statsRequest(m_state);
    if (ready(stats != m_lastStats, m_statsWorker, m_statsChangedAt)) {
        m_statsChangedAt.reset();
        m_lastStats = stats;
        const std::uint64_t generation = ++m_statsGeneration;
        m_model.statsPending = true;
        m_statsWorker.submit([this, request = stats, generation](const CancelFlag& cancel) {
            if (auto result = computeStatsOutcome(request, cancel)) {
                m_statsBox.put(generation, std::move(result));
                notify();
            }
        });
    }
    if (auto hover = hoverRowRequest(m_state); hover && hover != m_lastHover) {
        m_lastHover = hover;
        const std::uint64_t generation = ++m_hoverGeneration;
        m_hoverWorker.submit([this, request = *hover, generation](const CancelFlag& cancel) {
            if (auto result = computeHoverRow(request, cancel)) {
                m_hoverBox.put(generation, std::move(result));
                notify();
            }
        });
    }
}

}  // namespace alibi::imgui
