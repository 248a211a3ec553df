// The --screenshot mode: waits until every view has its first result, then saves each tab of
// the window as PNG (the test suites' and the README's pictures).
#pragma once

#include <QString>

#include <functional>

namespace alibi::qt {

class MainWindow;

// Renders every tab of `window` into DIR as NN-view.png once the first results arrive (compare,
// extrapolation and a diagnosis example included), then calls `done` with whether all were saved.
// `window` must already be in screenshot mode (no dialogs, no tab-driven work switching).
void runScreenshots(MainWindow& window, const QString& dir, std::function<void(bool)> done);

}  // namespace alibi::qt
