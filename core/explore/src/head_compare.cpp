// Two heads side by side, and a head against its prior (see the header).
#include <alibi/explore/head_compare.hpp>

#include <alibi/analysis/fit_report.hpp>
#include <alibi/explore/attention_maps_view.hpp>
#include <alibi/render/format.hpp>

#include <fmt/format.h>
#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

namespace alibi::explore {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::string headName(const AttentionMaps& maps, HeadRef h) {
    return fmt::format("layer {} · head {}", maps.layerInfo()[static_cast<std::size_t>(h.layerIndex)].number, h.head);
}

std::string headLabel(const AttentionMaps& maps, HeadRef h) {
    return mapsHeadLabel(maps, h.layerIndex, h.head);
}

// The fit table's cells of one head, on one line.
std::string fitLineOf(const HeadFit& fit) {
    if (fit.rows == 0) return "no rows to fit";
    return fmt::format("m* = {} ({} to {}) · {} · KL {} nats", fitCellText(fit, FitColumn::Slope),
                       fitCellText(fit, FitColumn::SlopeLow), fitCellText(fit, FitColumn::SlopeHigh),
                       fitCellText(fit, FitColumn::Verdict), fitCellText(fit, FitColumn::Kl));
}

Result<std::int64_t> parseInteger(std::string_view text, std::string_view what, std::string_view whole) {
    std::int64_t value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || ec != std::errc{} || end != text.data() + text.size())
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("{} '{}': give LAYER:HEAD (the layer's number, the head) or a head of the same layer, "
                                "for example 3:1",
                                what, whole));
    return value;
}

}  // namespace

std::string_view compareSourceName(CompareSource source) {
    switch (source) {
        case CompareSource::ConfiguredPrior:
            return "prior";
        case CompareSource::FittedPrior:
            return "fitted-prior";
        default:
            return "head";
    }
}

double HeadCompareResult::valueAt(const std::vector<double>& grid, std::int64_t query, std::int64_t key) const {
    if (query < 0 || query >= queries || key < 0 || key >= keys) return kNaN;
    const auto n = static_cast<std::size_t>(query * keys + key);
    return n < grid.size() ? grid[n] : kNaN;
}

Result<HeadRef> headRefOf(const AttentionMaps& maps, std::int64_t layerNumber, std::int64_t head,
                          std::string_view what) {
    const auto& info = maps.layerInfo();
    int index = -1;
    for (std::size_t n = 0; n < info.size(); ++n)
        if (info[n].number == layerNumber) index = static_cast<int>(n);
    if (index < 0) {
        std::string numbers;
        if (!info.empty()) {
            bool consecutive = true;
            for (std::size_t n = 1; n < info.size(); ++n) consecutive &= info[n].number == info[n - 1].number + 1;
            numbers = consecutive ? fmt::format("{} to {}", info.front().number, info.back().number) : "";
            if (!consecutive)
                for (std::size_t n = 0; n < info.size(); ++n)
                    numbers += fmt::format("{}{}", n ? ", " : "", info[n].number);
        }
        return fail(ErrorCode::InvalidArgument, fmt::format("{}: layer {} is not in the maps, which hold layer{} {}",
                                                            what, layerNumber, info.size() == 1 ? "" : "s", numbers));
    }
    if (head < 0 || head >= maps.heads())
        return fail(ErrorCode::InvalidArgument, fmt::format("{}: head {} is not in the maps, which hold heads 0 to {}",
                                                            what, head, maps.heads() - 1));
    return HeadRef{index, static_cast<int>(head)};
}

Result<HeadRef> parseHeadRef(const AttentionMaps& maps, std::string_view text, int defaultLayerIndex,
                             std::string_view what) {
    const std::size_t colon = text.find(':');
    if (colon == std::string_view::npos) {
        auto head = parseInteger(text, what, text);
        if (!head) return std::unexpected(head.error());
        if (defaultLayerIndex < 0 || defaultLayerIndex >= maps.layers())
            return fail(ErrorCode::InvalidArgument, fmt::format("{}: the maps hold no layer", what));
        return headRefOf(maps, maps.layerInfo()[static_cast<std::size_t>(defaultLayerIndex)].number, *head, what);
    }
    auto layer = parseInteger(text.substr(0, colon), what, text);
    if (!layer) return std::unexpected(layer.error());
    auto head = parseInteger(text.substr(colon + 1), what, text);
    if (!head) return std::unexpected(head.error());
    return headRefOf(maps, *layer, *head, what);
}

