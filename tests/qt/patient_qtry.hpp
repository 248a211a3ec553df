// QTRY_VERIFY and QTRY_COMPARE wait 5 s by default: on a machine loaded with other work (issue
// 25: ./scripts/test beside two busy loops) a worker's result can take longer than that without
// anything being wrong. These tests wait for results, never for a deadline: the waits here are
// generous guards against a hang, not latency assertions.
#pragma once

#include <QTest>

#undef QTRY_VERIFY
#define QTRY_VERIFY(expr) QTRY_VERIFY_WITH_TIMEOUT(expr, 120000)
#undef QTRY_COMPARE
#define QTRY_COMPARE(expr, expected) QTRY_COMPARE_WITH_TIMEOUT(expr, expected, 120000)
