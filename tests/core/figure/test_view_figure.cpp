// Tests for <alibi/render/view_figure.hpp>: every view's PNG is exactly (w·s) x (h·s) at s = 1, 2,
// 4; heatmaps at 2x are rendered at that size (no upscaling blur); the SVG and the PNG of a vector
// view share one layout (the SVG's plot frame is where the PNG draws it); the stages leave masked
// keys out; bad scale, size, view and format say what is wrong.
#include <alibi/figure/view_figure.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>

using namespace alibi;

namespace {

ViewFigureRequest request(ExplorerView view, int width = 480, int height = 360) {
    ViewFigureRequest r;
    r.session = defaultSession();
    r.session.width = width;
    r.session.height = height;
    r.view = view;
    r.threads = 2;
    return r;
}

// Share of the aligned 2 x 2 blocks inside [x0, x1) x [y0, y1) whose four pixels are not all
// equal: 0 for an image upscaled 2x by pixel repetition.
double varyingBlocks(const Image& image, int x0, int y0, int x1, int y1) {
    int varying = 0, blocks = 0;
    for (int y = y0 & ~1; y + 1 < y1; y += 2)
        for (int x = x0 & ~1; x + 1 < x1; x += 2) {
            const Rgba p = image.at(x, y);
            ++blocks;
            varying += !(image.at(x + 1, y) == p && image.at(x, y + 1) == p && image.at(x + 1, y + 1) == p);
        }
    return blocks ? static_cast<double>(varying) / blocks : 0.0;
}

}  // namespace

TEST(ViewFigure, EveryViewHasExactlyTheScaledSize) {
    for (ExplorerView view : {ExplorerView::Grid, ExplorerView::Detail, ExplorerView::Curves, ExplorerView::Stages,
                              ExplorerView::Compare, ExplorerView::Extrapolation, ExplorerView::PositionSchemes}) {
        for (int scale : {1, 2, 4}) {
            ViewFigureRequest r = request(view, view == ExplorerView::PositionSchemes ? 900 : 640,
                                          view == ExplorerView::PositionSchemes ? 700 : 400);
            r.scale = scale;
            auto png = renderViewFigurePng(r);
            ASSERT_TRUE(png.has_value()) << explorerViewName(view) << ": " << png.error().message;
            EXPECT_EQ(png->width, r.session.width * scale) << explorerViewName(view);
            EXPECT_EQ(png->height, r.session.height * scale) << explorerViewName(view);
        }
    }
}

TEST(ViewFigure, HeatmapsAt2xAreRenderedNotUpscaled) {
    // T = 1024 in a 480 x 360 figure: a 1x pixel of a tile spans several cells, so the 2x pixels
    // inside it show different cells. Cell-to-cell noise makes that visible: gaussian content for
    // the grid's attention, B's bf16 rounding for compare.
    for (ExplorerView view : {ExplorerView::Grid, ExplorerView::Compare}) {
        ViewFigureRequest r = request(view);
        r.session.attention.bias.queries = 1024;
        r.session.what = view == ExplorerView::Grid ? RenderWhat::Attention : RenderWhat::Bias;
        r.session.attention.content.kind = view == ExplorerView::Grid ? ContentKind::Gaussian : ContentKind::Zero;
        CompareOverrides b;
        b.dtype = DType::BF16;
        r.session.compare = b;
        r.scale = 2;
        auto two = renderViewFigurePng(r);
        ASSERT_TRUE(two.has_value()) << two.error().message;
        // The middle of the figure is heatmap (tiles), away from text.
        const double share =
            varyingBlocks(*two, two->width * 3 / 10, two->height * 4 / 10, two->width * 6 / 10, two->height * 6 / 10);
        EXPECT_GT(share, 0.05) << explorerViewName(
            view);  // upscaled: exactly 0 (half the window is the masked triangle)
    }
}

