// Session files (*.alibi.json): one JSON document holding every parameter, read and written
// the same way by the CLI and both GUIs. Parsing is strict on purpose: a misspelt field
// ("hedas") or a value of the wrong type is an error naming the field by its dotted path,
// because a silently ignored typo would show the wrong tensor with no hint why.
#include <alibi/base/image_size.hpp>
#include <alibi/io/output_file.hpp>
#include <alibi/io/session.hpp>
#include <alibi/model/attention.hpp>
#include <alibi/model/batch.hpp>
#include <alibi/model/bias.hpp>
#include <alibi/model/slopes.hpp>

#include "counting_chars.hpp"
#include "input_file.hpp"
#include "json_fields.hpp"
#include "read_limits.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <utility>

namespace alibi {

namespace {

using detail::checkKnown;
using detail::fieldError;
using detail::Json;
using detail::readInt;
using detail::readName;
using detail::readNumber;
using detail::readObject;
using detail::readUnsigned;
using detail::shown;

constexpr std::array<std::pair<ExplorerView, std::string_view>, 9> kViews{{
    {ExplorerView::Grid, "grid"},
    {ExplorerView::Detail, "detail"},
    {ExplorerView::Curves, "curves"},
    {ExplorerView::Stages, "stages"},
    {ExplorerView::Compare, "compare"},
    {ExplorerView::Extrapolation, "extrapolation"},
    {ExplorerView::Diagnose, "diagnose"},
    {ExplorerView::Stats, "stats"},
    {ExplorerView::PositionSchemes, "position-schemes"},
}};
constexpr const char* kViewNames =
    "grid, detail, curves, stages, compare, extrapolation, diagnose, stats, position-schemes";

// Session files are hand-edited and small; anything larger is not a session.
constexpr std::size_t kMaxSessionBytes = std::size_t{16} << 20;

// ---------------------------------------------------------------------------
// Sections

#define ALIBI_TRY(var, expr)                               \
    auto var##_r = (expr);                                 \
    if (!var##_r) return std::unexpected(var##_r.error()); \
    auto var = std::move(*var##_r)

Result<std::vector<double>> readSlopeList(const Json& s, const std::string& path) {
    if (!s.is_array() || s.size() > static_cast<std::size_t>(kMaxHeads))
        return std::unexpected(fieldError(
            path, fmt::format("expected a list of at most {} positive numbers, got {}", kMaxHeads, shown(s))));
    std::vector<double> slopes;
    for (std::size_t h = 0; h < s.size(); ++h) {
        ALIBI_TRY(m, readNumber(s[h], fmt::format("{}[{}]", path, h), kSlopeRange, "a positive number up to 1e5"));
        slopes.push_back(m);
    }
    return slopes;
}

Result<MaskValue> readMask(const Json& m, const std::string& path) {
    if (m.is_number()) {
        ALIBI_TRY(x, readNumber(m, path, std::numeric_limits<double>::lowest(), std::numeric_limits<double>::max(),
                                false, "a finite number or \"-1e9\", \"-inf\", \"min\""));
        return MaskValue{MaskValue::Kind::Finite, x};
    }
    return readName(m, path, "mask", "\"-1e9\", \"-inf\", \"min\" or a finite number", parseMask);
}

Result<void> parseBias(const Json& b, BiasParams& p) {
    if (auto ok = checkKnown(
            b, "bias.",
            {"heads", "queries", "keys", "scheme", "max_bias", "slopes", "mode", "mask", "layout", "dtype", "arith"});
        !ok)
        return ok;
    bool schemeGiven = false, headsGiven = false;
    if (b.contains("heads")) {
        ALIBI_TRY(h, readInt(b["heads"], "bias.heads", 1, kMaxHeads));
        p.slopes.heads = static_cast<int>(h);
        headsGiven = true;
    }
    if (b.contains("queries")) {
        ALIBI_TRY(q, readInt(b["queries"], "bias.queries", 1, kMaxLength));
        p.queries = q;
    }
    if (b.contains("keys")) {
        ALIBI_TRY(k, readInt(b["keys"], "bias.keys", 0, kMaxLength));
        p.keys = k;
    }
    if (b.contains("scheme")) {
        ALIBI_TRY(s, readName(b["scheme"], "bias.scheme", "scheme", "press, geometric, linear, custom", parseScheme));
        p.slopes.scheme = s;
        schemeGiven = true;
    }
    if (b.contains("max_bias")) {
        ALIBI_TRY(m, readNumber(b["max_bias"], "bias.max_bias", kMaxBiasRange, "a number from 0 to 1000"));
        p.slopes.maxBias = m;
    }
    if (b.contains("slopes")) {
        ALIBI_TRY(slopes, readSlopeList(b["slopes"], "bias.slopes"));
        if (!slopes.empty()) {
            if (schemeGiven && p.slopes.scheme != SlopeScheme::Custom)
                return std::unexpected(
                    fieldError("bias.slopes", fmt::format("slopes are given but `bias.scheme` is '{}'; "
                                                          "slopes imply scheme custom: drop one of the two",
                                                          schemeName(p.slopes.scheme))));
            p.slopes.scheme = SlopeScheme::Custom;
            if (!headsGiven) p.slopes.heads = static_cast<int>(slopes.size());
        }
        p.slopes.custom = std::move(slopes);
    }
    if (b.contains("mode")) {
        ALIBI_TRY(m, readName(b["mode"], "bias.mode", "mode", "causal, symmetric, clamped, bloom, mpt", parseMode));
        p.mode = m;
    }
    if (b.contains("mask")) {
        ALIBI_TRY(m, readMask(b["mask"], "bias.mask"));
        p.mask = m;
    }
    if (b.contains("layout")) {
        ALIBI_TRY(l, readName(b["layout"], "bias.layout", "layout", "hqk, qkh, 1hqk, flat", parseLayout));
        p.layout = l;
    }
    if (b.contains("dtype")) {
        ALIBI_TRY(d, readName(b["dtype"], "bias.dtype", "dtype", "f32, f64, f16, bf16", parseDType));
        p.dtype = d;
    }
    if (b.contains("arith")) {
        ALIBI_TRY(a, readName(b["arith"], "bias.arith", "arithmetic profile",
                              "exact, hf-bloom, hf-falcon, llm-foundry, fairseq, ggml", parseArith));
        p.slopes.arith = a;
    }
    if (p.slopes.scheme == SlopeScheme::Custom && p.slopes.custom.empty())
        return std::unexpected(fieldError("bias.slopes", "scheme custom needs a list of slopes, one per head"));
    return {};
}

// Section `batch`: lengths, padding, documents, window, prefix, positions (see model/batch.hpp).
Result<void> parseBatch(const Json& j, BatchParams& p, std::int64_t& row) {
    if (auto ok = checkKnown(j, "batch.", {"lengths", "padding", "documents", "window", "prefix", "positions", "row"});
        !ok)
        return ok;
    for (const char* key : {"lengths", "documents"}) {
        if (!j.contains(key)) continue;
        const Json& list = j[key];
        const std::string path = fmt::format("batch.{}", key);
        if (!list.is_array() || list.size() > 4096)
            return std::unexpected(
                fieldError(path, fmt::format("expected a list of positive lengths, got {}", shown(list))));
        std::vector<std::int64_t> values;
        for (std::size_t k = 0; k < list.size(); ++k) {
            ALIBI_TRY(v, readInt(list[k], fmt::format("{}[{}]", path, k), 1, kMaxLength));
            values.push_back(v);
        }
        (std::string_view(key) == "lengths" ? p.lengths : p.documents) = std::move(values);
    }
    if (j.contains("padding")) {
        ALIBI_TRY(x, readName(j["padding"], "batch.padding", "padding side", "left, right", parsePadding));
        p.padding = x;
    }
    if (j.contains("positions")) {
        ALIBI_TRY(x, readName(j["positions"], "batch.positions", "position rule", "mask, naive, document",
                              parsePositionRule));
        p.positions = x;
    }
    if (j.contains("window")) {
        ALIBI_TRY(x, readInt(j["window"], "batch.window", 0, kMaxLength));
        p.window = x;
    }
    if (j.contains("prefix")) {
        ALIBI_TRY(x, readInt(j["prefix"], "batch.prefix", 0, kMaxLength));
        p.prefix = x;
    }
    if (j.contains("row")) {
        ALIBI_TRY(x, readInt(j["row"], "batch.row", 0, 4095));
        row = x;
    }
    return {};
}

Result<void> parseAttention(const Json& a, Session& s) {
    if (auto ok = checkKnown(a, "attention.", {"content", "seed", "sigma", "dk", "temperature", "query", "generator"});
        !ok)
        return ok;
    ContentParams& c = s.attention.content;
    if (a.contains("content")) {
        ALIBI_TRY(k, readName(a["content"], "attention.content", "content", "zero, gaussian, qk", parseContent));
        c.kind = k;
    }
    if (a.contains("seed")) {
        ALIBI_TRY(x, readUnsigned(a["seed"], "attention.seed", 0));
        c.seed = x;
    }
    if (a.contains("sigma")) {
        ALIBI_TRY(x, readNumber(a["sigma"], "attention.sigma", kSigmaRange, "a number from 0 to 1e6"));
        c.sigma = x;
    }
    if (a.contains("dk")) {
        ALIBI_TRY(x, readInt(a["dk"], "attention.dk", 1, kMaxDk));
        c.dk = static_cast<int>(x);
    }
    if (a.contains("temperature")) {
        ALIBI_TRY(
            x, readNumber(a["temperature"], "attention.temperature", kTemperatureRange, "a number from 1e-6 to 1e6"));
        c.temperature = x;
    }
    if (a.contains("generator")) {
        ALIBI_TRY(x, readInt(a["generator"], "attention.generator", kGeneratorLibm, kGeneratorLatest));
        c.generator = static_cast<int>(x);
    }
    if (a.contains("query")) {
        ALIBI_TRY(x, readInt(a["query"], "attention.query", -1, kMaxLength - 1));
        s.queryRow = x;
    }
    return {};
}

Result<void> parseView(const Json& v, Session& s) {
    if (auto ok =
            checkKnown(v, "view.", {"open", "what", "head", "colormap", "scale", "width", "height", "train_length"});
        !ok)
        return ok;
    if (v.contains("open")) {
        ALIBI_TRY(x, readName(v["open"], "view.open", "view", kViewNames, parseExplorerView));
        s.view = x;
    }
    if (v.contains("what")) {
        ALIBI_TRY(x, readName(v["what"], "view.what", "view", "bias, attention, slopes, distance", parseRenderWhat));
        s.what = x;
    }
    if (v.contains("head")) {
        ALIBI_TRY(x, readInt(v["head"], "view.head", -1, kMaxHeads - 1));
        s.head = static_cast<int>(x);
    }
    if (v.contains("colormap")) {
        ALIBI_TRY(x, readName(v["colormap"], "view.colormap", "colormap", "viridis, magma, cividis, diverging",
                              parseColormap));
        s.colormap = x;
    }
    if (v.contains("scale")) {
        ALIBI_TRY(x, readName(v["scale"], "view.scale", "scale", "shared, per-head", parseScaleMode));
        s.scale = x;
    }
    if (v.contains("width")) {
        ALIBI_TRY(x, readInt(v["width"], "view.width", 1, kMaxImageSide));
        s.width = static_cast<int>(x);
    }
    if (v.contains("height")) {
        ALIBI_TRY(x, readInt(v["height"], "view.height", 1, kMaxImageSide));
        s.height = static_cast<int>(x);
    }
    if (v.contains("train_length")) {
        ALIBI_TRY(x, readInt(v["train_length"], "view.train_length", 0, kMaxLength));
        s.trainLength = x;
    }
    return {};
}

Result<void> parseCompare(const Json& c, Session& s) {
    if (auto ok = checkKnown(c, "compare.", {"scheme", "max_bias", "slopes", "mode", "mask", "dtype"}); !ok) return ok;
    CompareOverrides b;
    if (c.contains("scheme")) {
        ALIBI_TRY(x,
                  readName(c["scheme"], "compare.scheme", "scheme", "press, geometric, linear, custom", parseScheme));
        b.scheme = x;
    }
    if (c.contains("max_bias")) {
        ALIBI_TRY(x, readNumber(c["max_bias"], "compare.max_bias", 0, 1000, false, "a number from 0 to 1000"));
        b.maxBias = x;
    }
    if (c.contains("slopes")) {
        ALIBI_TRY(x, readSlopeList(c["slopes"], "compare.slopes"));
        b.custom = std::move(x);
    }
    if (c.contains("mode")) {
        ALIBI_TRY(x, readName(c["mode"], "compare.mode", "mode", "causal, symmetric, clamped, bloom, mpt", parseMode));
        b.mode = x;
    }
    if (c.contains("mask")) {
        ALIBI_TRY(x, readMask(c["mask"], "compare.mask"));
        b.mask = x;
    }
    if (c.contains("dtype")) {
        ALIBI_TRY(x, readName(c["dtype"], "compare.dtype", "dtype", "f32, f64, f16, bf16", parseDType));
        b.dtype = x;
    }
    if (b.scheme == SlopeScheme::Custom && b.custom.empty())
        return std::unexpected(fieldError("compare.slopes", "scheme custom needs a list of slopes, one per head"));
    if (!b.custom.empty() && b.scheme != SlopeScheme::Custom)
        return std::unexpected(fieldError("compare.slopes",
                                          "slopes are given but `compare.scheme` is not custom: "
                                          "set it to custom or drop the slopes"));
    s.compare = std::move(b);
    return {};
}

Result<void> parseLive(const Json& m, Session& s) {
    if (auto ok = checkKnown(
            m, "model.", {"path", "text", "length", "slope_scale", "slope_scheme", "slope_max_bias", "head_slopes"});
        !ok)
        return ok;
    LiveModelParams p;
    const auto readText = [&](const char* key, std::string& out) -> Result<void> {
        if (!m.contains(key)) return {};
        const Json& v = m[key];
        if (!v.is_string())
            return std::unexpected(fieldError(std::string("model.") + key, "expected a string, got " + shown(v)));
        out = v.get<std::string>();
        return {};
    };
    if (auto ok = readText("path", p.path); !ok) return ok;
    if (auto ok = readText("text", p.text); !ok) return ok;
    if (m.contains("length")) {
        ALIBI_TRY(x, readInt(m["length"], "model.length", 0, kMaxLength));
        p.length = x;
    }
    if (m.contains("slope_scale")) {
        ALIBI_TRY(x, readNumber(m["slope_scale"], "model.slope_scale", kSlopeScaleRange, "a number from 0 to 1e6"));
        p.change.scale = x;
    }
    if (m.contains("slope_scheme")) {
        ALIBI_TRY(x,
                  readName(m["slope_scheme"], "model.slope_scheme", "scheme", "press, geometric, linear", parseScheme));
        if (x == SlopeScheme::Custom)
            return std::unexpected(fieldError("model.slope_scheme",
                                              "custom is not a scheme here: set single heads in `model.head_slopes`"));
        p.change.scheme = x;
    }
    if (m.contains("slope_max_bias")) {
        ALIBI_TRY(
            x, readNumber(m["slope_max_bias"], "model.slope_max_bias", kSlopeMaxBiasRange, "a number from 0 to 1024"));
        p.change.maxBias = x;
    }
    if (m.contains("head_slopes")) {
        const Json& h = m["head_slopes"];
        if (!h.is_object() || h.size() > static_cast<std::size_t>(kMaxHeads))
            return std::unexpected(
                fieldError("model.head_slopes",
                           "expected an object of head number to slope, e.g. {\"3\": 0.25}, got " + shown(h)));
        for (const auto& [key, value] : h.items()) {
            int head = -1;
            const auto [ptr, ec] = std::from_chars(key.data(), key.data() + key.size(), head);
            if (key.empty() || ec != std::errc() || ptr != key.data() + key.size() || head < 0 || head >= kMaxHeads)
                return std::unexpected(fieldError(
                    "model.head_slopes",
                    fmt::format("'{}' is not a head number (0 to {})", detail::excerpt(key), kMaxHeads - 1)));
            ALIBI_TRY(x, readNumber(value, fmt::format("model.head_slopes.{}", head), kHeadSlopeRange,
                                    "a number from 0 to 1e6"));
            p.change.headSlopes[head] = x;
        }
    }
    if (auto ok = validateLiveModel(p); !ok) return std::unexpected(fieldError("model", ok.error().message));
    s.live = std::move(p);
    return {};
}

}  // namespace

// ---------------------------------------------------------------------------
// Public API

std::string_view explorerViewName(ExplorerView view) {
    for (const auto& [v, name] : kViews)
        if (v == view) return name;
    return kViews[0].second;
}

std::optional<ExplorerView> parseExplorerView(std::string_view name) {
    for (const auto& [v, n] : kViews)
        if (n == name) return v;
    return std::nullopt;
}

BiasParams applyOverrides(const BiasParams& a, const CompareOverrides& b) {
    BiasParams p = a;
    if (b.scheme) p.slopes.scheme = *b.scheme;
    if (p.slopes.scheme == SlopeScheme::Custom && !b.custom.empty()) p.slopes.custom = b.custom;
    if (b.maxBias) p.slopes.maxBias = *b.maxBias;
    if (b.dtype) p.dtype = *b.dtype;
    if (b.mode) p.mode = *b.mode;
    if (b.mask) p.mask = *b.mask;
    return p;
}

ExplorerView openView(const Session& s) {
    if (s.view) return *s.view;
    return s.what == RenderWhat::Slopes ? ExplorerView::Curves : ExplorerView::Grid;
}

Session defaultSession() {
    // Every default lives in the parameter structs; this names the combination a session starts from.
    Session s;
    s.attention.bias.slopes.heads = 8;
    s.attention.bias.queries = 16;
    return s;
}

namespace {

// Thrown from the parser's callback to stop a parse the user cancelled (nlohmann's parser has no
// other way out); caught in parseSessionText.
struct ParseStopped {};

// parseSession, with the parse's progress and cancel when `read` is given (loadSession).
Result<Session> parseSessionText(std::string_view text, const ReadOptions* read) {
    // The depth is checked before parsing: a value nested 100,000 levels deep would overflow
    // the stack of any recursive walk over it (dump, compare) later on.
    if (detail::jsonDepth(text) > detail::kMaxJsonDepth)
        return fail(ErrorCode::BadInput,
                    fmt::format("not a session file: the JSON is nested more than {} levels deep (a session has 3)",
                                detail::kMaxJsonDepth));
    Json root;
    try {
        if (read != nullptr) {
            // Every few thousand JSON events: how far the parser has read, and whether to stop.
            const char* position = text.data();
            std::uint64_t events = 0;
            const auto check = [&](int /*depth*/, Json::parse_event_t /*event*/, Json& /*parsed*/) {
                if (++events % 4096 == 0 &&
                    !detail::goOn(
                        *read, ReadProgress{ReadProgress::Stage::Parsing,
                                            static_cast<std::uint64_t>(position - text.data()), text.size(), 0.5, 0.5}))
                    throw ParseStopped{};
                return true;
            };
            root = Json::parse(detail::CountingChars{text.data(), &position},
                               detail::CountingChars{text.data() + text.size(), &position}, check);
        } else {
            root = Json::parse(text.begin(), text.end());
        }
    } catch (const ParseStopped&) {
        return fail(ErrorCode::Cancelled, "reading the session was cancelled");
    } catch (const Json::parse_error& e) {
        return fail(ErrorCode::BadInput, fmt::format("not a session file: JSON parse error at byte {}: {}", e.byte,
                                                     detail::excerpt(detail::parseErrorDetail(e.what()), 160)));
    } catch (const std::exception& e) {
        return fail(ErrorCode::BadInput, fmt::format("not a session file: {}", detail::excerpt(e.what(), 160)));
    }
    try {
        if (!root.is_object())
            return fail(
                ErrorCode::BadInput,
                fmt::format("not a session file: expected a JSON object with a `version` field, got {}", shown(root)));
        if (!root.contains("version"))
            return fail(ErrorCode::BadInput,
                        fmt::format("session: missing field `version` (this program reads and writes version {})",
                                    kSessionVersion));
        const Json& version = root["version"];
        if (!version.is_number_integer() || version.get<std::int64_t>() < 1)
            return std::unexpected(
                fieldError("version", fmt::format("expected {}, got {}", kSessionVersion, shown(version))));
        if (version.get<std::int64_t>() > kSessionVersion)
            return fail(ErrorCode::BadInput,
                        fmt::format("session: version {} is newer than this program supports ({}); "
                                    "update ALiBi Explorer or save the session again from an older version",
                                    version.get<std::int64_t>(), kSessionVersion));
        if (auto ok = checkKnown(root, "",
                                 {"version", "bias", "attention", "view", "compare", "max_memory", "batch", "model"});
            !ok)
            return std::unexpected(ok.error());

        Session s = defaultSession();
        // A session without `attention.generator` was written before recipe 2 of the Gaussian
        // generator: its numbers came from recipe 1, and it keeps them.
        s.attention.content.generator = kGeneratorLibm;
        for (const char* section : {"bias", "attention", "view", "compare"}) {
            auto obj = readObject(root, section);
            if (!obj) return std::unexpected(obj.error());
            if (!*obj) continue;
            Result<void> ok;
            if (std::string_view(section) == "bias")
                ok = parseBias(**obj, s.attention.bias);
            else if (std::string_view(section) == "attention")
                ok = parseAttention(**obj, s);
            else if (std::string_view(section) == "compare")
                ok = parseCompare(**obj, s);
            else
                ok = parseView(**obj, s);
            if (!ok) return std::unexpected(ok.error());
        }
        if (auto obj = readObject(root, "batch"); !obj) {
            return std::unexpected(obj.error());
        } else if (*obj) {
            if (auto ok = parseBatch(**obj, s.batch, s.batchRow); !ok) return std::unexpected(ok.error());
        }
        if (auto obj = readObject(root, "model"); !obj) {
            return std::unexpected(obj.error());
        } else if (*obj) {
            if (auto ok = parseLive(**obj, s); !ok) return std::unexpected(ok.error());
        }
        if (root.contains("max_memory")) {
            ALIBI_TRY(m, readUnsigned(root["max_memory"], "max_memory", 1));
            s.maxMemory = m;
        }
        if (auto ok = validateSession(s); !ok) return std::unexpected(ok.error());
        return s;
    } catch (const std::exception& e) {
        // Every access above is type-checked first; this only guards against a library surprise.
        return fail(ErrorCode::BadInput, fmt::format("not a session file: {}", e.what()));
    }
}

}  // namespace

Result<Session> parseSession(std::string_view text) {
    return parseSessionText(text, nullptr);
}

std::string serializeSession(const Session& s) {
    const BiasParams& b = s.attention.bias;
    const ContentParams& c = s.attention.content;
    // ordered_json keeps the documented field order (nlohmann's default object sorts keys).
    using Ordered = nlohmann::ordered_json;
    Ordered bias = Ordered::object();
    bias["heads"] = b.slopes.heads;
    bias["queries"] = b.queries;
    bias["keys"] = b.keys;
    bias["scheme"] = std::string(schemeName(b.slopes.scheme));
    bias["max_bias"] = b.slopes.maxBias;
    // Slopes only mean something for scheme custom; writing them for another scheme would make
    // the file contradict itself.
    bias["slopes"] = b.slopes.scheme == SlopeScheme::Custom ? b.slopes.custom : std::vector<double>{};
    bias["mode"] = std::string(modeName(b.mode));
    bias["mask"] = maskName(b.mask);
    bias["layout"] = std::string(layoutName(b.layout));
    bias["dtype"] = std::string(dtypeName(b.dtype));
    if (b.slopes.arith != Arith::Exact) bias["arith"] = std::string(arithName(b.slopes.arith));

    Ordered attention = Ordered::object();
    attention["content"] = std::string(contentName(c.kind));
    attention["seed"] = c.seed;
    attention["sigma"] = c.sigma;
    attention["dk"] = c.dk;
    attention["temperature"] = c.temperature;
    attention["generator"] = c.generator;
    attention["query"] = s.queryRow;

    Ordered view = Ordered::object();
    if (s.view) view["open"] = std::string(explorerViewName(*s.view));
    view["what"] = std::string(renderWhatName(s.what));
    view["head"] = s.head;
    view["colormap"] = std::string(colormapName(s.colormap));
    view["scale"] = std::string(scaleModeName(s.scale));
    view["width"] = s.width;
    view["height"] = s.height;
    view["train_length"] = s.trainLength;

    Ordered root = Ordered::object();
    root["version"] = kSessionVersion;
    root["bias"] = std::move(bias);
    root["attention"] = std::move(attention);
    root["view"] = std::move(view);
    if (s.compare) {
        const CompareOverrides& o = *s.compare;
        Ordered compare = Ordered::object();
        if (o.scheme) compare["scheme"] = std::string(schemeName(*o.scheme));
        if (o.maxBias) compare["max_bias"] = *o.maxBias;
        if (o.scheme == SlopeScheme::Custom) compare["slopes"] = o.custom;
        if (o.mode) compare["mode"] = std::string(modeName(*o.mode));
        if (o.mask) compare["mask"] = maskName(*o.mask);
        if (o.dtype) compare["dtype"] = std::string(dtypeName(*o.dtype));
        root["compare"] = std::move(compare);
    }
    root["max_memory"] = s.maxMemory;
    if (s.batch.active()) {
        Ordered batch = Ordered::object();
        batch["lengths"] = s.batch.lengths;
        batch["padding"] = std::string(paddingName(s.batch.padding));
        batch["documents"] = s.batch.documents;
        batch["window"] = s.batch.window;
        batch["prefix"] = s.batch.prefix;
        batch["positions"] = std::string(positionRuleName(s.batch.positions));
        batch["row"] = s.batchRow;
        root["batch"] = std::move(batch);
    }
    if (!(s.live == LiveModelParams{})) {
        const LiveModelParams& p = s.live;
        Ordered model = Ordered::object();
        model["path"] = p.path;
        model["text"] = p.text;
        model["length"] = p.length;
        model["slope_scale"] = p.change.scale;
        if (p.change.scheme) model["slope_scheme"] = std::string(schemeName(*p.change.scheme));
        if (p.change.maxBias) model["slope_max_bias"] = *p.change.maxBias;
        Ordered heads = Ordered::object();
        for (const auto& [head, slope] : p.change.headSlopes) heads[std::to_string(head)] = slope;
        model["head_slopes"] = std::move(heads);
        root["model"] = std::move(model);
    }
    // Text the user typed may hold invalid UTF-8: replaced, never an exception.
    return root.dump(2, ' ', false, Ordered::error_handler_t::replace) + "\n";
}

Result<Session> loadSession(const std::string& path) {
    return loadSession(path, SessionReadOptions{});
}

Result<Session> loadSession(const std::string& path, const SessionReadOptions& options) {
    const auto cancelled = [&] { return fail(ErrorCode::Cancelled, fmt::format("reading {} was cancelled", path)); };
    auto file = detail::InputFile::open(path);
    if (!file) return fail(file.error().code, fmt::format("cannot read {}: {}", path, file.error().message));
    // A file above the session size limit is the wrong file, not a lack of memory.
    if (file->size() > kMaxSessionBytes)
        return fail(ErrorCode::BadInput,
                    fmt::format("{} is {}, above the {} this reader accepts; is it the right file? (a session file "
                                "is at most 16 MiB)",
                                path, humanBytes(file->size()), humanBytes(kMaxSessionBytes)));
    // Read a MiB at a time (the first half of the progress), telling the caller how far.
    std::string text(static_cast<std::size_t>(file->size()), '\0');
    using Stage = ReadProgress::Stage;
    constexpr std::size_t kChunk = std::size_t{1} << 20;
    if (!detail::goOn(options.read, ReadProgress{Stage::Reading, 0, text.size(), 0.0, 0.5})) return cancelled();
    for (std::size_t at = 0; at < text.size(); at += kChunk) {
        const std::size_t n = std::min(kChunk, text.size() - at);
        if (const int err = file->readAt(at, reinterpret_cast<std::byte*>(text.data() + at), n); err != 0)
            return err == EINTR ? cancelled()
                                : fail(ErrorCode::Io, fmt::format("cannot read {}: {}", path, std::strerror(err)));
        if (!detail::goOn(options.read, ReadProgress{Stage::Reading, at + n, text.size(), 0.0, 0.5}))
            return cancelled();
    }
    auto s = parseSessionText(text, &options.read);
    if (!s && s.error().code == ErrorCode::Cancelled) return cancelled();
    if (!s) return fail(s.error().code, fmt::format("{}: {}", path, s.error().message));
    if (!detail::goOn(options.read, ReadProgress{Stage::Parsing, text.size(), text.size(), 0.5, 0.5}))
        return cancelled();
    if (options.bytes != nullptr) *options.bytes = std::move(text);
    return s;
}

Result<void> saveSession(const Session& session, const std::string& path) {
    if (auto ok = validateSession(session); !ok) return ok;
    return writeFileAtomic(path, serializeSession(session));
}

Result<void> validateSession(const Session& s) {
    const BiasParams& b = s.attention.bias;
    // A validator's error with the session's words in front, still naming its field.
    const auto within = [](std::string_view where, Error e) {
        e.message = fmt::format("{}{}", where, e.message);
        return std::unexpected(std::move(e));
    };
    // The one cross-field rule of the bias section, said in the session's own words (the core
    // validators below speak of command-line flags).
    if (b.slopes.scheme == SlopeScheme::Custom && b.slopes.custom.size() != static_cast<std::size_t>(b.slopes.heads))
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("session field `bias.slopes`: {} slope(s) given but `bias.heads` is {}; give one slope "
                                "per head (or drop `bias.heads`: it defaults to the number of slopes)",
                                b.slopes.custom.size(), b.slopes.heads),
                    Field::Slopes);
    if (auto ok = validateAttention(s.attention); !ok) return within("session: ", std::move(ok.error()));
    // A list kept while another scheme is chosen (an explorer keeps it for switching back) is
    // checked all the same; Compare's B likewise.
    if (auto ok = checkCustomSlopes(b.slopes.custom); !ok) return within("session: ", std::move(ok.error()));
    if (s.compare)
        if (auto ok = checkCustomSlopes(s.compare->custom); !ok)
            return within("session section `compare`: ", std::move(ok.error()));
    if (s.batch.active())
        if (auto ok = validateBatch(b, s.batch); !ok) return within("session section `batch`: ", std::move(ok.error()));
    if (s.batchRow < 0 || s.batchRow >= s.batch.batchSize())
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("session field `batch.row`: expected a batch row from 0 to {}, got {}",
                                s.batch.batchSize() - 1, s.batchRow),
                    Field::BatchRow);
    if (s.head < -1 || s.head >= b.slopes.heads)
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("session field `view.head`: expected -1 (every head) or a head from 0 to {}, got {}",
                                b.slopes.heads - 1, s.head),
                    Field::Head);
    if (s.queryRow < -1 || s.queryRow >= b.queries)
        return fail(
            ErrorCode::InvalidArgument,
            fmt::format("session field `attention.query`: expected -1 (the last row) or a row from 0 to {}, got {}",
                        b.queries - 1, s.queryRow),
            Field::Query);
    if (s.width < 1 || s.width > kMaxImageSide || s.height < 1 || s.height > kMaxImageSide)
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("session field `view.width`/`view.height`: expected 1 to {} pixels each, got {} x {}",
                                kMaxImageSide, s.width, s.height));
    if (s.trainLength < 0 || s.trainLength > kMaxLength)
        return fail(
            ErrorCode::InvalidArgument,
            fmt::format("session field `view.train_length`: expected 0 to {}, got {}", kMaxLength, s.trainLength));
    if (s.maxMemory == 0)
        return fail(ErrorCode::InvalidArgument,
                    "session field `max_memory`: expected a positive number of bytes, got 0");
    if (auto ok = validateLiveModel(s.live); !ok)
        return fail(ok.error().code, fmt::format("session section `model`: {}", ok.error().message));
    return {};
}

#undef ALIBI_TRY

}  // namespace alibi
