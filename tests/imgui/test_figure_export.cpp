// File > Export figure... in the ImGui explorer (issue 13, item 3): every view exported through
// the app writes the bytes the core's figure functions give for the same session, so a lecturer's
// PNG or SVG is exactly what `alibi render` writes: PNG at 1x, 2x and 4x with exactly that many
// pixels, SVG only for the views drawn from lines, a bad path refused with the core's message and
// no file left, a running export cancelled. The popup opens with Ctrl+Shift+P, a format is picked
// with the mouse and a path typed, as a person would; it fits a 1280x720 window.
#include "explorer_fixture.hpp"
#include "figure_plan.hpp"
#include "view_models.hpp"

#include <alibi/analysis/buggy_examples.hpp>
#include <alibi/analysis/diagnose.hpp>
#include <alibi/figure/attention_maps_plots.hpp>
#include <alibi/figure/attention_maps_render.hpp>
#include <alibi/figure/view_figure.hpp>
#include <alibi/io/attention_maps.hpp>
#include <alibi/io/output_file.hpp>
#include <alibi/render/png.hpp>
#include <chrono>

#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

namespace alibi::imgui {
namespace {

namespace fs = std::filesystem;

const std::string kExampleMaps = std::string(ALIBI_SOURCE_ASSETS) + "/attention/trained-like-4x8x64.npy";
constexpr const char* kPopup = "Export figure";

std::string readFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream bytes;
    bytes << in.rdbuf();
    return bytes.str();
}

std::string pngBytes(const Result<Image>& image) {
    EXPECT_TRUE(image) << (image ? "" : image.error().message);
    if (!image) return {};
    auto png = encodePng(*image);
    EXPECT_TRUE(png);
    return png ? std::string(reinterpret_cast<const char*>(png->data()), png->size()) : std::string();
}

class FigureExport : public ExplorerLogic {
protected:
    void SetUp() override {
        ExplorerLogic::SetUp();
        m_dir = fs::temp_directory_path() / ("alibi-imgui-figures-" + std::to_string(::getpid()));
        fs::create_directories(m_dir);
        // A small session, so the figures of every view draw in a moment.
        Session s = defaultSession();
        s.attention.bias.slopes.heads = 4;
        s.attention.bias.queries = 12;
        ASSERT_TRUE(m_explorer->applySession(s));
        settle();
    }
    void TearDown() override {
        ExplorerLogic::TearDown();
        std::error_code ignored;
        fs::remove_all(m_dir, ignored);
    }

    std::string path(const std::string& name) const { return (m_dir / name).string(); }

    // Moves the mouse onto the popup's format button `label` the way a person finds it: "PNG 1x"
    // down a column, then along its line. True when the mouse is over it.
    bool pointAtFormat(ImGuiWindow* popup, const char* label) {
        const ImGuiID png1 = popup->GetID("PNG 1x");
        const ImGuiID target = popup->GetID(label);
        ImGuiIO& io = ImGui::GetIO();
        std::optional<ImVec2> at;
        for (float y = popup->Pos.y; y < popup->Pos.y + popup->Size.y && !at; y += 3.0f)
            for (const float fraction : {0.2f, 0.25f, 0.3f}) {
                io.MousePos = ImVec2(popup->Pos.x + popup->Size.x * fraction, y);
                frame();
                if (ImGui::GetCurrentContext()->HoveredId == png1) {
                    at = io.MousePos;
                    break;
                }
            }
        if (!at) return false;
        for (float x = at->x; x < popup->Pos.x + popup->Size.x; x += 3.0f) {
            io.MousePos = ImVec2(x, at->y);
            frame();
            if (ImGui::GetCurrentContext()->HoveredId == target) return true;
        }
        return false;
    }

    // Shows `view` and waits for what it computes.
    void show(View view) {
        state().view = view;
        frame();
        frame();
        settle();
    }

