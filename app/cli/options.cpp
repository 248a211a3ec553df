// Shared flags: registration (with one example each in --help), parsing with messages that
// name the flag, and the session they produce. See options.hpp.
#include "options.hpp"

#include "errors.hpp"

#include <alibi/io/output_file.hpp>
#include <alibi/io/preset.hpp>
#include <alibi/model/params.hpp>
#include <alibi/render/render.hpp>

#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <fmt/format.h>
#include <limits>
#include <system_error>

namespace alibi::cli {
namespace {

void addFlag(CLI::App& cmd, Flag& flag, const std::string& names, const std::string& typeName,
             const std::string& help) {
    flag.option = cmd.add_option(names, flag.value, help)->type_name(typeName);
    flag.name = flag.option->get_name(false, true);
    // get_name lists every spelling ("-o,--output"); messages use the long one.
    if (const auto comma = flag.name.rfind(','); comma != std::string::npos) flag.name = flag.name.substr(comma + 1);
}

std::string_view trim(std::string_view text) {
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
    return text;
}

// Parses a whole string as a double (no trailing garbage); nullopt otherwise.
std::optional<double> toDouble(std::string_view text) {
    text = trim(text);
    if (!text.empty() && text.front() == '+') text.remove_prefix(1);
    if (text.empty()) return std::nullopt;
    double value = 0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec == std::errc::result_out_of_range) return text.front() == '-' ? -HUGE_VAL : HUGE_VAL;
    if (ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
    return value;
}

Result<int> intInRange(const Flag& flag, std::int64_t lo, std::int64_t hi, std::string_view what = {}) {
    auto value = parseIntegerFlag(flag);
    if (!value) return std::unexpected(value.error());
    if (*value < lo || *value > hi)
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("{} must be between {} and {}{}, got {}", flag.name, lo, hi, what, *value));
    return static_cast<int>(*value);
}

template <class T, class ParseFn>
Result<T> enumFlag(const Flag& flag, ParseFn parse, std::string_view expected) {
    if (auto value = parse(std::string_view(flag.value))) return *value;
    return fail(ErrorCode::InvalidArgument,
                fmt::format("{} must be one of {}, got '{}'", flag.name, expected, flag.value));
}

Result<std::vector<double>> parseSlopeList(const Flag& flag) {
    std::vector<double> slopes;
    std::string_view rest = flag.value;
    for (std::size_t index = 1;; ++index) {
        const auto comma = rest.find(',');
        const std::string_view item = trim(rest.substr(0, comma));
        const auto value = toDouble(item);
        if (!value)
            return fail(ErrorCode::InvalidArgument,
                        fmt::format("{}: value {} ('{}') is not a number; give positive numbers separated by commas, "
                                    "e.g. --slopes 0.5,0.25,0.125",
                                    flag.name, index, item));
        if (!std::isfinite(*value) || *value <= 0)
            return fail(ErrorCode::InvalidArgument,
                        fmt::format("{}: value {} is {}; every slope must be a positive finite number", flag.name,
                                    index, item));
        slopes.push_back(*value);
        if (comma == std::string_view::npos) break;
        rest.remove_prefix(comma + 1);
    }
    return slopes;
}

// Where --preset looks: next to the program (installed and build trees), then the source tree.
std::vector<std::filesystem::path> presetFolders() {
    std::error_code ec;
    const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec).parent_path();
    std::vector<std::filesystem::path> folders;
    if (!ec)
        folders = {exe / "../share/alibi-explorer/presets", exe / "presets", exe / "../../../assets/presets"};
#ifdef ALIBI_SOURCE_ASSETS
    folders.emplace_back(std::filesystem::path(ALIBI_SOURCE_ASSETS) / "presets");
#endif
    return folders;
}

}  // namespace

// ---------------------------------------------------------------------------
// Number parsing

