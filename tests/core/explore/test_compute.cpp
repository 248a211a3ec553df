// The progressive schedule of the explorer's grid: cheap grids are computed once; a heavy legal
// view (issue 26: q.k attention, H = 8, T = 65536, d_k = 4096 at 1920 x 1080) starts with a
// preview from fewer exact rows and ends with the exact grid.
#include <alibi/explore/compute.hpp>

#include <gtest/gtest.h>

#include <numeric>

using namespace alibi;

namespace {
HeatmapParams grid(int heads, std::int64_t t, ContentKind kind, int dk) {
    HeatmapParams p;
    p.what = RenderWhat::Attention;
    p.attention.bias.slopes.heads = heads;
    p.attention.bias.queries = t;
    p.attention.content.kind = kind;
    p.attention.content.dk = dk;
    p.width = 1920;
    p.height = 1080;
    return p;
}
}  // namespace

TEST(ComputeGrid, CheapGridsHaveNoPreview) {
    const std::vector<explore::GridPass> exact{{1, 1}};
    EXPECT_EQ(explore::gridPasses(grid(8, 1024, ContentKind::Qk, 64)), exact);
    EXPECT_EQ(explore::gridPasses(grid(8, 65536, ContentKind::Zero, 64)), exact);
    HeatmapParams bias = grid(8, 65536, ContentKind::Qk, 4096);
    bias.what = RenderWhat::Bias;
    EXPECT_EQ(explore::gridPasses(bias), exact);
}

// Issue 26's heavy view (q.k, H = 8, T = 65536, d_k = 4096 at 1920x1080): every exact row
// draws every key's 4096 normals (8 GiB of keys in all), so the first picture is from fewer
// rows and 1 key in keyStep, modelled at under half a second; then the exact grid, which is
// most of the work (exact rows from fewer pixel rows would cost a draw of every head's keys and
// look coarser than the first picture).
TEST(ComputeGrid, HeavyViewStartsCoarseAndEndsExact) {
    const HeatmapParams p = grid(8, 65536, ContentKind::Qk, 4096);
    const std::vector<explore::GridPass> passes = explore::gridPasses(p);
    ASSERT_EQ(passes.size(), 2U);
    EXPECT_GT(passes[0].rowStep, 1);  // a preview's rowStep is > 1: the views' test for "preview"
    EXPECT_GT(passes[0].keyStep, 1);
    EXPECT_LE(explore::gridPassSeconds(p, passes[0]), 0.5);
    EXPECT_EQ(passes.back(), (explore::GridPass{1, 1}));
    // A larger image of the same view gets an exact pass from fewer rows in between, finer than
    // its first picture.
    HeatmapParams large = p;
    large.width = 7680;
    large.height = 4320;
    const std::vector<explore::GridPass> more = explore::gridPasses(large);
    ASSERT_EQ(more.size(), 3U) << more[0].rowStep << " " << more[0].keyStep;
    EXPECT_EQ(more[1].keyStep, 1);
    EXPECT_LT(more[1].rowStep, more[0].rowStep);
    EXPECT_LT(explore::gridPassSeconds(large, more[1]), explore::gridPassSeconds(large, {1, 1}) / 4);
    const std::vector<double> shares = explore::gridPassShares(p, passes);
    ASSERT_EQ(shares.size(), passes.size());
    EXPECT_NEAR(std::accumulate(shares.begin(), shares.end(), 0.0), 1.0, 1e-12);
    EXPECT_GT(shares.back(), 0.5);  // the exact pass is most of the work
}

// Gaussian content has no key vectors: its previews use exact rows only.
TEST(ComputeGrid, GaussianPreviewsAreExactRows) {
    const HeatmapParams p = grid(64, 1048576, ContentKind::Gaussian, 64);
    const std::vector<explore::GridPass> passes = explore::gridPasses(p);
    ASSERT_GE(passes.size(), 2U);
    for (const explore::GridPass& pass : passes) EXPECT_EQ(pass.keyStep, 1);
    EXPECT_GT(passes.front().rowStep, 1);
    EXPECT_EQ(passes.back().rowStep, 1);
}