    // Exports through the app's action (the popup's and the panel's Export button) and waits.
    void exportFigure(FigureFormat format, const std::string& file, int width = 480, int height = 360) {
        FigureExportState& f = state().figure;
        f.format = format;
        f.width = width;
        f.height = height;
        f.path = file;
        f.pathEdited = true;
        f.start = true;
        frame();
        settle();
        frame();
    }

    // The request `alibi render --session` would make for the session the explorer holds now:
    // its parameters, head and query row as set, at the figure's size.
    ViewFigureRequest request(ExplorerView view, int scale, int width = 480, int height = 360) {
        ViewFigureRequest r;
        r.session = m_explorer->history().current();
        r.session.width = width;
        r.session.height = height;
        r.view = view;
        r.scale = scale;
        return r;
    }

    // Checks the file written for `view` at every PNG scale (and SVG for the line views).
    void checkView(View shown, ExplorerView view, const std::string& stem,
                   const std::function<void(ViewFigureRequest&)>& adjust = {}, int width = 480, int height = 360) {
        show(shown);
        for (const FigureFormat format : {FigureFormat::Png1x, FigureFormat::Png2x, FigureFormat::Png4x}) {
            const int scale = figureScale(format);
            const std::string file = path(fmt::format("{}@{}x.png", stem, scale));
            exportFigure(format, file, width, height);
            ASSERT_FALSE(state().figure.failed) << state().figure.status;
            ViewFigureRequest expected = request(view, scale, width, height);
            if (adjust) adjust(expected);
            const std::string bytes = readFile(file);
            ASSERT_EQ(bytes, pngBytes(renderViewFigurePng(expected))) << stem << " at " << scale << "x";
            auto image = decodePng(std::vector<std::uint8_t>(bytes.begin(), bytes.end()));
            ASSERT_TRUE(image);
            EXPECT_EQ(image->width, width * scale);
            EXPECT_EQ(image->height, height * scale);
            EXPECT_EQ(state().figure.status, fmt::format("Saved {} ({} x {} px)", file, width * scale, height * scale));
        }
        const std::string svg = path(stem + ".svg");
        exportFigure(FigureFormat::Svg, svg, width, height);
        ViewFigureRequest expected = request(view, 1, width, height);
        if (adjust) adjust(expected);
        if (viewFigureIsVector(view)) {
            ASSERT_FALSE(state().figure.failed) << state().figure.status;
            auto document = renderViewFigureSvg(expected);
            ASSERT_TRUE(document) << document.error().message;
            EXPECT_EQ(readFile(svg), *document);
        } else {
            // The choice is not offered; forced anyway, the core refuses and nothing is written.
            EXPECT_TRUE(planFigure(state(), state().session, m_explorer->model()).svgRefused);
            EXPECT_TRUE(state().figure.failed);
            auto refused = renderViewFigureSvg(expected);
            ASSERT_FALSE(refused);
            EXPECT_EQ(state().figure.status, refused.error().message);
            EXPECT_FALSE(fs::exists(svg));
        }
    }

