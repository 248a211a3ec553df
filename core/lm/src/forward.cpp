// See forward.hpp. One layer at a time: its weights are read (float32), the hidden states
// (T, d) go through it, and its buffers are reused by the next. Matrix products are
// y = x W^T with W stored (out, in) as PyTorch's Linear keeps it: one sgemm per product, split
// over the output columns between threads (OpenBLAS itself runs single-threaded here).
#include <alibi/lm/forward.hpp>

#include <alibi/base/dtype.hpp>
#include <alibi/base/interrupt.hpp>
#include <alibi/base/parallel.hpp>
#include <alibi/model/arith.hpp>
#include <alibi/model/detail/attention_blas.hpp>
#include <alibi/model/slopes.hpp>

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <limits>

namespace alibi::lm {
namespace {

// y (T, out) = x (T, in) W^T (+ b), W (out, in) row-major.
void linear(const float* x, std::int64_t t, std::int64_t in, const float* w, const float* b, std::int64_t out, float* y,
            unsigned threads) {
    const std::uint64_t grain = 64;
    detail::parallelFor(static_cast<std::uint64_t>(out), threads, grain, [&](std::uint64_t begin, std::uint64_t end) {
        detail::gemmNT(static_cast<int>(t), static_cast<int>(end - begin), static_cast<int>(in), x,
                       w + begin * static_cast<std::uint64_t>(in), y + begin, static_cast<int>(out));
    });
    if (b != nullptr)
        for (std::int64_t i = 0; i < t; ++i)
            for (std::int64_t j = 0; j < out; ++j) y[i * out + j] += b[j];
}

// PyTorch's LayerNorm over the last dimension (biased variance), statistics in double.
void layerNorm(const float* x, std::int64_t t, std::int64_t d, const float* w, const float* b, double eps, float* y) {
    for (std::int64_t i = 0; i < t; ++i) {
        const float* row = x + i * d;
        double mean = 0;
        for (std::int64_t j = 0; j < d; ++j) mean += row[j];
        mean /= static_cast<double>(d);
        double var = 0;
        for (std::int64_t j = 0; j < d; ++j) var += (row[j] - mean) * (row[j] - mean);
        var /= static_cast<double>(d);
        const double inv = 1.0 / std::sqrt(var + eps);
        for (std::int64_t j = 0; j < d; ++j) {
            const double v = (row[j] - mean) * inv * w[j] + (b != nullptr ? b[j] : 0.0);
            y[i * d + j] = static_cast<float>(v);
        }
    }
}

// BLOOM's bloom_gelu_forward (the tanh approximation with its constants).
float geluTanh(float x) {
    return x * 0.5f * (1.0f + std::tanh(0.79788456f * x * (1.0f + 0.044715f * x * x)));
}

// nn.GELU(approximate="none"): x Phi(x).
float geluErf(float x) {
    return static_cast<float>(0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))));
}

struct LayerWeights {
    std::vector<float> ln1w, ln1b, qkvw, qkvb, densew, denseb, ln2w, ln2b, upw, upb, downw, downb;
};

Result<std::vector<float>> readOptional(const Checkpoint& m, const std::string& name, bool wanted) {
    if (!wanted) return std::vector<float>{};
    return m.read(name);
}

