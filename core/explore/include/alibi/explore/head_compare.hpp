// Two heads of a trained model's saved attention maps side by side (issue 29, item 5): head A
// against any other head B of the same file (any layer), or against A's own ALiBi prior
// softmax(-m d) at the configured slope or at its fitted m*. One computation for both
// explorers' "Two heads" views, `alibi render FILE --what heads` and Python: both maps as the
// views read them (probabilities, a causal map's later keys masked), their exact ranges, the
// difference B - A, its largest magnitude and where, and each side's fit as the fit table shows
// it (the same HeadFit, so the same m*, interval, verdict and KL).
#pragma once

#include <alibi/analysis/head_fit.hpp>
#include <alibi/base/error.hpp>
#include <alibi/base/progress.hpp>
#include <alibi/io/attention_maps.hpp>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace alibi::explore {

// What side B is: a head of the maps, or A's head's prior at its configured slope (the paired
// ALiBi parameters) or at its fitted m*.
enum class CompareSource { Head, ConfiguredPrior, FittedPrior };
// "head", "prior", "fitted-prior": the CLI's --vs spellings for the priors (a head is "L:H").
[[nodiscard]] std::string_view compareSourceName(CompareSource source);

struct HeadRef {
    int layerIndex = 0;  // position in AttentionMaps (not the layer's number)
    int head = 0;
    friend bool operator==(const HeadRef&, const HeadRef&) = default;
};

struct HeadCompareRequest {
    HeadRef a;
    CompareSource b = CompareSource::Head;
    HeadRef bHead;  // b == Head: the head compared with A
    // One slope per head (the paired ALiBi parameters): the fits' configured slope, and the
    // slope of CompareSource::ConfiguredPrior (refused without it).
    std::vector<double> configured;
    // The fits' query rows [firstRow, lastRow) (-1: to the last row), as the fit table's.
    std::int64_t firstRow = 0, lastRow = -1;
    // Fits already made on those rows (the fit table's): used where they hold a side's head,
    // so the views show the table's very numbers; the other heads are fitted here.
    std::vector<HeadFit> fits;
    unsigned threads = 0;
    ProgressFn progress;  // fitting and reading rows; false cancels
};

struct HeadCompareSide {
    CompareSource source = CompareSource::Head;
    HeadRef head;         // the head, or the head whose prior this is
    int layerNumber = 0;  // the head's layer number (AttentionLayerInfo::number)
    std::string name;     // "layer 3 · head 2", "prior of layer 3 · head 2 at configured m = 1/4"
    std::string label;    // short, for a tile: "L3 h2", "prior m = 1/4", "prior m* = 0.312"
    // The head's fit (for a prior: the fit of the head it belongs to, whose slope it uses).
    HeadFit fit;
    std::optional<double> priorSlope;  // a prior side: its slope m
    // One line: "m* = 0.25 (0.24 to 0.26) · follows its slope · KL 0.0123 nats" (the fit table's
    // cells), or for a prior "softmax(-m d) at m = 1/4 · the prior itself (KL 0)".
    std::string fitLine;
    std::vector<double> values;  // queries x keys, row-major; NaN where the cell is masked
    double lo = 0, hi = 0;       // exact range of the unmasked cells
};

struct HeadCompareResult {
    std::int64_t queries = 0, keys = 0;
    bool causal = false;
    std::int64_t firstRow = 0, lastRow = -1;  // the fits' rows
    HeadCompareSide a, b;
    std::vector<double> difference;           // b - a, NaN where masked
    double maxAbsDifference = 0;              // the largest |B - A| over the unmasked cells
    std::int64_t maxQuery = -1, maxKey = -1;  // where it is (the first such cell, row-major)
    // Axis labels (visible tokens; empty when the file names none).
    std::vector<std::string> keyTokens, queryTokens;
    [[nodiscard]] double valueAt(const std::vector<double>& grid, std::int64_t query, std::int64_t key) const;
};

// Cells above this are refused (three maps of doubles are kept whole).
inline constexpr std::int64_t kMaxCompareCells = std::int64_t{1} << 25;

// The comparison, or an error naming the range of what was out of it.
[[nodiscard]] Result<HeadCompareResult> compareHeads(const AttentionMaps& maps, const HeadCompareRequest& request);

// The figure's title: "Two heads · A: layer 3 · head 2 · B: layer 5 · head 1 · 64 queries x 64 keys".
[[nodiscard]] std::string headCompareTitle(const HeadCompareResult& result);
// "max |B - A| = 0.412 at query 12 (“·the”), key 3 (“fox”)" (tokens when the file names them).
[[nodiscard]] std::string headCompareMaxLine(const AttentionMaps& maps, const HeadCompareResult& result);

// The hover read-out of cell (query, key), lines joined by '\n':
//   "query i = 12 · key j = 3 · distance 9"
//   "query token “·the” (id 262) · key token “fox” (id 1234)"   (when the file names tokens)
//   "A (L3 h2) = 0.0412 · B (L5 h1) = 0.1203 · B - A = +0.0791"
// or "masked: the key comes after the query (causal maps)".
[[nodiscard]] std::string headCompareReadout(const AttentionMaps& maps, const HeadCompareResult& result,
                                             std::int64_t query, std::int64_t key);

// The head a picker names, from the layer's number and the head: an error naming the ranges.
// `what` names the flag or side ("--head", "--vs", "B").
[[nodiscard]] Result<HeadRef> headRefOf(const AttentionMaps& maps, std::int64_t layerNumber, std::int64_t head,
                                        std::string_view what);
// "L:H" (the layer's number, the head), or "H" (a head of `defaultLayerIndex`).
[[nodiscard]] Result<HeadRef> parseHeadRef(const AttentionMaps& maps, std::string_view text, int defaultLayerIndex,
                                           std::string_view what);

}  // namespace alibi::explore
