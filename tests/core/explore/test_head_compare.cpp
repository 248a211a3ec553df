// Two heads side by side (explore/head_compare.hpp) and their figure: the difference, its
// largest magnitude and where it is are computed here from the file's own floats (the rows
// renormalised in double, as the views read them), each side's fit is the fit table's row for
// that head, a prior side is softmax(-m d) computed here from the formula, masked cells stay
// masked (never 0), out-of-range heads are refused naming the range, and the figure's hit test
// maps each panel's pixels back to their cells.
#include <alibi/analysis/head_fit.hpp>
#include <alibi/explore/attention_maps_view.hpp>
#include <alibi/explore/head_compare.hpp>
#include <alibi/figure/head_compare_figure.hpp>
#include <alibi/figure/maps_file_figure.hpp>

#include "../attention_maps_fixture.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace {

using namespace alibi::test;
namespace explore = alibi::explore;

constexpr std::int64_t kT = 12;

// Two layers (numbers 0 and 1) of two heads each, different slopes and content.
struct TwoLayers {
    std::vector<std::vector<float>> layers{causalMaps({0.5, 0.125}, kT, 0.7, 3), causalMaps({1.0, 0.03}, kT, 0.4, 4)};
    std::string file = safetensorsBytes({"model.layers.0.attn", "model.layers.1.attn"}, {2, kT, kT}, layers,
                                        {{"tokens", R"(["a","b","c","d","e","f","g","h","i","j","k","l"])"}});
    // p of (layer, head, query, key) as the views read it: the stored row renormalised.
    double p(int layer, int head, std::int64_t q, std::int64_t k) const {
        const auto& d = layers[static_cast<std::size_t>(layer)];
        double sum = 0;
        for (std::int64_t j = 0; j < kT; ++j) sum += d[static_cast<std::size_t>((head * kT + q) * kT + j)];
        return d[static_cast<std::size_t>((head * kT + q) * kT + k)] / sum;
    }
};

TEST(HeadCompare, DifferenceMaxAndFitsMatchTheFileAndTheFitTable) {
    TwoLayers data;
    auto maps = alibi::AttentionMaps::fromBytes(asBytes(data.file), true);
    ASSERT_TRUE(maps) << maps.error().message;
    const std::vector<double> configured = {0.5, 0.125};
    explore::HeadCompareRequest request;
    request.a = {0, 1};
    request.bHead = {1, 0};
    request.configured = configured;
    auto r = explore::compareHeads(*maps, request);
    ASSERT_TRUE(r) << r.error().message;
    ASSERT_EQ(r->difference.size(), static_cast<std::size_t>(kT * kT));
    double best = -1;
    std::int64_t bq = -1, bk = -1;
    for (std::int64_t q = 0; q < kT; ++q)
        for (std::int64_t k = 0; k < kT; ++k) {
            const double d = r->valueAt(r->difference, q, k);
            if (k > q) {  // after the query: masked in A, B and the difference, never 0
                EXPECT_TRUE(std::isnan(d));
                EXPECT_TRUE(std::isnan(r->valueAt(r->a.values, q, k)));
                continue;
            }
            const double want = data.p(1, 0, q, k) - data.p(0, 1, q, k);
            EXPECT_NEAR(d, want, 1e-12) << q << "," << k;
            EXPECT_NEAR(r->valueAt(r->a.values, q, k), data.p(0, 1, q, k), 1e-12);
            if (std::abs(want) > best + 1e-15) best = std::abs(want), bq = q, bk = k;
        }
    EXPECT_NEAR(r->maxAbsDifference, best, 1e-12);
    EXPECT_EQ(r->maxQuery, bq);
    EXPECT_EQ(r->maxKey, bk);

    // Each side's fit is the fit table's row for its head (fitHeads over every layer).
    alibi::HeadFitOptions options;
    auto table = alibi::fitHeads(*maps, options, configured);
    ASSERT_TRUE(table);
    for (const auto& [side, ref] : {std::pair{&r->a, request.a}, std::pair{&r->b, request.bHead}}) {
        const alibi::HeadFit* row = nullptr;
        for (const auto& f : *table)
            if (f.layerIndex == ref.layerIndex && f.head == ref.head) row = &f;
        ASSERT_NE(row, nullptr);
        EXPECT_EQ(side->fit.slope, row->slope);
        EXPECT_EQ(side->fit.slopeLow, row->slopeLow);
        EXPECT_EQ(side->fit.slopeHigh, row->slopeHigh);
        EXPECT_EQ(side->fit.kl, row->kl);
        const std::string verdict = explore::fitCellText(*row, explore::FitColumn::Verdict);
        EXPECT_NE(side->fitLine.find(verdict), std::string::npos) << side->fitLine;
        EXPECT_NE(side->fitLine.find(explore::fitCellText(*row, explore::FitColumn::Slope)), std::string::npos);
    }
    // Fits handed in (the table's) are used as they are.
    request.fits = {(*table)[1]};
    request.fits[0].kl = 123.0;  // a marker: not recomputed
    auto again = explore::compareHeads(*maps, request);
    ASSERT_TRUE(again);
    EXPECT_EQ(again->a.fit.kl, 123.0);

    // The read-out: tokens, A, B and B - A at the cell; masked after the query.
    const std::string text = explore::headCompareReadout(*maps, *r, 5, 2);
    EXPECT_NE(text.find("query i = 5 · key j = 2 · distance 3"), std::string::npos) << text;
    EXPECT_NE(text.find("query token “f”"), std::string::npos) << text;
    EXPECT_NE(text.find("key token “c”"), std::string::npos) << text;
    EXPECT_NE(text.find("A (L0 h1) = "), std::string::npos) << text;
    EXPECT_NE(text.find("B (L1 h0) = "), std::string::npos) << text;
    const auto at = text.find("B - A = ");
    ASSERT_NE(at, std::string::npos);
    EXPECT_NEAR(std::stod(text.substr(at + 8)), data.p(1, 0, 5, 2) - data.p(0, 1, 5, 2), 1e-5);
    EXPECT_NE(explore::headCompareReadout(*maps, *r, 2, 5).find("masked"), std::string::npos);
}