    fs::path m_dir;
};

TEST_F(FigureExport, HeadGrid) {
    checkView(View::Grid, ExplorerView::Grid, "grid");
}

TEST_F(FigureExport, HeadDetailOfTheSelectedHead) {
    Session s = m_explorer->history().current();
    s.head = 2;
    ASSERT_TRUE(m_explorer->applySession(s));
    checkView(View::Detail, ExplorerView::Detail, "detail");
}

TEST_F(FigureExport, EachCurvesPlot) {
    Session s = m_explorer->history().current();
    s.queryRow = 7;
    ASSERT_TRUE(m_explorer->applySession(s));
    const CurveKind kinds[] = {CurveKind::Slopes, CurveKind::BiasDistance, CurveKind::AttentionDistance};
    for (int plot = 0; plot < 3; ++plot) {
        state().figure.curves = plot;
        checkView(View::Curves, ExplorerView::Curves, fmt::format("curves-{}", plot),
                  [&](ViewFigureRequest& r) { r.curves = kinds[plot]; });
    }
}

TEST_F(FigureExport, StagesOfTheChosenHeadAndQueryRow) {
    Session s = m_explorer->history().current();
    s.head = 3;
    s.queryRow = 9;
    ASSERT_TRUE(m_explorer->applySession(s));
    // Four stages side by side need a wide figure (the core says so for a smaller one).
    checkView(View::Stages, ExplorerView::Stages, "stages", {}, 1000, 400);
}

TEST_F(FigureExport, CompareWithItsB) {
    state().compareB = CompareOverrides{};
    state().compareB.scheme = SlopeScheme::Linear;
    frame();
    settle();
    ASSERT_TRUE(m_explorer->history().current().compare.has_value());
    checkView(View::Compare, ExplorerView::Compare, "compare");
}

TEST_F(FigureExport, ExtrapolationOfTheSelectedHead) {
    Session s = m_explorer->history().current();
    s.head = 1;
    s.trainLength = 8;
    ASSERT_TRUE(m_explorer->applySession(s));
    checkView(View::Extrapolation, ExplorerView::Extrapolation, "extrapolation");
}

TEST_F(FigureExport, PositionSchemesOnTheViewsAxis) {
    state().schemesMaxDistance = 64;
    state().schemesQuantity = SchemeQuantity::Attention;
    checkView(
        View::PositionSchemes, ExplorerView::PositionSchemes, "schemes",
        [](ViewFigureRequest& r) {
            r.schemesMaxDistance = 64;
            r.schemesQuantity = SchemeQuantity::Attention;
        },
        900, 700);  // the caption lists every formula: the core asks for 900 x 700 or more
}

TEST_F(FigureExport, DiagnoseDrawsTheLoadedTensorsErrorMap) {
    show(View::Diagnose);
    state().diagnoseExample = kSlopeOffByOne;
    state().diagnoseUseExample = true;
    ++state().diagnoseSerial;
    frame();
    settle();
    ASSERT_NE(m_explorer->model().diagnosis, nullptr);
    auto tensor = buildBuggyExample(kSlopeOffByOne);
    ASSERT_TRUE(tensor);
    auto diagnosis = diagnose(*tensor);
    ASSERT_TRUE(diagnosis);
    for (const FigureFormat format : {FigureFormat::Png1x, FigureFormat::Png2x}) {
        const int scale = figureScale(format);
        const std::string file = path(fmt::format("diagnosis@{}x.png", scale));
        exportFigure(format, file);
        ASSERT_FALSE(state().figure.failed) << state().figure.status;
        DiagnosisFigureRequest request;
        request.tensor = &*tensor;
        request.diagnosis = &*diagnosis;
        request.source = std::string("example: ") + kSlopeOffByOne;
        request.width = 480;
        request.height = 360;
        request.scale = scale;
        EXPECT_EQ(readFile(file), pngBytes(renderDiagnosisFigure(request)));
    }
    EXPECT_FALSE(planFigure(state(), state().session, m_explorer->model()).vector);
}

TEST_F(FigureExport, AttentionMapsLikeTheQtFigureMenu) {
    m_explorer->openAttentionMaps(kExampleMaps);
    show(View::Maps);
    ASSERT_NE(m_explorer->model().maps.file, nullptr);
    auto maps = AttentionMaps::open(kExampleMaps);
    ASSERT_TRUE(maps) << maps.error().message;
    state().maps.layer = 2;
    state().maps.head = 5;
    for (const bool oneHead : {false, true}) {
        state().figure.mapsOneHead = oneHead;
        const std::string file = path(fmt::format("maps-{}.png", oneHead));
        exportFigure(FigureFormat::Png2x, file);
        ASSERT_FALSE(state().figure.failed) << state().figure.status;
        MapsHeatmapParams p;
        p.layerIndex = 2;
        p.head = oneHead ? 5 : -1;
        p.width = 480;
        p.height = 360;
        EXPECT_EQ(readFile(file), pngBytes(renderAttentionMapsFigure(*maps, p, 0, 2))) << oneHead;
    }
}

TEST_F(FigureExport, TheSimilaritySideExportsTheMatrixItShows) {
    m_explorer->openAttentionMaps(kExampleMaps);
    show(View::Maps);
    ASSERT_NE(m_explorer->model().maps.file, nullptr);
    state().maps.side = MapsSide::Similarity;
    // The matrix comes from the layer's fit, computed in the background.
    const auto giveUp = std::chrono::steady_clock::now() + std::chrono::seconds(300);
    while (!m_explorer->model().maps.similarity && std::chrono::steady_clock::now() < giveUp) show(View::Maps);
    const auto similarity = m_explorer->model().maps.similarity;
    ASSERT_TRUE(similarity && similarity->request.fit);
    const std::string file = path("similarity.png");
    exportFigure(FigureFormat::Png2x, file, 560, 480);
    ASSERT_FALSE(state().figure.failed) << state().figure.status;
    const FigurePlan plan = planFigure(state(), state().session, m_explorer->model());
    ASSERT_TRUE(plan.task.has_value());
    EXPECT_EQ(plan.task->kind, FigureTask::Kind::Similarity);
    // The core's figure of the same matrix, order and title: what the view shows, at 2x.
    EXPECT_EQ(readFile(file),
              pngBytes(renderSimilarityFigure(similarity->request.fit->distances, similarity->order,
                                              plan.task->similarityTitle, Colormap::Magma, 560, 480, 2)));
}

// The Maps view with the example maps open (4 layers of 8 heads, 64 x 64), and the same maps
// opened by the test for the core's figures.
class MapsFigureExport : public FigureExport {
protected:
    void SetUp() override {
        FigureExport::SetUp();
        m_explorer->openAttentionMaps(kExampleMaps);
        show(View::Maps);
        ASSERT_NE(m_explorer->model().maps.file, nullptr);
        auto maps = AttentionMaps::open(kExampleMaps);
        ASSERT_TRUE(maps) << maps.error().message;
        m_maps = std::make_shared<const AttentionMaps>(std::move(*maps));
    }

