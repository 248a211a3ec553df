// Tests for <alibi/render.hpp>: tile layout, pixel colours against the formula, masking,
// scales, sampling at T far beyond the image, hit testing.
#include <alibi/io/session.hpp>
#include <alibi/model/bias.hpp>
#include <alibi/model/slopes.hpp>
#include <alibi/render/render.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <vector>

using namespace alibi;

namespace {
HeatmapParams small(int heads, long t, int w, int h) {
    HeatmapParams p;
    p.attention.bias.slopes.heads = heads;
    p.attention.bias.queries = t;
    p.width = w;
    p.height = h;
    return p;
}
TEST(SessionHeatmap, CarriesEveryFieldOfTheSession) {
    alibi::Session s = alibi::defaultSession();
    s.attention.bias.slopes.heads = 5;
    s.what = alibi::RenderWhat::Attention;
    s.head = 3;
    s.colormap = alibi::Colormap::Magma;
    s.scale = alibi::ScaleMode::PerHead;
    s.width = 321;
    s.height = 123;
    const alibi::HeatmapParams p = alibi::heatmapParams(s);
    EXPECT_EQ(p.attention, s.attention);
    EXPECT_EQ(p.what, alibi::RenderWhat::Attention);
    EXPECT_EQ(p.head, 3);
    EXPECT_EQ(p.colormap, alibi::Colormap::Magma);
    EXPECT_EQ(p.scale, alibi::ScaleMode::PerHead);
    EXPECT_EQ(p.width, 321);
    EXPECT_EQ(p.height, 123);
}

}  // namespace

TEST(Render, GridLayoutIsNearSquare) {
    EXPECT_EQ(gridLayout(8, 800, 400).columns, 4);
    EXPECT_EQ(gridLayout(8, 800, 400).rows, 2);
    EXPECT_EQ(gridLayout(1, 300, 300).columns, 1);
    const auto g = gridLayout(12, 1200, 900);
    EXPECT_EQ(g.columns * g.rows >= 12, true);
    EXPECT_EQ(g.columns, 4);
}

TEST(Render, SingleHeadPixelsFollowTheFormula) {
    // One head, T = 4 on a 4x4 image: pixel (x, y) is cell (y, x). H = 1: m = 1/256.
    auto p = small(1, 4, 4, 4);
    p.head = 0;
    auto map = renderHeatmap(p);
    ASSERT_TRUE(map) << map.error().message;
    const double m = 1.0 / 256, lo = -3 * m, hi = 0;
    EXPECT_DOUBLE_EQ(map->lo, lo);
    EXPECT_DOUBLE_EQ(map->hi, hi);
    for (int y = 0; y < 4; ++y)
        for (int x = 0; x < 4; ++x) {
            const Rgba want = x > y ? kMaskedColor : valueColor(Colormap::Viridis, -m * (y - x), lo, hi);
            EXPECT_EQ(map->image.at(x, y), want) << x << "," << y;
        }
    EXPECT_EQ(map->image.at(0, 3), colormapColor(Colormap::Viridis, 0.0));  // most negative -> 0
}

TEST(Render, SharedAndPerHeadScales) {
    auto p = small(2, 8, 40, 20);  // slopes 1/16, 1/256
    auto shared = renderHeatmap(p);
    ASSERT_TRUE(shared);
    ASSERT_EQ(shared->tiles.size(), 2U);
    EXPECT_DOUBLE_EQ(shared->tiles[1].lo, -7.0 / 16);
    p.scale = ScaleMode::PerHead;
    auto per = renderHeatmap(p);
    ASSERT_TRUE(per);
    EXPECT_DOUBLE_EQ(per->tiles[0].lo, -7.0 / 16);
    EXPECT_DOUBLE_EQ(per->tiles[1].lo, -7.0 / 256);
}

TEST(Render, HugeTSamplesAtPixelResolution) {
    auto p = small(4, 65536, 256, 256);
    auto map = renderHeatmap(p);
    ASSERT_TRUE(map) << map.error().message;
    const auto& t = map->tiles[3];
    // Bottom-left pixel of the last head: query and key near 65535 and 0.
    auto hit = hitTest(*map, p, t.x, t.y + t.height - 1);
    ASSERT_TRUE(hit);
    EXPECT_EQ(hit->head, 3);
    EXPECT_GT(hit->query, 65000);
    EXPECT_LT(hit->key, 600);
    const double m = std::pow(2.0, -8.0);
    EXPECT_EQ(map->image.at(t.x, t.y + t.height - 1),
              valueColor(Colormap::Viridis, static_cast<float>(-m * (hit->query - hit->key)), map->lo, map->hi));
}