TEST(HeadCompare, PriorSidesAreSoftmaxOfTheDistancePenalty) {
    TwoLayers data;
    auto maps = alibi::AttentionMaps::fromBytes(asBytes(data.file), true);
    ASSERT_TRUE(maps);
    explore::HeadCompareRequest request;
    request.a = {1, 1};
    request.b = explore::CompareSource::ConfiguredPrior;
    // Refused without slopes, with a way out.
    auto refused = explore::compareHeads(*maps, request);
    ASSERT_FALSE(refused);
    EXPECT_NE(refused.error().message.find("fitted prior"), std::string::npos);
    request.configured = {0.5, 0.25};
    auto r = explore::compareHeads(*maps, request);
    ASSERT_TRUE(r) << r.error().message;
    for (std::int64_t q = 0; q < kT; ++q) {
        double z = 0;
        for (std::int64_t k = 0; k <= q; ++k) z += std::exp(-0.25 * static_cast<double>(q - k));
        for (std::int64_t k = 0; k <= q; ++k)
            EXPECT_NEAR(r->valueAt(r->b.values, q, k), std::exp(-0.25 * static_cast<double>(q - k)) / z, 1e-14);
    }
    EXPECT_EQ(r->b.priorSlope, 0.25);
    EXPECT_EQ(r->b.label, "prior m = 1/4");
    // At the fitted slope: the prior of A's own m*.
    request.b = explore::CompareSource::FittedPrior;
    auto fitted = explore::compareHeads(*maps, request);
    ASSERT_TRUE(fitted);
    EXPECT_EQ(fitted->b.priorSlope, fitted->a.fit.slope);
    const double m = fitted->a.fit.slope;
    EXPECT_NEAR(fitted->valueAt(fitted->b.values, 3, 3), 1 / (1 + std::exp(-m) + std::exp(-2 * m) + std::exp(-3 * m)),
                1e-14);
}

TEST(HeadCompare, OutOfRangeHeadsAndLayersAreRefusedNamingTheRange) {
    TwoLayers data;
    auto maps = alibi::AttentionMaps::fromBytes(asBytes(data.file), true);
    ASSERT_TRUE(maps);
    auto badLayer = explore::parseHeadRef(*maps, "7:1", 0, "--vs");
    ASSERT_FALSE(badLayer);
    EXPECT_NE(badLayer.error().message.find("layers 0 to 1"), std::string::npos) << badLayer.error().message;
    auto badHead = explore::parseHeadRef(*maps, "1:2", 0, "--vs");
    ASSERT_FALSE(badHead);
    EXPECT_NE(badHead.error().message.find("heads 0 to 1"), std::string::npos) << badHead.error().message;
    EXPECT_FALSE(explore::parseHeadRef(*maps, "1:x", 0, "--vs"));
    auto plain = explore::parseHeadRef(*maps, "1", 1, "--vs");
    ASSERT_TRUE(plain);
    EXPECT_EQ(*plain, (explore::HeadRef{1, 1}));
    explore::HeadCompareRequest request;
    request.a = {0, 5};
    EXPECT_FALSE(explore::compareHeads(*maps, request));
}

