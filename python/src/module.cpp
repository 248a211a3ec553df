// alibi_explorer._core: the Python module's native part, a thin layer over alibi::core. The
// public functions (with their keyword signatures and docstrings) are in alibi_explorer/
// __init__.py; each passes its keywords here as a dict, so the names, defaults and checks live
// once, in options.cpp and the core. Every long call releases the GIL.
#include "arrays.hpp"
#include "errors.hpp"
#include "interrupt.hpp"
#include "options.hpp"
#include "progress.hpp"

#include <alibi/analysis/diagnose.hpp>
#include <alibi/analysis/diagnosis_report.hpp>
#include <alibi/analysis/fit_report.hpp>
#include <alibi/analysis/head_fit.hpp>
#include <alibi/explore/attention_maps_view.hpp>
#include <alibi/explore/snapshot.hpp>
#include <alibi/figure/figure.hpp>
#include <alibi/figure/maps_file_figure.hpp>
#include <alibi/figure/render_views.hpp>
#include <alibi/figure/view_figure.hpp>
#include <alibi/io/attention_maps.hpp>
#include <alibi/io/export_plan.hpp>
#include <alibi/io/output_file.hpp>
#include <alibi/io/session.hpp>
#include <alibi/io/tensor_io.hpp>
#include <alibi/lm/checkpoint.hpp>
#include <alibi/lm/forward.hpp>
#include <alibi/lm/run_input.hpp>
#include <alibi/lm/run_report.hpp>
#include <alibi/model/attention.hpp>
#include <alibi/model/batch.hpp>
#include <alibi/model/batch_attention.hpp>
#include <alibi/model/bias.hpp>
#include <alibi/model/slopes.hpp>
#include <alibi/model/stats.hpp>
#include <alibi/model/stats_report.hpp>
#include <alibi/render/figure_output.hpp>
#include <alibi/render/png.hpp>
#include <alibi/render/slope_schemes.hpp>

#include <pybind11/stl.h>

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#ifndef ALIBI_VERSION
#define ALIBI_VERSION "0.0.0"
#endif

namespace py = pybind11;

