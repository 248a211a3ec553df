// The error tensors behind the explorers' Diagnose heatmap (see diagnose.hpp).
#include <alibi/analysis/diagnose.hpp>

#include "analysis/candidate.hpp"
#include "analysis/candidate_check.hpp"

#include <alibi/model/slopes.hpp>

#include <fmt/format.h>

namespace alibi {

using detail::absError;
using detail::Form;
using detail::formCell;

Result<Tensor> diagnosisError(const Tensor& tensor, const Diagnosis& diagnosis, std::uint64_t budget) {
    if (!diagnosis.bestParams)
        return fail(ErrorCode::InvalidArgument, "diagnosisError: the diagnosis has no candidate to compare against");
    const BiasParams& p = *diagnosis.bestParams;
    const std::int64_t H = diagnosis.heads, Q = diagnosis.queries, K = diagnosis.keys;
    if (tensor.size() != static_cast<std::uint64_t>(H) * static_cast<std::uint64_t>(Q) * static_cast<std::uint64_t>(K))
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("diagnosisError: the tensor has {} elements but the diagnosis describes {} x {} x {}",
                                tensor.size(), H, Q, K));
    auto slopes = computeSlopes(p.slopes);
    if (!slopes) return std::unexpected(slopes.error());
    auto out = Tensor::allocate({H, Q, K}, DType::F32, budget, "diagnosis error tensor");
    if (!out) return out;
    Form form;
    form.mode = p.mode;
    form.sign = diagnosis.bestSignFlipped ? -1.0 : 1.0;
    form.topLeft = diagnosis.bestTopLeft;
    form.offset = diagnosis.bestTopLeft ? 0 : K - Q;
    const DType dtype = tensor.dtype();
    const double mask = maskDouble(p.mask, dtype);
    auto dst = out->as<float>();
    for (std::int64_t h = 0; h < H; ++h)
        for (std::int64_t i = 0; i < Q; ++i)
            for (std::int64_t j = 0; j < K; ++j) {
                const auto v = formCell(form, (*slopes)[static_cast<std::size_t>(h)], i, j, K);
                const double expected = roundTo(dtype, v ? *v : mask);
                const double stored = tensor.at(layoutIndex(p.layout, H, Q, K, h, i, j));
                dst[static_cast<std::size_t>((h * Q + i) * K + j)] = static_cast<float>(absError(stored, expected));
            }
    return out;
}

}  // namespace alibi
