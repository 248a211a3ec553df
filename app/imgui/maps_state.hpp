// MapsState: what the explorer remembers about the trained model's attention maps it shows
// (issue 12): the file to open and how, the layer, head and row looked at, the fit's row range,
// the table's sort and the export's path. Plain data with in-class defaults; the Explorer turns
// it into core requests (maps_model.hpp), panels only edit it.
#pragma once

#include "marked_rows.hpp"

#include <alibi/explore/lesson_state.hpp>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace alibi::imgui {

// Which ALiBi prior the maps are paired with (the configured slope of each head).
// File: the slopes the file says its maps were computed with (a model run's; chosen when it
// opens such a file).
enum class MapsPrior { None, Session, Preset, File };

// The side pictures of the attention maps view.
enum class MapsSide { Head, Distance, Row, Similarity };

// The cell of the maps under the mouse (the core's mapsHitTest).
struct MapsCell {
    int layer = 0;  // layer index
    int head = 0;
    std::int64_t query = 0;
    std::int64_t key = 0;
    friend bool operator==(const MapsCell&, const MapsCell&) = default;
};

// A screen rectangle (the fit table's header cells, for tests that click them).
struct MapsRect {
    float x = 0, y = 0, width = 0, height = 0;
};

// A picture as drawn last frame and the part of the screen its window showed then (its clip
// rectangle, scrolled-away parts of parent windows left out): the picture is in view without
// scrolling when `rect` lies inside `clip` (tests of the lesson steps that cite it).
struct MapsShown {
    MapsRect rect, clip;
};

// A file to open as attention maps, raised by a panel, a menu, a drop or the command line.
struct MapsOpenAsk {
    std::string path;
    std::string tensor;  // "": every layer of a safetensors file
    int batch = 0;
    int values = 0;           // 0 detect, 1 probabilities, 2 scores
    bool keepView = false;    // a re-open of the same file (values, batch, tensor): keep the layer
    bool stayInView = false;  // a model run's maps: the view shown stays (the Model view's A vs B)
};

// Where a lesson step over attention maps looks: applied once its file is open.
struct MapsLessonTarget {
    int layerNumber = 0;           // the layer's number (AttentionLayerInfo::number)
    int head = -1;                 // -1: keep
    std::int64_t row = -1;         // -1: keep
    std::optional<MapsSide> side;  // the side picture to show; nullopt: keep
    bool fit = false;              // the step shows the fit table: its rows are fitted (once) when it opens
};

struct MapsState {
    // ---- opening
    std::string path = "attention.npy";  // the path field
    int valuesChoice = 0;                // 0 detect, 1 probabilities, 2 scores
    int batch = 0;
    std::string tensor;                            // "" every layer
    std::optional<MapsOpenAsk> open;               // one-shot: opened by the Explorer after the panels draw
    std::optional<MapsLessonTarget> lessonTarget;  // waiting for the file a lesson step opens
    // A lesson step's mark (the core's, LessonMarkScope::AttentionMaps) on the layer index
    // lessonLayer (-1 until the step's file is open): the fit table's rows of its heads, its
    // heads' tiles and its cell in the layer grid and the head picture.
    explore::LessonMark lessonMark;
    int lessonLayer = -1;
    bool openDialog = false;  // File > Open attention maps: the path prompt is showing
    // A short view (a lesson strip under it on a projector) folds the file's controls into one
    // line, so the pictures a step cites keep the room; this unfolds them.
    bool fileBarOpen = false;
    // The lesson step shows a side picture (one head, a plot, the similarity): in a short view it
    // takes the larger share of the width.
    bool lessonSide = false;
    // This frame's view is short: the head picker sits in the layer bar, not in each side tab.
    bool shortView = false;
    bool cancelOpen = false;  // one-shot: the Cancel button beside "opening ..."

    // ---- pairing with ALiBi parameters
    MapsPrior prior = MapsPrior::None;
    int presetIndex = 0;  // into Model::presets when prior == Preset

