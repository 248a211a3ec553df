// What a run of a model on the user's text gives the front ends, written once here: the
// attention maps as a .safetensors file in the layout `alibi fit`, `alibi render FILE` and the
// explorers' attention-map views read (one (H, T, T) float32 tensor `attentions.N` per layer,
// streamed layer by layer, with the tokens in the metadata), and the next-token loss per
// position of the model as it is (A) and, with a slope change, of the changed model (B), as
// text, JSON or CSV.
#pragma once

#include <alibi/base/error.hpp>
#include <alibi/lm/checkpoint.hpp>
#include <alibi/lm/forward.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace alibi::lm {

// The tokens of a run: ids, and (when the model has a tokenizer.json, else empty) each token's
// decoded text, as a maps file stores it, and its display text (text::Tokenizer::displayText:
// whitespace and byte fragments made visible), as a report prints it.
struct RunTokens {
    std::vector<std::int64_t> ids;
    std::vector<std::string> text;
    std::vector<std::string> display;
};

// "17, 4,99" -> ids (non-negative integers, comma-separated).
[[nodiscard]] Result<std::vector<std::int64_t>> parseIdList(std::string_view text);
// The tokens of `text` by the model folder's tokenizer.json; an error when it has none.
[[nodiscard]] Result<RunTokens> tokensOfText(const std::string& folder, std::string_view text);
// `ids` with their text when the folder has a tokenizer.json (no text otherwise).
[[nodiscard]] Result<RunTokens> tokensOfIds(const std::string& folder, std::vector<std::int64_t> ids);

// The metadata keys a maps file written here carries besides the tokens (io/attention_maps.hpp's
// kTokensMetadataKey, kTokenIdsMetadataKey); all strings, lists as JSON arrays.
inline constexpr const char* kMetaModel = "model";               // the model's folder
inline constexpr const char* kMetaSlopeChange = "slope_change";  // describe(SlopeChange)

// Runs the model and writes every layer's maps to `path` (atomically; on error or cancel no file
// appears). Returns the run (its loss; the maps are not kept in memory).
[[nodiscard]] Result<ForwardResult> runToMapsFile(const Checkpoint& model, const RunTokens& tokens,
                                                  const ForwardOptions& options, const std::string& path);

struct LossRun {
    std::string label;  // "A: the model", "B: slopes x0.5"
    std::vector<double> slopes;
    std::vector<float> loss;  // T - 1
    double mean = 0;
};

struct LossReport {
    std::string model;        // folder
    std::string description;  // describe(config)
    std::int64_t trainingLength = 0;
    RunTokens tokens;
    LossRun a;
    std::optional<LossRun> b;
};

// A (and B) on the same tokens; B only when `change` is not none.
[[nodiscard]] Result<LossReport> compareLoss(const Checkpoint& model, const RunTokens& tokens,
                                             const SlopeChange& change, const ForwardOptions& base);

// The mean of loss[i] over the positions whose predicted token sits at or beyond `from`
// (i + 1 >= from): the loss beyond the training length; nullopt when no position does.
[[nodiscard]] std::optional<double> meanLossFrom(const std::vector<float>& loss, std::int64_t from);

// Per position: position, the token predicted, loss A (and B, B - A); then the means, and the
// mean over the positions beyond the training length when the text goes beyond it.
[[nodiscard]] std::string lossText(const LossReport& report);
[[nodiscard]] std::string lossJson(const LossReport& report);
[[nodiscard]] std::string lossCsv(const LossReport& report);

}  // namespace alibi::lm
