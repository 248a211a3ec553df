// See run_report.hpp.
#include <alibi/lm/run_report.hpp>

#include <alibi/io/attention_maps.hpp>
#include <alibi/io/safetensors_file.hpp>
#include <alibi/text/tokenizer.hpp>

#include <sys/stat.h>

#include <fmt/format.h>
#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

namespace alibi::lm {
namespace {

std::string jsonList(const auto& values) {
    nlohmann::json j = nlohmann::json::array();
    for (const auto& v : values) j.push_back(v);
    return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// Loss is a float32 number: 6 significant digits say all of it.
std::string number(double v) {
    if (std::isnan(v)) return "nan";
    return fmt::format("{:.6g}", v);
}

bool beyond(const LossReport& r) {
    return r.trainingLength > 0 && static_cast<std::int64_t>(r.tokens.ids.size()) > r.trainingLength;
}

std::string tokenizerPath(const std::string& folder) {
    return folder.empty() || folder.back() == '/' ? folder + "tokenizer.json" : folder + "/tokenizer.json";
}

bool exists(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0;
}

Result<text::Tokenizer> loadTokenizer(const std::string& folder) {
    auto t = text::Tokenizer::load(tokenizerPath(folder));
    if (!t) {
        Error e = t.error();
        e.message = fmt::format("the model's tokenizer: {}", e.message);
        return std::unexpected(std::move(e));
    }
    return t;
}

}  // namespace

Result<std::vector<std::int64_t>> parseIdList(std::string_view text) {
    std::vector<std::int64_t> ids;
    std::string_view rest = text;
    while (true) {
        const auto comma = rest.find(',');
        std::string_view item = rest.substr(0, comma);
        while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
        while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
        std::int64_t id = -1;
        const auto [ptr, ec] = std::from_chars(item.data(), item.data() + item.size(), id);
        if (item.empty() || ec != std::errc() || ptr != item.data() + item.size() || id < 0)
            return fail(ErrorCode::InvalidArgument,
                        fmt::format("'{}' is not a token id (a whole number from 0; ids are separated by commas)",
                                    std::string(item.substr(0, 40))));
        ids.push_back(id);
        if (ids.size() > static_cast<std::size_t>(kMaxTokens))
            return fail(ErrorCode::TooLarge, fmt::format("more than {} token ids", kMaxTokens));
        if (comma == std::string_view::npos) break;
        rest = rest.substr(comma + 1);
    }
    return ids;
}

Result<RunTokens> tokensOfText(const std::string& folder, std::string_view text) {
    if (!exists(tokenizerPath(folder)))
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("the model folder {} has no tokenizer.json, so text cannot be turned into tokens; "
                                "give token ids with --ids (or ids= in Python)",
                                folder));
    auto tokenizer = loadTokenizer(folder);
    if (!tokenizer) return std::unexpected(tokenizer.error());
    RunTokens out;
    for (const std::int32_t id : tokenizer->encode(text)) {
        out.ids.push_back(id);
        out.text.push_back(tokenizer->decode(std::span<const std::int32_t>(&id, 1)));
        out.display.push_back(tokenizer->displayText(id));
    }
    if (out.ids.empty()) return fail(ErrorCode::InvalidArgument, "the text gives no token: give some text");
    return out;
}

Result<RunTokens> tokensOfIds(const std::string& folder, std::vector<std::int64_t> ids) {
    RunTokens out;
    out.ids = std::move(ids);
    if (!exists(tokenizerPath(folder))) return out;
    auto tokenizer = loadTokenizer(folder);
    if (!tokenizer) return std::unexpected(tokenizer.error());
    for (const std::int64_t id : out.ids) {
        const auto small =
            static_cast<std::int32_t>(std::min<std::int64_t>(id, std::numeric_limits<std::int32_t>::max()));
        out.text.push_back(tokenizer->decode(std::span<const std::int32_t>(&small, 1)));
        out.display.push_back(tokenizer->displayText(small));
    }
    return out;
}

Result<ForwardResult> runToMapsFile(const Checkpoint& model, const RunTokens& tokens, const ForwardOptions& options,
                                    const std::string& path) {
    const LmConfig& c = model.config();
    auto slopes = effectiveSlopes(c, options.slopes);
    if (!slopes) return std::unexpected(slopes.error());
    const auto T = static_cast<std::int64_t>(tokens.ids.size());
    std::vector<SafetensorsWriter::Spec> specs;
    for (int l = 0; l < c.layers; ++l) specs.push_back({fmt::format("attentions.{}", l), {c.heads, T, T}});
    std::map<std::string, std::string> meta{{"format", "pt"},
                                            {kMetaModel, model.folder()},
                                            {"architecture", c.architectureText},
                                            {std::string(kSlopesMetadataKey), jsonList(*slopes)},
                                            {kMetaSlopeChange, describe(options.slopes)},
                                            {std::string(kTokenIdsMetadataKey), jsonList(tokens.ids)}};
    if (!tokens.text.empty()) meta[std::string(kTokensMetadataKey)] = jsonList(tokens.text);
    // The budget covers the pass; the file is streamed, so nothing more is held.
    auto writer = SafetensorsWriter::open(path, std::move(specs), meta);
    if (!writer) return std::unexpected(writer.error());
    ForwardOptions o = options;
    o.onAttention = [&](int layer, std::span<const float> probs) -> Result<void> {
        if (options.onAttention)
            if (auto ok = options.onAttention(layer, probs); !ok) return ok;
        return writer->write(probs);
    };
    auto run = runForward(model, tokens.ids, o);
    if (!run) return run;  // the writer's destructor removes the temporary file
    if (auto ok = writer->commit(); !ok) return std::unexpected(ok.error());
    return run;
}

Result<LossReport> compareLoss(const Checkpoint& model, const RunTokens& tokens, const SlopeChange& change,
                               const ForwardOptions& base) {
    LossReport r;
    r.model = model.folder();
    r.description = describe(model.config());
    r.trainingLength = model.config().trainingLength;
    r.tokens = tokens;
    ForwardOptions oa = base;
    oa.slopes = {};
    oa.keepAttention = oa.keepLogits = false;
    ProgressFn whole = base.progress;
    const bool two = !change.none();
    if (whole && two) oa.progress = [&](std::uint64_t done, std::uint64_t total) { return whole(done, 2 * total); };
    auto a = runForward(model, tokens.ids, oa);
    if (!a) return std::unexpected(a.error());
    r.a = LossRun{"A: the model", a->slopes, std::move(a->loss), a->meanLoss};
    if (two) {
        ForwardOptions ob = oa;
        ob.slopes = change;
        if (whole)
            ob.progress = [&](std::uint64_t done, std::uint64_t total) { return whole(total + done, 2 * total); };
        auto b = runForward(model, tokens.ids, ob);
        if (!b) return std::unexpected(b.error());
        r.b = LossRun{"B: " + describe(change), b->slopes, std::move(b->loss), b->meanLoss};
    }
    return r;
}

std::optional<double> meanLossFrom(const std::vector<float>& loss, std::int64_t from) {
    double sum = 0;
    std::int64_t n = 0;
    for (std::size_t i = 0; i < loss.size(); ++i)
        if (static_cast<std::int64_t>(i) + 1 >= from) {
            sum += loss[i];
            ++n;
        }
    if (n == 0) return std::nullopt;
    return sum / static_cast<double>(n);
}

std::string lossText(const LossReport& r) {
    std::string out = fmt::format("model: {}\n{}\ntokens: {}", r.model, r.description, r.tokens.ids.size());
    if (beyond(r))
        out += fmt::format(" (beyond the training length {} from position {})", r.trainingLength, r.trainingLength);
    out += "\n";
    const auto slopeLine = [](const LossRun& run) {
        std::string s;
        for (double m : run.slopes) s += (s.empty() ? "" : " ") + fmt::format("{:.4g}", m);
        return s;
    };
    out += fmt::format("{} (slopes {})\n", r.a.label, slopeLine(r.a));
    if (r.b) out += fmt::format("{} (slopes {})\n", r.b->label, slopeLine(*r.b));
    out += "\nloss per position (nats; the loss of predicting token p from tokens 0..p-1)\n";
    out += r.b ? fmt::format("{:>8}  {:>10}  {:>10}  {:>10}  {}\n", "position", "loss A", "loss B", "B - A", "token")
               : fmt::format("{:>8}  {:>10}  {}\n", "position", "loss", "token");
    for (std::size_t i = 0; i < r.a.loss.size(); ++i) {
        const std::string token =
            i + 1 < r.tokens.display.size() ? r.tokens.display[i + 1] : fmt::format("id {}", r.tokens.ids[i + 1]);
        out += r.b ? fmt::format("{:>8}  {:>10}  {:>10}  {:>10}  {}\n", i + 1, number(r.a.loss[i]),
                                 number(r.b->loss[i]), number(r.b->loss[i] - r.a.loss[i]), token)
                   : fmt::format("{:>8}  {:>10}  {}\n", i + 1, number(r.a.loss[i]), token);
    }
    out += fmt::format("\nmean loss A: {}", number(r.a.mean));
    if (r.b) out += fmt::format("   B: {}   B - A: {}", number(r.b->mean), number(r.b->mean - r.a.mean));
    out += "\n";
    if (beyond(r)) {
        const auto a = meanLossFrom(r.a.loss, r.trainingLength);
        out += fmt::format("mean loss beyond the training length (positions {} on) A: {}", r.trainingLength,
                           number(a.value_or(NAN)));
        if (r.b) out += fmt::format("   B: {}", number(meanLossFrom(r.b->loss, r.trainingLength).value_or(NAN)));
        out += "\n";
    }
    return out;
}

std::string lossJson(const LossReport& r) {
    nlohmann::ordered_json j;
    j["model"] = r.model;
    j["description"] = r.description;
    j["training_length"] = r.trainingLength;
    j["tokens"] = r.tokens.display;
    j["token_ids"] = r.tokens.ids;
    const auto runJson = [&](const LossRun& run) {
        nlohmann::ordered_json o;
        o["label"] = run.label;
        o["slopes"] = run.slopes;
        o["loss"] = run.loss;
        o["mean"] = std::isnan(run.mean) ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(run.mean);
        if (beyond(r))
            if (const auto m = meanLossFrom(run.loss, r.trainingLength)) o["mean_beyond_training_length"] = *m;
        return o;
    };
    j["a"] = runJson(r.a);
    j["b"] = r.b ? runJson(*r.b) : nlohmann::ordered_json(nullptr);
    return j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

std::string lossCsv(const LossReport& r) {
    // A token's text is quoted, its quotes doubled (RFC 4180).
    const auto quoted = [](const std::string& s) {
        std::string q = "\"";
        for (char ch : s) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
        return q + "\"";
    };
    std::string out = r.b ? "position,token_id,token,loss_a,loss_b\n" : "position,token_id,token,loss\n";
    for (std::size_t i = 0; i < r.a.loss.size(); ++i) {
        const std::string token = i + 1 < r.tokens.display.size() ? r.tokens.display[i + 1] : "";
        out += fmt::format("{},{},{},{}", i + 1, r.tokens.ids[i + 1], quoted(token), number(r.a.loss[i]));
        if (r.b) out += "," + number(r.b->loss[i]);
        out += "\n";
    }
    return out;
}

}  // namespace alibi::lm