namespace alibi::python {
namespace {

// The session a call starts from (a copy of `base`, or the CLI's defaults) with `options` on top.
Session sessionFor(const py::object& base, const py::dict& options) {
    Session s = base.is_none() ? defaultSession() : base.cast<const Session&>();
    applyOptions(s, options);
    return s;
}

// Whether the call asks for a batch tensor (B, H, T, T): any batch keyword, or a session whose
// batch section is active (as --config with a batch, or any batch flag, in the CLI).
bool wantsBatch(const Session& s, const py::dict& options) {
    for (const char* key : {"lengths", "padding", "documents", "window", "prefix", "positions"})
        if (options.contains(key)) return true;
    return s.batch.active();
}

std::string pathText(const py::object& path, const char* what) {
    if (!py::isinstance<py::str>(path) && !py::hasattr(path, "__fspath__"))
        throw py::type_error(
            fmt::format("{} must be a path (str or os.PathLike), got {}", what, py::repr(path).cast<std::string>()));
    return py::module_::import("os").attr("fsdecode")(path).cast<std::string>();
}

py::array slopes(const py::object& base, const py::dict& options) {
    const Session s = sessionFor(base, options);
    const BiasParams& b = s.attention.bias;
    auto values = unwrap(computeSlopes(b.slopes));
    // The (H,) tensor `alibi slopes -o x.npy` writes: each slope rounded once to the dtype.
    Tensor tensor(Shape{b.slopes.heads}, b.dtype);
    for (std::size_t h = 0; h < values.size(); ++h) tensor.set(h, values[h]);
    return toNumpy(std::move(tensor));
}

py::array bias(const py::object& base, const py::dict& options, const py::object& threads, const py::object& callback) {
    const Session s = sessionFor(base, options);
    const unsigned n = threadCount(threads);
    const bool batch = wantsBatch(s, options);
    const BiasParams& b = s.attention.bias;
    // The CLI's export rule: a finite mask the dtype cannot hold is refused, not turned into -inf
    // (padding and document boundaries of a batch hold the mask whatever the mode).
    if (auto reason = maskOverflowReason(b.dtype, batch ? std::optional(b.mask) : storedMask(b)))
        throw py::value_error(*reason);
    Progress progress(callback);
    Result<Tensor> result;
    {
        py::gil_scoped_release release;
        // buildBias has no progress callback: a bias fills at memory bandwidth (2 GiB in well
        // under a second), so the only report is the final one.
        result = batch ? buildBatchBias(b, s.batch, s.maxMemory) : buildBias(b, s.maxMemory, n);
        if (result) {
            const std::uint64_t size = result->size();
            if (!progress.fn()(size, size)) result = fail(ErrorCode::Cancelled, "cancelled by the progress callback");
        }
    }
    progress.rethrow();
    return toNumpy(unwrap(std::move(result)));
}

py::array attention(const py::object& base, const py::dict& options, const py::object& threads,
                    const py::object& callback) {
    const Session s = sessionFor(base, options);
    const unsigned n = threadCount(threads);
    const bool batch = wantsBatch(s, options);
    Progress progress(callback);
    Result<Tensor> result;
    {
        py::gil_scoped_release release;
        result = batch ? buildBatchAttention(s.attention, s.batch, s.maxMemory, progress.fn())
                       : computeAttention(s.attention, s.maxMemory, n, progress.fn());
    }
    progress.rethrow();
    return toNumpy(unwrap(std::move(result)));
}

// (text, json, csv) exactly as `alibi stats` prints them.
py::tuple stats(const py::object& base, const py::dict& options, const py::object& threads,
                const py::object& callback) {
    const Session s = sessionFor(base, options);
    const unsigned n = threadCount(threads);
    StatsParams params;
    params.attention = s.attention;
    params.queryRow = s.queryRow;
    const bool batch = wantsBatch(s, options);
    Progress progress(callback);
    Result<StatsResult> result;
    {
        py::gil_scoped_release release;
        result = batch ? computeBatchStats(params, s.batch, s.batchRow, s.maxMemory)
                       : computeStats(params, n, progress.fn());
    }
    progress.rethrow();
    const StatsResult r = unwrap(std::move(result));
    return py::make_tuple(statsText(r, s.attention), statsJson(r, s.attention), statsCsv(r));
}

// (text, json, borrowed): the reports of `alibi diagnose`, and whether the core read the
// caller's memory in place. `source` is a path (str) or an array.
// heads=, preset= and from_config= of diagnose, as `alibi diagnose --heads/--preset/--from-config`:
// the core checks the head count and splits with the model's.
DiagnoseOptions diagnoseOptions(const py::object& heads, const py::object& preset, const py::object& fromConfig) {
    DiagnoseOptions o;
    if (!heads.is_none()) {
        if (py::isinstance<py::bool_>(heads) || !py::isinstance<py::int_>(heads))
            throw py::type_error(
                fmt::format("heads must be a whole number, got {}", py::repr(heads).cast<std::string>()));
        const auto h = heads.cast<long long>();
        // Out of range is the core's refusal, with its words.
        o.heads = static_cast<int>(
            std::clamp<long long>(h, std::numeric_limits<int>::min(), std::numeric_limits<int>::max()));
    }
    if (!preset.is_none() && !fromConfig.is_none())
        throw py::value_error("give preset= or from_config=, not both: diagnose checks the tensor against one model");
    if (auto named = namedPreset(preset, fromConfig)) o.model = modelConvention(*named);
    return o;
}

py::tuple diagnoseAny(const py::object& source, const std::string& name, const py::object& maxMemory,
                      const py::object& heads, const py::object& preset, const py::object& fromConfig) {
    const DiagnoseOptions diagnoseWith = diagnoseOptions(heads, preset, fromConfig);
    py::dict options;
    options["max_memory"] = maxMemory;
    const Session s = sessionFor(py::none(), options);
    std::optional<LoadedTensor> loaded;
    Tensor borrowedTensor;
    py::object keepAlive;
    bool borrowed = false;
    const Tensor* tensor = nullptr;
    if (py::isinstance<py::str>(source)) {
        const std::string path = source.cast<std::string>();
        Result<LoadedTensor> result;
        InterruptScope interrupt;
        {
            py::gil_scoped_release release;
            result = loadTensor(path, s.maxMemory);
        }
        interrupt.check();
        if (!result) raise(Error{result.error().code, fmt::format("{}: {}", path, result.error().message)});
        loaded = std::move(*result);
        tensor = &loaded->tensor;
    } else {
        borrowedTensor = fromNumpy(source, keepAlive, &borrowed);
        tensor = &borrowedTensor;
    }
    Result<Diagnosis> diagnosis;
    {
        py::gil_scoped_release release;
        diagnosis = diagnose(*tensor, diagnoseWith);
    }
    const Diagnosis d = unwrap(std::move(diagnosis));
    return py::make_tuple(diagnosisText(d, name, tensor->shape(), tensor),
                          diagnosisJson(d, name, tensor->shape(), tensor), borrowed);
}

// A heatmap figure as PNG bytes plus its RGBA pixels (H, W, 4), as `alibi render` draws it.
py::tuple renderHeatmap(const py::object& base, const py::dict& options, const py::object& threads,
                        const py::object& callback, int scale) {
    const Session s = sessionFor(base, options);
    const unsigned n = threadCount(threads);
    if (s.what != RenderWhat::Bias && s.what != RenderWhat::Attention)
        throw py::value_error("what must be bias or attention for a heatmap");
    // The CLI's figure of the grid (or one head): renderViewFigurePng, at the pixel ratio.
    ViewFigureRequest request;
    request.session = s;
    if (!wantsBatch(s, options)) request.session.batch = BatchParams{};
    request.session.compare = s.compare.value_or(explore::geometricCompare());
    request.view = s.head >= 0 ? ExplorerView::Detail : ExplorerView::Grid;
    request.heightGiven = options.contains("height");
    request.scale = scale;
    request.threads = n;
    Progress progress(callback);
    request.progress = progress.fn();
    Result<Image> image;
    Result<std::vector<std::uint8_t>> png;
    {
        py::gil_scoped_release release;
        image = renderViewFigurePng(request);
        if (image) png = encodePng(*image);
    }
    progress.rethrow();
    const Image img = unwrap(std::move(image));
    const auto bytes = unwrap(std::move(png));
    py::array_t<std::uint8_t> rgba({img.height, img.width, 4});
    std::memcpy(rgba.mutable_data(), img.pixels.data(), img.pixels.size() * sizeof(Rgba));
    return py::make_tuple(py::bytes(reinterpret_cast<const char*>(bytes.data()), bytes.size()), rgba);
}

// SVG curves, as `alibi render --what slopes|distance|attention-distance` writes them.
std::string renderCurves(const py::object& base, const py::dict& options, const std::string& kind,
                         const py::object& callback) {
    ViewFigureRequest request;
    request.session = sessionFor(base, options);
    request.view = ExplorerView::Curves;
    const auto parsed = parseCurveKind(kind);
    if (!parsed)
        throw py::value_error(
            fmt::format("what must name curves (slopes, distance, attention-distance), got '{}'", kind));
    request.curves = *parsed;
    Progress progress(callback);
    request.progress = progress.fn();
    Result<std::string> svg;
    {
        py::gil_scoped_release release;
        // The explorers' and the CLI's figure of the curves view, byte for byte.
        svg = renderViewFigureSvg(request);
    }
    progress.rethrow();
    return unwrap(std::move(svg));
}

// An explorer view beyond the heatmaps and curves, as `alibi render --what VIEW` draws it: stages,
// schemes (position schemes), extrapolation, compare. PNG (bytes, RGBA pixels) at `scale`, or SVG
// text for the views drawn from lines and text.
py::tuple renderView(const py::object& base, const py::dict& options, const std::string& view, bool svg, int scale,
                     const py::object& maxDistance, const py::object& quantity, const py::object& threads,
                     const py::object& callback) {
    ViewFigureRequest request;
    request.session = sessionFor(base, options);
    request.session.compare = request.session.compare.value_or(explore::geometricCompare());
    if (view == "slope-schemes") {
        // The core's slope-schemes figure, as `alibi render --what slope-schemes` draws it.
        if (!maxDistance.is_none() || !quantity.is_none())
            throw py::value_error(
                "max_distance and quantity belong to what='schemes' (the position-schemes figure): drop "
                "them or render what='schemes'");
        const Session& s = request.session;
        auto plot = unwrap(slopeSchemesPlot(s.attention.bias.slopes, s.width, s.height));
        if (svg) return py::make_tuple(plotSvg(plot.first, plot.second), py::none());
        Result<Image> image;
        Result<std::vector<std::uint8_t>> png;
        {
            py::gil_scoped_release release;
            image = plotPng(plot.first, plot.second, scale);
            if (image) png = encodePng(*image);
        }
        const Image img = unwrap(std::move(image));
        const auto bytes = unwrap(std::move(png));
        py::array_t<std::uint8_t> rgba({img.height, img.width, 4});
        std::memcpy(rgba.mutable_data(), img.pixels.data(), img.pixels.size() * sizeof(Rgba));
        return py::make_tuple(py::bytes(reinterpret_cast<const char*>(bytes.data()), bytes.size()), rgba);
    }
    if (view == "stages")
        request.view = ExplorerView::Stages;
    else if (view == "schemes")
        request.view = ExplorerView::PositionSchemes;
    else if (view == "extrapolation")
        request.view = ExplorerView::Extrapolation;
    else if (view == "compare")
        request.view = ExplorerView::Compare;
    else if (const auto curves = parseCurveKind(view)) {
        request.view = ExplorerView::Curves;
        request.curves = *curves;
    } else
        throw py::value_error(
            fmt::format("what '{}' is not an explorer view (stages, schemes, extrapolation, compare)", view));
    if ((!maxDistance.is_none() || !quantity.is_none()) && request.view != ExplorerView::PositionSchemes)
        throw py::value_error(
            "max_distance and quantity belong to what='schemes' (the position-schemes figure): drop "
            "them or render what='schemes'");
    if (!maxDistance.is_none()) request.schemesMaxDistance = maxDistance.cast<std::int64_t>();
    if (!quantity.is_none()) {
        const auto q = quantity.cast<std::string>();
        if (q == "logit")
            request.schemesQuantity = SchemeQuantity::Logit;
        else if (q == "attention")
            request.schemesQuantity = SchemeQuantity::Attention;
        else
            throw py::value_error(fmt::format("quantity '{}' is not known: use logit or attention", q));
    }
    if (svg && !viewFigureIsVector(request.view))
        throw py::value_error(fmt::format("what '{}' draws a heatmap, which is PNG: use format='png'", view));
    request.scale = scale;
    request.threads = threadCount(threads);
    Progress progress(callback);
    request.progress = progress.fn();
    Result<std::string> text;
    Result<Image> image;
    Result<std::vector<std::uint8_t>> png;
    {
        py::gil_scoped_release release;
        if (svg) {
            text = renderViewFigureSvg(request);
        } else {
            image = renderViewFigurePng(request);
            if (image) png = encodePng(*image);
        }
    }
    progress.rethrow();
    if (svg) return py::make_tuple(unwrap(std::move(text)), py::none());
    const Image img = unwrap(std::move(image));
    const auto bytes = unwrap(std::move(png));
    py::array_t<std::uint8_t> rgba({img.height, img.width, 4});
    std::memcpy(rgba.mutable_data(), img.pixels.data(), img.pixels.size() * sizeof(Rgba));
    return py::make_tuple(py::bytes(reinterpret_cast<const char*>(bytes.data()), bytes.size()), rgba);
}

// Saved attention maps from a path, or from .npy bytes (an array the caller saved), opened with
// the GIL released and Ctrl-C honoured. `bytes` owns what the maps read.
struct OpenedMaps {
    std::shared_ptr<const std::string> bytes;
    std::optional<AttentionMaps> maps;
    std::string name;  // the path, or "<array>"
};

py::object optionOf(const py::dict& options, const char* key) {
    return options.contains(key) ? py::reinterpret_borrow<py::object>(options[key]) : py::object(py::none());
}

OpenedMaps openMaps(const py::object& source, const py::dict& fileOptions) {
    OpenedMaps out;
    std::string path;
    if (py::isinstance<py::bytes>(source)) {
        out.bytes = std::make_shared<const std::string>(source.cast<std::string>());
        out.name = "<array>";
    } else {
        path = pathText(source, "the attention maps");
        out.name = path;
    }
    AttentionOpenOptions open;
    if (const py::object v = optionOf(fileOptions, "name"); !v.is_none()) out.name = v.cast<std::string>();
    if (const py::object v = optionOf(fileOptions, "tensor"); !v.is_none()) open.tensor = v.cast<std::string>();
    if (const py::object v = optionOf(fileOptions, "batch"); !v.is_none()) {
        const auto b = v.cast<std::int64_t>();
        if (b < 0 || b > 1'000'000) throw py::value_error(fmt::format("batch: {} is not a batch element index", b));
        open.batch = static_cast<int>(b);
    }
    if (const py::object v = optionOf(fileOptions, "values"); !v.is_none()) {
        const auto text = v.cast<std::string>();
        open.values = parseAttentionValues(text);
        if (!open.values)
            throw py::value_error(fmt::format("values: '{}' is unknown (expected probabilities or scores)", text));
    }
    Result<AttentionMaps> opened = fail(ErrorCode::Internal, "not opened");
    InterruptScope interrupt;
    {
        py::gil_scoped_release release;
        opened = out.bytes ? AttentionMaps::fromBytes(std::as_bytes(std::span(out.bytes->data(), out.bytes->size())),
                                                      false, open)
                           : AttentionMaps::open(path, open);
    }
    interrupt.check();
    out.maps = unwrap(std::move(opened));
    return out;
}

// `alibi fit`: (text, json, csv) of a file (path) or of .npy bytes (an array the caller saved),
// the same core calls in the same order as the CLI.
py::tuple fit(const py::object& source, const py::dict& fitOptions, const py::dict& slopeOptions, bool slopesGiven,
              bool headsNamed, const py::object& threads, const py::object& callback) {
    const Session s = sessionFor(py::none(), slopeOptions);
    const unsigned n = threadCount(threads);
    HeadFitOptions options;
    options.threads = n;
    FitReportOptions reportOptions;
    if (const py::object v = optionOf(fitOptions, "rows"); !v.is_none()) {
        const auto range = unwrap(parseRowRange(v.cast<std::string>()));
        options.firstRow = reportOptions.firstRow = range.first;
        options.lastRow = reportOptions.lastRow = range.second;
    }
    if (const py::object v = optionOf(fitOptions, "order"); !v.is_none()) {
        const auto text = v.cast<std::string>();
        const auto order = parseHeadOrder(text);
        if (!order)
            throw py::value_error(fmt::format("order: '{}' is unknown (expected index, slope or similarity)", text));
        reportOptions.order = *order;
    }
    if (const py::object v = optionOf(fitOptions, "similarity"); !v.is_none()) {
        const auto text = v.cast<std::string>();
        reportOptions.similarity = parseSimilarityBasis(text);
        if (!reportOptions.similarity)
            throw py::value_error(fmt::format("similarity: '{}' is unknown (expected profile or map)", text));
    }
    reportOptions.threads = n;
    const OpenedMaps opened = openMaps(source, fitOptions);
    const AttentionMaps& maps = *opened.maps;
    if (const py::object layer = optionOf(fitOptions, "layer"); !layer.is_none()) {
        const auto number = layer.cast<std::int64_t>();
        options.layers.push_back(
            unwrap(maps.layerIndexOf(number >= 0 && number <= 1'000'000 ? static_cast<int>(number) : -1)));
    }
    std::vector<double> configured;
    if (slopesGiven) configured = unwrap(fitConfiguredSlopes(s.attention.bias.slopes, headsNamed, maps.heads()));
    configured = explore::pairedSlopes(maps, std::move(configured));  // none named: the file's own
    Progress progress(callback);
    options.progress = progress.fn();
    Result<FitReport> report = fail(ErrorCode::Internal, "not fitted");
    {
        py::gil_scoped_release release;
        auto fits = fitHeads(maps, options, configured);
        if (!fits)
            report = std::unexpected(fits.error());
        else
            report = makeFitReport(maps, std::move(*fits), opened.name, reportOptions);
    }
    progress.rethrow();
    const FitReport r = unwrap(std::move(report));
    return py::make_tuple(fitText(r, maps), fitJson(r, maps), fitCsv(r));
}

// `alibi render FILE --what attention|overview|similarity|fit|row|heads`: (PNG bytes, RGBA pixels) or
// (SVG text, None), the figure the core chooses (render/maps_file_figure.hpp).
py::tuple renderMaps(const py::object& source, const py::dict& fileOptions, const py::object& base,
                     const py::dict& options, bool slopesGiven, const std::string& what, const py::object& layer,
                     const py::object& head, const py::object& query, bool svg, int scale, const py::object& threads,
                     const py::object& callback, const py::object& versus) {
    const Session s = sessionFor(base, options);
    MapsFileFigureRequest request;
    if (!versus.is_none()) request.versus = versus.cast<std::string>();
    const auto kind = parseMapsFigureKind(what);
    if (!kind)
        throw py::value_error(
            fmt::format("what '{}' cannot draw attention maps from a file (expected attention, "
                        "overview, similarity, fit, row or heads)",
                        what));
    request.what = *kind;
    if (!layer.is_none())
        request.layer = static_cast<int>(std::clamp<std::int64_t>(layer.cast<std::int64_t>(), -1, 1 << 20));
    if (!head.is_none())
        request.head = static_cast<int>(std::clamp<std::int64_t>(head.cast<std::int64_t>(), -1, 1 << 20));
    if (!query.is_none()) request.query = query.cast<std::int64_t>();
    if (request.head < -1 || request.query < -1)
        throw py::value_error("head and query must be 0 or more, or -1 (every head; the last row)");
    if (slopesGiven) request.configured = unwrap(computeSlopes(s.attention.bias.slopes));
    request.colormap = s.colormap;
    request.scale = s.scale;
    request.width = s.width;
    request.height = s.height;
    request.heightGiven = options.contains("height");
    request.pixelRatio = scale;
    request.svg = svg;
    request.threads = threadCount(threads);
    const OpenedMaps opened = openMaps(source, fileOptions);
    request.configured = explore::pairedSlopes(*opened.maps, std::move(request.configured));  // else the file's
    Progress progress(callback);
    request.progress = progress.fn();
    Result<MapsFileFigure> figure = fail(ErrorCode::Internal, "not drawn");
    Result<std::vector<std::uint8_t>> png;
    {
        py::gil_scoped_release release;
        figure = renderMapsFileFigure(*opened.maps, request);
        if (figure && figure->image) png = encodePng(*figure->image);
    }
    progress.rethrow();
    const MapsFileFigure f = unwrap(std::move(figure));
    if (!f.image) return py::make_tuple(f.svg, py::none());
    const auto bytes = unwrap(std::move(png));
    const Image& img = *f.image;
    py::array_t<std::uint8_t> rgba({img.height, img.width, 4});
    std::memcpy(rgba.mutable_data(), img.pixels.data(), img.pixels.size() * sizeof(Rgba));
    return py::make_tuple(py::bytes(reinterpret_cast<const char*>(bytes.data()), bytes.size()), rgba);
}

void writeFile(const std::string& path, const py::bytes& content) {
    const std::string data = content;
    Result<void> result;
    InterruptScope interrupt;
    {
        py::gil_scoped_release release;
        result = writeFileAtomic(path, data);
    }
    interrupt.check();
    unwrap(std::move(result));
}

// Session files: read and written with the GIL released (a FIFO waits for its other end) and
// stopped by Ctrl-C, as the CLI is.
Session loadSessionFile(const py::object& file) {
    const std::string path = pathText(file, "path");
    Result<Session> result;
    InterruptScope interrupt;
    {
        py::gil_scoped_release release;
        result = loadSession(path);
    }
    interrupt.check();
    return unwrap(std::move(result));
}

void saveSessionFile(const Session& s, const py::object& file) {
    const std::string path = pathText(file, "path");
    Result<void> result;
    InterruptScope interrupt;
    {
        py::gil_scoped_release release;
        result = saveSession(s, path);
    }
    interrupt.check();
    unwrap(std::move(result));
}

void registerSession(py::module_& m) {
    py::class_<Session>(m, "Session", R"doc(
Every parameter of a session file (``*.alibi.json``), read and written by the same core code as
the Qt and ImGui explorers and ``alibi --config``, so the files are identical.

Example:
    >>> s = alibi_explorer.Session(heads=12, seq=64, mode="bloom")
    >>> s.save("bloom12.alibi.json")             # opens in alibi-explorer
    >>> alibi_explorer.Session.load("bloom12.alibi.json").to_dict()["bias"]["heads"]
    12
)doc")
        .def(py::init([](const py::kwargs& options) { return sessionFor(py::none(), options); }),
             "Session(**options): the CLI's defaults with the given options (the keywords of bias(), "
             "attention(), stats() and render()) on top.")
        .def_static("load", &loadSessionFile, py::arg("path"),
                    "Reads a session file; a bad field raises ValueError naming it.\n\nExample:\n"
                    "    >>> s = alibi_explorer.Session.load('assets/sessions/mpt-7b.alibi.json')")
        .def_static(
            "from_json", [](const std::string& text) { return unwrap(parseSession(text)); }, py::arg("text"),
            "Parses a session document from a JSON string.\n\nExample:\n"
            "    >>> alibi_explorer.Session.from_json('{\"version\": 1}') == alibi_explorer.Session()\n    True")
        .def("to_json", &serializeSession, "The session document exactly as save() writes it.")
        .def("save", &saveSessionFile, py::arg("path"),
             "Writes the session file atomically (the same bytes the GUIs write).\n\nExample:\n"
             "    >>> alibi_explorer.Session(heads=4).save('four.alibi.json')")
        .def(
            "replace", [](const Session& s, const py::kwargs& options) { return sessionFor(py::cast(s), options); },
            "A copy with the given options changed.\n\nExample:\n    >>> s2 = s.replace(seq=4096)")
        .def(
            "cli_command",
            [](const Session& s, const std::string& subcommand, const std::string& output) {
                return cliCommand(s, subcommand, output);
            },
            py::arg("subcommand") = "bias", py::arg("output") = "bias.npy",
            "The `alibi` command line that reproduces this session's tensor.")
        .def("__eq__", [](const Session& a, const Session& b) { return a == b; })
        .def("__repr__", [](const Session& s) {
            const BiasParams& b = s.attention.bias;
            return fmt::format("<alibi_explorer.Session heads={} seq={} keys={} mode={} scheme={} dtype={}>",
                               b.slopes.heads, b.queries, b.keyCount(), modeName(b.mode), schemeName(b.slopes.scheme),
                               dtypeName(b.dtype));
        });
}

// ---------------------------------------------------------------------------
// Language models (alibi::lm): run(), loss()

// The slope keywords given (slope_scale=, ...), into `given`: each replaces the session's value.
void slopeChangeInto(const py::dict& change, lm::RunValues& given) {
    if (change.contains("scale")) given.scale = change["scale"].cast<double>();
    if (change.contains("max_bias")) given.maxBias = change["max_bias"].cast<double>();
    if (change.contains("scheme")) {
        const auto name = change["scheme"].cast<std::string>();
        const auto scheme = parseScheme(name);
        if (!scheme || *scheme == SlopeScheme::Custom)
            throw py::value_error(fmt::format("slope_scheme must be press, geometric or linear, got '{}'", name));
        given.scheme = *scheme;
    }
    if (change.contains("head_slopes")) {
        std::map<int, double> heads;
        for (const auto& [head, slope] : change["head_slopes"].cast<py::dict>())
            heads[head.cast<int>()] = slope.cast<double>();
        given.headSlopes = std::move(heads);
    }
}

// session=: a Session, or a session file's path (named in messages as the CLI's --config names it).
std::optional<lm::SessionModel> sessionModel(const py::object& session) {
    if (session.is_none()) return std::nullopt;
    if (py::isinstance<Session>(session)) return lm::SessionModel{"given", session.cast<const Session&>().live};
    const std::string path = pathText(session, "session");
    Result<Session> loaded = loadSession(path);
    return lm::SessionModel{path, unwrap(std::move(loaded)).live};
}

template <class T>
py::array_t<T> vectorArray(const std::vector<T>& values, std::vector<py::ssize_t> shape) {
    py::array_t<T> out(shape);
    if (!values.empty()) std::memcpy(out.mutable_data(), values.data(), values.size() * sizeof(T));
    return out;
}

// A dict of NumPy arrays: attention (L, H, T, T) or None, loss (T-1,), logits (T, V) or None,
// slopes (H,), ids (T,), tokens (list of str), mean_loss; written to `output` when given.
py::dict lmRun(const py::object& model, const py::object& text, const py::object& ids, const py::object& length,
               const py::dict& change, const py::object& session, bool attention, bool logits, const py::object& output,
               const py::object& maxMemory, const py::object& threads, const py::object& callback) {
    // The session first, then the keywords given: lm::resolveRunInput, as `alibi run` / `alibi loss`.
    lm::RunValues given;
    if (!model.is_none()) given.model = pathText(model, "model");
    if (!text.is_none()) given.text = text.cast<std::string>();
    if (!ids.is_none()) {
        std::vector<std::int64_t> list;
        for (const auto& id : ids) list.push_back(id.cast<std::int64_t>());
        given.ids = std::move(list);
    }
    if (!length.is_none()) given.length = length.cast<std::int64_t>();
    slopeChangeInto(change, given);
    const std::string outPath = output.is_none() ? std::string() : pathText(output, "output");
    const lm::RunInput input = unwrap(lm::resolveRunInput(sessionModel(session), given));
    lm::ForwardOptions options;
    options.threads = threadCount(threads);
    options.keepAttention = attention;
    options.keepLogits = logits;
    if (!maxMemory.is_none()) options.budget = maxMemory.cast<std::uint64_t>();
    Progress progress(callback);
    lm::PreparedRun prepared = unwrap(lm::prepareRun(input));
    const lm::Checkpoint& checkpoint = prepared.model;
    const lm::RunTokens& tokens = prepared.tokens;
    options.slopes = prepared.change;
    options.progress = progress.fn();
    Result<lm::ForwardResult> result;
    {
        py::gil_scoped_release release;
        result = outPath.empty() ? lm::runForward(checkpoint, tokens.ids, options)
                                 : lm::runToMapsFile(checkpoint, tokens, options, outPath);
    }
    progress.rethrow();
    lm::ForwardResult r = unwrap(std::move(result));
    const auto T = static_cast<py::ssize_t>(tokens.ids.size());
    const lm::LmConfig& c = checkpoint.config();
    py::dict out;
    out["attention"] = attention ? py::object(vectorArray(r.attention, {c.layers, c.heads, T, T})) : py::none();
    out["logits"] = logits ? py::object(vectorArray(r.logits, {T, static_cast<py::ssize_t>(c.vocab)})) : py::none();
    out["loss"] = vectorArray(r.loss, {T - 1});
    out["mean_loss"] = r.meanLoss;
    out["slopes"] = vectorArray(r.slopes, {static_cast<py::ssize_t>(r.slopes.size())});
    out["ids"] = vectorArray(tokens.ids, {T});
    out["tokens"] = tokens.text;
    out["description"] = lm::describe(c);
    return out;
}

}  // namespace
}  // namespace alibi::python

