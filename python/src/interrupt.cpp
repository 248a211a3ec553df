// The SIGINT bridge of interrupt.hpp: a handler that asks the core to stop, then runs the
// handler it replaced (CPython's, which records the KeyboardInterrupt).
#include "interrupt.hpp"

#include <alibi/base/interrupt.hpp>

#include <pybind11/pybind11.h>

#include <signal.h>

#include <atomic>
#include <mutex>

namespace alibi::python {
namespace {

std::mutex g_lock;  // one scope installs the handler; nested or concurrent ones share it
int g_scopes = 0;
struct sigaction g_previous {};

void onInterrupt(int sig, siginfo_t* info, void* context) {
    requestInterrupt();
    if ((g_previous.sa_flags & SA_SIGINFO) != 0) {
        if (g_previous.sa_sigaction != nullptr) g_previous.sa_sigaction(sig, info, context);
    } else if (g_previous.sa_handler != SIG_DFL && g_previous.sa_handler != SIG_IGN &&
               g_previous.sa_handler != nullptr) {
        g_previous.sa_handler(sig);
    }
}

}  // namespace

InterruptScope::InterruptScope() {
    std::lock_guard lock(g_lock);
    if (g_scopes++ > 0) {
        m_installed = true;
        return;
    }
    struct sigaction action {};
    action.sa_sigaction = onInterrupt;
    action.sa_flags = SA_SIGINFO;  // no SA_RESTART: a blocked open() or write() returns EINTR
    sigemptyset(&action.sa_mask);
    m_installed = ::sigaction(SIGINT, &action, &g_previous) == 0;
    if (!m_installed) --g_scopes;
}

InterruptScope::~InterruptScope() {
    if (!m_installed) return;
    std::lock_guard lock(g_lock);
    if (--g_scopes == 0) {
        ::sigaction(SIGINT, &g_previous, nullptr);
        clearInterrupt();
    }
}

void InterruptScope::check() {
    if (PyErr_CheckSignals() != 0) throw pybind11::error_already_set();
}

}  // namespace alibi::python
