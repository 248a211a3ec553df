// AppState: everything the ImGui explorer remembers between frames, as one plain struct with
// in-class defaults. The ALiBi parameters live in `session` (the same alibi::Session the CLI and
// the Qt explorer read and write); the rest is UI state. Panels edit this struct; the Explorer
// turns it into core requests (see model.hpp), so nothing here is ever computed by a panel.
#pragma once

#include "maps_state.hpp"
#include "marked_rows.hpp"
#include "rolling_stats.hpp"

#include <alibi/explore/length_control.hpp>
#include <alibi/explore/snapshot.hpp>
#include <alibi/explore/view_titles.hpp>
#include <alibi/io/session.hpp>
#include <alibi/io/tensor_io.hpp>
#include <alibi/model/position_schemes.hpp>
#include <alibi/render/color_scale.hpp>
#include <alibi/render/render.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace alibi::imgui {

// Upper ends of the sliders: the core's limits (model/params.hpp), so a typed H of 4096 or T of
// 1,048,576 (drawn at pixel cost, issue 14) is what the CLI and sessions accept too.
inline constexpr int kSliderMaxHeads = kMaxHeads;
inline constexpr std::int64_t kSliderMaxLength = kMaxLength;

// The views of the centre panel, the same as the Qt explorer's tabs.
// Maps and Fit show a trained model's saved attention maps (issue 12), not the session's ALiBi.
// Model runs a BLOOM, MPT or Falcon checkpoint on the user's text (issue 29): its maps open in Maps.
// The core's table of view names (explore/view_titles.hpp), the Qt explorer's too.
using View = explore::ExplorerTab;
inline constexpr const auto& kAllViews = explore::kExplorerTabs;
[[nodiscard]] inline std::string_view viewTitle(View view) {  // "Head grid"
    return explore::tabTitle(view).full;
}
[[nodiscard]] inline std::string_view viewShortTitle(View view) {  // "Grid": where the titles do not fit
    return explore::tabTitle(view).brief;
}
[[nodiscard]] inline std::string_view viewSlug(View view) {  // "head-grid" (file names)
    return explore::tabTitle(view).slug;
}

// Zoom steps of View > Zoom in / out (font and every style size scale together).
inline constexpr float kMinZoom = 0.75f;
inline constexpr float kMaxZoom = 3.0f;

// The zoom of presentation mode on a display of this size: text as large as the panels can hold
// with every value, label and lesson line whole (1.4 at 1280x720, 2 at 1920x1080).
[[nodiscard]] inline float presentationZoom(float width, float height) {
    const float fit = std::min(width / 1280.0f, height / 720.0f) * 1.4f;
    return fit < 1.25f ? 1.25f : fit > 2.0f ? 2.0f : fit;
}

// The cell under the mouse in the head grid (from the core's hitTest).
struct HoverCell {
    int head = 0;
    std::int64_t query = 0;
    std::int64_t key = 0;
};

// What the current lesson step points at (lesson_panel.hpp): heads outlined and emphasised, one
// cell (of cellHead) marked; empty without a lesson.
using LessonMark = explore::LessonMark;

// Screen rectangle of the grid image in the last frame; used by the screenshot test to find cells.
struct ScreenRect {
    float x = 0, y = 0, width = 0, height = 0;
};

// A tile label as drawn last frame (tests check it sits above its tile, not over its cells).
struct TileLabelPlace {
    std::string text;
    ScreenRect label, tile;
};

// One-shot requests a panel raises and the Explorer carries out after the panels have drawn
// (file I/O and thread starts stay out of the panel code).
struct Actions {
    bool openSession = false;
    bool cancelSessionOpen = false;  // stop the session file being read (the parameters stay)
    bool cancelDiagnosis = false;    // stop the tensor being read or diagnosed (the diagnosis shown stays)
    bool saveSession = false;
    bool exportTensor = false;
    bool cancelExport = false;
    bool screenshot = false;  // the GL shell writes the framebuffer after this frame
    bool copyCli = false;     // copy the `alibi` command reproducing the tensor to the clipboard
};

// File > Export figure (Ctrl+Shift+P) and the export panel: the open view as a finished figure,
// drawn by the core (render/view_figure.hpp) on a background thread (figure_export.hpp).
enum class FigureFormat { Png1x, Png2x, Png4x, Svg };
struct FigureExportState {
    bool openPopup = false;  // one-shot: the menu or the shortcut asks for the popup
    FigureFormat format = FigureFormat::Png2x;
    int curves = 0;             // the curves view's plot: a CurveKind (slopes, bias, attention vs distance)
    bool mapsOneHead = false;   // attention maps: only the selected head instead of the layer's heads
    bool mapsGrid = false;      // attention maps with a plot side tab: the grid (or overview), not the plot
    int width = 0, height = 0;  // the figure at 1x; 0: the session's width x height
    std::string path;           // the file; follows the default name until the user edits it
    bool pathEdited = false;
    // The default name the typed path replaced: another figure (view, head, plot) gets its own
    // default name in the typed path's folder, so it never overwrites the last one. Empty: the
    // path is for whatever figure is open (scripted runs).
    std::string pathFor;
    bool start = false;   // one-shot: export now
    bool cancel = false;  // one-shot: cancel the export running
    std::string status;   // "Saved PATH (W x H px)", or why the figure was not written
    bool failed = false;  // status is an error
};

