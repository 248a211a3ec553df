// Names of the view options, as sessions and command lines spell them.
#include <alibi/model/view_options.hpp>

#include <array>
#include <utility>

namespace alibi {

std::string_view renderWhatName(RenderWhat what) {
    switch (what) {
        case RenderWhat::Bias:
            return "bias";
        case RenderWhat::Attention:
            return "attention";
        case RenderWhat::Slopes:
            return "slopes";
        case RenderWhat::Distance:
            return "distance";
    }
    return "bias";
}

std::optional<RenderWhat> parseRenderWhat(std::string_view name) {
    for (auto w : {RenderWhat::Bias, RenderWhat::Attention, RenderWhat::Slopes, RenderWhat::Distance})
        if (renderWhatName(w) == name) return w;
    return std::nullopt;
}

std::string_view scaleModeName(ScaleMode mode) {
    return mode == ScaleMode::Shared ? "shared" : "per-head";
}

std::optional<ScaleMode> parseScaleMode(std::string_view name) {
    if (name == "shared") return ScaleMode::Shared;
    if (name == "per-head") return ScaleMode::PerHead;
    return std::nullopt;
}

namespace {
constexpr std::array<std::pair<Colormap, std::string_view>, 4> kColormapNames{{
    {Colormap::Viridis, "viridis"},
    {Colormap::Magma, "magma"},
    {Colormap::Cividis, "cividis"},
    {Colormap::Diverging, "diverging"},
}};
}  // namespace

std::string_view colormapName(Colormap map) {
    for (const auto& [m, name] : kColormapNames)
        if (m == map) return name;
    return "viridis";
}

std::optional<Colormap> parseColormap(std::string_view name) {
    for (const auto& [m, n] : kColormapNames)
        if (n == name) return m;
    return std::nullopt;
}

std::string_view reduceName(Reduce reduce) {
    switch (reduce) {
        case Reduce::Auto:
            return "auto";
        case Reduce::Mean:
            return "mean";
        case Reduce::Max:
            return "max";
        case Reduce::Sum:
            return "sum";
    }
    return "auto";
}

std::optional<Reduce> parseReduce(std::string_view name) {
    for (auto r : {Reduce::Auto, Reduce::Mean, Reduce::Max, Reduce::Sum})
        if (reduceName(r) == name) return r;
    return std::nullopt;
}

}  // namespace alibi