Result<std::int64_t> parseIntegerFlag(const Flag& flag) {
    const std::string_view text = trim(flag.value);
    std::int64_t value = 0;
    const char* first = text.data();
    const char* last = first + text.size();
    if (!text.empty() && text.front() == '+') ++first;
    const auto [ptr, ec] = std::from_chars(first, last, value);
    if (ec == std::errc() && ptr == last && first != last) return value;
    // Accept integral numbers written in scientific form ("1e9"), refuse everything else.
    if (const auto d = toDouble(text); d && std::isfinite(*d) && std::floor(*d) == *d) {
        if (std::fabs(*d) < 9.2e18) return static_cast<std::int64_t>(*d);
        return fail(ErrorCode::InvalidArgument, fmt::format("{} is out of range: '{}'", flag.name, flag.value));
    }
    return fail(ErrorCode::InvalidArgument, fmt::format("{} must be a whole number, got '{}'", flag.name, flag.value));
}

Result<double> parseNumberFlag(const Flag& flag) {
    const auto value = toDouble(flag.value);
    if (!value || !std::isfinite(*value))
        return fail(ErrorCode::InvalidArgument, fmt::format("{} must be a finite number, got '{}'", flag.name, flag.value));
    return *value;
}

Result<std::uint64_t> parseByteSize(const Flag& flag) {
    std::string_view text = trim(flag.value);
    std::size_t split = 0;
    while (split < text.size() && (std::isdigit(static_cast<unsigned char>(text[split])) || text[split] == '.')) ++split;
    const auto number = toDouble(text.substr(0, split));
    std::string suffix(text.substr(split));
    for (auto& c : suffix) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (suffix.ends_with("IB")) suffix.resize(suffix.size() - 2);
    else if (suffix.size() > 1 && suffix.ends_with("B")) suffix.resize(suffix.size() - 1);
    double multiplier = 0;
    if (suffix.empty() || suffix == "B") multiplier = 1;
    else if (suffix == "K") multiplier = 1024.0;
    else if (suffix == "M") multiplier = 1024.0 * 1024;
    else if (suffix == "G") multiplier = 1024.0 * 1024 * 1024;
    else if (suffix == "T") multiplier = 1024.0 * 1024 * 1024 * 1024;
    if (!number || multiplier == 0 || !(*number > 0) || *number * multiplier >= 9.2e18)
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("{} must be a positive size in bytes with an optional K, M, G or T suffix "
                                "(e.g. 512M, 2G), got '{}'",
                                flag.name, flag.value));
    return static_cast<std::uint64_t>(*number * multiplier);
}

// ---------------------------------------------------------------------------
// Registration

void addCommonFlags(CLI::App& cmd, SessionFlags& f) {
    addFlag(cmd, f.config, "--config", "FILE",
            "Start from a session file (*.alibi.json); flags on the command line override it. "
            "Example: --config run.alibi.json");
    addFlag(cmd, f.preset, "--preset", "NAME",
            "Heads, max_bias, bias form, training length and arithmetic of a published ALiBi model (assets/presets: "
            "bloom-176b, mpt-7b, mpt-7b-storywriter, baichuan2-13b, jais-13b, poro-34b, ...; or a preset .json file); "
            "applied after --config, before the other flags. Example: --preset bloom-176b");
    addFlag(cmd, f.fromConfig, "--from-config", "FILE",
            "Read heads, max_bias, bias form and training length from a Hugging Face config.json (BLOOM, Falcon, MPT, "
            "Baichuan, JAIS, jina/MosaicBERT keys). Example: --from-config bloom/config.json");
    addFlag(cmd, f.maxMemory, "--max-memory", "BYTES",
            "In-memory budget for any tensor held whole (default 2G); file exports stream and need far less. "
            "Example: --max-memory 512M");
}

