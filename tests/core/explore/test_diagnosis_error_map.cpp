// The Diagnose views' error heatmap: its range is the largest |tensor - correct ALiBi| (worked
// out here from the bug: a flipped sign doubles every bias, so the largest error is 2 m d at head
// 0's slope 1/2 and distance 15), one tile per head, zero for a correct tensor, and none when
// nothing reproduces the tensor's shape; cells correct ALiBi masks, and the tensor too, are drawn
// masked grey.
#include <alibi/analysis/buggy_examples.hpp>
#include <alibi/explore/diagnosis_error_map.hpp>
#include <alibi/explore/line_breaks.hpp>
#include <alibi/model/bias.hpp>

#include <gtest/gtest.h>

#include <cmath>

using namespace alibi;

TEST(DiagnosisErrorMap, ASignFlipIsTwiceTheBiasAtItsLargest) {
    auto tensor = buildBuggyExample(kSignFlipped);  // H = 8, T = 16, causal
    ASSERT_TRUE(tensor) << tensor.error().message;
    auto diagnosis = diagnose(*tensor);
    ASSERT_TRUE(diagnosis) << diagnosis.error().message;
    auto map = explore::diagnosisErrorMap(*tensor, *diagnosis, 400, 300);
    ASSERT_TRUE(map.has_value());
    EXPECT_EQ(map->errorMax, 2 * 0.5 * 15);
    EXPECT_EQ(map->map.tiles.size(), 8u);
    EXPECT_EQ(map->map.image.width, 400);
    EXPECT_EQ(map->map.hi, 15.0);

    // Cells causal ALiBi masks are masked grey, not black (no error): the upper triangle's
    // corner [0, 15]; the diagonal (bias 0 either way, no error) and [15, 0] (the largest error,
    // 2 * 1/2 * 15 = the top of the range) are not.
    const HeatmapTile& tile = map->map.tiles[0];
    const auto pixel = [&](std::int64_t i, std::int64_t j) {
        const int x = tile.x + static_cast<int>((2 * j + 1) * tile.width / 32);
        const int y = tile.y + static_cast<int>((2 * i + 1) * tile.height / 32);
        return map->map.image.at(x, y);
    };
    EXPECT_EQ(pixel(0, 15), kMaskedColor);
    EXPECT_NE(pixel(5, 5), kMaskedColor);
    EXPECT_EQ(pixel(5, 5), valueColor(Colormap::Magma, 0, 0, 15));
    EXPECT_EQ(pixel(15, 0), valueColor(Colormap::Magma, 15, 0, 15));
    // The bar every front end draws beside it: 0 to 15, with the masked swatch.
    const ColorBar bar = explore::diagnosisColorBar(*map, 5);
    EXPECT_EQ(bar.lo, 0.0);
    EXPECT_EQ(bar.hi, 15.0);
    EXPECT_TRUE(bar.maskedSwatch);
    EXPECT_EQ(bar.title, "|error|");
}

TEST(DiagnosisErrorMap, ACorrectTensorHasNoErrorAndATinyRequestStillDraws) {
    auto tensor = buildBias(BiasParams{});
    ASSERT_TRUE(tensor) << tensor.error().message;
    auto diagnosis = diagnose(*tensor);
    ASSERT_TRUE(diagnosis) << diagnosis.error().message;
    auto map = explore::diagnosisErrorMap(*tensor, *diagnosis, 0, 0);
    ASSERT_TRUE(map.has_value());
    EXPECT_EQ(map->errorMax, 0.0);
    EXPECT_EQ(map->map.hi, 1.0);  // a visible range even with no error
    const ColorBar bar = explore::diagnosisColorBar(*map, 5);
    EXPECT_EQ(bar.hi, 1.0);
    EXPECT_GE(bar.ticks.size(), 2u);
    EXPECT_TRUE(bar.maskedSwatch);  // the default session is causal: its upper triangle is masked
    EXPECT_EQ(map->map.image.width, 16);
}