TEST(Render, HitTestOutsideTilesAndErrors) {
    auto p = small(8, 16, 100, 50);
    auto map = renderHeatmap(p);
    ASSERT_TRUE(map);
    EXPECT_FALSE(hitTest(*map, p, 99, 49 + 10));
    auto tooSmall = small(256, 16, 10, 10);
    EXPECT_FALSE(renderHeatmap(tooSmall));
    auto badHead = small(2, 4, 10, 10);
    badHead.head = 5;
    EXPECT_FALSE(renderHeatmap(badHead));
}

TEST(Render, AttentionRowsSumToOneAcrossAWideTile) {
    auto p = small(1, 5, 5, 5);
    p.head = 0;
    p.what = RenderWhat::Attention;
    auto map = renderHeatmap(p);
    ASSERT_TRUE(map) << map.error().message;
    // Row 0 of a causal head attends only to key 0: probability 1, the top of the scale.
    EXPECT_DOUBLE_EQ(map->hi, 1.0);
    EXPECT_EQ(map->image.at(0, 0), colormapColor(Colormap::Viridis, 1.0));
    EXPECT_EQ(map->image.at(1, 0), kMaskedColor);
}

TEST(Render, AttentionHeatmapHonoursACancelLateInTheRender) {
    // Two threads split the rows; in a causal head the calling thread's (top) half is the cheap
    // one. A cancel asked for after three quarters of the rows must still stop the render, and
    // the rows counted must be the tile's rows (in 1/256 of a row: the units the renderer's
    // attention rows report in). Rows of 16384 keys take long enough that the last quarter
    // cannot slip past between two of the caller's 2 ms checks.
    auto p = small(1, 16384, 256, 256);
    p.head = 0;
    p.what = RenderWhat::Attention;
    p.attention.content.kind = ContentKind::Gaussian;
    std::uint64_t lastTotal = 0;
    auto map = renderHeatmap(p, 2, [&](std::uint64_t done, std::uint64_t total) {
        lastTotal = total;
        return done * 4 < total * 3;
    });
    ASSERT_FALSE(map);
    EXPECT_EQ(map.error().code, ErrorCode::Cancelled);
    EXPECT_EQ(lastTotal, 256U * 256U);
}

TEST(Render, DivergingScaleIsSymmetric) {
    auto p = small(1, 6, 6, 6);
    p.head = 0;
    p.colormap = Colormap::Diverging;
    p.attention.bias.mode = BiasMode::Symmetric;
    auto map = renderHeatmap(p);
    ASSERT_TRUE(map);
    EXPECT_DOUBLE_EQ(map->lo, -map->hi);
}

TEST(Render, ColorBarRunsLowToHigh) {
    const Image bar = renderColorBar(Colormap::Magma, 4, 100, true);
    EXPECT_EQ(bar.at(0, 99), colormapColor(Colormap::Magma, 0.0));
    EXPECT_EQ(bar.at(0, 0), colormapColor(Colormap::Magma, 1.0));
    EXPECT_EQ(renderWhatName(*parseRenderWhat("attention")), "attention");
    EXPECT_EQ(parseScaleMode("per-head"), ScaleMode::PerHead);
}

TEST(Render, ValueGridColoursEachCellAndMasksNonFinite) {
    // Two heads of a 2x2 array: head 0 holds i - j, head 1 is all NaN.
    const Heatmap map = renderValueGrid(
        {2, 2, 2, Colormap::Diverging, -1, 1, 20, 10, 0},
        [](int h, std::int64_t i, std::int64_t j) { return h == 0 ? static_cast<double>(i - j) : std::nan(""); });
    ASSERT_EQ(map.tiles.size(), 2U);
    const auto& t0 = map.tiles[0];
    EXPECT_EQ(map.image.at(t0.x, t0.y + t0.height - 1), colormapColor(Colormap::Diverging, 1.0));  // i=1, j=0
    EXPECT_EQ(map.image.at(t0.x + t0.width - 1, t0.y), colormapColor(Colormap::Diverging, 0.0));   // i=0, j=1
    EXPECT_EQ(map.image.at(t0.x, t0.y), colormapColor(Colormap::Diverging, 0.5));
    const auto& t1 = map.tiles[1];
    EXPECT_EQ(map.image.at(t1.x + 1, t1.y + 1), kMaskedColor);
}

