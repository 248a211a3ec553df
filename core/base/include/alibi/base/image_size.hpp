// The one limit on a picture's size, for every picture the tool makes (heatmaps, figures, the
// explorers' views and screenshots, session views): at most kMaxImageSide pixels a side, which
// keeps one RGBA picture within 1 GiB.
#pragma once

#include <alibi/base/error.hpp>

#include <cstdint>
#include <string_view>

namespace alibi {

inline constexpr int kMaxImageSide = 16384;

// Refuses a `width` x `height` picture (`what`: "image", "figure", ...) drawn at `scale` pixels
// per unit whose pixel sides are not within 1..kMaxImageSide; the message gives both sizes and
// the limit.
[[nodiscard]] Result<void> checkImageSize(std::int64_t width, std::int64_t height, int scale = 1,
                                          std::string_view what = "image");
// The same as a yes/no, for a control that only greys out.
[[nodiscard]] constexpr bool imageSizeFits(std::int64_t width, std::int64_t height, int scale = 1) {
    return width >= 1 && height >= 1 && width * scale <= kMaxImageSide && height * scale <= kMaxImageSide;
}

}  // namespace alibi