// A question the Explorer asks before it discards unsaved changes.
enum class Confirm { None, OpenSession, Quit };

// A number being typed into a slider or field: held here, not in the session, until Enter or a
// focus change commits it (so T passing through 2 and 25 on the way to 256 changes nothing).
struct NumberDraft {
    unsigned id = 0;  // ImGuiID of the widget; 0: none
    std::array<unsigned char, 8> bytes{};
    bool pending = false;  // typed but not applied yet: applies after kTypingPause without a key
    double editedAt = 0;   // ImGui time of the last keystroke that changed the number
};

// A typed number applies after this long without a keystroke, as in the Qt explorer.
inline constexpr double kTypingPause = 0.9;

// A typed number the core's rule refused (explore/field_ranges.hpp): the field it was typed into
// (its ImGuiID) shows the message under it until a value is committed there.
struct FieldRefusal {
    unsigned id = 0;
    std::string message;
};

// The Model view's fields (issue 29). The run's parameters are the session's (Session::live:
// saved, undoable); these are what is being typed before it reaches the session, and one-shots.
struct LiveState {
    std::string folderDraft;                   // the model folder field
    std::string textDraft = kDefaultLiveText;  // the text box: committed to session.live.text by Run
    bool editingText = false;                  // the text box is being edited (else shown wrapped)
    std::string headsText;                     // "3=0.25, 0=1/2": B's heads' slopes
    std::string headsError;                    // why the heads' list was refused (the core's words)
    bool run = false;                          // one-shot: commit the text and run the session's model
    bool cancel = false;                       // one-shot: the Cancel button
    bool openDialog = false;                   // File > Open model: the folder prompt is showing
    std::optional<std::string> open;           // one-shot: set this folder in the session and run it
    bool example = false;                      // one-shot: Help > Example model
    ScreenRect lossPlotRect;                   // where the loss plot was drawn last frame (tests)
};

struct AppState {
    // ---- ALiBi parameters: the last valid session (invalid edits never reach it)
    Session session = defaultSession();

    // ---- text fields whose content is parsed by the core before it reaches `session`
    std::string customSlopesText;   // "0.5, 0.25, ..." for the custom scheme
    std::string customSlopesError;  // inline error under the field; empty when valid
    std::string maskText = "-1e9";
    std::string maskError;
    std::string batchLengthsText;          // "16, 12, 9": the batch rows' real lengths (empty: one sequence)
    std::string batchDocumentsText;        // packed documents' lengths (empty: none)
    std::string batchError;                // inline error under the batch fields
    std::string validationError;           // why the last edit was refused (session kept as it was)
    std::optional<Field> validationField;  // the control the refusal is about (shown under it), if one
    FieldRefusal fieldRefusal;             // a typed number out of its field's range, refused
    NumberDraft draft;
    // The fine T slider's window of consecutive lengths (explore/length_control.hpp).
    explore::LinearWindow lengthWindow{1, 256};
    std::string presetNote;  // source and notes of the preset last applied

    // ---- session files and exports
    std::string sessionPath = "session.alibi.json";
    std::string exportPath = "alibi_tensor.npy";
    FileFormat exportFormat = FileFormat::Npy;
    std::string screenshotPath = "alibi_explorer.png";
    FigureExportState figure;
    Actions actions;
    std::string statusMessage;        // last success ("saved session.alibi.json")
    std::string errorPopup;           // non-empty: the error popup shows this message
    std::string lastCliCommand;       // what "Copy as CLI command" put on the clipboard
    Confirm confirm = Confirm::None;  // the unsaved-changes prompt showing, if any
    bool quitApproved = false;        // the shell ends the frame loop
    int screenshotsRequested = 0;     // "Save PNG" pictures asked for / written (the shell counts)
    int screenshotsSaved = 0;

    // ---- window
    View view = View::Grid;      // the centre panel's view (a session holds it)
    View tabShown = View::Grid;  // the tab the tab bar selected last (differs after a menu or key)
    float zoom = 1.0f;           // font scale (View > Zoom)
    bool fullScreen = false;
    // View > Presentation (Ctrl+Shift+F5, --presentation): full screen, with the zoom that fits
    // the display (presentationZoom), set again whenever the display's size changes.
    bool presentation = false;
    // In presentation mode the Parameters and Session column folds away (the views take the
    // width); View > Parameters panel (F9) brings it back.
    bool presentationParameters = false;
    float presentationWidth = 0, presentationHeight = 0;  // the display the presentation zoom was set for
    bool showHelp = false;                                // the "What is ALiBi?" window
    bool showLessons = false;                             // Help > Lessons
    LessonMark lessonMark;                                // the current lesson step's highlight
    // Counts the lesson steps shown (each Next, Previous, Back to the step): a view that scrolls to
    // a step's marks does so once per step shown (marked_rows.hpp). 0: no step shown yet.
    std::uint64_t lessonStep = 0;
    bool lessonOpen = false;  // a lesson is open (set each frame): its steps cite the views' plots
    std::string lessonNote;   // the step's view is one this explorer lacks: what to say instead

