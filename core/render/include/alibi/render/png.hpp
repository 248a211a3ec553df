// PNG encoding of RGBA images (libpng), to a file atomically or to memory.
#pragma once

#include <alibi/base/error.hpp>
#include <alibi/render/render.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace alibi {

[[nodiscard]] Result<std::vector<std::uint8_t>> encodePng(const Image& image);
[[nodiscard]] Result<void> writePng(const Image& image, const std::string& path);
[[nodiscard]] Result<Image> decodePng(const std::vector<std::uint8_t>& bytes);
[[nodiscard]] Result<Image> readPng(const std::string& path);

}  // namespace alibi
