// The corrected session (see corrected_session.hpp).
#include <alibi/analysis/corrected_session.hpp>

#include <fmt/format.h>

#include <algorithm>

namespace alibi {

std::optional<Session> correctedSession(const Session& current, const Diagnosis& diagnosis) {
    if (!diagnosis.correctParams) return std::nullopt;
    Session s = current;
    s.attention.bias = *diagnosis.correctParams;
    s.batch = diagnosis.correctBatch.value_or(BatchParams{});
    s.batchRow = std::clamp<std::int64_t>(s.batchRow, 0, s.batch.batchSize() - 1);
    s.head = std::min(s.head, s.attention.bias.slopes.heads - 1);
    if (s.queryRow >= s.attention.bias.queries) s.queryRow = s.attention.bias.queries - 1;
    // Decode rows: the tensor's rows are the last of the square batch; open the first of them.
    if (diagnosis.correctBatch && diagnosis.queries > 0 && diagnosis.queries < s.attention.bias.queries)
        s.queryRow = s.attention.bias.queries - diagnosis.queries;
    return s;
}

std::string correctAlibiSummary(const Diagnosis& diagnosis) {
    if (!diagnosis.correctParams) return {};
    const BiasParams& p = *diagnosis.correctParams;
    std::string s = p.slopes.scheme == SlopeScheme::Linear
                        ? std::string("linear slopes")
                        : fmt::format("{} slopes (max_bias {})", schemeName(p.slopes.scheme), p.slopes.maxBias);
    s += fmt::format(", {} mode", modeName(p.mode));
    if (modeMasks(p.mode)) s += fmt::format(", mask {}", maskName(p.mask));
    if (diagnosis.correctBatch) s += fmt::format(", positions {}", positionRuleName(diagnosis.correctBatch->positions));
    return s;
}

}  // namespace alibi