    // ---- what is looked at
    int layer = 0;          // layer index (not the layer's number)
    bool overview = false;  // every layer at once
    int head = 0;
    std::int64_t row = -1;  // query row inspected (-1: the last)
    bool logColors = false;
    bool perHead = false;  // per-head colour scales
    MapsSide side = MapsSide::Head;
    MapsSide sideShown = MapsSide::Head;  // the side tab drawn last (differs after a programmatic choice)
    int similarityBasis = 0;              // 0 profile, 1 full map
    int similarityOrder = 0;              // 0 index, 1 fitted slope, 2 clustering

    // ---- sizes the panels had room for (0 while hidden); where pictures were drawn
    int gridWidth = 0, gridHeight = 0;
    int headWidth = 0, headHeight = 0;  // the head picture's size: its room, with square cells
    MapsRect headRect;                  // where the head picture's cells were drawn last frame (tests)
    // The layer grid, the head picture, the side plot (vs distance or the row) and the similarity
    // matrix as drawn last frame (all zero when not drawn).
    MapsShown gridShown, headShown, plotShown, similarityShown;
    // The keys the row plot showed last frame (explore::mapsRowWindow; tests).
    std::int64_t rowFirstKey = 0, rowLastKey = -1;
    int similarityWidth = 0, similarityHeight = 0;
    float gridX = 0, gridY = 0;             // screen position of the grid image last frame
    std::int64_t headTokenStep = 0;         // the head picture's key axis: every k-th token labelled (0: none)
    float twoX = 0, twoY = 0;               // screen position of the two heads figure last frame
    int gridLabelBand = 0;                  // pixels above each tile for its label (a text line)
    std::optional<MapsCell> hover;          // cell under the mouse this frame (grid or head picture)
    std::optional<int> similarityHover[2];  // heads (a, b) under the mouse in the similarity matrix

    // ---- two heads side by side (explore/head_compare.hpp), in place of the grid and side tabs
    bool twoHeads = false;
    int aLayer = 0, aHead = 0;  // A: layer index, head
    int bSource = 0;            // B: an explore::CompareSource (0 a head, 1 A's configured prior, 2 A's fitted prior)
    int bLayer = 0, bHead = 1;  // B when a head
    int twoWidth = 0, twoHeight = 0;        // the figure's room (0 while hidden)
    std::optional<MapsCell> twoHeadsHover;  // the cell under the mouse; `layer` holds the panel (0 A, 1 B, 2 B - A)

    // ---- the fit table
    bool fitAllRows = true;
    std::int64_t fitFirst = 0, fitLast = 0;  // query rows [first, last) when not all
    bool runFit = false;                     // one-shot
    bool fitForLesson = false;               // one-shot: fit unless the table is already the paired maps' fit
    bool cancelFit = false;                  // one-shot
    int sortColumn = 0;                      // an explore::FitColumn
    bool sortAscending = true;
    std::vector<int> tableOrder;        // rows after sorting
    int selectedRow = -1;               // into the fit result's heads
    std::vector<MapsRect> headerRects;  // where each column's header was drawn last frame
    MarkedRows lessonRows;              // the rows of a lesson step's heads (scrolled into view once per step)
    std::string exportPath = "head_fit.csv";
    bool exportCsv = false;   // one-shot
    bool exportJson = false;  // one-shot
};

// The Fit view's row fields (as Qt's, with the core's caption beside them, "Fitted 32 heads on
// query rows 0 to 63"): the first row and the last row fitted, included. MapsState keeps the
// request's exclusive end (fitLast = the second field + 1).
[[nodiscard]] inline std::int64_t fitLastRowIncluded(const MapsState& s) {
    return s.fitLast - 1;
}
// Sets the rows from the fields, `queries` rows in the file: the first clamped to the rows, the
// last to the rows from the first on (a last below the first fits that one row).
inline void setFitRows(MapsState& s, std::int64_t first, std::int64_t lastIncluded, std::int64_t queries) {
    s.fitFirst = std::clamp<std::int64_t>(first, 0, std::max<std::int64_t>(queries - 1, 0));
    s.fitLast = std::clamp<std::int64_t>(lastIncluded, s.fitFirst, std::max<std::int64_t>(queries - 1, s.fitFirst)) + 1;
}

}  // namespace alibi::imgui