PYBIND11_MODULE(_core, m) {
    using namespace alibi::python;
    m.doc() = "Native part of alibi_explorer (use the functions of alibi_explorer itself).";
    m.attr("__version__") = ALIBI_VERSION;
    registerErrors(m);
    registerArrays(m);
    registerSession(m);
    const auto base = py::arg("session").none(true);
    const auto options = py::arg("options");
    const auto threads = py::arg("threads").none(true) = py::none();
    const auto progress = py::arg("progress").none(true) = py::none();
    m.def("slopes", &slopes, base, options);
    m.def("bias", &bias, base, options, threads, progress);
    m.def("attention", &attention, base, options, threads, progress);
    m.def("stats", &stats, base, options, threads, progress);
    m.def("diagnose", &diagnoseAny, py::arg("source"), py::arg("name"), py::arg("max_memory").none(true),
          py::arg("heads").none(true) = py::none(), py::arg("preset").none(true) = py::none(),
          py::arg("from_config").none(true) = py::none());
    m.def("render_heatmap", &renderHeatmap, base, options, threads, progress, py::arg("scale") = 1);
    m.def("render_view", &renderView, base, options, py::arg("view"), py::arg("svg"), py::arg("scale"),
          py::arg("max_distance").none(true), py::arg("quantity").none(true), threads, progress);
    m.def("render_maps", &renderMaps, py::arg("source"), py::arg("file_options"), base, options,
          py::arg("slopes_given"), py::arg("what"), py::arg("layer").none(true), py::arg("head").none(true),
          py::arg("query").none(true), py::arg("svg"), py::arg("scale"), threads, progress,
          py::arg("versus").none(true) = py::none());
    m.def("fit", &fit, py::arg("source"), py::arg("fit_options"), py::arg("slope_options"), py::arg("slopes_given"),
          py::arg("heads_named"), threads, progress);
    m.def("render_curves", &renderCurves, base, options, py::arg("kind"), progress);
    m.def("lm_run", &lmRun, py::arg("model").none(true), py::arg("text").none(true), py::arg("ids").none(true),
          py::arg("length").none(true), py::arg("change"), py::arg("session").none(true), py::arg("attention"),
          py::arg("logits"), py::arg("output").none(true), py::arg("max_memory").none(true), threads, progress);
    m.def("write_file", &writeFile, py::arg("path"), py::arg("content"));
    // pixel_ratio= of render: the core's rule (as --pixel-ratio), worded with Python's keywords.
    m.def(
        "check_figure_output",
        [](std::int64_t pixelRatio, bool svg) { unwrap(alibi::checkFigureOutput(pixelRatio, svg)); },
        py::arg("pixel_ratio"), py::arg("svg"));
    m.def("render_views", [] {
        std::vector<std::string> names;
        for (const std::string_view name : alibi::renderViewNames()) names.emplace_back(name);
        return names;
    });
}
