// The scripted runs of alibi-explorer-imgui, used by tests and benchmarks rather than by people:
//   --screenshot FILE.png      render (until every result is in), save the window, exit
//   --screenshot-views DIR     the same for every view in turn: DIR/<n>-<view>.png
//   --bench-frames N           vary max_bias every frame, print median frame time and latency
//   --storm SECONDS            random input and parameters, print frame gaps and memory
// Each is a FrameDriver for the window shell; none of this runs in an interactive session.
#pragma once

#include "window_shell.hpp"

#include <memory>
#include <string>

namespace alibi::imgui {

struct ScreenshotOptions {
    std::string path;      // one PNG of the view the session opens in
    std::string viewsDir;  // or: one PNG per view into this folder
    std::string layout;    // JSON with the grid's screen rectangle (for the screenshot test)
    int frames = 30;       // frames rendered before the first picture (at least)
};

[[nodiscard]] std::unique_ptr<FrameDriver> makeScreenshotDriver(ScreenshotOptions options);
[[nodiscard]] std::unique_ptr<FrameDriver> makeBenchDriver(int frames, int width, int height);
[[nodiscard]] std::unique_ptr<FrameDriver> makeStormDriver(double seconds);

}  // namespace alibi::imgui
