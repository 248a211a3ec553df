// GlTextureUploader: the OpenGL implementation of TextureUploader (RGBA8 textures, nearest
// filtering, since the core renders every image at exactly the size it is shown).
#pragma once

#include "texture.hpp"

namespace alibi::imgui {

class GlTextureUploader final : public TextureUploader {
public:
    [[nodiscard]] ImTextureID upload(const Image& image, ImTextureID previous) override;
    void release(ImTextureID texture) override;
};

}  // namespace alibi::imgui
