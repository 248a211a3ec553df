// Long calls run with the GIL released; this adapter turns a Python callable into the core's
// ProgressFn. It takes the GIL only to call back (the first report, then at most every 50 ms, and
// the last), and checks for Ctrl-C at the same moments, so a notebook's interrupt stops the call.
// A callback returning False (not None) cancels; one that raises cancels and re-raises after.
#pragma once

#include <alibi/base/progress.hpp>

#include <pybind11/pybind11.h>

#include <chrono>
#include <memory>
#include <mutex>

namespace alibi::python {

class Progress {
public:
    explicit Progress(pybind11::object callback);
    ~Progress();
    Progress(const Progress&) = delete;
    Progress& operator=(const Progress&) = delete;

    // The core-facing callback; safe to call from any thread, with or without the GIL.
    [[nodiscard]] ProgressFn fn();
    // After the call, with the GIL held: re-raises what a callback raised, if anything.
    void rethrow();

private:
    bool report(std::uint64_t done, std::uint64_t total);

    pybind11::object m_callback;
    std::mutex m_mutex;  // core loops may report from several threads
    std::chrono::steady_clock::time_point m_last;
    bool m_reported = false;  // the first report always reaches the callback
    std::unique_ptr<pybind11::error_already_set> m_error;
};

}  // namespace alibi::python
