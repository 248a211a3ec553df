// Screenshot test of alibi-explorer-imgui (needs an X display; exits 77, "skipped", without one).
// It writes a session (H = 4, T = 8, causal, press, viridis, shared scale), runs the explorer with
// --screenshot, and checks the PNG: the window's size, not blank, and at the centre of chosen
// cells the colour the core's colormap gives the bias REFERENCES.md defines for that cell, with
// the scale computed here from the formula (lo = -m_0 (T - 1), hi = 0).
#include <alibi/figure/attention_maps_render.hpp>
#include <alibi/io/attention_maps.hpp>
#include <alibi/io/session.hpp>
#include <alibi/model/bias.hpp>
#include <alibi/render/png.hpp>
#include <alibi/render/render.hpp>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <unistd.h>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <utility>

namespace {

namespace fs = std::filesystem;

constexpr int kWidth = 1280;
constexpr int kHeight = 860;
constexpr int kHeads = 4;
constexpr std::int64_t kLength = 8;

struct Shot {
    alibi::Image image;
    nlohmann::json layout;
    alibi::Session session;
};

class ImguiScreenshot : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        s_dir = fs::temp_directory_path() / ("alibi-imgui-shot-" + std::to_string(::getpid()));
        fs::create_directories(s_dir);
        s_shot.session = alibi::defaultSession();
        s_shot.session.attention.bias.slopes.heads = kHeads;
        s_shot.session.attention.bias.queries = kLength;
        s_shot.session.colormap = alibi::Colormap::Viridis;
        s_shot.session.scale = alibi::ScaleMode::Shared;
        s_shot.session.what = alibi::RenderWhat::Bias;
        const std::string session = (s_dir / "shot.alibi.json").string();
        ASSERT_TRUE(alibi::saveSession(s_shot.session, session));
        const std::string png = (s_dir / "shot.png").string();
        const std::string layout = (s_dir / "layout.json").string();
        const std::string command = std::string("'") + ALIBI_EXPLORER_IMGUI + "' --session '" + session +
                                    "' --screenshot '" + png + "' --frames 30 --layout '" + layout + "' --width " +
                                    std::to_string(kWidth) + " --height " + std::to_string(kHeight);
        const int status = std::system(command.c_str());
        ASSERT_EQ(status, 0) << command;
        auto image = alibi::readPng(png);
        ASSERT_TRUE(image) << image.error().message;
        s_shot.image = std::move(*image);
        std::ifstream in(layout);
        s_shot.layout = nlohmann::json::parse(in);
    }
    static void TearDownTestSuite() {
        std::error_code ignored;
        fs::remove_all(s_dir, ignored);
    }

    static fs::path s_dir;
    static Shot s_shot;
};

fs::path ImguiScreenshot::s_dir;
Shot ImguiScreenshot::s_shot;

TEST_F(ImguiScreenshot, HasTheWindowSize) {
    EXPECT_EQ(s_shot.image.width, kWidth);
    EXPECT_EQ(s_shot.image.height, kHeight);
}

TEST_F(ImguiScreenshot, IsNotBlank) {
    std::set<std::uint32_t> colours;
    for (const alibi::Rgba& p : s_shot.image.pixels)
        colours.insert(static_cast<std::uint32_t>(p.r) << 16 | static_cast<std::uint32_t>(p.g) << 8 | p.b);
    EXPECT_GT(colours.size(), 50u);
}

