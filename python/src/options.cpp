// Keyword arguments -> Session (options.hpp). Ranges and messages follow the CLI's flags, with
// the Python keyword in place of the flag name.
#include "options.hpp"

#include "errors.hpp"

#include <alibi/base/data_dir.hpp>
#include <alibi/base/dtype.hpp>
#include <alibi/base/field_names.hpp>
#include <alibi/base/image_size.hpp>
#include <alibi/explore/editing.hpp>
#include <alibi/explore/snapshot.hpp>
#include <alibi/figure/figure.hpp>
#include <alibi/io/output_file.hpp>
#include <alibi/io/preset.hpp>
#include <alibi/model/batch.hpp>
#include <alibi/model/params.hpp>
#include <alibi/render/colormap.hpp>
#include <alibi/render/render.hpp>

#include <dlfcn.h>

#include <fmt/format.h>
#include <cmath>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

namespace py = pybind11;

namespace alibi::python {
namespace {

[[noreturn]] void bad(const std::string& message) {
    throw py::value_error(message);
}

std::string reprOf(const py::handle& value) {
    return py::repr(value).cast<std::string>();
}

std::int64_t wholeNumber(const std::string& name, const py::handle& value) {
    if (py::isinstance<py::bool_>(value)) bad(fmt::format("{} must be a whole number, got {}", name, reprOf(value)));
    if (py::isinstance<py::int_>(value) || py::hasattr(value, "__index__")) {
        try {
            return py::int_(py::reinterpret_borrow<py::object>(value)).cast<std::int64_t>();
        } catch (const py::cast_error&) {
            bad(fmt::format("{} is out of range: {}", name, reprOf(value)));
        }
    }
    if (py::isinstance<py::float_>(value)) {
        const double d = value.cast<double>();
        if (std::isfinite(d) && std::floor(d) == d && std::fabs(d) < 9.2e18) return static_cast<std::int64_t>(d);
    }
    bad(fmt::format("{} must be a whole number, got {}", name, reprOf(value)));
}

std::int64_t wholeInRange(const std::string& name, const py::handle& value, std::int64_t lo, std::int64_t hi,
                          std::string_view unit = {}) {
    const std::int64_t v = wholeNumber(name, value);
    if (v < lo || v > hi) bad(fmt::format("{} must be between {} and {}{}, got {}", name, lo, hi, unit, v));
    return v;
}

double finiteNumber(const std::string& name, const py::handle& value) {
    if (!py::isinstance<py::bool_>(value) &&
        (py::isinstance<py::float_>(value) || py::isinstance<py::int_>(value) || py::hasattr(value, "__float__"))) {
        const double d = py::float_(py::reinterpret_borrow<py::object>(value)).cast<double>();
        if (std::isfinite(d)) return d;
    }
    bad(fmt::format("{} must be a finite number, got {}", name, reprOf(value)));
}

std::string text(const std::string& name, const py::handle& value) {
    if (!py::isinstance<py::str>(value)) bad(fmt::format("{} must be a string, got {}", name, reprOf(value)));
    return value.cast<std::string>();
}

// Every name an enum's core parser accepts, for the message: the values the core names.
template <class Enum, class NameFn>
std::string known(NameFn nameOf, std::initializer_list<Enum> values) {
    std::string out;
    for (const Enum v : values) out += fmt::format("{}{}", out.empty() ? "" : ", ", nameOf(v));
    return out;
}

template <class Enum, class ParseFn>
Enum choice(const std::string& name, const py::handle& value, ParseFn parse, const std::string& expected) {
    const std::string s = text(name, value);
    if (auto parsed = parse(std::string_view(s))) return *parsed;
    bad(fmt::format("{} must be one of {}, got '{}'", name, expected, s));
}

DType dtypeOption(const py::handle& value, const std::string& name = "dtype") {
    // NumPy dtypes and scalar types are accepted by name (np.float16 -> "float16").
    if (!py::isinstance<py::str>(value)) {
        try {
            const py::object dt = py::module_::import("numpy").attr("dtype")(value);
            if (auto parsed = parseDType(dt.attr("name").cast<std::string>())) return *parsed;
        } catch (const py::error_already_set&) {
        }
        bad(fmt::format("{} must be one of f32, f64, f16, bf16, got {}", name, reprOf(value)));
    }
    return choice<DType>(name, value, parseDType, "f32, f64, f16, bf16");
}

MaskValue maskOption(const py::handle& value, const std::string& name = "mask") {
    if (py::isinstance<py::str>(value)) {
        const std::string s = value.cast<std::string>();
        if (auto mask = parseMask(s)) return *mask;
        bad(fmt::format("{} must be -1e9, -inf, min or a finite number, got '{}'", name, s));
    }
    if (!py::isinstance<py::bool_>(value) && (py::isinstance<py::float_>(value) || py::isinstance<py::int_>(value))) {
        const double d = py::float_(py::reinterpret_borrow<py::object>(value)).cast<double>();
        if (std::isinf(d) && d < 0) return MaskValue{MaskValue::Kind::NegInf, d};
        if (std::isfinite(d)) return MaskValue{MaskValue::Kind::Finite, d};
    }
    bad(fmt::format("{} must be -1e9, -inf, min or a finite number, got {}", name, reprOf(value)));
}

std::vector<double> slopeList(const py::handle& value, const std::string& name = "slopes") {
    // A string is read with the core's one slope-list grammar ("0.5, 1/8, 2^-3"), as the CLI and
    // both explorers read it.
    if (py::isinstance<py::str>(value)) {
        auto parsed = explore::parseSlopeList(value.cast<std::string>(), name);
        if (!parsed) bad(parsed.error().message);
        return std::move(*parsed);
    }
    if (!py::isinstance<py::sequence>(value) && !py::hasattr(value, "__iter__"))
        bad(fmt::format("slopes must be a sequence of positive numbers, one per head, got {}", reprOf(value)));
    std::vector<double> out;
    std::size_t index = 1;
    for (const py::handle item : py::iter(value)) {
        double d = 0;
        try {
            d = finiteNumber("slopes", item);
        } catch (const py::value_error&) {
            bad(
                fmt::format("slopes: value {} ({}) is not a finite number; give positive numbers, e.g. "
                            "slopes=[0.5, 0.25, 0.125]",
                            index, reprOf(item)));
        }
        if (d <= 0) bad(fmt::format("slopes: value {} is {}; every slope must be a positive finite number", index, d));
        out.push_back(d);
        ++index;
    }
    if (out.empty()) bad("slopes is empty: give one positive slope per head");
    if (out.size() > static_cast<std::size_t>(kMaxHeads))
        bad(fmt::format("slopes lists {} slopes; at most {} heads are supported", out.size(), kMaxHeads));
    return out;
}

// A core error in Python's words, as ValueError (or the exception its code maps to).
[[noreturn]] void badFrom(const std::string& name, const Error& error) {
    raise(Error{error.code, fmt::format("{}: {}", name, error.message)});
}

// Where preset= looks: share/alibi-explorer/presets relative to this extension, as the CLI looks
// relative to its program (an installed copy and the build tree alike; alibi/base/data_dir.hpp).
std::vector<std::filesystem::path> presetFolders() {
    Dl_info info{};
    std::filesystem::path here;
    if (::dladdr(reinterpret_cast<void*>(&presetFolders), &info) != 0 && info.dli_fname != nullptr)
        here = std::filesystem::absolute(info.dli_fname).parent_path();
    std::vector<std::filesystem::path> folders;
    for (const auto& dir : here.empty() ? dataDirs() : dataDirs(here)) folders.push_back(dir / "presets");
    return folders;
}

// lengths= and documents=: a sequence of whole numbers (a list, a tuple, a NumPy array), or the
// explorers' text "16, 12, 9".
std::vector<std::int64_t> lengthListOption(const std::string& name, const py::handle& value) {
    if (py::isinstance<py::str>(value)) {
        auto parsed = parseLengthList(value.cast<std::string>(), name);
        if (!parsed) badFrom(name, parsed.error());
        return *parsed;
    }
    if (!py::hasattr(value, "__iter__"))
        throw py::type_error(fmt::format("{} must be a sequence of whole numbers, e.g. {}=[16, 12, 9]; got {}", name,
                                         name, reprOf(value)));
    std::vector<std::int64_t> out;
    for (const py::handle item : py::iter(value)) {
        if (out.size() >= 4096) bad(fmt::format("{} lists more than 4096 values", name));
        out.push_back(wholeNumber(name, item));
    }
    return out;
}

}  // namespace

std::optional<Preset> namedPreset(const py::object& presetName, const py::object& fromConfig) {
    std::optional<Preset> named;
    if (!presetName.is_none()) {
        auto preset = findPreset(text("preset", presetName), presetFolders());
        if (!preset) badFrom("preset", preset.error());
        named = std::move(*preset);
    }
    if (!fromConfig.is_none()) {
        const py::object& v = fromConfig;
        if (!py::isinstance<py::str>(v) && !py::hasattr(v, "__fspath__"))
            throw py::type_error(fmt::format("from_config must be a path to a config.json, got {}", reprOf(v)));
        const std::string path = py::module_::import("os").attr("fsdecode")(v).cast<std::string>();
        std::error_code ec;
        if (!std::filesystem::is_regular_file(path, ec))
            bad(fmt::format("from_config: '{}' is not a readable file", path));
        auto json = readFileText(path, std::size_t{16} << 20);
        if (!json) badFrom("from_config", json.error());
        auto preset = presetFromHfConfig(*json, path);
        if (!preset) badFrom("from_config", preset.error());
        named = std::move(*preset);
    }
    return named;
}

unsigned threadCount(const py::object& threads) {
    if (threads.is_none()) return 0;
    return static_cast<unsigned>(wholeInRange("threads", threads, 0, 1024));
}

void applyOptions(Session& s, const py::dict& options) {
    BiasParams& b = s.attention.bias;
    SlopeParams& sl = b.slopes;
    ContentParams& c = s.attention.content;
    const auto get = [&](const char* key) -> py::object {
        if (!options.contains(key)) return py::none();
        return py::reinterpret_borrow<py::object>(options[key]);
    };
    for (const auto& [key, value] : options) {
        static const char* const kKnown[] = {
            "heads",     "scheme",      "max_bias",   "slopes",   "dtype",     "seq",     "keys",        "mode",
            "mask",      "layout",      "content",    "seed",     "sigma",     "dk",      "temperature", "query",
            "what",      "head",        "colormap",   "scale",    "width",     "height",  "max_memory",  "arith",
            "preset",    "from_config", "lengths",    "padding",  "documents", "window",  "prefix",      "positions",
            "batch_row", "b_scheme",    "b_max_bias", "b_slopes", "b_mode",    "b_dtype", "b_mask"};
        const std::string k = key.cast<std::string>();
        bool ok = false;
        for (const char* name : kKnown) ok = ok || k == name;
        if (!ok) throw py::type_error(fmt::format("unknown option '{}'", k));
    }

    // A published model's parameters, then a Hugging Face config.json, before every other
    // keyword (as --preset and --from-config come before the other flags).
    if (const py::object v = get("preset"); !v.is_none()) applyPreset(s, *namedPreset(v, py::none()));
    if (const py::object v = get("from_config"); !v.is_none()) applyPreset(s, *namedPreset(py::none(), v));

    // Slopes: slopes= implies the custom scheme and gives heads its default, as --slopes does.
    const py::object slopes = get("slopes");
    if (const py::object v = get("scheme"); !v.is_none()) {
        const auto scheme = choice<SlopeScheme>(
            "scheme", v, parseScheme,
            known<SlopeScheme>(schemeName,
                               {SlopeScheme::Press, SlopeScheme::Geometric, SlopeScheme::Linear, SlopeScheme::Custom}));
        if (!slopes.is_none() && scheme != SlopeScheme::Custom)
            bad(fmt::format("slopes implies scheme='custom', but scheme='{}' was given: drop one of them",
                            schemeName(scheme)));
        sl.scheme = scheme;
    }
    const py::object heads = get("heads");
    if (!heads.is_none()) sl.heads = static_cast<int>(wholeInRange("heads", heads, 1, kMaxHeads));
    if (!slopes.is_none()) {
        auto list = slopeList(slopes);
        if (!heads.is_none() && static_cast<std::size_t>(sl.heads) != list.size())
            bad(
                fmt::format("heads={} disagrees with slopes, which lists {} slope(s): give one slope per head, or "
                            "drop heads (it defaults to the number of slopes)",
                            sl.heads, list.size()));
        sl.scheme = SlopeScheme::Custom;
        sl.heads = static_cast<int>(list.size());
        sl.custom = std::move(list);
    }
    if (const py::object v = get("max_bias"); !v.is_none()) sl.maxBias = finiteNumber("max_bias", v);
    if (const py::object v = get("dtype"); !v.is_none()) b.dtype = dtypeOption(v);
    if (const py::object v = get("arith"); !v.is_none())
        sl.arith = choice<Arith>("arith", v, parseArith,
                                 known<Arith>(arithName, {Arith::Exact, Arith::HfBloom, Arith::HfFalcon,
                                                          Arith::LlmFoundry, Arith::Fairseq, Arith::Ggml}));

    // Bias.
    if (const py::object v = get("seq"); !v.is_none()) b.queries = wholeInRange("seq", v, 1, kMaxLength);
    if (const py::object v = get("keys"); !v.is_none())
        b.keys = wholeInRange("keys", v, 1, kMaxLength, " (or None to equal seq)");
    if (const py::object v = get("mode"); !v.is_none())
        b.mode = choice<BiasMode>("mode", v, parseMode,
                                  known<BiasMode>(modeName, {BiasMode::Causal, BiasMode::Symmetric, BiasMode::Clamped,
                                                             BiasMode::Bloom, BiasMode::Mpt}));
    if (const py::object v = get("mask"); !v.is_none()) b.mask = maskOption(v);
    if (const py::object v = get("layout"); !v.is_none())
        b.layout = choice<Layout>("layout", v, parseLayout,
                                  known<Layout>(layoutName, {Layout::Hqk, Layout::Qkh, Layout::OneHqk, Layout::Flat}));

    // Attention content.
    if (const py::object v = get("content"); !v.is_none())
        c.kind = choice<ContentKind>(
            "content", v, parseContent,
            known<ContentKind>(contentName, {ContentKind::Zero, ContentKind::Gaussian, ContentKind::Qk}));
    if (const py::object v = get("seed"); !v.is_none()) {
        if (py::isinstance<py::bool_>(v) || !py::isinstance<py::int_>(v))
            bad(fmt::format("seed must be a whole number from 0 to 2**64-1, got {}", reprOf(v)));
        try {
            if (v.cast<py::int_>() < py::int_(0)) throw py::cast_error();
            c.seed = v.cast<std::uint64_t>();
        } catch (const py::cast_error&) {
            bad(fmt::format("seed must be a whole number from 0 to 2**64-1, got {}", reprOf(v)));
        }
    }
    if (const py::object v = get("sigma"); !v.is_none()) {
        c.sigma = finiteNumber("sigma", v);
        if (c.sigma < 0) bad(fmt::format("sigma must be zero or positive, got {}", c.sigma));
    }
    if (const py::object v = get("dk"); !v.is_none()) c.dk = static_cast<int>(wholeInRange("dk", v, 1, 4096));
    if (const py::object v = get("temperature"); !v.is_none()) {
        c.temperature = finiteNumber("temperature", v);
        if (c.temperature <= 0) bad(fmt::format("temperature must be positive, got {}", c.temperature));
    }

    // Stats and render.
    if (const py::object v = get("query"); !v.is_none()) s.queryRow = wholeNumber("query", v);
    if (s.queryRow < -1 || s.queryRow >= b.queries)
        bad(fmt::format("query must be between 0 and {} (seq - 1), or -1 for the last row; got {}", b.queries - 1,
                        s.queryRow));
    if (const py::object v = get("what"); !v.is_none())
        s.what = choice<RenderWhat>("what", v, parseRenderWhat,
                                    known<RenderWhat>(renderWhatName, {RenderWhat::Bias, RenderWhat::Attention,
                                                                       RenderWhat::Slopes, RenderWhat::Distance}));
    if (const py::object v = get("head"); !v.is_none()) {
        const std::int64_t h = wholeNumber("head", v);
        if (h < -1 || h >= sl.heads)
            bad(fmt::format("head must be between 0 and {} (heads - 1), or -1 for every head; got {}", sl.heads - 1,
                            h));
        s.head = static_cast<int>(h);
    }
    if (const py::object v = get("colormap"); !v.is_none())
        s.colormap = choice<Colormap>("colormap", v, parseColormap,
                                      known<Colormap>(colormapName, {Colormap::Viridis, Colormap::Magma,
                                                                     Colormap::Cividis, Colormap::Diverging}));
    if (const py::object v = get("scale"); !v.is_none())
        s.scale = choice<ScaleMode>("scale", v, parseScaleMode,
                                    known<ScaleMode>(scaleModeName, {ScaleMode::Shared, ScaleMode::PerHead}));
    if (const py::object v = get("width"); !v.is_none())
        s.width = static_cast<int>(wholeInRange("width", v, 16, kMaxImageSide, " pixels"));
    if (const py::object v = get("height"); !v.is_none())
        s.height = static_cast<int>(wholeInRange("height", v, 16, kMaxImageSide, " pixels"));
    // Batches (padded and packed sequences, windows, prefix-LM), as the CLI's batch flags; the
    // rules are the core's (validateBatch), checked once every keyword is in.
    BatchParams& batch = s.batch;
    if (const py::object v = get("lengths"); !v.is_none()) batch.lengths = lengthListOption("lengths", v);
    if (const py::object v = get("padding"); !v.is_none())
        batch.padding = choice<Padding>("padding", v, parsePadding, "left, right");
    if (const py::object v = get("documents"); !v.is_none()) batch.documents = lengthListOption("documents", v);
    if (const py::object v = get("window"); !v.is_none()) batch.window = wholeNumber("window", v);
    if (const py::object v = get("prefix"); !v.is_none()) batch.prefix = wholeNumber("prefix", v);
    if (const py::object v = get("positions"); !v.is_none())
        batch.positions = choice<PositionRule>("positions", v, parsePositionRule, "mask, naive, document");
    if (batch.active())
        if (auto ok = validateBatch(b, batch); !ok) raise(ok.error());
    if (const py::object v = get("batch_row"); !v.is_none()) {
        const std::int64_t row = wholeNumber("batch_row", v);
        if (row < 0 || row >= batch.batchSize())
            bad(fmt::format("batch_row must be between 0 and {} (B - 1: the batch has {} row(s)), got {}",
                            batch.batchSize() - 1, batch.batchSize(), row));
        s.batchRow = row;
    }

    // Compare's B (render what="compare"), as --b-scheme, --b-max-bias, ...: A with these
    // replaced, "same" keeping A's; the session's B, else geometric slopes (as the CLI and both
    // explorers). B's ranges are the core's, checked when the view is computed.
    const auto same = [](const py::object& v) { return py::isinstance<py::str>(v) && v.cast<std::string>() == "same"; };
    CompareOverrides compare = s.compare.value_or(explore::geometricCompare());
    bool compareGiven = false;
    if (const py::object v = get("b_scheme"); !v.is_none()) {
        compareGiven = true;
        if (same(v))
            compare.scheme.reset();
        else
            compare.scheme =
                choice<SlopeScheme>("b_scheme", v, parseScheme,
                                    known<SlopeScheme>(schemeName, {SlopeScheme::Press, SlopeScheme::Geometric,
                                                                    SlopeScheme::Linear, SlopeScheme::Custom}) +
                                        ", same");
    }
    if (const py::object v = get("b_max_bias"); !v.is_none()) {
        compareGiven = true;
        if (same(v))
            compare.maxBias.reset();
        else
            compare.maxBias = finiteNumber("b_max_bias", v);
    }
    if (const py::object v = get("b_slopes"); !v.is_none()) {
        compareGiven = true;
        auto list = slopeList(v, "b_slopes");
        if (static_cast<int>(list.size()) != sl.heads)
            bad(fmt::format("b_slopes lists {} slope(s) but A has {} head(s): give one slope per head", list.size(),
                            sl.heads));
        if (compare.scheme && *compare.scheme != SlopeScheme::Custom && !get("b_scheme").is_none())
            bad(fmt::format("b_slopes implies b_scheme='custom', but b_scheme='{}' was given: drop one of them",
                            schemeName(*compare.scheme)));
        compare.scheme = SlopeScheme::Custom;
        compare.custom = std::move(list);
    }
    if (const py::object v = get("b_mode"); !v.is_none()) {
        compareGiven = true;
        if (same(v))
            compare.mode.reset();
        else
            compare.mode =
                choice<BiasMode>("b_mode", v, parseMode,
                                 known<BiasMode>(modeName, {BiasMode::Causal, BiasMode::Symmetric, BiasMode::Clamped,
                                                            BiasMode::Bloom, BiasMode::Mpt}) +
                                     ", same");
    }
    if (const py::object v = get("b_dtype"); !v.is_none()) {
        compareGiven = true;
        if (same(v))
            compare.dtype.reset();
        else
            compare.dtype = dtypeOption(v, "b_dtype");
    }
    if (const py::object v = get("b_mask"); !v.is_none()) {
        compareGiven = true;
        if (same(v))
            compare.mask.reset();
        else
            compare.mask = maskOption(v, "b_mask");
    }
    if (compareGiven) s.compare = std::move(compare);

    if (const py::object v = get("max_memory"); !v.is_none()) {
        const std::int64_t bytes = wholeNumber("max_memory", v);
        if (bytes <= 0) bad(fmt::format("max_memory must be a positive number of bytes, got {}", bytes));
        s.maxMemory = static_cast<std::uint64_t>(bytes);
    }
}

}  // namespace alibi::python
