// A bare ImGui context for tests that draw frames without a window or GL: no .ini file, a
// display of the given size, 60 frames a second, the font atlas built.
#pragma once

#include <imgui.h>

namespace alibi::imgui::test {

inline void createBareContext(ImVec2 displaySize) {
    ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;
    io.DisplaySize = displaySize;
    io.DeltaTime = 1.0f / 60.0f;
    unsigned char* pixels = nullptr;
    int width = 0, height = 0;
    io.Fonts->GetTexDataAsRGBA32(&pixels, &width, &height);
}

}  // namespace alibi::imgui::test
