// Tests for the heatmap figure frame (<alibi/render/figure.hpp>): exact size at 1x/2x/4x, the
// heatmap drawn at the pixel size the frame leaves (twice as large at 2x, not upscaled), text
// where the title, axes, colour bar and caption belong, and a clear error without the font.
#include <alibi/figure/figure.hpp>

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

using namespace alibi;

namespace {

// A uniform tile filling the space the frame gives, recording that space.
struct FlatDraw {
    int width = 0, height = 0;
    Result<Heatmap> operator()(int w, int h, int /*labelBand: one tile, no label*/) {
        width = w;
        height = h;
        Heatmap map;
        map.image.width = w;
        map.image.height = h;
        map.image.pixels.assign(static_cast<std::size_t>(w) * h, Rgba{0, 200, 0, 255});
        map.tiles.push_back(HeatmapTile{0, 0, 0, w, h, -1, 0, 0});
        map.lo = -1;
        map.hi = 0;
        return map;
    }
};

// Label pixels: dark and grey (text is drawn in near-black, anti-aliased over white).
bool isText(Rgba p) {
    return p.r == p.g && p.g == p.b && p.r < 160;
}

int textPixels(const Image& image, int x0, int y0, int x1, int y1) {
    int n = 0;
    for (int y = y0; y < y1; ++y)
        for (int x = x0; x < x1; ++x) n += isText(image.at(x, y));
    return n;
}

FigureFrame fullFrame(int scale) {
    FigureFrame frame;
    frame.title = "ALiBi bias · 1 head";
    frame.queries = frame.keys = 32;
    frame.slopes = {0.5};
    frame.caption = [](const Heatmap&) { return std::string("bias(i, j) = -m·(i - j)"); };
    frame.scale = scale;
    return frame;
}

// The green tile's bounding box.
struct Box {
    int left = 1 << 30, top = 1 << 30, right = -1, bottom = -1;
};
Box greenBox(const Image& image) {
    Box b;
    for (int y = 0; y < image.height; ++y)
        for (int x = 0; x < image.width; ++x)
            if (image.at(x, y) == Rgba{0, 200, 0, 255}) {
                b.left = std::min(b.left, x);
                b.right = std::max(b.right, x);
                b.top = std::min(b.top, y);
                b.bottom = std::max(b.bottom, y);
            }
    return b;
}

}  // namespace

TEST(Figure, ExactSizeAndTheHeatmapScalesWithThePixelRatio) {
    FlatDraw one, two;
    auto a = heatmapFigure(640, 480, fullFrame(1), std::ref(one));
    auto b = heatmapFigure(1280, 960, fullFrame(2), std::ref(two));
    ASSERT_TRUE(a) << a.error().message;
    ASSERT_TRUE(b) << b.error().message;
    EXPECT_EQ(a->width, 640);
    EXPECT_EQ(a->height, 480);
    EXPECT_EQ(b->width, 1280);
    EXPECT_EQ(b->height, 960);
    // The heatmap is rendered at exactly twice the 1x size, not drawn at 1x and upscaled.
    EXPECT_GT(one.width, 300);
    EXPECT_EQ(two.width, 2 * one.width);
    EXPECT_EQ(two.height, 2 * one.height);
}

TEST(Figure, TextWhereTitleAxesBarAndCaptionBelong) {
    FlatDraw draw;
    auto image = heatmapFigure(640, 480, fullFrame(1), std::ref(draw));
    ASSERT_TRUE(image) << image.error().message;
    const Box tile = greenBox(*image);
    ASSERT_GT(tile.right, tile.left);
    EXPECT_GT(textPixels(*image, 0, 0, image->width, tile.top), 40) << "title";
    EXPECT_GT(textPixels(*image, 0, tile.top, tile.left, tile.bottom), 40) << "query ticks and axis label";
    EXPECT_GT(textPixels(*image, tile.left, tile.bottom + 1, tile.right, image->height), 80)
        << "key ticks, label, caption";
    EXPECT_GT(textPixels(*image, tile.right + 1, tile.top, image->width, tile.bottom), 40) << "colour bar labels";
    // A single tile carries no label (the title names it), so none covers its cells.
    EXPECT_EQ(image->at(tile.left + 5, tile.top + 5), (Rgba{0, 200, 0, 255}));
    // The bare frame (the lead's overload) has no title or axes: nothing dark above or left of the tile.
    FlatDraw bare;
    auto plain = heatmapFigure(640, 480, Colormap::Viridis, std::ref(bare));
    ASSERT_TRUE(plain) << plain.error().message;
    const Box plainTile = greenBox(*plain);
    EXPECT_EQ(textPixels(*plain, 0, 0, plainTile.right, plainTile.top), 0);
    EXPECT_EQ(textPixels(*plain, 0, 0, plainTile.left, plain->height), 0);
}

