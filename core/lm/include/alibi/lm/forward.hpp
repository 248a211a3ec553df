// A language model's forward pass over one sequence of token ids, in float32, layer by layer:
// only one layer's weights are held at a time (read from the checkpoint as the pass reaches
// it), each layer's (H, T, T) attention probabilities are handed to a callback and dropped, and
// the output head streams the vocabulary in blocks, so memory stays bounded by one layer.
// It gives the next-token loss at every position. The ALiBi bias is each architecture's own:
// BLOOM adds +m*j (HF build_alibi_tensor), MPT adds -m*(T-1-j) (llm-foundry build_alibi_bias);
// both are the same after the softmax. Falcon adds m*j BEFORE the 1/sqrt(head_dim) scaling, with
// m and m*j rounded to bfloat16 as HF modeling_falcon.py computes them, so the slope its maps
// show is bf16(m)/sqrt(head_dim) (effectiveSlopes; a slope change acts on m). The slopes can be changed (SlopeChange):
// every slope scaled, another scheme or max_bias, one head's slope set; the sequence may be longer than the training
// length. Matrix products go through OpenBLAS (model/detail/attention_blas.hpp).
#pragma once

#include <alibi/base/error.hpp>
#include <alibi/base/progress.hpp>
#include <alibi/base/tensor.hpp>
#include <alibi/lm/checkpoint.hpp>
#include <alibi/model/live_model.hpp>
#include <alibi/model/params.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace alibi::lm {

// An intervention on the slopes (model/live_model.hpp: a session holds it too).
using SlopeChange = alibi::SlopeChange;

// "slopes x0.5, head 3 = 0.25", or "none".
[[nodiscard]] std::string describe(const SlopeChange& change);
// The model's own slopes, in double (press slopes with its max_bias, as both architectures compute them).
[[nodiscard]] std::vector<double> modelSlopes(const LmConfig& config);
// The slopes after `change`; an error names a bad scale, max_bias, head or slope.
[[nodiscard]] Result<std::vector<double>> changedSlopes(const LmConfig& config, const SlopeChange& change);

// The slope per token of distance on the softmax's input, per head, after `change` (what a run
// reports and its maps show): changedSlopes for BLOOM and MPT; bf16(m) / sqrt(head_dim) for Falcon.
[[nodiscard]] Result<std::vector<double>> effectiveSlopes(const LmConfig& config, const SlopeChange& change);

// Longest sequence accepted (one layer's maps at 64 heads is then 64 GiB: the budget decides first).
inline constexpr std::int64_t kMaxTokens = std::int64_t{1} << 20;

struct ForwardOptions {
    SlopeChange slopes;          // none: the model's own slopes
    bool keepLogits = false;     // fill ForwardResult::logits (T x vocab floats)
    bool keepAttention = false;  // fill ForwardResult::attention (L x H x T x T floats)
    // Each layer's (H, T, T) attention probabilities (zeros above the diagonal), in layer order;
    // the span is valid during the call. An error it returns stops the pass and is returned.
    std::function<Result<void>(int layer, std::span<const float> probabilities)> onAttention;
    ProgressFn progress;                          // layers done, of layers + 1 (the output head); false cancels
    unsigned threads = 0;                         // 0: every core
    std::uint64_t budget = kDefaultMemoryBudget;  // the pass's own buffers, checked before it starts
};

struct ForwardResult {
    std::vector<double> slopes;      // effectiveSlopes: the slopes used, per head
    std::vector<float> loss;         // T - 1 entries: -ln p(ids[i + 1] | ids[0..i]), in nats
    double meanLoss = 0;             // their mean (NaN when T = 1)
    std::vector<float> logits;       // keepLogits: (T, vocab)
    std::vector<float> attention;    // keepAttention: (L, H, T, T)
    std::uint64_t workingBytes = 0;  // the pass's own buffers at their largest (weights of one layer included)
};

// The bytes runForward's buffers take for T tokens (what the budget is checked against).
[[nodiscard]] std::uint64_t forwardWorkingBytes(const LmConfig& config, std::int64_t tokens, unsigned threads);

// Runs the model on `ids` (each in [0, vocab)).
[[nodiscard]] Result<ForwardResult> runForward(const Checkpoint& model, std::span<const std::int64_t> ids,
                                               const ForwardOptions& options = {});

}  // namespace alibi::lm
