// Fit table columns, the prior of one row, and the maps' hover read-out.
#include <alibi/explore/attention_fit_view.hpp>

#include <alibi/analysis/head_fit.hpp>
#include <alibi/explore/format.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace alibi::explore {

std::string_view fitColumnTitle(FitColumn column) {
    switch (column) {
        case FitColumn::Layer: return "layer";
        case FitColumn::Head: return "head";
        case FitColumn::Slope: return "slope m*";
        case FitColumn::Interval: return "95% interval";
        case FitColumn::Kl: return "KL";
        case FitColumn::Configured: return "configured m";
        case FitColumn::SlopeRatio: return "m*/m";
        case FitColumn::ConfiguredKl: return "KL at m";
        case FitColumn::Sink: return "sink";
        case FitColumn::Diagonal: return "diagonal";
        case FitColumn::Entropy: return "entropy";
        case FitColumn::MeanDistance: return "mean dist";
        case FitColumn::Distance90: return "90% dist";
    }
    return "";
}

std::string_view fitColumnHelp(FitColumn column) {
    switch (column) {
        case FitColumn::Layer: return "The layer's number (file order for a stacked array, the tensor name's number)";
        case FitColumn::Head: return "The head's index in its layer";
        case FitColumn::Slope:
            return "The effective slope m*: the ALiBi slope whose content-free prior softmax(-m* d) best explains "
                   "the head's rows (maximum likelihood)";
        case FitColumn::Interval: return "95% interval of m* (sorted by its width)";
        case FitColumn::Kl:
            return "Goodness of fit: mean KL divergence (nats) of the rows from the fitted prior; 0 is a head that "
                   "is exactly ALiBi";
        case FitColumn::Configured: return "The head's configured ALiBi slope (pair the maps with ALiBi parameters)";
        case FitColumn::SlopeRatio: return "m* / configured slope: near 1 for a head that follows its slope";
        case FitColumn::ConfiguredKl:
            return "Mean KL of the rows from the configured slope's prior (KL is the floor): how much worse the "
                   "model's own slope explains the head";
        case FitColumn::Sink: return "Mean probability on key 0 (attention sink)";
        case FitColumn::Diagonal: return "Mean probability on the query's own position";
        case FitColumn::Entropy: return "Mean row entropy, nats";
        case FitColumn::MeanDistance: return "Mean over rows of the expected distance sum_j p_j d_j";
        case FitColumn::Distance90: return "Mean over rows of the smallest distance D holding 90% of the mass";
    }
    return "";
}

std::optional<double> fitSortKey(const HeadFit& fit, FitColumn column) {
    switch (column) {
        case FitColumn::Layer: return fit.layer;
        case FitColumn::Head: return fit.head;
        case FitColumn::Slope: return fit.slope;
        case FitColumn::Interval: return fit.slopeHigh - fit.slopeLow;
        case FitColumn::Kl: return fit.kl;
        case FitColumn::Configured: return fit.configuredSlope;
        case FitColumn::SlopeRatio:
            if (!fit.configuredSlope || *fit.configuredSlope == 0) return std::nullopt;
            return fit.slope / *fit.configuredSlope;
        case FitColumn::ConfiguredKl: return fit.configuredKl;
        case FitColumn::Sink: return fit.sinkMass;
        case FitColumn::Diagonal: return fit.diagonalMass;
        case FitColumn::Entropy: return fit.entropy;
        case FitColumn::MeanDistance: return fit.meanDistance;
        case FitColumn::Distance90: return fit.distance90;
    }
    return std::nullopt;
}

std::string fitCellText(const HeadFit& fit, FitColumn column) {
    if (fit.rows == 0 && column != FitColumn::Layer && column != FitColumn::Head) return "no rows";
    switch (column) {
        case FitColumn::Layer: return fmt::format("{}", fit.layer);
        case FitColumn::Head: return fmt::format("{}", fit.head);
        case FitColumn::Slope: return fit.slopeAtBound ? ">= " + formatValue(fit.slope) : formatValue(fit.slope);
        case FitColumn::Interval: return fmt::format("[{}, {}]", formatValue(fit.slopeLow), formatValue(fit.slopeHigh));
        case FitColumn::Configured: return fit.configuredSlope ? formatSlope(*fit.configuredSlope) : std::string();
        default: break;
    }
    const auto key = fitSortKey(fit, column);
    return key ? formatValue(*key) : std::string();
}

