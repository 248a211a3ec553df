// The GLFW + OpenGL 3.3 frame loop around the Explorer: backends, fonts and zoom, texture uploads,
// the window title, the "Save PNG" screenshots, and closing only once unsaved changes are settled.
#include "window_shell.hpp"

#include "gl_texture.hpp"
#include "input_queue.hpp"
#include "screenshot_writer.hpp"
#include "zoom.hpp"

#include <GL/gl.h>
#include <GLFW/glfw3.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>

#include <time.h>

#include <algorithm>
#include <cfloat>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace alibi::imgui {

namespace {

// CPU time of the calling thread: the frame loop's own cost, whatever else loads the machine.
double threadCpuMs() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) * 1e-6;
}

// Reads the back buffer (call after rendering, before swapping) as an image, top row first.
Image readBackBuffer(GLFWwindow* window) {
    int width = 0, height = 0;
    glfwGetFramebufferSize(window, &width, &height);
    Image image;
    image.width = width;
    image.height = height;
    image.pixels.resize(static_cast<std::size_t>(width) * static_cast<std::size_t>(height));
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadBuffer(GL_BACK);
    glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, image.pixels.data());
    // OpenGL's first row is the bottom one; PNG's is the top.
    for (int y = 0; y < height / 2; ++y) {
        std::swap_ranges(image.pixels.begin() + static_cast<std::ptrdiff_t>(y) * width,
                         image.pixels.begin() + static_cast<std::ptrdiff_t>(y + 1) * width,
                         image.pixels.begin() + static_cast<std::ptrdiff_t>(height - 1 - y) * width);
    }
    for (Rgba& p : image.pixels) p.a = 255;
    return image;
}

// Zoom rebuilds the font at the new pixel size (text stays sharp, unlike a scaled bitmap) and
// scales every style size with it, so a projector shows large text and thick lines alike.
class Zoom {
public:
    explicit Zoom(ImGuiStyle base) : m_base(base) {}

    // Call before the backends' NewFrame.
    void apply(float zoom, bool backendReady) {
        if (zoom == m_applied) return;
        m_applied = zoom;
        applyZoom(m_base, zoom);
        if (backendReady) {
            ImGui_ImplOpenGL3_DestroyFontsTexture();
            ImGui_ImplOpenGL3_CreateFontsTexture();
        }
    }

private:
    ImGuiStyle m_base;
    float m_applied = 0.0f;
};

// What the shell's GLFW callbacks need, in the window's user pointer while the frame loop runs
// (GLFW callbacks carry only the window).
struct ShellContext {
    Explorer* explorer = nullptr;
    // Every key, character, mouse button and cursor event, fed to ImGui one state change per
    // frame (input_queue.hpp): none is lost when a frame is slow.
    InputQueue input;
};

ShellContext* shellOf(GLFWwindow* window) {
    return static_cast<ShellContext*>(glfwGetWindowUserPointer(window));
}

// Files dropped on the window go to the Explorer.
void onDrop(GLFWwindow* window, int count, const char** paths) {
    auto* context = shellOf(window);
    if (context == nullptr || context->explorer == nullptr || paths == nullptr) return;
    std::vector<std::string> files;
    for (int i = 0; i < count; ++i)
        if (paths[i] != nullptr) files.emplace_back(paths[i]);
    context->explorer->dropFiles(std::move(files));
}

static_assert(GLFW_MOD_SHIFT == kModShift && GLFW_MOD_CONTROL == kModCtrl && GLFW_MOD_ALT == kModAlt &&
              GLFW_MOD_SUPER == kModSuper);

void onKey(GLFWwindow* window, int key, int /*scancode*/, int action, int mods) {
    // A held key repeats by the system's GLFW_REPEAT events, not by ImGui's frame clock (a slow
    // frame made a short press a repeat). Each key carries the modifiers held when it was pressed
    // (input_queue.hpp).
    auto* context = shellOf(window);
    if (context == nullptr) return;
    mods &= GLFW_MOD_SHIFT | GLFW_MOD_CONTROL | GLFW_MOD_ALT | GLFW_MOD_SUPER;
    context->input.push(action == GLFW_REPEAT ? InputEvent::keyRepeat(key, mods)
                                              : InputEvent::key(key, action == GLFW_PRESS, mods));
}