Result<HeadCompareResult> compareHeads(const AttentionMaps& maps, const HeadCompareRequest& r) {
    const std::int64_t Q = maps.queries(), K = maps.keys();
    const auto checkHead = [&](HeadRef h, const char* side) -> Result<void> {
        if (h.layerIndex < 0 || h.layerIndex >= maps.layers())
            return fail(ErrorCode::InvalidArgument,
                        fmt::format("head {}: layer index {} is not in the maps, which hold {} layers (0 to {})", side,
                                    h.layerIndex, maps.layers(), maps.layers() - 1));
        if (h.head < 0 || h.head >= maps.heads())
            return fail(ErrorCode::InvalidArgument,
                        fmt::format("head {}: head {} is not in the maps, which hold heads 0 to {}", side, h.head,
                                    maps.heads() - 1));
        return {};
    };
    if (auto ok = checkHead(r.a, "A"); !ok) return std::unexpected(ok.error());
    if (r.b == CompareSource::Head)
        if (auto ok = checkHead(r.bHead, "B"); !ok) return std::unexpected(ok.error());
    if (Q < 1 || K < 1) return fail(ErrorCode::InvalidArgument, "the maps hold no query row or key");
    if (Q * K > kMaxCompareCells)
        return fail(ErrorCode::TooLarge,
                    fmt::format("{} queries x {} keys is more than the {} cells two heads are compared on: save "
                                "shorter maps",
                                Q, K, kMaxCompareCells));
    if (!r.configured.empty() && static_cast<int>(r.configured.size()) != maps.heads())
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("{} configured slopes for maps of {} heads: give one slope per head",
                                r.configured.size(), maps.heads()));
    if (r.b == CompareSource::ConfiguredPrior && r.configured.empty())
        return fail(ErrorCode::InvalidArgument,
                    "B is the configured slope's prior, but no slopes are paired with the maps: give the model's "
                    "slopes (--heads, --slopes or --config), or compare with the fitted prior");

    // The fits: the given ones where they hold the head, the rest fitted here (whole layers, as
    // the fit table fits them, so the numbers are the table's).
    std::vector<HeadFit> fits;
    const auto fitOf = [&](HeadRef h) -> const HeadFit* {
        for (const HeadFit& f : fits)
            if (f.layerIndex == h.layerIndex && f.head == h.head) return &f;
        return nullptr;
    };
    for (const HeadFit& f : r.fits) fits.push_back(f);
    std::vector<int> missing;
    for (const HeadRef h : {r.a, r.b == CompareSource::Head ? r.bHead : r.a})
        if (fitOf(h) == nullptr && std::find(missing.begin(), missing.end(), h.layerIndex) == missing.end())
            missing.push_back(h.layerIndex);
    if (!missing.empty()) {
        HeadFitOptions options;
        options.firstRow = r.firstRow;
        options.lastRow = r.lastRow;
        options.layers = missing;
        options.threads = r.threads;
        options.progress = r.progress;
        auto more = fitHeads(maps, options, r.configured);
        if (!more) return std::unexpected(more.error());
        fits.insert(fits.end(), more->begin(), more->end());
    }

    HeadCompareResult out;
    out.queries = Q;
    out.keys = K;
    out.causal = maps.causal();
    out.firstRow = r.firstRow;
    out.lastRow = r.lastRow;
    out.keyTokens = mapsKeyTokenLabels(maps);
    out.queryTokens = mapsQueryTokenLabels(maps);
    const auto masked = [&](std::int64_t q, std::int64_t j) { return maps.causal() && j > q + K - Q; };
    const auto cells = static_cast<std::size_t>(Q * K);

    // A head's map, as the views read it.
    const auto readHead = [&](HeadCompareSide& side) -> Result<void> {
        side.values.assign(cells, kNaN);
        std::vector<double> row(static_cast<std::size_t>(K));
        for (std::int64_t q = 0; q < Q; ++q) {
            if (r.progress && q % 256 == 255 &&
                !r.progress(static_cast<std::uint64_t>(q), static_cast<std::uint64_t>(Q)))
                return fail(ErrorCode::Cancelled, "comparing the heads was cancelled");
            if (auto ok = maps.probabilities(side.head.layerIndex, side.head.head, q, row); !ok)
                return std::unexpected(ok.error());
            for (std::int64_t j = 0; j < K; ++j)
                if (!masked(q, j)) side.values[static_cast<std::size_t>(q * K + j)] = row[static_cast<std::size_t>(j)];
        }
        maps.release(side.head.layerIndex, side.head.head);
        return {};
    };
    const auto readPrior = [&](HeadCompareSide& side, double slope) {
        side.values.assign(cells, kNaN);
        for (std::int64_t q = 0; q < Q; ++q) {
            const std::vector<double> row = priorRow(slope, q, Q, K, maps.causal());
            for (std::int64_t j = 0; j < K; ++j)
                if (!masked(q, j)) side.values[static_cast<std::size_t>(q * K + j)] = row[static_cast<std::size_t>(j)];
        }
    };
    const auto range = [](HeadCompareSide& side) {
        double lo = std::numeric_limits<double>::infinity(), hi = -lo;
        for (const double v : side.values)
            if (!std::isnan(v)) lo = std::min(lo, v), hi = std::max(hi, v);
        side.lo = lo <= hi ? lo : 0;
        side.hi = lo <= hi ? hi : 0;
    };

    HeadCompareSide& a = out.a;
    a.head = r.a;
    a.layerNumber = maps.layerInfo()[static_cast<std::size_t>(r.a.layerIndex)].number;
    a.name = headName(maps, r.a);
    a.label = headLabel(maps, r.a);
    a.fit = *fitOf(r.a);
    a.fitLine = fitLineOf(a.fit);
    if (auto ok = readHead(a); !ok) return std::unexpected(ok.error());
    range(a);

    HeadCompareSide& b = out.b;
    b.source = r.b;
    b.head = r.b == CompareSource::Head ? r.bHead : r.a;
    b.layerNumber = maps.layerInfo()[static_cast<std::size_t>(b.head.layerIndex)].number;
    b.fit = *fitOf(b.head);
    if (r.b == CompareSource::Head) {
        b.name = headName(maps, b.head);
        b.label = headLabel(maps, b.head);
        b.fitLine = fitLineOf(b.fit);
        if (auto ok = readHead(b); !ok) return std::unexpected(ok.error());
    } else {
        const bool configured = r.b == CompareSource::ConfiguredPrior;
        const double m = configured ? r.configured[static_cast<std::size_t>(r.a.head)] : a.fit.slope;
        const std::string slope = configured ? formatSlope(m) : formatValue(m);
        b.priorSlope = m;
        b.name = fmt::format("prior of {} at {} = {}", a.name, configured ? "configured m" : "m*", slope);
        b.label = fmt::format("prior {} = {}", configured ? "m" : "m*", slope);
        b.fitLine = fmt::format("softmax(-m d) at m = {} · the prior itself (KL 0)", slope);
        readPrior(b, m);
    }
    range(b);

    out.difference.assign(cells, kNaN);
    for (std::size_t n = 0; n < cells; ++n) {
        if (std::isnan(a.values[n]) || std::isnan(b.values[n])) continue;
        const double d = b.values[n] - a.values[n];
        out.difference[n] = d;
        if (std::abs(d) > out.maxAbsDifference || out.maxQuery < 0) {
            out.maxAbsDifference = std::abs(d);
            out.maxQuery = static_cast<std::int64_t>(n) / K;
            out.maxKey = static_cast<std::int64_t>(n) % K;
        }
    }
    return out;
}

