// Shared flags: registration (with one example each in --help), how each one's text is checked
// and applied, and the session they produce. See options.hpp; the numbers' parsing is
// flag_values.cpp's, the output flags output_target.cpp's.
#include "options.hpp"

#include "errors.hpp"
#include "inputs.hpp"

#include <alibi/base/data_dir.hpp>
#include <alibi/base/image_size.hpp>
#include <alibi/explore/editing.hpp>
#include <alibi/explore/snapshot.hpp>
#include <alibi/figure/render_views.hpp>
#include <alibi/io/preset.hpp>
#include <alibi/model/params.hpp>
#include <alibi/render/figure_output.hpp>
#include <alibi/render/render.hpp>

#include <fmt/format.h>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <sstream>
#include <type_traits>

namespace alibi::cli {
namespace {

Result<std::int64_t> intInRange(const Flag& flag, std::int64_t lo, std::int64_t hi, std::string_view what = {}) {
    auto value = parseIntegerFlag(flag);
    if (!value) return std::unexpected(value.error());
    if (*value < lo || *value > hi)
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("{} must be between {} and {}{}, got {}", flag.name, lo, hi, what, *value));
    return *value;
}

template <class T, class ParseFn>
Result<T> enumFlag(const Flag& flag, ParseFn parse, std::string_view expected) {
    if (auto value = parse(std::string_view(flag.value))) return *value;
    return fail(ErrorCode::InvalidArgument,
                fmt::format("{} must be one of {}, got '{}'", flag.name, expected, flag.value));
}

// The core's one slope-list grammar ("0.5,1/8,2^-3"), as both explorers and Python take it.
Result<std::vector<double>> parseSlopeList(const Flag& flag) {
    return explore::parseSlopeList(flag.value, flag.name);
}

// Where --preset looks: share/alibi-explorer/presets relative to the program, which holds for
// an installed copy and the build tree alike (alibi/base/data_dir.hpp).
std::vector<std::filesystem::path> presetFolders() {
    std::vector<std::filesystem::path> folders;
    for (const auto& dir : dataDirs()) folders.push_back(dir / "presets");
    return folders;
}

}  // namespace

void addFlag(CLI::App& cmd, Flag& flag, const std::string& names, const std::string& typeName,
             const std::string& help) {
    flag.option = cmd.add_option(names, flag.value, help)->type_name(typeName);
    flag.name = flag.option->get_name(false, true);
    // get_name lists every spelling ("-o,--output"); messages use the long one.
    if (const auto comma = flag.name.rfind(','); comma != std::string::npos) flag.name = flag.name.substr(comma + 1);
}

// ---------------------------------------------------------------------------
// The flag table: every session flag once, with the commands that take it, its help (one
// example each) and how its text becomes part of the settings.

