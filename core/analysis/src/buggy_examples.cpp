// The Diagnose views' examples with a known bug: the list and how each tensor is built.
#include <alibi/analysis/buggy_examples.hpp>

#include <alibi/analysis/diagnose.hpp>
#include <alibi/model/bias.hpp>

#include <fmt/format.h>
#include <array>
#include <cmath>

namespace alibi {

namespace {

constexpr std::array kExamples{
    BuggyExample{kSlopeOffByOne, "slopes 2^(-8h/H) instead of 2^(-8(h+1)/H): head 0 gets slope 1"},
    BuggyExample{kSignFlipped, "the bias added with the wrong sign: +m d instead of -m d"},
    BuggyExample{kScaledBySqrtDk, "the bias divided by sqrt(d_k) = 8 along with the scores"},
    BuggyExample{
        kNaiveSlopesNonPow2,
        "12 heads with the plain geometric slopes 2^(-8(h+1)/H), not the paper's rule for H not a power of two"},
};

}  // namespace

std::span<const BuggyExample> buggyExamples() {
    return kExamples;
}

Result<Tensor> buildBuggyExample(std::string_view code) {
    BiasParams p;
    p.slopes.heads = 8;
    p.queries = 16;
    if (code == kSlopeOffByOne) {
        p.slopes.scheme = SlopeScheme::Custom;
        for (int h = 0; h < p.slopes.heads; ++h) p.slopes.custom.push_back(std::exp2(-8.0 * h / p.slopes.heads));
        return buildBias(p);
    }
    if (code == kNaiveSlopesNonPow2) {
        p.slopes.heads = 12;
        p.slopes.scheme = SlopeScheme::Geometric;
        return buildBias(p);
    }
    if (code != kSignFlipped && code != kScaledBySqrtDk) {
        std::string known;
        for (const BuggyExample& e : kExamples) known += fmt::format("{}{}", known.empty() ? "" : ", ", e.code);
        return fail(ErrorCode::InvalidArgument, fmt::format("unknown example '{}': pick one of {}", code, known));
    }
    auto t = buildBias(p);
    if (!t) return t;
    for (std::uint64_t n = 0; n < t->size(); ++n) {
        const double v = t->at(n);
        if (v <= -1e8) continue;  // keep the mask
        t->set(n, code == kSignFlipped ? -v : v / 8.0);
    }
    return t;
}

}  // namespace alibi