// One layer's weights; Falcon uses BLOOM's names, and with parallel_attn has no second norm
// (ln2w, ln2b stay empty).
Result<LayerWeights> readLayer(const Checkpoint& m, int layer) {
    const LmConfig& c = m.config();
    const bool mpt = c.architecture == Architecture::Mpt;
    const std::string p = mpt ? fmt::format("blocks.{}.", layer) : fmt::format("h.{}.", layer);
    const char* ln1 = mpt ? "norm_1" : "input_layernorm";
    const char* qkv = mpt ? "attn.Wqkv" : "self_attention.query_key_value";
    const char* dense = mpt ? "attn.out_proj" : "self_attention.dense";
    const char* ln2 = mpt ? "norm_2" : "post_attention_layernorm";
    const char* up = mpt ? "ffn.up_proj" : "mlp.dense_h_to_4h";
    const char* down = mpt ? "ffn.down_proj" : "mlp.dense_4h_to_h";
    LayerWeights w;
    const auto get = [&](std::vector<float>& out, const char* module, const char* what, bool wanted) -> Result<void> {
        auto r = readOptional(m, p + module + what, wanted);
        if (!r) return std::unexpected(r.error());
        out = std::move(*r);
        return {};
    };
    const bool nb = c.normBias, lb = c.linearBias, second = !c.parallelAttn;
    Result<void> ok;
    if (!(ok = get(w.ln1w, ln1, ".weight", true)) || !(ok = get(w.ln1b, ln1, ".bias", nb)) ||
        !(ok = get(w.qkvw, qkv, ".weight", true)) || !(ok = get(w.qkvb, qkv, ".bias", lb)) ||
        !(ok = get(w.densew, dense, ".weight", true)) || !(ok = get(w.denseb, dense, ".bias", lb)) ||
        !(ok = get(w.ln2w, ln2, ".weight", second)) || !(ok = get(w.ln2b, ln2, ".bias", nb && second)) ||
        !(ok = get(w.upw, up, ".weight", true)) || !(ok = get(w.upb, up, ".bias", lb)) ||
        !(ok = get(w.downw, down, ".weight", true)) || !(ok = get(w.downb, down, ".bias", lb)))
        return std::unexpected(ok.error());
    return w;
}

const float* ptr(const std::vector<float>& v) {
    return v.empty() ? nullptr : v.data();
}

bool stopRequested(const ProgressFn& progress, std::uint64_t done, std::uint64_t total) {
    if (interruptRequested()) return true;
    return progress && !progress(done, total);
}

std::unexpected<Error> cancelled() {
    return fail(ErrorCode::Cancelled, "the forward pass was cancelled");
}

}  // namespace

std::string describe(const SlopeChange& change) {
    if (change.none()) return "none";
    std::string text;
    const auto add = [&](const std::string& part) { text += (text.empty() ? "" : ", ") + part; };
    if (change.scheme) add(fmt::format("scheme {}", schemeName(*change.scheme)));
    if (change.maxBias) add(fmt::format("max_bias {}", *change.maxBias));
    if (change.scale != 1.0) add(fmt::format("slopes x{}", change.scale));
    for (const auto& [head, slope] : change.headSlopes) add(fmt::format("head {} = {}", head, slope));
    return text;
}

std::vector<double> modelSlopes(const LmConfig& config) {
    return pressSlopes(config.heads, config.maxBias);
}

Result<std::vector<double>> changedSlopes(const LmConfig& config, const SlopeChange& change) {
    if (!std::isfinite(change.scale) || change.scale < 0 || change.scale > 1e6)
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("slope scale {} must be a finite number in [0, 1e6]", change.scale));
    if (change.scheme == SlopeScheme::Custom)
        return fail(ErrorCode::InvalidArgument, "a custom scheme is given as each head's slope (head=slope)");
    SlopeParams params;
    params.heads = config.heads;
    params.scheme = change.scheme.value_or(SlopeScheme::Press);
    params.maxBias = change.maxBias.value_or(config.maxBias);
    auto slopes = computeSlopes(params);
    if (!slopes) return std::unexpected(slopes.error());
    for (double& s : *slopes) s *= change.scale;
    for (const auto& [head, slope] : change.headSlopes) {
        if (head < 0 || head >= config.heads)
            return fail(ErrorCode::InvalidArgument,
                        fmt::format("head {} does not exist: the model has heads 0 to {}", head, config.heads - 1));
        if (!std::isfinite(slope) || slope < 0 || slope > 1e6)
            return fail(ErrorCode::InvalidArgument,
                        fmt::format("head {}'s slope {} must be a finite number in [0, 1e6]", head, slope));
        (*slopes)[static_cast<std::size_t>(head)] = slope;
    }
    return slopes;
}

