// `alibi render FILE`: pictures of saved attention maps (see the header); every picture comes
// from the core (render/attention_maps_render.hpp), this file only chooses and writes it.
#include "render_maps.hpp"

#include "inputs.hpp"
#include "options.hpp"
#include "progress_bar.hpp"

#include <alibi/explore/attention_maps_view.hpp>
#include <alibi/figure/attention_maps_plots.hpp>
#include <alibi/figure/attention_maps_render.hpp>
#include <alibi/figure/maps_file_figure.hpp>
#include <alibi/io/attention_maps.hpp>
#include <alibi/render/png.hpp>

#include <fmt/format.h>

namespace alibi::cli {

Result<void> renderAttentionFile(const RenderMapsRequest& r) {
    noteInput(r.file);
    if (auto ok = checkNotAnInput(r.output); !ok) return ok;
    AttentionOpenOptions open;
    open.tensor = r.tensor;
    open.batch = r.batch;
    if (!r.values.empty()) {
        open.values = parseAttentionValues(r.values);
        if (!open.values)
            return fail(ErrorCode::InvalidArgument,
                        fmt::format("--values: '{}' is unknown (expected probabilities or scores)", r.values));
    }
    auto maps = AttentionMaps::open(r.file, open);
    if (!maps) return std::unexpected(maps.error());

    const auto what = parseMapsFigureKind(r.what);
    if (!what)
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("--what '{}' cannot draw attention maps from a file (expected attention, overview, "
                                "similarity, fit, row or heads)",
                                r.what));
    const auto format = formatFromPath(r.output);
    if (format != FileFormat::Png && !mapsFigureIsVector(*what))
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("--what {} draws {}; give -o FILE.png", r.what,
                                *what == MapsFigureKind::Overview ? "a heatmap of every layer"
                                : *what == MapsFigureKind::Heads  ? "heatmaps"
                                                                  : "a heatmap"));
    // The figure is the core's choice (render/maps_file_figure.hpp, Python's too); this only writes it.
    MapsFileFigureRequest request;
    request.what = *what;
    request.layer = r.layer;
    request.head = r.head;
    request.query = r.query;
    request.configured = explore::pairedSlopes(*maps, r.configured);  // else the file's own
    request.colormap = r.colormap;
    request.scale = r.scale;
    request.reduce = r.reduce;
    request.logScale = r.logScale;
    request.maxDistance = r.maxDistance;
    request.versus = r.versus;
    request.heightGiven = r.heightGiven;
    request.width = r.width;
    request.height = r.height;
    request.pixelRatio = r.pixelRatio;
    request.svg = format == FileFormat::Svg;
    request.threads = r.threads;
    // Rows of a large file come from disk: a bar on a terminal, and Ctrl+C stops cleanly.
    ProgressBar bar("drawing");
    request.progress = bar.callback();
    auto figure = renderMapsFileFigure(*maps, request);
    bar.finish();
    if (!figure) return std::unexpected(figure.error());
    if (figure->image) return writePng(*figure->image, r.output);
    return writeText(r.output, figure->svg);
}

}  // namespace alibi::cli
