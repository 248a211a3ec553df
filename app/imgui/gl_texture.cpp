// GlTextureUploader: core Images into OpenGL textures (OpenGL 1.1 entry points only, which libGL
// exports directly, so no loader is needed outside the ImGui backend).
#include "gl_texture.hpp"

#include <GL/gl.h>

#include <cstdint>

namespace alibi::imgui {

ImTextureID GlTextureUploader::upload(const Image& image, ImTextureID previous) {
    if (image.width <= 0 || image.height <= 0 || image.pixels.empty()) return previous;
    GLuint texture = static_cast<GLuint>(reinterpret_cast<std::uintptr_t>(previous));
    if (texture == 0) glGenTextures(1, &texture);
    glBindTexture(GL_TEXTURE_2D, texture);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    static_assert(sizeof(Rgba) == 4, "Image pixels must be tightly packed RGBA8");
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, image.width, image.height, 0, GL_RGBA, GL_UNSIGNED_BYTE,
                 image.pixels.data());
    return reinterpret_cast<ImTextureID>(static_cast<std::uintptr_t>(texture));
}

void GlTextureUploader::release(ImTextureID texture) {
    const GLuint id = static_cast<GLuint>(reinterpret_cast<std::uintptr_t>(texture));
    if (id != 0) glDeleteTextures(1, &id);
}

}  // namespace alibi::imgui