TEST_F(ImguiScreenshot, GridCellsHaveTheCoreColourOfTheirBias) {
    ASSERT_TRUE(s_shot.layout.contains("grid"));
    const double gx = s_shot.layout["grid"]["x"], gy = s_shot.layout["grid"]["y"];
    const int gw = static_cast<int>(s_shot.layout["grid"]["width"].get<double>());
    const int gh = static_cast<int>(s_shot.layout["grid"]["height"].get<double>());
    ASSERT_GT(gw, 100);
    ASSERT_GT(gh, 100);

    // Press slopes for H = 4 (REFERENCES.md): 2^-2, 2^-4, 2^-6, 2^-8.
    const double slopes[kHeads] = {0.25, 0.0625, 0.015625, 0.00390625};
    // Shared scale over the allowed cells: from the steepest head's farthest key to the diagonal.
    const double lo = -slopes[0] * static_cast<double>(kLength - 1);
    const double hi = 0.0;

    // Tile placement is the renderer's; ask it for the same image size and read the tiles.
    alibi::HeatmapParams params;
    params.attention = s_shot.session.attention;
    params.colormap = alibi::Colormap::Viridis;
    params.scale = alibi::ScaleMode::Shared;
    params.width = gw;
    params.height = gh;
    params.labelBand = s_shot.layout["grid"].value("labelBand", 0);
    params.squareCells = s_shot.layout["grid"].value("squareCells", false);
    auto heatmap = alibi::renderHeatmap(params);
    ASSERT_TRUE(heatmap) << heatmap.error().message;
    ASSERT_EQ(heatmap->tiles.size(), static_cast<std::size_t>(kHeads));
    EXPECT_DOUBLE_EQ(heatmap->lo, lo);
    EXPECT_DOUBLE_EQ(heatmap->hi, hi);

    const std::int64_t cells[][2] = {{7, 0}, {7, 7}, {3, 1}, {5, 2}, {0, 5}, {2, 6}, {6, 3}};
    int checked = 0;
    for (const alibi::HeatmapTile& tile : heatmap->tiles) {
        for (const auto& cell : cells) {
            const std::int64_t q = cell[0], k = cell[1];
            const int px = tile.x + static_cast<int>((static_cast<double>(k) + 0.5) * tile.width / kLength);
            const int py = tile.y + static_cast<int>((static_cast<double>(q) + 0.5) * tile.height / kLength);
            // The pixel must belong to the cell we think it does.
            const auto hit = alibi::hitTest(*heatmap, params, px, py);
            ASSERT_TRUE(hit);
            ASSERT_EQ(hit->head, tile.head);
            ASSERT_EQ(hit->query, q);
            ASSERT_EQ(hit->key, k);

            const double m = slopes[tile.head];
            const alibi::Rgba expected =
                k <= q ? alibi::valueColor(alibi::Colormap::Viridis, -m * static_cast<double>(q - k), lo, hi)
                       : alibi::kMaskedColor;
            const int sx = static_cast<int>(std::lround(gx)) + px;
            const int sy = static_cast<int>(std::lround(gy)) + py;
            ASSERT_LT(sx, s_shot.image.width);
            ASSERT_LT(sy, s_shot.image.height);
            const alibi::Rgba got = s_shot.image.at(sx, sy);
            EXPECT_NEAR(got.r, expected.r, 2) << "head " << tile.head << " cell (" << q << ", " << k << ")";
            EXPECT_NEAR(got.g, expected.g, 2) << "head " << tile.head << " cell (" << q << ", " << k << ")";
            EXPECT_NEAR(got.b, expected.b, 2) << "head " << tile.head << " cell (" << q << ", " << k << ")";
            ++checked;
        }
    }
    EXPECT_EQ(checked, kHeads * 7);
}

// Every view at H = 12, T = 16 (bias) and at H = 133, T = 4096 (attention, qk content), saved
// under the build folder (ALIBI_IMGUI_SCREENSHOT_DIR) for a person to look at: each picture has
// the window's size and is not blank.
void shootEveryView(const std::string& name, const alibi::Session& session) {
    const fs::path dir = fs::path(ALIBI_IMGUI_SCREENSHOT_DIR) / name;
    fs::remove_all(dir);
    fs::create_directories(dir);
    const std::string file = (dir / "session.alibi.json").string();
    ASSERT_TRUE(alibi::saveSession(session, file));
    const std::string command = std::string("'") + ALIBI_EXPLORER_IMGUI + "' --session '" + file +
                                "' --screenshot-views '" + dir.string() + "' --frames 10 --width 1600 --height 1000";
    ASSERT_EQ(std::system(command.c_str()), 0) << command;
    int views = 0;
    for (const auto& entry : fs::directory_iterator(dir)) {
        if (entry.path().extension() != ".png") continue;
        ++views;
        auto image = alibi::readPng(entry.path().string());
        ASSERT_TRUE(image) << image.error().message;
        EXPECT_EQ(image->width, 1600);
        EXPECT_EQ(image->height, 1000);
        std::set<std::uint32_t> colours;
        for (const alibi::Rgba& p : image->pixels)
            colours.insert(static_cast<std::uint32_t>(p.r) << 16 | static_cast<std::uint32_t>(p.g) << 8 | p.b);
        EXPECT_GT(colours.size(), 50u) << entry.path();
    }
    // 7 session views, Position schemes, 5 of the attention maps (grid, sides, all layers), the fit, the model run
    EXPECT_EQ(views, 15);
}

