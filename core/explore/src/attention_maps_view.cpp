// The explorers' attention-maps texts, rows and table columns (see the header).
#include <alibi/explore/attention_maps_view.hpp>

#include <alibi/render/format.hpp>
#include <alibi/text/visible.hpp>

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace alibi::explore {

std::string mapsLayerLabel(const AttentionMaps& maps, int layerIndex) {
    if (layerIndex < 0 || layerIndex >= maps.layers()) return fmt::format("layer index {}", layerIndex);
    const AttentionLayerInfo& info = maps.layerInfo()[static_cast<std::size_t>(layerIndex)];
    if (info.name.empty()) return fmt::format("layer {}", info.number);
    return fmt::format("layer {} ({})", info.number, info.name);
}

std::string mapsHeadLabel(const AttentionMaps& maps, int layerIndex, int head) {
    if (layerIndex < 0 || layerIndex >= maps.layers()) return fmt::format("layer index {} h{}", layerIndex, head);
    return fmt::format("L{} h{}", maps.layerInfo()[static_cast<std::size_t>(layerIndex)].number, head);
}

std::string mapsSummary(const AttentionMaps& maps) {
    std::string batch;
    if (maps.batches() > 1) batch = fmt::format(" · batch element {} of {}", maps.batch(), maps.batches());
    return fmt::format("{} layer{} x {} heads x {} queries x {} keys · {}{} · {} ({}{}) · {}", maps.layers(),
                       maps.layers() == 1 ? "" : "s", maps.heads(), maps.queries(), maps.keys(), maps.layoutText(),
                       batch, attentionValuesName(maps.values()), maps.valuesDetected() ? "detected: " : "",
                       maps.valuesReason(),
                       maps.causal() ? "causal (distance i - j)" : "bidirectional (distance |i - j|)");
}

std::int64_t mapsDistance(const AttentionMaps& maps, std::int64_t query, std::int64_t key) {
    const std::int64_t position = query + maps.keys() - maps.queries();
    return maps.causal() ? position - key : (position > key ? position - key : key - position);
}

std::string fittedPriorLabel(double slope) {
    return fmt::format("fitted prior, m* = {:.4g}", slope);
}

std::string configuredPriorLabel(double slope) {
    return "configured prior, m = " + formatSlope(slope);
}

std::vector<double> priorRow(double slope, std::int64_t query, std::int64_t queries, std::int64_t keys, bool causal) {
    std::vector<double> row(static_cast<std::size_t>(std::max<std::int64_t>(keys, 0)), 0.0);
    const std::int64_t position = query + keys - queries;
    // Shift by the largest logit (-m * the smallest distance) so no exp overflows or vanishes.
    double top = -std::numeric_limits<double>::infinity();
    const auto logit = [&](std::int64_t j) {
        const std::int64_t d = causal ? position - j : std::abs(position - j);
        return -slope * static_cast<double>(d);
    };
    const std::int64_t last = causal ? std::min(position, keys - 1) : keys - 1;
    for (std::int64_t j = 0; j <= last; ++j) top = std::max(top, logit(j));
    double sum = 0;
    for (std::int64_t j = 0; j <= last; ++j) sum += row[static_cast<std::size_t>(j)] = std::exp(logit(j) - top);
    if (sum > 0)
        for (std::int64_t j = 0; j <= last; ++j) row[static_cast<std::size_t>(j)] /= sum;
    return row;
}

std::string mapsTokenText(const AttentionMaps& maps, std::int64_t key) {
    const std::string* token = maps.keyToken(key);
    if (token == nullptr) return {};
    std::string text = fmt::format("\u201c{}\u201d", text::visibleText(*token));
    if (const auto id = maps.keyTokenId(key)) text += fmt::format(" (id {})", *id);
    return text;
}

std::string mapsTokensLine(const AttentionMaps& maps, std::int64_t query, std::int64_t key) {
    if (maps.tokens().empty() || query < 0 || query >= maps.queries() || key < 0 || key >= maps.keys()) return {};
    return fmt::format("query token {} · key token {}", mapsTokenText(maps, query + maps.keys() - maps.queries()),
                       mapsTokenText(maps, key));
}

std::vector<std::string> mapsKeyTokenLabels(const AttentionMaps& maps) {
    std::vector<std::string> labels;
    for (const std::string& token : maps.tokens()) labels.push_back(text::visibleText(token));
    return labels;
}

std::vector<std::string> mapsQueryTokenLabels(const AttentionMaps& maps) {
    std::vector<std::string> labels;
    if (maps.tokens().empty()) return labels;
    for (std::int64_t q = 0; q < maps.queries(); ++q) labels.push_back(text::visibleText(*maps.queryToken(q)));
    return labels;
}

Result<std::string> mapsCellReadout(const AttentionMaps& maps, int layerIndex, int head, std::int64_t query,
                                    std::int64_t key, const HeadSlopes& slopes) {
    if (layerIndex < 0 || layerIndex >= maps.layers() || head < 0 || head >= maps.heads() || query < 0 ||
        query >= maps.queries() || key < 0 || key >= maps.keys())
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("cell (layer index {}, head {}, query {}, key {}) is outside the maps", layerIndex,
                                head, query, key));
    std::vector<double> row(static_cast<std::size_t>(maps.keys()));
    if (auto ok = maps.probabilities(layerIndex, head, query, row); !ok) return std::unexpected(ok.error());
    const std::int64_t d = mapsDistance(maps, query, key);
    const std::string where =
        fmt::format("{} · head {} · query i = {} · key j = {}", mapsLayerLabel(maps, layerIndex), head, query, key);
    const std::string tokens = mapsTokensLine(maps, query, key);
    if (maps.causal() && d < 0)
        return where + (tokens.empty() ? "" : "\n" + tokens) + "\nmasked: the key comes after the query (causal maps)";
    std::string text = where;
    if (maps.keys() != maps.queries()) text += fmt::format(" · position {}", query + maps.keys() - maps.queries());
    text += fmt::format(" · distance {}", d);
    if (!tokens.empty()) text += "\n" + tokens;
    std::vector<double> stored(row.size());
    if (auto ok = maps.storedRow(layerIndex, head, query, stored); !ok) return std::unexpected(ok.error());
    const double p = row[static_cast<std::size_t>(key)];
    const bool scores = maps.values() == AttentionValues::Scores;
    text += fmt::format("\nfile value = {} ({} {}) · p = {} ({})",
                        formatExact(stored[static_cast<std::size_t>(key)], maps.dtype()), dtypeName(maps.dtype()),
                        scores ? "score" : "probability", formatValue(p),
                        scores ? "softmax of the row" : "row renormalised to sum 1");
    std::string prior;
    const auto at = [&](double m) {
        return formatValue(
            priorRow(m, query, maps.queries(), maps.keys(), maps.causal())[static_cast<std::size_t>(key)]);
    };
    if (slopes.fitted) prior += fmt::format("m* = {} -> {}", formatValue(*slopes.fitted), at(*slopes.fitted));
    if (slopes.configured)
        prior += fmt::format("{}configured m = {} -> {}", prior.empty() ? "" : ", ", formatSlope(*slopes.configured),
                             at(*slopes.configured));
    if (!prior.empty()) text += "\nALiBi prior softmax(-m d) here: " + prior;
    return text;
}

