// The progress words every front end shows (both explorers' marks, `alibi render`): the phase,
// the percentage done (rounded down, so 100 % only when done) and the estimate of the time left
// at the rate so far, elapsed x (1 - f) / f, written by hand below.
#include <alibi/explore/progress_text.hpp>

#include <gtest/gtest.h>

using namespace alibi::explore;

TEST(ProgressText, PhasePercentAndEstimate) {
    EXPECT_EQ(progressText(ProgressPhase::Refining, 0.42, 17.4), "preview, refining... 42 %, about 17 s left");
    EXPECT_EQ(progressText(ProgressPhase::Updating, 0.5), "updating... 50 %");
    EXPECT_EQ(progressText(ProgressPhase::Computing, -1), "Computing...");
    EXPECT_EQ(progressText(ProgressPhase::Computing, 0.999), "Computing... 99 %");
    EXPECT_EQ(progressText(ProgressPhase::Computing, 1.0), "Computing...");  // done: no figure
    EXPECT_EQ(progressText(ProgressPhase::Updating, 0.9, 0.2), "updating... 90 %, about 1 s left");
}

TEST(ProgressText, SecondsLeftAtTheRateSoFar) {
    EXPECT_DOUBLE_EQ(secondsLeft(10.0, 0.25), 30.0);  // 10 s for a quarter: 30 s for the rest
    EXPECT_DOUBLE_EQ(secondsLeft(2.0, 0.5), 2.0);
    EXPECT_EQ(secondsLeft(10.0, 0.01), -1);  // under 2 %: too early to say
    EXPECT_EQ(secondsLeft(0.2, 0.5), -1);    // under half a second
    EXPECT_EQ(secondsLeft(5.0, 1.0), -1);    // done
    EXPECT_EQ(secondsLeft(5.0, -1.0), -1);   // unknown
}
