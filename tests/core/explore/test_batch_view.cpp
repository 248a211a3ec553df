// Tests for batch rows in the explorers: the O(1) allowed-key ranges against the cell masks,
// batch-row heatmaps against the (B, H, T, T) tensor, batch attention rows against a softmax of
// that tensor, fully masked rows (striped, read out), the read-out's mask reasons, the list
// parser and fitBatch, and the session's `batch.row`.
#include <alibi/explore/batch_view.hpp>
#include <alibi/explore/compute.hpp>
#include <alibi/explore/readout.hpp>
#include <alibi/io/session.hpp>
#include <alibi/io/session_export.hpp>
#include <alibi/model/attention.hpp>
#include <alibi/model/batch.hpp>
#include <alibi/model/slopes.hpp>
#include <alibi/render/color_scale.hpp>
#include <alibi/render/render.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace alibi;
using namespace alibi::explore;

namespace {

// A spread of batches: padding sides, documents, windows, prefixes and position rules.
std::vector<BatchParams> someBatches() {
    std::vector<BatchParams> out;
    for (Padding side : {Padding::Right, Padding::Left})
        for (PositionRule rule : {PositionRule::Mask, PositionRule::Naive, PositionRule::Document})
            for (std::int64_t window : {0, 3})
                for (std::int64_t prefix : {0, 4}) {
                    BatchParams b;
                    b.lengths = {9, 5, 1};
                    b.padding = side;
                    if (rule == PositionRule::Document) b.documents = {3, 4};
                    b.positions = rule;
                    b.window = window;
                    b.prefix = prefix;
                    out.push_back(b);
                }
    return out;
}

BiasParams smallBias(BiasMode mode) {
    BiasParams p;
    p.slopes.heads = 3;
    p.queries = 9;
    p.mode = mode;
    return p;
}

}  // namespace

TEST(BatchView, AllowedKeyRangeMatchesEveryCellMask) {
    for (BiasMode mode : {BiasMode::Causal, BiasMode::Symmetric, BiasMode::Clamped, BiasMode::Bloom, BiasMode::Mpt})
        for (const BatchParams& batch : someBatches()) {
            const BiasParams bias = smallBias(mode);
            ASSERT_TRUE(validateBatch(bias, batch));
            for (std::int64_t b = 0; b < batch.batchSize(); ++b) {
                const BatchRow row = batchRow(bias, batch, b);
                for (std::int64_t i = 0; i < bias.queries; ++i) {
                    const KeyRange r = batchAllowedKeys(bias, batch, row, i);
                    for (std::int64_t j = 0; j < bias.queries; ++j)
                        EXPECT_EQ(batchCellMask(bias, batch, row, i, j) == MaskReason::None,
                                  j >= r.first && j <= r.last)
                            << modeName(mode) << " row " << b << " i " << i << " j " << j;
                }
            }
        }
}

TEST(BatchView, HeatmapShowsTheTensorsCellsAndExactRange) {
    for (BiasMode mode : {BiasMode::Causal, BiasMode::Symmetric, BiasMode::Mpt})
        for (const BatchParams& batch : someBatches()) {
            HeatmapParams p;
            p.attention.bias = smallBias(mode);
            p.batch = batch;
            p.width = 9 * 4;  // 4 px per cell
            p.height = 9 * 4;
            p.gap = 0;
            const Tensor tensor = buildBatchBias(p.attention.bias, batch).value();
            const double mask = -1e9;
            for (std::int64_t b = 0; b < batch.batchSize(); ++b)
                for (int h = 0; h < 3; ++h) {
                    p.batchRow = b;
                    p.head = h;
                    const Heatmap map = renderHeatmap(p).value();
                    ASSERT_EQ(map.tiles.size(), 1u);
                    const HeatmapTile& tile = map.tiles[0];
                    ASSERT_EQ(tile.width, 36);
                    const BatchRow row = batchRow(p.attention.bias, batch, b);
                    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
                    for (std::int64_t i = 0; i < 9; ++i) {
                        const bool full = batchAllowedKeys(p.attention.bias, batch, row, i).empty();
                        for (std::int64_t j = 0; j < 9; ++j) {
                            const double v = tensor.at(static_cast<std::uint64_t>(((b * 3 + h) * 9 + i) * 9 + j));
                            const int x = tile.x + static_cast<int>(j) * 4 + 1,
                                      y = tile.y + static_cast<int>(i) * 4 + 1;
                            const Rgba px = map.image.at(x, y);
                            if (full) {
                                EXPECT_EQ(px, fullyMaskedStripe(x, y)) << "row " << b << " i " << i;
                            } else if (v == mask) {
                                EXPECT_EQ(px, kMaskedColor) << "row " << b << " i " << i << " j " << j;
                            } else {
                                EXPECT_NE(px, kMaskedColor);
                                if (tile.hi > tile.lo) {
                                    EXPECT_EQ(px, valueColor(p.colormap, v, tile.lo, tile.hi));
                                }
                            }
                            if (v != mask) {
                                lo = std::min(lo, v);
                                hi = std::max(hi, v);
                            }
                        }
                    }
                    if (lo <= hi) {
                        EXPECT_EQ(tile.lo, lo) << modeName(mode) << " row " << b << " head " << h;
                        EXPECT_EQ(tile.hi, hi) << modeName(mode) << " row " << b << " head " << h;
                    }
                }
        }
}

