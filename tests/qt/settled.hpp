// Waits until the main window's model has a snapshot and nothing pending: the one wait the Qt
// suites share (a guard against a hang, not a latency assertion: see patient_qtry.hpp).
#pragma once

#include "main_window.hpp"

#include <QTest>

namespace alibi::qt::test {

inline bool settled(MainWindow& w, int timeoutMs = 30000) {
    return QTest::qWaitFor([&] { return w.model()->snapshot() && !w.model()->pending(); }, timeoutMs);
}

// Shows `w` at width x height without its interactive extras (first-run hints, restored
// geometry) and waits until it is exposed: every window test's first step.
inline bool showForTest(MainWindow& w, int width, int height) {
    w.setInteractive(false);
    w.resize(width, height);
    w.show();
    return QTest::qWaitForWindowExposed(&w);
}

}  // namespace alibi::qt::test