TEST(HeadCompare, FigureHasThreePanelsAndItsHitTestFindsTheirCells) {
    TwoLayers data;
    auto maps = alibi::AttentionMaps::fromBytes(asBytes(data.file), true);
    ASSERT_TRUE(maps);
    explore::HeadCompareRequest request;
    request.a = {0, 0};
    request.bHead = {1, 1};
    auto r = explore::compareHeads(*maps, request);
    ASSERT_TRUE(r);
    auto figure = alibi::renderHeadCompareFigure(*maps, *r, {alibi::Colormap::Viridis, 900, 500, 1});
    ASSERT_TRUE(figure) << figure.error().message;
    EXPECT_EQ(figure->image.width, 900);
    EXPECT_EQ(figure->image.height, 500);
    for (int p = 0; p < 3; ++p) {
        const alibi::HeadComparePanel& panel = figure->panels[static_cast<std::size_t>(p)];
        ASSERT_GT(panel.width, 0);
        // The centre of cell (q, k): the hit test gives it back; a masked cell is the mask colour.
        for (const auto& [q, k] : {std::pair<std::int64_t, std::int64_t>{7, 2}, {11, 11}, {0, 0}}) {
            const int x = panel.x + static_cast<int>((static_cast<double>(k) + 0.5) * panel.width / kT);
            const int y = panel.y + static_cast<int>((static_cast<double>(q) + 0.5) * panel.height / kT);
            auto hit = alibi::headCompareHitTest(*figure, *r, x, y);
            ASSERT_TRUE(hit);
            EXPECT_EQ(hit->panel, p);
            EXPECT_EQ(hit->query, q);
            EXPECT_EQ(hit->key, k);
        }
        const int mx = panel.x + static_cast<int>(10.5 * panel.width / kT);
        const int my = panel.y + static_cast<int>(1.5 * panel.height / kT);
        EXPECT_EQ(figure->image.at(mx, my), alibi::kMaskedColor);
    }
    EXPECT_FALSE(alibi::headCompareHitTest(*figure, *r, 1, 1));
    // A, B and B - A are square tiles of one size on one level.
    for (const alibi::HeadComparePanel& panel : figure->panels) {
        EXPECT_EQ(panel.width, panel.height);
        EXPECT_EQ(panel.width, figure->panels[0].width);
        EXPECT_EQ(panel.y, figure->panels[0].y);
    }
    // The file figure of the same request: --what heads with --vs.
    alibi::MapsFileFigureRequest file;
    file.what = alibi::MapsFigureKind::Heads;
    file.layer = 0;
    file.head = 0;
    file.versus = "1:1";
    file.width = 900;
    file.height = 500;
    auto drawn = alibi::renderMapsFileFigure(*maps, file);
    ASSERT_TRUE(drawn) << drawn.error().message;
    ASSERT_TRUE(drawn->image);
    EXPECT_EQ(drawn->image->pixels, figure->image.pixels);
    file.versus.clear();
    EXPECT_FALSE(alibi::renderMapsFileFigure(*maps, file));
    file.versus = "9:0";
    auto bad = alibi::renderMapsFileFigure(*maps, file);
    ASSERT_FALSE(bad);
    EXPECT_NE(bad.error().message.find("layers 0 to 1"), std::string::npos);
}

}  // namespace

// With no height the figure is as tall as its panels, axes and captions: the lowest drawn row is
// 10 px (at 1x) above its bottom.
TEST(HeadCompare, FigureWithoutAHeightEndsBelowItsCaption) {
    TwoLayers data;
    auto maps = alibi::AttentionMaps::fromBytes(asBytes(data.file), true);
    ASSERT_TRUE(maps);
    explore::HeadCompareRequest request;
    request.a = {0, 0};
    request.bHead = {1, 1};
    auto r = explore::compareHeads(*maps, request);
    ASSERT_TRUE(r);
    for (const int scale : {1, 2}) {
        auto natural = alibi::renderHeadCompareFigure(*maps, *r, {alibi::Colormap::Viridis, 1024, 0, scale});
        ASSERT_TRUE(natural) << natural.error().message;
        const alibi::Image& image = natural->image;
        EXPECT_EQ(image.width, 1024 * scale);
        EXPECT_LT(image.height, 1024 * scale * 9 / 20);  // the fixed default it replaced left a blank band
        const alibi::Rgba white{255, 255, 255, 255};
        int lowest = -1;
        for (int y = 0; y < image.height; ++y)
            for (int x = 0; x < image.width; ++x)
                if (image.at(x, y) != white) lowest = y;
        EXPECT_EQ(image.height - 1 - lowest, 10 * scale);
        // The same figure asked for at that height has the same tiles (the cut took only blank rows).
        auto fixed =
            alibi::renderHeadCompareFigure(*maps, *r, {alibi::Colormap::Viridis, 1024, image.height / scale, scale});
        ASSERT_TRUE(fixed);
        for (std::size_t p = 0; p < 3; ++p) {
            EXPECT_EQ(natural->panels[p].width, fixed->panels[p].width);
            EXPECT_EQ(natural->panels[p].y, fixed->panels[p].y);
        }
        EXPECT_GT(natural->panels[2].y + natural->panels[2].height, image.height / 2);
    }
}