TEST(ViewFigure, SvgAndPngShareOneLayout) {
    for (ExplorerView view : {ExplorerView::Curves, ExplorerView::Extrapolation}) {
        ViewFigureRequest r = request(view, 640, 400);
        auto svg = renderViewFigureSvg(r);
        ASSERT_TRUE(svg.has_value()) << svg.error().message;
        // The plot frame: the one unfilled rectangle.
        const auto at = svg->rfind("<rect x=", svg->find("fill=\"none\""));
        ASSERT_NE(at, std::string::npos);
        double x = 0, y = 0, w = 0, h = 0;
        ASSERT_EQ(
            std::sscanf(svg->c_str() + at, "<rect x=\"%lf\" y=\"%lf\" width=\"%lf\" height=\"%lf\"", &x, &y, &w, &h),
            4);
        for (int scale : {1, 2}) {
            r.scale = scale;
            auto png = renderViewFigurePng(r);
            ASSERT_TRUE(png.has_value());
            // The frame's left and right edges are drawn in the frame grey exactly where the SVG has them.
            const Rgba frame{64, 64, 64, 255};
            const int midY = static_cast<int>((y + h / 2) * scale);
            const int left = static_cast<int>(std::lround((x - 0.5) * scale));
            const int right = static_cast<int>(std::lround((x + w - 0.5) * scale));
            EXPECT_EQ(png->at(left, midY), frame) << explorerViewName(view) << " at " << scale << "x";
            EXPECT_EQ(png->at(right, midY), frame) << explorerViewName(view) << " at " << scale << "x";
            EXPECT_NE(png->at(left - 2 * scale, midY), frame);  // and not a wider band
        }
    }
}

TEST(ViewFigure, StagesLeaveMaskedKeysOut) {
    // Causal, T = 16, query 10: keys 11..15 are masked, so every stage draws keys 0..10, 11 bars
    // each (one key span for the four panels).
    ViewFigureRequest r = request(ExplorerView::Stages, 1000, 400);
    r.session.attention.bias.queries = 16;
    r.session.queryRow = 10;
    r.session.head = 2;
    auto svg = renderViewFigureSvg(r);
    ASSERT_TRUE(svg.has_value()) << svg.error().message;
    std::size_t bars = 0;
    for (std::size_t at = svg->find("<title>head 2, query 10 at "); at != std::string::npos;
         at = svg->find("<title>head 2, query 10 at ", at + 1))
        ++bars;
    EXPECT_EQ(bars, 4U * 11U);
    EXPECT_EQ(svg->find("query 10 at 12: -1e+09"), std::string::npos);  // the mask value is never drawn
    EXPECT_NE(svg->find("keys 11-15: masked (-1e9)"), std::string::npos);
}

TEST(ViewFigure, BadRequestsSayWhatIsWrong) {
    ViewFigureRequest r = request(ExplorerView::Grid);
    r.scale = 3;
    auto png = renderViewFigurePng(r);
    ASSERT_FALSE(png.has_value());
    EXPECT_NE(png.error().message.find("1, 2 or 4"), std::string::npos);
    r = request(ExplorerView::Curves, 5000, 300);
    r.scale = 4;
    png = renderViewFigurePng(r);
    ASSERT_FALSE(png.has_value());
    EXPECT_NE(png.error().message.find("16384"), std::string::npos);
    r = request(ExplorerView::Stats);
    png = renderViewFigurePng(r);
    ASSERT_FALSE(png.has_value());
    EXPECT_NE(png.error().message.find("no figure"), std::string::npos);
    r = request(ExplorerView::Compare);
    auto svg = renderViewFigureSvg(r);
    ASSERT_FALSE(svg.has_value());
    EXPECT_NE(svg.error().message.find("PNG"), std::string::npos);
    r = request(ExplorerView::Curves);
    r.session.attention.bias.slopes.heads = 0;
    png = renderViewFigurePng(r);
    EXPECT_FALSE(png.has_value());
}

TEST(ViewFigure, FileNames) {
    ViewFigureRequest r = request(ExplorerView::Detail);
    r.session.head = 3;
    EXPECT_EQ(viewFigureFileName(r, false), "head-3.png");
    r.view = ExplorerView::Curves;
    r.curves = CurveKind::BiasDistance;
    EXPECT_EQ(viewFigureFileName(r, true), "curves-bias-distance.svg");
    r.view = ExplorerView::Stages;
    r.session.queryRow = -1;  // the last of 16
    EXPECT_EQ(viewFigureFileName(r, false), "stages-h3-q15.png");
    r.view = ExplorerView::PositionSchemes;
    EXPECT_EQ(viewFigureFileName(r, true), "position-schemes.svg");
}

TEST(ViewFigure, CompareTitleNamesB) {
    CompareOverrides b;
    EXPECT_EQ(compareOverridesText(b), "the same as A");
    b.scheme = SlopeScheme::Linear;
    b.maxBias = 4;
    EXPECT_EQ(compareOverridesText(b), "A with scheme linear, max_bias 4");
}
