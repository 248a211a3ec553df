// The slope-schemes figure of slope_schemes.hpp.
#include <alibi/render/slope_schemes.hpp>

#include <alibi/render/plot_kinds.hpp>

#include <fmt/format.h>

namespace alibi {

Result<std::pair<std::vector<Series>, PlotStyle>> slopeSchemesPlot(const SlopeParams& slopes, int width, int height) {
    std::vector<Series> lines;
    for (SlopeScheme scheme : {SlopeScheme::Press, SlopeScheme::Geometric, SlopeScheme::Linear, SlopeScheme::Custom}) {
        SlopeParams p = slopes;
        p.scheme = scheme;
        if (scheme == SlopeScheme::Custom && static_cast<int>(p.custom.size()) != p.heads) continue;
        auto one = slopeSeries(p);
        if (!one) return std::unexpected(one.error());
        one->front().label = std::string(schemeName(scheme));
        lines.push_back(std::move(one->front()));
    }
    PlotStyle style = plotAxes(PlotKind::SlopeSchemes);
    style.width = width;
    style.height = height;
    style.title = fmt::format("Slope schemes, H = {}, max_bias {}", slopes.heads, slopes.maxBias);
    style.xLabel = "head";
    style.yLabel = "slope m (log2 axis)";
    style.caption = "the slope m_h of each head under each scheme, for the same H and max_bias B (log2 axis)";
    return std::pair{std::move(lines), std::move(style)};
}

}  // namespace alibi
