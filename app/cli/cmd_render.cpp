// `alibi render`: a heatmap PNG of the bias or the attention (head grid or one head, with a
// colour bar beneath), or SVG curves (slopes on a log2 axis, bias vs distance, attention vs
// distance). Pixels and curves come from the core; this file only composes and writes them.
#include "commands.hpp"
#include "label_font.hpp"
#include "options.hpp"
#include "progress_bar.hpp"

#include <alibi/render/plot.hpp>
#include <alibi/render/png.hpp>
#include <alibi/render/render.hpp>

#include <algorithm>
#include <array>
#include <fmt/format.h>
#include <memory>

namespace alibi::cli {
namespace {

constexpr std::array kFormats{FileFormat::Png, FileFormat::Svg};
constexpr Rgba kBackground{255, 255, 255, 255};
constexpr Rgba kLabel{32, 32, 32, 255};

struct RenderCommand {
    SessionFlags flags;
    OutputFlags output;
};

void blit(Image& dst, const Image& src, int x0, int y0) {
    for (int y = 0; y < src.height && y0 + y < dst.height; ++y)
        for (int x = 0; x < src.width && x0 + x < dst.width; ++x) dst.at(x0 + x, y0 + y) = src.at(x, y);
}

// The heatmap over a horizontal colour bar with its range written beneath, head numbers in
// the tiles, in exactly width x height pixels.
Result<Image> heatmapWithBar(const Settings& settings) {
    const Session& s = settings.session;
    const int margin = std::max(4, s.height / 100);
    const int barHeight = std::clamp(s.height / 30, 6, 24);
    const int textScale = std::clamp(std::min(s.width, s.height) / 180, 1, 4);
    const int labelHeight = s.height >= 120 ? textHeight(textScale) : 0;  // no room for text on tiny images
    HeatmapParams params;
    params.attention = s.attention;
    params.what = s.what;
    params.head = s.head;
    params.colormap = s.colormap;
    params.scale = s.scale;
    params.width = s.width;
    params.height = s.height - barHeight - 2 * margin - (labelHeight ? labelHeight + margin : 0);
    ProgressBar bar("rendering");
    auto map = renderHeatmap(params, settings.threads, bar.callback());
    bar.finish();
    if (!map) return std::unexpected(map.error());

    Image out;
    out.width = s.width;
    out.height = s.height;
    out.pixels.assign(static_cast<std::size_t>(out.width) * out.height, kBackground);
    blit(out, map->image, 0, 0);
    const int barY = params.height + margin;
    const Image colorBar = renderColorBar(s.colormap, s.width - 2 * margin, barHeight, /*vertical=*/false);
    blit(out, colorBar, margin, barY);
    if (labelHeight == 0) return out;

    const int pad = textScale;
    for (const HeatmapTile& tile : map->tiles) {
        const std::string label = fmt::format("h{}", tile.head);
        const int w = textWidth(label, textScale);
        if (tile.width < w + 4 * pad || tile.height < labelHeight + 4 * pad) continue;
        fillRect(out, tile.x + pad, tile.y + pad, w + 2 * pad, labelHeight + 2 * pad, kBackground);
        drawText(out, tile.x + 2 * pad, tile.y + 2 * pad, label, textScale, kLabel);
    }
    const std::string lo = fmt::format("{:.4g}", map->lo), hi = fmt::format("{:.4g}", map->hi);
    const int textY = barY + barHeight + margin / 2;
    drawText(out, margin, textY, lo, textScale, kLabel);
    drawText(out, s.width - margin - textWidth(hi, textScale), textY, hi, textScale, kLabel);
    return out;
}

Result<std::string> curvesSvg(const Settings& settings) {
    const Session& s = settings.session;
    const BiasParams& b = s.attention.bias;
    PlotStyle style;
    style.width = s.width;
    style.height = s.height;
    style.highlight = s.head;
    Result<std::vector<Series>> series = std::vector<Series>{};
    if (s.what == RenderWhat::Slopes) {
        series = slopeSeries(b.slopes);
        style.title = fmt::format("ALiBi slopes, {} heads, scheme {}", b.slopes.heads, schemeName(b.slopes.scheme));
        style.xLabel = "head";
        style.yLabel = "slope m (log2 axis)";
        style.logY2 = true;
    } else if (settings.attentionDistance) {
        series = attentionDistanceSeries(s.attention, s.queryRow);
        style.title = fmt::format("Attention vs distance, query {}, {} content", s.queryRow,
                                  contentName(s.attention.content.kind));
        style.xLabel = "distance p_i - j";
        style.yLabel = "probability";
    } else {
        series = biasDistanceSeries(b, std::max<std::int64_t>(1, std::max(b.queries, b.keyCount()) - 1));
        style.title = fmt::format("Bias vs distance, mode {}", modeName(b.mode));
        style.xLabel = "distance";
        style.yLabel = "bias";
    }
    if (!series) return std::unexpected(series.error());
    return plotSvg(*series, style);
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
        auto image = heatmapWithBar(*settings);
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
