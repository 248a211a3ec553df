// Issue 12 in the ImGui explorer: a trained model's saved attention maps (the example files under
// assets/attention) opened, drawn and fitted through the Explorer as a person drives it: the
// layer's heads as tiles, layer keys, the hover read-out against the file's bytes read here, the
// fit table sorted by a header click, its CSV and JSON exports against `alibi fit`, drops, the
// safetensors tensor picker and the values override, and hostile files (truncated, wrong rank,
// NaN) that give a message and keep the maps that were open.
#include "explorer_fixture.hpp"
#include "layout_check.hpp"
#include "zoom.hpp"

#include <alibi/explore/attention_maps_view.hpp>
#include <alibi/figure/attention_maps_render.hpp>
#include <alibi/render/format.hpp>

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <thread>
#include <tuple>
#include <vector>

namespace alibi::imgui {
namespace {

namespace fs = std::filesystem;

const std::string kExampleNpy = std::string(ALIBI_SOURCE_ASSETS) + "/attention/trained-like-4x8x64.npy";
const std::string kExampleSafetensors = std::string(ALIBI_SOURCE_ASSETS) + "/attention/trained-like-4x8x64.safetensors";

std::string readFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

// A .npy v1 file of little-endian f32 values with the given shape.
std::string npyBytes(const std::string& shape, const std::vector<float>& values) {
    std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': " + shape + ", }";
    while ((10 + header.size() + 1) % 64 != 0) header += ' ';
    header += '\n';
    std::string bytes = "\x93NUMPY\x01";
    bytes += '\0';
    bytes += static_cast<char>(header.size() & 0xff);
    bytes += static_cast<char>(header.size() >> 8);
    bytes += header;
    bytes.append(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float));
    return bytes;
}

// A safetensors file of `tensors` F32 (1, 2, 2) layer tensors (rows [1, 0] and [0.5, 0.5]) after a
// __metadata__ object of `keys` entries whose values are `valueBytes` long.
std::string metadataSafetensors(int tensors, int keys, std::size_t valueBytes) {
    std::string json = "{\"__metadata__\":{";
    for (int k = 0; k < keys; ++k)
        json += (k ? ",\"" : "\"") + std::to_string(k) + "\":\"" + std::string(valueBytes, 'm') + "\"";
    json += "}";
    for (int t = 0; t < tensors; ++t)
        json += ",\"layers." + std::to_string(t) + "\":{\"dtype\":\"F32\",\"shape\":[1,2,2],\"data_offsets\":[" +
                std::to_string(16 * t) + "," + std::to_string(16 * t + 16) + "]}";
    json += "}";
    while (json.size() % 8) json += ' ';
    std::string bytes(8, '\0');
    for (int b = 0; b < 8; ++b) bytes[static_cast<std::size_t>(b)] = static_cast<char>((json.size() >> (8 * b)) & 0xff);
    bytes += json;
    const float rows[4] = {1.0f, 0.0f, 0.5f, 0.5f};
    for (int t = 0; t < tensors; ++t) bytes.append(reinterpret_cast<const char*>(rows), sizeof rows);
    return bytes;
}

// The value at (layer, head, query, key) of the example .npy ('<f2', shape (4, 8, 64, 64)), read
// from its bytes and decoded from IEEE half precision here.
double exampleValue(int layer, int head, std::int64_t q, std::int64_t k) {
    const std::string bytes = readFile(kExampleNpy);
    EXPECT_NE(bytes.find("'descr': '<f2'"), std::string::npos);
    const auto headerLength =
        static_cast<std::size_t>(static_cast<unsigned char>(bytes[8]) | (static_cast<unsigned char>(bytes[9]) << 8));
    const std::size_t index =
        ((static_cast<std::size_t>(layer) * 8 + static_cast<std::size_t>(head)) * 64 + static_cast<std::size_t>(q)) *
            64 +
        static_cast<std::size_t>(k);
    const std::size_t at = 10 + headerLength + index * 2;
    const unsigned bits = static_cast<unsigned char>(bytes[at]) | (static_cast<unsigned char>(bytes[at + 1]) << 8);
    const int exponent = static_cast<int>((bits >> 10) & 0x1f);
    const double mantissa = static_cast<double>(bits & 0x3ff);
    const double magnitude = exponent == 0 ? std::ldexp(mantissa, -24) : std::ldexp(1024.0 + mantissa, exponent - 25);
    return (bits & 0x8000) != 0 ? -magnitude : magnitude;
}

class AttentionMapsView : public ExplorerLogic {
protected:
    void SetUp() override {
        ExplorerLogic::SetUp();
        m_dir = fs::temp_directory_path() / ("alibi-imgui-maps-" + std::to_string(::getpid()));
        fs::create_directories(m_dir);
        io().KeyMap[ImGuiKey_PageUp] = keys::kPageUp;
        io().KeyMap[ImGuiKey_PageDown] = keys::kPageDown;
        io().KeyMap[ImGuiKey_Home] = keys::kHome;
        io().KeyMap[ImGuiKey_End] = keys::kEnd;
    }
    void TearDown() override {
        ExplorerLogic::TearDown();
        std::error_code ignored;
        fs::remove_all(m_dir, ignored);
    }
    static ImGuiIO& io() { return ImGui::GetIO(); }