TEST(Render, ValueGridSquareCellsCropsToTheTiles) {
    // 8 heads of 16 x 16 cells in a wide 600 x 200 room, a 20 px label band and 4 px gaps: 4
    // columns x 2 rows, (200 - 4 - 2 x 20) / 2 = 78 px tall, so 78 px wide too (not
    // (600 - 12) / 4 = 147, which would stretch the cells), and the image cropped to
    // 3 x (78 + 4) + 78 = 324 x 200.
    ValueGridParams p{8, 16, 16, Colormap::Diverging, -1, 1, 600, 200, 4, 20};
    p.squareCells = true;
    const Heatmap map = renderValueGrid(p, [](int, std::int64_t i, std::int64_t j) { return double(i - j); });
    ASSERT_EQ(map.tiles.size(), 8U);
    for (const HeatmapTile& t : map.tiles) {
        EXPECT_EQ(t.width, 78);
        EXPECT_EQ(t.height, 78);
    }
    int right = 0, bottom = 0;
    for (const HeatmapTile& t : map.tiles)
        right = std::max(right, t.x + t.width), bottom = std::max(bottom, t.y + t.height);
    EXPECT_EQ(map.image.width, right);
    EXPECT_EQ(map.image.height, bottom);
    EXPECT_EQ(map.image.width, 324);
    EXPECT_EQ(map.image.height, 200);
    // Without it the tiles fill the room, stretched.
    p.squareCells = false;
    const Heatmap stretched = renderValueGrid(p, [](int, std::int64_t i, std::int64_t j) { return double(i - j); });
    EXPECT_EQ(stretched.image.width, 600);
    EXPECT_NE(stretched.tiles[0].width, stretched.tiles[0].height);
}

// ---------------------------------------------------------------------------
// Downsampling that keeps every peak, and exact ranges.

TEST(Render, OneCellDiagonalLightsEveryPixelRowAt65536) {
    // All the mass on the diagonal: slope 1000 makes exp(-1000 d) vanish for every d >= 1.
    HeatmapParams p;
    p.attention.bias.slopes.heads = 1;
    p.attention.bias.slopes.scheme = SlopeScheme::Custom;
    p.attention.bias.slopes.custom = {1000};
    p.attention.bias.queries = 65536;
    p.what = RenderWhat::Attention;
    p.width = p.height = 256;
    auto map = renderHeatmap(p);
    ASSERT_TRUE(map) << map.error().message;
    EXPECT_EQ(map->reduce, Reduce::Max);
    EXPECT_TRUE(map->rowsSampled);
    EXPECT_EQ(map->summary, "1 px = 256 x 256 cells, max over keys, 1 exact query row of 256 per pixel row");
    EXPECT_EQ(map->hi, 1.0);
    const Rgba top = colormapColor(Colormap::Viridis, 1.0);
    for (int y = 0; y < 256; ++y) {
        int lit = 0;
        for (int x = 0; x < 256; ++x) lit += map->image.at(x, y) == top ? 1 : 0;
        EXPECT_EQ(lit, 1) << "pixel row " << y;
        EXPECT_EQ(map->image.at(y, y), top) << "pixel row " << y;  // on the diagonal
    }
}

