// The fine T control (issue 27): arrows step by 1, Shift+arrows by powers of two, and the coarse
// log slider plus the fine linear slider reach every T from 1 to 4096 by mouse, one value per
// pixel at least. Expected values are written out from the rule, not computed by the code.
#include <alibi/explore/length_control.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>

using namespace alibi::explore;

TEST(LengthControl, ArrowsStepByOneAndShiftByPowersOfTwo) {
    EXPECT_EQ(stepValue(26, +1, false, 1, 4096), 27);
    EXPECT_EQ(stepValue(26, -1, false, 1, 4096), 25);
    EXPECT_EQ(stepValue(26, +1, true, 1, 4096), 32);
    EXPECT_EQ(stepValue(26, -1, true, 1, 4096), 16);
    EXPECT_EQ(stepValue(32, +1, true, 1, 4096), 64);
    EXPECT_EQ(stepValue(32, -1, true, 1, 4096), 16);
    EXPECT_EQ(stepValue(33, -1, true, 1, 4096), 32);
    EXPECT_EQ(stepValue(2, -1, true, 1, 4096), 1);
    EXPECT_EQ(stepValue(1, +1, true, 1, 4096), 2);
    // The ends of the range hold.
    EXPECT_EQ(stepValue(1, -1, false, 1, 4096), 1);
    EXPECT_EQ(stepValue(1, -1, true, 1, 4096), 1);
    EXPECT_EQ(stepValue(4096, +1, false, 1, 4096), 4096);
    EXPECT_EQ(stepValue(3000, +1, true, 1, 4096), 4096);
    EXPECT_EQ(stepValue(4096, +1, true, 1, 4096), 4096);
    EXPECT_EQ(stepValue(0, +1, true, 0, 10), 1);
    // Every step by 1 visits every value: 1 .. 4096 in 4095 presses.
    std::int64_t t = 1;
    for (int i = 0; i < 4095; ++i) {
        const std::int64_t next = stepValue(t, +1, false, 1, 4096);
        ASSERT_EQ(next, t + 1);
        t = next;
    }
}

TEST(LengthControl, CoarseSliderIsLog2) {
    EXPECT_EQ(coarsePosition(1, 1, 4096), 0);
    EXPECT_EQ(coarsePosition(1024, 1, 4096), 1000);
    EXPECT_EQ(coarseValue(1000, 1, 4096), 1024);
    EXPECT_EQ(coarseValue(1200, 1, 4096), 4096);  // clamped to the range
    EXPECT_EQ(coarsePositions(1 << 20), 2000);
    EXPECT_EQ(coarseValue(coarsePosition(512, 1, 4096), 1, 4096), 512);
}

TEST(LengthControl, FineWindowHasAPixelPerValue) {
    EXPECT_EQ(fineSpan(300, 1, 1 << 20), 256);
    EXPECT_EQ(fineSpan(256, 1, 1 << 20), 256);
    EXPECT_EQ(fineSpan(255, 1, 1 << 20), 128);
    EXPECT_EQ(fineSpan(4000, 1, 1 << 20), 1024);
    EXPECT_EQ(fineSpan(2, 1, 1 << 20), 8);
    EXPECT_EQ(fineSpan(300, 1, 5), 5);  // never more than the range holds
    EXPECT_EQ(fineWindow(26, 300, 1, 4096), (LinearWindow{1, 256}));
    EXPECT_EQ(fineWindow(1000, 300, 1, 4096), (LinearWindow{872, 1127}));
    EXPECT_EQ(fineWindow(4090, 300, 1, 4096), (LinearWindow{3841, 4096}));
}

TEST(LengthControl, WindowFollowsTheValue) {
    const LinearWindow w{872, 1127};
    EXPECT_EQ(followWindow(w, 1000, 300, 1, 4096), w);
    EXPECT_EQ(followWindow(w, 873, 300, 1, 4096), w);
    // On an edge, or outside: re-centred, so the drag can go on past it.
    EXPECT_EQ(followWindow(w, 1127, 300, 1, 4096), (LinearWindow{999, 1254}));
    EXPECT_EQ(followWindow(w, 872, 300, 1, 4096), (LinearWindow{744, 999}));
    EXPECT_EQ(followWindow(w, 3000, 300, 1, 4096), (LinearWindow{2872, 3127}));
    // The range's own ends are edges the window may rest on.
    const LinearWindow first{1, 256};
    EXPECT_EQ(followWindow(first, 1, 300, 1, 4096), first);
    // A narrower slider gets a smaller window.
    EXPECT_EQ(followWindow(w, 1000, 200, 1, 4096), (LinearWindow{936, 1063}));
}

// Every T from 1 to 4096 is reachable by mouse, as a person would: a drag of the coarse slider
// (P pixels over every position) to the pixel nearest T, then drags of the fine slider (P pixels,
// at most one value per pixel) to its edge until its window holds T, then onto T.
TEST(LengthControl, EveryLengthUpTo4096IsReachableByMouse) {
    const std::int64_t lo = 1, hi = std::int64_t{1} << 20;
    const int positions = coarsePositions(hi);
    for (int pixels : {120, 200, 300}) {
        int worstDrags = 0;
        for (std::int64_t t = 1; t <= 4096; ++t) {
            // The coarse pixel whose value is nearest T.
            std::int64_t near = lo;
            for (int x = 0; x <= pixels; ++x) {
                const int position = static_cast<int>(std::lround(static_cast<double>(x) * positions / pixels));
                const std::int64_t v = coarseValue(position, lo, hi);
                if (std::llabs(v - t) < std::llabs(near - t)) near = v;
            }
            LinearWindow w = fineWindow(near, pixels, lo, hi);
            ASSERT_LE(w.hi - w.lo + 1, pixels) << "more values than pixels";
            int drags = 0;
            while (t < w.lo || t > w.hi) {
                const std::int64_t edge = t < w.lo ? w.lo : w.hi;  // a drag to the fine slider's end
                const LinearWindow next = followWindow(w, edge, pixels, lo, hi);
                ASSERT_NE(next, w) << "the window does not follow a drag to its edge, T = " << t;
                w = next;
                ASSERT_LT(++drags, 20) << "T = " << t << " needs too many drags at " << pixels << " px";
            }
            worstDrags = std::max(worstDrags, drags);
        }
        // On a slider of 300 px one coarse drag and one fine drag reach every T up to 4096.
        if (pixels >= 300) {
            EXPECT_EQ(worstDrags, 0);
        }
    }
}