Result<std::vector<double>> effectiveSlopes(const LmConfig& config, const SlopeChange& change) {
    auto slopes = changedSlopes(config, change);
    if (!slopes || config.architecture != Architecture::Falcon) return slopes;
    // build_alibi_tensor's slopes.bfloat16() of the float32 slopes, then inv_norm_factor.
    for (double& m : *slopes) m = roundTo(DType::BF16, static_cast<float>(m)) * config.softmaxScale;
    return slopes;
}

std::uint64_t forwardWorkingBytes(const LmConfig& c, std::int64_t tokens, unsigned threads) {
    const auto t = static_cast<std::uint64_t>(tokens);
    const auto d = static_cast<std::uint64_t>(c.dModel), f = static_cast<std::uint64_t>(c.ffnHidden);
    const auto h = static_cast<std::uint64_t>(c.heads), hd = static_cast<std::uint64_t>(c.headDim());
    const std::uint64_t weights = 4 * d * d + 2 * f * d + 8 * d + f;
    const std::uint64_t activations = t * (d * 3 + 3 * d + d + f);  // h, ln, ctx; qkv; out; mlp
    const std::uint64_t maps = h * t * t;
    const std::uint64_t perThread = 3 * t * hd;  // q, k, v^T of one head
    const std::uint64_t vocabBlock = std::min<std::uint64_t>(static_cast<std::uint64_t>(c.vocab), 4096);
    const std::uint64_t head = vocabBlock * d + t * vocabBlock + 3 * t;
    return 4 * (weights + activations + maps + perThread * detail::resolveThreads(threads) + head);
}

