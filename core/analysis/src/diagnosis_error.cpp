// The error tensors behind the explorers' Diagnose heatmap (see diagnose.hpp).
#include <alibi/analysis/diagnose.hpp>

#include "candidate.hpp"
#include "candidate_check.hpp"

#include <alibi/model/batch.hpp>
#include <alibi/model/slopes.hpp>

#include <fmt/format.h>

namespace alibi {

using detail::absError;
using detail::Form;
using detail::formCell;

namespace {

std::uint64_t cells(std::int64_t a, std::int64_t b, std::int64_t c) {
    return static_cast<std::uint64_t>(a) * static_cast<std::uint64_t>(b) * static_cast<std::uint64_t>(c);
}

// A batch against buildBatchBias of the correct parameters, cell by cell in bhqk order.
Result<Tensor> correctBatchError(const Tensor& tensor, const BiasParams& correct, const BatchParams& batch,
                                 std::uint64_t budget) {
    auto expected = buildBatchBias(correct, batch, budget);
    if (!expected) return std::unexpected(expected.error());
    if (expected->size() != tensor.size())
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("correctAlibiError: the tensor has {} elements but the diagnosed batch has {}",
                                tensor.size(), expected->size()));
    const Shape& shape = expected->shape();  // (B, H, T, T)
    auto out = Tensor::allocate({shape[0] * shape[1], shape[2], shape[3]}, DType::F32, budget, "diagnosis error tensor");
    if (!out) return out;
    auto dst = out->as<float>();
    for (std::uint64_t n = 0; n < tensor.size(); ++n)
        dst[static_cast<std::size_t>(n)] = static_cast<float>(absError(tensor.at(n), expected->at(n)));
    return out;
}

}  // namespace

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

Result<Tensor> correctAlibiError(const Tensor& tensor, const Diagnosis& diagnosis, std::uint64_t budget) {
    if (!diagnosis.correctParams)
        return fail(ErrorCode::InvalidArgument,
                    diagnosis.slopeVector ? "correctAlibiError: a slope vector has no bias cells to compare"
                                          : "correctAlibiError: the diagnosis read no parameters off the tensor");
    BiasParams p = *diagnosis.correctParams;
    p.slopes.arith = Arith::Exact;
    if (diagnosis.correctBatch) return correctBatchError(tensor, p, *diagnosis.correctBatch, budget);
    const std::int64_t H = diagnosis.heads, Q = diagnosis.queries, K = diagnosis.keys;
    if (tensor.size() != cells(H, Q, K))
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("correctAlibiError: the tensor has {} elements but the diagnosis describes {} x {} x {}",
                                tensor.size(), H, Q, K));
    auto slopes = computeSlopes(p.slopes);
    if (!slopes) return std::unexpected(slopes.error());
    auto out = Tensor::allocate({H, Q, K}, DType::F32, budget, "diagnosis error tensor");
    if (!out) return out;
    const DType dtype = tensor.dtype();
    const double mask = roundTo(dtype, maskDouble(p.mask, dtype));
    auto dst = out->as<float>();
    for (std::int64_t h = 0; h < H; ++h) {
        const double slope = (*slopes)[static_cast<std::size_t>(h)];
        for (std::int64_t i = 0; i < Q; ++i)
            for (std::int64_t j = 0; j < K; ++j) {
                const auto v = biasCell(p.mode, slope, p.queryPosition(i), j, K);
                const double expected = v ? roundTo(dtype, *v) : mask;
                // Flat and 1hqk hold hqk order; qkh its own.
                const double stored = tensor.at(layoutIndex(p.layout, H, Q, K, h, i, j));
                dst[static_cast<std::size_t>((h * Q + i) * K + j)] = static_cast<float>(absError(stored, expected));
            }
    }
    return out;
}

}  // namespace alibi