Result<std::vector<Series>> mapsRowSeries(const AttentionMaps& maps, int layerIndex, int head, std::int64_t query,
                                          const HeadSlopes& slopes) {
    if (layerIndex < 0 || layerIndex >= maps.layers() || head < 0 || head >= maps.heads() || query < 0 ||
        query >= maps.queries())
        return fail(
            ErrorCode::InvalidArgument,
            fmt::format("row (layer index {}, head {}, query {}) is outside the maps", layerIndex, head, query));
    std::vector<double> row(static_cast<std::size_t>(maps.keys()));
    if (auto ok = maps.probabilities(layerIndex, head, query, row); !ok) return std::unexpected(ok.error());
    // The keys the row can see (a causal row ends at its own position).
    const std::int64_t position = query + maps.keys() - maps.queries();
    const std::int64_t last = maps.causal() ? std::min(position, maps.keys() - 1) : maps.keys() - 1;
    const auto series = [&](std::string label, const std::vector<double>& values) {
        Series s;
        s.label = std::move(label);
        for (std::int64_t j = 0; j <= last; ++j) {
            s.x.push_back(static_cast<double>(j));
            s.y.push_back(values[static_cast<std::size_t>(j)]);
        }
        return s;
    };
    std::vector<Series> out;
    out.push_back(series(fmt::format("head {} row {} (file)", head, query), row));
    if (slopes.fitted)
        out.push_back(series(fittedPriorLabel(*slopes.fitted),
                             priorRow(*slopes.fitted, query, maps.queries(), maps.keys(), maps.causal())));
    if (slopes.configured)
        out.push_back(series(configuredPriorLabel(*slopes.configured),
                             priorRow(*slopes.configured, query, maps.queries(), maps.keys(), maps.causal())));
    return out;
}

