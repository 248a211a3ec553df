// alibi_explorer._core: the Python module's native part, a thin layer over alibi::core. The
// public functions (with their keyword signatures and docstrings) are in alibi_explorer/
// __init__.py; each passes its keywords here as a dict, so the names, defaults and checks live
// once, in options.cpp and the core. Every long call releases the GIL.
#include "arrays.hpp"
#include "errors.hpp"
#include "options.hpp"
#include "progress.hpp"

#include <alibi/analysis/diagnose.hpp>
#include <alibi/analysis/diagnosis_report.hpp>
#include <alibi/io/output_file.hpp>
#include <alibi/io/session.hpp>
#include <alibi/io/tensor_io.hpp>
#include <alibi/model/attention.hpp>
#include <alibi/model/bias.hpp>
#include <alibi/model/slopes.hpp>
#include <alibi/model/stats.hpp>
#include <alibi/model/stats_report.hpp>
#include <alibi/figure/figure.hpp>
#include <alibi/render/png.hpp>
#include <alibi/figure/view_figure.hpp>
#include <alibi/figure/render_views.hpp>

#include <pybind11/stl.h>

#include <fmt/format.h>

#include <cstring>
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
    Progress progress(callback);
    Result<Tensor> result;
    {
        py::gil_scoped_release release;
        const BiasParams& b = s.attention.bias;
        // buildBias has no progress callback: a bias fills at memory bandwidth (2 GiB in well
        // under a second), so the only report is the final one.
        result = buildBias(b, s.maxMemory, n);
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
    Progress progress(callback);
    Result<Tensor> result;
    {
        py::gil_scoped_release release;
        result = computeAttention(s.attention, s.maxMemory, n, progress.fn());
    }
    progress.rethrow();
    return toNumpy(unwrap(std::move(result)));
}

// (text, json, csv) exactly as `alibi stats` prints them.
py::tuple stats(const py::object& base, const py::dict& options, const py::object& threads, const py::object& callback) {
    const Session s = sessionFor(base, options);
    const unsigned n = threadCount(threads);
    StatsParams params;
    params.attention = s.attention;
    params.queryRow = s.queryRow;
    Progress progress(callback);
    Result<StatsResult> result;
    {
        py::gil_scoped_release release;
        result = computeStats(params, n, progress.fn());
    }
    progress.rethrow();
    const StatsResult r = unwrap(std::move(result));
    return py::make_tuple(statsText(r, s.attention), statsJson(r, s.attention), statsCsv(r));
}

// (text, json, borrowed): the reports of `alibi diagnose`, and whether the core read the
// caller's memory in place. `source` is a path (str) or an array.
py::tuple diagnoseAny(const py::object& source, const std::string& name, const py::object& maxMemory) {
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
        {
            py::gil_scoped_release release;
            result = loadTensor(path, s.maxMemory);
        }
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
        diagnosis = diagnose(*tensor);
    }
    const Diagnosis d = unwrap(std::move(diagnosis));
    return py::make_tuple(diagnosisText(d, name, tensor->shape()), diagnosisJson(d, name, tensor->shape()), borrowed);
}

// A heatmap figure as PNG bytes plus its RGBA pixels (H, W, 4), as `alibi render` draws it.
py::tuple renderHeatmap(const py::object& base, const py::dict& options, const py::object& threads,
                        const py::object& callback) {
    const Session s = sessionFor(base, options);
    const unsigned n = threadCount(threads);
    if (s.what != RenderWhat::Bias && s.what != RenderWhat::Attention)
        throw py::value_error("what must be bias or attention for a heatmap");
    const HeatmapParams params = heatmapParams(s);
    Progress progress(callback);
    Result<Image> image;
    Result<std::vector<std::uint8_t>> png;
    {
        py::gil_scoped_release release;
        image = renderHeatmapFigure(params, n, progress.fn());
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
    if (!parsed) throw py::value_error(fmt::format("what must name curves (slopes, distance, attention-distance), got '{}'", kind));
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

void writeFile(const std::string& path, const py::bytes& content) {
    const std::string data = content;
    Result<void> result;
    {
        py::gil_scoped_release release;
        result = writeFileAtomic(path, data);
    }
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
        .def_static(
            "load", [](const std::string& path) { return unwrap(loadSession(path)); }, py::arg("path"),
            "Reads a session file; a bad field raises ValueError naming it.\n\nExample:\n"
            "    >>> s = alibi_explorer.Session.load('assets/sessions/mpt-7b.alibi.json')")
        .def_static(
            "from_json", [](const std::string& text) { return unwrap(parseSession(text)); }, py::arg("text"),
            "Parses a session document from a JSON string.\n\nExample:\n"
            "    >>> alibi_explorer.Session.from_json('{\"version\": 1}') == alibi_explorer.Session()\n    True")
        .def("to_json", &serializeSession, "The session document exactly as save() writes it.")
        .def(
            "save", [](const Session& s, const std::string& path) { unwrap(saveSession(s, path)); }, py::arg("path"),
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
    m.def("diagnose", &diagnoseAny, py::arg("source"), py::arg("name"), py::arg("max_memory").none(true));
    m.def("render_heatmap", &renderHeatmap, base, options, threads, progress);
    m.def("render_curves", &renderCurves, base, options, py::arg("kind"), progress);
    m.def("write_file", &writeFile, py::arg("path"), py::arg("content"));
    m.def("render_views", [] {
        std::vector<std::string> names;
        for (const std::string_view name : alibi::renderViewNames()) names.emplace_back(name);
        return names;
    });
}