TEST(ComputeGrid, WithoutAPreviewCallbackOnePassAndTheExactGrid) {
    explore::Request r;
    r.session.attention.bias.slopes.heads = 2;
    r.session.attention.bias.queries = 32;
    r.session.attention.content.kind = ContentKind::Qk;
    r.session.what = RenderWhat::Attention;
    r.gridWidth = 64;
    r.gridHeight = 32;
    int previews = 0;
    auto g = explore::computeGrid(r, {}, {}, [&](explore::GridSnapshot) { ++previews; });
    ASSERT_TRUE(g) << g.error().message;
    EXPECT_EQ(previews, 0);
    EXPECT_EQ(g->grid.rowStep, 1);
    EXPECT_EQ(g->title.find("preview"), std::string::npos);
}

// The details report one progress over their steps: it only grows, ends at the whole, and a
// false answer stops the call early (no statistics).
TEST(ComputeDetails, ProgressGrowsToTheWholeAndCancels) {
    explore::Request r;
    r.session.attention.bias.slopes.heads = 4;
    r.session.attention.bias.queries = 256;
    r.session.attention.content.kind = ContentKind::Qk;
    r.session.attention.content.dk = 32;
    r.session.what = RenderWhat::Attention;
    r.gridWidth = 128;
    r.gridHeight = 128;
    auto g = explore::computeGrid(r);
    ASSERT_TRUE(g) << g.error().message;
    const auto grid = std::make_shared<const explore::GridSnapshot>(std::move(*g));
    std::vector<double> seen;
    const auto details = explore::computeDetails(r, grid, {}, [&](std::uint64_t done, std::uint64_t total) {
        seen.push_back(static_cast<double>(done) / static_cast<double>(total));
        return true;
    });
    ASSERT_TRUE(details.stats && details.stages) << details.error;
    EXPECT_EQ(details.stats->heads.size(), 4U);
    EXPECT_FALSE(details.stages->probabilities.empty());
    ASSERT_GE(seen.size(), 3U);
    for (std::size_t i = 1; i < seen.size(); ++i) EXPECT_GE(seen[i], seen[i - 1]) << i;
    EXPECT_NEAR(seen.back(), 1.0, 1e-6);
    int calls = 0;
    const auto stopped =
        explore::computeDetails(r, grid, {}, [&](std::uint64_t, std::uint64_t) { return ++calls < 2; });
    EXPECT_FALSE(stopped.stats);
    EXPECT_FALSE(stopped.stages);
}

// The details' head image of the heavy view (one head, 512 x 512 pixels of q.k rows over 65536
// keys of 4096 dimensions): its first picture is from exact rows only (keyStep 1), 1 in rowStep,
// then the exact image; a cheap head image is computed once.
TEST(ComputeDetails, DetailPassesAreExactRowsFirstThenTheExactImage) {
    HeatmapParams p = grid(8, 65536, ContentKind::Qk, 4096);
    p.head = 0;
    p.width = 512;
    p.height = 512;
    const std::vector<explore::GridPass> passes = explore::detailPasses(p);
    ASSERT_EQ(passes.size(), 2U);
    EXPECT_GT(passes[0].rowStep, 1);
    EXPECT_EQ(passes[0].keyStep, 1);
    EXPECT_LT(explore::gridPassSeconds(p, passes[0]), explore::gridPassSeconds(p, {1, 1}) / 2);
    EXPECT_EQ(passes.back(), (explore::GridPass{1, 1}));
    HeatmapParams cheap = grid(8, 256, ContentKind::Qk, 64);
    cheap.head = 0;
    EXPECT_EQ(explore::detailPasses(cheap), (std::vector<explore::GridPass>{{1, 1}}));
}

