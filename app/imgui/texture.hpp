// The one seam between the panels and the graphics API: the Explorer hands finished core images
// to a TextureUploader and stores the ImTextureID it gets back in the Model. The GLFW shell
// implements it with OpenGL (gl_texture.cpp); the logic test passes none, and panels then draw a
// placeholder, so the panel code never includes a GL header.
#pragma once

#include <alibi/render/render.hpp>

#include <imgui.h>

namespace alibi::imgui {

class TextureUploader {
public:
    virtual ~TextureUploader() = default;
    // Uploads `image`, reusing `previous` when given (same or different size); returns its id.
    [[nodiscard]] virtual ImTextureID upload(const Image& image, ImTextureID previous) = 0;
    virtual void release(ImTextureID texture) = 0;
};

}  // namespace alibi::imgui