namespace {

// Which subcommands take a flag. The FlagLevel groups nest (a command at level Stats takes
// Common..Stats); Batch is taken by the commands that call addBatchFlags.
enum class Group { Common, Slopes, Bias, Attention, Stats, Render, Batch };
static_assert(static_cast<int>(Group::Render) - static_cast<int>(Group::Slopes) == static_cast<int>(FlagLevel::Render),
              "Group::Slopes..Render mirror FlagLevel");

// Turns a given flag's text into settings, with a message naming the flag when it cannot. The
// table's order is the order flags are applied, so an apply may look at what earlier flags set
// (--head checks against --heads and --slopes).
using Apply = std::function<Result<void>(const Flag&, const SessionFlags&, Settings&)>;

struct FlagSpec {
    Flag SessionFlags::*flag;
    Group group;
    std::string names, typeName, help;
    Apply apply;  // empty: read before the table (--config, --preset, --from-config)
};

template <class T>
using Setter = std::type_identity_t<void (*)(Settings&, T)>;

// A whole number in [lo, hi]; `what` follows the range in the message (" pixels").
Apply wholeNumberIn(std::int64_t lo, std::int64_t hi, std::string what, Setter<std::int64_t> set) {
    return [=](const Flag& flag, const SessionFlags&, Settings& s) -> Result<void> {
        auto value = intInRange(flag, lo, hi, what);
        if (!value) return std::unexpected(value.error());
        set(s, *value);
        return {};
    };
}

// A whole number whose range depends on other flags (checked once they are all applied).
Apply wholeNumber(Setter<std::int64_t> set) {
    return [=](const Flag& flag, const SessionFlags&, Settings& s) -> Result<void> {
        auto value = parseIntegerFlag(flag);
        if (!value) return std::unexpected(value.error());
        set(s, *value);
        return {};
    };
}

// A finite number; its range is checked with every other one (checkParameterLimits).
Apply finiteNumber(Setter<double> set) {
    return [=](const Flag& flag, const SessionFlags&, Settings& s) -> Result<void> {
        auto value = parseNumberFlag(flag);
        if (!value) return std::unexpected(value.error());
        set(s, *value);
        return {};
    };
}

template <class E>
Apply oneOf(std::optional<E> (*parse)(std::string_view), std::string expected, Setter<E> set) {
    return [=](const Flag& flag, const SessionFlags&, Settings& s) -> Result<void> {
        auto value = enumFlag<E>(flag, parse, expected);
        if (!value) return std::unexpected(value.error());
        set(s, *value);
        return {};
    };
}

// One of the names, or "same" (unset: B keeps A's value).
template <class E>
Apply sameOr(std::optional<E> (*parse)(std::string_view), std::string expected, Setter<std::optional<E>> set) {
    return [=](const Flag& flag, const SessionFlags&, Settings& s) -> Result<void> {
        if (flag.value == "same") {
            set(s, std::nullopt);
            return {};
        }
        auto value = enumFlag<E>(flag, parse, expected);
        if (!value) return std::unexpected(value.error());
        set(s, *value);
        return {};
    };
}

// "5,8,3": positive whole numbers (batch lengths, document lengths).
Apply lengthList(Setter<std::vector<std::int64_t>> set) {
    return [=](const Flag& flag, const SessionFlags&, Settings& s) -> Result<void> {
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
        set(s, std::move(out));
        return {};
    };
}

// The flags whose rules involve other flags.

Result<void> applyScheme(const Flag& flag, const SessionFlags& f, Settings& s) {
    auto scheme = enumFlag<SlopeScheme>(flag, parseScheme, "press, geometric, linear, custom");
    if (!scheme) return std::unexpected(scheme.error());
    if (f.slopes.given() && *scheme != SlopeScheme::Custom)
        return fail(
            ErrorCode::InvalidArgument,
            fmt::format("--slopes implies --scheme custom, but --scheme {} was given: drop one of them", flag.value));
    s.session.attention.bias.slopes.scheme = *scheme;
    return {};
}

// --slopes implies custom and gives --heads its default.
Result<void> applySlopes(const Flag& flag, const SessionFlags& f, Settings& s) {
    SlopeParams& sl = s.session.attention.bias.slopes;
    auto list = parseSlopeList(flag);
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
    return {};
}

Result<void> applyMask(const Flag& flag, const SessionFlags&, Settings& s) {
    auto mask = parseMask(flag.value);
    if (!mask)
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("--mask must be -1e9, -inf, min or a finite number, got '{}'", flag.value));
    s.session.attention.bias.mask = *mask;
    return {};
}

// bhqk is a batch layout, known to the commands that take batches.
Result<void> applyLayout(const Flag& flag, const SessionFlags& f, Settings& s) {
    const bool batches = f.lengths.option != nullptr;
    if (flag.value == "bhqk" && batches) {
        s.batchLayout = true;
        return {};
    }
    auto layout = enumFlag<Layout>(flag, parseLayout, batches ? "hqk, qkh, 1hqk, flat, bhqk" : "hqk, qkh, 1hqk, flat");
    if (!layout) return std::unexpected(layout.error());
    s.session.attention.bias.layout = *layout;
    return {};
}

Result<void> applySeed(const Flag& flag, const SessionFlags&, Settings& s) {
    const std::string_view text = trim(flag.value);
    std::uint64_t seed = 0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), seed);
    if (ec != std::errc() || ptr != text.data() + text.size() || text.empty())
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("--seed must be a whole number from 0 to 2^64-1, got '{}'", flag.value));
    s.session.attention.content.seed = seed;
    return {};
}