    // Opens `path` as a person would (the path field's Open), waits for every result.
    void open(const std::string& path) {
        state().view = View::Maps;
        frame();
        state().maps.path = path;
        state().maps.open = MapsOpenAsk{path, "", 0, 0, false};
        frame();
        settle();
    }
    const MapsModel& maps() { return m_explorer->model().maps; }
    // Opens `path` and shows every layer (the "all layers" check box), its picture drawn.
    void openOverview(const std::string& path) {
        open(path);
        ASSERT_NE(maps().file, nullptr);
        ASSERT_NE(maps().file->maps, nullptr) << maps().file->error;
        state().maps.overview = true;
        frame();
        settle();
        frame();
        frame();
        ASSERT_TRUE(maps().grid->error.empty()) << maps().grid->error;
    }
    std::string write(const std::string& name, const std::string& bytes) {
        const std::string path = (m_dir / name).string();
        std::ofstream(path, std::ios::binary) << bytes;
        return path;
    }
    void fitAll() {
        state().view = View::Fit;
        frame();
        state().maps.runFit = true;
        frame();
        settle();
        frame();
        ASSERT_NE(maps().fit, nullptr);
    }
    // Runs `alibi fit` with `arguments` into `out`; returns the file's bytes.
    std::string cli(const std::string& arguments, const std::string& out) {
        const std::string command =
            std::string("'") + ALIBI_CLI + "' fit '" + kExampleNpy + "' " + arguments + " -o '" + out + "' 2>/dev/null";
        EXPECT_EQ(std::system(command.c_str()), 0) << command;
        return readFile(out);
    }