void addSessionFlags(CLI::App& cmd, SessionFlags& f, FlagLevel level) {
    const auto at = [level](FlagLevel l) { return static_cast<int>(level) >= static_cast<int>(l); };
    addCommonFlags(cmd, f);
    addFlag(cmd, f.heads, "--heads", "H",
            "Number of attention heads H (default 8; with --slopes, the number of slopes). Example: --heads 12");
    addFlag(cmd, f.scheme, "--scheme", "NAME",
            "Slope scheme: press (default; the paper's rule, unsorted for non-powers of two), geometric "
            "(2^(-B(h+1)/H) for every H), linear (0.05 to 0.5), custom (needs --slopes). Example: --scheme geometric");
    addFlag(cmd, f.maxBias, "--max-bias", "B",
            "B, the largest exponent for press and geometric slopes (default 8). Example: --max-bias 8");
    addFlag(cmd, f.slopes, "--slopes", "M,M,...",
            "Custom slopes, comma-separated positive numbers, one per head; implies --scheme custom and sets "
            "--heads to their count. Example: --slopes 0.5,0.25,0.125,0.0625");
    addFlag(cmd, f.dtype, "--dtype", "DTYPE",
            "Storage dtype: f32 (default), f64, f16, bf16 (round to nearest even; bf16 .npy files hold '<u2' bits). "
            "Example: --dtype f16");
    addFlag(cmd, f.arith, "--arith", "PROFILE",
            "Whose float arithmetic: exact (default; the formula rounded once), hf-bloom, hf-falcon, llm-foundry, "
            "fairseq, ggml (that code's float32 slopes and products, bit for bit; docs/ARITHMETIC.md). "
            "Example: --arith llm-foundry");
    if (at(FlagLevel::Bias)) {
        addFlag(cmd, f.seq, "--seq", "Q", "Number of queries Q (default 16). Example: --seq 128");
        addFlag(cmd, f.keys, "--keys", "K",
                "Number of keys K (default: equal to --seq); query i sits at position i + K - Q (KV-cache "
                "alignment). Example: --keys 256");
        addFlag(cmd, f.mode, "--mode", "MODE",
                "Bias form: causal (default), symmetric, clamped, bloom, mpt (see REFERENCES.md). Example: --mode bloom");
        addFlag(cmd, f.mask, "--mask", "VALUE",
                "Value of masked entries: -1e9 (default), -inf, min (the dtype's lowest finite value), or any finite "
                "number. Example: --mask -inf");
        addFlag(cmd, f.layout, "--layout", "LAYOUT",
                "Tensor layout: hqk (H,Q,K; default), qkh (Q,K,H), 1hqk (1,H,Q,K), flat (H*Q*K,). Example: --layout qkh");
    }
    if (at(FlagLevel::Attention)) {
        addFlag(cmd, f.content, "--content", "KIND",
                "Content logits added to the bias: zero (default; the pure ALiBi prior), gaussian (N(0, sigma^2)), "
                "qk (random q.k/sqrt(dk)). Example: --content gaussian");
        addFlag(cmd, f.seed, "--seed", "N", "Seed of the platform-independent generator (default 0). Example: --seed 42");
        addFlag(cmd, f.sigma, "--sigma", "S", "Standard deviation of gaussian content (default 1). Example: --sigma 2.5");
        addFlag(cmd, f.dk, "--dk", "D", "Head dimension of qk content, 1..4096 (default 64). Example: --dk 128");
        addFlag(cmd, f.temperature, "--temperature", "T",
                "Divides the whole logit (content + bias) before softmax (default 1). Example: --temperature 0.5");
        addFlag(cmd, f.threads, "--threads", "N", "Worker threads (default 0: every core). Example: --threads 2");
    }
    if (at(FlagLevel::Stats))
        addFlag(cmd, f.query, "--query", "I",
                "Query row for the per-row figures, 0..Q-1 or -1 for the last row (default -1). Example: --query 15");
    if (at(FlagLevel::Render)) {
        addFlag(cmd, f.what, "--what", "WHAT",
                "What to draw: bias or attention (PNG heatmap), slopes, distance (bias vs distance) or "
                "attention-distance (attention vs distance for --query) as SVG curves. Example: --what attention");
        addFlag(cmd, f.head, "--head", "N",
                "One head alone instead of the grid of every head (curves: highlight it). Example: --head 3");
        addFlag(cmd, f.colormap, "--colormap", "MAP",
                "Colour map: viridis (default), magma, cividis (colour-blind safe), diverging. Example: --colormap magma");
        addFlag(cmd, f.scale, "--scale", "SCALE",
                "Colour scale of a grid: shared (default) or per-head. Example: --scale per-head");
        addFlag(cmd, f.width, "--width", "PIXELS", "Image width in pixels (default 1024). Example: --width 800");
        addFlag(cmd, f.height, "--height", "PIXELS", "Image height in pixels (default 768). Example: --height 600");
    }
}

