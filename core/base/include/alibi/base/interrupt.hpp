// A process-wide "the user asked to stop" flag, set from a signal handler (SIGINT, SIGTERM,
// SIGHUP) by a front end and read by the core's system-call loops: a call interrupted by a
// signal (EINTR) is retried only when no stop was asked for, so the first Ctrl-C ends a blocking
// open of a FIFO, a read or a write at once. Signals are process-wide, so this flag is too.
#pragma once

namespace alibi {

// Async-signal-safe: only stores to a lock-free atomic.
void requestInterrupt() noexcept;
[[nodiscard]] bool interruptRequested() noexcept;
// For tests and for a GUI that cancels one job and goes on.
void clearInterrupt() noexcept;

}  // namespace alibi
