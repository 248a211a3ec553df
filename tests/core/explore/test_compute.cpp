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
    EXPECT_EQ(explore::gridPreviewSteps(grid(8, 1024, ContentKind::Qk, 64)), std::vector<int>{1});
    EXPECT_EQ(explore::gridPreviewSteps(grid(8, 65536, ContentKind::Zero, 64)), std::vector<int>{1});
    HeatmapParams bias = grid(8, 65536, ContentKind::Qk, 4096);
    bias.what = RenderWhat::Bias;
    EXPECT_EQ(explore::gridPreviewSteps(bias), std::vector<int>{1});
}

TEST(ComputeGrid, HeavyViewStartsCoarseAndEndsExact) {
    const HeatmapParams p = grid(8, 65536, ContentKind::Qk, 4096);
    const std::vector<int> steps = explore::gridPreviewSteps(p);
    ASSERT_GE(steps.size(), 2U);
    EXPECT_GE(steps.front(), 8);
    EXPECT_EQ(steps.back(), 1);
    for (std::size_t i = 1; i < steps.size(); ++i) EXPECT_LT(steps[i], steps[i - 1]);
    const std::vector<double> shares = explore::gridPassShares(p, steps);
    ASSERT_EQ(shares.size(), steps.size());
    EXPECT_NEAR(std::accumulate(shares.begin(), shares.end(), 0.0), 1.0, 1e-12);
    EXPECT_GT(shares.back(), 0.5);  // the exact pass is most of the work
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