Result<void> applySigma(const Flag& flag, const SessionFlags&, Settings& s) {
    auto sigma = parseNumberFlag(flag);
    if (!sigma) return std::unexpected(sigma.error());
    if (*sigma < kSigmaRange.min)
        return fail(ErrorCode::InvalidArgument, fmt::format("--sigma must be zero or positive, got {}", flag.value));
    s.session.attention.content.sigma = *sigma;  // the upper limit: checkParameterLimits
    return {};
}

Result<void> applyMaxMemory(const Flag& flag, const SessionFlags&, Settings& s) {
    auto bytes = parseByteSize(flag);
    if (!bytes) return std::unexpected(bytes.error());
    s.session.maxMemory = *bytes;
    return {};
}

Result<void> applyWhat(const Flag& flag, const SessionFlags&, Settings& s) {
    if (flag.value == "attention-distance") {
        s.attentionDistance = true;
        s.session.what = RenderWhat::Distance;
        return {};
    }
    // The views of an attention-map file need the file; the others reach here resolved.
    for (const std::string_view fileView : {"overview", "similarity", "fit", "row"})
        if (flag.value == fileView)
            return fail(ErrorCode::InvalidArgument,
                        fmt::format("--what {} draws a trained model's attention maps: give the file, e.g. alibi "
                                    "render maps.npy --what {} -o out.png",
                                    flag.value, flag.value));
    auto what = enumFlag<RenderWhat>(flag, parseRenderWhat, renderViewList());
    if (!what) return std::unexpected(what.error());
    s.session.what = *what;
    return {};
}

Result<void> applyHead(const Flag& flag, const SessionFlags&, Settings& s) {
    const int heads = s.session.attention.bias.slopes.heads;
    auto head = parseIntegerFlag(flag);
    if (!head) return std::unexpected(head.error());
    if (*head < -1 || *head >= heads)
        return fail(
            ErrorCode::InvalidArgument,
            fmt::format("--head must be between 0 and {} (H - 1), or -1 for every head; got {}", heads - 1, *head));
    s.session.head = static_cast<int>(*head);
    return {};
}