Result<ForwardResult> runForward(const Checkpoint& model, std::span<const std::int64_t> ids,
                                 const ForwardOptions& options) {
    const LmConfig& c = model.config();
    const auto T = static_cast<std::int64_t>(ids.size());
    if (T < 1) return fail(ErrorCode::InvalidArgument, "the text gives no token: give at least one");
    if (T > kMaxTokens)
        return fail(ErrorCode::TooLarge, fmt::format("{} tokens are above the limit of {}", T, kMaxTokens));
    for (std::int64_t i = 0; i < T; ++i)
        if (ids[i] < 0 || ids[i] >= c.vocab)
            return fail(ErrorCode::InvalidArgument,
                        fmt::format("token {} (id {}) is outside the model's vocabulary of {}", i, ids[i], c.vocab));
    const bool wpe = c.learnedPosEmb && model.has("wpe.weight");
    if (wpe && T > c.trainingLength)
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("this MPT model adds learned position embeddings for {} positions; {} tokens do not "
                                "fit (its ALiBi alone would extrapolate, its wpe cannot)",
                                c.trainingLength, T));
    const unsigned threads = detail::resolveThreads(options.threads);
    ForwardResult result;
    result.workingBytes = forwardWorkingBytes(c, T, options.threads);
    std::uint64_t wanted = result.workingBytes;
    if (options.keepLogits) wanted += 4 * static_cast<std::uint64_t>(T * c.vocab);
    if (options.keepAttention) wanted += 4 * static_cast<std::uint64_t>(c.layers) * c.heads * T * T;
    if (auto ok = checkBudget(
            wanted, options.budget,
            fmt::format("the forward pass over {} tokens ({} heads' maps of {}x{} per layer)", T, c.heads, T, T));
        !ok)
        return std::unexpected(ok.error());
    auto slopes = changedSlopes(c, options.slopes);
    if (!slopes) return std::unexpected(slopes.error());
    auto used = effectiveSlopes(c, options.slopes);
    if (!used) return std::unexpected(used.error());
    result.slopes = std::move(*used);
    const bool bloom = c.architecture == Architecture::Bloom, falcon = c.architecture == Architecture::Falcon;

    const std::int64_t d = c.dModel, H = c.heads, hd = c.headDim(), F = c.ffnHidden, width = c.qkvWidth();
    const std::uint64_t totalSteps = static_cast<std::uint64_t>(c.layers) + 1;
    if (stopRequested(options.progress, 0, totalSteps)) return cancelled();

    // Embedding.
    std::vector<float> h(static_cast<std::size_t>(T * d)), ln(h.size());
    const std::string embName = bloom || falcon ? "word_embeddings.weight" : "wte.weight";
    for (std::int64_t i = 0; i < T; ++i)
        if (auto ok =
                model.readRows(embName, ids[i], 1, std::span<float>(h.data() + i * d, static_cast<std::size_t>(d)));
            !ok)
            return std::unexpected(ok.error());
    if (wpe) {
        std::vector<float> pos(static_cast<std::size_t>(T * d));
        if (auto ok = model.readRows("wpe.weight", 0, T, pos); !ok) return std::unexpected(ok.error());
        for (std::size_t i = 0; i < h.size(); ++i) h[i] += pos[i];
    }
    if (bloom) {
        auto w = model.read("word_embeddings_layernorm.weight");
        if (!w) return std::unexpected(w.error());
        auto b = model.read("word_embeddings_layernorm.bias");
        if (!b) return std::unexpected(b.error());
        layerNorm(h.data(), T, d, w->data(), b->data(), c.layerNormEps, ln.data());
        h.swap(ln);
    }

    std::vector<float> qkv(static_cast<std::size_t>(T * width)), ctx(static_cast<std::size_t>(T * d)),
        out(static_cast<std::size_t>(T * d)), mlp(static_cast<std::size_t>(T * F));
    std::vector<float> probs(static_cast<std::size_t>(H * T * T));
    if (options.keepAttention) result.attention.reserve(static_cast<std::size_t>(c.layers * H * T * T));
    const auto scale = static_cast<float>(c.softmaxScale);

    for (int layer = 0; layer < c.layers; ++layer) {
        auto w = readLayer(model, layer);
        if (!w) return std::unexpected(w.error());
        layerNorm(h.data(), T, d, w->ln1w.data(), ptr(w->ln1b), c.layerNormEps, ln.data());
        linear(ln.data(), T, d, w->qkvw.data(), ptr(w->qkvb), width, qkv.data(), threads);
        if (c.clipQkv)
            for (float& v : qkv) v = std::clamp(v, static_cast<float>(-*c.clipQkv), static_cast<float>(*c.clipQkv));

        // Each head: scores = q k^T * scale + ALiBi, causal softmax, context = P v.
        detail::parallelFor(static_cast<std::uint64_t>(H), threads, 1, [&](std::uint64_t h0, std::uint64_t h1) {
            std::vector<float> q(static_cast<std::size_t>(T * hd)), k(q.size()), vt(q.size()), part(q.size());
            std::vector<float> falconBias(falcon ? static_cast<std::size_t>(T) : 0);
            for (std::uint64_t n = h0; n < h1; ++n) {
                // BLOOM and Falcon fuse per head [q | k | v] (view(T, H, 3, hd)); MPT splits [Q | K | V]
                // (chunk(3)); Falcon's multi-query puts every head's q first, then the one k and v
                // (view(T, H + 2, hd)).
                const auto head = static_cast<std::int64_t>(n);
                const auto column = [&](int which) -> std::int64_t {
                    if (c.multiQuery) return which == 0 ? head * hd : (H + which - 1) * hd;
                    return bloom || falcon ? head * 3 * hd + which * hd : which * d + head * hd;
                };
                for (std::int64_t i = 0; i < T; ++i)
                    for (std::int64_t x = 0; x < hd; ++x) {
                        const float* row = qkv.data() + i * width;
                        q[i * hd + x] = row[column(0) + x];
                        k[i * hd + x] = row[column(1) + x];
                        vt[x * T + i] = row[column(2) + x];
                    }
                float* p = probs.data() + n * static_cast<std::uint64_t>(T * T);
                detail::gemmNT(static_cast<int>(T), static_cast<int>(T), static_cast<int>(hd), q.data(), k.data(), p,
                               static_cast<int>(T));
                const auto m = static_cast<float>((*slopes)[n]);
                // Falcon: alibi = slopes.bfloat16() * arange, a bfloat16 product of bfloat16
                // operands (the hf-falcon arithmetic profile, model/arith.hpp), of the float32 slope.
                if (falcon)
                    for (std::int64_t j = 0; j < T; ++j)
                        falconBias[static_cast<std::size_t>(j)] =
                            static_cast<float>(arithProduct(Arith::HfFalcon, DType::F32, m, 0.0, j));
                for (std::int64_t i = 0; i < T; ++i) {
                    float* row = p + i * T;
                    float best = -std::numeric_limits<float>::infinity();
                    for (std::int64_t j = 0; j <= i; ++j) {
                        // BLOOM: baddbmm(alibi, q, k^T, beta=1, alpha=1/sqrt(hd)), alibi = m * j.
                        // MPT: q k^T * softmax_scale + m * (j - (T - 1)).
                        // Falcon: (q k^T + alibi) * inv_norm_factor: the bias is scaled too.
                        if (falcon)
                            row[j] = (row[j] + falconBias[static_cast<std::size_t>(j)]) * scale;
                        else
                            row[j] = bloom ? row[j] * scale + m * static_cast<float>(j)
                                           : row[j] * scale + m * static_cast<float>(j - (T - 1));
                        best = std::max(best, row[j]);
                    }
                    double sum = 0;
                    for (std::int64_t j = 0; j <= i; ++j) {
                        row[j] = std::exp(row[j] - best);
                        sum += row[j];
                    }
                    const auto inv = static_cast<float>(1.0 / sum);
                    for (std::int64_t j = 0; j <= i; ++j) row[j] *= inv;
                    for (std::int64_t j = i + 1; j < T; ++j) row[j] = 0.0f;
                }
                detail::gemmNT(static_cast<int>(T), static_cast<int>(hd), static_cast<int>(T), p, vt.data(),
                               part.data(), static_cast<int>(hd));
                for (std::int64_t i = 0; i < T; ++i)
                    std::copy_n(part.data() + i * hd, hd, ctx.data() + i * d + static_cast<std::int64_t>(n) * hd);
            }
        });
        if (options.onAttention)
            if (auto ok = options.onAttention(layer, probs); !ok) return std::unexpected(ok.error());
        if (options.keepAttention) result.attention.insert(result.attention.end(), probs.begin(), probs.end());

        linear(ctx.data(), T, d, w->densew.data(), ptr(w->denseb), d, out.data(), threads);
        if (c.parallelAttn) {
            // Falcon's parallel_attn: the MLP reads the attention's norm, and
            // h + (mlp + attention) is the layer's output.
            linear(ln.data(), T, d, w->upw.data(), ptr(w->upb), F, mlp.data(), threads);
            for (float& v : mlp) v = geluErf(v);
            linear(mlp.data(), T, F, w->downw.data(), ptr(w->downb), d, ctx.data(), threads);
            for (std::size_t i = 0; i < h.size(); ++i) out[i] = (ctx[i] + out[i]) + h[i];
            h.swap(out);
            if (stopRequested(options.progress, static_cast<std::uint64_t>(layer) + 1, totalSteps)) return cancelled();
            continue;
        }
        const std::vector<float>& residual1 = c.residualPostLn ? ln : h;
        for (std::size_t i = 0; i < h.size(); ++i) out[i] += residual1[i];
        h.swap(out);  // h: after attention
        layerNorm(h.data(), T, d, w->ln2w.data(), ptr(w->ln2b), c.layerNormEps, ln.data());
        linear(ln.data(), T, d, w->upw.data(), ptr(w->upb), F, mlp.data(), threads);
        for (float& v : mlp) v = bloom ? geluTanh(v) : geluErf(v);
        linear(mlp.data(), T, F, w->downw.data(), ptr(w->downb), d, out.data(), threads);
        const std::vector<float>& residual2 = c.residualPostLn ? ln : h;
        for (std::size_t i = 0; i < h.size(); ++i) out[i] += residual2[i];
        h.swap(out);
        if (stopRequested(options.progress, static_cast<std::uint64_t>(layer) + 1, totalSteps)) return cancelled();
    }
    qkv = {};
    ctx = {};
    mlp = {};
    probs = {};

    // Final norm and the output head, streamed over the vocabulary in blocks: a running
    // log-sum-exp per position and the target's logit.
    {
        const std::string norm = bloom || falcon ? "ln_f" : "norm_f";
        auto w = model.read(norm + ".weight");
        if (!w) return std::unexpected(w.error());
        std::vector<float> b;
        if (c.normBias) {
            auto r = model.read(norm + ".bias");
            if (!r) return std::unexpected(r.error());
            b = std::move(*r);
        }
        layerNorm(h.data(), T, d, w->data(), ptr(b), c.layerNormEps, ln.data());
    }
    const std::string headName = c.tiedEmbeddings ? embName : "lm_head.weight";
    const std::int64_t block = std::min<std::int64_t>(c.vocab, 4096);
    std::vector<float> weights(static_cast<std::size_t>(block * d)), logits(static_cast<std::size_t>(T * block));
    std::vector<double> runMax(static_cast<std::size_t>(T), -std::numeric_limits<double>::infinity()),
        runSum(static_cast<std::size_t>(T), 0.0), target(static_cast<std::size_t>(T), 0.0);
    if (options.keepLogits) result.logits.assign(static_cast<std::size_t>(T * c.vocab), 0.0f);
    for (std::int64_t v0 = 0; v0 < c.vocab; v0 += block) {
        const std::int64_t n = std::min(block, c.vocab - v0);
        if (auto ok =
                model.readRows(headName, v0, n, std::span<float>(weights.data(), static_cast<std::size_t>(n * d)));
            !ok)
            return std::unexpected(ok.error());
        linear(ln.data(), T, d, weights.data(), nullptr, n, logits.data(), threads);
        for (std::int64_t i = 0; i < T; ++i) {
            float* row = logits.data() + i * n;
            if (c.logitScale != 1.0)
                for (std::int64_t j = 0; j < n; ++j) row[j] = static_cast<float>(row[j] * c.logitScale);
            double blockMax = -std::numeric_limits<double>::infinity();
            for (std::int64_t j = 0; j < n; ++j) blockMax = std::max<double>(blockMax, row[j]);
            const double newMax = std::max(runMax[i], blockMax);
            double sum = runSum[i] * std::exp(runMax[i] - newMax);
            for (std::int64_t j = 0; j < n; ++j) sum += std::exp(row[j] - newMax);
            runMax[i] = newMax;
            runSum[i] = sum;
            if (i + 1 < T && ids[i + 1] >= v0 && ids[i + 1] < v0 + n) target[i] = row[ids[i + 1] - v0];
            if (options.keepLogits) std::copy_n(row, n, result.logits.data() + i * c.vocab + v0);
        }
        if (interruptRequested()) return cancelled();
    }
    result.loss.resize(static_cast<std::size_t>(T - 1));
    double total = 0;
    for (std::int64_t i = 0; i + 1 < T; ++i) {
        const double l = runMax[i] + std::log(runSum[i]) - target[i];
        result.loss[i] = static_cast<float>(l);
        total += l;
    }
    result.meanLoss = T > 1 ? total / static_cast<double>(T - 1) : std::numeric_limits<double>::quiet_NaN();
    if (stopRequested(options.progress, totalSteps, totalSteps)) return cancelled();
    return result;
}

}  // namespace alibi::lm