std::string headCompareTitle(const HeadCompareResult& r) {
    return fmt::format("Two heads · A: {} · B: {} · {} queries x {} keys", r.a.name, r.b.name, r.queries, r.keys);
}

std::string headCompareMaxLine(const AttentionMaps& maps, const HeadCompareResult& r) {
    if (r.maxQuery < 0) return "every cell is masked";
    const auto token = [](const std::string& t) { return t.empty() ? std::string() : " (" + t + ")"; };
    return fmt::format("max |B - A| = {} at query {}{}, key {}{}", formatValue(r.maxAbsDifference), r.maxQuery,
                       token(mapsTokenText(maps, r.maxQuery + r.keys - r.queries)), r.maxKey,
                       token(mapsTokenText(maps, r.maxKey)));
}

std::string headCompareReadout(const AttentionMaps& maps, const HeadCompareResult& r, std::int64_t query,
                               std::int64_t key) {
    if (query < 0 || query >= r.queries || key < 0 || key >= r.keys) return {};
    const std::int64_t position = query + r.keys - r.queries;
    const std::int64_t d = r.causal ? position - key : std::abs(position - key);
    std::string text = fmt::format("query i = {} · key j = {}", query, key);
    if (r.keys != r.queries) text += fmt::format(" · position {}", position);
    if (!(r.causal && d < 0)) text += fmt::format(" · distance {}", d);
    if (const std::string tokens = mapsTokensLine(maps, query, key); !tokens.empty()) text += "\n" + tokens;
    const double va = r.valueAt(r.a.values, query, key), vb = r.valueAt(r.b.values, query, key);
    if (std::isnan(va) || std::isnan(vb)) return text + "\nmasked: the key comes after the query (causal maps)";
    const double diff = vb - va;
    text += fmt::format("\nA ({}) = {} · B ({}) = {} · B - A = {}{}", r.a.label, formatValue(va), r.b.label,
                        formatValue(vb), diff > 0 ? "+" : "", formatValue(diff));
    return text;
}

}  // namespace alibi::explore