void onChar(GLFWwindow* window, unsigned int c) {
    if (auto* context = shellOf(window)) context->input.push(InputEvent::text(c));
}

void onMouseButton(GLFWwindow* window, int button, int action, int /*mods*/) {
    if (auto* context = shellOf(window)) context->input.push(InputEvent::button(button, action == GLFW_PRESS));
}

void onCursorPos(GLFWwindow* window, double x, double y) {
    if (auto* context = shellOf(window))
        context->input.push(InputEvent::move(static_cast<float>(x), static_cast<float>(y)));
}

}  // namespace

GLFWwindow* openWindow(const WindowOptions& options) {
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    glfwWindowHint(GLFW_RESIZABLE, options.resizable ? GLFW_TRUE : GLFW_FALSE);
    int width = options.width;
    int height = options.height;
    if (options.resizable) {
        // The first window fits the screen's work area (a 1280x720 projector included).
        if (GLFWmonitor* monitor = glfwGetPrimaryMonitor()) {
            int x = 0, y = 0, areaWidth = 0, areaHeight = 0;
            glfwGetMonitorWorkarea(monitor, &x, &y, &areaWidth, &areaHeight);
            if (areaWidth > 0 && areaHeight > 0) {
                width = std::min(width, areaWidth);
                height = std::min(height, areaHeight);
            }
        }
    }
    GLFWwindow* window = glfwCreateWindow(width, height, "ALiBi Explorer (ImGui)", nullptr, nullptr);
    if (window == nullptr) return nullptr;
    glfwMakeContextCurrent(window);
    glfwSwapInterval(options.vsync ? 1 : 0);
    return window;
}