void addBatchFlags(CLI::App& cmd, SessionFlags& f) {
    addFlag(cmd, f.lengths, "--lengths", "L1,L2,...",
            "A batch: one sequence per row with this many real tokens, padded to --seq; the tensor becomes "
            "(B, H, T, T) (layout bhqk). Example: --lengths 5,8,3 --seq 8");
    addFlag(cmd, f.padding, "--padding", "SIDE",
            "Where padding goes: right (default) or left (generation batches). Example: --padding left");
    addFlag(cmd, f.documents, "--documents", "D1,D2,...",
            "Packed documents in every row (lengths in tokens): keys of another document are masked, as "
            "llm-foundry's sequence_id does. Example: --documents 3,5");
    addFlag(cmd, f.window, "--window", "W",
            "Sliding-window attention: keys at distance W or more are masked. Example: --window 4");
    addFlag(cmd, f.prefix, "--prefix", "P",
            "Prefix-LM: the first P tokens attend to each other in both directions. Example: --prefix 3");
    addFlag(cmd, f.positions, "--positions", "RULE",
            "ALiBi positions: mask (default; BLOOM's cumsum(attention_mask) - 1, padding-independent), naive (the raw "
            "index: the left-padding bug), document (restart in each packed document). Example: --positions naive");
}

void addOutputFlags(CLI::App& cmd, OutputFlags& flags, std::span<const FileFormat> formats, bool required,
                    bool tensorExport) {
    std::string names;
    for (const FileFormat format : formats) names += fmt::format("{}{}", names.empty() ? "" : ", ", formatName(format));
    addFlag(cmd, flags.output, "-o,--output", "FILE",
            std::string(required ? "Output file (required)" : "Output file (default: stdout)") +
                "; '-' writes a text format to stdout. The format follows the extension unless --format is given. "
                "Example: -o " +
                (tensorExport ? "bias.npy" : required ? "grid.png" : "out.json"));
    addFlag(cmd, flags.format, "--format", "FORMAT",
            fmt::format("Output format: {} (default: from -o's extension). Example: --format {}", names,
                        formatName(formats.size() > 1 ? formats[1] : formats[0])));
    if (tensorExport)
        cmd.add_flag("--allow-nonfinite", flags.allowNonFinite,
                     "JSON only: write -Infinity as Python's json module does, instead of refusing a non-finite value. "
                     "Example: --mask -inf --format json --allow-nonfinite");
}

// ---------------------------------------------------------------------------
// Session