TEST(ImguiScreenshotViews, EveryViewAtH12T16) {
    alibi::Session session = alibi::defaultSession();
    session.attention.bias.slopes.heads = 12;
    session.attention.bias.queries = 16;
    shootEveryView("h12-t16", session);
}

TEST(ImguiScreenshotViews, EveryViewAtH133T4096AttentionQk) {
    alibi::Session session = alibi::defaultSession();
    session.attention.bias.slopes.heads = 133;
    session.attention.bias.queries = 4096;
    session.attention.content.kind = alibi::ContentKind::Qk;
    session.what = alibi::RenderWhat::Attention;
    shootEveryView("h133-t4096-attention-qk", session);
}

// Issue 12: --attention opens the example maps in the Attention maps view; the picture on screen
// is the core's renderAttentionMaps at the size the panel reported, pixel for pixel (checked at
// the centre of every head's tile), so nothing is scaled between the core and the screen.
TEST(ImguiScreenshotAttention, TheMapsGridIsTheCoresPicture) {
    const fs::path dir = fs::temp_directory_path() / ("alibi-imgui-maps-shot-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const std::string maps = std::string(ALIBI_SOURCE_ASSETS) + "/attention/trained-like-4x8x64.npy";
    const std::string png = (dir / "maps.png").string(), layout = (dir / "layout.json").string();
    const std::string command = std::string("'") + ALIBI_EXPLORER_IMGUI + "' --attention '" + maps +
                                "' --screenshot '" + png + "' --frames 20 --layout '" + layout +
                                "' --width 1280 --height 860";
    ASSERT_EQ(std::system(command.c_str()), 0) << command;
    auto image = alibi::readPng(png);
    ASSERT_TRUE(image) << image.error().message;
    std::ifstream in(layout);
    const nlohmann::json doc = nlohmann::json::parse(in);
    ASSERT_TRUE(doc.contains("maps")) << doc.dump();
    const auto& m = doc["maps"];
    auto opened = alibi::AttentionMaps::open(maps);
    ASSERT_TRUE(opened) << opened.error().message;
    alibi::MapsHeatmapParams params;
    params.layerIndex = m["layer"].get<int>();
    params.width = m["width"].get<int>();
    params.height = m["height"].get<int>();
    params.labelBand = m.value("labelBand", 0);  // the band the tiles' labels sit in, above them
    auto core = alibi::renderAttentionMaps(*opened, params);
    ASSERT_TRUE(core) << core.error().message;
    ASSERT_EQ(core->tiles.size(), 8u);
    const int x0 = static_cast<int>(m["x"].get<double>()), y0 = static_cast<int>(m["y"].get<double>());
    int checked = 0;
    for (const alibi::HeatmapTile& tile : core->tiles) {
        // Points inside the tile: centre and lower right (its label is in the band above it).
        for (const auto& [fx, fy] : {std::pair{0.5, 0.5}, std::pair{0.75, 0.9}, std::pair{0.3, 0.7}}) {
            const int x = tile.x + static_cast<int>(tile.width * fx), y = tile.y + static_cast<int>(tile.height * fy);
            const alibi::Rgba want = core->image.at(x, y);
            const alibi::Rgba got = image->at(x0 + x, y0 + y);
            EXPECT_NEAR(got.r, want.r, 2) << "head " << tile.head << " at " << x << "," << y;
            EXPECT_NEAR(got.g, want.g, 2) << "head " << tile.head << " at " << x << "," << y;
            EXPECT_NEAR(got.b, want.b, 2) << "head " << tile.head << " at " << x << "," << y;
            ++checked;
        }
    }
    EXPECT_EQ(checked, 24);
    std::error_code ignored;
    fs::remove_all(dir, ignored);
}

}  // namespace

int main(int argc, char** argv) {
    ::testing::InitGoogleTest(&argc, argv);
    const char* display = std::getenv("DISPLAY");
    if (display == nullptr || *display == '\0') {
        std::printf("DISPLAY is not set: skipping the ImGui screenshot test (run under xvfb-run)\n");
        return 77;
    }
    return RUN_ALL_TESTS();
}