// ---------------------------------------------------------------------------
// The fit table

std::string_view fitColumnTitle(FitColumn column) {
    switch (column) {
        case FitColumn::Layer:
            return "layer";
        case FitColumn::Head:
            return "head";
        case FitColumn::Verdict:
            return "verdict";
        case FitColumn::Slope:
            return "m*";
        case FitColumn::SlopeLow:
            return "m* low";
        case FitColumn::SlopeHigh:
            return "m* high";
        case FitColumn::Kl:
            return "KL (nats)";
        case FitColumn::ConfiguredSlope:
            return "configured m";
        case FitColumn::SlopeRatio:
            return "m*/m";
        case FitColumn::ConfiguredKl:
            return "KL at m";
        case FitColumn::SinkMass:
            return "sink mass";
        case FitColumn::DiagonalMass:
            return "diagonal mass";
        case FitColumn::Entropy:
            return "entropy";
        case FitColumn::MeanDistance:
            return "mean distance";
        case FitColumn::Distance90:
            return "90% distance";
        case FitColumn::Rows:
            return "rows";
    }
    return "";
}

std::string_view fitColumnToolTip(FitColumn column) {
    switch (column) {
        case FitColumn::Layer:
            return "The layer's number (file order for a stacked array, the tensor name's number for safetensors)";
        case FitColumn::Head:
            return "Head index within the layer";
        case FitColumn::Verdict:
            return "How the head relates to ALiBi and its configured slope: follows when m lies in m*'s 95% interval "
                   "or "
                   "within 10% of m*; drifted steeper/flatter otherwise; no distance preference, not ALiBi-shaped (KL "
                   "> 1 "
                   "nat), one key only, prefers far keys (docs/FIT.md)";
        case FitColumn::Slope:
            return "Effective ALiBi slope m*: the maximum-likelihood slope of softmax(-m d) over the rows";
        case FitColumn::SlopeLow:
            return "Lower end of m*'s 95% interval";
        case FitColumn::SlopeHigh:
            return "Upper end of m*'s 95% interval";
        case FitColumn::Kl:
            return "Mean KL divergence of the rows from the fitted prior (nats): 0 = a pure ALiBi head";
        case FitColumn::ConfiguredSlope:
            return "The slope the paired ALiBi parameters give this head (empty when not paired)";
        case FitColumn::SlopeRatio:
            return "m* / configured slope: near 1 for a head that follows its slope";
        case FitColumn::ConfiguredKl:
            return "Mean KL of the rows from the configured slope's prior (KL is its floor)";
        case FitColumn::SinkMass:
            return "Mean probability on key 0 (attention sink)";
        case FitColumn::DiagonalMass:
            return "Mean probability on the query's own position";
        case FitColumn::Entropy:
            return "Mean row entropy (nats)";
        case FitColumn::MeanDistance:
            return "Mean over rows of the expected distance";
        case FitColumn::Distance90:
            return "Mean over rows of the smallest distance holding 90% of the mass";
        case FitColumn::Rows:
            return "Rows used (all-zero rows are skipped)";
    }
    return "";
}