TEST(DiagnosisErrorMap, NoPictureWithoutParametersToCompareWith) {
    Diagnosis nothing;  // no best parameters
    EXPECT_FALSE(explore::diagnosisErrorMap(Tensor({2, 3, 3}, DType::F32), nothing, 100, 100).has_value());
}

// HF BLOOM's (batch * heads, 1, K) with left padding (zeros on the padding keys), one batch row's
// slopes doubled: the map both explorers paint has a tile per batch row and head, and its range
// is the doubled row's largest error m * (L - 1) at head 0 (slope 1/2, 7 real keys: 3).
TEST(DiagnosisErrorMap, BloomBatchTimesHeadsHasATilePerRowAndHead) {
    constexpr std::int64_t B = 2, H = 8, K = 10;
    const std::int64_t lengths[B] = {10, 7};
    Tensor t({B * H, 1, K}, DType::F32);
    for (std::int64_t b = 0; b < B; ++b)
        for (std::int64_t h = 0; h < H; ++h)
            for (std::int64_t j = 0; j < K; ++j) {
                const std::int64_t pad = K - lengths[b], position = j < pad ? 0 : j - pad;
                const double slope = std::exp2(-(h + 1.0)) * (b == 1 ? 2.0 : 1.0);
                t.set(static_cast<std::uint64_t>((b * H + h) * K + j), slope * static_cast<double>(position));
            }
    auto diagnosis = diagnose(t, DiagnoseOptions{H, std::nullopt});
    ASSERT_TRUE(diagnosis) << diagnosis.error().message;
    ASSERT_EQ(diagnosis->rows.size(), 2u) << diagnosis->summary;
    auto map = explore::diagnosisErrorMap(t, *diagnosis, 400, 300);
    ASSERT_TRUE(map.has_value()) << diagnosis->summary;
    EXPECT_EQ(map->map.tiles.size(), static_cast<std::size_t>(B * H));
    EXPECT_FALSE(map->probability);
    EXPECT_EQ(map->errorMax, 0.5 * 6);

    // Batch row 1's 3 padding keys are masked grey in each of its tiles; its real keys are not.
    const HeatmapTile& tile = map->map.tiles[H + 2];
    const auto keyPixel = [&](std::int64_t j) {
        return map->map.image.at(tile.x + static_cast<int>((2 * j + 1) * tile.width / (2 * K)),
                                 tile.y + tile.height / 2);
    };
    for (std::int64_t j = 0; j < K; ++j) EXPECT_EQ(keyPixel(j) == kMaskedColor, j < 3) << "key " << j;

    // Asked for square cells, each tile's 10 x 1 cells are square to the pixel (the tile's sides
    // are whole pixels; without it, 1 row across a tile's height made cells ~5 times taller).
    auto square = explore::diagnosisErrorMap(t, *diagnosis, 400, 300, 4, 0, true);
    ASSERT_TRUE(square.has_value());
    for (const HeatmapTile& s : square->map.tiles)
        EXPECT_NEAR(s.width / 10.0, s.height / 1.0, 1.0) << s.width << " x " << s.height;
    const HeatmapTile& stretched = map->map.tiles[0];
    EXPECT_GT(stretched.height / 1.0, 2 * stretched.width / 10.0);
}

// A harmless finding's caption names |Δ probability|: never broken between "|Δ" and
// "probability|" (the ImGui caption read "... shows |Δ" / "probability| against ...").
TEST(DiagnosisErrorMap, TheHarmlessCaptionKeepsItsQuantityWhole) {
    Diagnosis d;
    d.match = DiagnosisMatch{};  // the tensor is reproduced, with a harmless finding
    Finding harmless{"mask-min", "m"};
    harmless.changesAttention = false;
    d.findings = {harmless};
    for (const double errorMax : {0.0, 1e-4}) {
        const std::string caption = explore::diagnosisErrorMapLabels(d, errorMax).caption;
        const auto lines = explore::wrapLines(caption, 1, [](std::string_view s) { return double(s.size()); });
        for (const auto& line : lines) EXPECT_FALSE(line.text.ends_with("|Δ")) << caption;
        EXPECT_NE(caption.find("|Δ\u00a0probability|"), std::string::npos) << caption;
    }
}
