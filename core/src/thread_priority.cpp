// Per-thread nice values through setpriority(PRIO_PROCESS, tid): Linux applies them to the
// one thread; other systems have no such call here, and the function does nothing.
#include <alibi/thread_priority.hpp>

#if defined(__linux__)
#include <sys/resource.h>
#include <unistd.h>
#endif

namespace alibi {

void lowerThisThreadPriority(int niceness) {
#if defined(__linux__)
    if (niceness > 0) (void)setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), niceness);
#else
    (void)niceness;
#endif
}

}  // namespace alibi