TEST(Figure, TinyFiguresKeepOnlyTheHeatmapAndTheBar) {
    FlatDraw draw;
    auto image = heatmapFigure(120, 90, fullFrame(1), std::ref(draw));
    ASSERT_TRUE(image) << image.error().message;
    EXPECT_EQ(textPixels(*image, 0, 0, image->width, image->height), 0);
    EXPECT_GT(draw.width, 80);
    // The smallest size the CLI takes (16 x 16) still gets a heatmap.
    auto smallest = heatmapFigure(16, 16, fullFrame(1), std::ref(draw));
    ASSERT_TRUE(smallest) << smallest.error().message;
    EXPECT_GT(draw.width, 0);
    EXPECT_GT(draw.height, 0);
}

TEST(Figure, MissingFontSaysWhichPackageToInstall) {
    ASSERT_EQ(setenv("ALIBI_FONT_DIR", "/nonexistent-alibi-fonts", 1), 0);
    FlatDraw draw;
    auto image = heatmapFigure(640, 480, fullFrame(1), std::ref(draw));
    unsetenv("ALIBI_FONT_DIR");
    ASSERT_FALSE(image);
    EXPECT_NE(image.error().message.find("fonts-dejavu-core"), std::string::npos) << image.error().message;
    EXPECT_NE(image.error().message.find("/nonexistent-alibi-fonts/DejaVuSans.ttf"), std::string::npos);
    // And the default folder works again afterwards.
    EXPECT_TRUE(heatmapFigure(640, 480, fullFrame(1), std::ref(draw)));
}

TEST(Figure, HeatmapFigureAt2xHasTwiceThePixels) {
    HeatmapParams params;
    params.attention.bias.slopes.heads = 4;
    params.attention.bias.queries = 64;
    params.width = 400;
    params.height = 300;
    auto one = renderHeatmapFigure(params, 1, {}, 1);
    auto two = renderHeatmapFigure(params, 1, {}, 2);
    ASSERT_TRUE(one) << one.error().message;
    ASSERT_TRUE(two) << two.error().message;
    EXPECT_EQ(one->width, 400);
    EXPECT_EQ(one->height, 300);
    EXPECT_EQ(two->width, 800);
    EXPECT_EQ(two->height, 600);
}

// With a first-picture callback a costly heatmap is computed as the explorers compute it (a
// first picture from fewer rows, reported with its pass, then the exact one): the figure is the
// same as without it, and a cheap heatmap reports no first picture.
TEST(Figure, FirstPictureIsReportedAndTheFigureIsTheSame) {
    HeatmapParams p;
    p.what = RenderWhat::Attention;
    p.attention.bias.slopes.heads = 1;
    p.attention.bias.queries = 1 << 19;  // Gaussian rows of 2^19 keys: hundreds of rows cost seconds
    p.attention.content.kind = ContentKind::Gaussian;
    p.width = 800;
    p.height = 600;
    std::vector<HeatmapParams> firsts;
    auto with = renderHeatmapFigure(p, 2, {}, 1, [&](const HeatmapParams& pass) { firsts.push_back(pass); });
    ASSERT_TRUE(with) << with.error().message;
    ASSERT_EQ(firsts.size(), 1U);
    EXPECT_GT(firsts[0].rowStep, 1);
    auto without = renderHeatmapFigure(p, 2);
    ASSERT_TRUE(without) << without.error().message;
    EXPECT_EQ(with->pixels, without->pixels);
    p.attention.bias.queries = 256;
    firsts.clear();
    ASSERT_TRUE(renderHeatmapFigure(p, 2, {}, 1, [&](const HeatmapParams& pass) { firsts.push_back(pass); }));
    EXPECT_TRUE(firsts.empty());
}
