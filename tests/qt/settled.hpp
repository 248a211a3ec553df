// Waits until the main window's model has a snapshot and nothing pending: the one wait the Qt
// suites share (a guard against a hang, not a latency assertion: see patient_qtry.hpp).
#pragma once

#include "main_window.hpp"

#include <QTest>

namespace alibi::qt::test {

inline bool settled(MainWindow& w, int timeoutMs = 30000) {
    return QTest::qWaitFor([&] { return w.model()->snapshot() && !w.model()->pending(); }, timeoutMs);
}

}  // namespace alibi::qt::test
