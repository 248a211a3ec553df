// Background priority for the front ends' worker threads.
#pragma once

namespace alibi {

// Sets the calling thread's nice value `niceness` above the main thread's (at most 19), so the
// thread runs below the UI even when the application was started with `nice`. Linux keeps a nice
// value per thread, inherited by the threads started from it (the core's parallel loops), so
// on a busy machine the UI thread, and the display server drawing it, win the CPU. Failure is
// ignored: the worker then merely competes with the UI as an equal.
void lowerThisThreadPriority(int niceness);

}  // namespace alibi
