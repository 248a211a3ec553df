// Background priority for the front ends' worker threads.
#pragma once

namespace alibi {

// Lowers the calling thread's scheduling priority by `niceness` (1..19). Linux keeps a nice
// value per thread, inherited by the threads started from it (the core's parallel loops), so
// on a busy machine the UI thread, and the display server drawing it, win the CPU. Failure is
// ignored: the worker then merely competes with the UI as an equal.
void lowerThisThreadPriority(int niceness);

}  // namespace alibi
