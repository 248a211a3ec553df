// Session files (*.alibi.json): one JSON document holding every parameter, read and written
// the same way by the CLI and both GUIs. Parsing is strict on purpose: a misspelt field
// ("hedas") or a value of the wrong type is an error naming the field by its dotted path,
// because a silently ignored typo would show the wrong tensor with no hint why.
#include <alibi/model/attention.hpp>
#include <alibi/model/bias.hpp>
#include <alibi/io/output_file.hpp>
#include <alibi/io/session.hpp>

#include <fmt/format.h>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <type_traits>

namespace alibi {

using Json = nlohmann::json;

namespace {

// Session files are hand-edited and small; anything larger is not a session.
constexpr std::size_t kMaxSessionBytes = std::size_t{16} << 20;
constexpr int kMaxImageSide = 16384;

// ---------------------------------------------------------------------------
// Field readers. Each returns an error naming the field's dotted path.

Error fieldError(const std::string& path, const std::string& what) {
    return Error{ErrorCode::BadInput, fmt::format("session field `{}`: {}", path, what)};
}

// JSON text of a value as the user wrote it, shortened so one bad field cannot flood a message.
std::string shown(const Json& v) {
    std::string s = v.dump();
    if (s.size() > 60) s = s.substr(0, 57) + "...";
    return s;
}

Result<std::int64_t> readInt(const Json& v, const std::string& path, std::int64_t lo, std::int64_t hi) {
    const auto bad = [&] {
        return std::unexpected(
            fieldError(path, fmt::format("expected an integer from {} to {}, got {}", lo, hi, shown(v))));
    };
    // Floats such as 8.0 or 1e9 are refused: a session is written by a program, and a float
    // where a count belongs means something else went wrong.
    if (v.is_number_unsigned()) {
        const auto u = v.get<std::uint64_t>();
        if (u > static_cast<std::uint64_t>(hi) || static_cast<std::int64_t>(u) < lo) return bad();
        return static_cast<std::int64_t>(u);
    }
    if (!v.is_number_integer()) return bad();
    const auto x = v.get<std::int64_t>();
    if (x < lo || x > hi) return bad();
    return x;
}

Result<std::uint64_t> readUnsigned(const Json& v, const std::string& path, std::uint64_t lo) {
    if (v.is_number_unsigned() && v.get<std::uint64_t>() >= lo) return v.get<std::uint64_t>();
    if (v.is_number_integer() && v.get<std::int64_t>() >= 0 && static_cast<std::uint64_t>(v.get<std::int64_t>()) >= lo)
        return static_cast<std::uint64_t>(v.get<std::int64_t>());
    return std::unexpected(fieldError(path, fmt::format("expected an integer of at least {}, got {}", lo, shown(v))));
}

Result<double> readNumber(const Json& v, const std::string& path, double lo, double hi, bool loOpen,
                          const char* expected) {
    if (!v.is_number())
        return std::unexpected(fieldError(path, fmt::format("expected {}, got {}", expected, shown(v))));
    const double x = v.get<double>();
    if (!std::isfinite(x) || x < lo || x > hi || (loOpen && x == lo))
        return std::unexpected(fieldError(path, fmt::format("expected {}, got {}", expected, shown(v))));
    return x;
}

template <class Parse>
auto readName(const Json& v, const std::string& path, const char* kind, const char* expected, Parse parse)
    -> Result<typename std::invoke_result_t<Parse, std::string_view>::value_type> {
    if (!v.is_string())
        return std::unexpected(
            fieldError(path, fmt::format("expected a string naming the {} ({}), got {}", kind, expected, shown(v))));
    const auto& s = v.get_ref<const std::string&>();
    auto parsed = parse(std::string_view(s));
    if (!parsed)
        return std::unexpected(fieldError(path, fmt::format("unknown {} '{}' (expected {})", kind, s, expected)));
    return *parsed;
}

// Rejects any key of `object` outside `known`, naming it with its full path.
Result<void> checkKnown(const Json& object, const std::string& prefix, std::initializer_list<std::string_view> known) {
    for (const auto& [key, value] : object.items()) {
        bool found = false;
        for (const auto k : known) found = found || k == key;
        if (!found) {
            std::string list;
            for (const auto k : known) list += (list.empty() ? "" : ", ") + std::string(k);
            return fail(ErrorCode::BadInput,
                        fmt::format("session: unknown field `{}{}` (known fields here: {})", prefix, key, list));
        }
    }
    return {};
}

Result<const Json*> readObject(const Json& root, const char* name) {
    const auto it = root.find(name);
    if (it == root.end()) return nullptr;
    if (!it->is_object())
        return std::unexpected(fieldError(name, fmt::format("expected an object, got {}", shown(*it))));
    return &*it;
}

// Parse error text without nlohmann's "[json.exception.parse_error.101] parse error at line 1,
// column 17: " prefix (the byte offset is given separately).
std::string parseErrorDetail(const std::string& what) {
    std::string s = what;
    if (const auto close = s.find("] "); close != std::string::npos) s = s.substr(close + 2);
    if (s.rfind("parse error", 0) == 0)
        if (const auto colon = s.find(": "); colon != std::string::npos) s = s.substr(colon + 2);
    return s;
}

// ---------------------------------------------------------------------------
// Sections

#define ALIBI_TRY(var, expr)                               \
    auto var##_r = (expr);                                 \
    if (!var##_r) return std::unexpected(var##_r.error()); \
    auto var = std::move(*var##_r)

Result<void> parseBias(const Json& b, BiasParams& p) {
    if (auto ok =
            checkKnown(b, "bias.",
                       {"heads", "queries", "keys", "scheme", "max_bias", "slopes", "mode", "mask", "layout", "dtype"});
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
        ALIBI_TRY(m, readNumber(b["max_bias"], "bias.max_bias", 0, 1000, false, "a number from 0 to 1000"));
        p.slopes.maxBias = m;
    }
    if (b.contains("slopes")) {
        const Json& s = b["slopes"];
        if (!s.is_array() || s.size() > static_cast<std::size_t>(kMaxHeads))
            return std::unexpected(
                fieldError("bias.slopes",
                           fmt::format("expected a list of at most {} positive numbers, got {}", kMaxHeads, shown(s))));
        std::vector<double> slopes;
        for (std::size_t h = 0; h < s.size(); ++h) {
            ALIBI_TRY(m, readNumber(s[h], fmt::format("bias.slopes[{}]", h), 0, std::numeric_limits<double>::max(),
                                    true, "a positive finite number"));
            slopes.push_back(m);
        }
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
        const Json& m = b["mask"];
        if (m.is_number()) {
            ALIBI_TRY(
                x, readNumber(m, "bias.mask", std::numeric_limits<double>::lowest(), std::numeric_limits<double>::max(),
                              false, "a finite number or \"-1e9\", \"-inf\", \"min\""));
            p.mask = MaskValue{MaskValue::Kind::Finite, x};
        } else {
            ALIBI_TRY(x, readName(m, "bias.mask", "mask", "\"-1e9\", \"-inf\", \"min\" or a finite number", parseMask));
            p.mask = x;
        }
    }
    if (b.contains("layout")) {
        ALIBI_TRY(l, readName(b["layout"], "bias.layout", "layout", "hqk, qkh, 1hqk, flat", parseLayout));
        p.layout = l;
    }
    if (b.contains("dtype")) {
        ALIBI_TRY(d, readName(b["dtype"], "bias.dtype", "dtype", "f32, f64, f16, bf16", parseDType));
        p.dtype = d;
    }
    if (p.slopes.scheme == SlopeScheme::Custom && p.slopes.custom.empty())
        return std::unexpected(fieldError("bias.slopes", "scheme custom needs a list of slopes, one per head"));
    return {};
}

Result<void> parseAttention(const Json& a, Session& s) {
    if (auto ok = checkKnown(a, "attention.", {"content", "seed", "sigma", "dk", "temperature", "query"}); !ok)
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
        ALIBI_TRY(x, readNumber(a["sigma"], "attention.sigma", 0, 1e6, false, "a number from 0 to 1e6"));
        c.sigma = x;
    }
    if (a.contains("dk")) {
        ALIBI_TRY(x, readInt(a["dk"], "attention.dk", 1, 4096));
        c.dk = static_cast<int>(x);
    }
    if (a.contains("temperature")) {
        ALIBI_TRY(x,
                  readNumber(a["temperature"], "attention.temperature", 0, 1e6, true, "a positive number up to 1e6"));
        c.temperature = x;
    }
    if (a.contains("query")) {
        ALIBI_TRY(x, readInt(a["query"], "attention.query", -1, kMaxLength - 1));
        s.queryRow = x;
    }
    return {};
}

Result<void> parseView(const Json& v, Session& s) {
    if (auto ok = checkKnown(v, "view.", {"what", "head", "colormap", "scale", "width", "height", "train_length"}); !ok)
        return ok;
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

// ---------------------------------------------------------------------------
// Command-line rendering

// Quotes an argument for a POSIX shell when it holds anything but safe characters.
std::string shellQuote(std::string_view arg) {
    const bool safe = !arg.empty() && arg.find_first_not_of(
                                          "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                          "0123456789-_./,:=+@%") == std::string_view::npos;
    if (safe) return std::string(arg);
    std::string out = "'";
    for (const char c : arg) {
        if (c == '\'')
            out += "'\\''";
        else
            out += c;
    }
    return out + "'";
}

}  // namespace

// ---------------------------------------------------------------------------
// Public API

Session defaultSession() {
    // Every default lives in the parameter structs; this names the combination a session starts from.
    Session s;
    s.attention.bias.slopes.heads = 8;
    s.attention.bias.queries = 16;
    return s;
}

Result<Session> parseSession(std::string_view text) {
    Json root;
    try {
        root = Json::parse(text.begin(), text.end());
    } catch (const Json::parse_error& e) {
        return fail(ErrorCode::BadInput, fmt::format("not a session file: JSON parse error at byte {}: {}", e.byte,
                                                     parseErrorDetail(e.what())));
    } catch (const std::exception& e) {
        return fail(ErrorCode::BadInput, fmt::format("not a session file: {}", e.what()));
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
        if (auto ok = checkKnown(root, "", {"version", "bias", "attention", "view", "max_memory"}); !ok)
            return std::unexpected(ok.error());

        Session s = defaultSession();
        for (const char* section : {"bias", "attention", "view"}) {
            auto obj = readObject(root, section);
            if (!obj) return std::unexpected(obj.error());
            if (!*obj) continue;
            Result<void> ok;
            if (std::string_view(section) == "bias")
                ok = parseBias(**obj, s.attention.bias);
            else if (std::string_view(section) == "attention")
                ok = parseAttention(**obj, s);
            else
                ok = parseView(**obj, s);
            if (!ok) return std::unexpected(ok.error());
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

    Ordered attention = Ordered::object();
    attention["content"] = std::string(contentName(c.kind));
    attention["seed"] = c.seed;
    attention["sigma"] = c.sigma;
    attention["dk"] = c.dk;
    attention["temperature"] = c.temperature;
    attention["query"] = s.queryRow;

    Ordered view = Ordered::object();
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
    root["max_memory"] = s.maxMemory;
    return root.dump(2) + "\n";
}

Result<Session> loadSession(const std::string& path) {
    auto text = readFileText(path, kMaxSessionBytes);
    if (!text) return std::unexpected(text.error());
    auto s = parseSession(*text);
    if (!s) return fail(s.error().code, fmt::format("{}: {}", path, s.error().message));
    return s;
}

Result<void> saveSession(const Session& session, const std::string& path) {
    if (auto ok = validateSession(session); !ok) return ok;
    return writeFileAtomic(path, serializeSession(session));
}

Result<void> validateSession(const Session& s) {
    const BiasParams& b = s.attention.bias;
    // The one cross-field rule of the bias section, said in the session's own words (the core
    // validators below speak of command-line flags).
    if (b.slopes.scheme == SlopeScheme::Custom && b.slopes.custom.size() != static_cast<std::size_t>(b.slopes.heads))
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("session field `bias.slopes`: {} slope(s) given but `bias.heads` is {}; give one slope "
                                "per head (or drop `bias.heads`: it defaults to the number of slopes)",
                                b.slopes.custom.size(), b.slopes.heads));
    if (auto ok = validateAttention(s.attention); !ok)
        return fail(ok.error().code, fmt::format("session: {}", ok.error().message));
    if (s.head < -1 || s.head >= b.slopes.heads)
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("session field `view.head`: expected -1 (every head) or a head from 0 to {}, got {}",
                                b.slopes.heads - 1, s.head));
    if (s.queryRow < -1 || s.queryRow >= b.queries)
        return fail(
            ErrorCode::InvalidArgument,
            fmt::format("session field `attention.query`: expected -1 (the last row) or a row from 0 to {}, got {}",
                        b.queries - 1, s.queryRow));
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
    return {};
}

std::string cliCommand(const Session& s, std::string_view subcommand, std::string_view output) {
    const BiasParams& b = s.attention.bias;
    const ContentParams& c = s.attention.content;
    const ContentParams dc;
    const BiasParams db;
    const Session ds;
    const bool slopesOnly = subcommand == "slopes";
    const bool content = subcommand == "attention" || subcommand == "stats" || subcommand == "render";

    std::string cmd = fmt::format("alibi {}", subcommand);
    const auto add = [&cmd](std::string_view flag, std::string_view value) {
        cmd += fmt::format(" {} {}", flag, shellQuote(value));
    };
    add("--heads", std::to_string(b.slopes.heads));
    if (!slopesOnly) {
        add("--seq", std::to_string(b.queries));
        if (b.keys != 0 && b.keys != b.queries) add("--keys", std::to_string(b.keys));
    }
    if (b.slopes.scheme == SlopeScheme::Custom) {
        std::string list;
        for (const double m : b.slopes.custom) list += (list.empty() ? "" : ",") + fmt::format("{}", m);
        add("--slopes", list);
    } else if (b.slopes.scheme != db.slopes.scheme) {
        add("--scheme", schemeName(b.slopes.scheme));
    }
    const bool usesMaxBias = b.slopes.scheme == SlopeScheme::Press || b.slopes.scheme == SlopeScheme::Geometric;
    if (usesMaxBias && b.slopes.maxBias != db.slopes.maxBias) add("--max-bias", fmt::format("{}", b.slopes.maxBias));
    if (!slopesOnly) {
        if (b.mode != db.mode) add("--mode", modeName(b.mode));
        if (!(b.mask == db.mask)) add("--mask", maskName(b.mask));
        if (b.layout != db.layout) add("--layout", layoutName(b.layout));
    }
    if (b.dtype != db.dtype) add("--dtype", dtypeName(b.dtype));
    if (content) {
        if (c.kind != dc.kind) add("--content", contentName(c.kind));
        // Only the content source that uses a parameter gets it, so the line stays minimal.
        if (c.kind != ContentKind::Zero && c.seed != dc.seed) add("--seed", std::to_string(c.seed));
        if (c.kind == ContentKind::Gaussian && c.sigma != dc.sigma) add("--sigma", fmt::format("{}", c.sigma));
        if (c.kind == ContentKind::Qk && c.dk != dc.dk) add("--dk", std::to_string(c.dk));
        if (c.temperature != dc.temperature) add("--temperature", fmt::format("{}", c.temperature));
    }
    if (subcommand == "stats" && s.queryRow != ds.queryRow) add("--query", std::to_string(s.queryRow));
    if (subcommand == "render") {
        if (s.what != ds.what) add("--what", renderWhatName(s.what));
        if (s.head != ds.head) add("--head", std::to_string(s.head));
        if (s.colormap != ds.colormap) add("--colormap", colormapName(s.colormap));
        if (s.width != ds.width) add("--width", std::to_string(s.width));
        if (s.height != ds.height) add("--height", std::to_string(s.height));
    }
    if (!output.empty()) add("-o", output);
    return cmd;
}

#undef ALIBI_TRY

}  // namespace alibi