    FigurePlan plan() { return planFigure(state(), state().session, m_explorer->model()); }

    // Frames until the Maps view's layer fit is the one for the current layer, head and rows.
    const LayerFitResult& waitForLayerFit() {
        // Bounded by wall time as a hang guard (a loaded machine can take many frames), not a count.
        const auto giveUp = std::chrono::steady_clock::now() + std::chrono::seconds(300);
        while (std::chrono::steady_clock::now() < giveUp) {
            const LayerFitResult* fit = m_explorer->model().maps.layerFit.get();
            if (fit != nullptr && fit->request.layer == state().maps.layer && fit->error.empty() &&
                fit->request.configured == m_explorer->model().maps.configured &&
                fit->request.first == (state().maps.fitAllRows ? 0 : state().maps.fitFirst))
                return *fit;
            show(View::Maps);
        }
        ADD_FAILURE() << "the layer's fit never came";
        static const LayerFitResult none;
        return none;
    }

    std::string stem() const { return "trained-like-4x8x64"; }
    int layerNumber(int index) const { return m_maps->layerInfo()[static_cast<std::size_t>(index)].number; }

    std::shared_ptr<const AttentionMaps> m_maps;
};

TEST_F(MapsFigureExport, TheOverviewExportsEveryLayerAsShown) {
    state().maps.overview = true;
    state().maps.logColors = true;
    state().maps.perHead = true;
    show(View::Maps);
    FigurePlan p = plan();
    ASSERT_TRUE(p.task.has_value()) << p.reason;
    EXPECT_EQ(p.task->kind, FigureTask::Kind::MapsOverview);
    EXPECT_EQ(p.task->path, stem() + "-all-layers.png");
    EXPECT_FALSE(p.maps);  // no "only head H" for every layer
    EXPECT_EQ(p.what.find("one layer at a time"), std::string::npos) << p.what;
    const std::string file = path("overview.png");
    exportFigure(FigureFormat::Png2x, file, 640, 480);
    ASSERT_FALSE(state().figure.failed) << state().figure.status;
    MapsHeatmapParams params;
    params.logScale = true;
    params.scale = ScaleMode::PerHead;
    params.width = 640;
    params.height = 480;
    const std::string expected = pngBytes(renderAttentionOverviewFigure(*m_maps, params, 0, 2));
    EXPECT_TRUE(readFile(file) == expected) << "the overview differs from the core's";
    // The one-layer figure is a different picture: the overview is not a layer exported alone.
    EXPECT_TRUE(expected != pngBytes(renderAttentionMapsFigure(*m_maps, params, 0, 2)));

    // A heatmap: SVG is not offered, and forced, nothing is written.
    EXPECT_FALSE(p.vector);
    state().figure.format = FigureFormat::Svg;
    EXPECT_TRUE(plan().svgRefused);
    const std::string svg = path("overview.svg");
    exportFigure(FigureFormat::Svg, svg, 640, 480);
    EXPECT_TRUE(state().figure.failed);
    EXPECT_FALSE(fs::exists(svg));
}

TEST_F(MapsFigureExport, TheDistanceSideWaitsForTheLayersFit) {
    // The Head side runs no fit; the "vs distance" side asks for one on its next frame.
    ASSERT_EQ(state().maps.side, MapsSide::Head);
    ASSERT_EQ(m_explorer->model().maps.layerFit, nullptr);
    state().maps.side = MapsSide::Distance;
    const FigurePlan p = plan();
    EXPECT_FALSE(p.task.has_value()) << p.what;
    EXPECT_NE(p.reason.find("wait for the layer's fit"), std::string::npos) << p.reason;
    // The grid beside it can be exported meanwhile.
    EXPECT_EQ(p.mapsSidePicture, "attention vs distance");
    state().figure.mapsGrid = true;
    const FigurePlan grid = plan();
    ASSERT_TRUE(grid.task.has_value());
    EXPECT_EQ(grid.task->kind, FigureTask::Kind::Maps);
}

TEST_F(MapsFigureExport, TheDistanceSideExportsTheHeadsProfileOnTheFitsRows) {
    state().maps.side = MapsSide::Distance;
    state().maps.layer = 1;
    state().maps.head = 3;
    state().maps.fitAllRows = false;
    state().maps.fitFirst = 10;
    state().maps.fitLast = 40;
    show(View::Maps);
    const LayerFitResult& fit = waitForLayerFit();
    ASSERT_EQ(fit.fits.size(), 8u);
    ASSERT_EQ(fit.request.first, 10);
    ASSERT_EQ(fit.request.last, 40);
    const HeadFit& head = fit.fits[3];
    ASSERT_EQ(head.layerIndex, 1);
    ASSERT_EQ(head.head, 3);
    const PlotFigure figure = fitProfileFigure(head, *m_maps, 10, 40, 480, 360);

    state().figure.format = FigureFormat::Svg;
    FigurePlan p = plan();
    ASSERT_TRUE(p.task.has_value()) << p.reason;
    ASSERT_EQ(p.task->kind, FigureTask::Kind::MapsProfile) << p.what;
    EXPECT_EQ(p.task->fitFirstRow, 10);
    EXPECT_EQ(p.task->fitLastRow, 40);
    EXPECT_TRUE(p.vector);
    EXPECT_FALSE(p.svgRefused);
    EXPECT_EQ(p.task->path, fmt::format("{}-layer{}-head3-distance.svg", stem(), layerNumber(1)));
    const std::string svg = path("distance.svg");
    exportFigure(FigureFormat::Svg, svg);
    ASSERT_FALSE(state().figure.failed) << state().figure.status;
    EXPECT_EQ(readFile(svg), plotFigureSvg(figure));
    EXPECT_NE(readFile(svg).find("query rows 10 to 39"), std::string::npos);

    for (const FigureFormat format : {FigureFormat::Png1x, FigureFormat::Png2x}) {
        const int scale = figureScale(format);
        const std::string file = path(fmt::format("distance@{}x.png", scale));
        exportFigure(format, file);
        ASSERT_FALSE(state().figure.failed) << state().figure.status;
        const std::string bytes = readFile(file);
        EXPECT_TRUE(bytes == pngBytes(plotFigurePng(figure, scale))) << "the profile PNG differs at " << scale << "x";
        auto image = decodePng(std::vector<std::uint8_t>(bytes.begin(), bytes.end()));
        ASSERT_TRUE(image);
        EXPECT_EQ(image->width, 480 * scale);
        EXPECT_EQ(image->height, 360 * scale);
    }
    state().figure.pathEdited = false;
    EXPECT_EQ(plan().task->path, fmt::format("{}-layer{}-head3-distance.png", stem(), layerNumber(1)));
}

TEST_F(MapsFigureExport, TheRowSideExportsTheRowWithThePriorsItShows) {
    // Paired with the session's slopes (8 heads, as the maps), so the row has both priors.
    Session s = m_explorer->history().current();
    s.attention.bias.slopes.heads = 8;
    ASSERT_TRUE(m_explorer->applySession(s));
    state().maps.prior = MapsPrior::Session;
    state().maps.side = MapsSide::Row;
    state().maps.layer = 2;
    state().maps.head = 5;
    state().maps.row = 20;
    show(View::Maps);
    ASSERT_EQ(m_explorer->model().maps.configured.size(), 8u) << m_explorer->model().maps.priorNote;
    const LayerFitResult& fit = waitForLayerFit();
    ASSERT_EQ(fit.fits.size(), 8u);
    explore::HeadSlopes slopes;
    slopes.fitted = fit.fits[5].slope;
    slopes.configured = m_explorer->model().maps.configured[5];
    auto figure = mapsRowFigure(*m_maps, 2, 5, 20, slopes, 480, 360);
    ASSERT_TRUE(figure) << figure.error().message;
    ASSERT_EQ(figure->series.size(), 3u);  // the file's row and both priors

    FigurePlan p = plan();
    ASSERT_TRUE(p.task.has_value()) << p.reason;
    ASSERT_EQ(p.task->kind, FigureTask::Kind::MapsRow) << p.what;
    EXPECT_TRUE(p.vector);
    EXPECT_EQ(p.task->mapsParams.layerIndex, 2);
    EXPECT_EQ(p.task->mapsParams.head, 5);
    EXPECT_EQ(p.task->rowQuery, 20);
    EXPECT_EQ(p.task->rowSlopes.fitted, slopes.fitted);
    EXPECT_EQ(p.task->rowSlopes.configured, slopes.configured);
    const std::string file = path("row.png");
    exportFigure(FigureFormat::Png2x, file);
    ASSERT_FALSE(state().figure.failed) << state().figure.status;
    EXPECT_TRUE(readFile(file) == pngBytes(plotFigurePng(*figure, 2))) << "the row PNG differs from the core's";
    const std::string svg = path("row.svg");
    exportFigure(FigureFormat::Svg, svg);
    ASSERT_FALSE(state().figure.failed) << state().figure.status;
    EXPECT_EQ(readFile(svg), plotFigureSvg(*figure));

    // Row -1 is the last row, named as such.
    state().maps.row = -1;
    state().figure.pathEdited = false;
    state().figure.format = FigureFormat::Png1x;
    EXPECT_EQ(plan().task->path, fmt::format("{}-layer{}-head5-row63.png", stem(), layerNumber(2)));
    EXPECT_EQ(plan().task->rowQuery, 63);
}

// As a person does it on the Row side: Ctrl+Shift+P, the popup names the picture (the row, or
// the grid beside it), a click on "SVG" (offered for a plot) turns the typed .png path into .svg,
// a click on Export figure writes the core's SVG of the row.
TEST_F(MapsFigureExport, ThePopupExportsTheRowAsSvgByMouse) {
    ImGui::GetIO().DisplaySize = ImVec2(1280, 720);
    state().maps.side = MapsSide::Row;
    state().maps.layer = 3;
    state().maps.head = 1;
    state().maps.row = 7;
    show(View::Maps);
    const LayerFitResult& fit = waitForLayerFit();
    ASSERT_EQ(fit.fits.size(), 8u);
    explore::HeadSlopes slopes;
    slopes.fitted = fit.fits[1].slope;
    auto figure = mapsRowFigure(*m_maps, 3, 1, 7, slopes, 480, 360);
    ASSERT_TRUE(figure) << figure.error().message;

    FigureExportState& f = state().figure;
    f.format = FigureFormat::Png2x;
    f.width = 480;
    f.height = 360;
    f.path = path("popup-row.png");
    f.pathEdited = true;
    press(keys::kP, true, true);
    frame();
    ImGuiWindow* popup = ImGui::FindWindowByName(kPopup);
    ASSERT_NE(popup, nullptr);
    ASSERT_TRUE(popup->Active);
    EXPECT_LE(popup->Pos.y + popup->Size.y, 720.0f);
    EXPECT_NE(popup->GetID("the query row"), 0u);

    // "SVG" is the last format on the line of "PNG 1x".
    ASSERT_TRUE(pointAtFormat(popup, "SVG"));
    ImGuiIO& io = ImGui::GetIO();
    io.MouseDown[0] = true;
    frame();
    io.MouseDown[0] = false;
    frame();
    ASSERT_EQ(f.format, FigureFormat::Svg);
    EXPECT_EQ(f.path, path("popup-row.svg"));

    ASSERT_TRUE(click(kPopup, "Export figure", 0.1f));
    settle();
    frame();
    ASSERT_FALSE(f.failed) << f.status;
    EXPECT_EQ(readFile(path("popup-row.svg")), plotFigureSvg(*figure));
    EXPECT_EQ(f.status, fmt::format("Saved {} (480 x 360 px)", path("popup-row.svg")));
    press(kKeyEscape);
    frame();
}

TEST_F(FigureExport, TheFitTableHasNoFigureAndSaysWhy) {
    show(View::Fit);
    const FigurePlan plan = planFigure(state(), state().session, m_explorer->model());
    EXPECT_FALSE(plan.task.has_value());
    EXPECT_NE(plan.reason.find("CSV or JSON"), std::string::npos) << plan.reason;
}

TEST_F(FigureExport, ABadPathGivesTheCoresMessageAndLeavesNoFile) {
    const std::string file = path("no-such-folder/grid.png");
    exportFigure(FigureFormat::Png2x, file);
    EXPECT_TRUE(state().figure.failed);
    auto refused = OutputFile::open(file);
    ASSERT_FALSE(refused);
    EXPECT_EQ(state().figure.status, refused.error().message);
    EXPECT_FALSE(fs::exists(file));
    EXPECT_FALSE(fs::exists(m_dir / "no-such-folder"));
    // Nothing half-written beside it either.
    EXPECT_TRUE(fs::is_empty(m_dir));
}

TEST_F(FigureExport, CancellingARunningExportLeavesNoFile) {
    Session s = m_explorer->history().current();
    s.attention.bias.slopes.heads = 64;
    s.attention.bias.queries = 4096;
    s.what = RenderWhat::Attention;
    ASSERT_TRUE(m_explorer->applySession(s));
    show(View::Grid);
    const std::string file = path("big.png");
    FigureExportState& f = state().figure;
    f.format = FigureFormat::Png4x;
    f.width = 3000;
    f.height = 2000;
    f.path = file;
    f.pathEdited = true;
    f.start = true;
    frame();
    ASSERT_TRUE(m_explorer->model().figureRunning) << f.status;
    f.cancel = true;
    frame();
    settle();
    frame();
    EXPECT_TRUE(f.failed);
    EXPECT_EQ(f.status, "Cancelled: " + file + " was not written");
    EXPECT_TRUE(fs::is_empty(m_dir));
}

// The whole interaction as a person does it: Ctrl+Shift+P, a click on "PNG 2x", a typed path,
// Enter; at 1280x720 the popup is inside the window with nothing cut off.
TEST_F(FigureExport, ThePopupByKeyboardAndMouseAt1280x720) {
    ImGui::GetIO().DisplaySize = ImVec2(1280, 720);
    show(View::Curves);
    press(keys::kP, true, true);
    frame();
    ImGuiWindow* popup = ImGui::FindWindowByName(kPopup);
    ASSERT_NE(popup, nullptr);
    ASSERT_TRUE(popup->Active);
    EXPECT_GE(popup->Pos.x, 0.0f);
    EXPECT_GE(popup->Pos.y, 0.0f);
    EXPECT_LE(popup->Pos.x + popup->Size.x, 1280.0f);
    EXPECT_LE(popup->Pos.y + popup->Size.y, 720.0f);
    EXPECT_GE(popup->Size.x, 400.0f);  // room for the formats on one line and a long path
    EXPECT_FALSE(popup->ScrollbarY);

    // The format row: "PNG 2x" beside "PNG 1x".
    ASSERT_TRUE(pointAtFormat(popup, "PNG 2x"));
    ImGuiIO& io = ImGui::GetIO();
    state().figure.format = FigureFormat::Png1x;
    io.MouseDown[0] = true;
    frame();
    io.MouseDown[0] = false;
    frame();
    EXPECT_EQ(state().figure.format, FigureFormat::Png2x);

    // The path: click the field, select all, type, Enter.
    ASSERT_TRUE(click(kPopup, "##figurePath", 0.6f));
    io.KeyCtrl = true;
    io.KeysDown['A'] = true;
    frame();
    io.KeysDown['A'] = false;
    io.KeyCtrl = false;
    frame();
    const std::string file = path("typed.png");
    type(file);
    press(kKeyEnter);
    settle();
    frame();
    ASSERT_FALSE(state().figure.failed) << state().figure.status;
    const Session& s = m_explorer->history().current();
    ViewFigureRequest expected = request(ExplorerView::Curves, 2, s.width, s.height);
    EXPECT_EQ(readFile(file), pngBytes(renderViewFigurePng(expected)));
    EXPECT_EQ(state().statusMessage, fmt::format("Saved {} ({} x {} px)", file, 2 * s.width, 2 * s.height));

    // Escape closes it; the shortcuts work again.
    press(kKeyEscape);
    frame();
    EXPECT_FALSE(ImGui::FindWindowByName(kPopup)->Active);
    press(keys::kP, true, true);  // and opens again
    EXPECT_TRUE(ImGui::FindWindowByName(kPopup)->Active);
}

TEST_F(FigureExport, TheDefaultPathIsTheCoresNameAndFollowsTheFormat) {
    show(View::Curves);
    state().figure.format = FigureFormat::Svg;
    FigurePlan plan = planFigure(state(), state().session, m_explorer->model());
    ASSERT_TRUE(plan.task.has_value());
    ViewFigureRequest r = request(ExplorerView::Curves, 1);
    EXPECT_EQ(plan.task->path, viewFigureFileName(r, true));
    state().figure.format = FigureFormat::Png4x;
    plan = planFigure(state(), state().session, m_explorer->model());
    EXPECT_EQ(plan.task->path, viewFigureFileName(r, false));
    // A heatmap view never proposes an .svg name.
    show(View::Grid);
    plan = planFigure(state(), state().session, m_explorer->model());
    EXPECT_TRUE(plan.task->path.ends_with(".png")) << plan.task->path;

    // A path typed for one figure keeps its folder for the next one, not its name (so exporting
    // the grid and then the curves never overwrites the grid).
    state().figure.path = path("my-slide.png");
    state().figure.pathEdited = true;
    state().figure.pathFor = plan.defaultPath;
    EXPECT_EQ(planFigure(state(), state().session, m_explorer->model()).task->path, path("my-slide.png"));
    show(View::Curves);
    state().figure.format = FigureFormat::Png1x;
    EXPECT_EQ(planFigure(state(), state().session, m_explorer->model()).task->path, path(viewFigureFileName(r, false)));
}

}  // namespace
}  // namespace alibi::imgui
