// `alibi render`: every explorer view as the finished figure the explorers export
// (render/view_figure.hpp): PNG at 1x/2x/4x for all, SVG too for the views drawn from lines and
// text. Figures come whole from the core; this file maps the flags to a request and writes them.
#include "commands.hpp"
#include "options.hpp"
#include "progress_bar.hpp"
#include "render_maps.hpp"

#include <alibi/base/image_size.hpp>
#include <alibi/explore/compute.hpp>
#include <alibi/explore/progress_text.hpp>
#include <alibi/figure/figure.hpp>
#include <alibi/figure/maps_file_figure.hpp>
#include <alibi/figure/position_schemes_figure.hpp>
#include <alibi/figure/render_views.hpp>
#include <alibi/figure/view_figure.hpp>
#include <alibi/model/slopes.hpp>
#include <alibi/render/figure_output.hpp>
#include <alibi/render/plot.hpp>
#include <alibi/render/png.hpp>
#include <alibi/render/render.hpp>
#include <alibi/render/slope_schemes.hpp>

#include <fmt/format.h>
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace alibi::cli {
namespace {

constexpr std::array kFormats{FileFormat::Png, FileFormat::Svg};

struct RenderCommand {
    SessionFlags flags;
    OutputFlags output;
    // A trained model's saved attention maps (render_maps.hpp): FILE, then which part of it.
    std::string file;
    std::string tensor, values;
    std::optional<int> layer;
    int batch = 0;
    // --what schemes: the distance axis d = 0..D and what is drawn on it.
    std::optional<std::int64_t> maxDistance;
    std::optional<std::string> quantity;
    std::string versus;     // --vs: side B of --what heads
    bool progress = false;  // --progress: on stderr even when it is not a terminal
};

// `alibi render FILE --what attention|overview|similarity|fit|row`: the session flags give the picture's
// size, colours, head and (when named) the model's slopes; the maps come from the file.
Result<void> renderFile(const RenderCommand& original) {
    RenderCommand c = original;
    const std::string what = c.flags.what.given() ? c.flags.what.value : "attention";
    c.flags.what.value = "attention";  // the session flags know no overview, similarity, fit or row
    // --what heads takes A as --head LAYER:HEAD too (or --layer L --head H).
    if (const auto colon = c.flags.head.value.find(':'); c.flags.head.given() && colon != std::string::npos) {
        if (what != "heads")
            return fail(ErrorCode::InvalidArgument,
                        fmt::format("--head {}: LAYER:HEAD names a head for --what heads; give a head number",
                                    c.flags.head.value));
        if (c.layer)
            return fail(ErrorCode::InvalidArgument,
                        fmt::format("--head {} names its layer; drop --layer {}", c.flags.head.value, *c.layer));
        Flag layer = c.flags.head;
        layer.name = "--head";
        layer.value = c.flags.head.value.substr(0, colon);
        auto number = parseIntegerFlag(layer);
        if (!number) return std::unexpected(number.error());
        c.layer = static_cast<int>(std::clamp<std::int64_t>(*number, -(1 << 20), 1 << 20));
        c.flags.head.value = c.flags.head.value.substr(colon + 1);
    }
    // --head and --query are checked against the file's heads and rows, not the session's.
    const auto fileIndex = [](Flag& flag, const char* what) -> Result<std::int64_t> {
        if (!flag.given()) return -1;
        auto value = parseIntegerFlag(flag);
        if (!value) return std::unexpected(value.error());
        if (*value < -1)
            return fail(ErrorCode::InvalidArgument,
                        fmt::format("{} {}: give a {} of the file, 0 or more, or -1 for {}", flag.name, *value, what,
                                    flag.name == "--head" ? "every head" : "the last"));
        flag.value = "-1";
        return *value;
    };
    const auto head = fileIndex(c.flags.head, "head");
    if (!head) return std::unexpected(head.error());
    const auto query = fileIndex(c.flags.query, "query row");
    if (!query) return std::unexpected(query.error());
    auto settings = buildSettings(c.flags);
    if (!settings) return std::unexpected(settings.error());
    auto target = resolveOutput(c.output, kFormats, std::nullopt);
    if (!target) return std::unexpected(target.error());
    if (c.flags.pixelRatio.given())
        if (auto ok = checkFigureOutput(settings->pixelRatio, target->format != FileFormat::Png); !ok) return ok;
    const Session& s = settings->session;
    if (const int longest = std::max(s.width, s.height) * settings->pixelRatio; longest > kMaxImageSide)
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("--width/--height {} at --pixel-ratio {} make {} pixels, more than {}: lower the "
                                "size or the ratio",
                                std::max(s.width, s.height), settings->pixelRatio, longest, kMaxImageSide));
    RenderMapsRequest r;
    r.file = c.file;
    r.what = what;
    r.tensor = c.tensor;
    r.layer = c.layer;
    r.batch = c.batch;
    r.values = c.values;
    r.head = static_cast<int>(std::min<std::int64_t>(*head, 1 << 20));
    r.query = *query;
    r.colormap = s.colormap;
    r.scale = s.scale;
    r.reduce = settings->reduce;
    r.logScale = settings->logScale;
    r.maxDistance = c.maxDistance;
    r.versus = c.versus;
    r.width = s.width;
    r.height = s.height;
    r.heightGiven = c.flags.height.given();
    r.pixelRatio = settings->pixelRatio;
    r.threads = settings->threads;
    r.output = target->path;
    const SessionFlags& f = c.flags;
    if (f.config.given() || f.preset.given() || f.fromConfig.given() || f.heads.given() || f.slopes.given()) {
        auto slopes = computeSlopes(s.attention.bias.slopes);
        if (!slopes) return std::unexpected(slopes.error());
        r.configured = std::move(*slopes);
    }
    return renderAttentionFile(r);
}

// The views `--what` names: the heatmaps (grid, or one head with --head), the three curve
// plots, and the explorer views beyond them. slope-schemes is the curves view's scheme overlay,
// drawn here (SVG or PNG through plotSvg / plotPng).
struct WhatView {
    ExplorerView view = ExplorerView::Grid;
    CurveKind curves = CurveKind::Slopes;
    bool slopeSchemes = false;
};

std::optional<WhatView> whatView(const std::string& what, const Settings& settings) {
    const Session& s = settings.session;
    if (what == "slope-schemes") return WhatView{ExplorerView::Curves, CurveKind::Slopes, true};
    if (what == "schemes") return WhatView{ExplorerView::PositionSchemes};
    if (what == "stages") return WhatView{ExplorerView::Stages};
    if (what == "extrapolation") return WhatView{ExplorerView::Extrapolation};
    if (what == "compare") return WhatView{ExplorerView::Compare};
    if (s.what == RenderWhat::Slopes) return WhatView{ExplorerView::Curves, CurveKind::Slopes};
    if (settings.attentionDistance) return WhatView{ExplorerView::Curves, CurveKind::AttentionDistance};
    if (s.what == RenderWhat::Bias || s.what == RenderWhat::Attention)
        return WhatView{s.head >= 0 ? ExplorerView::Detail : ExplorerView::Grid};
    if (s.what == RenderWhat::Distance) return WhatView{ExplorerView::Curves, CurveKind::BiasDistance};
    return std::nullopt;
}

Result<std::optional<SchemeQuantity>> schemesQuantity(const RenderCommand& c) {
    if (!c.quantity) return std::optional<SchemeQuantity>{};
    if (*c.quantity == "logit") return std::optional{SchemeQuantity::Logit};
    if (*c.quantity == "attention") return std::optional{SchemeQuantity::Attention};
    return fail(ErrorCode::InvalidArgument,
                fmt::format("--quantity {} is not known: use logit (what each scheme adds to the logit) or "
                            "attention (softmax of the bias alone, zero content)",
                            *c.quantity));
}

Result<void> run(const RenderCommand& original) {
    if (!original.file.empty()) return renderFile(original);
    if (!original.versus.empty())
        return fail(
            ErrorCode::InvalidArgument,
            "--vs compares two heads of a saved maps file: give the FILE (alibi render FILE --what heads --head "
            "L:H --vs L:H)");
    // The explorer views ride on the session flags: their base --what picks the tensor.
    RenderCommand c = original;
    const std::string what = c.flags.what.given() ? c.flags.what.value : std::string();
    const bool extra = what == "slope-schemes" || what == "schemes" || what == "stages" || what == "extrapolation" ||
                       what == "compare";
    if (extra) c.flags.what.value = what == "compare" ? "bias" : "attention";
    auto settings = buildSettings(c.flags);
    if (!settings) return std::unexpected(settings.error());
    if (!c.flags.what.given() && !c.flags.config.given())
        return fail(ErrorCode::InvalidArgument, fmt::format("--what is required: one of {}", renderViewList()));
    const auto view = whatView(what, *settings);
    if (!view)
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("--what {} has no figure: use one of {}", what, renderViewList()));
    if ((c.maxDistance || c.quantity) && view->view != ExplorerView::PositionSchemes)
        return fail(ErrorCode::InvalidArgument,
                    "--max-distance and --quantity belong to --what schemes (the position-schemes figure): drop them "
                    "or add --what schemes");
    auto target = resolveOutput(c.output, kFormats, std::nullopt);
    if (!target) return std::unexpected(target.error());
    const bool png = target->format == FileFormat::Png;
    if (c.flags.pixelRatio.given())
        if (auto ok = checkFigureOutput(settings->pixelRatio, !png); !ok) return ok;
    const bool heatmap = view->view == ExplorerView::Grid || view->view == ExplorerView::Detail;
    const bool batch = settings->batch.active() || settings->batchLayout;
    if (heatmap && batch && (settings->reduce != Reduce::Auto || settings->logScale))
        // A batch row's pixels show the cell farthest from zero (renderBatchHeatmapFigure): say
        // so rather than ignore a flag that would change nothing.
        return fail(ErrorCode::InvalidArgument,
                    "--reduce and --log-scale apply to single-sequence heatmaps; a batch row is drawn with each "
                    "pixel showing its cell farthest from zero: drop them, or drop the batch flags");
    if (!png && !viewFigureIsVector(view->view))
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("--what {} draws a heatmap, which is written as PNG: use -o FILE.png (SVG is for the "
                                "curves, stages, extrapolation and schemes)",
                                what.empty() ? std::string(renderWhatName(settings->session.what)) : what));

    ViewFigureRequest request;
    request.session = settings->session;
    if (heatmap && batch) {
        request.session.batch = settings->batch;
        request.session.batchRow = settings->batchRow;
    }
    request.session.compare = settings->compareB;
    request.view = view->view;
    request.curves = view->curves;
    request.scale = settings->pixelRatio;
    request.threads = settings->threads;
    request.reduce = settings->reduce;
    request.logScale = settings->logScale;
    request.heightGiven = c.flags.height.given();
    auto quantity = schemesQuantity(c);
    if (!quantity) return std::unexpected(quantity.error());
    if (c.maxDistance) request.schemesMaxDistance = *c.maxDistance;
    if (*quantity) request.schemesQuantity = **quantity;
    const Session& s = request.session;
    if (const int longest = std::max(s.width, s.height) * settings->pixelRatio; longest > kMaxImageSide)
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("--width/--height {} at --pixel-ratio {} make {} pixels, more than {}: lower the "
                                "size or the ratio",
                                std::max(s.width, s.height), settings->pixelRatio, longest, kMaxImageSide));

    if (view->slopeSchemes) {
        auto plot = slopeSchemesPlot(s.attention.bias.slopes, s.width, s.height);  // the core's, Python's too
        if (!plot) return std::unexpected(plot.error());
        if (!png) return writeText(target->path, plotSvg(plot->first, plot->second));
        auto image = plotPng(plot->first, plot->second, request.scale);
        if (!image) return std::unexpected(image.error());
        return writePng(*image, target->path);
    }
    // Progress in the explorers' words (explore::progressText). A costly heatmap is computed as
    // the explorers compute it while progress is shown: a first picture (its time and what it is
    // are reported), then the exact one, which is the figure written.
    ProgressBar bar("rendering", ProgressBar::Unit::Items, c.progress);
    bar.setPhase(explore::ProgressPhase::Computing);
    request.progress = bar.callback();
    if (bar.shown())
        request.firstPicture = [&bar](const HeatmapParams& pass) {
            bar.note(fmt::format("first picture after {:.1f} s: {}; refining", bar.elapsedSeconds(),
                                 explore::previewText(pass)));
            bar.setPhase(explore::ProgressPhase::Refining);
        };
    const auto done = [&bar, &c] {
        bar.finish();
        if (c.progress) bar.note(fmt::format("done after {:.1f} s", bar.elapsedSeconds()));
    };
    if (!png) {
        auto svg = renderViewFigureSvg(request);
        bar.finish();
        if (!svg) return std::unexpected(svg.error());
        auto written = writeText(target->path, *svg);
        if (written) done();
        return written;
    }
    auto image = renderViewFigurePng(request);
    bar.finish();
    if (!image) return std::unexpected(image.error());
    if (view->view == ExplorerView::Compare) {
        // The summary on stderr too, for scripts (the figure's caption says the same).
        const auto c2 = explore::computeCompare(s, settings->compareB, 16, 16);
        if (c2.error.empty() && !quiet())
            std::fprintf(stderr, "%s (B: %s)\n", c2.summary.c_str(), compareOverridesText(settings->compareB).c_str());
    }
    auto written = writePng(*image, target->path);
    if (written) done();
    return written;
}

}  // namespace