// renderPasses: every pass but the last goes to the preview with its own rowStep, the progress
// runs once over all passes (never backwards, ending at the whole), and a false answer cancels.
TEST(ComputeDetails, RenderPassesPreviewsThenReturnsTheLastPass) {
    HeatmapParams p = grid(2, 512, ContentKind::Gaussian, 64);
    p.width = 128;
    p.height = 96;
    std::vector<int> previews;
    std::vector<double> seen;
    auto map = explore::renderPasses(
        p, {{8, 1}, {2, 1}, {1, 1}}, 2,
        [&](std::uint64_t done, std::uint64_t total) {
            seen.push_back(static_cast<double>(done) / static_cast<double>(total));
            return true;
        },
        [&](const HeatmapParams& pass, Heatmap first) {
            previews.push_back(pass.rowStep);
            EXPECT_EQ(first.rowStep, pass.rowStep);
            EXPECT_EQ(first.image.width, p.width);
        });
    ASSERT_TRUE(map) << map.error().message;
    EXPECT_EQ(previews, (std::vector<int>{8, 2}));
    EXPECT_EQ(map->rowStep, 1);
    ASSERT_FALSE(seen.empty());
    for (std::size_t i = 1; i < seen.size(); ++i) EXPECT_GE(seen[i], seen[i - 1]) << i;
    EXPECT_NEAR(seen.back(), 1.0, 1e-6);
    // The exact pass alone gives the same picture as renderHeatmap.
    auto direct = renderHeatmap(p, 2);
    ASSERT_TRUE(direct);
    EXPECT_EQ(map->image.pixels, direct->image.pixels);
    int calls = 0;
    auto stopped =
        explore::renderPasses(p, {{8, 1}, {1, 1}}, 2, [&](std::uint64_t, std::uint64_t) { return ++calls < 2; });
    ASSERT_FALSE(stopped);
    EXPECT_EQ(stopped.error().code, ErrorCode::Cancelled);
}

// A costly head image (Gaussian content over 2^19 keys: 512 exact rows draw 2^28 normals) sends
// a first picture from fewer exact rows, labelled a preview, holding only the head image; the
// result is the exact image, its title unlabelled, with statistics and stages.
TEST(ComputeDetails, ACostlyHeadImageSendsAnExactRowPreviewFirst) {
    explore::Request r;
    r.session.what = RenderWhat::Attention;
    r.session.attention.bias.slopes.heads = 1;
    r.session.attention.bias.queries = 1 << 19;
    r.session.attention.content.kind = ContentKind::Gaussian;
    r.wantCurves = false;
    std::vector<explore::Snapshot> previews;
    std::vector<double> seen;
    const explore::Snapshot details = explore::computeDetails(
        r, nullptr, {},
        [&](std::uint64_t done, std::uint64_t total) {
            seen.push_back(static_cast<double>(done) / static_cast<double>(total));
            return true;
        },
        [&](const explore::Snapshot& first) { previews.push_back(first); });
    ASSERT_EQ(previews.size(), 1U);
    const explore::Snapshot& first = previews.front();
    EXPECT_GT(first.detailParams.rowStep, 1);
    EXPECT_EQ(first.detailParams.keyStep, 1);
    EXPECT_EQ(first.detail.rowStep, first.detailParams.rowStep);
    EXPECT_NE(first.detailTitle.find("preview from 1 exact row in"), std::string::npos) << first.detailTitle;
    EXPECT_NE(first.detailTitle.find("refining"), std::string::npos) << first.detailTitle;
    EXPECT_FALSE(first.stats);
    EXPECT_FALSE(first.stages);
    ASSERT_TRUE(details.stats && details.stages) << details.error;
    EXPECT_EQ(details.detailParams.rowStep, 1);
    EXPECT_EQ(details.detail.rowStep, 1);
    EXPECT_EQ(details.detail.image.width, first.detail.image.width);
    EXPECT_EQ(details.detail.image.height, first.detail.image.height);
    EXPECT_EQ(details.detailTitle.find("preview"), std::string::npos) << details.detailTitle;
    // The statistics average the core's budget of rows: 2^23 / (H K) = 16.
    EXPECT_EQ(statsRowsToAverage(StatsParams{r.session.attention, -1, 0}), 16);
    EXPECT_EQ(details.stats->rowsAveraged, 16);
    EXPECT_TRUE(details.slopeCurves.empty());  // wantCurves false
    for (std::size_t i = 1; i < seen.size(); ++i) EXPECT_GE(seen[i], seen[i - 1]) << i;
    EXPECT_NEAR(seen.back(), 1.0, 1e-6);
    // Without a preview callback: one pass, and the same exact image.
    const explore::Snapshot once = explore::computeDetails(r, nullptr);
    EXPECT_EQ(once.detail.image.pixels, details.detail.image.pixels);
    // A request that names the rows gets them.
    r.session.attention.bias.queries = 64;
    r.statsMaxRows = 3;
    const explore::Snapshot three = explore::computeDetails(r, nullptr);
    ASSERT_TRUE(three.stats) << three.error;
    EXPECT_EQ(three.stats->rowsAveraged, 3);
}

