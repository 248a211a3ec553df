// `alibi render`: a heatmap PNG of the bias or the attention (head grid or one head, with a
// colour bar beneath), or SVG curves (slopes on a log2 axis, bias vs distance, attention vs
// distance). Figures come whole from the core (render/figure.hpp); this file only writes them.
#include "commands.hpp"
#include "options.hpp"
#include "progress_bar.hpp"

#include <alibi/render/figure.hpp>
#include <alibi/render/png.hpp>
#include <alibi/render/render.hpp>

#include <algorithm>
#include <array>
#include <fmt/format.h>
#include <memory>

namespace alibi::cli {
namespace {

constexpr std::array kFormats{FileFormat::Png, FileFormat::Svg};

struct RenderCommand {
    SessionFlags flags;
    OutputFlags output;
};

Result<Image> heatmapFigure(const Settings& settings) {
    const Session& s = settings.session;
    HeatmapParams params;
    params.attention = s.attention;
    params.what = s.what;
    params.head = s.head;
    params.colormap = s.colormap;
    params.scale = s.scale;
    params.width = s.width;
    params.height = s.height;
    ProgressBar bar("rendering");
    auto image = renderHeatmapFigure(params, settings.threads, bar.callback());
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

Result<void> run(const RenderCommand& c) {
    auto settings = buildSettings(c.flags);
    if (!settings) return std::unexpected(settings.error());
    const Session& s = settings->session;
    if (!c.flags.what.given() && !c.flags.config.given())
        return fail(ErrorCode::InvalidArgument,
                    "--what is required: bias, attention, slopes, distance or attention-distance");
    auto target = resolveOutput(c.output, kFormats, std::nullopt);
    if (!target) return std::unexpected(target.error());
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
    addOutputFlags(*cmd, state->output, kFormats, /*required=*/true, /*tensorExport=*/false);
    cmd->footer(R"(Examples:
  alibi render --heads 8 --seq 64 --what bias -o grid.png                # every head, shared scale
  alibi render --heads 8 --seq 64 --what attention --head 0 --colormap magma -o head0.png
  alibi render --heads 12 --what slopes -o slopes.svg                    # log2 axis
  alibi render --heads 8 --seq 128 --what distance -o distance.svg
  alibi render --heads 8 --seq 128 --what attention-distance --query 100 -o attn.svg)");
    return [state] { return run(*state); };
}

}  // namespace alibi::cli