std::vector<int> sortFits(std::span<const HeadFit> fits, FitColumn column, bool ascending) {
    std::vector<int> order(fits.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
        const auto ka = fitSortKey(fits[static_cast<std::size_t>(a)], column);
        const auto kb = fitSortKey(fits[static_cast<std::size_t>(b)], column);
        if (!ka || !kb) return ka.has_value() && !kb.has_value();  // unknown last
        return ascending ? *ka < *kb : *kb < *ka;
    });
    return order;
}

std::vector<double> priorRow(double slope, std::int64_t queries, std::int64_t keys, bool causal, std::int64_t q) {
    const std::int64_t i = q + keys - queries;
    const std::int64_t last = causal ? std::min(i, keys - 1) : keys - 1;
    if (keys <= 0 || last < 0) return {};
    std::vector<double> row(static_cast<std::size_t>(keys), 0.0);
    // The largest logit is at the smallest distance (or the largest, for a negative slope).
    double top = -INFINITY;
    for (std::int64_t j = 0; j <= last; ++j) top = std::max(top, -slope * static_cast<double>(i >= j ? i - j : j - i));
    double total = 0;
    for (std::int64_t j = 0; j <= last; ++j) {
        const double d = static_cast<double>(i >= j ? i - j : j - i);
        const double v = std::exp(-slope * d - top);
        row[static_cast<std::size_t>(j)] = v;
        total += v;
    }
    for (double& v : row) v /= total;
    return row;
}

std::string mapsCellReadout(const AttentionMaps& maps, int layerIndex, int head, std::int64_t query, std::int64_t key,
                            double stored, double probability, std::optional<double> fitted,
                            std::optional<double> configured) {
    const AttentionLayerInfo& info = maps.layerInfo().at(static_cast<std::size_t>(layerIndex));
    const std::int64_t i = query + maps.keys() - maps.queries();
    const std::int64_t d = i >= key ? i - key : key - i;
    std::string text = fmt::format("layer {}{} · head {} · query i = {} · key j = {}", info.number,
                                   info.name.empty() ? std::string() : " (" + info.name + ")", head, query, key);
    if (maps.keys() != maps.queries()) text += fmt::format(" · position i = {}", i);
    const bool future = maps.causal() && key > i;
    text += future ? std::string(" · after the query (masked)") : fmt::format(" · distance {}", d);
    const std::string dtype(dtypeName(maps.dtype()));
    if (maps.values() == AttentionValues::Scores) {
        text += fmt::format("\nfile value (score) {} ({}) · p = {} (softmax of the row)", formatExact(stored, maps.dtype()),
                            dtype, formatValue(probability));
    } else if (probability == stored) {
        text += fmt::format("\nfile value p = {} ({})", formatExact(stored, maps.dtype()), dtype);
    } else {
        text += fmt::format("\nfile value {} ({}) · p = {} (the row renormalised to sum 1)",
                            formatExact(stored, maps.dtype()), dtype, formatValue(probability));
    }
    if (!future && (fitted || configured)) {
        auto prior = [&](double m) {
            const auto row = priorRow(m, maps.queries(), maps.keys(), maps.causal(), query);
            return key < std::ssize(row) ? row[static_cast<std::size_t>(key)] : 0.0;
        };
        text += "\nprior";
        if (fitted) text += fmt::format(" at m* = {}: {}", formatValue(*fitted), formatValue(prior(*fitted)));
        if (fitted && configured) text += " ·";
        if (configured)
            text += fmt::format(" at configured m = {}: {}", formatSlope(*configured), formatValue(prior(*configured)));
    }
    return text;
}

}  // namespace alibi::explore