    // ---- head grid
    int gridWidth = 0;  // pixels the grid panel has room for (the renderer's target size)
    int gridHeight = 0;
    int gridLabelBand = 0;  // pixels above each tile for its label (a text line)
    ScreenRect gridRect;    // where the grid image was drawn last frame
    ScreenRect detailRect;  // where the head detail's picture was drawn last frame (tests)
    // The head detail's cells shown last frame (tests): all of them, or the window of whole cells
    // around a lesson's cited cell its zoom shows; and whether their numbers were printed.
    struct DetailCells {
        std::int64_t firstQuery = 0, queryCount = 0, queries = 0;
        std::int64_t firstKey = 0, keyCount = 0, keys = 0;
        bool zoomed = false;
        bool numbers = false;
    } detailCells;
    bool logColors = false;              // attention: log10 colour scale (probabilities span orders of magnitude)
    std::optional<HoverCell> hoverCell;  // cell under the mouse, if any
    std::string hoverReadout;            // the read-out text shown for it (the explore layer's)
    int hoveredHead = -1;                // head highlighted in every panel this frame (-1: none)
    int nextHoveredHead = -1;            // collected while this frame's panels draw; becomes hoveredHead next frame

    // ---- compare view: B is A with these replacements
    CompareOverrides compareB = explore::geometricCompare();
    int compareWidth = 0, compareHeight = 0;    // difference heatmap pixels (0 while hidden)
    int compareLabelBand = 0;                   // pixels above each of its tiles for the label
    std::vector<TileLabelPlace> compareLabels;  // where its tiles' labels were drawn last frame
    alibi::ColorBar compareBar;                 // the colour bar drawn beside A - B last frame

    // ---- position schemes view: ALiBi beside RoPE, sinusoidal, T5, KERPLE, Sandwich
    std::int64_t schemesMaxDistance = 128;  // the distance axis d = 0..D
    SchemeQuantity schemesQuantity = SchemeQuantity::Logit;
    std::optional<double> schemesHoverDistance;  // the distance under the mouse last frame
    ScreenRect schemesPlotRect;                  // where the plot was drawn last frame (tests hover it)

    // ---- diagnose view
    std::string diagnosePath = "bias.npy";  // a tensor file to diagnose
    std::string diagnoseExample;            // or an example with a known bug
    bool diagnoseUseExample = false;
    std::uint64_t diagnoseSerial = 0;            // bumped by each "Diagnose" click (0: none yet)
    int diagnoseWidth = 0, diagnoseHeight = 0;   // error heatmap pixels
    int diagnoseLabelBand = 0;                   // pixels above each of its tiles for the label
    std::vector<TileLabelPlace> diagnoseLabels;  // where the error map's labels were drawn last frame
    bool openCorrected = false;                  // the "Open the corrected parameters" button
    bool useMaskMin = false;                     // the export refusal's one-click fix

    // ---- statistics table
    // Rows averaged for the per-head means; 0: the core's choice (statsRowsToAverage: as many
    // as keep the statistics well under a second, so a heavy view stays interactive).
    std::int64_t statsMaxRows = 0;
    std::vector<int> statsOrder;  // row order after sorting (reused, so no per-frame allocation)
    int statsSortColumn = 0;
    bool statsSortAscending = true;

    // ---- curves view: the lesson step (lessonStep) its plots were last scrolled to the top for,
    // when they scroll (a lesson strip on a projector): a step over attention draws that plot first.
    std::uint64_t curvesScrolledFor = 0;
    MapsShown curvesAttentionShown;  // where the attention plot was drawn last frame, and its clip (tests)

    // ---- extrapolation view: its mass table's rows of a lesson step's heads
    MarkedRows extrapolationRows;
    alibi::ColorBar extrapolationBar;
    ScreenRect diagnoseReportRect;  // Diagnose's report (a whole number of text lines tall)
    ScreenRect diagnoseButtonRect;  // "Open the corrected parameters" as drawn last frame
    ScreenRect schemesTextRect;     // the Schemes view's formulas and sources (a whole number of lines tall)  // beside
                                    // the "head N at T = L" map, as drawn last frame

    // ---- a trained model's attention maps (the Maps and Fit views)
    MapsState maps;
    std::vector<TileLabelPlace> mapsLabels;  // where the maps grid's tile labels were drawn last frame
    alibi::ColorBar mapsBar;                 // the colour bar drawn beside the maps grid (or overview) last frame
    std::string mapsSubtitle;                // the maps grid's (or overview's) subtitle as drawn last frame
    LiveState live;                          // the Model view
    std::vector<std::string> droppedFiles;   // dropped on the window this frame (the shell adds them)

    // ---- frame timing (filled by the shell and the Explorer)
    RollingStats frameMs{240};       // wall time per frame
    RollingStats coreMs{64};         // time the core spent on each finished grid
    RollingStats gridLatencyMs{64};  // parameter change -> updated grid on screen
    std::uint64_t frameCount = 0;
};

}  // namespace alibi::imgui
