// Every view of the ImGui explorer driven through its panel: the grid's hover read-out is the
// explore layer's text, a click opens the head detail with every number (checked against the
// REFERENCES.md formula), stages, compare, extrapolation and diagnose deliver their results,
// presets apply, and the layout fits 1280x720 with the statistics table usable.
#include "explorer_fixture.hpp"
#include "layout_check.hpp"
#include "panels.hpp"
#include "presets.hpp"
#include "view_common.hpp"
#include "view_models.hpp"

#include <alibi/explore/diagnosis_report.hpp>
#include <alibi/explore/editing.hpp>
#include <alibi/explore/readout.hpp>
#include <alibi/io/tensor_io.hpp>
#include <alibi/model/batch.hpp>
#include <alibi/render/tile_labels.hpp>

#include <unistd.h>
#include <cfloat>
#include <cmath>
#include <filesystem>
#include <string_view>

namespace alibi::imgui {
namespace {

// Text as the draw data holds it, spaces left out (a wrapped line's runs join without them).
std::string withoutSpaces(std::string_view text) {
    std::string out;
    for (char c : text)
        if (c != ' ') out += c;
    return out;
}

// Every text run of the last frame, joined, spaces left out.
std::string shownWithoutSpaces() {
    std::string shown;
    for (const TextRun& run : textRuns(*ImGui::GetDrawData())) shown += withoutSpaces(run.text);
    return shown;
}

class Views : public ExplorerLogic {
protected:
    // The Compare view drawn once its result has arrived: the result it shows.
    const CompareResult* shownCompare() {
        state().view = View::Compare;
        frame();
        frame();
        settle();
        frame();
        return m_explorer->model().compare.get();
    }
};

// Saves `tensor` as a temporary .npy and diagnoses it in the Diagnose view, as a user who typed
// its path would; the file is gone afterwards.
void diagnoseInTheView(Views& test, const Tensor& tensor, const std::string& name) {
    const std::string path =
        (std::filesystem::temp_directory_path() / ("alibi-" + name + "-" + std::to_string(::getpid()) + ".npy"))
            .string();
    ExportOptions options;
    options.format = FileFormat::Npy;
    options.allowNonFinite = true;
    ASSERT_TRUE(exportTensor(*tensorSource(tensor), path, options));
    test.state().view = View::Diagnose;
    test.frame();
    test.frame();
    test.state().diagnosePath = path;
    test.state().diagnoseUseExample = false;
    ++test.state().diagnoseSerial;
    test.frame();
    test.settle();
    test.frame();
    std::filesystem::remove(path);
}

// Hovers the centre of `head`'s tile in the grid and returns the read-out text.
std::string hoverTile(Views& test, int head, double qFraction = 0.75, double kFraction = 0.25) {
    const ScreenRect rect = test.state().gridRect;
    const HeatmapTile& tile = test.m_explorer->model().grid->heatmap.tiles.at(static_cast<std::size_t>(head));
    ImGui::GetIO().MousePos = ImVec2(rect.x + static_cast<float>(tile.x + tile.width * kFraction),
                                     rect.y + static_cast<float>(tile.y + tile.height * qFraction));
    test.frame();
    test.frame();
    return test.state().hoverReadout;
}

TEST_F(Views, TheHoverReadOutIsTheCoresText) {
    settle();
    const std::string text = hoverTile(*this, 3);
    ASSERT_TRUE(state().hoverCell.has_value());
    const HoverCell cell = *state().hoverCell;
    const auto& grid = *m_explorer->model().grid;
    EXPECT_EQ(text, explore::cellReadout(grid.request.heatmap.attention, RenderWhat::Bias, grid.slopes, cell.head,
                                         cell.query, cell.key));
    EXPECT_NE(text.find("1/16"), std::string::npos) << text;  // head 3 of 8: m = 2^-4, written as in Qt
}

TEST_F(Views, ClickingAHeadOpensItsDetailWithEveryNumber) {
    settle();
    hoverTile(*this, 2);
    ImGuiIO& io = ImGui::GetIO();
    io.MouseDown[0] = true;
    frame();
    io.MouseDown[0] = false;
    io.MousePos = ImVec2(-1, -1);
    frame();
    EXPECT_EQ(state().view, View::Detail);
    EXPECT_EQ(state().session.head, 2);
    for (int i = 0; i < 4; ++i) frame();
    settle();
    const auto detail = m_explorer->model().detail;
    ASSERT_NE(detail, nullptr);
    EXPECT_EQ(detail->request.heatmap.head, 2);
    ASSERT_EQ(detail->values.size(), 16u * 16u);
    // REFERENCES.md: causal bias -(m (i - j)) for j <= i with m_2 = 2^-(8 * 3 / 8) = 1/8; masked above.
    const double m = 1.0 / 8.0;
    for (int i = 0; i < 16; ++i) {
        for (int j = 0; j < 16; ++j) {
            const double v = detail->values[static_cast<std::size_t>(i * 16 + j)];
            if (j > i) {
                EXPECT_TRUE(std::isnan(v)) << i << "," << j;
            } else {
                EXPECT_EQ(v, -(m * (i - j))) << i << "," << j;
            }
        }
    }
}

TEST_F(Views, EveryViewIsReachableByKeyAndDeliversItsResult) {
    for (std::size_t v = 0; v < kAllViews.size(); ++v) {
        press(keys::kDigit0 + 1 + static_cast<int>(v), true);
        frame();
        frame();
        EXPECT_EQ(state().view, kAllViews[v]);
        EXPECT_EQ(state().tabShown, kAllViews[v]);
    }
    state().session.attention.bias.slopes.heads = 12;  // press and geometric differ for H = 12
    state().view = View::Stages;
    frame();
    frame();
    settle();
    ASSERT_NE(m_explorer->model().stages, nullptr);
    const AttentionStages& stages = m_explorer->model().stages->stages;
    double sum = 0;
    for (double p : stages.probabilities) sum += p;
    EXPECT_NEAR(sum, 1.0, 1e-12);

    state().view = View::Compare;
    frame();
    frame();
    settle();
    ASSERT_NE(m_explorer->model().compare, nullptr);
    EXPECT_TRUE(m_explorer->model().compare->snapshot.error.empty()) << m_explorer->model().compare->snapshot.error;
    EXPECT_GT(m_explorer->model().compare->snapshot.maxAbsDifference, 0.0);

    state().view = View::Extrapolation;
    frame();
    frame();
    settle();
    ASSERT_NE(m_explorer->model().extrapolation, nullptr);
    const auto& e = m_explorer->model().extrapolation->snapshot;
    EXPECT_TRUE(e.error.empty()) << e.error;
    EXPECT_EQ(e.massBeyond.size(), 12u);
    EXPECT_FALSE(e.lengths.empty());
}

TEST_F(Views, DiagnoseFindsTheExampleBugAndOpensTheCorrectedParameters) {
    state().session.attention.bias.slopes.heads = 12;  // something the corrected parameters change
    settle();
    state().view = View::Diagnose;
    frame();
    frame();
    state().diagnoseExample = kSlopeOffByOne;
    state().diagnoseUseExample = true;
    ++state().diagnoseSerial;
    frame();
    settle();
    const auto result = m_explorer->model().diagnosis;
    ASSERT_NE(result, nullptr);
    ASSERT_TRUE(result->diagnosis.has_value()) << result->error;
    ASSERT_FALSE(result->diagnosis->findings.empty());
    EXPECT_EQ(result->diagnosis->findings.front().code, kSlopeOffByOne);
    // The map compares with correct ALiBi: head h is off by (i - j) 2^-(h+1), largest 15/2 at
    // head 0, row 15, key 0 (it was all black against the matching buggy reproduction).
    EXPECT_EQ(result->errorMax, 7.5);
    EXPECT_GT(result->errorMap.image.width, 0);
    // The report is the core's words (explore::diagnosisReportText, as in Qt: its heading
    // "example: ... · shape (...) · f32", ImGui's own read "...   shape (...)   f32").
    const explore::DiagnosisReportText words =
        explore::diagnosisReportText(*result->diagnosis, result->source, result->shape, result->dtype);
    frame();
    const std::string shown = shownWithoutSpaces();
    for (const std::string& line : {words.heading, words.match, words.maxError})
        EXPECT_NE(shown.find(withoutSpaces(line)), std::string::npos) << line;
    // Whole lines (issue 27 at 1280x720: the button, then the report's last line, were cut in
    // half by the scroll area's bottom): the report is a whole number of text lines tall and the
    // button sits under it, inside the view.
    const ScreenRect report = state().diagnoseReportRect;
    const float line = ImGui::GetTextLineHeight();
    EXPECT_GT(report.height, line);
    EXPECT_FLOAT_EQ(std::fmod(report.height, line), 0.0f) << report.height << " / " << line;
    const ScreenRect button = state().diagnoseButtonRect;
    EXPECT_GE(button.y, report.y + report.height);
    ImGuiWindow* views = ImGui::FindWindowByName("Views");
    ASSERT_NE(views, nullptr);
    EXPECT_LE(button.y + button.height, views->Pos.y + views->Size.y);
    // A click on the button where it was drawn (it sits in the view's tab, under the report).
    ImGuiIO& io = ImGui::GetIO();
    io.MousePos = ImVec2(button.x + button.width * 0.5f, button.y + button.height * 0.5f);
    frame();
    io.MouseDown[0] = true;
    frame();
    io.MouseDown[0] = false;
    frame();
    const SlopeParams& slopes = state().session.attention.bias.slopes;
    EXPECT_EQ(slopes.scheme, SlopeScheme::Press);
    EXPECT_EQ(slopes.heads, 8);
    EXPECT_EQ(state().session.attention.bias.queries, 16);
    EXPECT_EQ(state().view, View::Grid);
    // One undo step back to what was there.
    m_explorer->undo();
    frame();
    EXPECT_EQ(state().session.attention.bias.slopes.heads, 12);
}

// Compare and Diagnose write each tile's label in the band the core left above it (as the head
// grid and the figures), never over its cells; a batch's error map names batch row and head.
TEST_F(Views, CompareAndDiagnoseLabelTheirTilesAboveThem) {
    state().session.attention.bias.slopes.heads = 8;
    state().session.attention.bias.queries = 16;
    settle();
    state().view = View::Compare;
    frame();
    frame();
    settle();
    frame();
    std::vector<std::string> heads;
    for (int h = 0; h < 8; ++h) heads.push_back("h" + std::to_string(h));
    expectLabelsAbove(state().compareLabels, heads);

    // A batch of 2 rows of 8 heads: 16 tiles "b0 h0" .. "b1 h7".
    BatchParams batch;
    batch.lengths = {16, 16};
    auto tensor = buildBatchBias(state().session.attention.bias, batch);
    ASSERT_TRUE(tensor) << tensor.error().message;
    diagnoseInTheView(*this, *tensor, "batch");
    ASSERT_NE(m_explorer->model().diagnosis, nullptr);
    ASSERT_TRUE(m_explorer->model().diagnosis->error.empty()) << m_explorer->model().diagnosis->error;
    std::vector<std::string> rows;
    for (int b = 0; b < 2; ++b)
        for (int h = 0; h < 8; ++h) rows.push_back("b" + std::to_string(b) + " h" + std::to_string(h));
    expectLabelsAbove(state().diagnoseLabels, rows);
}

// The batch the Diagnose tests read: `alibi bias --heads 8 --seq 8 --lengths 8,5 --padding left
// --positions naive --mode bloom`.
Result<Tensor> leftPaddedBloomBatch(BiasParams bias) {
    bias.slopes.heads = 8;
    bias.queries = 8;
    bias.keys = 8;
    bias.mode = BiasMode::Bloom;
    BatchParams batch;
    batch.lengths = {8, 5};
    batch.padding = Padding::Left;
    batch.positions = PositionRule::Naive;
    return buildBatchBias(bias, batch);
}

// Issue 27 item 1: a batch's error map (alibi bias --heads 8 --seq 8 --lengths 8,5 --padding
// left --positions naive --mode bloom) draws square cells, as large as the room allows (its
// 8 x 8 tiles were about 96 x 114 px: the core stretched them to the panel's shape).
TEST_F(Views, DiagnoseDrawsABatchWithSquareCells) {
    auto tensor = leftPaddedBloomBatch(state().session.attention.bias);
    ASSERT_TRUE(tensor) << tensor.error().message;
    diagnoseInTheView(*this, *tensor, "square");
    const auto result = m_explorer->model().diagnosis;
    ASSERT_NE(result, nullptr);
    ASSERT_TRUE(result->error.empty()) << result->error;
    const auto& tiles = result->errorMap.tiles;
    ASSERT_EQ(tiles.size(), 16u);
    for (const HeatmapTile& tile : tiles) {
        EXPECT_NEAR(tile.width / 8.0, tile.height / 8.0, 1.0 / 8.0) << tile.width << " x " << tile.height;
        // Inside the picture the panel shows (the core crops it to the tiles).
        EXPECT_LE(tile.x + tile.width, result->errorMap.image.width);
        EXPECT_LE(tile.y + tile.height, result->errorMap.image.height);
    }
    // As large as the room allows: the tiles fill the asked width or height within a cell and a gap.
    const int cell = tiles[0].width / 8;
    EXPECT_GT(cell, 4);
    const bool fillsWidth = result->errorMap.image.width + tiles[0].width / 8 + 4 >= state().diagnoseWidth;
    const bool fillsHeight = result->errorMap.image.height + tiles[0].height / 8 + 4 >= state().diagnoseHeight;
    EXPECT_TRUE(fillsWidth || fillsHeight) << result->errorMap.image.width << " x " << result->errorMap.image.height
                                           << " in " << state().diagnoseWidth << " x " << state().diagnoseHeight;
    expectLabelsAbove(state().diagnoseLabels, [] {
        std::vector<std::string> rows;
        for (int b = 0; b < 2; ++b)
            for (int h = 0; h < 8; ++h) rows.push_back("b" + std::to_string(b) + " h" + std::to_string(h));
        return rows;
    }());
}

// Compare shows B's settings in full under its controls: the core's line (CompareSnapshot::settingsB),
// the one the Qt explorer shows ("B: geometric slopes · max_bias 8 · f32 · causal mode · mask ...").
TEST_F(Views, CompareShowsTheCoresSettingsLineForB) {
    const CompareResult* result = shownCompare();
    ASSERT_NE(result, nullptr);
    const std::string& line = result->snapshot.settingsB;
    ASSERT_TRUE(line.starts_with("B: geometric slopes")) << line;
    const std::string shown = shownWithoutSpaces();
    EXPECT_NE(shown.find(withoutSpaces(line)), std::string::npos) << shown;
}

// The batch's Diagnose map in presentation mode (the s37 look at it): the tile labels' letters are
// said ("b = batch row, h = head") and the masked swatch grows with the text ("masked" beside a
// 10 px square read as a dot at 1.6x).
TEST_F(Views, DiagnoseBatchSaysWhatItsLabelsMeanAndItsSwatchGrows) {
    ImGui::GetIO().FontGlobalScale = 1.6f;
    auto tensor = leftPaddedBloomBatch(state().session.attention.bias);
    ASSERT_TRUE(tensor) << tensor.error().message;
    diagnoseInTheView(*this, *tensor, "key");
    frame();
    const std::string shown = shownWithoutSpaces();
    EXPECT_NE(shown.find(withoutSpaces(kBatchTilesKey)), std::string::npos) << shown;
    // The masked swatch: the vertices drawn in the masked colour (the map itself is a texture).
    const Rgba m = kMaskedColor;
    const ImU32 masked = IM_COL32(m.r, m.g, m.b, 255);
    float top = FLT_MAX, bottom = -FLT_MAX;
    const ImDrawData& data = *ImGui::GetDrawData();
    for (int l = 0; l < data.CmdListsCount; ++l)
        for (const ImDrawVert& v : data.CmdLists[l]->VtxBuffer)
            if (v.col == masked) {
                top = std::min(top, v.pos.y);
                bottom = std::max(bottom, v.pos.y);
            }
    ASSERT_LT(top, bottom) << "no masked swatch drawn";
    EXPECT_GE(bottom - top, 0.6f * ImGui::GetTextLineHeight());
    ImGui::GetIO().FontGlobalScale = 1.0f;
}

// The Model run view's text is shown wrapped (ImGui 1.86's multi-line field does not wrap); a
// click on it opens the field with the keyboard in it, typing edits the text, and a click
// elsewhere shows it wrapped again.
TEST_F(Views, TheModelTextShowsWrappedAndAClickEditsIt) {
    state().view = View::Model;
    frame();
    frame();
    const ImGuiWindow* shown = nullptr;
    for (const ImGuiWindow* w : ImGui::GetCurrentContext()->Windows)
        if (std::string_view(w->Name).find("##live-text-shown") != std::string_view::npos && w->Active) shown = w;
    ASSERT_NE(shown, nullptr);
    EXPECT_FALSE(state().live.editingText);
    ImGuiIO& io = ImGui::GetIO();
    io.MousePos = ImVec2(shown->Pos.x + shown->Size.x * 0.5f, shown->Pos.y + shown->Size.y * 0.5f);
    io.MouseDown[0] = true;
    frame();
    io.MouseDown[0] = false;
    frame();
    frame();
    EXPECT_TRUE(state().live.editingText);
    const std::string before = state().live.textDraft;
    type("Q");
    EXPECT_EQ(state().live.textDraft.size(), before.size() + 1);
    EXPECT_NE(state().live.textDraft.find('Q'), std::string::npos);
    // A click outside the field (on the view's empty lower part) ends the edit.
    io.MousePos = ImVec2(shown->Pos.x + shown->Size.x * 0.5f, io.DisplaySize.y - 20.0f);
    io.MouseDown[0] = true;
    frame();
    io.MouseDown[0] = false;
    frame();
    EXPECT_FALSE(state().live.editingText);
}

TEST_F(Views, PresetsComeFromTheAssetsAndApplyTheirSettings) {
    const auto& presets = m_explorer->model().presets;
    ASSERT_GE(presets.size(), 5u);
    const auto bloom = std::find_if(presets.begin(), presets.end(),
                                    [](const Preset& p) { return p.name.find("BLOOM") != std::string::npos; });
    ASSERT_NE(bloom, presets.end());
    const Session applied = withPreset(state().session, *bloom);
    EXPECT_EQ(applied.attention.bias.slopes.heads, bloom->heads);
    EXPECT_EQ(applied.attention.bias.slopes.arith, Arith::HfBloom);  // the preset's arithmetic comes along
    EXPECT_TRUE(presetMatches(applied, *bloom));
    EXPECT_FALSE(presetMatches(defaultSession(), *bloom));
    auto bad = parsePreset(R"({"name": "x", "source": "y", "heads": 0})", "bad.json");
    ASSERT_FALSE(bad.has_value());
    EXPECT_NE(bad.error().message.find("bad.json"), std::string::npos);
}

TEST_F(Views, AChangeMarksTheGridStaleAtOnce) {
    settle();
    state().session.attention.bias.slopes.heads = 5;
    frame();
    // Submitted in the same frame: the next frame draws the old grid dimmed, "updating...", and
    // the curves too (panel_curves draws the same stale mark while curvesPending).
    EXPECT_TRUE(m_explorer->model().gridPending);
    EXPECT_TRUE(m_explorer->model().curvesPending);
    settle();
    EXPECT_FALSE(m_explorer->model().gridPending);
    EXPECT_FALSE(m_explorer->model().curvesPending);
    EXPECT_EQ(m_explorer->model().grid->request.heatmap.attention.bias.slopes.heads, 5);
}

TEST_F(Views, TheLayoutFits1280x720) {
    ImGui::GetIO().DisplaySize = ImVec2(1280, 720);
    for (int i = 0; i < 4; ++i) frame();
    for (const char* name : {"Parameters", "Views", "Per-head statistics", "Session and export"}) {
        ImGuiWindow* w = ImGui::FindWindowByName(name);
        ASSERT_NE(w, nullptr) << name;
        EXPECT_LE(w->Pos.x + w->Size.x, 1280.0f + 0.5f) << name;
        EXPECT_LE(w->Pos.y + w->Size.y, 720.0f + 0.5f) << name;
        EXPECT_GT(w->Size.x, 250.0f) << name;
    }
    // The grid keeps a usable size, and the statistics table scrolls sideways rather than cutting.
    EXPECT_GT(state().gridWidth, 400);
    EXPECT_GT(state().gridHeight, 200);
}

// The details are the core's (explore::computeDetails, as in Qt): a costly head image (Gaussian
// rows over 2^19 keys) sends a first picture from fewer exact rows, labelled as such, without
// statistics or stages yet; then the exact image, the statistics over the core's budget of rows
// and the stages, the progress at the whole.
TEST(DetailsModel, ACostlyHeadSendsAPreviewThenTheCoresDetails) {
    AppState state;
    state.session.what = RenderWhat::Attention;
    state.session.attention.bias.slopes.heads = 1;
    state.session.attention.bias.queries = 1 << 19;
    state.session.attention.content.kind = ContentKind::Gaussian;
    const explore::Request request = detailsRequest(state);
    EXPECT_FALSE(request.wantCurves);  // the curves worker's
    EXPECT_EQ(request.statsMaxRows, 0);
    const CancelFlag cancel;
    GridProgress progress;
    std::vector<std::shared_ptr<const DetailsResult>> previews;
    const auto result = computeDetailsResult(
        request, cancel, &progress, [&](std::shared_ptr<const DetailsResult> first) { previews.push_back(first); });
    ASSERT_NE(result, nullptr);
    ASSERT_EQ(previews.size(), 1u);
    const DetailsResult& first = *previews.front();
    EXPECT_TRUE(first.preview());
    ASSERT_NE(first.detail, nullptr);
    EXPECT_GT(first.detail->heatmap.rowStep, 1);
    EXPECT_NE(first.detail->title.find("preview from 1 exact row in"), std::string::npos) << first.detail->title;
    EXPECT_EQ(first.stats, nullptr);
    EXPECT_EQ(first.stages, nullptr);
    EXPECT_FALSE(result->preview());
    ASSERT_NE(result->detail, nullptr);
    EXPECT_EQ(result->detail->heatmap.rowStep, 1);
    EXPECT_EQ(result->detail->title.find("preview"), std::string::npos);
    ASSERT_NE(result->stats, nullptr);
    EXPECT_TRUE(result->stats->error.empty()) << result->stats->error;
    EXPECT_EQ(result->stats->stats.rowsAveraged, 16);  // the core's budget: 2^23 / (H K)
    ASSERT_NE(result->stages, nullptr);
    EXPECT_TRUE(result->stages->error.empty()) << result->stages->error;
    EXPECT_EQ(result->stages->request.query, (1 << 19) - 1);
    double sum = 0;
    for (double p : result->stages->stages.probabilities) sum += p;
    EXPECT_NEAR(sum, 1.0, 1e-9);
    EXPECT_GT(progress.total.load(), 0u);
    EXPECT_EQ(progress.done.load(), progress.total.load());
}

// The "preview, refining..." mark sits at the bottom edge of the picture, inside it, clear of
// every tile's label band (issue 26: at the top it covered the middle tile's label).
TEST(DetailsModel, TheRefiningMarkMissesEveryTileLabel) {
    HeatmapParams p;
    p.attention.bias.slopes.heads = 8;
    p.attention.bias.queries = 64;
    p.width = 1200;
    p.height = 700;
    p.labelBand = 18;
    p.squareCells = true;
    auto map = renderHeatmap(p);
    ASSERT_TRUE(map) << map.error().message;
    ASSERT_EQ(map->tiles.size(), 8u);
    const ImVec2 min(10, 40), max(10 + 1200, 40 + 700);
    const MarkRect mark = staleMarkRect(min, max, ImVec2(320, 16), 8, /*refining=*/true);
    EXPECT_GE(mark.min.x, min.x);
    EXPECT_LE(mark.max.x, max.x);
    EXPECT_GE(mark.min.y, min.y);
    EXPECT_LE(mark.max.y, max.y);
    for (const HeatmapTile& t : map->tiles) {
        const float x0 = min.x + static_cast<float>(t.x), x1 = x0 + static_cast<float>(t.width);
        const float y1 = min.y + static_cast<float>(t.y), y0 = y1 - static_cast<float>(p.labelBand);
        const bool overlaps = mark.min.x < x1 && x0 < mark.max.x && mark.min.y < y1 && y0 < mark.max.y;
        EXPECT_FALSE(overlaps) << "head " << t.head;
    }
}

// A grid whose tiles are not all wide enough for the long form: every tile shows the same form
// (the core's chooseTileLabels), never "h0  [0, 0.5]" beside a bare "h1". Failed before
// drawTileLabels asked the core (it fell back tile by tile).
TEST_F(Views, TileLabelsTakeOneFormForEveryTile) {
    std::vector<HeatmapTile> tiles(2);
    std::vector<std::vector<std::string>> forms;
    for (int n = 0; n < 2; ++n) {
        tiles[n].head = n;
        tiles[n].x = 420 * n;
        tiles[n].y = 40;
        tiles[n].width = n == 0 ? 400 : 60;  // "h1  [0, 0.25]" does not fit 60 px
        tiles[n].height = 100;
        alibi::TileLabelParts parts;
        parts.head = n;
        parts.range = n == 0 ? "[0, 0.5]" : "[0, 0.25]";
        forms.push_back(alibi::tileLabelForms(parts));
    }
    ImGui::NewFrame();
    ImGui::SetNextWindowSize(ImVec2(600, 300));
    ImGui::Begin("tile labels");
    const std::vector<TileLabelPlace> placed = drawTileLabels(tiles, forms, ImGui::GetCursorScreenPos());
    ImGui::End();
    ImGui::Render();
    ASSERT_EQ(placed.size(), 2U);
    EXPECT_EQ(placed[0].text, "h0");
    EXPECT_EQ(placed[1].text, "h1");
}

// Compare with hf-bloom arithmetic and the default B (geometric slopes), which hf-bloom cannot
// compute: the view shows the core's error in the explorers' words (explore::guiMessage, as the
// parameters panel does), not the CLI's "--arith hf-bloom ... --scheme geometric". Failed before
// the views showed `error` as the core words it for the CLI.
TEST_F(Views, CompareShowsItsErrorInTheExplorersWords) {
    state().session.attention.bias.slopes.arith = Arith::HfBloom;
    const CompareResult* result = shownCompare();
    ASSERT_NE(result, nullptr);
    const std::string& error = result->snapshot.error;
    ASSERT_NE(error.find("--"), std::string::npos) << "the core's error names CLI flags: " << error;
    const std::string shown = shownWithoutSpaces();
    EXPECT_NE(shown.find(withoutSpaces(explore::guiMessage(error))), std::string::npos) << shown;
    EXPECT_EQ(shown.find("--arith"), std::string::npos) << shown;
    EXPECT_EQ(shown.find("--scheme"), std::string::npos) << shown;
}

// Compare without a lesson at H = 8 (B's geometric slopes equal press's): max |A - B| = 0, and the
// colour bar says so, the one tick "0" as the figure's bar; before, it read 1, 0.5, 0, -0.5, -1,
// a range no cell has beside the caption's "A and B are identical".
TEST_F(Views, CompareBarShowsTheRangeItsNumbersHave) {
    const CompareResult* result = shownCompare();
    ASSERT_NE(result, nullptr);
    ASSERT_EQ(result->snapshot.maxAbsDifference, 0.0) << result->snapshot.summary;
    const alibi::ColorBar& bar = state().compareBar;
    ASSERT_EQ(bar.ticks.size(), 1U);
    EXPECT_EQ(bar.ticks.front().label, "0");
    EXPECT_EQ(bar.title, "A − B");
}

// Extrapolation's "head N at T = L" map has its colour bar (the core's heatmapColorBar, as the Qt
// explorer shows it): its title and both ends are drawn beside the map. Before, the map had no
// scale at all (looked at: /tmp/rev/igv/6-extrapolation.png).
TEST_F(Views, ExtrapolationHeadMapHasItsColourBar) {
    state().view = View::Extrapolation;
    frame();
    frame();
    settle();
    frame();
    const ExtrapolationResult* result = m_explorer->model().extrapolation.get();
    ASSERT_NE(result, nullptr);
    ASSERT_TRUE(result->snapshot.error.empty()) << result->snapshot.error;
    const alibi::ColorBar want =
        alibi::heatmapColorBar(result->snapshot.headAtL, result->snapshot.headAtLParams, -1, 2);
    const alibi::ColorBar& bar = state().extrapolationBar;
    ASSERT_GE(bar.ticks.size(), 2U);
    EXPECT_EQ(bar.ticks.front().label, want.ticks.front().label);
    EXPECT_EQ(bar.ticks.back().label, want.ticks.back().label);
    const std::string shown = shownWithoutSpaces();
    EXPECT_NE(shown.find(withoutSpaces(bar.title)), std::string::npos) << shown;
    EXPECT_NE(shown.find(withoutSpaces(bar.ticks.back().label)), std::string::npos) << shown;
}

// The head grid's statistics table in whole rows (issue 27 at 1280x720: its last row was cut in half
// by the view's bottom): the header and a whole number of rows, at any window height.
TEST_F(Views, StatisticsTableShowsWholeRows) {
    state().view = View::Grid;
    for (float height : {1000.0f, 720.0f, 667.0f}) {
        ImGui::GetIO().DisplaySize = ImVec2(1280.0f, height);
        settle();
        frame();
        ImGuiWindow* window = ImGui::FindWindowByName("Per-head statistics");
        ASSERT_NE(window, nullptr);
        ImGuiTable* table = ImGui::TableFindByID(window->GetID("stats narrow"));
        if (table == nullptr || table->LastFrameActive != ImGui::GetFrameCount() - 1)
            table = ImGui::TableFindByID(window->GetID("stats"));
        ASSERT_NE(table, nullptr) << height;
        const float pitch = ImGui::GetTextLineHeight() + 2.0f * ImGui::GetStyle().CellPadding.y;
        const float scrollBar = (table->Flags & ImGuiTableFlags_ScrollX) != 0 ? ImGui::GetStyle().ScrollbarSize : 0.0f;
        const float rows = (table->OuterRect.GetHeight() - scrollBar) / pitch;
        EXPECT_FLOAT_EQ(rows, std::round(rows)) << height << ": " << table->OuterRect.GetHeight() << " / " << pitch;
    }
}

}  // namespace
}  // namespace alibi::imgui
