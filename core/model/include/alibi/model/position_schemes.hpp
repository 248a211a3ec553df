// ALiBi beside the other position schemes: on one distance axis d = 0..D, what each scheme adds to
// (or makes of) the attention logit, and, where the bias alone defines it, the attention a query
// gives its past keys under zero content. Each formula is a free function, so tests and front ends
// can read single values; positionSchemeCurves assembles the curves with their labels, formulas and
// sources (docs/POSITION_SCHEMES.md holds the same notes with the references).
#pragma once

#include <alibi/base/error.hpp>
#include <alibi/model/params.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace alibi {

enum class PositionScheme { ALiBi, RoPE, Sinusoidal, T5, KERPLE, Sandwich };
// The curves' labels, exactly: "ALiBi", "RoPE", "sinusoidal", "T5", "KERPLE", "Sandwich".
[[nodiscard]] std::string_view positionSchemeLabel(PositionScheme scheme);

// ---------------------------------------------------------------------------
// The formulas, one value at a time (d is the distance i - j >= 0 of a key behind its query)

// T5's bucket of a relative position (memory position minus query position, so a key d behind
// its query has relative_position = -d), as HF transformers' T5Attention._relative_position_bucket
// computes it: bidirectional (encoder) halves the buckets and gives keys ahead the upper half;
// unidirectional (decoder) maps every key ahead to bucket 0. Half of the (remaining) buckets are
// exact distances, the rest logarithmic up to max_distance, then the last bucket. The logarithm is
// taken in float32 and truncated, as torch does.
[[nodiscard]] int t5RelativePositionBucket(std::int64_t relativePosition, bool bidirectional, int numBuckets = 32,
                                           int maxDistance = 128);
// The per-bucket bias this project draws for T5: illustrative, NOT learned (a trained T5 learns
// one value per bucket and head). v(b) = -2.5 ln(1 + b) + 0.3 sin(2.3 b): decaying with distance,
// with a small irregularity as learned tables have.
[[nodiscard]] double t5IllustrativeBucketBias(int bucket);
// KERPLE (Chi et al. 2022) logarithmic kernel: -r1 ln(1 + r2 d), r1, r2 > 0.
[[nodiscard]] double kerpleLogBias(double d, double r1, double r2);
// KERPLE power kernel: -r1 d^r2, r1 > 0, 0 < r2 <= 2.
[[nodiscard]] double kerplePowerBias(double d, double r1, double r2);
// Sinusoidal position embeddings (Vaswani et al. 2017, sec. 3.5) of width `dim` (even): p_i . p_j
// depends only on d = i - j: sum_{k=0}^{dim/2-1} cos(d / 10000^(2k/dim)) (dim/2 at d = 0).
[[nodiscard]] double sinusoidalInnerProduct(double d, int dim);
// Sandwich (Chi, Fan, Rudnicky, Ramadge, ACL 2023) as NVIDIA NeMo's SandwichRelativePositionEmbedding
// computes it (the paper's own text could not be read here; docs/POSITION_SCHEMES.md says what is
// checked and what is not). Its inner product of sinusoidal embeddings of width dbar sums the
// frequencies k = 1..dbar/2, one step off Vaswani's k = 0..dbar/2-1:
// sum_{k=1}^{dbar/2} cos(d / 10000^(2k/dbar)) (dbar/2 at d = 0).
[[nodiscard]] double sandwichInnerProduct(double d, int dbar);
// The compression of head `head` (0-based) of `heads`: 8h/H with the 1-based h = head + 1, the
// divisor of ALiBi's 2^(8h/H) slopes (NeMo: bias_scales * 8 / num_attention_heads).
[[nodiscard]] double sandwichCompression(int head, int heads);
// The Sandwich bias: (sandwichInnerProduct(d, dbar) - dbar/2) / compression: 0 at d = 0, negative
// beyond, levelling off near -dbar/2 / compression.
[[nodiscard]] double sandwichBias(double d, int dbar, double compression);
// RoPE (Su et al., RoFormer) with theta_k = 10000^(-2k/dim): for random content q = k with i.i.d.
// unit-variance components, E[q . R(d) k] = 2 sum_{k=0}^{dim/2-1} cos(d theta_k); this returns
// that divided by sqrt(dim), the logit as attention scales it (sqrt(dim) at d = 0). For
// independent q and k the expectation is 0 at every distance.
[[nodiscard]] double ropeExpectedLogit(double d, int dim);
// RoFormer section 3.4.3's relative upper bound of the long-term decay:
// (1/(dim/2)) sum_{j=1}^{dim/2} |S_j|, S_j = sum_{k=0}^{j-1} e^{i d theta_k} ((dim/2 + 1)/2 at d = 0).
[[nodiscard]] double ropeDecayBound(double d, int dim);

