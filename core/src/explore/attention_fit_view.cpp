// Fit table columns, the prior of one row, and the maps' hover read-out.
#include <alibi/explore/attention_fit_view.hpp>

#include <alibi/analysis/head_fit.hpp>
#include <alibi/explore/format.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace alibi::explore {

std::string_view fitTableColumnTitle(FitTableColumn column) {
    switch (column) {
        case FitTableColumn::Layer: return "layer";
        case FitTableColumn::Head: return "head";
        case FitTableColumn::Slope: return "slope m*";
        case FitTableColumn::Interval: return "95% interval";
        case FitTableColumn::Kl: return "KL";
        case FitTableColumn::Configured: return "configured m";
        case FitTableColumn::SlopeRatio: return "m*/m";
        case FitTableColumn::ConfiguredKl: return "KL at m";
        case FitTableColumn::Sink: return "sink";
        case FitTableColumn::Diagonal: return "diagonal";
        case FitTableColumn::Entropy: return "entropy";
        case FitTableColumn::MeanDistance: return "mean dist";
        case FitTableColumn::Distance90: return "90% dist";
    }
    return "";
}

std::string_view fitTableColumnHelp(FitTableColumn column) {
    switch (column) {
        case FitTableColumn::Layer: return "The layer's number (file order for a stacked array, the tensor name's number)";
        case FitTableColumn::Head: return "The head's index in its layer";
        case FitTableColumn::Slope:
            return "The effective slope m*: the ALiBi slope whose content-free prior softmax(-m* d) best explains "
                   "the head's rows (maximum likelihood)";
        case FitTableColumn::Interval: return "95% interval of m* (sorted by its width)";
        case FitTableColumn::Kl:
            return "Goodness of fit: mean KL divergence (nats) of the rows from the fitted prior; 0 is a head that "
                   "is exactly ALiBi";
        case FitTableColumn::Configured: return "The head's configured ALiBi slope (pair the maps with ALiBi parameters)";
        case FitTableColumn::SlopeRatio: return "m* / configured slope: near 1 for a head that follows its slope";
        case FitTableColumn::ConfiguredKl:
            return "Mean KL of the rows from the configured slope's prior (KL is the floor): how much worse the "
                   "model's own slope explains the head";
        case FitTableColumn::Sink: return "Mean probability on key 0 (attention sink)";
        case FitTableColumn::Diagonal: return "Mean probability on the query's own position";
        case FitTableColumn::Entropy: return "Mean row entropy, nats";
        case FitTableColumn::MeanDistance: return "Mean over rows of the expected distance sum_j p_j d_j";
        case FitTableColumn::Distance90: return "Mean over rows of the smallest distance D holding 90% of the mass";
    }
    return "";
}

std::optional<double> fitSortKey(const HeadFit& fit, FitTableColumn column) {
    switch (column) {
        case FitTableColumn::Layer: return fit.layer;
        case FitTableColumn::Head: return fit.head;
        case FitTableColumn::Slope: return fit.slope;
        case FitTableColumn::Interval: return fit.slopeHigh - fit.slopeLow;
        case FitTableColumn::Kl: return fit.kl;
        case FitTableColumn::Configured: return fit.configuredSlope;
        case FitTableColumn::SlopeRatio:
            if (!fit.configuredSlope || *fit.configuredSlope == 0) return std::nullopt;
            return fit.slope / *fit.configuredSlope;
        case FitTableColumn::ConfiguredKl: return fit.configuredKl;
        case FitTableColumn::Sink: return fit.sinkMass;
        case FitTableColumn::Diagonal: return fit.diagonalMass;
        case FitTableColumn::Entropy: return fit.entropy;
        case FitTableColumn::MeanDistance: return fit.meanDistance;
        case FitTableColumn::Distance90: return fit.distance90;
    }
    return std::nullopt;
}

std::string fitCellText(const HeadFit& fit, FitTableColumn column) {
    if (fit.rows == 0 && column != FitTableColumn::Layer && column != FitTableColumn::Head) return "no rows";
    switch (column) {
        case FitTableColumn::Layer: return fmt::format("{}", fit.layer);
        case FitTableColumn::Head: return fmt::format("{}", fit.head);
        case FitTableColumn::Slope: return fit.slopeAtBound ? ">= " + formatValue(fit.slope) : formatValue(fit.slope);
        case FitTableColumn::Interval: return fmt::format("[{}, {}]", formatValue(fit.slopeLow), formatValue(fit.slopeHigh));
        case FitTableColumn::Configured: return fit.configuredSlope ? formatSlope(*fit.configuredSlope) : std::string();
        default: break;
    }
    const auto key = fitSortKey(fit, column);
    return key ? formatValue(*key) : std::string();
}

std::vector<int> sortFits(std::span<const HeadFit> fits, FitTableColumn column, bool ascending) {
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

std::vector<double> queryRowPrior(double slope, std::int64_t queries, std::int64_t keys, bool causal, std::int64_t q) {
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

std::string mapsCellText(const AttentionMaps& maps, int layerIndex, int head, std::int64_t query, std::int64_t key,
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
            const auto row = queryRowPrior(m, maps.queries(), maps.keys(), maps.causal(), query);
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
