// The Diagnose views' error heatmap (see the header).
#include <alibi/explore/diagnosis_error_map.hpp>

#include <algorithm>
#include <cmath>

namespace alibi::explore {

std::optional<DiagnosisErrorMap> diagnosisErrorMap(const Tensor& tensor, const Diagnosis& diagnosis, int width,
                                                   int height, int gap) {
    const Diagnosis& d = diagnosis;
    if (!d.bestParams || d.heads <= 0 || d.queries <= 0 || d.keys <= 0) return std::nullopt;
    auto error = correctAlibiError(tensor, d);
    if (!error) return std::nullopt;
    const Shape& shape = error->shape();  // (H, Q, K), or (B*H, T, T) for a batch
    const std::int64_t q = shape[1], k = shape[2];
    DiagnosisErrorMap out;
    for (std::uint64_t n = 0; n < error->size(); ++n) {
        const double e = error->at(n);
        if (std::isfinite(e)) out.errorMax = std::max(out.errorMax, e);
    }
    out.map = renderValueGrid(
        {static_cast<int>(shape[0]), q, k, Colormap::Magma, 0, out.errorMax > 0 ? out.errorMax : 1.0, std::max(16, width),
         std::max(16, height), gap},
        [&](int h, std::int64_t i, std::int64_t j) { return error->at((static_cast<std::uint64_t>(h) * q + i) * k + j); });
    return out;
}

}  // namespace alibi::explore