Result<Settings> buildSettings(const SessionFlags& f) {
    Settings settings;
    Session& s = settings.session;
    s = defaultSession();
    if (f.config.given()) {
        std::error_code ec;
        if (!std::filesystem::is_regular_file(f.config.value, ec))
            return fail(ErrorCode::InvalidArgument,
                        fmt::format("--config: '{}' is not a readable session file (it does not exist or is not a "
                                    "regular file)",
                                    f.config.value));
        auto loaded = loadSession(f.config.value);
        if (!loaded)
            return fail(loaded.error().code, fmt::format("--config {}: {}", f.config.value, loaded.error().message));
        s = std::move(*loaded);
    }
    if (f.preset.given()) {
        auto preset = findPreset(f.preset.value, presetFolders());
        if (!preset) return fail(preset.error().code, fmt::format("--preset: {}", preset.error().message));
        applyPreset(s, *preset);
    }
    if (f.fromConfig.given()) {
        std::error_code ec;
        if (!std::filesystem::is_regular_file(f.fromConfig.value, ec))
            return fail(ErrorCode::InvalidArgument,
                        fmt::format("--from-config: '{}' is not a readable file", f.fromConfig.value));
        std::ifstream in(f.fromConfig.value, std::ios::binary);
        std::ostringstream text;
        text << in.rdbuf();
        auto preset = presetFromHfConfig(text.str(), f.fromConfig.value);
        if (!preset) return fail(preset.error().code, fmt::format("--from-config: {}", preset.error().message));
        applyPreset(s, *preset);
    }
    BiasParams& b = s.attention.bias;
    SlopeParams& sl = b.slopes;
    ContentParams& c = s.attention.content;

    if (f.maxMemory.given()) {
        auto bytes = parseByteSize(f.maxMemory);
        if (!bytes) return std::unexpected(bytes.error());
        s.maxMemory = *bytes;
    }
    if (f.threads.given()) {
        auto threads = intInRange(f.threads, 0, 1024);
        if (!threads) return std::unexpected(threads.error());
        settings.threads = static_cast<unsigned>(*threads);
    }

    // Slopes. --slopes implies custom and gives --heads its default.
    if (f.scheme.given()) {
        auto scheme = enumFlag<SlopeScheme>(f.scheme, parseScheme, "press, geometric, linear, custom");
        if (!scheme) return std::unexpected(scheme.error());
        if (f.slopes.given() && *scheme != SlopeScheme::Custom)
            return fail(ErrorCode::InvalidArgument,
                        fmt::format("--slopes implies --scheme custom, but --scheme {} was given: drop one of them",
                                    f.scheme.value));
        sl.scheme = *scheme;
    }
    if (f.heads.given()) {
        auto heads = intInRange(f.heads, 1, kMaxHeads);
        if (!heads) return std::unexpected(heads.error());
        sl.heads = *heads;
    }
    if (f.slopes.given()) {
        auto list = parseSlopeList(f.slopes);
        if (!list) return std::unexpected(list.error());
        if (list->size() > static_cast<std::size_t>(kMaxHeads))
            return fail(ErrorCode::InvalidArgument,
                        fmt::format("--slopes lists {} slopes; at most {} heads are supported", list->size(), kMaxHeads));
        if (f.heads.given() && static_cast<std::size_t>(sl.heads) != list->size())
            return fail(ErrorCode::InvalidArgument,
                        fmt::format("--heads {} disagrees with --slopes, which lists {} slope(s): give one slope per "
                                    "head, or drop --heads (it defaults to the number of slopes)",
                                    sl.heads, list->size()));
        sl.scheme = SlopeScheme::Custom;
        sl.heads = static_cast<int>(list->size());
        sl.custom = std::move(*list);
    }
    if (f.maxBias.given()) {
        auto maxBias = parseNumberFlag(f.maxBias);
        if (!maxBias) return std::unexpected(maxBias.error());
        sl.maxBias = *maxBias;
    }
    if (f.arith.given()) {
        auto arith = enumFlag<Arith>(f.arith, parseArith, "exact, hf-bloom, hf-falcon, llm-foundry, fairseq, ggml");
        if (!arith) return std::unexpected(arith.error());
        sl.arith = *arith;
    }
    if (f.dtype.given()) {
        auto dtype = enumFlag<DType>(f.dtype, parseDType, "f32, f64, f16, bf16");
        if (!dtype) return std::unexpected(dtype.error());
        b.dtype = *dtype;
    }

    // Bias.
    if (f.seq.given()) {
        auto seq = parseIntegerFlag(f.seq);
        if (!seq) return std::unexpected(seq.error());
        if (*seq < 1 || *seq > kMaxLength)
            return fail(ErrorCode::InvalidArgument,
                        fmt::format("--seq must be between 1 and {}, got {}", kMaxLength, *seq));
        b.queries = *seq;
    }
    if (f.keys.given()) {
        auto keys = parseIntegerFlag(f.keys);
        if (!keys) return std::unexpected(keys.error());
        if (*keys < 1 || *keys > kMaxLength)
            return fail(ErrorCode::InvalidArgument,
                        fmt::format("--keys must be between 1 and {} (omit it to equal --seq), got {}", kMaxLength,
                                    *keys));
        b.keys = *keys;
    }
    if (f.mode.given()) {
        auto mode = enumFlag<BiasMode>(f.mode, parseMode, "causal, symmetric, clamped, bloom, mpt");
        if (!mode) return std::unexpected(mode.error());
        b.mode = *mode;
    }
    if (f.mask.given()) {
        auto mask = parseMask(f.mask.value);
        if (!mask)
            return fail(ErrorCode::InvalidArgument,
                        fmt::format("--mask must be -1e9, -inf, min or a finite number, got '{}'", f.mask.value));
        b.mask = *mask;
    }
    if (f.layout.given() && f.layout.value == "bhqk" && f.lengths.option != nullptr) {
        settings.batchLayout = true;
    } else if (f.layout.given()) {
        auto layout = enumFlag<Layout>(f.layout, parseLayout,
                                       f.lengths.option ? "hqk, qkh, 1hqk, flat, bhqk" : "hqk, qkh, 1hqk, flat");
        if (!layout) return std::unexpected(layout.error());
        b.layout = *layout;
    }

    if ((f.seq.given() || f.keys.given()) && b.queries > b.keyCount())
        // Valid (the first Q - K rows sit before every key and are fully masked in the causal
        // forms), but rarely meant: a KV cache has at least as many keys as queries.
        fmt::print(stderr,
                   "alibi: warning: --seq {} is larger than --keys {}: query i sits at position i + K - Q, so the "
                   "first {} row(s) face no earlier key (fully masked in causal, bloom and mpt); did you mean "
                   "--seq {} --keys {}?\n",
                   b.queries, b.keyCount(), b.queries - b.keyCount(), b.keyCount(), b.queries);

    // Batches.
    const auto intList = [](const Flag& flag) -> Result<std::vector<std::int64_t>> {
        std::vector<std::int64_t> out;
        std::string_view rest = flag.value;
        for (std::size_t index = 1;; ++index) {
            const auto comma = rest.find(',');
            const std::string_view item = trim(rest.substr(0, comma));
            std::int64_t v = 0;
            const auto [ptr, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
            if (ec != std::errc() || ptr != item.data() + item.size() || item.empty() || v < 1)
                return fail(ErrorCode::InvalidArgument,
                            fmt::format("{}: value {} ('{}') is not a positive whole number; give lengths separated by "
                                        "commas, e.g. {} 5,8,3",
                                        flag.name, index, item, flag.name));
            out.push_back(v);
            if (comma == std::string_view::npos) break;
            rest.remove_prefix(comma + 1);
        }
        return out;
    };
    BatchParams& batch = settings.batch;
    batch = s.batch;  // a session's batch section, overridden flag by flag
    if (batch.active() && f.lengths.option != nullptr) settings.batchLayout = true;
    if (f.lengths.given()) {
        auto list = intList(f.lengths);
        if (!list) return std::unexpected(list.error());
        batch.lengths = std::move(*list);
    }
    if (f.documents.given()) {
        auto list = intList(f.documents);
        if (!list) return std::unexpected(list.error());
        batch.documents = std::move(*list);
    }
    if (f.padding.given()) {
        auto padding = enumFlag<Padding>(f.padding, parsePadding, "left, right");
        if (!padding) return std::unexpected(padding.error());
        batch.padding = *padding;
    }
    if (f.positions.given()) {
        auto rule = enumFlag<PositionRule>(f.positions, parsePositionRule, "mask, naive, document");
        if (!rule) return std::unexpected(rule.error());
        batch.positions = *rule;
    }
    if (f.window.given()) {
        auto w = parseIntegerFlag(f.window);
        if (!w) return std::unexpected(w.error());
        batch.window = *w;
    }
    if (f.prefix.given()) {
        auto p = parseIntegerFlag(f.prefix);
        if (!p) return std::unexpected(p.error());
        batch.prefix = *p;
    }
    // Any batch flag (even --padding or --positions alone) asks for a (B, H, T, T) batch tensor.
    if (f.lengths.given() || f.documents.given() || f.padding.given() || f.positions.given() || f.window.given() ||
        f.prefix.given())
        settings.batchLayout = true;
    if (batch.active() || settings.batchLayout)
        if (auto ok = validateBatch(b, batch); !ok) return std::unexpected(ok.error());

    // Attention content.
    if (f.content.given()) {
        auto content = enumFlag<ContentKind>(f.content, parseContent, "zero, gaussian, qk");
        if (!content) return std::unexpected(content.error());
        c.kind = *content;
    }
    if (f.seed.given()) {
        const std::string_view text = trim(f.seed.value);
        std::uint64_t seed = 0;
        const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), seed);
        if (ec != std::errc() || ptr != text.data() + text.size() || text.empty())
            return fail(ErrorCode::InvalidArgument,
                        fmt::format("--seed must be a whole number from 0 to 2^64-1, got '{}'", f.seed.value));
        c.seed = seed;
    }
    if (f.sigma.given()) {
        auto sigma = parseNumberFlag(f.sigma);
        if (!sigma) return std::unexpected(sigma.error());
        if (*sigma < 0)
            return fail(ErrorCode::InvalidArgument, fmt::format("--sigma must be zero or positive, got {}", f.sigma.value));
        c.sigma = *sigma;
    }
    if (f.dk.given()) {
        auto dk = intInRange(f.dk, 1, 4096);
        if (!dk) return std::unexpected(dk.error());
        c.dk = *dk;
    }
    if (f.temperature.given()) {
        auto temperature = parseNumberFlag(f.temperature);
        if (!temperature) return std::unexpected(temperature.error());
        if (*temperature <= 0)
            return fail(ErrorCode::InvalidArgument,
                        fmt::format("--temperature must be positive, got {}", f.temperature.value));
        c.temperature = *temperature;
    }

    // Stats and render.
    if (f.query.given()) {
        auto query = parseIntegerFlag(f.query);
        if (!query) return std::unexpected(query.error());
        s.queryRow = *query;
    }
    if (s.queryRow < -1 || s.queryRow >= b.queries)
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("--query must be between 0 and {} (Q - 1), or -1 for the last row; got {}",
                                b.queries - 1, s.queryRow));
    if (f.what.given()) {
        if (f.what.value == "attention-distance") {
            settings.attentionDistance = true;
            s.what = RenderWhat::Distance;
        } else {
            auto what = enumFlag<RenderWhat>(f.what, parseRenderWhat,
                                             "bias, attention, slopes, distance, attention-distance");
            if (!what) return std::unexpected(what.error());
            s.what = *what;
        }
    }
    if (f.head.given()) {
        auto head = parseIntegerFlag(f.head);
        if (!head) return std::unexpected(head.error());
        if (*head < -1 || *head >= sl.heads)
            return fail(ErrorCode::InvalidArgument,
                        fmt::format("--head must be between 0 and {} (H - 1), or -1 for every head; got {}",
                                    sl.heads - 1, *head));
        s.head = static_cast<int>(*head);
    }
    if (f.colormap.given()) {
        auto map = enumFlag<Colormap>(f.colormap, parseColormap, "viridis, magma, cividis, diverging");
        if (!map) return std::unexpected(map.error());
        s.colormap = *map;
    }
    if (f.scale.given()) {
        auto scale = enumFlag<ScaleMode>(f.scale, parseScaleMode, "shared, per-head");
        if (!scale) return std::unexpected(scale.error());
        s.scale = *scale;
    }
    if (f.width.given()) {
        auto width = intInRange(f.width, 16, 16384, " pixels");
        if (!width) return std::unexpected(width.error());
        s.width = *width;
    }
    if (f.height.given()) {
        auto height = intInRange(f.height, 16, 16384, " pixels");
        if (!height) return std::unexpected(height.error());
        s.height = *height;
    }
    return settings;
}

