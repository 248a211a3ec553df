// Issue 27, "pictures that say less than, or other than, their numbers": each test asserts one
// property of a picture against the numbers under it, from the formulas (REFERENCES.md) or by
// hand: the spelling of a bar's ends and a cell's value, the "<=" of a log bar's floor, the grey
// of a masked compare cell, the band that keeps tile labels off the cells, square cells, the
// extrapolation axis that keeps distance 0, the stages' one key span, a row plot's zoom, a
// batch's tile labels, the overview that fills its picture, the slope bars, refused options.
#include <alibi/analysis/buggy_examples.hpp>
#include <alibi/explore/attention_maps_view.hpp>
#include <alibi/explore/compute.hpp>
#include <alibi/explore/diagnosis_error_map.hpp>
#include <alibi/explore/stages.hpp>
#include <alibi/figure/attention_maps_plots.hpp>
#include <alibi/figure/attention_maps_render.hpp>
#include <alibi/figure/figure.hpp>
#include <alibi/figure/maps_file_figure.hpp>
#include <alibi/figure/view_figure.hpp>
#include <alibi/model/slopes.hpp>
#include <alibi/render/color_scale.hpp>
#include <alibi/render/format.hpp>
#include <alibi/render/render.hpp>
#include <alibi/render/ticks.hpp>

#include "../attention_maps_fixture.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

using namespace alibi;
using alibi::test::asBytes;
using alibi::test::causalMaps;
using alibi::test::npyBytes;

