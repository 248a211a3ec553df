// The ALiBi bias tensor: every mode, mask value, layout and dtype of REFERENCES.md.
#pragma once

#include <alibi/base/error.hpp>
#include <alibi/base/progress.hpp>
#include <alibi/base/tensor.hpp>
#include <alibi/model/params.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

namespace alibi {

// Validates everything (slopes, lengths within kMaxLength, finite mask value) and returns
// the slopes, so callers validate and compute slopes in one step.
[[nodiscard]] Result<std::vector<double>> validateBias(const BiasParams& params);

// The signed whole number n a mode multiplies the slope by in one cell (bias = m * n): -(p - j)
// causal, -|p - j| symmetric, -max(p - j, 0) clamped, +j bloom, -(K - 1 - j) mpt; nullopt when
// the mode masks the cell. `queryPos` is the query's absolute position p_i; K is the key count.
[[nodiscard]] std::optional<std::int64_t> biasMultiplier(BiasMode mode, std::int64_t queryPos, std::int64_t key,
                                                         std::int64_t keyCount);

// The bias of one cell in double (slope * n, one rounding) before dtype rounding, or nullopt
// when the mode masks it. Zero is +0.0 (the diagonal, mpt's last key), as frameworks store it.
[[nodiscard]] std::optional<double> biasCell(BiasMode mode, double slope, std::int64_t queryPos, std::int64_t key,
                                             std::int64_t keyCount);

// The stored value of an allowed cell under params.slopes.arith (exact: the exact product
// rounded once into the dtype), or nullopt when the mode masks it. `slope` is head `head`'s
// entry of computeSlopes.
[[nodiscard]] std::optional<double> biasAllowedValue(const BiasParams& params, double slope, std::int64_t head,
                                                     std::int64_t queryPos, std::int64_t key);

// The stored value of one cell (mask applied, rounded to the dtype), as a double.
[[nodiscard]] double biasValue(const BiasParams& params, double slope, std::int64_t head, std::int64_t query,
                               std::int64_t key);

// Shape of the tensor in the chosen layout: (H,Q,K), (Q,K,H), (1,H,Q,K) or (H*Q*K,).
[[nodiscard]] Shape biasShape(const BiasParams& params);

// Fills `out` (exactly biasShape's element count * dtype size bytes) with the whole tensor,
// on `threads` threads (0: hardware concurrency). The fast path copies each row from a
// per-head template; numbers are identical to biasValue for every cell.
[[nodiscard]] Result<void> fillBias(const BiasParams& params, std::span<std::byte> out, unsigned threads = 0);

// How fillBias writes. Auto: plain stores for a small tensor (it stays cached for whoever
// reads it next), streaming (non-temporal) stores above a few MiB, which skip reading each
// destination line first. The other two force one kind (tests, benchmarks); every mode
// writes the same bytes.
enum class StoreMode { Auto, Cached, Streaming };
[[nodiscard]] Result<void> fillBias(const BiasParams& params, std::span<std::byte> out, unsigned threads,
                                    StoreMode stores);

// Allocates (within the budget) and fills a new tensor, with provenance metadata.
[[nodiscard]] Result<Tensor> buildBias(const BiasParams& params, std::uint64_t budget = kDefaultMemoryBudget,
                                       unsigned threads = 0);

// A streaming source of the bias in its layout, for exports of any size.
[[nodiscard]] Result<std::unique_ptr<TensorSource>> biasSource(const BiasParams& params, unsigned threads = 0);

// Every bias parameter as strings, for safetensors __metadata__ and JSON "params".
[[nodiscard]] std::map<std::string, std::string> biasMetadata(const BiasParams& params);

// Index in the layout's row-major order of cell (h, i, j).
[[nodiscard]] std::uint64_t layoutIndex(Layout layout, std::int64_t heads, std::int64_t queries, std::int64_t keys,
                                        std::int64_t h, std::int64_t i, std::int64_t j);

}  // namespace alibi