double fitColumnValue(const HeadFit& f, FitColumn column) {
    constexpr double nan = std::numeric_limits<double>::quiet_NaN();
    switch (column) {
        case FitColumn::Layer:
            return f.layer;
        case FitColumn::Head:
            return f.head;
        case FitColumn::Verdict:
            return static_cast<double>(fitVerdict(f).kind);
        case FitColumn::Slope:
            return f.slope;
        case FitColumn::SlopeLow:
            return f.slopeLow;
        case FitColumn::SlopeHigh:
            return f.slopeHigh;
        case FitColumn::Kl:
            return f.kl;
        case FitColumn::ConfiguredSlope:
            return f.configuredSlope.value_or(nan);
        case FitColumn::SlopeRatio:
            return f.configuredSlope && *f.configuredSlope != 0 ? f.slope / *f.configuredSlope : nan;
        case FitColumn::ConfiguredKl:
            return f.configuredKl.value_or(nan);
        case FitColumn::SinkMass:
            return f.sinkMass;
        case FitColumn::DiagonalMass:
            return f.diagonalMass;
        case FitColumn::Entropy:
            return f.entropy;
        case FitColumn::MeanDistance:
            return f.meanDistance;
        case FitColumn::Distance90:
            return f.distance90;
        case FitColumn::Rows:
            return static_cast<double>(f.rows);
    }
    return nan;
}

std::string formatFitColumn(FitColumn column, double value) {
    if (std::isnan(value)) return "";
    switch (column) {
        case FitColumn::Layer:
        case FitColumn::Head:
        case FitColumn::Rows:
            return fmt::format("{}", static_cast<std::int64_t>(value));
        case FitColumn::ConfiguredSlope:
            return formatSlope(value);
        case FitColumn::Verdict:
            return std::string(fitVerdictKindName(static_cast<FitVerdictKind>(static_cast<int>(value))));
        case FitColumn::SinkMass:
        case FitColumn::DiagonalMass:
            return fmt::format("{:.4f}", value);
        case FitColumn::MeanDistance:
        case FitColumn::Distance90:
            return fmt::format("{:.2f}", value);
        default:
            return fmt::format("{:.4g}", value);
    }
}

std::string fitCellText(const HeadFit& fit, FitColumn column) {
    if (column == FitColumn::Layer || column == FitColumn::Head)
        return formatFitColumn(column, fitColumnValue(fit, column));
    if (fit.rows == 0) return "no rows";
    if (column == FitColumn::Verdict) return fitVerdict(fit).text;
    const std::string text = formatFitColumn(column, fitColumnValue(fit, column));
    if (column == FitColumn::Slope && fit.slopeAtBound) return (fit.slope > 0 ? ">= " : "<= ") + text;
    return text;
}

std::vector<int> sortFits(std::span<const HeadFit> fits, FitColumn column, bool ascending) {
    std::vector<int> order(fits.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
        const double va = fitColumnValue(fits[static_cast<std::size_t>(a)], column);
        const double vb = fitColumnValue(fits[static_cast<std::size_t>(b)], column);
        if (std::isnan(va) || std::isnan(vb)) return !std::isnan(va) && std::isnan(vb);  // unknown last
        return ascending ? va < vb : vb < va;
    });
    return order;
}

std::vector<HeadFit> layerFits(std::span<const HeadFit> fits, int layerIndex) {
    std::vector<HeadFit> out;
    for (const HeadFit& f : fits)
        if (f.layerIndex == layerIndex) out.push_back(f);
    std::stable_sort(out.begin(), out.end(), [](const HeadFit& a, const HeadFit& b) { return a.head < b.head; });
    return out;
}

std::vector<int> similarityHeadOrder(std::span<const HeadFit> layer, HeadOrder order, const DistanceMatrix& distances) {
    std::vector<int> out;
    if (order == HeadOrder::Similarity && distances.n > 0) return clusterOrder(distances);
    // By index, or by slope through the table's own ordering (one definition of "steepest first").
    const std::vector<HeadFit> sorted = orderHeads(std::vector<HeadFit>(layer.begin(), layer.end()),
                                                   order == HeadOrder::Slope ? HeadOrder::Slope : HeadOrder::Index, {});
    for (const HeadFit& f : sorted) out.push_back(f.head);
    if (out.empty())
        for (int h = 0; h < distances.n; ++h) out.push_back(h);
    return out;
}