TEST(BatchView, AttentionRowsAreASoftmaxOfTheTensorRow) {
    AttentionParams a;
    a.bias = smallBias(BiasMode::Causal);
    BatchParams batch;
    batch.lengths = {9, 4};
    batch.padding = Padding::Left;
    const Tensor tensor = buildBatchBias(a.bias, batch).value();
    for (std::int64_t b = 0; b < 2; ++b)
        for (std::int64_t h = 0; h < 3; ++h)
            for (std::int64_t i = 0; i < 9; ++i) {
                const auto row = batchAttentionRow(a, batch, b, h, i).value();
                // Independent softmax of the stored row (zero content, temperature 1).
                double max = -std::numeric_limits<double>::infinity(), sum = 0;
                std::vector<double> e(9);
                for (std::int64_t j = 0; j < 9; ++j)
                    max = std::max(max, tensor.at(static_cast<std::uint64_t>(((b * 3 + h) * 9 + i) * 9 + j)));
                for (std::int64_t j = 0; j < 9; ++j) {
                    e[static_cast<std::size_t>(j)] =
                        std::exp(tensor.at(static_cast<std::uint64_t>(((b * 3 + h) * 9 + i) * 9 + j)) - max);
                    sum += e[static_cast<std::size_t>(j)];
                }
                for (std::int64_t j = 0; j < 9; ++j)
                    EXPECT_NEAR(row[static_cast<std::size_t>(j)], e[static_cast<std::size_t>(j)] / sum, 1e-15);
            }
    // Left padding, causal: padding queries 0..4 of row 1 see only padding keys, a fully masked
    // row: uniform under a finite mask, NaN under -inf.
    EXPECT_DOUBLE_EQ(batchAttentionRow(a, batch, 1, 0, 2).value()[7], 1.0 / 9);
    a.bias.mask.kind = MaskValue::Kind::NegInf;
    EXPECT_TRUE(std::isnan(batchAttentionRow(a, batch, 1, 0, 2).value()[0]));
    EXPECT_FALSE(batchAttentionRow(a, batch, 2, 0, 2));  // no row 2
}

TEST(BatchView, ReadoutSaysWhyACellIsMasked) {
    HeatmapParams p;
    p.attention.bias = smallBias(BiasMode::Causal);
    p.batch.lengths = {9, 4};
    p.batch.padding = Padding::Left;
    p.batch.window = 3;
    p.batchRow = 1;
    const auto slopes = computeSlopes(p.attention.bias.slopes).value();
    const std::string padding = heatmapReadout(p, slopes, 0, 7, 2);
    EXPECT_NE(padding.find("masked (padding key): bias = mask = -1e9"), std::string::npos) << padding;
    EXPECT_NE(padding.find("key: padding"), std::string::npos) << padding;
    EXPECT_NE(heatmapReadout(p, slopes, 0, 6, 8).find("masked (future key (causal))"), std::string::npos);
    EXPECT_NE(heatmapReadout(p, slopes, 0, 8, 5).find("masked (outside the window)"), std::string::npos);
    // Allowed: query 8 at position 3, key 7 at position 2; head 0 has m = 1/2 (H = 3: press 2^-8/3 ...).
    const std::string allowed = heatmapReadout(p, slopes, 0, 8, 7);
    EXPECT_NE(allowed.find("bias = -m·|p_i - p_j|"), std::string::npos) << allowed;
    EXPECT_NE(allowed.find("position p_i = 3"), std::string::npos) << allowed;
    const std::string full = heatmapReadout(p, slopes, 0, 2, 2);
    EXPECT_NE(full.find("fully masked row"), std::string::npos) << full;
    EXPECT_NE(full.find("uniform, 1/9 per key"), std::string::npos) << full;
    p.batch.documents = {2, 2};
    p.batch.window = 0;
    EXPECT_NE(heatmapReadout(p, slopes, 0, 8, 6).find("masked (another document)"), std::string::npos);
}

