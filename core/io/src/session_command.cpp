// The `alibi` command line that reproduces a session: only the flags that differ from the
// defaults, quoted for a POSIX shell.
#include <alibi/io/session.hpp>

#include <fmt/format.h>

namespace alibi {

namespace {

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

std::string liveCliCommand(const LiveModelParams& live) {
    if (live.path.empty()) return {};
    std::string cmd = fmt::format("alibi loss {} --text {}", shellQuote(live.path), shellQuote(live.text));
    const SlopeChange& c = live.change;
    if (live.length > 0) cmd += fmt::format(" --length {}", live.length);
    if (c.scale != 1.0) cmd += fmt::format(" --slope-scale {}", c.scale);
    if (c.scheme) cmd += fmt::format(" --slope-scheme {}", schemeName(*c.scheme));
    if (c.maxBias) cmd += fmt::format(" --slope-max-bias {}", *c.maxBias);
    if (!c.headSlopes.empty()) {
        std::string heads;
        for (const auto& [head, slope] : c.headSlopes)
            heads += fmt::format("{}{}={}", heads.empty() ? "" : ",", head, slope);
        cmd += " --head-slope " + heads;
    }
    return cmd;
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
    // The batch flags (alibi bias takes them; `lengthListText` spaces are dropped for one argument).
    if (subcommand == "bias" && s.batch.active()) {
        const auto list = [](const std::vector<std::int64_t>& v) {
            std::string out;
            for (const auto x : v) out += (out.empty() ? "" : ",") + std::to_string(x);
            return out;
        };
        if (!s.batch.lengths.empty()) add("--lengths", list(s.batch.lengths));
        if (s.batch.padding != Padding::Right) add("--padding", paddingName(s.batch.padding));
        if (!s.batch.documents.empty()) add("--documents", list(s.batch.documents));
        if (s.batch.window > 0) add("--window", std::to_string(s.batch.window));
        if (s.batch.prefix > 0) add("--prefix", std::to_string(s.batch.prefix));
        if (s.batch.positions != PositionRule::Mask) add("--positions", positionRuleName(s.batch.positions));
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

}  // namespace alibi
