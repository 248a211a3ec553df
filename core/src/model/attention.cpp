// The attention simulation's entry points that belong to no single path: validation, metadata,
// fully masked rows and the kernel description. The work lives in files with one job each:
// attention_generator.cpp (the Gaussian generator), attention_reference.cpp (the double
// reference rows), attention_closed_form.cpp (zero content), attention_blocked.cpp
// (computeAttention), attention_source.cpp (streaming exports), attention_kernel.cpp (the
// vectorised softmax passes) and attention_blas.cpp (the matrix product).
#include <alibi/model/attention.hpp>
#include <alibi/model/bias.hpp>

#include "model/attention_blas.hpp"
#include "model/attention_detail.hpp"
#include "model/attention_kernel.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <limits>

namespace alibi {

Result<std::vector<double>> validateAttention(const AttentionParams& params) {
    auto slopes = validateBias(params.bias);
    if (!slopes) return slopes;
    const ContentParams& c = params.content;
    if (!std::isfinite(c.sigma) || c.sigma < 0)
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("--sigma must be a finite number >= 0, got {}", c.sigma));
    if (c.dk < 1 || c.dk > 4096)
        return fail(ErrorCode::InvalidArgument, fmt::format("--dk must be between 1 and 4096, got {}", c.dk));
    if (!std::isfinite(c.temperature) || c.temperature <= 0)
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("--temperature must be a finite number > 0, got {}", c.temperature));
    return slopes;
}

std::string attentionKernelDescription() {
    return fmt::format("matrix product: {}; softmax: {}", detail::blasDescription(), detail::softmaxKernelName());
}

FullyMaskedRows fullyMaskedRows(const AttentionParams& params) {
    const BiasParams& b = params.bias;
    FullyMaskedRows r;
    if (modeMasks(b.mode)) r.count = std::max<std::int64_t>(0, b.queries - b.keyCount());
    r.nan = r.count > 0 && detail::maskLogit(b) == -std::numeric_limits<double>::infinity();
    return r;
}

std::map<std::string, std::string> attentionMetadata(const AttentionParams& params) {
    auto m = biasMetadata(params.bias);
    m["kind"] = "attention";
    m["content"] = std::string(contentName(params.content.kind));
    m["seed"] = std::to_string(params.content.seed);
    m["sigma"] = fmt::format("{}", params.content.sigma);
    m["dk"] = std::to_string(params.content.dk);
    m["temperature"] = fmt::format("{}", params.content.temperature);
    return m;
}

}  // namespace alibi
