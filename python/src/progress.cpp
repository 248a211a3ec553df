// The progress adapter of progress.hpp.
#include "progress.hpp"

namespace py = pybind11;

namespace alibi::python {
namespace {

constexpr auto kInterval = std::chrono::milliseconds(50);

}  // namespace

Progress::Progress(py::object callback) : m_callback(std::move(callback)), m_last(std::chrono::steady_clock::now()) {}

Progress::~Progress() {
    // Destroyed with the GIL held (the object lives on the calling frame); the stored error
    // owns Python references, so it must go while the GIL is held too.
    m_error.reset();
}

ProgressFn Progress::fn() {
    return [this](std::uint64_t done, std::uint64_t total) { return report(done, total); };
}

bool Progress::report(std::uint64_t done, std::uint64_t total) {
    std::lock_guard lock(m_mutex);
    if (m_error) return false;
    const auto now = std::chrono::steady_clock::now();
    if (m_reported && now - m_last < kInterval && done < total) return true;
    m_reported = true;
    m_last = now;
    py::gil_scoped_acquire gil;
    try {
        if (PyErr_CheckSignals() != 0) throw py::error_already_set();
        if (m_callback.is_none()) return true;
        const py::object result = m_callback(done, total);
        return !(py::isinstance<py::bool_>(result) && !result.cast<bool>());
    } catch (py::error_already_set& e) {
        m_error = std::make_unique<py::error_already_set>(std::move(e));
        return false;
    }
}

void Progress::rethrow() {
    if (!m_error) return;
    auto error = std::move(m_error);
    error->restore();
    throw py::error_already_set();
}

}  // namespace alibi::python
