// Which arithmetic profile's bits a tensor carries: the bias or slope vector each --arith
// profile builds with the diagnosed parameters, compared cell by cell in units in the last place.
#pragma once

#include <alibi/analysis/diagnose.hpp>
#include <alibi/base/tensor.hpp>
#include <alibi/model/params.hpp>

#include <optional>
#include <vector>

namespace alibi::detail {

// ulp distance between two values of `dtype` (0 for equal values, including +0 and -0).
[[nodiscard]] std::uint64_t ulpDistance(DType dtype, double a, double b);

// Each profile that can build `params` (press slopes only for the frameworks; BLOOM, Falcon and
// fairseq only with max_bias 8), compared with the tensor in params.layout.
[[nodiscard]] std::vector<ArithDistance> compareProfiles(const Tensor& tensor, const BiasParams& params);

// A rank-1 tensor of positive finite numbers is a slope vector, not a flat bias: the diagnosis of
// it (press, geometric or linear slopes, max_bias, profile), or nullopt when it is not one.
[[nodiscard]] std::optional<Diagnosis> diagnoseSlopeVector(const Tensor& tensor);

// "Bit-identical to llm-foundry's build_alibi_bias (--arith llm-foundry)", and the ulp distances to
// the others; without `flags` the same for the explorers, naming no CLI flag.
[[nodiscard]] std::string describeProfiles(const std::vector<ArithDistance>& distances, bool flags = true);
// "HF BLOOM's build_alibi_tensor (--arith hf-bloom)", or without the flag.
[[nodiscard]] std::string profileName(Arith arith, bool flags);

}  // namespace alibi::detail
