// Logic tests of the ImGui explorer without any backend: a bare ImGui context (font atlas built,
// display size set), the Explorer drawing every panel, and mouse input fed through io.MousePos /
// io.MouseDown. They check that dragging a slider or typing into a field changes the AppState,
// that the requests the Explorer sends to the core follow, and that invalid input is refused with
// the previous valid state kept.
#include "explorer_fixture.hpp"

#include <alibi/io/session.hpp>
#include <alibi/io/tensor_io.hpp>

#include <gtest/gtest.h>
#include <imgui.h>
#include <imgui_internal.h>

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <thread>

namespace alibi::imgui {
namespace {

TEST_F(ExplorerLogic, StartsOnTheDefaultSession) {
    EXPECT_TRUE(state().session == defaultSession());
    EXPECT_GT(state().gridWidth, 100);  // the grid panel measured its room
    EXPECT_GT(state().gridHeight, 100);
    const auto grid = gridRequest(state());
    ASSERT_TRUE(grid.has_value());
    EXPECT_EQ(grid->heatmap.width, state().gridWidth);
    EXPECT_EQ(grid->heatmap.attention.bias.slopes.heads, 8);
}

TEST_F(ExplorerLogic, DraggingTheHeadsSliderChangesStateAndCoreRequests) {
    const auto slider = findItem("Parameters", "H (heads)", 0.3f);
    ASSERT_TRUE(slider.has_value()) << "the H slider was not found under the mouse";
    ImGuiWindow* window = ImGui::FindWindowByName("Parameters");

    // Far past the right end: the slider clamps to its maximum.
    drag(*slider, ImVec2(window->Pos.x + window->Size.x + 200.0f, slider->y));
    EXPECT_EQ(state().session.attention.bias.slopes.heads, kSliderMaxHeads);
    auto grid = gridRequest(state());
    ASSERT_TRUE(grid.has_value());
    EXPECT_EQ(grid->heatmap.attention.bias.slopes.heads, kSliderMaxHeads);
    EXPECT_EQ(curvesRequest(state()).attention.bias.slopes.heads, kSliderMaxHeads);
    EXPECT_EQ(detailsRequest(state()).session.attention.bias.slopes.heads, kSliderMaxHeads);

    // Back past the left end: H = 1.
    const auto again = findItem("Parameters", "H (heads)", 0.3f);
    ASSERT_TRUE(again.has_value());
    drag(*again, ImVec2(window->Pos.x - 200.0f, again->y));
    EXPECT_EQ(state().session.attention.bias.slopes.heads, 1);
    grid = gridRequest(state());
    ASSERT_TRUE(grid.has_value());
    EXPECT_EQ(grid->heatmap.attention.bias.slopes.heads, 1);

    // The model follows: once the workers finish, the grid and statistics describe one head.
    settle();
    ASSERT_NE(m_explorer->model().grid, nullptr);
    EXPECT_EQ(m_explorer->model().grid->request.heatmap.attention.bias.slopes.heads, 1);
    ASSERT_NE(m_explorer->model().stats, nullptr);
    EXPECT_EQ(m_explorer->model().stats->stats.heads.size(), 1u);
    ASSERT_EQ(m_explorer->model().slopes.size(), 1u);
    EXPECT_DOUBLE_EQ(m_explorer->model().slopes[0], 1.0 / 256.0);  // REFERENCES.md: H = 1 -> 1/256
}

TEST_F(ExplorerLogic, TypingAnInvalidMaskShowsAnErrorAndKeepsTheMask) {
    const auto field = findItem("Parameters", "mask", 0.3f);
    ASSERT_TRUE(field.has_value());
    ImGuiIO& io = ImGui::GetIO();
    io.MousePos = *field;
    io.MouseDown[0] = true;
    frame();
    io.MouseDown[0] = false;
    frame();
    io.AddInputCharactersUTF8("x");
    frame();
    frame();
    EXPECT_FALSE(state().maskError.empty());
    EXPECT_EQ(state().session.attention.bias.mask, defaultSession().attention.bias.mask);
}

TEST_F(ExplorerLogic, InvalidEditIsRefusedAndThePreviousSessionStays) {
    const Session before = state().session;
    state().session.attention.bias.slopes.scheme = SlopeScheme::Custom;
    state().session.attention.bias.slopes.custom = {0.5, -1.0};  // wrong count, negative slope
    frame();
    EXPECT_TRUE(state().session == before);
    EXPECT_FALSE(state().validationError.empty());

    state().session.attention.content.temperature = 0.0;  // must be > 0
    frame();
    EXPECT_TRUE(state().session == before);
}

TEST_F(ExplorerLogic, IdleFramesSubmitNothing) {
    settle();
    const auto grid = m_explorer->model().grid;
    const auto stats = m_explorer->model().stats;
    for (int i = 0; i < 20; ++i) frame();
    EXPECT_FALSE(m_explorer->busy());
    // Same result objects: nothing was recomputed for frames whose parameters did not change.
    EXPECT_EQ(m_explorer->model().grid, grid);
    EXPECT_EQ(m_explorer->model().stats, stats);
}

TEST_F(ExplorerLogic, HoveringTheGridReportsACellAndHighlightsItsHead) {
    settle();
    const ScreenRect rect = state().gridRect;
    ASSERT_GT(rect.width, 0);
    const auto& tiles = m_explorer->model().grid->heatmap.tiles;
    ASSERT_EQ(tiles.size(), 8u);
    // The centre of head 5's tile.
    const HeatmapTile& tile = tiles[5];
    ImGui::GetIO().MousePos = ImVec2(rect.x + static_cast<float>(tile.x + tile.width / 2),
                                     rect.y + static_cast<float>(tile.y + tile.height / 2));
    frame();
    ASSERT_TRUE(state().hoverCell.has_value());
    EXPECT_EQ(state().hoverCell->head, tile.head);
    frame();
    EXPECT_EQ(state().hoveredHead, tile.head);
}

TEST_F(ExplorerLogic, SessionFilesRoundTripAndABadFileKeepsTheState) {
    const std::filesystem::path dir =
        std::filesystem::temp_directory_path() / ("alibi-imgui-logic-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    state().sessionPath = (dir / "s.alibi.json").string();
    state().session.attention.bias.slopes.heads = 12;
    state().session.attention.bias.mode = BiasMode::Symmetric;
    frame();
    state().actions.saveSession = true;
    frame();
    ASSERT_TRUE(state().errorPopup.empty()) << state().errorPopup;
    ASSERT_TRUE(std::filesystem::exists(state().sessionPath));

    m_explorer->resetToDefaults();
    frame();
    // The defaults are unsaved changes: opening asks first, and Cancel keeps them.
    state().actions.openSession = true;
    frame();
    EXPECT_EQ(state().confirm, Confirm::OpenSession);
    ASSERT_TRUE(click("Unsaved changes", "Cancel", 0.3f));
    EXPECT_EQ(state().confirm, Confirm::None);
    EXPECT_EQ(state().session.attention.bias.slopes.heads, 8);
    state().actions.openSession = true;
    frame();
    ASSERT_TRUE(click("Unsaved changes", "Discard and open", 0.1f));
    // Read on a worker: the session comes once the read is done.
    ASSERT_TRUE(framesUntil([&] { return !m_explorer->sessionOpening(); }));
    EXPECT_EQ(state().session.attention.bias.slopes.heads, 12);
    EXPECT_EQ(state().session.attention.bias.mode, BiasMode::Symmetric);

    // A malformed file: the popup says why, and the session stays as it was.
    { std::ofstream(dir / "bad.alibi.json") << "{\"version\": 1, \"bias\": {\"heads\": \"many\"}}"; }
    state().sessionPath = (dir / "bad.alibi.json").string();
    state().actions.openSession = true;
    frame();
    ASSERT_TRUE(framesUntil([&] { return !m_explorer->sessionOpening(); }));
    EXPECT_FALSE(state().errorPopup.empty());
    EXPECT_EQ(state().session.attention.bias.slopes.heads, 12);
    std::filesystem::remove_all(dir);
}

TEST_F(ExplorerLogic, ExportWritesTheCurrentBiasTensor) {
    const std::filesystem::path dir =
        std::filesystem::temp_directory_path() / ("alibi-imgui-export-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    state().exportPath = (dir / "bias.npy").string();
    state().exportFormat = FileFormat::Npy;
    state().actions.exportTensor = true;
    frame();
    settle();
    EXPECT_TRUE(state().errorPopup.empty()) << state().errorPopup;
    ASSERT_TRUE(std::filesystem::exists(state().exportPath));
    // Default session: H = 8, T = 16, f32 -> 8 * 16 * 16 * 4 bytes after the .npy header.
    const auto size = std::filesystem::file_size(state().exportPath);
    EXPECT_EQ(size - npyHeader({8, 16, 16}, DType::F32).size(), 8u * 16u * 16u * 4u);
    std::filesystem::remove_all(dir);
}

// 112 heads of 16 x 16 in the head grid's room at 1280x720 presentation (1250 x 190 px under
// the statistics, a text line's band above each row): the grid uses the room. Before, the core's
// square-cell size with the bands gave a strip of 4 px tiles about 25 px wide (s38 review); now the
// picture without the bands is taken when its tiles are at least twice as wide.
TEST(GridRequest, ManyHeadsInAShortViewUseTheRoom) {
    AppState state;
    state.session.attention.bias.slopes.heads = 112;
    state.session.attention.bias.queries = 16;
    state.gridWidth = 1250;
    state.gridHeight = 190;
    state.gridLabelBand = 20;
    const auto grid = gridRequest(state);
    ASSERT_TRUE(grid.has_value());
    EXPECT_GT(grid->heatmap.width, 600) << grid->heatmap.width << " x " << grid->heatmap.height;
    EXPECT_LE(grid->heatmap.width, state.gridWidth);
    EXPECT_LE(grid->heatmap.height, state.gridHeight);
}

}  // namespace
}  // namespace alibi::imgui
