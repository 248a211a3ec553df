// The float logits product of the qk attention path, C = Q K^T for the small d_k of attention
// heads: a register-blocked AVX-512 kernel of its own (4 query rows x 64 keys in 16 registers,
// keys packed once per head in panels of 16), which needs no zeroing pass over C and no
// per-call packing of Q, the two passes that cost OpenBLAS as much as its kernel on these
// shapes. Without AVX-512 the product goes to gemmNT (OpenBLAS's kernels for the CPU, or
// plain loops), with the keys unpacked.
#pragma once

#include <cstddef>
#include <cstdint>

namespace alibi::detail {

// Whether this CPU runs the packed kernel (AVX-512F), decided once.
[[nodiscard]] bool packedProductRuns();

// Floats that n packed keys of dimension dk take: whole panels of 16 keys.
[[nodiscard]] std::size_t packedKeysSize(std::int64_t n, std::int64_t dk);

// Packs keys (n x dk, row-major) into panels: panel p holds, for c = 0..dk-1, the 16 values
// k[16p + l][c] (l = 0..15), zero past n. Keys [j0, j0 + n) of a head packed at j0 * dk of
// the head's storage, for j0 a multiple of 16, are the panels of the whole head.
void packKeys(const float* keys, std::int64_t n, std::int64_t dk, float* packed);

// c[i * ldc + j] = sum_c q[i * dk + c] * k[j][c] for i < m, j < n, from packed keys. Each
// element is one chain of fused multiply-adds over c = 0..dk-1 in order, so its bits do not
// depend on m, n or how the work is split. Requires packedProductRuns().
void packedProduct(std::int64_t m, std::int64_t n, std::int64_t dk, const float* q, const float* packed, float* c,
                   std::int64_t ldc);

// The same product in the plain order, from unpacked keys (n x dk): the reference the tests
// compare the kernel with.
void plainProduct(std::int64_t m, std::int64_t n, std::int64_t dk, const float* q, const float* keys, float* c,
                  std::int64_t ldc);

}  // namespace alibi::detail