TEST(BatchView, FullyMaskedRowsWithoutABatch) {
    HeatmapParams p;
    p.attention.bias.slopes.heads = 1;
    p.attention.bias.queries = 6;
    p.attention.bias.keys = 4;  // causal, K < Q: queries 0 and 1 sit before every key
    p.what = RenderWhat::Attention;
    p.width = 4 * 5;
    p.height = 6 * 5;
    const Heatmap map = renderHeatmap(p).value();
    EXPECT_TRUE(map.fullyMaskedRows);
    for (int y = 0; y < 10; ++y) EXPECT_EQ(map.image.at(3, y), fullyMaskedStripe(3, y)) << y;
    EXPECT_NE(map.image.at(3, 12), fullyMaskedStripe(3, 12));
    EXPECT_TRUE(heatmapColorBar(map, p, -1, 3).fullyMaskedSwatch);
    const auto slopes = computeSlopes(p.attention.bias.slopes).value();
    EXPECT_NE(heatmapReadoutComputed(p, slopes, 0, 1, 0).find("fully masked row: query i = 1"), std::string::npos);
    EXPECT_EQ(heatmapReadoutComputed(p, slopes, 0, 2, 0).find("fully masked"), std::string::npos);
    // One pixel per cell (an image a view magnifies): the row is solid, the stripes' own colour.
    p.width = 4;
    p.height = 6;
    const Heatmap small = renderHeatmap(p).value();
    EXPECT_EQ(small.image.at(2, 1), kFullyMaskedColor);
    EXPECT_NE(small.image.at(2, 2), kFullyMaskedColor);
    p.attention.bias.keys = 0;
    EXPECT_FALSE(renderHeatmap(p).value().fullyMaskedRows);
}

TEST(BatchView, CellValuesAndTitle) {
    HeatmapParams p;
    p.attention.bias = smallBias(BiasMode::Bloom);
    p.batch.lengths = {9, 3};
    p.batch.padding = Padding::Left;
    p.batchRow = 1;
    const auto slopes = computeSlopes(p.attention.bias.slopes).value();
    const Tensor tensor = buildBatchBias(p.attention.bias, p.batch).value();
    const auto values = batchCellValues(p, slopes, 2);
    ASSERT_EQ(values.size(), 81u);
    for (std::uint64_t c = 0; c < 81; ++c) {
        const double v = tensor.at((1 * 3 + 2) * 81 + c);
        if (v == -1e9)
            EXPECT_TRUE(std::isnan(values[c]));
        else
            EXPECT_EQ(values[c], v);
    }
    EXPECT_EQ(batchRowTitle(p.batch, 1, 9), "batch row 1 of 2: 3 real tokens, left padding · positions mask");
}

TEST(BatchView, ListsAndFitting) {
    EXPECT_EQ(parseLengthList("16, 12 9;1", "Lengths").value(), (std::vector<std::int64_t>{16, 12, 9, 1}));
    EXPECT_TRUE(parseLengthList("  ", "Lengths").value().empty());
    const auto bad = parseLengthList("16, x2", "Lengths");
    ASSERT_FALSE(bad);
    EXPECT_NE(bad.error().message.find("Lengths: 'x2' is not a whole number"), std::string::npos);
    EXPECT_FALSE(parseLengthList("0", "Lengths"));
    EXPECT_EQ(lengthListText({16, 12, 9}), "16, 12, 9");

    BatchParams b;
    b.lengths = {16, 12, 4};
    b.documents = {5, 6, 5};
    b.positions = PositionRule::Document;
    b.window = 20;
    b.prefix = 3;
    std::int64_t row = 2;
    const auto notes = fitBatch(b, row, 8);
    EXPECT_EQ(b.lengths, (std::vector<std::int64_t>{8, 8, 4}));
    EXPECT_EQ(b.documents, (std::vector<std::int64_t>{5, 3}));
    EXPECT_EQ(b.window, 8);
    EXPECT_EQ(b.prefix, 3);
    EXPECT_EQ(row, 2);
    EXPECT_EQ(notes.size(), 3u);
    BiasParams bias;
    bias.queries = 8;
    EXPECT_TRUE(validateBatch(bias, b));
}

