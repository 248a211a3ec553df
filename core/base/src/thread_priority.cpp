// Per-thread nice values through setpriority(PRIO_PROCESS, tid): Linux applies them to the
// one thread; other systems have no such call here, and the function does nothing.
#include <alibi/base/thread_priority.hpp>

#if defined(__linux__)
#include <algorithm>
#include <cerrno>

#include <sys/resource.h>
#include <unistd.h>
#endif

namespace alibi {

void lowerThisThreadPriority(int niceness) {
#if defined(__linux__)
    if (niceness <= 0) return;
    // Relative to the main thread (whose id is the process id), so an application started
    // with `nice` keeps its workers below its UI, and a reused pool thread is not lowered twice.
    errno = 0;  // getpriority may return -1 as a real nice value; errno tells an error apart
    const int base = getpriority(PRIO_PROCESS, static_cast<id_t>(getpid()));
    if (errno != 0) return;
    (void)setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), std::min(19, base + niceness));
#else
    (void)niceness;
#endif
}

}  // namespace alibi