TEST(Render, BiasPixelsShowTheMeanOfTheirCells) {
    // T = 64 on 8 x 8 pixels: each pixel is the mean of 8 x 8 cells (masked ones left out),
    // computed here by brute force for every mode, against the closed form in the renderer.
    for (BiasMode mode : {BiasMode::Causal, BiasMode::Symmetric, BiasMode::Clamped, BiasMode::Bloom, BiasMode::Mpt}) {
        HeatmapParams p;
        p.attention.bias.slopes.heads = 1;
        p.attention.bias.queries = 48;
        p.attention.bias.keys = 64;
        p.attention.bias.mode = mode;
        p.head = 0;
        p.width = 8;
        p.height = 6;
        auto map = renderHeatmap(p);
        ASSERT_TRUE(map) << map.error().message;
        EXPECT_EQ(map->summary, "1 px = 8 x 8 cells, mean");
        const double m = 1.0 / 256;
        const BiasParams& b = p.attention.bias;
        for (int y = 0; y < 6; ++y)
            for (int x = 0; x < 8; ++x) {
                double sum = 0;
                int n = 0;
                for (int i = 8 * y; i < 8 * y + 8; ++i)
                    for (int j = 8 * x; j < 8 * x + 8; ++j)
                        if (auto v = biasCell(mode, m, b.queryPosition(i), j, 64)) {
                            sum += *v;
                            ++n;
                        }
                const Rgba want = n == 0 ? kMaskedColor : valueColor(Colormap::Viridis, sum / n, map->lo, map->hi);
                EXPECT_EQ(map->image.at(x, y), want) << modeName(mode) << " pixel " << x << "," << y;
            }
    }
}

TEST(Render, RangeIsTheTensorsNotThePixels) {
    HeatmapParams p = small(12, 4096, 1920, 1080);
    auto map = renderHeatmap(p);
    ASSERT_TRUE(map) << map.error().message;
    EXPECT_EQ(map->lo, static_cast<double>(static_cast<float>(-std::sqrt(0.5) * 4095)));
    EXPECT_EQ(map->hi, 0.0);
    p.scale = ScaleMode::PerHead;
    map = renderHeatmap(p);
    ASSERT_TRUE(map);
    const auto slopes = computeSlopes(p.attention.bias.slopes).value();
    for (const HeatmapTile& t : map->tiles)
        EXPECT_EQ(t.lo, static_cast<double>(static_cast<float>(-slopes[static_cast<std::size_t>(t.head)] * 4095)));
}

TEST(Render, LogScaleSpansThePositiveValues) {
    HeatmapParams p = small(2, 64, 128, 64);
    p.what = RenderWhat::Attention;
    p.logScale = true;
    auto map = renderHeatmap(p);
    ASSERT_TRUE(map) << map.error().message;
    EXPECT_TRUE(map->log);
    EXPECT_GT(map->logLo, 0);
    EXPECT_GE(map->logLo, map->hi * 1e-12);
    EXPECT_LE(map->hi, 1.0);
    p.reduce = Reduce::Sum;
    p.logScale = false;
    p.head = 0;
    p.width = 128;
    map = renderHeatmap(p);
    ASSERT_TRUE(map);
    EXPECT_EQ(map->summary, "1 cell = 2 x 1 px");
}

TEST(Render, ZeroContentAttentionPixelsMatchTheDirectSoftmax) {
    // Zero-content attention grids are drawn in closed form (max and mean fused with the
    // colouring, sum in two passes). Here every pixel of an odd-sized tile is recomputed from
    // the softmax written out directly, in every mode and reduction.
    for (BiasMode mode : {BiasMode::Causal, BiasMode::Symmetric, BiasMode::Clamped, BiasMode::Bloom, BiasMode::Mpt})
        for (Reduce reduce : {Reduce::Max, Reduce::Mean, Reduce::Sum}) {
            HeatmapParams p = small(4, 53, 11, 7);
            p.attention.bias.mode = mode;
            p.what = RenderWhat::Attention;
            p.reduce = reduce;
            p.head = 2;
            auto map = renderHeatmap(p);
            ASSERT_TRUE(map) << map.error().message;
            const HeatmapTile& tile = map->tiles.at(0);
            const double m = computeSlopes(p.attention.bias.slopes).value()[2];
            const std::int64_t T = 53;
            double hi = 0;
            for (int y = 0; y < tile.height; ++y) {
                const auto q = std::clamp<std::int64_t>(
                    static_cast<std::int64_t>((y + 0.5) * static_cast<double>(T) / tile.height), 0, T - 1);
                std::vector<std::optional<double>> logit(T);
                double top = -std::numeric_limits<double>::infinity();
                for (std::int64_t j = 0; j < T; ++j) {
                    logit[static_cast<std::size_t>(j)] = biasCell(mode, m, q, j, T);
                    if (logit[static_cast<std::size_t>(j)]) top = std::max(top, *logit[static_cast<std::size_t>(j)]);
                }
                double total = 0;
                for (const auto& l : logit)
                    if (l) total += std::exp(*l - top);
                for (int x = 0; x < tile.width; ++x) {
                    const CellSpan keys = pixelCells(x, tile.width, T);
                    double best = 0, sum = 0;
                    int n = 0;
                    for (std::int64_t j = keys.first; j <= keys.last; ++j)
                        if (const auto& l = logit[static_cast<std::size_t>(j)]) {
                            const double prob = std::exp(*l - top) / total;
                            best = std::max(best, prob);
                            sum += prob;
                            ++n;
                        }
                    const double v = reduce == Reduce::Max ? best : reduce == Reduce::Sum ? sum : sum / n;
                    if (n > 0) hi = std::max(hi, reduce == Reduce::Sum ? v : best);
                    const Rgba want = n == 0 ? kMaskedColor : valueColor(Colormap::Viridis, v, map->lo, map->hi);
                    EXPECT_EQ(map->image.at(tile.x + x, tile.y + y), want)
                        << modeName(mode) << " " << reduceName(reduce) << " pixel " << x << "," << y;
                }
            }
            EXPECT_NEAR(map->hi, hi, 1e-12) << modeName(mode) << " " << reduceName(reduce);
        }
}

