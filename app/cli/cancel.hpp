// SIGINT/SIGTERM/SIGHUP handling: the first signal only sets flags, which the progress callbacks
// turn into ErrorCode::Cancelled and the core's system-call loops into an end of their EINTR
// retries (alibi/base/interrupt.hpp), so the core stops, even inside a blocking call, and drops
// its temporary file; a second signal terminates at once (the last resort).
#pragma once

namespace alibi::cli {

void installInterruptHandlers();
// The signal received (SIGINT, SIGTERM, SIGHUP), or 0.
[[nodiscard]] int interruptSignal();
[[nodiscard]] inline bool interrupted() {
    return interruptSignal() != 0;
}

}  // namespace alibi::cli