const std::vector<FlagSpec>& flagTable() {
    using F = SessionFlags;
    using S = Settings;
    static const std::vector<FlagSpec> table{
        // Every command.
        {&F::config,
         Group::Common,
         "--config",
         "FILE",
         "Start from a session file (*.alibi.json); flags on the command line override it. "
         "Example: --config run.alibi.json",
         {}},
        {&F::preset,
         Group::Common,
         "--preset",
         "NAME",
         "Heads, max_bias, bias form, training length and arithmetic of a published ALiBi model (assets/presets: "
         "bloom-176b, mpt-7b, mpt-7b-storywriter, baichuan2-13b, jais-13b, poro-34b, ...; or a preset .json file); "
         "applied after --config, before the other flags. Example: --preset bloom-176b",
         {}},
        {&F::fromConfig,
         Group::Common,
         "--from-config",
         "FILE",
         "Read heads, max_bias, bias form and training length from a Hugging Face config.json (BLOOM, Falcon, MPT, "
         "Baichuan, JAIS, jina/MosaicBERT keys). Example: --from-config bloom/config.json",
         {}},
        {&F::maxMemory, Group::Common, "--max-memory", "BYTES",
         "In-memory budget for any tensor held whole (default 2G); file exports stream and need far less. "
         "Example: --max-memory 512M",
         applyMaxMemory},
        // Slopes.
        {&F::heads, Group::Slopes, "--heads", "H",
         "Number of attention heads H (default 8; with --slopes, the number of slopes). Example: --heads 12",
         wholeNumberIn(1, kMaxHeads, "",
                       [](S& s, std::int64_t v) { s.session.attention.bias.slopes.heads = static_cast<int>(v); })},
        {&F::scheme, Group::Slopes, "--scheme", "NAME",
         "Slope scheme: press (default; the paper's rule, unsorted for non-powers of two), geometric "
         "(2^(-B(h+1)/H) for every H), linear (0.05 to 0.5), custom (needs --slopes). Example: --scheme geometric",
         applyScheme},
        {&F::maxBias, Group::Slopes, "--max-bias", "B",
         "B, the largest exponent for press and geometric slopes (default 8). Example: --max-bias 8",
         finiteNumber([](S& s, double v) { s.session.attention.bias.slopes.maxBias = v; })},
        {&F::slopes, Group::Slopes, "--slopes", "M,M,...",
         "Custom slopes, comma-separated positive numbers, one per head; implies --scheme custom and sets "
         "--heads to their count. Example: --slopes 0.5,0.25,0.125,0.0625",
         applySlopes},
        {&F::dtype, Group::Slopes, "--dtype", "DTYPE",
         "Storage dtype: f32 (default), f64, f16, bf16 (round to nearest even; bf16 .npy files hold '<u2' bits). "
         "Example: --dtype f16",
         oneOf<DType>(parseDType, "f32, f64, f16, bf16", [](S& s, DType v) { s.session.attention.bias.dtype = v; })},
        {&F::arith, Group::Slopes, "--arith", "PROFILE",
         "Whose float arithmetic: exact (default; the formula rounded once), hf-bloom, hf-falcon, llm-foundry, "
         "fairseq, ggml (that code's float32 slopes and products, bit for bit; docs/ARITHMETIC.md). "
         "Example: --arith llm-foundry",
         oneOf<Arith>(parseArith, "exact, hf-bloom, hf-falcon, llm-foundry, fairseq, ggml",
                      [](S& s, Arith v) { s.session.attention.bias.slopes.arith = v; })},
        // Bias.
        {&F::seq, Group::Bias, "--seq", "Q", "Number of queries Q (default 16). Example: --seq 128",
         wholeNumberIn(1, kMaxLength, "", [](S& s, std::int64_t v) { s.session.attention.bias.queries = v; })},
        {&F::keys, Group::Bias, "--keys", "K",
         "Number of keys K (default: equal to --seq); query i sits at position i + K - Q (KV-cache "
         "alignment). Example: --keys 256",
         wholeNumberIn(1, kMaxLength, " (omit it to equal --seq)",
                       [](S& s, std::int64_t v) { s.session.attention.bias.keys = v; })},
        {&F::mode, Group::Bias, "--mode", "MODE",
         "Bias form: causal (default), symmetric, clamped, bloom, mpt (docs/FORMULAS.md). Example: --mode bloom",
         oneOf<BiasMode>(parseMode, "causal, symmetric, clamped, bloom, mpt",
                         [](S& s, BiasMode v) { s.session.attention.bias.mode = v; })},
        {&F::mask, Group::Bias, "--mask", "VALUE",
         "Value of masked entries: -1e9 (default), -inf, min (the dtype's lowest finite value), or any finite "
         "number. Example: --mask -inf",
         applyMask},
        {&F::layout, Group::Bias, "--layout", "LAYOUT",
         "Tensor layout: hqk (H,Q,K; default), qkh (Q,K,H), 1hqk (1,H,Q,K), flat (H*Q*K,). Example: --layout qkh",
         applyLayout},
        // Attention.
        {&F::content, Group::Attention, "--content", "KIND",
         "Content logits added to the bias: zero (default; the pure ALiBi prior), gaussian (N(0, sigma^2)), "
         "qk (random q.k/sqrt(dk)). Example: --content gaussian",
         oneOf<ContentKind>(parseContent, "zero, gaussian, qk",
                            [](S& s, ContentKind v) { s.session.attention.content.kind = v; })},
        {&F::seed, Group::Attention, "--seed", "N",
         "Seed of the platform-independent generator (default 0). Example: --seed 42", applySeed},
        {&F::sigma, Group::Attention, "--sigma", "S",
         "Standard deviation of gaussian content (default 1). Example: --sigma 2.5", applySigma},
        {&F::dk, Group::Attention, "--dk", "D",
         fmt::format("Head dimension of qk content, 1..{} (default 64). Example: --dk 128", kMaxDk),
         wholeNumberIn(1, kMaxDk, "",
                       [](S& s, std::int64_t v) { s.session.attention.content.dk = static_cast<int>(v); })},
        {&F::temperature, Group::Attention, "--temperature", "T",
         "Divides the whole logit (content + bias) before softmax (default 1). Example: --temperature 0.5",
         finiteNumber([](S& s, double v) { s.session.attention.content.temperature = v; })},
        {&F::threads, Group::Attention, "--threads", "N",
         "Worker threads (default 0: every core). Example: --threads 2",
         wholeNumberIn(0, 1024, "", [](S& s, std::int64_t v) { s.threads = static_cast<unsigned>(v); })},
        // Stats and render.
        {&F::query, Group::Stats, "--query", "I",
         "Query row for the per-row figures, 0..Q-1 or -1 for the last row (default -1). Example: --query 15",
         wholeNumber([](S& s, std::int64_t v) { s.session.queryRow = v; })},
        {&F::batchRow, Group::Stats, "--batch-row", "N",
         "With a batch (--lengths, --documents, ...): which row of the (B, H, T, T) tensor to measure or draw, "
         "0..B-1 (default 0); render draws its masked cells in the mask's grey. Example: --batch-row 2",
         wholeNumber([](S& s, std::int64_t v) { s.batchRow = v; })},
        // Render.
        {&F::what, Group::Render, "--what", "WHAT",
         "What to draw: bias or attention (PNG heatmap), slopes, distance (bias vs distance) or "
         "attention-distance (attention vs distance for --query) as SVG curves; render also draws schemes (ALiBi "
         "beside RoPE, sinusoidal, T5, KERPLE, Sandwich; SVG or PNG), slope-schemes, stages, extrapolation (SVG) and "
         "compare (PNG). Example: --what attention",
         applyWhat},
        {&F::head, Group::Render, "--head", "N",
         "One head alone instead of the grid of every head (curves: highlight it). Example: --head 3", applyHead},
        {&F::colormap, Group::Render, "--colormap", "MAP",
         "Colour map: viridis (default), magma, cividis (colour-blind safe), diverging. Example: --colormap magma",
         oneOf<Colormap>(parseColormap, "viridis, magma, cividis, diverging",
                         [](S& s, Colormap v) { s.session.colormap = v; })},
        {&F::scale, Group::Render, "--scale", "SCALE",
         "Colour scale of a grid: shared (default) or per-head. Example: --scale per-head",
         oneOf<ScaleMode>(parseScaleMode, "shared, per-head", [](S& s, ScaleMode v) { s.session.scale = v; })},
        {&F::width, Group::Render, "--width", "PIXELS", "Image width in pixels (default 1024). Example: --width 800",
         wholeNumberIn(16, kMaxImageSide, " pixels",
                       [](S& s, std::int64_t v) { s.session.width = static_cast<int>(v); })},
        {&F::height, Group::Render, "--height", "PIXELS", "Image height in pixels (default 768). Example: --height 600",
         wholeNumberIn(16, kMaxImageSide, " pixels",
                       [](S& s, std::int64_t v) { s.session.height = static_cast<int>(v); })},
        {&F::reduce, Group::Render, "--reduce", "HOW",
         "What a pixel covering several cells shows: auto (default: mean for the bias, max over the keys for "
         "attention), mean, max, sum. Example: --reduce sum",
         oneOf<Reduce>(parseReduce, "auto, mean, max, sum", [](S& s, Reduce v) { s.reduce = v; })},
        {&F::logScale, Group::Render, "--log-scale", "",
         "Attention heatmaps: colours on a log10 scale (attention spans orders of magnitude). Example: --log-scale",
         [](const Flag&, const SessionFlags&, S& s) -> Result<void> {
             s.logScale = true;
             return {};
         }},
        {&F::pixelRatio, Group::Render, "--pixel-ratio", "N",
         "PNG figures drawn at N times the pixels of --width x --height, 1 (default), 2 or 4: text, lines and "
         "the heatmap rendered at that resolution (for slides and print), not an upscaled image. Example: "
         "--pixel-ratio 2",
         [](const Flag& flag, const SessionFlags&, S& s) -> Result<void> {
             auto value = parseIntegerFlag(flag);
             if (!value) return std::unexpected(value.error());
             auto ratio = checkPixelRatio(*value);  // the core's rule, Python's too
             if (!ratio) return std::unexpected(ratio.error());
             s.pixelRatio = *ratio;
             return {};
         }},
        // Compare (render --what compare): B is A with these replaced; "same" keeps A's.
        {&F::bScheme, Group::Render, "--b-scheme", "NAME",
         "Compare's B: slope scheme press, geometric (default), linear, custom (needs --b-slopes), or same (A's). "
         "Example: --b-scheme linear",
         sameOr<SlopeScheme>(parseScheme, "press, geometric, linear, custom, same",
                             [](S& s, std::optional<SlopeScheme> v) { s.compareB.scheme = v; })},
        {&F::bMaxBias, Group::Render, "--b-max-bias", "B",
         "Compare's B: max_bias (default: A's), or same. Example: --b-max-bias 16",
         [](const Flag& flag, const SessionFlags&, S& s) -> Result<void> {
             if (flag.value == "same") {
                 s.compareB.maxBias.reset();
                 return {};
             }
             auto value = parseNumberFlag(flag);
             if (!value) return std::unexpected(value.error());
             s.compareB.maxBias = *value;  // its range: checkParameterLimits on B
             return {};
         }},
        {&F::bSlopes, Group::Render, "--b-slopes", "M,M,...",
         "Compare's B: custom slopes, one per head of A; implies --b-scheme custom. Example: --b-slopes 0.5,0.25",
         [](const Flag& flag, const SessionFlags& f, S& s) -> Result<void> {
             auto list = parseSlopeList(flag);
             if (!list) return std::unexpected(list.error());
             const int heads = s.session.attention.bias.slopes.heads;
             if (static_cast<int>(list->size()) != heads)
                 return fail(ErrorCode::InvalidArgument,
                             fmt::format("--b-slopes lists {} slope(s) but A has {} head(s): give one slope per head",
                                         list->size(), heads));
             if (f.bScheme.given() && s.compareB.scheme != SlopeScheme::Custom)
                 return fail(ErrorCode::InvalidArgument,
                             fmt::format("--b-slopes implies --b-scheme custom, but --b-scheme {} was given: drop one "
                                         "of them",
                                         f.bScheme.value));
             s.compareB.scheme = SlopeScheme::Custom;
             s.compareB.custom = std::move(*list);
             return {};
         }},
        {&F::bMode, Group::Render, "--b-mode", "MODE",
         "Compare's B: bias form causal, symmetric, clamped, bloom, mpt, or same (default). Example: --b-mode bloom",
         sameOr<BiasMode>(parseMode, "causal, symmetric, clamped, bloom, mpt, same",
                          [](S& s, std::optional<BiasMode> v) { s.compareB.mode = v; })},
        {&F::bDtype, Group::Render, "--b-dtype", "DTYPE",
         "Compare's B: dtype f32, f64, f16, bf16, or same (default). Example: --b-dtype bf16",
         sameOr<DType>(parseDType, "f32, f64, f16, bf16, same",
                       [](S& s, std::optional<DType> v) { s.compareB.dtype = v; })},
        {&F::bMask, Group::Render, "--b-mask", "VALUE",
         "Compare's B: mask value -1e9, -inf, min, a finite number, or same (default). Example: --b-mask min",
         [](const Flag& flag, const SessionFlags&, S& s) -> Result<void> {
             if (flag.value == "same") {
                 s.compareB.mask.reset();
                 return {};
             }
             auto mask = parseMask(flag.value);
             if (!mask)
                 return fail(
                     ErrorCode::InvalidArgument,
                     fmt::format("--b-mask must be -1e9, -inf, min, a finite number or same, got '{}'", flag.value));
             s.compareB.mask = *mask;
             return {};
         }},
        // Batches.
        {&F::lengths, Group::Batch, "--lengths", "L1,L2,...",
         "A batch: one sequence per row with this many real tokens, padded to --seq; the tensor becomes "
         "(B, H, T, T) (layout bhqk). Example: --lengths 5,8,3 --seq 8",
         lengthList([](S& s, std::vector<std::int64_t> v) { s.batch.lengths = std::move(v); })},
        {&F::padding, Group::Batch, "--padding", "SIDE",
         "Where padding goes: right (default) or left (generation batches). Example: --padding left",
         oneOf<Padding>(parsePadding, "left, right", [](S& s, Padding v) { s.batch.padding = v; })},
        {&F::documents, Group::Batch, "--documents", "D1,D2,...",
         "Packed documents in every row (lengths in tokens): keys of another document are masked, as "
         "llm-foundry's sequence_id does. Example: --documents 3,5",
         lengthList([](S& s, std::vector<std::int64_t> v) { s.batch.documents = std::move(v); })},
        {&F::window, Group::Batch, "--window", "W",
         "Sliding-window attention: keys at distance W or more are masked. Example: --window 4",
         wholeNumber([](S& s, std::int64_t v) { s.batch.window = v; })},
        {&F::prefix, Group::Batch, "--prefix", "P",
         "Prefix-LM: the first P tokens attend to each other in both directions. Example: --prefix 3",
         wholeNumber([](S& s, std::int64_t v) { s.batch.prefix = v; })},
        {&F::positions, Group::Batch, "--positions", "RULE",
         "ALiBi positions: mask (default; BLOOM's cumsum(attention_mask) - 1, padding-independent), naive (the raw "
         "index: the left-padding bug), document (restart in each packed document). Example: --positions naive",
         oneOf<PositionRule>(parsePositionRule, "mask, naive, document",
                             [](S& s, PositionRule v) { s.batch.positions = v; })},
    };
    return table;
}