std::vector<double> pairedSlopes(const AttentionMaps& maps, std::vector<double> named) {
    if (!named.empty()) return named;
    return maps.fileSlopes();
}

Result<void> checkPairing(const AttentionMaps& maps, int heads, std::string_view source) {
    if (heads == maps.heads()) return {};
    return fail(ErrorCode::InvalidArgument,
                fmt::format("{} has {} heads but the maps have {}: pick parameters with {} heads to see the configured "
                            "slopes",
                            source, heads, maps.heads(), maps.heads()));
}

std::string fitSummaryLine(std::size_t heads, std::int64_t firstRow, std::int64_t lastRow, std::int64_t queries,
                           std::string_view configuredSource) {
    const std::int64_t last = (lastRow < 0 ? queries : lastRow) - 1;
    const std::string pairing = configuredSource.empty()
                                    ? std::string(", no slopes paired (verdicts without a configured slope)")
                                    : fmt::format(", beside the slopes of {}", configuredSource);
    return fmt::format("Fitted {} heads on query rows {} to {}{}; verdicts as in docs/FIT.md.", heads, firstRow, last,
                       pairing);
}

KeyWindow mapsRowWindow(const std::vector<Series>& series, std::int64_t position, std::int64_t keys,
                        std::optional<std::int64_t> maxDistance) {
    KeyWindow w{0, std::max<std::int64_t>(keys - 1, 0), false};
    if (keys <= 0) return w;
    std::int64_t first = keys, last = -1;
    if (maxDistance) {
        first = position - std::max<std::int64_t>(*maxDistance, 0);
        last = position + std::max<std::int64_t>(*maxDistance, 0);
    } else {
        for (const Series& s : series) {
            double peak = 0;
            for (double y : s.y)
                if (std::isfinite(y)) peak = std::max(peak, y);
            if (!(peak > 0)) continue;
            for (std::size_t k = 0; k < std::min(s.x.size(), s.y.size()); ++k)
                if (std::isfinite(s.y[k]) && s.y[k] >= peak / 1000) {
                    first = std::min(first, static_cast<std::int64_t>(s.x[k]));
                    last = std::max(last, static_cast<std::int64_t>(s.x[k]));
                }
        }
        if (last < first) return w;
        const std::int64_t pad = std::max<std::int64_t>(8, (last - first + 1) / 10);
        first -= pad;
        last += pad;
    }
    // Never past the keys the series hold (a causal row ends at its query).
    double top = -1;
    for (const Series& s : series)
        for (double x : s.x) top = std::max(top, x);
    const std::int64_t end = top >= 0 ? std::min<std::int64_t>(static_cast<std::int64_t>(top), keys - 1) : keys - 1;
    w.first = std::clamp<std::int64_t>(first, 0, end);
    w.last = std::clamp<std::int64_t>(last, w.first, end);
    w.zoomed = w.first > 0 || w.last < end;
    return w;
}

void keepKeyWindow(std::vector<Series>& series, const KeyWindow& window) {
    for (Series& s : series) {
        Series kept{s.label, {}, {}};
        for (std::size_t k = 0; k < std::min(s.x.size(), s.y.size()); ++k)
            if (s.x[k] >= static_cast<double>(window.first) && s.x[k] <= static_cast<double>(window.last)) {
                kept.x.push_back(s.x[k]);
                kept.y.push_back(s.y[k]);
            }
        s = std::move(kept);
    }
}

std::string keyWindowNote(const KeyWindow& window, std::int64_t keys, bool fromMaxDistance, std::string_view what) {
    if (!window.zoomed) return {};
    return fmt::format("{} {} to {} of {} shown ({})", what, window.first, window.last, keys,
                       fromMaxDistance ? "--max-distance" : "the rest hold under 1/1000 of each curve's peak");
}

}  // namespace alibi::explore
