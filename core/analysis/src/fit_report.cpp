// Text, JSON and CSV of the per-head fit table.
#include <alibi/analysis/fit_report.hpp>

#include <algorithm>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace alibi {

std::string_view headOrderName(HeadOrder order) {
    switch (order) {
    case HeadOrder::Slope: return "slope";
    case HeadOrder::Similarity: return "similarity";
    default: return "index";
    }
}

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
        auto end = std::find_if(begin, heads.end(), [&](const HeadFit& h) { return h.layerIndex != begin->layerIndex; });
        if (order == HeadOrder::Slope) {
            std::stable_sort(begin, end, [](const HeadFit& a, const HeadFit& b) { return a.slope > b.slope; });
        } else if (order == HeadOrder::Similarity) {
            const auto s = std::find_if(similarity.begin(), similarity.end(),
                                        [&](const LayerSimilarity& l) { return l.layer == begin->layer; });
            if (s != similarity.end()) {
                std::vector<int> rank(s->order.size());
                for (std::size_t k = 0; k < s->order.size(); ++k) rank[static_cast<std::size_t>(s->order[k])] = static_cast<int>(k);
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
    report.heads = orderHeads(std::move(fits), options.order, report.similarity);
    return report;
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
    return j;
}

// How a head relates to its configured slope, in words, for the text table: it follows its
// slope when the configured prior explains its rows almost as well as the best slope does
// (mean KL within 0.001 nats or 5% of the best), whatever the interval's width.
std::string verdict(const HeadFit& h) {
    if (h.rows == 0) return "no rows";
    if (h.slopeAtBound) return h.slope > 0 ? "one key only" : "prefers far keys";
    if (!h.configuredSlope || !h.configuredKl) return "";
    const double m = *h.configuredSlope;
    if (*h.configuredKl <= h.kl + std::max(1e-3, 0.05 * h.kl)) return "follows its slope";
    if (h.slope <= 0) return "drifted: prefers far keys";
    return h.slope > m ? fmt::format("drifted: {:.2g}x steeper", h.slope / m)
                       : fmt::format("drifted: {:.2g}x flatter", m / h.slope);
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
        "distance_90,rows,configured_slope\n";
    for (const auto& h : report.heads)
        out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", h.layer, h.head, h.slope, h.slopeLow, h.slopeHigh,
                           h.slopeAtBound ? "true" : "false", h.kl, h.sinkMass, h.diagonalMass, h.entropy, h.meanDistance,
                           h.distance90, h.rows, h.configuredSlope ? fmt::format("{}", *h.configuredSlope) : "");
    return out;
}

std::string fitText(const FitReport& report, const AttentionMaps& maps) {
    std::string out = fmt::format("{}: {}, {} ({})\n", report.file, maps.layoutText(),
                                  attentionValuesName(maps.values()), maps.valuesReason());
    out += fmt::format("{} layer{} x {} heads, {} queries x {} keys, {}{}\n", maps.layers(), maps.layers() == 1 ? "" : "s",
                       maps.heads(), maps.queries(), maps.keys(),
                       maps.causal() ? "causal (distance i - j)" : "bidirectional (distance |i - j|)",
                       maps.batches() > 1 ? fmt::format(", batch element {} of {}", maps.batch(), maps.batches()) : "");
    out += "Effective slope m*: softmax(-m* d) fitted by maximum likelihood over every row; KL in nats.\n";
    out += "A head follows its configured slope when that slope's prior fits its rows (almost) as well as m*.\n\n";
    const bool configured = !report.heads.empty() && report.heads.front().configuredSlope.has_value();
    out += fmt::format("{:>5} {:>4} {:>11} {:>23} {:>9}{} {:>6} {:>6} {:>7} {:>9} {:>8}  {}\n", "layer", "head", "m*",
                       "95% interval", "KL", configured ? fmt::format(" {:>11}", "configured") : "", "sink", "diag",
                       "entropy", "mean dist", "dist 90%", "");
    for (const auto& h : report.heads)
        out += fmt::format("{:>5} {:>4} {:>11.5g} {:>23} {:>9.3g}{} {:>6.3f} {:>6.3f} {:>7.3f} {:>9.2f} {:>8.1f}  {}\n",
                           h.layer, h.head, h.slope, fmt::format("[{:.4g}, {:.4g}]", h.slopeLow, h.slopeHigh), h.kl,
                           configured ? fmt::format(" {:>11.5g}", h.configuredSlope.value_or(0)) : "", h.sinkMass,
                           h.diagonalMass, h.entropy, h.meanDistance, h.distance90, verdict(h));
    for (const auto& s : report.similarity) {
        out += fmt::format("\nLayer {}: heads in similarity order ({} Jensen-Shannon distance):", s.layer,
                           s.basis == SimilarityBasis::Map ? "full-map" : "profile");
        for (const int h : s.order) out += fmt::format(" {}", h);
        out += "\n";
    }
    return out;
}

}  // namespace alibi
