// SIGINT/SIGTERM/SIGHUP handling: the first signal only sets a flag, which the progress callbacks turn
// into ErrorCode::Cancelled, so the core stops and removes its temporary file; a second signal
// of the same kind terminates at once (the escape hatch when something blocks).
#pragma once

namespace alibi::cli {

void installInterruptHandlers();
// The signal received (SIGINT, SIGTERM, SIGHUP), or 0.
[[nodiscard]] int interruptSignal();
[[nodiscard]] inline bool interrupted() { return interruptSignal() != 0; }

}  // namespace alibi::cli
