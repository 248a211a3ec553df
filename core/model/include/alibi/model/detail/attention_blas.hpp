// The matrix product of the qk attention path: C = A B^T for row-major A (m x k), B (n x k),
// single-threaded (the caller parallelises over blocks, so BLAS threads would only compete).
//
// OpenBLAS is loaded at run time, after the program has chosen its core type from the CPU's
// features (CPUID) rather than letting the library match model numbers: Debian's OpenBLAS
// 0.3.21 does not know recent Xeons (family 6 model 207 among them) and falls back to its
// Prescott (SSE3) kernels there, a quarter of the machine. The core type is set through
// OPENBLAS_CORETYPE (unless the user set it) and OPENBLAS_NUM_THREADS=1 before dlopen, the
// only moment the library reads them. Without OpenBLAS the product runs on plain loops.
#pragma once

#include <string>

namespace alibi::detail {

void gemmNT(int m, int n, int k, const float* a, const float* b, float* c, int ldc);
void gemmNT(int m, int n, int k, const double* a, const double* b, double* c, int ldc);

// e.g. "OpenBLAS 0.3.21, SkylakeX kernels (core type chosen from CPUID: AVX-512)".
[[nodiscard]] std::string blasDescription();

}  // namespace alibi::detail
