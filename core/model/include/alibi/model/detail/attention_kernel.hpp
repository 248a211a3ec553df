// The inner passes of the attention softmax over one row, vectorised for float with runtime
// dispatch (AVX-512, AVX2+FMA, plain C++), so the default build runs on any x86-64 and still
// uses the wide units where they exist. The double versions are plain loops (f64 output is
// for checking, not for speed).
#pragma once

#include <cstdint>
#include <vector>

namespace alibi::detail {

// row[j] = (content ? content[j] * alpha : 0) + bias[j] for j in [0, n), in place (content may
// be row itself). Returns the maximum over the n values (-inf when n == 0). A NaN value is
// left in the row (expSum then returns a non-finite sum, which the caller checks).
[[nodiscard]] float logitsMax(float* row, const float* content, float alpha, const float* bias, std::int64_t n);
[[nodiscard]] double logitsMax(double* row, const double* content, double alpha, const double* bias, std::int64_t n);

// row[j] = exp(row[j] - max) for j in [0, n); returns the sum, accumulated in double.
// -inf entries become exactly 0. `max` must be finite.
[[nodiscard]] double expSum(float* row, float max, std::int64_t n);
[[nodiscard]] double expSum(double* row, double max, std::int64_t n);

// row[j] *= factor for j in [0, n).
void scaleRow(float* row, float factor, std::int64_t n);
void scaleRow(double* row, double factor, std::int64_t n);

// Which float implementation the dispatcher picked: "avx512", "avx2" or "generic".
[[nodiscard]] const char* softmaxKernelName();

// Every float implementation this CPU can run, by name, for the tests that compare each one
// with the reference (the dispatcher uses only the widest).
struct SoftmaxKernels {
    float (*logitsMax)(float*, const float*, float, const float*, std::int64_t);
    double (*expSum)(float*, float, std::int64_t);
    void (*scaleRow)(float*, float, std::int64_t);
    const char* name;
};
[[nodiscard]] std::vector<SoftmaxKernels> runnableSoftmaxKernels();

}  // namespace alibi::detail