    fs::path m_dir;
};

TEST_F(AttentionMapsView, OpensTheExampleWithATilePerHead) {
    open(kExampleNpy);
    ASSERT_NE(maps().file, nullptr);
    ASSERT_NE(maps().file->maps, nullptr) << maps().file->error;
    EXPECT_EQ(maps().file->maps->layers(), 4);
    EXPECT_EQ(maps().file->maps->heads(), 8);
    ASSERT_NE(maps().grid, nullptr);
    EXPECT_TRUE(maps().grid->error.empty()) << maps().grid->error;
    EXPECT_EQ(maps().grid->shown.map.tiles.size(), 8u);
    EXPECT_EQ(maps().grid->request.layer, 0);
    EXPECT_TRUE(state().errorPopup.empty()) << state().errorPopup;
    // The overview: every head of every layer, each layer's heads in order.
    state().maps.overview = true;
    frame();
    settle();
    ASSERT_TRUE(maps().grid->request.overview);
    const MapsOverview& overview = maps().grid->shown;
    ASSERT_EQ(overview.map.tiles.size(), 32u);
    ASSERT_EQ(overview.tileLayer.size(), 32u);
    for (std::size_t n = 0; n < 32; ++n) {
        EXPECT_EQ(overview.tileLayer[n], static_cast<int>(n / 8));
        EXPECT_EQ(overview.map.tiles[n].head, static_cast<int>(n % 8));
    }
}

// The grid writes each head's label in the band the core left above its tile (as the head grid,
// Compare and Diagnose do), never over its first rows; with per-head scales the label carries
// the tile's range where it fits. The cells under where the labels used to sit (the tile's
// top-left corner) are the core's picture.
TEST_F(AttentionMapsView, TheGridLabelsItsTilesAboveThem) {
    open(kExampleNpy);
    frame();
    ASSERT_NE(maps().grid, nullptr);
    ASSERT_TRUE(maps().grid->error.empty()) << maps().grid->error;
    EXPECT_GT(maps().grid->request.labelBand, 0);
    const auto& tiles = maps().grid->shown.map.tiles;
    ASSERT_EQ(tiles.size(), 8u);
    std::vector<std::string> heads;
    for (int h = 0; h < 8; ++h) heads.push_back("h" + std::to_string(h));
    expectLabelsAbove(state().mapsLabels, heads);
    // The band is free: every tile starts at least a text line below the picture's top.
    for (const HeatmapTile& t : tiles) EXPECT_GE(t.y, static_cast<int>(ImGui::GetTextLineHeight())) << t.head;

    state().maps.perHead = true;
    frame();
    settle();
    frame();
    ASSERT_EQ(state().mapsLabels.size(), 8u);
    for (std::size_t n = 0; n < 8; ++n) {
        const TileLabelPlace& l = state().mapsLabels[n];
        EXPECT_EQ(l.text.rfind("h" + std::to_string(n), 0), 0u) << l.text;
        EXPECT_LE(l.label.y + l.label.height, l.tile.y + 0.5f) << l.text;
        EXPECT_LE(l.label.x + l.label.width, l.tile.x + l.tile.width + 0.5f) << l.text;
    }
    // The overview (every layer): the core leaves the band above each row of tiles for their labels.
    state().maps.overview = true;
    frame();
    settle();
    frame();
    ASSERT_EQ(maps().grid->shown.map.tiles.size(), 32u);
    for (const HeatmapTile& t : maps().grid->shown.map.tiles)
        EXPECT_GE(t.y, static_cast<int>(ImGui::GetTextLineHeight())) << " h" << t.head;
}

TEST_F(AttentionMapsView, LayerKeysStepTheLayerAndTheGridFollows) {
    open(kExampleNpy);
    press(keys::kPageDown);
    settle();
    EXPECT_EQ(state().maps.layer, 1);
    EXPECT_EQ(maps().grid->request.layer, 1);
    press(keys::kEnd);
    settle();
    EXPECT_EQ(state().maps.layer, 3);
    EXPECT_EQ(maps().grid->request.layer, 3);
    press(keys::kPageDown);  // stays on the last layer
    EXPECT_EQ(state().maps.layer, 3);
    press(keys::kPageUp);
    EXPECT_EQ(state().maps.layer, 2);
    press(keys::kHome);
    EXPECT_EQ(state().maps.layer, 0);
}

TEST_F(AttentionMapsView, HoverReadsTheFilesExactValue) {
    open(kExampleNpy);
    press(keys::kPageDown);  // layer 1
    settle();
    const MapsGridResult& grid = *maps().grid;
    const HeatmapTile& tile = grid.shown.map.tiles.at(5);
    io().MousePos = ImVec2(state().maps.gridX + static_cast<float>(tile.x) + static_cast<float>(tile.width) * 0.3f,
                           state().maps.gridY + static_cast<float>(tile.y) + static_cast<float>(tile.height) * 0.8f);
    frame();
    frame();
    ASSERT_TRUE(state().maps.hover.has_value());
    const MapsCell cell = *state().maps.hover;
    EXPECT_EQ(cell.layer, 1);
    EXPECT_EQ(cell.head, 5);
    const double stored = exampleValue(cell.layer, cell.head, cell.query, cell.key);
    const std::string& text = maps().hoverReadout;
    // The f16 number itself, written exactly (shortest text that reads back as it in f16).
    EXPECT_NE(text.find("file value = " + alibi::formatExact(stored, DType::F16) + " (f16 probability)"),
              std::string::npos)
        << text << "\nexpected " << stored;
    EXPECT_NE(text.find("head 5 · query i = " + std::to_string(cell.query) + " · key j = " + std::to_string(cell.key)),
              std::string::npos)
        << text;
}

TEST_F(AttentionMapsView, TheTableSortsByAHeaderClick) {
    open(kExampleNpy);
    fitAll();
    ASSERT_EQ(maps().fit->fits.size(), 32u);
    const std::vector<HeadFit>& fits = maps().fit->fits;
    auto clickHeader = [&](explore::FitColumn column) {
        const auto c = static_cast<std::size_t>(column);
        ASSERT_LT(c, state().maps.headerRects.size());
        const MapsRect r = state().maps.headerRects[c];
        ASSERT_GT(r.width, 0.0f) << "header " << c << " not drawn";
        io().MousePos = ImVec2(r.x + r.width * 0.5f, r.y + r.height * 0.5f);
        frame();
        io().MouseDown[0] = true;
        frame();
        io().MouseDown[0] = false;
        frame();
        frame();
    };
    clickHeader(explore::FitColumn::Slope);
    ASSERT_EQ(state().maps.tableOrder.size(), 32u);
    for (std::size_t r = 1; r < 32; ++r)
        EXPECT_LE(fits[static_cast<std::size_t>(state().maps.tableOrder[r - 1])].slope,
                  fits[static_cast<std::size_t>(state().maps.tableOrder[r])].slope);
    clickHeader(explore::FitColumn::Slope);  // again: descending
    for (std::size_t r = 1; r < 32; ++r)
        EXPECT_GE(fits[static_cast<std::size_t>(state().maps.tableOrder[r - 1])].slope,
                  fits[static_cast<std::size_t>(state().maps.tableOrder[r])].slope);
    EXPECT_NE(state().maps.tableOrder.front(), 0);  // not the index order any more
}

TEST_F(AttentionMapsView, ExportsAreTheBytesAlibiFitWrites) {
    open(kExampleNpy);
    fitAll();
    const std::string csv = (m_dir / "gui.csv").string();
    state().maps.exportPath = csv;
    state().maps.exportCsv = true;
    frame();
    EXPECT_TRUE(state().errorPopup.empty()) << state().errorPopup;
    EXPECT_EQ(readFile(csv), cli("--format csv", (m_dir / "cli.csv").string()));

    // With a preset's slopes as the prior and a row range, as JSON.
    const auto& presets = m_explorer->model().presets;
    const auto preset =
        std::find_if(presets.begin(), presets.end(), [](const Preset& p) { return p.id == "alibi-paper-wikitext103"; });
    ASSERT_NE(preset, presets.end());
    state().maps.prior = MapsPrior::Preset;
    state().maps.presetIndex = static_cast<int>(preset - presets.begin());
    state().maps.fitAllRows = false;
    state().maps.fitFirst = 8;
    state().maps.fitLast = 40;
    fitAll();
    ASSERT_TRUE(maps().fit->fits.front().configuredSlope.has_value());
    const std::string json = (m_dir / "gui.json").string();
    state().maps.exportPath = json;
    state().maps.exportJson = true;
    frame();
    EXPECT_TRUE(state().errorPopup.empty()) << state().errorPopup;
    const std::string gui = readFile(json);
    EXPECT_NE(gui.find("configured_slope"), std::string::npos);
    EXPECT_EQ(gui, cli("--preset alibi-paper-wikitext103 --rows 8:40 --format json", (m_dir / "cli.json").string()));
}

// The Fit view's row fields read "Fit rows 0 to 63" for the example's 64 query rows, the last
// row included as the core's caption says ("... query rows 0 to 63"); the request underneath stays
// exclusive, its end the second field + 1 (issue 27; failed before: the field read 64).
TEST_F(AttentionMapsView, FitRowsFieldIsTheLastRowIncluded) {
    open(kExampleNpy);
    ASSERT_NE(maps().file->maps, nullptr);
    ASSERT_EQ(maps().file->maps->queries(), 64);
    state().view = View::Fit;
    state().maps.fitAllRows = false;
    // The fields as drawn: the runs of text of the frame, in the order drawn, without their spaces
    // (the test's default font is read back with a gap between most letters).
    const auto fields = [this] {
        frame();
        frame();
        std::string drawn;
        for (const TextRun& run : textRuns(*ImGui::GetDrawData())) {
            for (char c : run.text)
                if (c != ' ') drawn += c;
            drawn += '|';
        }
        return drawn;
    };
    const std::string shown = fields();
    EXPECT_NE(shown.find("Fitrows|"), std::string::npos) << shown;
    EXPECT_TRUE(shown.find("|0|") != std::string::npos && shown.find("|to|63|") != std::string::npos) << shown;
    EXPECT_EQ(fitLastRowIncluded(state().maps), 63);

    // Rows 8 to 39 in the fields: the request's rows are [8, 40), as `alibi fit --rows 8:40`.
    setFitRows(state().maps, 8, 39, 64);
    EXPECT_NE(fields().find("|to|39|"), std::string::npos);
    fitAll();
    EXPECT_EQ(maps().fit->request.first, 8);
    EXPECT_EQ(maps().fit->request.last, 40);
    // A last row below the first fits that one row; one past the file's last is its last.
    setFitRows(state().maps, 10, 3, 64);
    EXPECT_EQ(state().maps.fitFirst, 10);
    EXPECT_EQ(state().maps.fitLast, 11);
    setFitRows(state().maps, 0, 64, 64);
    EXPECT_EQ(state().maps.fitLast, 64);
}

TEST_F(AttentionMapsView, HostileFilesGiveAMessageAndKeepTheOpenMaps) {
    open(kExampleNpy);
    const auto opened = maps().file;
    ASSERT_NE(opened, nullptr);
    std::vector<float> row{0.5f, 0.5f, 0.25f, 0.75f};
    const std::string good = npyBytes("(1, 2, 2)", row);
    std::vector<float> nan = row;
    nan[2] = std::numeric_limits<float>::quiet_NaN();
    const std::vector<std::string> hostile{
        write("truncated.npy", good.substr(0, good.size() - 6)),
        write("rank2.npy", npyBytes("(2, 2)", row)),
        write("nan.npy", npyBytes("(1, 2, 2)", nan)),
        write("garbage.safetensors", std::string("\x10\x00\x00\x00\x00\x00\x00\x00{\"a\":", 13)),
        (m_dir / "missing.npy").string(),
    };
    for (const std::string& path : hostile) {
        open(path);
        EXPECT_FALSE(state().errorPopup.empty()) << path;
        EXPECT_LT(state().errorPopup.size(), 1200u) << state().errorPopup;
        EXPECT_EQ(maps().file, opened) << path << ": the previous maps must stay";
        EXPECT_NE(state().errorPopup.find("Still showing"), std::string::npos) << state().errorPopup;
        state().errorPopup.clear();
        frame();
        frame();
        // Still drawing the example.
        EXPECT_EQ(maps().grid->request.maps, opened->maps);
    }
}

TEST_F(AttentionMapsView, DropsOpenMapsOrADiagnosis) {
    state().droppedFiles = {kExampleNpy};
    frame();
    settle();
    ASSERT_NE(maps().file, nullptr);
    EXPECT_EQ(maps().file->ask.path, kExampleNpy);
    EXPECT_EQ(state().view, View::Maps);
    // On the Diagnose view, a tensor is a bias to check.
    state().view = View::Diagnose;
    frame();
    frame();
    state().droppedFiles = {kExampleSafetensors};
    frame();
    EXPECT_EQ(state().diagnosePath, kExampleSafetensors);
    EXPECT_EQ(maps().file->ask.path, kExampleNpy);
    settle();
}

// Issue 25, item 3: an open runs in the background with the core's progress (the header's bytes
// read and parsed, then the sampled rows) shown beside "opening ..." as the frames go on, and
// Cancel stops it with the maps open before kept. A legal file with a 48 MB header (four layer
// tensors after a million metadata entries) takes long enough to be watched.
TEST_F(AttentionMapsView, AnOpenShowsItsProgressAndCancelStopsIt) {
    const std::string big = write("big-header.safetensors", metadataSafetensors(4, 1'000'000, 30));
    open(kExampleNpy);
    ASSERT_NE(maps().file, nullptr);
    state().maps.open = MapsOpenAsk{big, "", 0, 0, false};
    frame();
    ASSERT_TRUE(maps().opening);
    ASSERT_NE(maps().openProgress, nullptr);
    // Frames go on while the file is read, and the fraction they show never goes back.
    float last = 0.0f;
    int framesWhileOpening = 0, framesWithProgress = 0;
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(300);  // a hang guard only
    while (maps().opening && std::chrono::steady_clock::now() < until) {
        const float f = maps().openProgress->fraction.load();
        EXPECT_GE(f, last);
        EXPECT_LE(f, 1.0f);
        last = f;
        if (f > 0.0f && !maps().openProgress->stageText().empty()) ++framesWithProgress;
        ++framesWhileOpening;
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
        frame();
    }
    ASSERT_FALSE(maps().opening);
    EXPECT_GT(framesWhileOpening, 1);
    EXPECT_GT(framesWithProgress, 0);
    settle();
    ASSERT_NE(maps().file, nullptr);
    EXPECT_EQ(maps().file->ask.path, big);
    ASSERT_NE(maps().file->maps, nullptr) << maps().file->error;
    EXPECT_EQ(maps().file->maps->layers(), 4);

    // Cancel while it reads: "cancelled", no message, and the maps open before stay.
    open(kExampleNpy);
    state().maps.open = MapsOpenAsk{big, "", 0, 0, false};
    frame();
    ASSERT_TRUE(maps().opening);
    state().maps.cancelOpen = true;
    frame();
    EXPECT_FALSE(maps().opening);
    EXPECT_NE(state().statusMessage.find("cancelled"), std::string::npos) << state().statusMessage;
    settle();
    EXPECT_TRUE(state().errorPopup.empty()) << state().errorPopup;
    EXPECT_EQ(maps().file->ask.path, kExampleNpy);
}

// Issue 25, as reported. (1) A few-MB safetensors file made the explorer abort (std::bad_alloc,
// exit 134): 2000 (1, 2, 2) tensors plus one 8 MiB metadata string, and 4000 tensors with 300k
// metadata keys, each open now. (2) A file truncated while open (np.save over it), then
// PageDown: the program died (SIGBUS); now the grid says "the file changed on disk; reopen it"
// and the session's parameters are still there.
TEST_F(AttentionMapsView, TheIssuesHostileFilesOpenAndATruncatedFileIsAMessage) {
    for (const auto& [name, tensors, keys, valueBytes] :
         {std::tuple{"meta-8mib.safetensors", 2000, 1, std::size_t{8} << 20},
          std::tuple{"meta-300k.safetensors", 4000, 300000, std::size_t{1}}}) {
        const std::string path = write(name, metadataSafetensors(tensors, keys, valueBytes));
        open(path);
        ASSERT_NE(maps().file, nullptr);
        EXPECT_EQ(maps().file->ask.path, path);
        ASSERT_NE(maps().file->maps, nullptr) << state().errorPopup;
        EXPECT_EQ(maps().file->maps->layers(), tensors);
    }

    // (4, 16, 128, 128) f32 causal probabilities (each row uniform over its keys).
    const int t = 128;
    std::vector<float> values(std::size_t{4} * 16 * t * t, 0.0f);
    for (std::size_t lh = 0; lh < 4 * 16; ++lh)
        for (int q = 0; q < t; ++q)
            for (int k = 0; k <= q; ++k)
                values[(lh * t + static_cast<std::size_t>(q)) * t + static_cast<std::size_t>(k)] =
                    1.0f / static_cast<float>(q + 1);
    const std::string path = write("t.npy", npyBytes("(4, 16, 128, 128)", values));
    open(path);
    ASSERT_NE(maps().file, nullptr);
    ASSERT_NE(maps().grid, nullptr);
    EXPECT_TRUE(maps().grid->error.empty()) << maps().grid->error;
    const Session before = state().session;
    ASSERT_EQ(::truncate(path.c_str(), 4096), 0);
    press(keys::kPageDown);
    settle();
    EXPECT_EQ(state().maps.layer, 1);
    ASSERT_NE(maps().grid, nullptr);
    EXPECT_EQ(maps().grid->request.layer, 1);
    EXPECT_NE(maps().grid->error.find("changed on disk"), std::string::npos) << maps().grid->error;
    EXPECT_NE(maps().grid->error.find("reopen it"), std::string::npos) << maps().grid->error;
    EXPECT_EQ(state().session, before);  // the window and its work are still here
}

TEST_F(AttentionMapsView, SafetensorsListsLayersAndTheValuesCanBeOverridden) {
    open(kExampleSafetensors);
    ASSERT_NE(maps().file, nullptr);
    ASSERT_NE(maps().file->maps, nullptr);
    const std::vector<std::string> tensors = maps().file->tensors;
    ASSERT_EQ(tensors.size(), 4u);
    std::vector<int> numbers;
    for (const AttentionLayerInfo& info : maps().file->maps->layerInfo()) numbers.push_back(info.number);
    EXPECT_TRUE(std::is_sorted(numbers.begin(), numbers.end()));
    // One tensor (the tensor picker's choice): one layer, the list kept.
    state().maps.open = MapsOpenAsk{kExampleSafetensors, tensors[2], 0, 0, false};
    frame();
    settle();
    EXPECT_EQ(maps().file->maps->layers(), 1);
    EXPECT_EQ(maps().file->maps->layerInfo().front().name, tensors[2]);
    EXPECT_EQ(maps().file->tensors, tensors);
    // The values override: read as scores (softmax) instead of the detected probabilities.
    EXPECT_EQ(maps().file->maps->values(), AttentionValues::Probabilities);
    state().maps.open = MapsOpenAsk{kExampleSafetensors, tensors[2], 0, 2, true};
    frame();
    settle();
    EXPECT_EQ(maps().file->maps->values(), AttentionValues::Scores);
    EXPECT_EQ(state().maps.valuesChoice, 2);
}

TEST_F(AttentionMapsView, TheBatchPickerReadsAnotherElement) {
    // (B, L, H, Q, K) = (2, 1, 1, 2, 2): row 1 is (0.25, 0.75) in element 0, (0.5, 0.5) in element 1.
    const std::string path =
        write("batched.npy", npyBytes("(2, 1, 1, 2, 2)", {1.0f, 0.0f, 0.25f, 0.75f, 1.0f, 0.0f, 0.5f, 0.5f}));
    open(path);
    ASSERT_NE(maps().file, nullptr);
    ASSERT_NE(maps().file->maps, nullptr) << state().errorPopup;
    EXPECT_EQ(maps().file->maps->batches(), 2);
    state().maps.open = MapsOpenAsk{path, "", 1, 0, true};  // the batch field's choice
    frame();
    settle();
    EXPECT_EQ(maps().file->maps->batch(), 1);
    EXPECT_EQ(state().maps.batch, 1);
    std::vector<double> row(2);
    ASSERT_TRUE(maps().file->maps->storedRow(0, 0, 1, row));
    EXPECT_EQ(row[0], 0.5);
    // An element that does not exist: a message, element 1 stays.
    state().maps.open = MapsOpenAsk{path, "", 5, 0, true};
    frame();
    settle();
    EXPECT_FALSE(state().errorPopup.empty());
    EXPECT_EQ(maps().file->maps->batch(), 1);
    EXPECT_EQ(state().maps.batch, 1);
}

TEST_F(AttentionMapsView, SidePicturesDeliverTheirResults) {
    open(kExampleNpy);
    state().maps.head = 2;
    for (MapsSide side : {MapsSide::Head, MapsSide::Distance, MapsSide::Row, MapsSide::Similarity}) {
        state().maps.side = side;
        frame();
        frame();
        settle();
    }
    ASSERT_NE(maps().head, nullptr);
    EXPECT_EQ(maps().head->picture().tiles.size(), 1u);
    ASSERT_NE(maps().layerFit, nullptr);
    EXPECT_TRUE(maps().layerFit->error.empty()) << maps().layerFit->error;
    EXPECT_EQ(maps().layerFit->fits.size(), 8u);
    ASSERT_NE(maps().row, nullptr);
    EXPECT_EQ(maps().row->probabilities.size(), 64u);
    EXPECT_EQ(maps().row->fittedPrior.size(), 64u);
    ASSERT_NE(maps().similarity, nullptr);
    EXPECT_EQ(maps().similarity->order.size(), 8u);
    // Ordered by clustering: a permutation of the heads.
    state().maps.similarityOrder = 2;
    frame();
    settle();
    std::vector<int> order = maps().similarity->order;
    std::sort(order.begin(), order.end());
    for (int h = 0; h < 8; ++h) EXPECT_EQ(order[static_cast<std::size_t>(h)], h);
}

// The "all layers" overview (issues 23 and 27) is the core's picture, the one Qt shows and the
// exported overview figure draws: renderAttentionOverview at the view's size and label band.
// ImGui composed its own (a block per layer, each block its own colour range, its label over
// the block's corner) before.
class AttentionMapsOverview : public AttentionMapsView, public ::testing::WithParamInterface<bool> {
protected:
    // The overview of the example at 1600x1000, or on a 1280x720 projector in presentation mode
    // (GetParam(): the fonts and style of its zoom, as the window shell builds them).
    void showOverview(bool perHead) {
        if (GetParam()) {
            ImGuiIO& io = ImGui::GetIO();
            io.DisplaySize = ImVec2(1280, 720);
            m_explorer->setPresentation(true);
            frame();
            applyZoom(explorerBaseStyle(), state().zoom);
            unsigned char* pixels = nullptr;
            int width = 0, height = 0;
            io.Fonts->GetTexDataAsRGBA32(&pixels, &width, &height);
            frame();
        }
        open(kExampleNpy);
        frame();
        state().maps.overview = true;
        state().maps.perHead = perHead;
        frame();
        settle();
        frame();
        frame();
        ASSERT_NE(maps().grid, nullptr);
        ASSERT_TRUE(maps().grid->error.empty()) << maps().grid->error;
        ASSERT_TRUE(maps().grid->request.overview);
    }
    // The core's overview for the request the view made.
    MapsOverview coreOverview() {
        const MapsGridRequest& r = maps().grid->request;
        MapsHeatmapParams params;
        params.width = r.width;
        params.height = r.height;
        params.labelBand = r.labelBand;
        params.logScale = r.log;
        params.scale = r.perHead ? ScaleMode::PerHead : ScaleMode::Shared;
        auto overview = renderAttentionOverview(*maps().file->maps, params);
        EXPECT_TRUE(overview.has_value());
        return overview ? std::move(*overview) : MapsOverview{};
    }
    // The point `(fx, fy)` of tile n (fractions of its size) on the screen.
    ImVec2 inTile(std::size_t n, float fx, float fy) {
        const HeatmapTile& t = maps().grid->shown.map.tiles.at(n);
        return ImVec2(state().maps.gridX + static_cast<float>(t.x) + static_cast<float>(t.width) * fx,
                      state().maps.gridY + static_cast<float>(t.y) + static_cast<float>(t.height) * fy);
    }
};

// The picture, its tiles and their layers are the core's, shared scale and per-head.
TEST_P(AttentionMapsOverview, IsTheCoresOverview) {
    for (const bool perHead : {false, true}) {
        showOverview(perHead);
        const MapsOverview want = coreOverview();
        const MapsOverview& shown = maps().grid->shown;
        EXPECT_EQ(shown.tileLayer, want.tileLayer) << perHead;
        ASSERT_EQ(shown.map.tiles.size(), want.map.tiles.size()) << perHead;
        for (std::size_t n = 0; n < want.map.tiles.size(); ++n) {
            const HeatmapTile &a = shown.map.tiles[n], &b = want.map.tiles[n];
            EXPECT_EQ(std::tie(a.x, a.y, a.width, a.height, a.head), std::tie(b.x, b.y, b.width, b.height, b.head))
                << n;
        }
        // The core's pixels, cut to its tiles (the bar beside them): what is cut holds no tile's pixel.
        const Image& a = shown.map.image;
        const Image& b = want.map.image;
        ASSERT_LE(a.width, b.width);
        ASSERT_LE(a.height, b.height);
        int right = 0, bottom = 0;
        for (const HeatmapTile& t : want.map.tiles) {
            right = std::max(right, t.x + t.width);
            bottom = std::max(bottom, t.y + t.height);
        }
        EXPECT_EQ(a.width, right);
        EXPECT_EQ(a.height, bottom);
        int differ = 0, lost = 0;
        for (int y = 0; y < b.height; ++y)
            for (int x = 0; x < b.width; ++x) {
                const Rgba p = b.at(x, y);
                if (x < a.width && y < a.height) {
                    const Rgba q = a.at(x, y);
                    differ += p != q ? 1 : 0;
                } else {
                    lost += p.a != 0 ? 1 : 0;
                }
            }
        EXPECT_EQ(differ, 0) << "pixels of the overview are not the core's";
        EXPECT_EQ(lost, 0) << "the cut margin held drawn pixels";
        // Every layer's every head is shown.
        EXPECT_EQ(shown.map.tiles.size(), 32u);
    }
}

// Each tile is named as Qt and the overview figure name it ("L1 h3", or a shorter form of the
// core's on every tile alike), in the band above it: a label never covers a cell (at 1280x720
// the block labels "L1 0 [bar] 1" covered the first cells of the blocks' 2nd and 3rd tiles).
TEST_P(AttentionMapsOverview, ALabelNeverCoversACell) {
    for (const bool perHead : {false, true}) {
        showOverview(perHead);
        const MapsOverview& shown = maps().grid->shown;
        const AttentionMaps& file = *maps().file->maps;
        const auto& labels = state().mapsLabels;
        ASSERT_EQ(labels.size(), shown.map.tiles.size()) << "every tile is named";
        // One form for every tile: the layer's and head's name, or a shorter form alike on all.
        // Qt's and the figure's name, spelt out here ("L1 h3": the layer's number as the file names it).
        const auto nameOf = [&](std::size_t n) {
            return "L" + std::to_string(file.layerInfo()[static_cast<std::size_t>(shown.tileLayer[n])].number) + " h" +
                   std::to_string(shown.map.tiles[n].head);
        };
        EXPECT_EQ(nameOf(9), explore::mapsHeadLabel(file, 1, 1));
        const bool named = labels.front().text.rfind(nameOf(0), 0) == 0;
        for (std::size_t n = 0; n < labels.size(); ++n) {
            const TileLabelPlace& l = labels[n];
            if (named)
                EXPECT_EQ(l.text.rfind(nameOf(n), 0), 0u) << l.text;
            else
                EXPECT_EQ(l.text.rfind("h" + std::to_string(shown.map.tiles[n].head), 0), 0u) << l.text;
            // In the band above its own tile, within its columns...
            EXPECT_LE(l.label.y + l.label.height, l.tile.y + 0.5f) << l.text;
            EXPECT_GE(l.label.y, l.tile.y - static_cast<float>(maps().grid->request.labelBand) - 0.5f) << l.text;
            EXPECT_GE(l.label.x, l.tile.x - 0.5f) << l.text;
            EXPECT_LE(l.label.x + l.label.width, l.tile.x + l.tile.width + 0.5f) << l.text;
            // ... and over no tile's cells.
            for (const HeatmapTile& t : shown.map.tiles) {
                const float x0 = state().maps.gridX + static_cast<float>(t.x);
                const float y0 = state().maps.gridY + static_cast<float>(t.y);
                const bool overlaps =
                    l.label.x < x0 + static_cast<float>(t.width) - 0.5f && x0 < l.label.x + l.label.width - 0.5f &&
                    l.label.y < y0 + static_cast<float>(t.height) - 0.5f && y0 < l.label.y + l.label.height - 0.5f;
                EXPECT_FALSE(overlaps) << l.text << " covers cells of the tile at " << t.x << ", " << t.y;
            }
        }
        // The labels read the whole name where the tiles are wide enough for it (both sizes here).
        EXPECT_TRUE(named) << labels.front().text;
    }
}

// The mouse over a tile reads the cell the core's mapsPictureHit finds there (cell [0, 0] of
// the 2nd and 3rd tiles included, which the block labels covered), and a click opens it.
TEST_P(AttentionMapsOverview, HoverAndClickAreTheCoresHitTest) {
    showOverview(false);
    const AttentionMaps& file = *maps().file->maps;
    for (const std::size_t n : {std::size_t{1}, std::size_t{2}, std::size_t{13}, std::size_t{31}})
        for (const auto& [fx, fy] : {std::pair{0.01f, 0.01f}, std::pair{0.3f, 0.8f}}) {
            const ImVec2 at = inTile(n, fx, fy);
            io().MousePos = at;
            frame();
            frame();
            const auto hit = mapsPictureHit(maps().grid->shown, file, static_cast<int>(at.x - state().maps.gridX),
                                            static_cast<int>(at.y - state().maps.gridY));
            ASSERT_TRUE(hit.has_value()) << n;
            ASSERT_TRUE(state().maps.hover.has_value()) << n;
            const MapsCell cell = *state().maps.hover;
            EXPECT_EQ(cell, (MapsCell{hit->layerIndex, hit->cell.head, hit->cell.query, hit->cell.key})) << n;
            EXPECT_EQ(cell.layer, static_cast<int>(n / 8));
            EXPECT_EQ(cell.head, static_cast<int>(n % 8));
            // The read-out is of that cell: the file's value there, exact.
            const std::string value =
                "file value = " +
                alibi::formatExact(exampleValue(cell.layer, cell.head, cell.query, cell.key), DType::F16);
            EXPECT_NE(maps().hoverReadout.find(value), std::string::npos) << maps().hoverReadout << " lacks " << value;
            EXPECT_NE(maps().hoverReadout.find("head " + std::to_string(cell.head) + " · query i = " +
                                               std::to_string(cell.query) + " · key j = " + std::to_string(cell.key)),
                      std::string::npos)
                << maps().hoverReadout;
        }
    // Cell [0, 0] of the 2nd tile: the first query row and key, under the tile's top-left pixel.
    io().MousePos = inTile(1, 0.0f, 0.0f);
    frame();
    frame();
    ASSERT_TRUE(state().maps.hover.has_value());
    EXPECT_EQ(state().maps.hover->layer, 0);
    EXPECT_EQ(state().maps.hover->head, 1);
    EXPECT_EQ(state().maps.hover->key, 0);
    if (maps().grid->shown.map.tiles[1].height >= file.queries()) {
        EXPECT_EQ(state().maps.hover->query, 0);
    }
    // A click opens the tile's layer and head.
    io().MousePos = inTile(13, 0.5f, 0.5f);
    frame();
    io().MouseDown[0] = true;
    frame();
    io().MouseDown[0] = false;
    frame();
    EXPECT_FALSE(state().maps.overview);
    EXPECT_EQ(state().maps.layer, 1);
    EXPECT_EQ(state().maps.head, 5);
}

// The bar beside the overview is the core's attentionMapsColorBar: the picture's shared range,
// or under per-head scales the hovered tile's, its ends the core's labels.
TEST_P(AttentionMapsOverview, TheBarsEndsAreTheCores) {
    const auto ends = [](const alibi::ColorBar& bar) {
        return bar.ticks.empty() ? std::pair<std::string, std::string>()
                                 : std::pair{bar.ticks.front().label, bar.ticks.back().label};
    };
    showOverview(false);
    const AttentionMaps& file = *maps().file->maps;
    const Heatmap& shared = maps().grid->shown.map;
    ASSERT_FALSE(state().mapsBar.ticks.empty());
    EXPECT_EQ(ends(state().mapsBar), ends(attentionMapsColorBar(file, shared, -1, 2)));
    EXPECT_EQ(state().mapsBar.title, attentionMapsColorBar(file, shared, -1, 2).title);
    // Shared: hovering a tile keeps the shared bar.
    io().MousePos = inTile(9, 0.5f, 0.5f);
    frame();
    EXPECT_EQ(ends(state().mapsBar), ends(attentionMapsColorBar(file, shared, -1, 2)));

    showOverview(true);  // opens the file again: `file` and `shared` are gone
    const AttentionMaps& reopened = *maps().file->maps;
    const Heatmap& own = maps().grid->shown.map;
    for (const std::size_t n : {std::size_t{3}, std::size_t{22}}) {
        io().MousePos = inTile(n, 0.5f, 0.5f);
        frame();
        frame();
        const alibi::ColorBar want = attentionMapsColorBar(reopened, own, static_cast<int>(n), 2);
        EXPECT_EQ(ends(state().mapsBar), ends(want)) << n;
        EXPECT_EQ(state().mapsBar.head,
                  "L" + std::to_string(reopened.layerInfo()[n / 8].number) + " h" + std::to_string(n % 8));
    }
    // Tiles of one picture differ in range under per-head scales (else the test shows nothing).
    EXPECT_NE(ends(attentionMapsColorBar(reopened, own, 3, 2)), ends(attentionMapsColorBar(reopened, own, 22, 2)));
}

// A deep model in a small view: the label bands above every row of the overview would leave room
// for only some of its layers (the core places the tiles that fit), so the overview is drawn
// without them: every layer shown, no label over a cell. Failed before: 14 of 64 layers, in 1 px
// tiles, under "layers L0 to L63 top to bottom".
TEST_F(AttentionMapsView, ADeepModelsOverviewShowsEveryLayer) {
    const std::vector<float> uniform(static_cast<std::size_t>(64 * 8 * 8 * 8), 0.125f);
    openOverview(write("deep.npy", npyBytes("(64, 8, 8, 8)", uniform)));
    if (HasFatalFailure()) return;
    const MapsOverview& shown = maps().grid->shown;
    EXPECT_EQ(shown.map.tiles.size(), 512u);
    ASSERT_FALSE(shown.map.tiles.empty());
    EXPECT_GE(shown.map.tiles.front().width, 4) << "tiles of a few pixels";
    EXPECT_NE(state().mapsSubtitle.find("layers L0 to L63 top to bottom"), std::string::npos) << state().mapsSubtitle;
    EXPECT_EQ(state().mapsSubtitle.find("only"), std::string::npos) << state().mapsSubtitle;
    for (const TileLabelPlace& l : state().mapsLabels)
        for (const HeatmapTile& t : shown.map.tiles) {
            const float x0 = state().maps.gridX + static_cast<float>(t.x);
            const float y0 = state().maps.gridY + static_cast<float>(t.y);
            EXPECT_FALSE(l.label.x < x0 + static_cast<float>(t.width) && x0 < l.label.x + l.label.width &&
                         l.label.y < y0 + static_cast<float>(t.height) && y0 < l.label.y + l.label.height)
                << l.text << " over a tile";
        }
}

// Deeper still: not even tiles without bands hold every layer; the subtitle says how many heads
// fit and which layers are shown, not "every layer".
TEST_F(AttentionMapsView, AnOverviewThatCannotHoldEveryLayerSaysSo) {
    const std::vector<float> one(static_cast<std::size_t>(400 * 1 * 8 * 8), 0.125f);
    openOverview(write("deeper.npy", npyBytes("(400, 1, 8, 8)", one)));
    if (HasFatalFailure()) return;
    const MapsOverview& shown = maps().grid->shown;
    ASSERT_FALSE(shown.map.tiles.empty());
    ASSERT_LT(shown.map.tiles.size(), 400u) << "the view holds every tile: the test shows nothing";
    const std::string want = "only " + std::to_string(shown.map.tiles.size()) + " of 400 heads fit, layers L0 to L" +
                             std::to_string(shown.tileLayer.back()) + " top to bottom";
    EXPECT_NE(state().mapsSubtitle.find(want), std::string::npos) << state().mapsSubtitle;

    // The example's four layers fit: the subtitle names them all, with no "only".
    open(kExampleNpy);
    state().maps.overview = true;  // an open shows the first layer
    frame();
    settle();
    frame();
    frame();
    ASSERT_TRUE(maps().grid->request.overview);
    EXPECT_EQ(maps().grid->shown.map.tiles.size(), 32u);
    EXPECT_NE(state().mapsSubtitle.find("layers L0 to L3 top to bottom"), std::string::npos) << state().mapsSubtitle;
    EXPECT_EQ(state().mapsSubtitle.find("only"), std::string::npos) << state().mapsSubtitle;
}

INSTANTIATE_TEST_SUITE_P(Displays, AttentionMapsOverview, ::testing::Values(false, true),
                         [](const auto& info) { return info.param ? "Projector1280x720" : "Desktop1600x1000"; });

}  // namespace
}  // namespace alibi::imgui