RunFn addRenderCommand(CLI::App& root) {
    auto* cmd = root.add_subcommand(
        "render",
        "An explorer view as a finished figure: PNG (--pixel-ratio 1|2|4) for every view, SVG too for the "
        "curves, stages, extrapolation and schemes");
    auto state = std::make_shared<RenderCommand>();
    addSessionFlags(*cmd, state->flags, FlagLevel::Render);
    addBatchFlags(*cmd, state->flags);
    addOutputFlags(*cmd, state->output, kFormats, /*required=*/true, /*tensorExport=*/false);
    cmd->add_option("FILE", state->file,
                    "A trained model's saved attention maps (.npy or .safetensors, as `alibi fit` reads them): draw "
                    "--what attention (one layer's heads, or --head), overview (every layer), similarity (PNG), fit "
                    "(one head's attention vs distance), row (one --query row; fit and row PNG or SVG) or heads "
                    "(--head against --vs, with the difference; PNG)")
        ->type_name("");
    cmd->add_option("--layer", state->layer, "With FILE: the layer to draw, by its number (default: the first)")
        ->type_name("N");
    cmd->add_option("--tensor", state->tensor, "With FILE: one tensor (layer) of a .safetensors file")
        ->type_name("NAME");
    cmd->add_option("--batch", state->batch, "With FILE: the batch element of a batched file (default 0)")
        ->type_name("B");
    cmd->add_option("--values", state->values, "With FILE: probabilities or scores (default: detected)")
        ->type_name("KIND");
    cmd->add_option("--max-distance", state->maxDistance,
                    "With --what schemes: the distance axis d = 0..D (default 128, at most 65536); with FILE --what "
                    "row: the keys within D of the query (default: where the row and its priors are above 1/1000 of "
                    "their peaks)")
        ->type_name("D");
    cmd->add_option("--vs", state->versus,
                    "With FILE --what heads: side B, compared with --head (A): another head as LAYER:HEAD (the "
                    "layer's number) or HEAD (of A's layer), prior (A's prior at its configured slope; give "
                    "--heads, --slopes or --config) or fitted-prior (at A's m*)")
        ->type_name("L:H|prior|fitted-prior");
    cmd->add_option("--quantity", state->quantity,
                    "With --what schemes: logit (default; what each scheme adds to the logit) or attention (softmax "
                    "of the bias alone over d = 0..D, zero content)")
        ->type_name("KIND");
    cmd->add_flag("--progress", state->progress,
                  "Show progress on stderr even when it is not a terminal (one line a second), with the time of "
                  "the first picture of a costly heatmap and of the end; on a terminal the bar shows anyway after a "
                  "second");
    cmd->footer(R"(Examples:
  alibi render --heads 8 --seq 64 --what bias -o grid.png                # every head, shared scale
  alibi render attn.npy --layer 3 --what attention -o layer3.png         # a trained model's maps
  alibi render attn.npy --layer 3 --what fit --head 5 --heads 16 -o h5.svg
  alibi render attn.npy --layer 3 --what row --head 5 --query 40 --pixel-ratio 2 -o row40.png
  alibi render attn.npy --what overview --width 1600 --height 900 -o all-layers.png
  alibi render attn.safetensors --what heads --head 3:5 --vs 7:2 -o heads.png  # A | B | B - A
  alibi render attn.safetensors --what heads --head 3:5 --vs fitted-prior -o h5-prior.png
  alibi render --heads 8 --seq 64 --what attention --head 0 --colormap magma -o head0.png
  alibi render --heads 8 --seq 64 --what bias --pixel-ratio 2 -o slide.png  # 2048 x 1536, sharp
  alibi render --heads 12 --what slopes -o slopes.svg                    # log2 axis
  alibi render --heads 8 --seq 128 --what distance -o distance.svg
  alibi render --heads 8 --seq 128 --what attention-distance --query 100 -o attn.svg
  alibi render --heads 8 --what schemes -o schemes.svg                   # ALiBi beside RoPE, T5, KERPLE...
  alibi render --heads 8 --what schemes --max-distance 512 --quantity attention --pixel-ratio 2 -o s.png
  alibi render --heads 12 --what slope-schemes -o slope-schemes.svg      # press, geometric, linear
  alibi render --heads 8 --seq 64 --what stages --head 2 --query 40 -o stages.svg
  alibi render --heads 12 --what slopes --pixel-ratio 2 -o slopes.png   # any view as PNG at 1x/2x/4x
  alibi render --heads 8 --seq 64 --what extrapolation --head 3 -o extrapolation.svg
  alibi render --heads 12 --seq 64 --what compare -o compare.png         # A - B, B: geometric slopes
  alibi render --heads 12 --seq 64 --what compare --b-scheme same --b-dtype bf16 -o rounding.png
  alibi render --heads 4 --seq 16 --what bias --lengths 16,9 --padding left --batch-row 1 -o row1.png)");
    return [state] { return run(*state); };
}

}  // namespace alibi::cli
