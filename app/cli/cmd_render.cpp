// `alibi render`: a heatmap PNG of the bias or the attention (head grid or one head, with title,
// axes, colour bar and formula caption, at 1x/2x/4x pixels), or SVG curves (slopes on a log2 axis, bias vs distance, attention vs
// distance). Figures come whole from the core (render/figure.hpp); this file only writes them.
#include "commands.hpp"
#include "options.hpp"
#include "progress_bar.hpp"
#include "render_maps.hpp"

#include <alibi/explore/compute.hpp>
#include <alibi/explore/stages.hpp>
#include <alibi/render/plot.hpp>
#include <alibi/render/figure.hpp>
#include <alibi/render/png.hpp>
#include <alibi/render/position_schemes_figure.hpp>
#include <alibi/render/render.hpp>
#include <alibi/model/slopes.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <array>
#include <fmt/format.h>
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
};

// `alibi render FILE --what attention|similarity|fit`: the session flags give the picture's
// size, colours, head and (when named) the model's slopes; the maps come from the file.
Result<void> renderFile(const RenderCommand& original) {
    RenderCommand c = original;
    const std::string what = c.flags.what.given() ? c.flags.what.value : "attention";
    c.flags.what.value = "attention";  // the session flags know no similarity or fit
    auto settings = buildSettings(c.flags);
    if (!settings) return std::unexpected(settings.error());
    auto target = resolveOutput(c.output, kFormats, std::nullopt);
    if (!target) return std::unexpected(target.error());
    if (c.flags.pixelRatio.given() && target->format != FileFormat::Png)
        return fail(ErrorCode::InvalidArgument,
                    "--pixel-ratio applies to PNG figures; SVG is vector and sharp at any size: drop --pixel-ratio");
    const Session& s = settings->session;
    if (const int longest = std::max(s.width, s.height) * settings->pixelRatio; longest > 16384)
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("--width/--height {} at --pixel-ratio {} make {} pixels, more than 16384: lower the "
                                "size or the ratio",
                                std::max(s.width, s.height), settings->pixelRatio, longest));
    RenderMapsRequest r;
    r.file = c.file;
    r.what = what;
    r.tensor = c.tensor;
    r.layer = c.layer;
    r.batch = c.batch;
    r.values = c.values;
    r.head = c.flags.head.given() ? s.head : -1;
    r.colormap = s.colormap;
    r.scale = s.scale;
    r.reduce = settings->reduce;
    r.logScale = settings->logScale;
    r.width = s.width;
    r.height = s.height;
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

Result<Image> heatmapFigure(const Settings& settings) {
    HeatmapParams params = heatmapParams(settings.session);
    params.reduce = settings.reduce;
    params.logScale = settings.logScale;
    if (settings.batch.active() || settings.batchLayout) {
        // A batch row's pixels show the cell farthest from zero (renderBatchHeatmapFigure): say
        // so rather than ignore a flag that would change nothing.
        if (settings.reduce != Reduce::Auto || settings.logScale)
            return fail(ErrorCode::InvalidArgument,
                        "--reduce and --log-scale apply to single-sequence heatmaps; a batch row is drawn with each "
                        "pixel showing its cell farthest from zero: drop them, or drop the batch flags");
        return renderBatchHeatmapFigure(params, settings.batch, settings.batchRow, settings.pixelRatio);
    }
    ProgressBar bar("rendering");
    auto image = renderHeatmapFigure(params, settings.threads, bar.callback(), settings.pixelRatio);
    bar.finish();
    return image;
}

Result<std::string> curvesSvg(const Settings& settings) {
    const Session& s = settings.session;
    CurvesParams params;
    params.attention = s.attention;
    params.kind = s.what == RenderWhat::Slopes    ? CurveKind::Slopes
                  : settings.attentionDistance ? CurveKind::AttentionDistance
                                               : CurveKind::BiasDistance;
    params.query = s.queryRow;
    params.head = s.head;
    params.width = s.width;
    params.height = s.height;
    return renderCurvesSvg(params);
}

// The explorer views beyond the heatmaps and the three curve plots, drawn by the same core
// functions the GUIs call (<alibi/explore/compute.hpp>).
enum class ExtraView { None, SlopeSchemes, PositionSchemes, Stages, Extrapolation, Compare };

ExtraView extraView(const std::string& what) {
    if (what == "slope-schemes") return ExtraView::SlopeSchemes;
    if (what == "schemes") return ExtraView::PositionSchemes;
    if (what == "stages") return ExtraView::Stages;
    if (what == "extrapolation") return ExtraView::Extrapolation;
    if (what == "compare") return ExtraView::Compare;
    return ExtraView::None;
}

