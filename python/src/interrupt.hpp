// Ctrl-C during a blocking call that runs with the GIL released (opening a FIFO with no reader,
// a read or write that waits): Python's own SIGINT handler only sets a flag that nobody reads
// until the call returns. While an InterruptScope lives, SIGINT also asks the core to stop
// (alibi/base/interrupt.hpp), whose system-call loops then give up at the first EINTR instead of
// retrying; check() afterwards raises the KeyboardInterrupt Python has pending.
#pragma once

namespace alibi::python {

class InterruptScope {
public:
    InterruptScope();  // with the GIL held
    ~InterruptScope();
    InterruptScope(const InterruptScope&) = delete;
    InterruptScope& operator=(const InterruptScope&) = delete;
    // With the GIL held, after the call: raises KeyboardInterrupt if Ctrl-C came.
    void check();

private:
    bool m_installed = false;
};

}  // namespace alibi::python
