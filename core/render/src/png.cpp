// PNG encoding and decoding through libpng's simplified API (no setjmp in our code: the
// simplified API catches libpng's errors itself and reports them in png_image::message).
#include <alibi/io/output_file.hpp>
#include <alibi/render/png.hpp>

#include <fmt/format.h>
#include <png.h>

#include <cstring>

namespace alibi {
namespace {
constexpr std::size_t kMaxPngFile = std::size_t{512} << 20;
constexpr std::uint32_t kMaxSide = 32768;
}  // namespace

Result<std::vector<std::uint8_t>> encodePng(const Image& image) {
    if (image.width < 1 || image.height < 1 ||
        image.pixels.size() != static_cast<std::size_t>(image.width) * image.height)
        return fail(ErrorCode::InvalidArgument, fmt::format("cannot encode a {}x{} image holding {} pixels",
                                                            image.width, image.height, image.pixels.size()));
    png_image png{};
    png.version = PNG_IMAGE_VERSION;
    png.width = static_cast<png_uint_32>(image.width);
    png.height = static_cast<png_uint_32>(image.height);
    png.format = PNG_FORMAT_RGBA;
    png_alloc_size_t size = 0;
    // First call measures, second writes.
    if (!png_image_write_to_memory(&png, nullptr, &size, 0, image.pixels.data(), 0, nullptr))
        return fail(ErrorCode::Internal, fmt::format("PNG encoding failed: {}", png.message));
    std::vector<std::uint8_t> bytes(size);
    if (!png_image_write_to_memory(&png, bytes.data(), &size, 0, image.pixels.data(), 0, nullptr))
        return fail(ErrorCode::Internal, fmt::format("PNG encoding failed: {}", png.message));
    bytes.resize(size);
    return bytes;
}

Result<void> writePng(const Image& image, const std::string& path) {
    auto bytes = encodePng(image);
    if (!bytes) return std::unexpected(bytes.error());
    return writeFileAtomic(path, std::string_view(reinterpret_cast<const char*>(bytes->data()), bytes->size()));
}

Result<Image> decodePng(const std::vector<std::uint8_t>& bytes) {
    png_image png{};
    png.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_memory(&png, bytes.data(), bytes.size()))
        return fail(ErrorCode::BadInput, fmt::format("not a readable PNG: {}", png.message));
    if (png.width == 0 || png.height == 0 || png.width > kMaxSide || png.height > kMaxSide) {
        png_image_free(&png);
        return fail(ErrorCode::BadInput,
                    fmt::format("PNG of {}x{} pixels is outside 1..{}", png.width, png.height, kMaxSide));
    }
    png.format = PNG_FORMAT_RGBA;
    Image image;
    image.width = static_cast<int>(png.width);
    image.height = static_cast<int>(png.height);
    image.pixels.resize(static_cast<std::size_t>(image.width) * image.height);
    if (!png_image_finish_read(&png, nullptr, image.pixels.data(), 0, nullptr))
        return fail(ErrorCode::BadInput, fmt::format("PNG data is damaged: {}", png.message));
    return image;
}

Result<Image> readPng(const std::string& path) {
    auto text = readFileText(path, kMaxPngFile);
    if (!text) return std::unexpected(text.error());
    std::vector<std::uint8_t> bytes(text->size());
    std::memcpy(bytes.data(), text->data(), text->size());
    auto image = decodePng(bytes);
    if (!image) return fail(image.error().code, fmt::format("{}: {}", path, image.error().message));
    return image;
}

}  // namespace alibi
