// Issue 29 in the ImGui explorer. Item 5: the Maps view's "two heads" mode over the example file:
// pick head A and head B (or A's prior), the figure arrives at the panel's size, hovering a cell
// of the B - A panel reads its query and key and A, B and B - A there (checked against the
// file's own f16 values renormalised here), each side's fit is the fit table's, and File > Export
// figure draws the same figure as `alibi render FILE --what heads`. Item 4: a 69-token file's head
// picture labels its key axis with every k-th token (the core's step, 2 or more) where it showed
// none before.
#include "explorer_fixture.hpp"
#include "figure_plan.hpp"

#include "../core/attention_maps_fixture.hpp"

#include <alibi/explore/head_compare.hpp>
#include <alibi/figure/figure_job.hpp>
#include <alibi/render/ticks.hpp>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace alibi::imgui {
namespace {

namespace fs = std::filesystem;

const std::string kExample = std::string(ALIBI_SOURCE_ASSETS) + "/attention/trained-like-4x8x64.safetensors";

class TwoHeadsView : public ExplorerLogic {
protected:
    void SetUp() override {
        ExplorerLogic::SetUp();
        m_dir = fs::temp_directory_path() / ("alibi-two-heads-" + std::to_string(::getpid()));
        fs::create_directories(m_dir);
    }
    void TearDown() override {
        ExplorerLogic::TearDown();
        std::error_code ignored;
        fs::remove_all(m_dir, ignored);
    }
    void open(const std::string& path) {
        state().view = View::Maps;
        frame();
        state().maps.path = path;
        state().maps.open = MapsOpenAsk{path, "", 0, 0, false};
        frame();
        settle();
    }
    const MapsModel& maps() { return m_explorer->model().maps; }
    fs::path m_dir;
};

// p of (layer, head, q, k) as the views read it: the stored row renormalised, in double.
double probability(const AttentionMaps& maps, int layer, int head, std::int64_t q, std::int64_t k) {
    std::vector<double> row(static_cast<std::size_t>(maps.keys()));
    EXPECT_TRUE(maps.storedRow(layer, head, q, row));
    double sum = 0;
    for (const double v : row) sum += v;
    return row[static_cast<std::size_t>(k)] / sum;
}

double numberAfter(const std::string& text, const std::string& key) {
    const auto at = text.find(key);
    return at == std::string::npos ? std::nan("") : std::stod(text.substr(at + key.size()));
}

TEST_F(TwoHeadsView, PickTwoHeadsAndReadTheHoveredCell) {
    open(kExample);
    ASSERT_NE(maps().file, nullptr);
    MapsState& s = state().maps;
    s.twoHeads = true;
    s.aLayer = 1;
    s.aHead = 2;
    s.bSource = 0;
    s.bLayer = 3;
    s.bHead = 5;
    frame();
    settle();
    frame();
    ASSERT_NE(maps().twoHeads, nullptr);
    ASSERT_TRUE(maps().twoHeads->error.empty()) << maps().twoHeads->error;
    const auto& r = *maps().twoHeads->compare;
    EXPECT_EQ(r.a.head, (explore::HeadRef{1, 2}));
    EXPECT_EQ(r.b.head, (explore::HeadRef{3, 5}));
    const AttentionMaps& m = *maps().file->maps;
    // Hover the B - A panel at cell (40, 10).
    const HeadComparePanel& panel = maps().twoHeads->figure.panels[2];
    ASSERT_GT(panel.width, 0);
    ImGui::GetIO().MousePos =
        ImVec2(s.twoX + static_cast<float>(panel.x) + (10.5f * static_cast<float>(panel.width)) / 64.0f,
               s.twoY + static_cast<float>(panel.y) + (40.5f * static_cast<float>(panel.height)) / 64.0f);
    frame();
    frame();
    ASSERT_TRUE(s.twoHeadsHover.has_value());
    EXPECT_EQ(s.twoHeadsHover->layer, 2);  // the panel
    const std::string& text = maps().twoHeadsReadout;
    EXPECT_NE(text.find("query i = 40 · key j = 10 · distance 30"), std::string::npos) << text;
    const double a = probability(m, 1, 2, 40, 10), b = probability(m, 3, 5, 40, 10);
    EXPECT_NEAR(numberAfter(text, "A (L1 h2) = "), a, 1e-5 * std::max(1.0, a)) << text;
    EXPECT_NEAR(numberAfter(text, "B (L3 h5) = "), b, 1e-5 * std::max(1.0, b)) << text;
    EXPECT_NEAR(numberAfter(text, "B - A = "), b - a, 1e-5) << text;

    // The fits are the fit table's once it is fitted: run the fit, the comparison follows.
    state().view = View::Fit;
    frame();
    s.runFit = true;
    frame();
    settle();
    state().view = View::Maps;
    frame();
    settle();
    frame();
    ASSERT_NE(maps().fit, nullptr);
    ASSERT_NE(maps().twoHeads->compare, nullptr);
    for (const HeadFit& f : maps().fit->fits) {
        if (f.layerIndex == 1 && f.head == 2) {
            EXPECT_EQ(maps().twoHeads->compare->a.fit.slope, f.slope);
        }
        if (f.layerIndex == 3 && f.head == 5) {
            EXPECT_EQ(maps().twoHeads->compare->b.fit.kl, f.kl);
        }
    }

    // B: A's fitted prior.
    s.bSource = 2;
    frame();
    settle();
    frame();
    ASSERT_TRUE(maps().twoHeads->compare->b.priorSlope.has_value());
    EXPECT_EQ(*maps().twoHeads->compare->b.priorSlope, maps().twoHeads->compare->a.fit.slope);
}

TEST_F(TwoHeadsView, ExportFigureIsTheClisFigure) {
    open(kExample);
    MapsState& s = state().maps;
    s.twoHeads = true;
    s.aLayer = 0;
    s.aHead = 1;
    s.bLayer = 2;
    s.bHead = 6;
    frame();
    settle();
    state().figure.width = 900;
    state().figure.height = 420;
    state().figure.format = FigureFormat::Png1x;
    const FigurePlan plan = planFigure(state(), state().session, m_explorer->model());
    ASSERT_TRUE(plan.task.has_value()) << plan.reason;
    EXPECT_EQ(plan.task->kind, FigureJobRequest::Kind::MapsHeads);
    const auto file = renderFigureJob(*plan.task);
    ASSERT_TRUE(file) << file.error().message;
    const std::string out = (m_dir / "cli.png").string();
    const std::string command = std::string("'") + ALIBI_CLI + "' render '" + kExample +
                                "' --what heads --head 0:1 --vs 2:6 --width 900 --height 420 -o '" + out +
                                "' 2>/dev/null";
    ASSERT_EQ(std::system(command.c_str()), 0) << command;
    std::ifstream in(out, std::ios::binary);
    std::stringstream bytes;
    bytes << in.rdbuf();
    EXPECT_EQ(file->bytes, bytes.str());
}

TEST_F(TwoHeadsView, HeadPictureLabelsEveryKthToken) {
    const std::int64_t t = 69;
    std::string list = "[";
    for (std::int64_t j = 0; j < t; ++j) list += (j ? "," : "") + std::string("\" tok") + std::to_string(j) + "\"";
    list += "]";
    const std::string bytes = alibi::test::safetensorsBytes(
        {"model.layers.0.attn"}, {2, t, t}, {alibi::test::causalMaps({0.5, 0.125}, t, 0.3, 7)}, {{"tokens", list}});
    const std::string path = (m_dir / "tokens69.safetensors").string();
    std::ofstream(path, std::ios::binary) << bytes;
    open(path);
    ASSERT_NE(maps().file, nullptr);
    ASSERT_NE(maps().file->maps, nullptr) << maps().file->error;
    state().maps.side = MapsSide::Head;
    frame();
    settle();
    frame();
    ASSERT_NE(maps().head, nullptr);
    const HeatmapTile& tile = maps().head->picture().tiles.at(0);
    const double cell = static_cast<double>(tile.width) / static_cast<double>(t);
    const double line = ImGui::GetTextLineHeight();
    ASSERT_LT(cell, line) << "the cells are a line apart: this case needs a smaller picture";
    EXPECT_GE(state().maps.headTokenStep, 2);
    EXPECT_EQ(state().maps.headTokenStep, tokenLabelStep(cell, line));
}

}  // namespace
}  // namespace alibi::imgui