TEST(BatchView, SessionKeepsTheBatchRow) {
    Session s = defaultSession();
    s.batch.lengths = {16, 8, 3};
    s.batchRow = 2;
    const std::string text = serializeSession(s);
    EXPECT_NE(text.find("\"row\": 2"), std::string::npos) << text;
    const Session back = parseSession(text).value();
    EXPECT_EQ(back, s);
    EXPECT_EQ(heatmapParams(back).batchRow, 2);
    EXPECT_EQ(heatmapParams(back).batch, s.batch);
    s.batchRow = 3;
    const auto refused = validateSession(s);
    ASSERT_FALSE(refused);
    EXPECT_NE(refused.error().message.find("`batch.row`: expected a batch row from 0 to 2, got 3"), std::string::npos);
}

TEST(BatchView, SessionExportsTheWholeBatchAndItsCommandLine) {
    Session s = defaultSession();
    s.batch.lengths = {16, 5};
    s.batch.padding = Padding::Left;
    auto e = sessionBiasExport(s, "b.npy", FileFormat::Npy);
    ASSERT_TRUE(e) << e.error().message;
    EXPECT_EQ(e->source->shape(), (Shape{2, 8, 16, 16}));
    EXPECT_EQ(e->source->metadata().at("layout"), "bhqk");
    EXPECT_EQ(e->request.mask, s.attention.bias.mask);
    const Tensor got = materialize(*e->source, kDefaultMemoryBudget).value();
    const Tensor want = buildBatchBias(s.attention.bias, s.batch).value();
    ASSERT_EQ(got.size(), want.size());
    for (std::uint64_t n = 0; n < want.size(); ++n) ASSERT_EQ(got.at(n), want.at(n)) << n;
    EXPECT_EQ(cliCommand(s, "bias", "b.npy"), "alibi bias --heads 8 --seq 16 --lengths 16,5 --padding left -o b.npy");
    // The batch's attention: every row the softmax batchAttentionRow gives, rounded once to f32.
    auto attention = sessionAttentionExport(s, "a.npy", FileFormat::Npy);
    ASSERT_TRUE(attention) << attention.error().message;
    EXPECT_EQ(attention->source->shape(), (Shape{2, 8, 16, 16}));
    const Tensor probabilities = materialize(*attention->source, kDefaultMemoryBudget).value();
    for (std::int64_t b = 0; b < 2; ++b)
        for (std::int64_t h = 0; h < 8; h += 3)
            for (std::int64_t i = 0; i < 16; i += 5) {
                const auto row = batchAttentionRow(s.attention, s.batch, b, h, i).value();
                for (std::int64_t j = 0; j < 16; ++j)
                    ASSERT_EQ(probabilities.at(static_cast<std::uint64_t>(((b * 8 + h) * 16 + i) * 16 + j)),
                              static_cast<double>(static_cast<float>(row[static_cast<std::size_t>(j)])))
                        << b << " " << h << " " << i << " " << j;
            }
    s.maxMemory = 1000;
    const auto big = sessionBiasExport(s, "b.npy", FileFormat::Npy);
    ASSERT_FALSE(big);
    EXPECT_NE(big.error().message.find("memory budget"), std::string::npos);
    EXPECT_FALSE(sessionAttentionExport(s, "a.npy", FileFormat::Npy));
}

TEST(BatchView, DetailsShowTheRowAndSayWhatTheBatchDoesNotReach) {
    Request r;
    r.session = defaultSession();
    r.session.batch.lengths = {16, 4};
    r.session.batchRow = 1;
    r.gridWidth = 256;
    r.gridHeight = 256;
    auto grid = computeGrid(r);
    ASSERT_TRUE(grid) << grid.error().message;
    EXPECT_NE(grid->title.find("batch row 1 of 2: 4 real tokens, right padding"), std::string::npos) << grid->title;
    const Snapshot snap = computeDetails(r, std::make_shared<const GridSnapshot>(std::move(*grid)));
    EXPECT_EQ(snap.error, batchScopeNote(r.session.batch, 1));
    EXPECT_NE(snap.error.find("row 1 of 2"), std::string::npos);
    const auto want = batchCellValues(snap.detailParams, snap.grid->slopes, snap.head);
    ASSERT_EQ(snap.detailValues.size(), want.size());
    for (std::size_t n = 0; n < want.size(); ++n)
        EXPECT_TRUE(snap.detailValues[n] == want[n] || (std::isnan(snap.detailValues[n]) && std::isnan(want[n]))) << n;
    EXPECT_TRUE(batchScopeNote(BatchParams{}, 0).empty());
    EXPECT_EQ(batchScopeNote(r.session.batch, 1, true), "unpadded sequence, not batch row 1");
}