// Several plots stacked in one SVG document (each a nested <svg> at its own offset).
std::string stackSvg(const std::vector<std::string>& plots, int width, int height) {
    std::string out = fmt::format("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" "
                                  "width=\"{}\" height=\"{}\">\n", width, height * static_cast<int>(plots.size()));
    for (std::size_t n = 0; n < plots.size(); ++n) {
        std::string body = plots[n];
        if (auto at = body.find("<svg"); at != std::string::npos) body = body.substr(at);
        body.insert(4, fmt::format(" x=\"0\" y=\"{}\"", static_cast<int>(n) * height));
        out += body + "\n";
    }
    return out + "</svg>\n";
}

Result<std::string> extraSvg(const Settings& settings, ExtraView view) {
    const Session& s = settings.session;
    PlotStyle style;
    style.width = s.width;
    style.height = s.height;
    const int head = std::max(s.head, 0);
    if (view == ExtraView::SlopeSchemes) {
        // The slope-scheme overlay of the curves view: press, geometric, linear (and custom) for H, B.
        std::vector<Series> lines;
        for (SlopeScheme scheme : {SlopeScheme::Press, SlopeScheme::Geometric, SlopeScheme::Linear, SlopeScheme::Custom}) {
            SlopeParams p = s.attention.bias.slopes;
            p.scheme = scheme;
            if (scheme == SlopeScheme::Custom && static_cast<int>(p.custom.size()) != p.heads) continue;
            auto one = slopeSeries(p);
            if (!one) return std::unexpected(one.error());
            one->front().label = std::string(schemeName(scheme));
            lines.push_back(std::move(one->front()));
        }
        style.title = fmt::format("Slope schemes, H = {}, B = {}", s.attention.bias.slopes.heads,
                                  s.attention.bias.slopes.maxBias);
        style.xLabel = "head";
        style.yLabel = "slope m (log2 axis)";
        style.logY2 = true;
        return plotSvg(lines, style);
    }
    if (view == ExtraView::Stages) {
        const std::int64_t query = explore::resolvedQueryRow(s);
        auto stages = attentionStages(s.attention, head, query);
        if (!stages) return std::unexpected(stages.error());
        const std::vector<double>* rows[4] = {&stages->content, &stages->withBias, &stages->masked, &stages->probabilities};
        const char* titles[4] = {"1 - content logits", "2 - + ALiBi bias (masked keys hidden)", "3 - masked, / temperature (masked keys hidden)",
                                 "4 - softmax"};
        const std::vector<bool> maskedKey = explore::stageMaskedKeys(s.attention, query);
        std::vector<std::string> plots;
        style.height = std::max(150, s.height / 4);
        for (int n = 0; n < 4; ++n) {
            Series ser{fmt::format("head {}, query {}", head, query), {}, {}};
            for (std::size_t j = 0; j < rows[n]->size(); ++j) {
                double v = (*rows[n])[j];
                // Stages 2 and 3 hold the mask value itself (-1e9 by default) at masked keys;
                // drawn, it would flatten the ALiBi slope. -inf is not drawn.
                if (!std::isfinite(v) || (explore::stageHoldsMaskValue(n) && maskedKey[j])) continue;
                ser.x.push_back(static_cast<double>(j));
                ser.y.push_back(v);
            }
            style.title = titles[n];
            style.xLabel = "key j";
            style.yLabel = n == 3 ? "probability" : "logit";
            plots.push_back(plotSvg({ser}, style));
        }
        return stackSvg(plots, style.width, style.height);
    }
    // Extrapolation: attention vs distance of the head as T grows from L to 16 L.
    const auto e = explore::computeExtrapolation(s, head);
    if (!e.error.empty()) return fail(ErrorCode::InvalidArgument, e.error);
    style.title = fmt::format("Head {}: attention vs distance as T grows (L = {})", head, e.trainLength);
    style.xLabel = "distance i - j";
    style.yLabel = "probability";
    return plotSvg(e.curves, style);
}

// What B replaces, in words: "A with scheme geometric", "A with scheme linear, max_bias 4".
std::string compareBText(const CompareOverrides& b) {
    std::vector<std::string> parts;
    if (b.scheme) parts.push_back(fmt::format("scheme {}", schemeName(*b.scheme)));
    if (b.scheme == SlopeScheme::Custom && !b.custom.empty()) parts.push_back(fmt::format("{} custom slopes", b.custom.size()));
    if (b.maxBias) parts.push_back(fmt::format("max_bias {}", *b.maxBias));
    if (b.mode) parts.push_back(fmt::format("mode {}", modeName(*b.mode)));
    if (b.dtype) parts.push_back(fmt::format("dtype {}", dtypeName(*b.dtype)));
    if (b.mask) parts.push_back(fmt::format("mask {}", maskName(*b.mask)));
    if (parts.empty()) return "the same as A";
    std::string text = "A with ";
    for (std::size_t n = 0; n < parts.size(); ++n) text += (n ? ", " : "") + parts[n];
    return text;
}

