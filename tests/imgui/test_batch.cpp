// Batches in the ImGui explorer, driven as a person would: the batch fields typed and committed,
// the batch row chosen, the grid showing that row with its masks (padding, future keys) and its
// fully masked rows striped, the hover read-out saying why a cell is masked, bad input named for
// the field, a shorter T keeping the batch valid; plus fully masked rows without a batch (K < Q).
#include "explorer_fixture.hpp"

#include <alibi/explore/readout.hpp>
#include <alibi/io/session.hpp>
#include <alibi/render/colormap.hpp>

namespace alibi::imgui {
namespace {

using Batch = ExplorerLogic;

// Scrolls the parameters panel with the mouse wheel until `label` can be hovered, then clicks it.
bool clickInPanel(ExplorerLogic& t, const char* label) {
    for (int attempt = 0; attempt < 12; ++attempt) {
        if (t.click("Parameters", label, 0.3f)) return true;
        ImGuiWindow* panel = ImGui::FindWindowByName("Parameters");
        if (panel == nullptr) return false;
        ImGuiIO& io = ImGui::GetIO();
        io.MousePos = ImVec2(panel->Pos.x + panel->Size.x * 0.5f, panel->Pos.y + panel->Size.y * 0.5f);
        io.MouseWheel = -3.0f;
        t.frame();
        io.MouseWheel = 0.0f;
        t.frame();
    }
    return false;
}

TEST_F(Batch, FieldsChooseTheRowAndTheGridShowsItsMasks) {
    ASSERT_TRUE(clickInPanel(*this, "lengths"));
    type("16, 9 4");
    EXPECT_TRUE(state().session.batch.lengths.empty());  // nothing applied while typing
    press(kKeyEnter);
    ASSERT_EQ(state().session.batch.lengths, (std::vector<std::int64_t>{16, 9, 4}));
    EXPECT_EQ(state().batchLengthsText, "16, 9, 4");
    state().session.batch.padding = Padding::Left;  // the combo, as its Selectable sets it
    frame();
    ASSERT_TRUE(click("Parameters", "batch row", 0.3f, true));  // Ctrl+click: type a number
    type("2");
    press(kKeyEnter);
    EXPECT_EQ(state().session.batchRow, 2);
    settle();
    const GridResult* grid = m_explorer->model().grid.get();
    ASSERT_NE(grid, nullptr);
    EXPECT_NE(grid->title.find("batch row 2 of 3: 4 real tokens, left padding"), std::string::npos) << grid->title;
    // Queries 0..11 of row 2 are padding under a causal mask: no key to attend to, striped.
    ASSERT_TRUE(grid->heatmap.fullyMaskedRows);
    const HeatmapTile& tile = grid->heatmap.tiles.front();
    const int x = tile.x + tile.width / 32, top = tile.y + tile.height / 32;
    EXPECT_EQ(grid->heatmap.image.at(x, top), fullyMaskedStripe(x, top));
    const int bottom = tile.y + tile.height - 1 - tile.height / 32;
    EXPECT_EQ(grid->heatmap.image.at(x, bottom), kMaskedColor);  // query 15, key 0: a padding key
    // Hovering that cell reads out why it is masked.
    const ScreenRect r = state().gridRect;
    const float sx = r.width / static_cast<float>(grid->heatmap.image.width);
    const float sy = r.height / static_cast<float>(grid->heatmap.image.height);
    ImGui::GetIO().MousePos =
        ImVec2(r.x + (static_cast<float>(x) + 0.5f) * sx, r.y + (static_cast<float>(bottom) + 0.5f) * sy);
    frame();
    frame();
    EXPECT_NE(state().hoverReadout.find("masked (padding key)"), std::string::npos) << state().hoverReadout;
    ImGui::GetIO().MousePos =
        ImVec2(r.x + (static_cast<float>(x) + 0.5f) * sx, r.y + (static_cast<float>(top) + 0.5f) * sy);
    frame();
    frame();
    EXPECT_NE(state().hoverReadout.find("fully masked row"), std::string::npos) << state().hoverReadout;

    // A bad list is named for the field and changes nothing.
    ASSERT_TRUE(clickInPanel(*this, "lengths"));
    press('A', true);
    type("16, x");
    press(kKeyEnter);
    EXPECT_NE(state().batchError.find("lengths: 'x' is not a whole number"), std::string::npos) << state().batchError;
    EXPECT_EQ(state().session.batch.lengths.size(), 3u);

    // A shorter T keeps the batch valid (lengths capped) and says so.
    ASSERT_TRUE(clickInPanel(*this, "T (queries)"));
    ASSERT_TRUE(click("Parameters", "T (queries)", 0.3f, true));
    type("8");
    press(kKeyEnter);
    EXPECT_EQ(state().session.attention.bias.queries, 8);
    EXPECT_EQ(state().session.batch.lengths, (std::vector<std::int64_t>{8, 8, 4}));
    EXPECT_NE(state().statusMessage.find("batch lengths capped at T = 8"), std::string::npos) << state().statusMessage;
}

TEST_F(Batch, AWindowAndDocumentsMaskKeysAndTheSessionKeepsTheRow) {
    Session s = defaultSession();
    s.batch.lengths = {16, 10};
    s.batch.documents = {4, 6};
    s.batch.window = 3;
    s.batchRow = 1;
    ASSERT_TRUE(m_explorer->openSession(s, "batch.alibi.json"));
    settle();
    const GridResult* grid = m_explorer->model().grid.get();
    ASSERT_NE(grid, nullptr);
    const HeatmapParams& p = grid->request.heatmap;
    EXPECT_EQ(p.batchRow, 1);
    EXPECT_NE(explore::heatmapReadout(p, grid->slopes, 0, 5, 1).find("masked (another document)"), std::string::npos);
    EXPECT_NE(explore::heatmapReadout(p, grid->slopes, 0, 9, 5).find("masked (outside the window)"), std::string::npos);
    // Right padding: padding queries see the real keys (HF's 4-D mask masks keys only), so the
    // last rows are not fully masked... but with documents a padding query matches no document.
    EXPECT_NE(explore::heatmapReadout(p, grid->slopes, 0, 12, 3).find("fully masked row"), std::string::npos);
    EXPECT_EQ(state().batchLengthsText, "16, 10");
    EXPECT_EQ(state().batchDocumentsText, "4, 6");
}

TEST_F(Batch, FullyMaskedRowsWithoutABatchAreStripedAndReadOut) {
    Session s = defaultSession();
    s.attention.bias.queries = 16;
    s.attention.bias.keys = 10;  // causal, K < Q: the first 6 queries sit before every key
    s.what = RenderWhat::Attention;
    ASSERT_TRUE(m_explorer->openSession(s, "kv.alibi.json"));
    settle();
    const GridResult* grid = m_explorer->model().grid.get();
    ASSERT_NE(grid, nullptr);
    ASSERT_TRUE(grid->heatmap.fullyMaskedRows);
    const HeatmapTile& tile = grid->heatmap.tiles.front();
    const int x = tile.x + tile.width / 2, y = tile.y + 1;
    EXPECT_EQ(grid->heatmap.image.at(x, y), fullyMaskedStripe(x, y));
    EXPECT_NE(explore::heatmapReadout(grid->request.heatmap, grid->slopes, 0, 2, 3).find("uniform, 1/10 per key"),
              std::string::npos);
}

}  // namespace
}  // namespace alibi::imgui
