// What `alibi run` / `alibi loss` and alibi_explorer.run / loss run, from a session's `model`
// section (model/live_model.hpp: the model folder, text, slope change and length the explorers
// save) and the values the user gave explicitly. The rule lives here once: the session first,
// then every explicit value replaces the session's value of that field (the text, or token ids,
// replace the session's text; head slopes replace its whole list of single heads). The front ends
// only say which values were given and how their user named the session.
#pragma once

#include <alibi/base/error.hpp>
#include <alibi/lm/checkpoint.hpp>
#include <alibi/lm/forward.hpp>
#include <alibi/lm/run_report.hpp>
#include <alibi/model/live_model.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace alibi::lm {

// The values a user gave explicitly; nullopt: not given.
struct RunValues {
    std::optional<std::string> model;                 // the model's folder
    std::optional<std::string> text;                  // the text to run on
    std::optional<std::vector<std::int64_t>> ids;     // token ids instead of text
    std::optional<std::int64_t> length;               // the first N tokens
    std::optional<double> scale;                      // every slope times k
    std::optional<SlopeScheme> scheme;                // another scheme
    std::optional<double> maxBias;                    // another max_bias
    std::optional<std::map<int, double>> headSlopes;  // single heads' slopes (the whole list)
};

// A session's `model` section and the name to call the session by in messages (its file name).
struct SessionModel {
    std::string name;
    LiveModelParams params;
};

// A run's input once the session and the explicit values are merged.
struct RunInput {
    std::string model;
    std::optional<std::string> text;  // exactly one of text and ids
    std::optional<std::vector<std::int64_t>> ids;
    std::int64_t length = 0;  // 0: every token
    SlopeChange change;       // none: the model as it is
};

// The session (when given), then the explicit values. A session without a `model` section is
// refused with what to add; so are a missing model folder or input, and text given with ids.
[[nodiscard]] Result<RunInput> resolveRunInput(const std::optional<SessionModel>& session, const RunValues& given);

struct PreparedRun {
    Checkpoint model;
    RunTokens tokens;  // the first `length` tokens when a length is set
    SlopeChange change;
};

// Opens the model and turns the input into its tokens (a length longer than the input is refused).
[[nodiscard]] Result<PreparedRun> prepareRun(const RunInput& input);

}  // namespace alibi::lm
