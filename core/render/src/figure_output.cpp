// The figure output checks of figure_output.hpp.
#include <alibi/render/figure_output.hpp>

#include <fmt/format.h>

namespace alibi {

Result<int> checkPixelRatio(std::int64_t ratio) {
    if (ratio != 1 && ratio != 2 && ratio != 4)
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("--pixel-ratio must be 1, 2 or 4 (got {}). Example: --pixel-ratio 2", ratio));
    return static_cast<int>(ratio);
}

Result<void> checkFigureOutput(std::optional<std::int64_t> pixelRatio, bool svg) {
    if (!pixelRatio) return {};
    if (auto ok = checkPixelRatio(*pixelRatio); !ok) return std::unexpected(ok.error());
    if (svg)
        return fail(ErrorCode::InvalidArgument,
                    "--pixel-ratio applies to PNG figures; SVG is vector and sharp at any size: drop --pixel-ratio");
    return {};
}

}  // namespace alibi