// ---------------------------------------------------------------------------
// Output

bool isTextFormat(FileFormat format) {
    return format == FileFormat::Text || format == FileFormat::Csv || format == FileFormat::Json ||
           format == FileFormat::Svg;
}

Result<OutputTarget> resolveOutput(const OutputFlags& flags, std::span<const FileFormat> formats,
                                   std::optional<FileFormat> fallback) {
    std::string names;
    for (const FileFormat format : formats) names += fmt::format("{}{}", names.empty() ? "" : ", ", formatName(format));
    const auto allowed = [&](FileFormat format) {
        for (const FileFormat f : formats)
            if (f == format) return true;
        return false;
    };

    OutputTarget target;
    target.path = flags.output.given() ? flags.output.value : "-";
    if (flags.output.given() && flags.output.value.empty())
        return fail(ErrorCode::InvalidArgument, "-o/--output is empty: give a file name, or '-' for stdout");
    if (!flags.output.given() && !fallback)
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("-o/--output is required: give a file, e.g. -o out.{}", formatName(formats[0])));

    if (flags.format.given()) {
        const auto format = parseFormat(flags.format.value);
        if (!format || !allowed(*format))
            return fail(ErrorCode::InvalidArgument,
                        fmt::format("--format must be one of {} here, got '{}'", names, flags.format.value));
        target.format = *format;
    } else if (target.toStdout()) {
        // stdout: the command's text default, if it has one.
        if (!fallback || !isTextFormat(*fallback)) {
            std::string textNames;
            for (const FileFormat format : formats)
                if (isTextFormat(format))
                    textNames += fmt::format("{}{}", textNames.empty() ? "" : " or ", formatName(format));
            return fail(ErrorCode::InvalidArgument,
                        fmt::format("-o - writes to stdout, which needs a text --format ({}); give one, or -o FILE",
                                    textNames));
        }
        target.format = *fallback;
    } else {
        const auto format = formatFromPath(target.path);
        if (!format)
            return fail(ErrorCode::InvalidArgument,
                        fmt::format("cannot tell the format of '{}': it has no known extension and --format is not "
                                    "given; add an extension to -o (e.g. .{}) or give --format ({})",
                                    target.path, formatName(formats[0]), names));
        if (!allowed(*format))
            return fail(ErrorCode::InvalidArgument,
                        fmt::format("-o {}: the {} format is not available here; use one of {} (or give --format)",
                                    target.path, formatName(*format), names));
        target.format = *format;
    }
    if (target.toStdout() && !isTextFormat(target.format))
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("cannot write binary {} to stdout (-o -): give -o FILE, e.g. -o out.{}",
                                formatName(target.format), formatName(target.format)));
    return target;
}

Result<void> writeText(const std::string& path, std::string_view text) {
    if (path != "-") return writeFileAtomic(path, text);
    if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() || std::fflush(stdout) != 0)
        return fail(ErrorCode::Io, fmt::format("cannot write to stdout: {}", std::strerror(errno)));
    return {};
}

}  // namespace alibi::cli
