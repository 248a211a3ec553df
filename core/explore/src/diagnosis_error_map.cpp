// The Diagnose views' error heatmap (see the header).
#include <alibi/explore/diagnosis_error_map.hpp>

#include <alibi/analysis/corrected_session.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace alibi::explore {

DiagnosisErrorMap diagnosisErrorMapLabels(const Diagnosis& diagnosis, double errorMax) {
    DiagnosisErrorMap out;
    out.errorMax = errorMax;
    out.probability = paintProbabilityChange(diagnosis);
    const std::string against = correctAlibiSummary(diagnosis);
    const std::string suffix = against.empty() ? std::string() : ": " + against;
    if (!out.probability) {
        out.caption = "|error| per cell against correct ALiBi" + suffix;
        out.barTitle = "|error|";
    } else if (errorMax <= 1e-9) {
        out.caption =
            "No change after softmax: every finding is harmless, so the map shows |Δ\u00a0probability| against "
            "correct ALiBi (zero content), which is 0" +
            suffix;
        out.barTitle = "|Δp|";
    } else {
        out.caption = fmt::format(
            "Every finding is harmless: |Δ\u00a0probability| per cell against correct ALiBi (zero "
            "content), at most {:.3g}, the dtype's rounding{}",
            errorMax, suffix);
        out.barTitle = "|Δp|";
    }
    return out;
}

ColorBar diagnosisColorBar(const DiagnosisErrorMap& map, int targetTicks) {
    const double hi = map.errorMax > 0 ? map.errorMax : 1.0;
    ColorBar bar = makeColorBar(0, hi, false, exactTextType(hi), targetTicks);
    bar.title = map.barTitle;
    bar.maskedSwatch = map.anyMasked;
    return bar;
}

std::string diagnosisTileLabel(int tile, std::int64_t tiles, std::int64_t heads) {
    if (heads <= 0 || tiles <= heads) return fmt::format("h{}", tile);
    return fmt::format("b{} h{}", tile / heads, tile % heads);
}

std::optional<DiagnosisErrorMap> diagnosisErrorMap(const Tensor& tensor, const Diagnosis& diagnosis, int width,
                                                   int height, int gap, int labelBand, bool squareCells) {
    const Diagnosis& d = diagnosis;
    if (!d.bestParams || d.heads <= 0 || d.queries <= 0 || d.keys <= 0) return std::nullopt;
    const bool probability = paintProbabilityChange(d);
    auto error = probability ? probabilityChangeMap(tensor, d, MaskedCells::NaN)
                             : correctAlibiError(tensor, d, MaskedCells::NaN);
    if (!error) return std::nullopt;
    const Shape& shape = error->shape();  // (H, Q, K), or (B*H, T, T) for a batch
    const std::int64_t q = shape[1], k = shape[2];
    DiagnosisErrorMap out;
    for (std::uint64_t n = 0; n < error->size(); ++n) {
        const double e = error->at(n);
        if (std::isfinite(e)) out.errorMax = std::max(out.errorMax, e);
        out.anyMasked = out.anyMasked || std::isnan(e);
    }
    {
        DiagnosisErrorMap labels = diagnosisErrorMapLabels(d, out.errorMax);
        out.probability = labels.probability;
        out.caption = std::move(labels.caption);
        out.barTitle = std::move(labels.barTitle);
    }
    out.map =
        renderValueGrid({static_cast<int>(shape[0]), q, k, Colormap::Magma, 0, out.errorMax > 0 ? out.errorMax : 1.0,
                         std::max(16, width), std::max(16, height), gap, labelBand, squareCells},
                        [&](int h, std::int64_t i, std::int64_t j) {
                            // NaN is a masked cell (grey); an infinite error (a finite value
                            // against a mask) is as bad as the worst, not masked.
                            const double e = error->at((static_cast<std::uint64_t>(h) * q + i) * k + j);
                            return std::isinf(e) ? std::max(out.errorMax, 1.0) : e;
                        });
    for (int t = 0; t < static_cast<int>(shape[0]); ++t)
        out.tileLabels.push_back(diagnosisTileLabel(t, shape[0], d.heads));
    return out;
}

}  // namespace alibi::explore
