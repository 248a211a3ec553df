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