// Lesson 4's steps 6 and 7 differ only in the mask (-1e9 in f16, then mask min): the title says
// which mask the masked cells hold, and what it is once stored in the dtype; the default (-1e9
// in f32) and a mode without a mask add nothing.
TEST(HeatmapTitle, NamesTheMaskWhereItChangesTheCells) {
    HeatmapParams p = grid(8, 16, ContentKind::Zero, 64);
    p.what = RenderWhat::Bias;
    EXPECT_EQ(explore::heatmapTitle(p).find("mask"), std::string::npos) << explore::heatmapTitle(p);

    p.attention.bias.dtype = DType::F16;
    EXPECT_NE(explore::heatmapTitle(p).find("· mask -1e9 (-inf in f16)"), std::string::npos)
        << explore::heatmapTitle(p);
    p.attention.bias.mask = *parseMask("min");
    EXPECT_NE(explore::heatmapTitle(p).find("· mask min (-65504 in f16)"), std::string::npos)
        << explore::heatmapTitle(p);
    p.attention.bias.mask = *parseMask("-inf");
    EXPECT_NE(explore::heatmapTitle(p).find("· mask -inf"), std::string::npos) << explore::heatmapTitle(p);
    EXPECT_EQ(explore::heatmapTitle(p).find("(-inf in"), std::string::npos) << explore::heatmapTitle(p);

    p.attention.bias.mode = BiasMode::Symmetric;
    EXPECT_EQ(explore::heatmapTitle(p).find("mask"), std::string::npos) << explore::heatmapTitle(p);
}

// One compare bar for both explorers and the figure: symmetric about 0 out to max |A - B|, its
// ends the exact text of that value; A = B the one tick "0" (Qt drew +-1 there).
TEST(CompareColorBar, SymmetricToTheLargestDifferenceAndOneZeroWhenEqual) {
    explore::CompareSnapshot compare;
    compare.maxAbsDifference = 7.5;  // lesson 2 step 5: slopes 1 and 1/2 at distance 15, (1 - 1/2) x 15
    ColorBar bar = explore::compareColorBar(compare, true, 5);
    ASSERT_GE(bar.ticks.size(), 2U);
    EXPECT_EQ(bar.ticks.front().label, "-7.5");
    EXPECT_EQ(bar.ticks.back().label, "7.5");
    EXPECT_EQ(bar.lo, -7.5);
    EXPECT_EQ(bar.hi, 7.5);
    EXPECT_TRUE(bar.maskedSwatch);
    EXPECT_EQ(bar.title, "A − B");
    compare.maxAbsDifference = 0;
    bar = explore::compareColorBar(compare, false, 5);
    ASSERT_EQ(bar.ticks.size(), 1U);
    EXPECT_EQ(bar.ticks.front().label, "0");
    EXPECT_FALSE(bar.maskedSwatch);
}