int runExplorerWindow(GLFWwindow* window, FrameDriver& driver, const std::function<int(Explorer&)>& setUp) {
    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;  // leave no imgui.ini behind
    io.LogFilename = nullptr;
    Zoom zoom(explorerBaseStyle());
    zoom.apply(1.0f, false);
    if (!ImGui_ImplGlfw_InitForOpenGL(window, true) || !ImGui_ImplOpenGL3_Init("#version 330 core")) {
        std::fprintf(stderr, "alibi-explorer-imgui: could not initialise the ImGui OpenGL 3.3 backend\n");
        ImGui::DestroyContext();
        return 1;
    }

    int status = 0;
    {
        GlTextureUploader textures;
        Explorer explorer(&textures, [] { glfwPostEmptyEvent(); });
        AppState& state = explorer.state();
        ShellContext context{&explorer, {}};
        glfwSetWindowUserPointer(window, &context);
        glfwSetDropCallback(window, onDrop);
        // Keys, characters, buttons and the cursor go through the queue, not ImGui's callbacks.
        glfwSetKeyCallback(window, onKey);
        glfwSetCharCallback(window, onChar);
        glfwSetMouseButtonCallback(window, onMouseButton);
        glfwSetCursorPosCallback(window, onCursorPos);
        status = setUp ? setUp(explorer) : 0;
        const bool stopEarly = status != 0 && !driver.waitsForEvents();
        if (!stopEarly) driver.start(explorer);

        ScreenshotWriter screenshots;
        std::string title;
        bool fullScreen = false;
        int restoreX = 0, restoreY = 0, restoreWidth = 0, restoreHeight = 0;
        bool done = stopEarly;
        // ALIBI_SLOW_FRAME_MS=N makes every frame N ms slower (tests of input under slow frames).
        const char* slowEnv = std::getenv("ALIBI_SLOW_FRAME_MS");
        const int slowFrameMs = slowEnv != nullptr ? std::clamp(std::atoi(slowEnv), 0, 5000) : 0;
        while (!done) {
            if (slowFrameMs > 0) std::this_thread::sleep_for(std::chrono::milliseconds(slowFrameMs));
            if (driver.waitsForEvents() && !context.input.pending()) {
                // Idle frames cost nothing: sleep until input or a worker's result wakes the loop;
                // tick while work is in flight (the stale mark's progress, an export's progress bar).
                glfwWaitEventsTimeout(explorer.busy() ? 0.03 : 0.5);
            } else {
                glfwPollEvents();
            }
            if (glfwWindowShouldClose(window)) {
                // Closing waits for the unsaved-changes prompt (scripted runs never ask).
                glfwSetWindowShouldClose(window, GLFW_FALSE);
                explorer.requestQuit();
            }
            const auto frameStart = std::chrono::steady_clock::now();
            const double cpuStart = threadCpuMs();

            zoom.apply(state.zoom, true);
            ImGui_ImplOpenGL3_NewFrame();
            ImGui_ImplGlfw_NewFrame();
            // This frame's share of the queued input (the rest waits for the next frame).
            context.input.applyFrame(io, io.MousePos.x > -FLT_MAX / 2);
            FrameIo frameIo{io, [window] { return readBackBuffer(window); }, 0, 0};
            glfwGetFramebufferSize(window, &frameIo.framebufferWidth, &frameIo.framebufferHeight);
            driver.beforeFrame(explorer, frameIo);
            ImGui::NewFrame();
            context.input.applyRepeats(io);  // keys repeat by the system's repeats only
            explorer.frame();
            ImGui::Render();

            glViewport(0, 0, frameIo.framebufferWidth, frameIo.framebufferHeight);
            // The panels draw no background (see explorer.cpp); the clear colour is theirs.
            const ImVec4 background = ImGui::GetStyle().Colors[ImGuiCol_WindowBg];
            glClearColor(background.x, background.y, background.z, 1.0f);
            glClear(GL_COLOR_BUFFER_BIT);
            ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());

            if (state.actions.screenshot) {
                state.actions.screenshot = false;
                screenshots.write(readBackBuffer(window), state.screenshotPath);
            }
            screenshots.report(state);
            driver.afterRender(explorer, frameIo);
            glfwSwapBuffers(window);
            explorer.framePresented();

            if (const std::string wanted = explorer.windowTitle(); wanted != title) {
                title = wanted;
                glfwSetWindowTitle(window, title.c_str());
            }
            // Scripted runs keep their window as asked (a storm's random click may hit View > Full
            // screen or File > Quit; neither may change the picture's size or end the run).
            if (!driver.waitsForEvents()) {
                state.fullScreen = fullScreen;
                state.quitApproved = false;
            }
            if (state.fullScreen != fullScreen) {
                fullScreen = state.fullScreen;
                GLFWmonitor* monitor = glfwGetPrimaryMonitor();
                if (fullScreen && monitor != nullptr) {
                    glfwGetWindowPos(window, &restoreX, &restoreY);
                    glfwGetWindowSize(window, &restoreWidth, &restoreHeight);
                    const GLFWvidmode* mode = glfwGetVideoMode(monitor);
                    glfwSetWindowMonitor(window, monitor, 0, 0, mode->width, mode->height, mode->refreshRate);
                } else if (!fullScreen) {
                    glfwSetWindowMonitor(window, nullptr, restoreX, restoreY, std::max(restoreWidth, 640),
                                         std::max(restoreHeight, 480), GLFW_DONT_CARE);
                }
            }

            const double workMs =
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - frameStart).count();
            state.frameMs.push(workMs);
            driver.afterFrame(explorer, workMs, threadCpuMs() - cpuStart);
            done = driver.done() || state.quitApproved;
        }
        glfwSetDropCallback(window, nullptr);
        glfwSetKeyCallback(window, ImGui_ImplGlfw_KeyCallback);
        glfwSetCharCallback(window, ImGui_ImplGlfw_CharCallback);
        glfwSetMouseButtonCallback(window, ImGui_ImplGlfw_MouseButtonCallback);
        glfwSetCursorPosCallback(window, nullptr);
        glfwSetWindowUserPointer(window, nullptr);
        screenshots.finish();
        screenshots.report(state);
        if (!stopEarly) status = std::max(status, driver.finish(explorer));
    }  // the Explorer (workers, textures) goes before the GL context and ImGui

    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
    return status;
}

}  // namespace alibi::imgui
