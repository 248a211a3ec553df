// Signal handlers that only touch a sig_atomic_t (async-signal-safe); see cancel.hpp.
#include "cancel.hpp"

#include <alibi/base/interrupt.hpp>

#include <csignal>

namespace alibi::cli {
namespace {

volatile std::sig_atomic_t g_signal = 0;

extern "C" void onInterrupt(int sig) {
    if (g_signal != 0) {
        // Second signal: give up immediately with the default action.
        std::signal(sig, SIG_DFL);
        std::raise(sig);
        return;
    }
    g_signal = sig;
    // The core's system-call loops stop retrying EINTR from now on: a blocking open of a FIFO,
    // a read or a write ends on this first signal.
    alibi::requestInterrupt();
}

}  // namespace

void installInterruptHandlers() {
    struct sigaction action {};
    action.sa_handler = onInterrupt;
    sigemptyset(&action.sa_mask);
    // No SA_RESTART: a write blocked on a FIFO or a slow device returns EINTR, so the export
    // notices the cancellation instead of waiting for a reader that may never come.
    action.sa_flags = 0;
    sigaction(SIGINT, &action, nullptr);
    sigaction(SIGTERM, &action, nullptr);
    // The terminal went away (ssh dropped, window closed): same clean cancellation.
    sigaction(SIGHUP, &action, nullptr);
}

int interruptSignal() {
    return static_cast<int>(g_signal);
}

}  // namespace alibi::cli
