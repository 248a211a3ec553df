// Framework arithmetic profiles: the float operations, in their order, by which each published
// ALiBi implementation computes its slopes and bias values, so a tensor can be reproduced bit
// for bit (docs/ARITHMETIC.md names each source file and function). `Arith::Exact` is the
// formula itself, rounded once into the dtype.
#pragma once

#include <alibi/base/dtype.hpp>
#include <alibi/base/error.hpp>
#include <alibi/model/params.hpp>

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace alibi {

// Every profile, in the order the CLI lists them.
[[nodiscard]] std::span<const Arith> allAriths();

// The float32 slopes of a framework profile, widened to double (exactly representable). Only the
// press scheme exists in the frameworks; BLOOM, Falcon and fairseq hard-code max_bias 8.
[[nodiscard]] Result<std::vector<double>> frameworkSlopes(Arith arith, int heads, double maxBias);

// PyTorch's CPU float32 torch.pow over a contiguous tensor: SLEEF's 1-ulp powf for whole
// blocks of 16 elements, the C library's powf for the rest (REFERENCES.md).
[[nodiscard]] std::vector<float> torchPow(float base, std::span<const float> exponents);
[[nodiscard]] std::vector<float> torchPow(std::span<const float> bases, float exponent);

// The low part of an exact press/geometric slope: 2^x = hi + lo with hi = the double slope and
// |lo| <= ulp(hi)/2, from a quad-precision exp2. Zero for linear and custom slopes (exact doubles).
[[nodiscard]] std::vector<double> exactSlopeTails(const SlopeParams& params);

// The stored value of slope * n (n the signed whole number the bias form multiplies: -(p - j),
// +j, -(K-1-j), ...) under the profile, as a double holding the dtype's value. Exact: the exact
// product rounded once into the dtype (slope = hi + lo). Zero is +0.0 in every profile.
[[nodiscard]] double arithProduct(Arith arith, DType dtype, double slope, double slopeLo, std::int64_t n);

}  // namespace alibi