namespace {

std::size_t count(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

}  // namespace

TEST(Pictures, NumbersReadWithSensibleDigits) {
    // 15 x 2^-0.5 = 10.6066017...: four significant digits on a colour bar's end.
    EXPECT_EQ(formatSignificant(-15 * std::sqrt(0.5)), "-10.61");
    EXPECT_EQ(formatSignificant(8.215513e-15), "8.216e-15");
    EXPECT_EQ(formatSignificant(-65504), "-65504");
    EXPECT_EQ(formatSignificant(-7.5), "-7.5");
    EXPECT_EQ(formatSignificant(-1e9), "-1e+09");
    EXPECT_EQ(formatSignificant(0.99999994), "1");
    EXPECT_EQ(formatSignificant(-0.0), "0");
    const ColorBar bar = makeColorBar(-15 * std::sqrt(0.5), 8.215513e-15, false, DType::F64, 5);
    EXPECT_EQ(bar.ticks.front().label, "-10.61");
    EXPECT_EQ(bar.ticks.back().label, "8.216e-15");
    // Ends that would read the same get the digits that tell them apart.
    const ColorBar close = makeColorBar(0.99990, 0.99996, false, DType::F64, 5);
    EXPECT_NE(close.ticks.front().label, close.ticks.back().label);
    // The multiples of 1/8 in a head-detail cell, narrow: every tie away from zero.
    EXPECT_EQ(formatCellValue(-0.125, false, true), "-0.13");
    EXPECT_EQ(formatCellValue(-0.375, false, true), "-0.38");
    EXPECT_EQ(formatCellValue(-0.625, false, true), "-0.63");
    EXPECT_EQ(formatCellValue(-0.875, false, true), "-0.88");
    EXPECT_EQ(formatCellValue(0.125, true), "0.13");
    EXPECT_EQ(formatCellValue(-0.0625 * 15, false), "-0.938");
}

TEST(Pictures, LogBarMarksItsFloorWhenCellsGoBelowIt) {
    // Zero content, head 0 (m = 1/2) of T = 128: row 127's farthest key has e^(-63.5) / Z, about
    // 1e-28, far below 1e-12 x the top (1); and keys past a row's query are masked, not 0.
    HeatmapParams p;
    p.attention.bias.slopes.heads = 8;
    p.attention.bias.queries = 128;
    p.attention.content.kind = ContentKind::Zero;
    p.what = RenderWhat::Attention;
    p.logScale = true;
    p.width = p.height = 512;
    auto map = renderHeatmap(p, 1);
    ASSERT_TRUE(map) << map.error().message;
    EXPECT_TRUE(map->belowLogLo);
    EXPECT_DOUBLE_EQ(map->logLo, 1e-12);
    const ColorBar bar = heatmapColorBar(*map, p, -1, 5);
    EXPECT_TRUE(bar.belowFloor);
    EXPECT_EQ(bar.ticks.front().label, "<= 1e-12");
    // T = 8: every probability is above the floor, so the bar's end is the smallest value itself.
    p.attention.bias.queries = 8;
    map = renderHeatmap(p, 1);
    ASSERT_TRUE(map);
    EXPECT_FALSE(map->belowLogLo);
    EXPECT_EQ(heatmapColorBar(*map, p, -1, 5).ticks.front().label.rfind("<=", 0), std::string::npos);
}

TEST(Pictures, CompareDrawsMaskedCellsInTheMaskedGrey) {
    Session a = defaultSession();
    a.attention.bias.slopes.heads = 2;
    a.attention.bias.queries = 16;
    a.what = RenderWhat::Bias;
    const CompareOverrides b = explore::geometricCompare();
    // One pixel per cell: tile pixel (x = key, y = query).
    const auto c = explore::computeCompare(a, b, 16, 16 * 2 + 4, {}, 4);
    ASSERT_TRUE(c.error.empty()) << c.error;
    ASSERT_EQ(c.tiles.size(), 2u);
    const HeatmapTile& t = c.tiles.front();
    ASSERT_EQ(t.width, 16);
    ASSERT_EQ(t.height, 16);
    // Query 2, key 5: the future, masked in A and in B: the legend's grey, not the white of 0.
    EXPECT_EQ(c.image.at(t.x + 5, t.y + 2), kMaskedColor);
    EXPECT_NE(c.image.at(t.x + 2, t.y + 5), kMaskedColor);
    ASSERT_TRUE(c.cells);
    EXPECT_NE(explore::compareReadout(*c.cells, 0, 2, 5).find("masked in both"), std::string::npos);
    // Query 5, key 2: A - B = -(1/2 - 2^-(8/2... in B's geometric slopes)) x 3, the exact difference.
    const auto slopesA = computeSlopes(a.attention.bias.slopes).value();
    const auto slopesB = computeSlopes(explore::applyCompare(a, b).attention.bias.slopes).value();
    const double diff = static_cast<double>(static_cast<float>(-slopesA[0] * 3)) -
                        static_cast<double>(static_cast<float>(-slopesB[0] * 3));
    EXPECT_NE(explore::compareReadout(*c.cells, 0, 5, 2).find("A - B = " + formatValue(diff)), std::string::npos)
        << explore::compareReadout(*c.cells, 0, 5, 2);
}

TEST(Pictures, CompareNamesBsSettingsInOneLine) {
    Session a = defaultSession();
    a.attention.bias.slopes.heads = 2;
    a.attention.bias.queries = 4;
    CompareOverrides b;
    b.scheme = SlopeScheme::Geometric;
    b.maxBias = 4.5;
    b.dtype = DType::F16;
    b.mask = MaskValue{MaskValue::Kind::Lowest};
    const auto c = explore::computeCompare(a, b, 64, 64);
    ASSERT_TRUE(c.error.empty()) << c.error;
    EXPECT_EQ(c.settingsB, "B: geometric slopes · max_bias 4.5 · f16 · causal mode · mask min");
}

TEST(Pictures, TileLabelsSitInABandAboveTheCells) {
    HeatmapParams p;
    p.attention.bias.slopes.heads = 4;
    p.attention.bias.queries = 16;
    p.width = 400;
    p.height = 400;
    p.labelBand = 20;
    auto map = renderHeatmap(p, 1);
    ASSERT_TRUE(map);
    ASSERT_EQ(map->tiles.size(), 4u);
    for (const HeatmapTile& t : map->tiles) {
        EXPECT_GE(t.y, 20);
        // The band above the tile holds no cell: transparent in the image.
        for (int y = t.y - 20; y < t.y; ++y) EXPECT_EQ(map->image.at(t.x + t.width / 2, y).a, 0) << y;
        EXPECT_LE(t.y + t.height, 400);
    }
    // The figure writes "h0  m = 1/2" there: the tile's first cell row keeps its colour (the
    // diagonal's 0 of head 0, the top of the shared bias scale at the tile's top-left).
    FigureFrame frame;
    frame.slopes = {0.5, 0.25, 0.125, 0.0625};
    frame.queries = frame.keys = 16;
    std::vector<HeatmapTile> tiles;
    auto figure = heatmapFigure(640, 480, frame, [&](int w, int h, int band) {
        EXPECT_GT(band, 0);
        HeatmapParams q = p;
        q.width = w;
        q.height = h;
        q.labelBand = band;
        auto m = renderHeatmap(q, 1);
        if (m) tiles = m->tiles;
        return m;
    });
    ASSERT_TRUE(figure) << figure.error().message;
    ASSERT_EQ(tiles.size(), 4u);
}

// 4096 heads in a small grid: a label band per tile row would need more than the whole height
// (it placed tiles outside the image, and the renderer wrote past it: a crash of every front end
// at H = 4096). The bands give way; every tile stays inside the image.
TEST(Pictures, ManyTileRowsKeepEveryTileInsideTheImage) {
    HeatmapParams p;
    p.attention.bias.slopes.heads = 4096;
    p.attention.bias.queries = 16;
    p.width = 400;
    p.height = 300;
    p.labelBand = 20;
    auto map = renderHeatmap(p, 2);
    ASSERT_TRUE(map) << map.error().message;
    ASSERT_EQ(map->tiles.size(), 4096u);
    for (const HeatmapTile& t : map->tiles) {
        ASSERT_GE(t.x, 0);
        ASSERT_GE(t.y, 0);
        ASSERT_LE(t.x + t.width, 400) << "head " << t.head;
        ASSERT_LE(t.y + t.height, 300) << "head " << t.head;
    }
}

TEST(Pictures, SquareCellsKeepTheirAspect) {
    HeatmapParams p;
    p.attention.bias.slopes.heads = 8;
    p.attention.bias.queries = 256;
    p.width = 1200;
    p.height = 300;
    p.squareCells = true;
    auto map = renderHeatmap(p, 1);
    ASSERT_TRUE(map);
    for (const HeatmapTile& t : map->tiles) EXPECT_EQ(t.width, t.height);
    EXPECT_DOUBLE_EQ(map->cellsPerPixelX, map->cellsPerPixelY);
}

TEST(Pictures, ZoomedDetailCaptionStatesTheCellsOnScreen) {
    HeatmapParams p;
    p.attention.bias.slopes.heads = 1;
    p.attention.bias.queries = 16;
    p.head = 0;
    p.width = p.height = 16;
    auto map = renderHeatmap(p, 1);
    ASSERT_TRUE(map);
    EXPECT_EQ(map->summary, "1 cell = 1 x 1 px");
    EXPECT_EQ(heatmapSummary(*map, false, 38, 38), "1 cell = 38 x 38 px");
    EXPECT_EQ(heatmapSummary(*map, false, 37.5, 37.5), "1 cell = 37.5 x 37.5 px");
}

TEST(Pictures, ExtrapolationAxisKeepsDistanceZeroAndMarksL) {
    const auto ticks = axisTicks(AxisScale::Log2OnePlus, 0, 1023, 12);
    ASSERT_FALSE(ticks.empty());
    EXPECT_EQ(ticks.front().value, 0.0);
    EXPECT_EQ(ticks.front().label, "0");
    EXPECT_DOUBLE_EQ(axisPosition(AxisScale::Log2OnePlus, 0), 0.0);
    EXPECT_DOUBLE_EQ(axisPosition(AxisScale::Log2OnePlus, 1023), 10.0);
    EXPECT_DOUBLE_EQ(axisValue(AxisScale::Log2OnePlus, 6), 63.0);
    ViewFigureRequest r;
    r.session = defaultSession();
    r.session.attention.bias.queries = 64;
    r.session.width = 900;
    r.session.height = 500;
    r.view = ExplorerView::Extrapolation;
    auto svg = renderViewFigureSvg(r);
    ASSERT_TRUE(svg) << svg.error().message;
    const std::string ticksGroup = svg->substr(svg->find("x-ticks"), 4000);
    EXPECT_NE(ticksGroup.find(">0<"), std::string::npos);  // distance 0 is on the axis
    EXPECT_NE(svg->find(explore::kExtrapolationDistanceAxis), std::string::npos);
    EXPECT_NE(svg->find(">L = 64<"), std::string::npos);  // the marker at the training length
}

TEST(Pictures, StagePanelsSpanTheSameKeys) {
    AttentionParams a;
    a.bias.queries = 128;
    a.content.kind = ContentKind::Zero;
    const auto span = explore::stageKeySpan(a, 40);
    EXPECT_EQ(span.first, 0);
    EXPECT_EQ(span.last, 40);
    const std::vector<double> zeros(128, 0.0);
    EXPECT_EQ(explore::stageNote(a, 40, 0, zeros), "all 0 (zero content)");
    EXPECT_NE(explore::stageNote(a, 40, 1, zeros).find("keys 41-127: masked (-1e9)"), std::string::npos);
    a.bias.mode = BiasMode::Symmetric;
    EXPECT_EQ(explore::stageKeySpan(a, 40).last, 127);
    // The figure: four panels of 11 bars each for query 10 of T = 16.
    ViewFigureRequest r;
    r.session = defaultSession();
    r.session.attention.bias.queries = 16;
    r.session.queryRow = 10;
    r.session.head = 2;
    r.session.width = 1000;
    r.session.height = 400;
    r.view = ExplorerView::Stages;
    auto svg = renderViewFigureSvg(r);
    ASSERT_TRUE(svg) << svg.error().message;
    EXPECT_EQ(count(*svg, "<title>head 2, query 10 at "), 4u * 11u);
}

TEST(Pictures, SlopeFigureIsBarsLabelledAsFractions) {
    ViewFigureRequest r;
    r.session = defaultSession();
    r.session.width = 640;
    r.session.height = 400;
    r.view = ExplorerView::Curves;
    r.curves = CurveKind::Slopes;
    auto svg = renderViewFigureSvg(r);
    ASSERT_TRUE(svg) << svg.error().message;
    EXPECT_NE(svg->find("<g class=\"bars\""), std::string::npos) << svg->substr(0, 400);
    EXPECT_NE(svg->find(">1/2<"), std::string::npos);
    EXPECT_NE(svg->find(">1/256<"), std::string::npos);
    EXPECT_EQ(svg->find(">2^-1<"), std::string::npos);
}

TEST(Pictures, DiagnosisFigureTilesHaveSquareCells) {
    auto tensor = buildBuggyExample(kSignFlipped);  // H = 8, T = 16: 16 x 16 cells a tile
    ASSERT_TRUE(tensor) << tensor.error().message;
    auto diagnosis = diagnose(*tensor);
    ASSERT_TRUE(diagnosis) << diagnosis.error().message;
    for (const auto& [width, height] : {std::pair{1024, 768}, std::pair{1200, 500}, std::pair{640, 900}}) {
        FigureMapPlacement placed;
        DiagnosisFigureRequest request;
        request.tensor = &*tensor;
        request.diagnosis = &*diagnosis;
        request.source = "sign_flipped.npy";
        request.width = width;
        request.height = height;
        request.placed = &placed;
        auto figure = renderDiagnosisFigure(request);
        ASSERT_TRUE(figure) << figure.error().message;
        ASSERT_EQ(placed.tiles.size(), 8u);
        for (const HeatmapTile& t : placed.tiles)
            EXPECT_EQ(t.width, t.height) << width << " x " << height << ": tile of head " << t.head;
    }
}

TEST(Pictures, BatchErrorTilesAreLabelledByRowAndHead) {
    EXPECT_EQ(explore::diagnosisTileLabel(3, 8, 8), "h3");
    EXPECT_EQ(explore::diagnosisTileLabel(0, 16, 8), "b0 h0");
    EXPECT_EQ(explore::diagnosisTileLabel(15, 16, 8), "b1 h7");
}

TEST(Pictures, RowPlotZoomsOnASteepHeadAndHonoursMaxDistance) {
    Series steep{"file", {}, {}};
    for (int j = 0; j < 256; ++j) {
        steep.x.push_back(j);
        steep.y.push_back(std::exp(-2.0 * (255 - j)));  // m = 2: e^-2d
    }
    const auto w = explore::mapsRowWindow({steep}, 255, 256);
    // e^-2d >= 1/1000 up to d = 3 (e^-6 = 0.0025, e^-8 < 0.001): keys 252..255, padded by 8.
    EXPECT_TRUE(w.zoomed);
    EXPECT_EQ(w.first, 244);
    EXPECT_EQ(w.last, 255);
    EXPECT_FALSE(explore::keyWindowNote(w, 256, false).empty());
    const auto given = explore::mapsRowWindow({steep}, 255, 256, 100);
    EXPECT_EQ(given.first, 155);
    EXPECT_EQ(given.last, 255);
    // The file figure refuses options it cannot honour, and honours --max-distance for rows.
    const std::int64_t t = 32;
    const std::string file = npyBytes({1, 2, t, t}, causalMaps({2.0, 0.5}, t, 0.0, 1));
    auto maps = AttentionMaps::fromBytes(asBytes(file), false);
    ASSERT_TRUE(maps);
    MapsFileFigureRequest request;
    request.what = MapsFigureKind::Row;
    request.svg = true;
    request.width = 640;
    request.height = 400;
    request.logScale = true;
    auto refused = renderMapsFileFigure(*maps, request);
    ASSERT_FALSE(refused);
    EXPECT_NE(refused.error().message.find("--log-scale"), std::string::npos);
    request.logScale = false;
    request.what = MapsFigureKind::Attention;
    request.svg = false;
    request.maxDistance = 8;
    refused = renderMapsFileFigure(*maps, request);
    ASSERT_FALSE(refused);
    EXPECT_NE(refused.error().message.find("--max-distance"), std::string::npos) << refused.error().message;
    request.what = MapsFigureKind::Row;
    request.svg = true;
    EXPECT_TRUE(renderMapsFileFigure(*maps, request));
    // Head 0 (m = 2), row 31, keys within 8: 23..31, and the caption says so.
    auto row = mapsRowFigure(*maps, 0, 0, 31, {}, 640, 400, 8);
    ASSERT_TRUE(row) << row.error().message;
    ASSERT_FALSE(row->series.empty());
    EXPECT_EQ(row->series.front().x.front(), 23.0);
    EXPECT_EQ(row->series.front().x.back(), 31.0);
    EXPECT_NE(row->style.caption.find("keys 23 to 31 of 32 shown"), std::string::npos) << row->style.caption;
}

TEST(Pictures, OverviewFillsItsPicture) {
    // One layer of 8 heads in a 1000 x 800 picture: one row of 8 tiles would use 1/6 of the
    // height; rows of 4 give tiles twice as large.
    const std::int64_t t = 16;
    const std::string file = npyBytes(
        {1, 8, t, t}, causalMaps({0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625, 0.0078125, 0.00390625}, t, 0.0, 1));
    auto maps = AttentionMaps::fromBytes(asBytes(file), false);
    ASSERT_TRUE(maps);
    MapsHeatmapParams params;
    params.width = 1000;
    params.height = 800;
    auto overview = renderAttentionOverview(*maps, params, 1);
    ASSERT_TRUE(overview) << overview.error().message;
    int bottom = 0;
    for (const HeatmapTile& tile : overview->map.tiles) {
        EXPECT_EQ(tile.width, tile.height);  // square cells
        EXPECT_GE(tile.width, 240);
        bottom = std::max(bottom, tile.y + tile.height);
    }
    EXPECT_GT(bottom, 800 / 2);
}

// Per-head colour scale on causal attention (issue 27): row 0 has one key, p = 1, in every head,
// so a range with it spans [lo, 1] everywhere and the option showed nothing. Each tile's range
// now leaves rows of one key out: with zero content the largest probability of rows 1.. is
// row 1's diagonal, 1 / (1 + e^-m), different for every slope m; row 0 takes the top colour,
// and the bar, the tile label and the subtitle say so. A shared scale keeps every row.
TEST(Pictures, PerHeadScaleLeavesOutRowsOfOneKey) {
    HeatmapParams p;
    p.attention.bias.slopes.heads = 8;
    p.attention.bias.queries = 16;
    p.attention.content.kind = ContentKind::Zero;
    p.what = RenderWhat::Attention;
    p.scale = ScaleMode::PerHead;
    p.width = p.height = 512;
    auto map = renderHeatmap(p, 1);
    ASSERT_TRUE(map) << map.error().message;
    ASSERT_EQ(map->tiles.size(), 8u);
    for (std::size_t t = 0; t < map->tiles.size(); ++t) {
        const HeatmapTile& tile = map->tiles[t];
        const double m = std::exp2(-(tile.head + 1.0));
        // Row 1: keys 0 and 1, p(1, 1) = 1 / (1 + e^-m); row 15's key 0: e^-15m / sum_d e^-md.
        EXPECT_NEAR(tile.hi, 1 / (1 + std::exp(-m)), 1e-12) << tile.head;
        double z = 0;
        for (int d = 0; d < 16; ++d) z += std::exp(-m * d);
        EXPECT_NEAR(tile.lo, std::exp(-15 * m) / z, 1e-12) << tile.head;
        EXPECT_TRUE(tile.aboveHi);
        // Row 0 (p = 1) in the top colour of the tile's own scale.
        EXPECT_EQ(map->image.at(tile.x, tile.y), colormapColor(p.colormap, 1.0));
        const ColorBar own = heatmapColorBar(*map, p, static_cast<int>(t), 2);
        EXPECT_TRUE(own.aboveTop);
        EXPECT_EQ(own.ticks.back().label.rfind(">= ", 0), 0u) << own.ticks.back().label;
    }
    // The heads differ visibly: 0.62 for m = 1/2, 0.50 for m = 1/256.
    EXPECT_GT(map->tiles.front().hi - map->tiles.back().hi, 0.1);
    const std::string subtitle = explore::heatmapSubtitle(p, *map);
    EXPECT_NE(subtitle.find("without its rows of one key (row 0, p = 1"), std::string::npos) << subtitle;
    // The whole grid's bar shares no range: it runs from each tile's lo to its hi, not from the
    // smallest lo to 1 (which no tile is coloured by).
    const ColorBar whole = heatmapColorBar(*map, p, -1, 5);
    ASSERT_EQ(whole.ticks.size(), 2u);
    EXPECT_EQ(whole.ticks.front().label, "tile's lo");
    EXPECT_EQ(whole.ticks.back().label, ">= tile's hi");
    EXPECT_EQ(whole.title, "probability");
    EXPECT_TRUE(whole.maskedSwatch);
    // A shared scale: every row counts, the top is 1 and nothing lies above it.
    p.scale = ScaleMode::Shared;
    map = renderHeatmap(p, 1);
    ASSERT_TRUE(map);
    EXPECT_DOUBLE_EQ(map->hi, 1.0);
    for (const HeatmapTile& tile : map->tiles) {
        EXPECT_DOUBLE_EQ(tile.hi, 1.0);
        EXPECT_FALSE(tile.aboveHi);
    }
    EXPECT_EQ(explore::heatmapSubtitle(p, *map).find("rows of one key"), std::string::npos);
    // One head alone keeps its row 0 (the detail's numbers are the cells').
    p.scale = ScaleMode::PerHead;
    p.head = 2;
    map = renderHeatmap(p, 1);
    ASSERT_TRUE(map);
    EXPECT_DOUBLE_EQ(map->tiles.front().hi, 1.0);
    EXPECT_FALSE(map->tiles.front().aboveHi);
}

// The same rule on a model's saved attention maps (grid and figure), through the same core range.
TEST(Pictures, MapsPerHeadScaleLeavesOutRowsOfOneKey) {
    const std::int64_t t = 16;
    const std::vector<double> slopes = {0.5, 0.25, 0.125, 0.0625};
    const std::string file = npyBytes({1, 4, t, t}, causalMaps(slopes, t, 0.0, 1));
    auto maps = AttentionMaps::fromBytes(asBytes(file), false);
    ASSERT_TRUE(maps);
    MapsHeatmapParams params;
    params.width = params.height = 400;
    params.scale = ScaleMode::PerHead;
    auto map = renderAttentionMaps(*maps, params, 1);
    ASSERT_TRUE(map) << map.error().message;
    ASSERT_EQ(map->tiles.size(), 4u);
    for (std::size_t n = 0; n < map->tiles.size(); ++n) {
        const HeatmapTile& tile = map->tiles[n];
        const double m = slopes[static_cast<std::size_t>(tile.head)];
        EXPECT_NEAR(tile.hi, 1 / (1 + std::exp(-m)), 1e-6) << tile.head;  // stored in f32
        EXPECT_TRUE(tile.aboveHi);
        const ColorBar bar = attentionMapsColorBar(*maps, *map, static_cast<int>(n), 2);
        EXPECT_EQ(bar.ticks.back().label.rfind(">= ", 0), 0u) << bar.ticks.back().label;
    }
    EXPECT_NE(attentionMapsCaption(*maps, *map, params.scale).find("rows of one key"), std::string::npos);
    params.scale = ScaleMode::Shared;
    map = renderAttentionMaps(*maps, params, 1);
    ASSERT_TRUE(map);
    for (const HeatmapTile& tile : map->tiles) EXPECT_FALSE(tile.aboveHi);
    EXPECT_NEAR(map->hi, 1.0, 1e-6);
}

// Head-detail numbers: one number of decimals per head (a head read "-0.125" beside "-1.13"),
// worked out by hand for head 2 of press H = 8 (m = 1/8) at T = 16: -d/8 for d = 0..15.
TEST(Pictures, CellNumbersShareTheirDecimalsAcrossAHead) {
    std::vector<double> values;
    for (int d = 0; d < 16; ++d) values.push_back(-0.125 * d);
    values.push_back(std::numeric_limits<double>::quiet_NaN());  // a masked cell
    const auto chars = [](std::string_view s) { return static_cast<double>(s.size()); };
    // Room for "-1.875": every value exact, with 3 decimals.
    auto exact = cellNumberTexts(values, false, chars, 6);
    ASSERT_TRUE(exact);
    EXPECT_EQ(exact->decimals, 3);
    EXPECT_EQ(exact->texts[1], "-0.125");
    EXPECT_EQ(exact->texts[9], "-1.125");
    EXPECT_EQ(exact->texts[0], "0");
    EXPECT_EQ(exact->texts[16], "");
    // Room for 5 characters: 2 decimals for every cell, ties away from zero.
    auto two = cellNumberTexts(values, false, chars, 5);
    ASSERT_TRUE(two);
    EXPECT_EQ(two->decimals, 2);
    EXPECT_EQ(two->texts[1], "-0.13");
    EXPECT_EQ(two->texts[3], "-0.38");
    EXPECT_EQ(two->texts[9], "-1.13");
    EXPECT_EQ(two->texts[4], "-0.50");
    // 4: one decimal ("-1.9" for -1.875); 3: nothing fits.
    auto one = cellNumberTexts(values, false, chars, 4);
    ASSERT_TRUE(one);
    EXPECT_EQ(one->texts[15], "-1.9");
    EXPECT_EQ(one->texts[1], "-0.1");
    EXPECT_FALSE(cellNumberTexts(values, false, chars, 3));
    // Whole numbers keep no decimals; probabilities two at most.
    auto whole = cellNumberTexts(std::vector<double>{-15, -7, 0}, false, chars, 3);
    ASSERT_TRUE(whole);
    EXPECT_EQ(whole->texts[0], "-15");
    auto probabilities = cellNumberTexts(std::vector<double>{0.394, 0.2389, 1.0 / 3}, true, chars, 10);
    ASSERT_TRUE(probabilities);
    EXPECT_EQ(probabilities->texts, (std::vector<std::string>{"0.39", "0.24", "0.33"}));
}

// The grid figure draws square cells, as both explorers do ("1 cell = 12.6 x 17.2 px" before), and
// without a height asked for it ends below what it drew instead of in an empty strip.
TEST(Pictures, CompareFigureEndsBelowItsCaptionWithoutAHeight) {
    // H = 8, T = 16 at 1024 x 768: square tiles in two rows fill about 600 px; the rest was white.
    ViewFigureRequest r;
    r.session = defaultSession();
    r.session.attention.bias.slopes.heads = 8;
    r.session.attention.bias.queries = 16;
    r.session.width = 1024;
    r.session.height = 768;
    r.view = ExplorerView::Compare;
    auto full = renderViewFigurePng(r);
    ASSERT_TRUE(full) << full.error().message;
    EXPECT_EQ(full->height, 768);
    r.heightGiven = false;
    auto cut = renderViewFigurePng(r);
    ASSERT_TRUE(cut) << cut.error().message;
    EXPECT_LT(cut->height, 700);
    int lowestInk = 0;
    const Rgba background = cut->at(0, cut->height - 1);
    for (int y = 0; y < cut->height; ++y)
        for (int x = 0; x < cut->width; ++x)
            if (cut->at(x, y) != background) lowestInk = y;
    EXPECT_GE(lowestInk, cut->height - 11);
}

TEST(Pictures, GridFigureHasSquareCellsAndEndsBelowItsCaption) {
    ViewFigureRequest r;
    r.session = defaultSession();
    r.session.what = RenderWhat::Attention;
    r.session.attention.bias.slopes.heads = 8;
    r.session.attention.bias.queries = 16;
    r.session.width = 1024;
    r.session.height = 768;
    r.view = ExplorerView::Grid;
    auto full = renderViewFigurePng(r);
    ASSERT_TRUE(full) << full.error().message;
    EXPECT_EQ(full->height, 768);  // a height asked for is kept
    r.heightGiven = false;
    auto cut = renderViewFigurePng(r);
    ASSERT_TRUE(cut) << cut.error().message;
    EXPECT_EQ(cut->width, 1024);
    EXPECT_LT(cut->height, 700);
    // The caption's last row of ink sits within the 10 px margin of the bottom.
    int lowestInk = 0;
    const Rgba background = cut->at(0, cut->height - 1);
    for (int y = 0; y < cut->height; ++y)
        for (int x = 0; x < cut->width; ++x)
            if (cut->at(x, y) != background) lowestInk = y;
    EXPECT_GE(lowestInk, cut->height - 11);
    // Head 0's cell [0, 0] (p = 1, the top colour): as wide as tall, to the pixel its edges round to.
    const Rgba top = valueColor(Colormap::Viridis, 1, 0, 1);
    int x0 = -1, y0 = -1;
    for (int y = 0; y < cut->height && y0 < 0; ++y)
        for (int x = 0; x < cut->width / 2 && x0 < 0; ++x)
            if (cut->at(x, y) == top) x0 = x, y0 = y;
    ASSERT_GE(x0, 0) << "no cell in the top colour";
    int w = 0, h = 0;
    while (cut->at(x0 + w, y0) == top) ++w;
    while (cut->at(x0, y0 + h) == top) ++h;
    EXPECT_GE(w, 10);
    EXPECT_LE(std::abs(w - h), 1) << w << " x " << h << " px";
}
