// What a lesson step cites is on screen when the step is shown, on a projector (1280x720 in
// presentation mode, the fonts and style of its zoom) and on a desktop (1920x1080), without the
// lecturer scrolling (issue 27): lesson 1's attention plot, lesson 3's mass-table rows of the
// heads a step names (scrolled to once per step, the user's scrolling left alone after), and
// lesson 5's picture of every step (the layer grid, the fit table's rows, the head picture with
// its framed cell, the row and distance plots, the similarity matrix). The head picture's cells
// are square.
#include "explorer_fixture.hpp"
#include "layout_check.hpp"
#include "lesson_panel.hpp"
#include "maps_model.hpp"
#include "zoom.hpp"

#include <alibi/io/attention_maps.hpp>
#include <alibi/render/render.hpp>
#include <alibi/render/square_cells.hpp>

#include <algorithm>

#include <cmath>
#include <cstdlib>
#include <optional>
#include <string>

namespace alibi::imgui {
namespace {

struct Display {
    int width, height;
    bool presentation;
    bool parameters = false;  // presentation mode with its Parameters panel open (F9)
};

class LessonViews : public ExplorerLogic, public ::testing::WithParamInterface<Display> {
public:
    void SetUp() override {
        ::setenv("ALIBI_DATA_DIR", ALIBI_SOURCE_ASSETS, 1);
        ::setenv("XDG_DATA_HOME", "/nonexistent-alibi-test", 1);  // no user lessons
        ExplorerLogic::SetUp();
        const Display d = GetParam();
        ImGuiIO& io = ImGui::GetIO();
        io.DisplaySize = ImVec2(static_cast<float>(d.width), static_cast<float>(d.height));
        m_explorer->setPresentation(d.presentation);
        state().presentationParameters = d.parameters;
        frame();  // presentation mode takes the zoom of the display
        // The fonts and style of that zoom, as the window shell builds them.
        applyZoom(explorerBaseStyle(), state().zoom);
        unsigned char* pixels = nullptr;
        int width = 0, height = 0;
        io.Fonts->GetTexDataAsRGBA32(&pixels, &width, &height);
        frame();
    }

    // Steps until the lesson shows step `n` (1-based) and every result is in.
    void goToStep(int n) {
        while (m_explorer->lessons().state()->index() + 1 < n) ASSERT_TRUE(m_explorer->lessonNext());
        settle();
        for (int i = 0; i < 4; ++i) frame();  // a scroll asked for lands a frame later
    }

