// The window shell of alibi-explorer-imgui: a GLFW window with an OpenGL 3.3 context, Dear ImGui's
// GLFW and OpenGL backends, and the frame loop around an Explorer. What happens around each frame
// (wait for input, or feed scripted input, take screenshots, measure) is a FrameDriver's choice:
// the interactive driver is here; the scripted ones (--screenshot, --bench-frames, --storm) live
// in scripted/, outside the code a user's session runs.
#pragma once

#include "explorer.hpp"

#include <alibi/render/render.hpp>

#include <imgui.h>

#include <functional>
#include <string>

struct GLFWwindow;

namespace alibi::imgui {

// What a driver may do to the frame it is driving.
struct FrameIo {
    ImGuiIO& io;
    // Reads the back buffer as an image, top row first (valid in afterRender only).
    std::function<Image()> readFrame;
    int framebufferWidth = 0;
    int framebufferHeight = 0;
};

class FrameDriver {
public:
    virtual ~FrameDriver() = default;
    // Interactive use sleeps until input or a worker's result; scripted runs poll and render
    // back to back.
    [[nodiscard]] virtual bool waitsForEvents() const { return false; }
    // Called once the Explorer exists, before the first frame.
    virtual void start(Explorer& /*explorer*/) {}
    // After the backends' NewFrame, before ImGui::NewFrame (scripted input goes in here).
    virtual void beforeFrame(Explorer& /*explorer*/, FrameIo& /*frame*/) {}
    // After rendering, before the swap: the back buffer holds this frame.
    virtual void afterRender(Explorer& /*explorer*/, FrameIo& /*frame*/) {}
    // After the swap, with the frame's wall time and the frame loop thread's CPU time.
    virtual void afterFrame(Explorer& /*explorer*/, double /*workMs*/, double /*cpuMs*/) {}
    [[nodiscard]] virtual bool done() const { return false; }
    // The process's exit status once the loop has ended.
    virtual int finish(Explorer& /*explorer*/) { return 0; }
};

struct WindowOptions {
    int width = 1600;
    int height = 1000;
    bool resizable = true;
    bool vsync = true;
};

// Creates the window (fitted to the monitor's work area when it would not fit) or says on stderr
// why it cannot and returns null. glfwInit must have succeeded.
[[nodiscard]] GLFWwindow* openWindow(const WindowOptions& options);

// Runs the frame loop until the driver is done or the user closes the window (after the
// Explorer's unsaved-changes prompt). `setUp` runs once the Explorer exists (loads the session);
// a non-zero status from it ends the run before the first frame when the driver is scripted.
// Returns the exit status.
int runExplorerWindow(GLFWwindow* window, FrameDriver& driver, const std::function<int(Explorer&)>& setUp);

// The driver of a person's session: waits for input, shows the window title the Explorer asks for.
class InteractiveDriver final : public FrameDriver {
public:
    [[nodiscard]] bool waitsForEvents() const override { return true; }
};

}  // namespace alibi::imgui
