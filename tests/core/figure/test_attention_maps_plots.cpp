// Line plots of saved attention maps as figures: the row plot's file curve is the stored row and
// its prior the closed-form softmax(-m d); the profile figure carries the fit's title, rows and
// curves; both draw as SVG and as PNG at 2x with twice the pixels.
#include <alibi/explore/attention_maps_view.hpp>
#include <alibi/figure/attention_maps_plots.hpp>

#include "../attention_maps_fixture.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

namespace {

using namespace alibi::test;

struct SmallMaps {
    static constexpr std::int64_t t = 24;
    std::string bytes = npyBytes({1, 2, t, t}, causalMaps({0.5, 0.125}, t, 0.0, 1));
    alibi::AttentionMaps maps = *alibi::AttentionMaps::fromBytes(asBytes(bytes), false);
};

// softmax(-m (q - j)) over keys 0..q, computed from the formula.
std::vector<double> goldenRow(double m, std::int64_t q) {
    std::vector<double> p;
    double sum = 0;
    for (std::int64_t j = 0; j <= q; ++j) sum += std::exp(-m * static_cast<double>(q - j));
    for (std::int64_t j = 0; j <= q; ++j) p.push_back(std::exp(-m * static_cast<double>(q - j)) / sum);
    return p;
}

TEST(AttentionMapsPlots, RowFigureIsTheStoredRowBesideItsPrior) {
    SmallMaps s;
    auto figure = alibi::mapsRowFigure(s.maps, 0, 0, 10, {0.5, 0.25}, 800, 500);
    ASSERT_TRUE(figure) << figure.error().message;
    ASSERT_EQ(figure->series.size(), 3u);  // file, fitted, configured
    const std::vector<double> file = goldenRow(0.5, 10);
    ASSERT_EQ(figure->series[0].y.size(), 11u);  // keys 0..10: the causal row ends at its query
    for (std::size_t j = 0; j < file.size(); ++j) {
        EXPECT_NEAR(figure->series[0].y[j], file[j], 1e-6) << j;  // stored as f32
        EXPECT_NEAR(figure->series[1].y[j], file[j], 1e-12) << j;
        EXPECT_NEAR(figure->series[2].y[j], goldenRow(0.25, 10)[j], 1e-12) << j;
    }
    EXPECT_EQ(figure->style.title, "layer 0 head 0, query row 10: probability by key, with the ALiBi prior of the row");
    EXPECT_NE(figure->style.caption.find("softmax(−m (10 − j)) over the keys j ≤ 10"), std::string::npos)
        << figure->style.caption;
    EXPECT_EQ(figure->style.xLabel, "key j");
    // The file underneath, thick; the priors on top in full colour.
    EXPECT_EQ(figure->style.highlight, 0);
    EXPECT_TRUE(figure->style.highlightUnder);

    // No slope known: only the file's row, and the caption says how to get the prior.
    auto bare = alibi::mapsRowFigure(s.maps, 0, 1, 5, {}, 800, 500);
    ASSERT_TRUE(bare);
    EXPECT_EQ(bare->series.size(), 1u);
    EXPECT_NE(bare->style.caption.find("fit the heads"), std::string::npos);

    for (const auto& [layer, head, query] : {std::tuple{1, 0, 0LL}, {0, 2, 0LL}, {0, 0, 24LL}, {0, 0, -1LL}})
        EXPECT_FALSE(alibi::mapsRowFigure(s.maps, layer, head, query, {}, 800, 500)) << layer << head << query;
}

TEST(AttentionMapsPlots, ProfileFigureNamesTheFitAndItsRows) {
    SmallMaps s;
    alibi::HeadFitOptions options;
    options.threads = 1;
    auto fits = alibi::fitHeads(s.maps, options, {0.5, 0.125});
    ASSERT_TRUE(fits) << fits.error().message;
    const alibi::HeadFit& fit = (*fits)[1];
    EXPECT_NEAR(fit.slope, 0.125, 1e-4);  // content-free rows: the fit recovers the slope
    const alibi::PlotFigure all = alibi::fitProfileFigure(fit, s.maps, 0, -1, 900, 600);
    ASSERT_EQ(all.series.size(), 3u);
    EXPECT_EQ(all.series[0].label, "layer 0 head 1 (observed)");
    EXPECT_EQ(all.style.title.rfind("layer 0 head 1: attention vs distance, KL ", 0), 0u) << all.style.title;
    EXPECT_NE(all.style.caption.find("all 24 query rows"), std::string::npos) << all.style.caption;
    EXPECT_EQ(all.style.xLabel, "distance i − j");
    // The observed curve is the fit's profile, the prior the profile softmax(-m* d) gives.
    const std::vector<double> prior = alibi::priorProfile(fit.slope, 24, 24, true, 0, -1);
    for (std::size_t d = 0; d < all.series[0].y.size(); ++d) {
        EXPECT_DOUBLE_EQ(all.series[0].y[d], fit.profile[d]);
        EXPECT_DOUBLE_EQ(all.series[1].y[d], prior[d]);
    }
    const alibi::PlotFigure some = alibi::fitProfileFigure(fit, s.maps, 8, 16, 900, 600);
    EXPECT_NE(some.style.caption.find("query rows 8 to 15"), std::string::npos) << some.style.caption;

    const std::string svg = alibi::plotFigureSvg(all);
    EXPECT_NE(svg.find("layer 0 head 1: attention vs distance"), std::string::npos);
    EXPECT_NE(svg.find("configured prior, m = 1/8"), std::string::npos);
    auto one = alibi::plotFigurePng(all, 1);
    auto two = alibi::plotFigurePng(all, 2);
    ASSERT_TRUE(one && two);
    EXPECT_EQ(one->width, 900);
    EXPECT_EQ(two->width, 1800);
    EXPECT_EQ(two->height, 1200);
    EXPECT_FALSE(alibi::plotFigurePng(all, 3));
}

// The s40 review's F1: a steep head (m = 2) paired with a flatter configured slope (1/4). The
// distances shown were sized from the observed head alone (3·distance90 + 8 = 11 of 64), cutting
// the configured prior where it still held 5 % of its mass, and nothing said so. Now every
// curve is shown wherever it holds 1/1000 of its peak (worked from priorProfile here), and a note
// names the distances shown when they are not all.
TEST(AttentionMapsPlots, TheDistancePlotKeepsEveryCurvesMassAndSaysWhereItStops) {
    const std::int64_t t = 64;
    const std::string bytes = npyBytes({1, 1, t, t}, causalMaps({2.0}, t, 0.0, 1));
    auto maps = alibi::AttentionMaps::fromBytes(asBytes(bytes), false);
    ASSERT_TRUE(maps) << maps.error().message;
    alibi::HeadFitOptions options;
    options.threads = 1;
    auto fits = alibi::fitHeads(*maps, options, {0.25});
    ASSERT_TRUE(fits) << fits.error().message;
    const alibi::HeadFit& fit = fits->front();
    const alibi::FitProfilePlot plot = alibi::fitProfilePlot(fit, *maps, 0, -1);
    ASSERT_EQ(plot.series.size(), 3u);
    const std::vector<double> configured = alibi::priorProfile(0.25, t, t, true, 0, -1);
    const double peak = *std::max_element(configured.begin(), configured.end());
    std::int64_t lastHeld = 0;
    for (std::size_t d = 0; d < configured.size(); ++d)
        if (configured[d] >= peak / 1000) lastHeld = static_cast<std::int64_t>(d);
    EXPECT_GT(lastHeld, 20);  // e^(-d/4) >= 1/1000 up to d = 27 or so, well past the old 11
    EXPECT_EQ(plot.window.first, 0);
    EXPECT_GE(plot.window.last, lastHeld);
    EXPECT_EQ(plot.series[2].x.back(), static_cast<double>(plot.window.last));
    for (std::size_t d = 0; d < plot.series[2].y.size(); ++d) EXPECT_DOUBLE_EQ(plot.series[2].y[d], configured[d]);
    if (plot.window.last < t - 1) {
        EXPECT_EQ(plot.note, "distances 0 to " + std::to_string(plot.window.last) +
                                 " of 64 shown (the rest hold under 1/1000 of each curve's peak)");
        const alibi::PlotFigure figure = alibi::fitProfileFigure(fit, *maps, 0, -1, 900, 600);
        EXPECT_NE(figure.style.caption.find(plot.note), std::string::npos) << figure.style.caption;
    }
}

}  // namespace

// Lesson 5 step 5 read "m* = 0.01563" and "m = 0.0625" in one legend, "m* = 0.015625" and
// "m = 1/16" in the other: every prior legend now takes these two names.
TEST(AttentionMapsPlots, PriorNamesAreTheSameInEveryPlot) {
    EXPECT_EQ(alibi::explore::configuredPriorLabel(0.0625), "configured prior, m = 1/16");
    EXPECT_EQ(alibi::explore::fittedPriorLabel(0.01563), "fitted prior, m* = 0.01563");
    EXPECT_EQ(alibi::explore::fittedPriorLabel(0.0156251), "fitted prior, m* = 0.01563");
}
