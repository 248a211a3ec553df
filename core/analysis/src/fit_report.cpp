// Text, JSON and CSV of the per-head fit table.
#include <alibi/analysis/fit_report.hpp>

#include <fmt/format.h>
#include <algorithm>
#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>

namespace alibi {

std::optional<HeadOrder> parseHeadOrder(std::string_view name) {
    if (name == "index") return HeadOrder::Index;
    if (name == "slope") return HeadOrder::Slope;
    if (name == "similarity") return HeadOrder::Similarity;
    return std::nullopt;
}

std::string_view similarityBasisName(SimilarityBasis basis) {
    return basis == SimilarityBasis::Map ? "map" : "profile";
}

std::optional<SimilarityBasis> parseSimilarityBasis(std::string_view name) {
    if (name == "profile") return SimilarityBasis::Profile;
    if (name == "map") return SimilarityBasis::Map;
    return std::nullopt;
}

std::vector<HeadFit> orderHeads(std::vector<HeadFit> heads, HeadOrder order,
                                const std::vector<LayerSimilarity>& similarity) {
    // Heads arrive grouped by layer; reorder inside each group.
    auto begin = heads.begin();
    while (begin != heads.end()) {
        auto end =
            std::find_if(begin, heads.end(), [&](const HeadFit& h) { return h.layerIndex != begin->layerIndex; });
        if (order == HeadOrder::Slope) {
            std::stable_sort(begin, end, [](const HeadFit& a, const HeadFit& b) { return a.slope > b.slope; });
        } else if (order == HeadOrder::Similarity) {
            const auto s = std::find_if(similarity.begin(), similarity.end(),
                                        [&](const LayerSimilarity& l) { return l.layer == begin->layer; });
            if (s != similarity.end()) {
                std::vector<int> rank(s->order.size());
                for (std::size_t k = 0; k < s->order.size(); ++k)
                    rank[static_cast<std::size_t>(s->order[k])] = static_cast<int>(k);
                std::stable_sort(begin, end, [&](const HeadFit& a, const HeadFit& b) {
                    return rank[static_cast<std::size_t>(a.head)] < rank[static_cast<std::size_t>(b.head)];
                });
            }
        }
        begin = end;
    }
    return heads;
}

Result<FitReport> makeFitReport(const AttentionMaps& maps, std::vector<HeadFit> fits, std::string file,
                                const FitReportOptions& options) {
    FitReport report;
    report.file = std::move(file);
    std::optional<SimilarityBasis> basis = options.similarity;
    if (!basis && options.order == HeadOrder::Similarity) basis = SimilarityBasis::Profile;
    if (basis) {
        for (std::size_t begin = 0; begin < fits.size();) {
            std::size_t end = begin;
            while (end < fits.size() && fits[end].layerIndex == fits[begin].layerIndex) ++end;
            LayerSimilarity s;
            s.layer = fits[begin].layer;
            s.basis = *basis;
            if (*basis == SimilarityBasis::Map) {
                auto d = mapDistances(maps, fits[begin].layerIndex, options.firstRow, options.lastRow, options.threads);
                if (!d) return std::unexpected(d.error());
                s.distances = std::move(*d);
            } else {
                s.distances = profileDistances(std::span(fits).subspan(begin, end - begin));
            }
            s.order = clusterOrder(s.distances);
            report.similarity.push_back(std::move(s));
            begin = end;
        }
    }
    report.firstRow = options.firstRow;
    report.endRow = options.lastRow < 0 ? maps.queries() : options.lastRow;
    report.heads = orderHeads(std::move(fits), options.order, report.similarity);
    return report;
}

Result<std::pair<std::int64_t, std::int64_t>> parseRowRange(std::string_view text) {
    const auto colon = text.find(':');
    const auto number = [](std::string_view part, std::int64_t fallback) -> std::optional<std::int64_t> {
        if (part.empty()) return fallback;
        std::int64_t v = 0;
        const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
        if (ec != std::errc() || end != part.data() + part.size() || v < 0) return std::nullopt;
        return v;
    };
    if (colon != std::string_view::npos) {
        const auto a = number(text.substr(0, colon), 0);
        const auto b = number(text.substr(colon + 1), -1);
        if (a && b) return std::pair{*a, *b};
    }
    return fail(ErrorCode::InvalidArgument,
                fmt::format("--rows: '{}' is not a row range; give FIRST:END (query rows FIRST to END-1), e.g. --rows "
                            "512:2048 or --rows 512:",
                            text));
}

Result<std::vector<double>> fitConfiguredSlopes(SlopeParams slopes, bool headsNamed, int mapsHeads) {
    if (!headsNamed) slopes.heads = mapsHeads;
    return computeSlopes(slopes);
}

// ---------------------------------------------------------------------------
// The verdict

std::string_view fitVerdictKindName(FitVerdictKind kind) {
    switch (kind) {
        case FitVerdictKind::NoRows:
            return "no-rows";
        case FitVerdictKind::NotAlibiShaped:
            return "not-alibi-shaped";
        case FitVerdictKind::OneKey:
            return "one-key";
        case FitVerdictKind::PrefersFarKeys:
            return "prefers-far-keys";
        case FitVerdictKind::Follows:
            return "follows";
        case FitVerdictKind::NoDistancePreference:
            return "no-distance-preference";
        case FitVerdictKind::Steeper:
            return "steeper";
        case FitVerdictKind::Flatter:
            return "flatter";
        case FitVerdictKind::AlibiShaped:
            return "alibi-shaped";
    }
    return "no-rows";
}

FitVerdict fitVerdict(const HeadFit& h) {
    using K = FitVerdictKind;
    using R = FitVerdictRole;
    const auto make = [](K kind, R role, std::string text, std::string reason) {
        return FitVerdict{kind, role, std::move(text), std::move(reason)};
    };
    const std::string interval = fmt::format("[{:.4g}, {:.4g}]", h.slopeLow, h.slopeHigh);
    if (h.rows == 0) return make(K::NoRows, R::Neutral, "no rows", "every query row of this head is empty (padding)");
    // Order matters: a shape the prior cannot take comes before any comparison of slopes.
    if (h.kl > kFitPoorKl)
        return make(K::NotAlibiShaped, R::Unlike, "not ALiBi-shaped",
                    fmt::format("the best ALiBi prior (m* = {:.4g}) leaves a mean KL of {:.3g} nats, above {:g}",
                                h.slope, h.kl, kFitPoorKl));
    if (h.slopeAtBound && h.slope > 0)
        return make(
            K::OneKey, R::Unlike, "one key only",
            fmt::format("every row puts its mass on its nearest key: m* reaches the search's end ({:g})", h.slope));
    if (h.slopeHigh < 0 || (h.slopeAtBound && h.slope < 0))
        return make(
            K::PrefersFarKeys, R::Unlike, "prefers far keys",
            fmt::format("m* = {:.4g} < 0: the head attends more to distant keys (an attention sink?)", h.slope));
    if (h.configuredSlope) {
        const double m = *h.configuredSlope;
        if (m >= h.slopeLow && m <= h.slopeHigh)
            return make(K::Follows, R::Agrees, "follows its slope",
                        fmt::format("m = {:.4g} lies in m*'s 95% interval {}", m, interval));
        if (std::abs(m - h.slope) <= kFitFollowsTolerance * std::abs(h.slope))
            return make(
                K::Follows, R::Agrees, "follows its slope",
                fmt::format("m = {:.4g} is within {:g}% of m* = {:.4g}", m, kFitFollowsTolerance * 100, h.slope));
    }
    if (h.uniformKl - h.kl <= kFitUniformKl)
        return make(K::NoDistancePreference, h.configuredSlope ? R::Differs : R::Neutral, "no distance preference",
                    fmt::format("the uniform prior explains the rows within {:g} nats of m* = {:.4g}: a near-uniform "
                                "head",
                                kFitUniformKl, h.slope));
    if (h.slope <= 0)
        return make(K::PrefersFarKeys, R::Unlike, "prefers far keys",
                    fmt::format("m* = {:.4g} <= 0 fits {:.3g} nats better than the uniform prior: the head attends "
                                "more to distant keys",
                                h.slope, h.uniformKl - h.kl));
    if (!h.configuredSlope)
        return make(K::AlibiShaped, R::Neutral, "ALiBi-shaped",
                    fmt::format("softmax(-m* d) with m* = {:.4g} fits (mean KL {:.3g} nats); no configured slope to "
                                "compare with",
                                h.slope, h.kl));
    // Here m* > 0 and the uniform prior is worse by more than kFitUniformKl: m* is no rounding
    // residue of 0, so the ratio is finite and meaningful.
    const double m = *h.configuredSlope;
    const auto ratio = [](double r) { return fmt::format("{:.2g}x", r); };
    const std::string outside =
        fmt::format("outside its 95% interval {} and the {:g}% tolerance", interval, kFitFollowsTolerance * 100);
    if (h.slope > m)
        return make(K::Steeper, R::Differs, fmt::format("drifted: {} steeper", ratio(h.slope / m)),
                    fmt::format("m* = {:.4g} is {} m = {:.4g}, {}", h.slope, ratio(h.slope / m), m, outside));
    return make(K::Flatter, R::Differs, fmt::format("drifted: {} flatter", ratio(m / h.slope)),
                fmt::format("m* = {:.4g} is 1/{} of m = {:.4g}, {}", h.slope, ratio(m / h.slope), m, outside));
}

namespace {

nlohmann::ordered_json headJson(const HeadFit& h) {
    nlohmann::ordered_json j;
    j["layer"] = h.layer;
    j["head"] = h.head;
    j["slope"] = h.slope;
    j["slope_low"] = h.slopeLow;
    j["slope_high"] = h.slopeHigh;
    j["slope_at_bound"] = h.slopeAtBound;
    j["kl"] = h.kl;
    j["sink_mass"] = h.sinkMass;
    j["diagonal_mass"] = h.diagonalMass;
    j["entropy"] = h.entropy;
    j["mean_distance"] = h.meanDistance;
    j["distance_90"] = h.distance90;
    j["rows"] = h.rows;
    if (h.configuredSlope) j["configured_slope"] = *h.configuredSlope;
    if (h.configuredKl) j["configured_kl"] = *h.configuredKl;
    j["uniform_kl"] = h.uniformKl;
    const FitVerdict v = fitVerdict(h);
    j["verdict"] = v.text;
    j["verdict_kind"] = std::string(fitVerdictKindName(v.kind));
    j["verdict_reason"] = v.reason;
    return j;
}

}  // namespace

std::string fitJson(const FitReport& report, const AttentionMaps& maps) {
    nlohmann::ordered_json doc;
    doc["file"] = report.file;
    doc["layout"] = maps.layoutText();
    doc["values"] = std::string(attentionValuesName(maps.values()));
    doc["values_reason"] = maps.valuesReason();
    doc["causal"] = maps.causal();
    doc["layers"] = maps.layers();
    doc["heads_per_layer"] = maps.heads();
    doc["queries"] = maps.queries();
    doc["keys"] = maps.keys();
    doc["batch"] = maps.batch();
    nlohmann::ordered_json rows;
    rows["first"] = report.firstRow;
    rows["end"] = report.endRow < 0 ? maps.queries() : report.endRow;
    rows["every"] = report.firstRow == 0 && (report.endRow < 0 || report.endRow == maps.queries());
    doc["fitted_rows"] = std::move(rows);
    nlohmann::ordered_json heads = nlohmann::ordered_json::array();
    for (const auto& h : report.heads) heads.push_back(headJson(h));
    doc["heads"] = std::move(heads);
    if (!report.similarity.empty()) {
        nlohmann::ordered_json layers = nlohmann::ordered_json::array();
        for (const auto& s : report.similarity) {
            nlohmann::ordered_json l;
            l["layer"] = s.layer;
            l["basis"] = std::string(similarityBasisName(s.basis));
            l["order"] = s.order;
            nlohmann::ordered_json rows = nlohmann::ordered_json::array();
            for (int a = 0; a < s.distances.n; ++a) {
                nlohmann::ordered_json row = nlohmann::ordered_json::array();
                for (int b = 0; b < s.distances.n; ++b) row.push_back(s.distances.at(a, b));
                rows.push_back(std::move(row));
            }
            l["distances"] = std::move(rows);
            layers.push_back(std::move(l));
        }
        doc["similarity"] = std::move(layers);
    }
    return doc.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

std::string fitCsv(const FitReport& report) {
    std::string out =
        "layer,head,slope,slope_low,slope_high,slope_at_bound,kl,sink_mass,diagonal_mass,entropy,mean_distance,"
        "distance_90,rows,configured_slope,verdict,verdict_kind\n";
    for (const auto& h : report.heads) {
        const FitVerdict v = fitVerdict(h);  // verdict texts hold no comma or quote
        out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", h.layer, h.head, h.slope, h.slopeLow,
                           h.slopeHigh, h.slopeAtBound ? "true" : "false", h.kl, h.sinkMass, h.diagonalMass, h.entropy,
                           h.meanDistance, h.distance90, h.rows,
                           h.configuredSlope ? fmt::format("{}", *h.configuredSlope) : "", v.text,
                           fitVerdictKindName(v.kind));
    }
    return out;
}

std::string fitText(const FitReport& report, const AttentionMaps& maps) {
    std::string out = fmt::format("{}: {}, {} ({})\n", report.file, maps.layoutText(),
                                  attentionValuesName(maps.values()), maps.valuesReason());
    out += fmt::format("{} layer{} x {} heads, {} queries x {} keys, {}{}\n", maps.layers(),
                       maps.layers() == 1 ? "" : "s", maps.heads(), maps.queries(), maps.keys(),
                       maps.causal() ? "causal (distance i - j)" : "bidirectional (distance |i - j|)",
                       maps.batches() > 1 ? fmt::format(", batch element {} of {}", maps.batch(), maps.batches()) : "");
    const std::int64_t end = report.endRow < 0 ? maps.queries() : report.endRow;
    const std::string rows = report.firstRow == 0 && end == maps.queries()
                                 ? std::string("every query row")
                                 : fmt::format("query rows {} to {} of {}", report.firstRow, end - 1, maps.queries());
    out += fmt::format("Effective slope m*: softmax(-m* d) fitted by maximum likelihood over {}; KL in nats.\n", rows);
    out += fmt::format(
        "A head follows its configured slope m when m lies in m*'s 95% interval or within {:g}% of m*; "
        "not ALiBi-shaped when KL > {:g}. Rule: docs/FIT.md.\n\n",
        kFitFollowsTolerance * 100, kFitPoorKl);
    const bool configured = !report.heads.empty() && report.heads.front().configuredSlope.has_value();
    out += fmt::format("{:>5} {:>4} {:>11} {:>23} {:>9}{} {:>6} {:>6} {:>7} {:>9} {:>8}  {}\n", "layer", "head", "m*",
                       "95% interval", "KL", configured ? fmt::format(" {:>11}", "configured") : "", "sink", "diag",
                       "entropy", "mean dist", "dist 90%", "");
    for (const auto& h : report.heads)
        out += fmt::format("{:>5} {:>4} {:>11.5g} {:>23} {:>9.3g}{} {:>6.3f} {:>6.3f} {:>7.3f} {:>9.2f} {:>8.1f}  {}\n",
                           h.layer, h.head, h.slope, fmt::format("[{:.4g}, {:.4g}]", h.slopeLow, h.slopeHigh), h.kl,
                           configured ? fmt::format(" {:>11.5g}", h.configuredSlope.value_or(0)) : "", h.sinkMass,
                           h.diagonalMass, h.entropy, h.meanDistance, h.distance90, fitVerdict(h).text);
    for (const auto& s : report.similarity) {
        out += fmt::format("\nLayer {}: heads in similarity order ({} Jensen-Shannon distance):", s.layer,
                           s.basis == SimilarityBasis::Map ? "full-map" : "profile");
        for (const int h : s.order) out += fmt::format(" {}", h);
        out += "\n";
    }
    return out;
}

}  // namespace alibi