// A preview computes the exact rows of pixel rows 0, step, 2 step, ... and shows each down to
// the next: its rows repeat in runs of `step`, its range lies within the exact picture's (it
// saw a subset of the rows) and it says it is a preview.
TEST(Render, PreviewShowsEveryStepthExactRowRepeated) {
    auto p = small(2, 64, 130, 64);
    p.what = RenderWhat::Attention;
    p.attention.content.kind = ContentKind::Qk;
    p.attention.content.dk = 16;
    p.scale = ScaleMode::PerHead;
    auto exact = renderHeatmap(p, 2);
    p.rowStep = 4;
    auto preview = renderHeatmap(p, 2);
    ASSERT_TRUE(exact && preview);
    EXPECT_EQ(exact->rowStep, 1);
    EXPECT_EQ(preview->rowStep, 4);
    EXPECT_NE(preview->summary.find("preview"), std::string::npos) << preview->summary;
    EXPECT_EQ(exact->summary.find("preview"), std::string::npos);
    for (std::size_t t = 0; t < preview->tiles.size(); ++t) {
        const HeatmapTile& tile = preview->tiles[t];
        EXPECT_GE(tile.lo, exact->tiles[t].lo);
        EXPECT_LE(tile.hi, exact->tiles[t].hi);
        for (int y = 0; y < tile.height; ++y)
            for (int x = 0; x < tile.width; ++x)
                ASSERT_EQ(preview->image.at(tile.x + x, tile.y + y), preview->image.at(tile.x + x, tile.y + y - y % 4))
                    << "tile " << t << " y " << y;
    }
    // Zero content is closed form: never previewed.
    p.attention.content.kind = ContentKind::Zero;
    auto zero = renderHeatmap(p, 2);
    ASSERT_TRUE(zero);
    EXPECT_EQ(zero->rowStep, 1);
}

// A preview from the content of 1 key in keyStep (q.k only) says so, and differs from the
// exact picture; other content kinds ignore keyStep.
TEST(Render, KeyStepPreviewIsLabelledAndOnlyForQk) {
    auto p = small(2, 64, 130, 64);
    p.what = RenderWhat::Attention;
    p.attention.content.kind = ContentKind::Qk;
    p.attention.content.dk = 16;
    auto exact = renderHeatmap(p, 2);
    p.rowStep = 2;
    p.keyStep = 8;
    auto preview = renderHeatmap(p, 2);
    ASSERT_TRUE(exact && preview);
    EXPECT_EQ(exact->keyStep, 1);
    EXPECT_EQ(preview->keyStep, 8);
    EXPECT_NE(preview->summary.find("1 key in 8"), std::string::npos) << preview->summary;
    EXPECT_NE(preview->image.pixels, exact->image.pixels);
    p.attention.content.kind = ContentKind::Gaussian;
    auto gaussian = renderHeatmap(p, 2);
    ASSERT_TRUE(gaussian);
    EXPECT_EQ(gaussian->keyStep, 1);
    EXPECT_EQ(gaussian->summary.find("key in"), std::string::npos) << gaussian->summary;
}