Result<Image> comparePng(const Settings& settings) {
    const Session& s = settings.session;
    const auto c = explore::computeCompare(s, settings.compareB, s.width * settings.pixelRatio,
                                           s.height * settings.pixelRatio);
    if (!c.error.empty()) return fail(ErrorCode::InvalidArgument, c.error);
    std::fprintf(stderr, "%s (B: %s)\n", c.summary.c_str(), compareBText(settings.compareB).c_str());
    return c.image;
}

// ALiBi beside RoPE, sinusoidal, T5, KERPLE and Sandwich on one distance axis, as SVG or PNG.
Result<void> writePositionSchemes(const RenderCommand& c, const Settings& settings, const OutputTarget& target) {
    const Session& s = settings.session;
    PositionSchemesFigure figure;
    figure.schemes.slopes = s.attention.bias.slopes;
    if (c.maxDistance) figure.schemes.maxDistance = *c.maxDistance;
    if (c.quantity) {
        if (*c.quantity == "logit") figure.schemes.quantity = SchemeQuantity::Logit;
        else if (*c.quantity == "attention") figure.schemes.quantity = SchemeQuantity::Attention;
        else
            return fail(ErrorCode::InvalidArgument,
                        fmt::format("--quantity {} is not known: use logit (what each scheme adds to the logit) or "
                                    "attention (softmax of the bias alone, zero content)",
                                    *c.quantity));
    }
    figure.width = s.width;
    figure.height = s.height;
    figure.scale = settings.pixelRatio;
    if (target.format == FileFormat::Png) {
        auto image = renderPositionSchemesPng(figure);
        if (!image) return std::unexpected(image.error());
        return writePng(*image, target.path);
    }
    auto svg = renderPositionSchemesSvg(figure);
    if (!svg) return std::unexpected(svg.error());
    return writeText(target.path, *svg);
}

Result<void> run(const RenderCommand& original) {
    if (!original.file.empty()) return renderFile(original);
    // The extra views ride on the session flags: their base --what picks the tensor.
    RenderCommand c = original;
    const ExtraView view = c.flags.what.given() ? extraView(c.flags.what.value) : ExtraView::None;
    if (view != ExtraView::None) c.flags.what.value = view == ExtraView::Compare ? "bias" : "attention";
    auto settings = buildSettings(c.flags);
    if (!settings) return std::unexpected(settings.error());
    const Session& s = settings->session;
    if (!c.flags.what.given() && !c.flags.config.given())
        return fail(ErrorCode::InvalidArgument,
                    "--what is required: bias, attention, slopes, distance, attention-distance, schemes, "
                    "slope-schemes, stages, extrapolation or compare");
    if ((c.maxDistance || c.quantity) && view != ExtraView::PositionSchemes)
        return fail(ErrorCode::InvalidArgument,
                    "--max-distance and --quantity belong to --what schemes (the position-schemes figure): drop them "
                    "or add --what schemes");
    auto target = resolveOutput(c.output, kFormats, std::nullopt);
    if (!target) return std::unexpected(target.error());
    if (c.flags.pixelRatio.given() && target->format != FileFormat::Png)
        return fail(ErrorCode::InvalidArgument,
                    "--pixel-ratio applies to PNG figures; SVG is vector and sharp at any size: drop --pixel-ratio");
    if (const int longest = std::max(s.width, s.height) * settings->pixelRatio; longest > 16384)
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("--width/--height {} at --pixel-ratio {} make {} pixels, more than 16384: lower the "
                                "size or the ratio",
                                std::max(s.width, s.height), settings->pixelRatio, longest));
    if (view == ExtraView::PositionSchemes) return writePositionSchemes(c, *settings, *target);
    if (view != ExtraView::None) {
        const bool png = view == ExtraView::Compare;
        if ((target->format == FileFormat::Png) != png)
            return fail(ErrorCode::InvalidArgument,
                        fmt::format("--what {} is written as {}: use -o FILE.{}", original.flags.what.value,
                                    png ? "PNG" : "SVG", png ? "png" : "svg"));
        if (png) {
            auto image = comparePng(*settings);
            if (!image) return std::unexpected(image.error());
            return writePng(*image, target->path);
        }
        auto svg = extraSvg(*settings, view);
        if (!svg) return std::unexpected(svg.error());
        return writeText(target->path, *svg);
    }
    const bool heatmap = s.what == RenderWhat::Bias || s.what == RenderWhat::Attention;
    const std::string whatText = settings->attentionDistance ? "attention-distance" : std::string(renderWhatName(s.what));
    if (heatmap && target->format != FileFormat::Png)
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("--what {} draws a heatmap, which is written as PNG: use -o FILE.png (SVG is for the "
                                "curves: slopes, distance, attention-distance)",
                                whatText));
    if (!heatmap && target->format != FileFormat::Svg)
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("--what {} draws curves, which are written as SVG: use -o FILE.svg (PNG is for the "
                                "heatmaps: bias, attention)",
                                whatText));
    if (heatmap) {
        auto image = heatmapFigure(*settings);
        if (!image) return std::unexpected(image.error());
        return writePng(*image, target->path);
    }
    auto svg = curvesSvg(*settings);
    if (!svg) return std::unexpected(svg.error());
    return writeText(target->path, *svg);
}

}  // namespace

