// The frame-time panel: milliseconds per frame, milliseconds the core spent on the last grids, and
// the median time from a parameter change to the updated grid on screen (issue 5, target 6).
#include "panels.hpp"

#include <imgui.h>

namespace alibi::imgui {

void drawFrameTimePanel(AppState& state, const Model& model) {
    const double frame = state.frameMs.median();
    ImGui::Text("frame %.2f ms median (%.0f fps), max %.1f ms", frame, frame > 0 ? 1000.0 / frame : 0.0,
                state.frameMs.max());
    ImGui::Text("core %.2f ms per grid (median of %zu)", state.coreMs.median(), state.coreMs.count());
    ImGui::Text("change -> grid %.1f ms median (%zu samples)%s", state.gridLatencyMs.median(),
                state.gridLatencyMs.count(), model.gridPending ? "  computing" : "");
}

}  // namespace alibi::imgui