// ---------------------------------------------------------------------------
// The curves

enum class SchemeQuantity {
    Logit,      // what the scheme adds to (or makes of) the logit at distance d
    Attention,  // softmax over d = 0..D of the bias alone (zero content): bias schemes only
};

struct PositionSchemesParams {
    SlopeParams slopes;              // ALiBi: one curve per head, these slopes
    std::int64_t maxDistance = 128;  // D: the axis is d = 0..D (attention: D + 1 keys)
    SchemeQuantity quantity = SchemeQuantity::Logit;
    int ropeDim = 128;        // RoPE head dimension d_k (LLaMA's 128)
    int sinusoidalDim = 128;  // sinusoidal embedding width d_model
    int sandwichDim = 128;    // Sandwich's dbar: NeMo passes the head dimension (kv_channels); LLaMA-like 128
    int t5Buckets = 32;       // T5 defaults (t5-small .. t5-11b)
    int t5MaxDistance = 128;
    double kerpleLogR1 = 2.0, kerpleLogR2 = 1.0;      // illustrative, not learned
    double kerplePowerR1 = 1.0, kerplePowerR2 = 0.5;  // illustrative, not learned
    friend bool operator==(const PositionSchemesParams&, const PositionSchemesParams&) = default;
};

// D up to this: every curve costs O(D * dim) at most, instant for any D the explorers offer.
inline constexpr std::int64_t kMaxSchemeDistance = 65536;

struct PositionCurve {
    PositionScheme scheme = PositionScheme::ALiBi;
    std::string label;    // positionSchemeLabel(scheme), exactly
    std::string name;     // this curve: "ALiBi h0 (m = 1/2)", "T5 decoder", "RoPE decay bound"
    std::string legend;   // its legend entry; curves of one scheme variant share it (ALiBi's heads)
    std::string formula;  // "-m_h · d"
    std::string source;   // "Press et al. 2022, Train Short, Test Long (ICLR)"
    int head = -1;        // ALiBi and Sandwich: the head (0-based); -1 otherwise
    int variant =
        0;  // 0 the main curve, 1 the second of its scheme (encoder, power, bound, last Sandwich head): drawn dashed
    std::vector<double> x, y;  // x = d = 0..D
};

struct PositionSchemes {
    SchemeQuantity quantity = SchemeQuantity::Logit;
    std::int64_t maxDistance = 0;
    std::vector<PositionCurve>
        curves;  // ALiBi heads first, then RoPE, sinusoidal, T5, KERPLE, Sandwich (first and last head)
    std::vector<PositionScheme> omitted;  // schemes with no curve for this quantity (RoPE, sinusoidal for attention)
    std::string note;                     // what the picture shows and leaves out, in one or two sentences
};

[[nodiscard]] Result<PositionSchemes> positionSchemeCurves(const PositionSchemesParams& params);

// Each scheme's formula and source, one line per scheme variant (the legend entries), for the
// figure's caption and the explorers' list under the plot.
struct SchemeNote {
    std::string label, legend, formula, source;
};
[[nodiscard]] std::vector<SchemeNote> schemeNotes(const PositionSchemes& schemes);

// The value of `curve` at distance d (rounded to the nearest sample), if the curve has one.
[[nodiscard]] std::optional<double> curveValueAt(const PositionCurve& curve, double d);

}  // namespace alibi