void addGroup(CLI::App& cmd, SessionFlags& f, Group group) {
    for (const FlagSpec& spec : flagTable()) {
        if (spec.group != group) continue;
        Flag& flag = f.*spec.flag;
        if (spec.typeName.empty()) {
            // A switch: given or not, no value.
            flag.option = cmd.add_flag(spec.names, spec.help);
            flag.name = spec.names;
        } else {
            addFlag(cmd, flag, spec.names, spec.typeName, spec.help);
        }
    }
}

}  // namespace

void addCommonFlags(CLI::App& cmd, SessionFlags& f) {
    addGroup(cmd, f, Group::Common);
}

void addSessionFlags(CLI::App& cmd, SessionFlags& f, FlagLevel level) {
    addCommonFlags(cmd, f);
    for (const Group group : {Group::Slopes, Group::Bias, Group::Attention, Group::Stats, Group::Render})
        if (static_cast<int>(group) - static_cast<int>(Group::Slopes) <= static_cast<int>(level))
            addGroup(cmd, f, group);
}

void addBatchFlags(CLI::App& cmd, SessionFlags& f) {
    addGroup(cmd, f, Group::Batch);
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
            return fail(loaded.error().code, fmt::format("--config: {}", loaded.error().message));  // names the file
        s = std::move(*loaded);
        noteInput(f.config.value);
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
    // Compare's B: the session's, else geometric slopes (as both explorers), overridden flag by flag.
    settings.compareB = s.compare.value_or(explore::geometricCompare());
    // A session's batch section, overridden flag by flag.
    settings.batch = s.batch;
    if (settings.batch.active() && f.lengths.option != nullptr) settings.batchLayout = true;

    bool batchFlagGiven = false;
    for (const FlagSpec& spec : flagTable()) {
        const Flag& flag = f.*spec.flag;
        if (!spec.apply || !flag.given()) continue;
        if (auto ok = spec.apply(flag, f, settings); !ok) return std::unexpected(ok.error());
        batchFlagGiven = batchFlagGiven || spec.group == Group::Batch;
    }

    const BiasParams& b = s.attention.bias;
    if ((f.seq.given() || f.keys.given()) && b.queries > b.keyCount() && !quiet())
        // Valid (the first Q - K rows sit before every key and are fully masked in the causal
        // forms), but rarely meant: a KV cache has at least as many keys as queries.
        fmt::print(stderr,
                   "alibi: warning: --seq {} is larger than --keys {}: query i sits at position i + K - Q, so the "
                   "first {} row(s) face no earlier key (fully masked in causal, bloom and mpt); did you mean "
                   "--seq {} --keys {}?\n",
                   b.queries, b.keyCount(), b.queries - b.keyCount(), b.keyCount(), b.queries);

    // Any batch flag (even --padding or --positions alone) asks for a (B, H, T, T) batch tensor.
    if (batchFlagGiven) settings.batchLayout = true;
    if (settings.batch.active() || settings.batchLayout)
        if (auto ok = validateBatch(b, settings.batch); !ok) return std::unexpected(ok.error());
    if (f.batchRow.given() && (settings.batchRow < 0 || settings.batchRow >= settings.batch.batchSize()))
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("--batch-row must be between 0 and {} (B - 1: the batch has {} row(s)), got {}",
                                settings.batch.batchSize() - 1, settings.batch.batchSize(), settings.batchRow));

    if (s.queryRow < -1 || s.queryRow >= b.queries)
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("--query must be between 0 and {} (Q - 1), or -1 for the last row; got {}",
                                b.queries - 1, s.queryRow));
    return settings;
}

}  // namespace alibi::cli