    // A step over attention maps: its file open and its layer, head and row applied.
    void goToMapsStep(int n) {
        while (m_explorer->lessons().state()->index() + 1 < n) ASSERT_TRUE(m_explorer->lessonNext());
        ASSERT_TRUE(framesUntil([&] { return m_explorer->model().maps.file && !state().maps.lessonTarget; }));
        ASSERT_TRUE(framesUntil([&] { return !m_explorer->model().maps.fitRunning; }));
        settle();
        for (int i = 0; i < 4; ++i) frame();
        settle();
    }
};

::testing::AssertionResult inView(const MarkedRows& rows) {
    if (rows.visible.bottom - rows.visible.top < 1.0f) return ::testing::AssertionFailure() << "no visible rows";
    for (const MarkedRows::Span& r : rows.rows)
        if (r.top < rows.visible.top - 1.0f || r.bottom > rows.visible.bottom + 1.0f)
            return ::testing::AssertionFailure() << "row " << r.top << ".." << r.bottom << " outside the visible rows "
                                                 << rows.visible.top << ".." << rows.visible.bottom;
    return ::testing::AssertionSuccess();
}

::testing::AssertionResult inView(const MapsShown& shown) {
    const MapsRect& r = shown.rect;
    const MapsRect& c = shown.clip;
    if (r.width < 8.0f || r.height < 8.0f)
        return ::testing::AssertionFailure() << "not drawn (" << r.width << " x " << r.height << ")";
    if (r.x < c.x - 1.0f || r.y < c.y - 1.0f || r.x + r.width > c.x + c.width + 1.0f ||
        r.y + r.height > c.y + c.height + 1.0f)
        return ::testing::AssertionFailure()
               << "drawn at " << r.x << "," << r.y << " " << r.width << " x " << r.height << ", visible " << c.x << ","
               << c.y << " " << c.width << " x " << c.height;
    return ::testing::AssertionSuccess();
}

ImGuiWindow* windowNamed(const char* part) {
    for (ImGuiWindow* w : ImGui::GetCurrentContext()->Windows)
        if (std::string(w->Name).find(part) != std::string::npos && w->Active) return w;
    return nullptr;
}

// Lesson 3, steps 4 and 5: heads 0 to 3, then heads 6 and 7 of the mass table.
TEST_P(LessonViews, TheMassTableShowsTheHeadsAStepNames) {
    ASSERT_TRUE(m_explorer->openLesson("train-short-test-long"));
    goToStep(4);
    ASSERT_EQ(state().view, View::Extrapolation);
    const MarkedRows& rows = state().extrapolationRows;
    EXPECT_EQ(rows.rows.size(), 4u);  // heads 0, 1, 2, 3
    EXPECT_TRUE(inView(rows));
    goToStep(5);
    EXPECT_EQ(rows.rows.size(), 2u);  // heads 6 and 7
    EXPECT_TRUE(inView(rows));

    // The user scrolls the table back to its top: it stays there (the step scrolled once).
    ImGuiWindow* table = windowNamed("mass beyond L");
    ASSERT_NE(table, nullptr);
    ImGui::SetScrollY(table, 0.0f);
    for (int i = 0; i < 6; ++i) frame();
    EXPECT_EQ(table->Scroll.y, 0.0f);
    // "Back to the step" shows the step again: its rows come back into view.
    m_explorer->lessonBackToStep();
    settle();
    for (int i = 0; i < 4; ++i) frame();
    EXPECT_TRUE(inView(rows));
    // Step 4 again (Previous): heads 0 to 3 in view.
    ASSERT_TRUE(m_explorer->lessonPrevious());
    settle();
    for (int i = 0; i < 4; ++i) frame();
    EXPECT_EQ(rows.rows.size(), 4u);
    EXPECT_TRUE(inView(rows));
}

// Lesson 1, step 6 ("Attention against distance for the last query"): the attention plot, the
// last of the curves view's three (they scroll under a lesson strip on a projector), in view.
TEST_P(LessonViews, TheCurvesShowThePlotAStepCites) {
    ASSERT_TRUE(m_explorer->openLesson("alibi-in-five-steps"));
    goToStep(6);
    ASSERT_EQ(state().view, View::Curves);
    EXPECT_TRUE(inView(state().curvesAttentionShown)) << "step 6: the attention plot";
}

// Lesson 5: every step's picture in view when the step is shown.
TEST_P(LessonViews, LessonFiveShowsWhatEachStepCites) {
    ASSERT_TRUE(m_explorer->openLesson("reading-a-real-model"));
    goToMapsStep(1);
    ASSERT_EQ(state().view, View::Maps);
    EXPECT_TRUE(inView(state().maps.gridShown)) << "step 1: the layer grid";

    goToMapsStep(2);  // the fit table, fitted without a click, layer 0's heads 0 to 3 marked
    ASSERT_EQ(state().view, View::Fit);
    ASSERT_NE(m_explorer->model().maps.fit, nullptr) << "step 2 cites the fit table's rows";
    EXPECT_EQ(state().maps.lessonRows.rows.size(), 4u);
    EXPECT_TRUE(inView(state().maps.lessonRows)) << "step 2: the rows of heads 0 to 3";
    EXPECT_FALSE(m_explorer->model().maps.configured.empty()) << "step 2 quotes the configured slopes";

    goToMapsStep(3);  // layer 1, head 4, cell [63, 0] framed: the whole picture in view
    ASSERT_EQ(state().maps.side, MapsSide::Head);
    EXPECT_TRUE(inView(state().maps.headShown)) << "step 3: the head picture";
    EXPECT_TRUE(state().maps.lessonMark.marksCell(4, 63, 0));

    goToMapsStep(4);  // the row plot of query 40
    ASSERT_EQ(state().maps.side, MapsSide::Row);
    EXPECT_TRUE(inView(state().maps.plotShown)) << "step 4: the row plot";

    goToMapsStep(5);  // attention against distance, with the fitted and the configured curves
    ASSERT_EQ(state().maps.side, MapsSide::Distance);
    EXPECT_TRUE(inView(state().maps.plotShown)) << "step 5: the distance plot";

    goToMapsStep(6);
    ASSERT_EQ(state().maps.side, MapsSide::Similarity);
    EXPECT_TRUE(inView(state().maps.similarityShown)) << "step 6: the similarity matrix";
    EXPECT_EQ(state().maps.similarityOrder, 2) << "step 6 orders the heads by how alike they are";
}

// The head picture of the attention maps draws square cells, letterboxed in its room.
TEST_P(LessonViews, TheHeadPictureHasSquareCells) {
    ASSERT_TRUE(m_explorer->openLesson("reading-a-real-model"));
    goToMapsStep(3);
    ASSERT_EQ(state().maps.side, MapsSide::Head);
    const auto& file = m_explorer->model().maps.file;
    ASSERT_TRUE(file && file->maps);
    const MapsRect& r = state().maps.headRect;
    ASSERT_GT(r.width, 0.0f);
    const double cellWidth = r.width / static_cast<double>(file->maps->keys());
    const double cellHeight = r.height / static_cast<double>(file->maps->queries());
    EXPECT_NEAR(cellWidth, cellHeight, 1.0 / static_cast<double>(file->maps->queries()) + 1e-9)
        << r.width << " x " << r.height << " px for " << file->maps->queries() << " x " << file->maps->keys();
    EXPECT_GE(cellWidth, 2.0);  // a picture, not a sliver
}

// The layer grid of the attention maps (and the every-layer overview) draws square cells (the
// s35 review: 2.08 x 1.69 px), its tiles as large as the room allows: not smaller than with the
// columns the core's placement picks for the whole room.
TEST_P(LessonViews, TheLayerGridHasSquareCells) {
    ASSERT_TRUE(m_explorer->openLesson("reading-a-real-model"));
    const auto& file = m_explorer->model().maps.file;
    const auto expectSquare = [&](const Heatmap& map, const std::string& what) {
        ASSERT_FALSE(map.tiles.empty()) << what;
        const double Q = static_cast<double>(file->maps->queries()), K = static_cast<double>(file->maps->keys());
        for (const HeatmapTile& t : map.tiles)
            EXPECT_NEAR(t.width / K, t.height / Q, 1.0 / std::min(Q, K) + 1e-9)
                << what << ": head " << t.head << " " << t.width << " x " << t.height << " px for " << Q << " x " << K;
    };
    for (int step : {1, 3}) {
        goToMapsStep(step);
        ASSERT_TRUE(file && file->maps);
        const MapsGridResult* grid = m_explorer->model().maps.grid.get();
        ASSERT_NE(grid, nullptr);
        ASSERT_FALSE(grid->request.overview);
        expectSquare(grid->picture(), "step " + std::to_string(step));
        // The core's own choice of columns for the room, with square cells: the tiles are no smaller.
        const MapsGridRequest& r = grid->request;
        const GridLayout layout = gridLayout(file->maps->heads(), r.width, r.height);
        const int band = std::clamp(r.labelBand, 0, std::max(0, r.height / (4 * layout.rows)));
        const TileSize reference = squareCellTile((r.width - 2 * (layout.columns - 1)) / layout.columns,
                                                  (r.height - 2 * (layout.rows - 1) - band * layout.rows) / layout.rows,
                                                  file->maps->queries(), file->maps->keys());
        EXPECT_GE(grid->picture().tiles.front().width, reference.width) << "step " << step;
    }
    state().maps.overview = true;
    settle();
    for (int i = 0; i < 4; ++i) frame();
    settle();
    const MapsGridResult* overview = m_explorer->model().maps.grid.get();
    ASSERT_NE(overview, nullptr);
    ASSERT_TRUE(overview->request.overview);
    ASSERT_EQ(overview->picture().tiles.size(), static_cast<std::size_t>(file->maps->layers() * file->maps->heads()));
    expectSquare(overview->picture(), "overview");
}

// Issue 27 item 2: at lesson 5 steps 3-5 the layer grid beside the side picture is short, and the
// core clamps the label band above its tiles below a text line: no tile had its "h3", so the
// framed head had no name. Every tile is named, and the label stays in its tile's column.
TEST_P(LessonViews, TheLayerGridNamesEveryTile) {
    ASSERT_TRUE(m_explorer->openLesson("reading-a-real-model"));
    for (int step : {3, 4, 5}) {
        goToMapsStep(step);
        if (state().view != View::Maps) continue;
        const MapsGridResult* grid = m_explorer->model().maps.grid.get();
        ASSERT_NE(grid, nullptr);
        if (grid->request.overview) continue;
        const auto& tiles = grid->picture().tiles;
        ASSERT_EQ(state().mapsLabels.size(), tiles.size()) << "step " << step;
        bool framed = false;
        for (const TileLabelPlace& place : state().mapsLabels) {
            EXPECT_GE(place.label.x, place.tile.x - 0.5f) << place.text;
            EXPECT_LE(place.label.x + place.label.width, place.tile.x + place.tile.width + 0.5f) << place.text;
            EXPECT_GE(place.label.y + place.label.height, place.tile.y - place.label.height - 2.0f) << place.text;
            EXPECT_LE(place.label.y, place.tile.y + place.tile.height) << place.text;
            if (place.text.rfind("h" + std::to_string(state().maps.head), 0) == 0) framed = true;
        }
        EXPECT_TRUE(framed) << "step " << step << ": the framed head h" << state().maps.head << " has no label";
    }
}

// The head detail's hover read-out breaks its lines between phrases only: at 1280x720 in
// presentation mode lesson 4 step 5's read-out of cell [3, 10] wrapped as
// "... position p_i = i + K - Q =" / "15" (the number on a line of its own).
TEST_P(LessonViews, TheDetailReadOutKeepsEachPhraseWhole) {
    ASSERT_TRUE(m_explorer->openLesson("same-model-different-code"));
    goToStep(5);
    ASSERT_EQ(state().view, View::Detail);
    const ScreenRect r = state().detailRect;
    ASSERT_GT(r.width, 0.0f);
    const auto& bias = state().session.attention.bias;
    ASSERT_EQ(bias.queries, 4);
    ASSERT_EQ(bias.keyCount(), 16);
    ImGui::GetIO().MousePos = ImVec2(r.x + r.width * 10.5f / 16.0f, r.y + r.height * 3.5f / 4.0f);
    frame();
    frame();
    bool found = false;
    for (const TextRun& run : textRuns(*ImGui::GetDrawData())) {
        if (run.text.find("p_i = i") != std::string::npos) {
            found = true;
            EXPECT_NE(run.text.find("position p_i = i + K - Q = 15"), std::string::npos) << run.text;
        }
        if (!run.text.empty()) {
            EXPECT_NE(run.text.back(), '=') << "a line ends at '=': " << run.text;
        }
    }
    EXPECT_TRUE(found) << "no read-out drawn";
}

// Lesson 3 steps 1, 3 and 4: the mass table shows whole rows below its header (the s37 review: a
// half row cut at the scroll edge). The rows' pitch is measured from the marked rows at step 4.
TEST_P(LessonViews, TheMassTableShowsWholeRows) {
    ASSERT_TRUE(m_explorer->openLesson("train-short-test-long"));
    goToStep(4);
    const MarkedRows& rows = state().extrapolationRows;
    ASSERT_GT(rows.rowPitch, 1.0f);
    const float pitch = rows.rowPitch;
    for (int step : {1, 3}) {
        while (m_explorer->lessons().state()->index() + 1 > step) ASSERT_TRUE(m_explorer->lessonPrevious());
        settle();
        for (int i = 0; i < 4; ++i) frame();
        ASSERT_EQ(state().view, View::Extrapolation);
        const float shown = (rows.visible.bottom - rows.visible.top) / pitch;
        EXPECT_GE(shown, 0.9f) << "step " << step;
        EXPECT_NEAR(shown, std::round(shown), 0.1f) << "step " << step << ": " << rows.visible.bottom - rows.visible.top
                                                    << " px of rows, " << pitch << " px apart";
    }
}

// Lesson 5 step 4 (query 40 of a causal 64 x 64 map): the row plot ends at the query, whose later
// keys are masked, so the peak at key 39 is at the plot's right as the step says (the s37 review:
// "keys 5 to 48", the peak at 80 % of the width; Qt and the figure end at 40).
TEST_P(LessonViews, TheRowPlotEndsAtTheQuery) {
    ASSERT_TRUE(m_explorer->openLesson("reading-a-real-model"));
    goToMapsStep(4);
    ASSERT_EQ(state().maps.side, MapsSide::Row);
    const auto& file = m_explorer->model().maps.file;
    ASSERT_TRUE(file && file->maps);
    ASSERT_TRUE(file->maps->causal());
    ASSERT_EQ(file->maps->queries(), file->maps->keys());
    EXPECT_EQ(state().maps.rowLastKey, 40) << "keys " << state().maps.rowFirstKey << " to " << state().maps.rowLastKey;
    EXPECT_LE(state().maps.rowFirstKey, 39);
}

// Lesson 5 step 5: the distance plot the step cites is at least kMinCitedPlotHeight tall (the s37
// review: 65 px at 1280x720 in presentation mode, ticks "0.1" and "0" only).
TEST_P(LessonViews, TheDistancePlotHasTheRoomACitedPlotNeeds) {
    ASSERT_TRUE(m_explorer->openLesson("reading-a-real-model"));
    goToMapsStep(5);
    ASSERT_EQ(state().maps.side, MapsSide::Distance);
    EXPECT_TRUE(inView(state().maps.plotShown));
    for (const LayoutProblem& p : checkTextLayout(*ImGui::GetDrawData()))
        EXPECT_NE(p.kind, LayoutProblem::Kind::SmallPlot) << p.describe();
    EXPECT_GE(state().maps.plotShown.rect.height, kMinCitedPlotHeight);
}

// Lesson 4 step 4: the head grid's square cells as large as the room allows (the s37 review: a
// 2x4 grid of 7.19 px cells in 470 of 1080 px, where one row of 8 tiles gave 8.25 px). The best
// cell is found here over every column count: tiles `gap` apart, a label band above each row.
TEST_P(LessonViews, TheHeadGridUsesTheRoom) {
    ASSERT_TRUE(m_explorer->openLesson("same-model-different-code"));
    goToStep(4);
    ASSERT_EQ(state().view, View::Grid);
    const GridResult* grid = m_explorer->model().grid.get();
    ASSERT_NE(grid, nullptr);
    ASSERT_EQ(grid->heatmap.tiles.size(), 8u);
    const double W = state().gridWidth, H = state().gridHeight, band = state().gridLabelBand;
    const double gap = grid->request.heatmap.gap;
    const double Q = static_cast<double>(state().session.attention.bias.queries);
    const double K = static_cast<double>(state().session.attention.bias.keyCount());
    double best = 0;
    for (int c = 1; c <= 8; ++c) {
        const int r = (8 + c - 1) / c;
        const double tileW = std::floor((W - gap * (c - 1)) / c),
                     tileH = std::floor((H - gap * (r - 1) - band * r) / r);
        best = std::max(best, std::min(tileW / K, tileH / Q));
    }
    const HeatmapTile& t = grid->heatmap.tiles.front();
    EXPECT_GE(t.width / K, best - 1.0 / K) << "tiles " << t.width << " x " << t.height << " px in a room " << W << " x "
                                           << H << "; " << grid->heatmap.columns << " columns";
    EXPECT_NEAR(t.width / K, t.height / Q, 1.0 / std::min(Q, K) + 1e-9);
}

// Lesson 1 step 2 cites query 12, key 4 of head 2 ("-1/8 x 8 = -1"). At 1920x1080 presentation
// the fitted 16 x 16 cells were ~27 px, "too small for their numbers", with 60 % of the width
// empty (issue 27 L7): the detail zooms to the cited cell so that its neighbours' numbers print
// at the interface's size, showing the whole cells around it (the core's cellsAround), and the
// step lays out without problems.
class CitedCellZoom : public LessonViews {};
TEST_P(CitedCellZoom, TheDetailPrintsTheNumbersAroundTheCitedCell) {
    ASSERT_TRUE(m_explorer->openLesson("alibi-in-five-steps"));
    goToStep(2);
    ASSERT_EQ(state().view, View::Detail);
    const LessonMark& mark = state().lessonMark;
    ASSERT_EQ(mark.cellHead, 2);
    ASSERT_EQ(mark.query, 12);
    ASSERT_EQ(mark.key, 4);
    const AppState::DetailCells& cells = state().detailCells;
    EXPECT_TRUE(cells.numbers) << "the detail prints no cell numbers";
    EXPECT_GE(mark.query, cells.firstQuery);
    EXPECT_LT(mark.query, cells.firstQuery + cells.queryCount)
        << "rows " << cells.firstQuery << " + " << cells.queryCount;
    EXPECT_GE(mark.key, cells.firstKey);
    EXPECT_LT(mark.key, cells.firstKey + cells.keyCount) << "keys " << cells.firstKey << " + " << cells.keyCount;
    // The window the core's rule gives for the cells drawn, and square cells.
    const ScreenRect r = state().detailRect;
    ASSERT_GT(cells.keyCount, 0);
    ASSERT_GT(cells.queryCount, 0);
    const double cellWidth = r.width / static_cast<double>(cells.keyCount);
    EXPECT_NEAR(cellWidth, r.height / static_cast<double>(cells.queryCount), 1.0);
    EXPECT_GE(cellWidth, ImGui::GetFontSize() + 3.0) << "cells smaller than a line of the interface's text";
    if (cells.zoomed) {
        EXPECT_EQ(cellsAround(cells.queries, mark.query, r.height + 0.5, cellWidth).first, cells.firstQuery);
        EXPECT_EQ(cellsAround(cells.keys, mark.key, r.width + 0.5, cellWidth).count, cells.keyCount);
    }
    for (const LayoutProblem& p : checkTextLayout(*ImGui::GetDrawData())) ADD_FAILURE() << p.describe();
    // Hovering the cited cell where it is drawn reads out that cell (the window's offset applied).
    ImGui::GetIO().MousePos =
        ImVec2(r.x + (static_cast<float>(mark.key - cells.firstKey) + 0.5f) * static_cast<float>(cellWidth),
               r.y + (static_cast<float>(mark.query - cells.firstQuery) + 0.5f) * static_cast<float>(cellWidth));
    frame();
    frame();
    std::string readout;
    for (const TextRun& run : textRuns(*ImGui::GetDrawData())) readout += run.text + "\n";
    EXPECT_NE(readout.find("8 = -1"), std::string::npos) << readout;
}

// Lesson 4 step 5 cites query 0, key 12 of a 4 x 16 head. At 1280x720 presentation with the
// Parameters panel the zoom showed rows 0-2 of 4 with about 140 px empty below (the s42 brief):
// every row shows where the room allows them with their numbers, and the read-out of the hovered
// cited cell is still wholly in the view. (At 1280x720 the core's cellForNumbers alone lets the
// four rows fit; at 1280x600 the zoom's smaller cells do.)
TEST_P(CitedCellZoom, TheZoomShowsEveryRowTheRoomAllows) {
    ASSERT_TRUE(m_explorer->openLesson("same-model-different-code"));
    goToStep(5);
    ASSERT_EQ(state().view, View::Detail);
    const LessonMark& mark = state().lessonMark;
    ASSERT_EQ(mark.query, 0);
    ASSERT_EQ(mark.key, 12);
    const ScreenRect r = state().detailRect;
    const AppState::DetailCells& cells = state().detailCells;
    ASSERT_EQ(cells.queries, 4);
    ASSERT_GT(cells.keyCount, 0);
    const float cell = r.width / static_cast<float>(cells.keyCount);
    ImGui::GetIO().MousePos = ImVec2(r.x + (static_cast<float>(mark.key - cells.firstKey) + 0.5f) * cell,
                                     r.y + (static_cast<float>(mark.query - cells.firstQuery) + 0.5f) * cell);
    frame();
    frame();
    EXPECT_TRUE(cells.numbers) << "the detail prints no cell numbers";
    EXPECT_EQ(cells.queryCount, 4) << "rows " << cells.firstQuery << " + " << cells.queryCount << " of 4 in " << r.width
                                   << " x " << r.height << " px";
    bool readout = false;
    for (const TextRun& run : textRuns(*ImGui::GetDrawData())) {
        if (run.text.find("bias = ") == std::string::npos) continue;
        readout = true;
        EXPECT_LE(run.max.y, run.clip.w + 0.5f) << "the read-out's last line is below the view: " << run.text;
    }
    EXPECT_TRUE(readout) << "no read-out of the hovered cited cell";
    for (const LayoutProblem& p : checkTextLayout(*ImGui::GetDrawData())) ADD_FAILURE() << p.describe();
}

// 1280x600 with the Parameters panel: the cells that print the numbers at the interface's size
// show 3 rows of 4; smaller ones (core numberSizeForCell, at 3/4 of that size) show all four.
INSTANTIATE_TEST_SUITE_P(Displays, CitedCellZoom,
                         ::testing::Values(Display{1920, 1080, true}, Display{1280, 720, true},
                                           Display{1920, 1080, true, true}, Display{1280, 720, true, true},
                                           Display{1280, 600, true, true}),
                         [](const auto& info) {
                             return std::to_string(info.param.width) + "x" + std::to_string(info.param.height) +
                                    (info.param.presentation ? "_presentation" : "") +
                                    (info.param.parameters ? "_parameters" : "");
                         });

// Lesson 5 step 5 (the distance plot, the file's line and the prior at m* dashed in turn), and
// step 4 with its "vs distance" tab (a plot cut at distance 33 of 64): every note the plot has
// is on screen, in the column under the legend or, where that has no room (1280x720 with the
// Parameters panel: the s40 re-check dropped "dashed in turn" and the distances' cut), in the
// tooltip of the (?) in the plot's corner.
class DistanceNotes : public LessonViews {
protected:
    // The whole text on screen, with the (?)'s tooltip opened where a (?) is drawn.
    std::string shownText() {
        std::string all;
        std::optional<ImVec2> mark;
        for (const TextRun& run : textRuns(*ImGui::GetDrawData())) {
            all += run.text + "\n";
            if (run.text == "(?)" || run.text.ends_with(" (?)"))
                mark = ImVec2(run.max.x - 4.0f, (run.min.y + run.max.y) / 2);
        }
        if (!mark) return all;
        ImGui::GetIO().MousePos = *mark;
        frame();
        frame();
        for (const TextRun& run : textRuns(*ImGui::GetDrawData())) all += run.text + "\n";
        return all;
    }
};
TEST_P(DistanceNotes, EveryNoteOfTheDistancePlotIsShown) {
    ASSERT_TRUE(m_explorer->openLesson("reading-a-real-model"));
    goToMapsStep(4);
    state().maps.side = MapsSide::Distance;
    settle();
    for (int i = 0; i < 4; ++i) frame();
    std::string text = shownText();
    EXPECT_NE(text.find("distances 0 to"), std::string::npos) << "step 4, vs distance:\n" << text;
    goToMapsStep(5);
    ASSERT_EQ(state().maps.side, MapsSide::Distance);
    text = shownText();
    EXPECT_NE(text.find("dashed in turn"), std::string::npos) << "step 5:\n" << text;
}
INSTANTIATE_TEST_SUITE_P(Displays, DistanceNotes,
                         ::testing::Values(Display{1280, 720, true}, Display{1280, 720, true, true},
                                           Display{1920, 1080, true}, Display{1920, 1080, true, true}),
                         [](const auto& info) {
                             return std::to_string(info.param.width) + "x" + std::to_string(info.param.height) +
                                    (info.param.presentation ? "_presentation" : "") +
                                    (info.param.parameters ? "_parameters" : "");
                         });

// Every step of the five lessons: the layout check (layout_check.hpp) finds nothing in the
// frame that shows it. With the Parameters panel open in presentation mode at 1280x720 the s39
// review found stage plots 25 px tall with their ticks on each other, the mass table's rows
// under its scroll bar, Compare's dtype combo and the Fit hint past the window's edge. Each step
// on the head detail prints the head's numbers.
class LessonLayout : public LessonViews {};
TEST_P(LessonLayout, EveryStepLaysOutWithoutProblems) {
    int count = 0;
    std::string problems, noNumbers;
    for (const char* lesson : {"alibi-in-five-steps", "slopes", "train-short-test-long", "same-model-different-code",
                               "reading-a-real-model"}) {
        ASSERT_TRUE(m_explorer->openLesson(lesson));
        const bool maps = std::string(lesson) == "reading-a-real-model";
        for (int step = 1;; ++step) {
            if (step > 1 && !m_explorer->lessonNext()) break;
            if (maps) {
                ASSERT_TRUE(framesUntil([&] { return m_explorer->model().maps.file && !state().maps.lessonTarget; }));
                ASSERT_TRUE(framesUntil([&] { return !m_explorer->model().maps.fitRunning; }));
            }
            settle();
            for (int i = 0; i < 4; ++i) frame();
            settle();
            for (const LayoutProblem& p : checkTextLayout(*ImGui::GetDrawData()))
                if (++count <= 30)
                    problems += std::string(lesson) + " step " + std::to_string(step) + ": " + p.describe() + "\n";
            // A step on the head detail of a head small enough for numbers prints them (the core's
            // numberSizeForCell / cellForNumbers rule, s42).
            const GridResult* detail = m_explorer->model().detail.get();
            if (state().view == View::Detail && detail != nullptr && !detail->values.empty() &&
                !state().detailCells.numbers)
                noNumbers += std::string(lesson) + " step " + std::to_string(step) + "\n";
        }
    }
    EXPECT_EQ(count, 0) << problems;
    EXPECT_TRUE(noNumbers.empty()) << "the head detail prints no numbers at:\n" << noNumbers;
}

INSTANTIATE_TEST_SUITE_P(Displays, LessonViews, ::testing::Values(Display{1280, 720, true}, Display{1920, 1080, false}),
                         [](const auto& info) {
                             return std::to_string(info.param.width) + "x" + std::to_string(info.param.height) +
                                    (info.param.presentation ? "_presentation" : "") +
                                    (info.param.parameters ? "_parameters" : "");
                         });
// The layout walk also with the Parameters panel open (the other tests' pictures at that size are
// the attention maps view's room, laid out by panel_maps).
INSTANTIATE_TEST_SUITE_P(Displays, LessonLayout,
                         ::testing::Values(Display{1280, 720, true}, Display{1920, 1080, false},
                                           Display{1280, 720, true, true}, Display{1920, 1080, true},
                                           Display{1920, 1080, true, true}),
                         [](const auto& info) {
                             return std::to_string(info.param.width) + "x" + std::to_string(info.param.height) +
                                    (info.param.presentation ? "_presentation" : "") +
                                    (info.param.parameters ? "_parameters" : "");
                         });

}  // namespace
}  // namespace alibi::imgui
