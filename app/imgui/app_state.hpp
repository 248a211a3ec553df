// AppState: everything the ImGui explorer remembers between frames, as one plain struct with
// in-class defaults. The ALiBi parameters live in `session` (the same alibi::Session the CLI and
// the Qt explorer read and write); the rest is UI state. Panels edit this struct; the Explorer
// turns it into core requests (see model.hpp), so nothing here is ever computed by a panel.
#pragma once

#include "rolling_stats.hpp"

#include <alibi/render/render.hpp>
#include <alibi/io/session.hpp>
#include <alibi/io/tensor_io.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace alibi::imgui {

// Upper ends of the sliders (issue 4: any H up to 256; issue 14: T up to the core's 1,048,576,
// which bias and zero-content attention draw at pixel cost).
inline constexpr int kSliderMaxHeads = 256;
inline constexpr std::int64_t kSliderMaxLength = kMaxLength;

// The cell under the mouse in the head grid (from the core's hitTest).
struct HoverCell {
    int head = 0;
    std::int64_t query = 0;
    std::int64_t key = 0;
};

// Screen rectangle of the grid image in the last frame; used by the screenshot test to find cells.
struct ScreenRect {
    float x = 0, y = 0, width = 0, height = 0;
};

// One-shot requests a panel raises and the Explorer carries out after the panels have drawn
// (file I/O and thread starts stay out of the panel code).
struct Actions {
    bool openSession = false;
    bool saveSession = false;
    bool exportTensor = false;
    bool cancelExport = false;
    bool screenshot = false;  // the GL shell writes the framebuffer after this frame
};

struct AppState {
    // ---- ALiBi parameters: the last valid session (invalid edits never reach it)
    Session session = defaultSession();

    // ---- text fields whose content is parsed by the core before it reaches `session`
    std::string customSlopesText;   // "0.5, 0.25, ..." for the custom scheme
    std::string customSlopesError;  // inline error under the field; empty when valid
    std::string maskText = "-1e9";
    std::string maskError;
    std::string validationError;    // why the last edit was refused (session kept as it was)

    // ---- session files and exports
    std::string sessionPath = "session.alibi.json";
    std::string exportPath = "alibi_tensor.npy";
    FileFormat exportFormat = FileFormat::Npy;
    std::string screenshotPath = "alibi_explorer.png";
    Actions actions;
    std::string statusMessage;         // last success ("saved session.alibi.json")
    std::string errorPopup;            // non-empty: the error popup shows this message

    // ---- head grid
    int gridWidth = 0;   // pixels the grid panel has room for (the renderer's target size)
    int gridHeight = 0;
    ScreenRect gridRect;                 // where the grid image was drawn last frame
    std::optional<HoverCell> hoverCell;  // cell under the mouse, if any
    int hoveredHead = -1;     // head highlighted in every panel this frame (-1: none)
    int nextHoveredHead = -1;  // collected while this frame's panels draw; becomes hoveredHead next frame

    // ---- statistics table
    std::int64_t statsMaxRows = 16;  // rows averaged for the per-head means (few keep big T interactive)
    std::vector<int> statsOrder;     // row order after sorting (reused, so no per-frame allocation)
    int statsSortColumn = 0;
    bool statsSortAscending = true;

    // ---- frame timing (filled by the shell and the Explorer)
    RollingStats frameMs{240};       // wall time per frame
    RollingStats coreMs{64};         // time the core spent on each finished grid
    RollingStats gridLatencyMs{64};  // parameter change -> updated grid on screen
    std::uint64_t frameCount = 0;
};

}  // namespace alibi::imgui
