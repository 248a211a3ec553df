// The picture-size limit's one check and its one wording.
#include <alibi/base/image_size.hpp>

#include <fmt/format.h>

namespace alibi {

Result<void> checkImageSize(std::int64_t width, std::int64_t height, int scale, std::string_view what) {
    if (width < 1 || height < 1)
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("a {} x {} {} has no pixels: give a positive width and height", width, height, what));
    if (imageSizeFits(width, height, scale)) return {};
    if (scale == 1)
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("a {} x {} {} is more than {} pixels a side: lower the width or height", width, height,
                                what, kMaxImageSide));
    return fail(ErrorCode::InvalidArgument,
                fmt::format("a {} x {} {} at pixel ratio {} is {} x {} pixels, more than {} a side: lower the size or "
                            "the pixel ratio",
                            width, height, what, scale, width * scale, height * scale, kMaxImageSide));
}

}  // namespace alibi