RunFn addRenderCommand(CLI::App& root) {
    auto* cmd = root.add_subcommand(
        "render", "Heatmap PNG of the bias or attention (head grid or one head), or SVG curves");
    auto state = std::make_shared<RenderCommand>();
    addSessionFlags(*cmd, state->flags, FlagLevel::Render);
    addBatchFlags(*cmd, state->flags);
    addOutputFlags(*cmd, state->output, kFormats, /*required=*/true, /*tensorExport=*/false);
    cmd->add_option("FILE", state->file,
                    "A trained model's saved attention maps (.npy or .safetensors, as `alibi fit` reads them): draw "
                    "--what attention (one layer's heads, or --head), similarity (PNG) or fit (SVG)")
        ->type_name("");
    cmd->add_option("--layer", state->layer, "With FILE: the layer to draw, by its number (default: the first)")
        ->type_name("N");
    cmd->add_option("--tensor", state->tensor, "With FILE: one tensor (layer) of a .safetensors file")->type_name("NAME");
    cmd->add_option("--batch", state->batch, "With FILE: the batch element of a batched file (default 0)")
        ->type_name("B");
    cmd->add_option("--values", state->values, "With FILE: probabilities or scores (default: detected)")
        ->type_name("KIND");
    cmd->add_option("--max-distance", state->maxDistance,
                    "With --what schemes: the distance axis d = 0..D (default 128, at most 65536)")
        ->type_name("D");
    cmd->add_option("--quantity", state->quantity,
                    "With --what schemes: logit (default; what each scheme adds to the logit) or attention (softmax "
                    "of the bias alone over d = 0..D, zero content)")
        ->type_name("KIND");
    cmd->footer(R"(Examples:
  alibi render --heads 8 --seq 64 --what bias -o grid.png                # every head, shared scale
  alibi render attn.npy --layer 3 --what attention -o layer3.png         # a trained model's maps
  alibi render attn.npy --layer 3 --what fit --head 5 --heads 16 -o h5.svg
  alibi render --heads 8 --seq 64 --what attention --head 0 --colormap magma -o head0.png
  alibi render --heads 8 --seq 64 --what bias --pixel-ratio 2 -o slide.png  # 2048 x 1536, sharp
  alibi render --heads 12 --what slopes -o slopes.svg                    # log2 axis
  alibi render --heads 8 --seq 128 --what distance -o distance.svg
  alibi render --heads 8 --seq 128 --what attention-distance --query 100 -o attn.svg
  alibi render --heads 8 --what schemes -o schemes.svg                   # ALiBi beside RoPE, T5, KERPLE...
  alibi render --heads 8 --what schemes --max-distance 512 --quantity attention --pixel-ratio 2 -o s.png
  alibi render --heads 12 --what slope-schemes -o slope-schemes.svg      # press, geometric, linear
  alibi render --heads 8 --seq 64 --what stages --head 2 --query 40 -o stages.svg
  alibi render --heads 8 --seq 64 --what extrapolation --head 3 -o extrapolation.svg
  alibi render --heads 12 --seq 64 --what compare -o compare.png         # A - B, B: geometric slopes
  alibi render --heads 12 --seq 64 --what compare --b-scheme same --b-dtype bf16 -o rounding.png
  alibi render --heads 4 --seq 16 --what bias --lengths 16,9 --padding left --batch-row 1 -o row1.png)");
    return [state] { return run(*state); };
}

}  // namespace alibi::cli
