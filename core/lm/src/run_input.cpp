// See run_input.hpp.
#include <alibi/lm/run_input.hpp>

#include <fmt/format.h>

namespace alibi::lm {

Result<RunInput> resolveRunInput(const std::optional<SessionModel>& session, const RunValues& given) {
    RunInput in;
    if (session) {
        const LiveModelParams& p = session->params;
        if (p == LiveModelParams{})
            return fail(ErrorCode::InvalidArgument,
                        fmt::format("the session {} has no `model` section, so it names no model to run: add one "
                                    "with the model's folder and the text, e.g. \"model\": {{\"path\": "
                                    "\"assets/models/license-bloom-tiny\", \"text\": \"Permission is hereby "
                                    "granted\"}} (an explorer's File > Save writes it while a model is open)",
                                    session->name));
        in.model = p.path;
        in.text = p.text;
        in.length = p.length;
        in.change = p.change;
        if (in.model.empty() && !given.model)
            return fail(ErrorCode::InvalidArgument,
                        fmt::format("the session {} has a `model` section without a `path`: add the model's "
                                    "folder there (\"path\": \"assets/models/license-bloom-tiny\"), or name the "
                                    "folder with the session",
                                    session->name));
    }
    if (given.text && given.ids)
        return fail(ErrorCode::InvalidArgument, "give the input once: text or token ids, not both");
    if (given.model) in.model = *given.model;
    if (in.model.empty())
        return fail(ErrorCode::InvalidArgument,
                    "no model: name a Hugging Face model folder, or a session whose `model` section names one");
    if (given.text) {
        in.text = *given.text;
        in.ids.reset();
    }
    if (given.ids) {
        in.ids = *given.ids;
        in.text.reset();
    }
    if (!in.text && !in.ids)
        return fail(ErrorCode::InvalidArgument, "no input: give the text to run the model on (or token ids)");
    if (given.length) {
        if (*given.length < 1)
            return fail(ErrorCode::InvalidArgument,
                        fmt::format("length {}: give a number of tokens, 1 or more", *given.length));
        in.length = *given.length;
    }
    if (given.scale) in.change.scale = *given.scale;
    if (given.scheme) in.change.scheme = *given.scheme;
    if (given.maxBias) in.change.maxBias = *given.maxBias;
    if (given.headSlopes) in.change.headSlopes = *given.headSlopes;
    // The slope change's ranges are checked by the forward pass (changedSlopes), with the model.
    return in;
}

Result<PreparedRun> prepareRun(const RunInput& input) {
    auto model = Checkpoint::open(input.model);
    if (!model) return std::unexpected(model.error());
    auto tokens = input.ids ? tokensOfIds(input.model, *input.ids) : tokensOfText(input.model, input.text.value_or(""));
    if (!tokens) return std::unexpected(tokens.error());
    const auto available = static_cast<std::int64_t>(tokens->ids.size());
    if (input.length > available)
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("length {}: the input gives {} tokens; give a length from 1 to {} (or a longer text)",
                                input.length, available, available));
    if (input.length > 0) {
        const auto n = static_cast<std::size_t>(input.length);
        tokens->ids.resize(n);
        if (tokens->text.size() > n) tokens->text.resize(n);
        if (tokens->display.size() > n) tokens->display.resize(n);
    }
    return PreparedRun{std::move(*model), std::move(*tokens), input.change};
}

}  // namespace alibi::lm
