// The one mapping from alibi::ErrorCode to Python exceptions (errors.hpp).
#include "errors.hpp"

#include <alibi/base/field_names.hpp>

namespace py = pybind11;

namespace alibi::python {
namespace {

// Created once at import; owned by the module (pybind11 keeps the reference alive).
PyObject* g_cancelled = nullptr;

}  // namespace

void registerErrors(py::module_& m) {
    static py::exception<std::exception> cancelled(m, "Cancelled", PyExc_Exception);
    cancelled.doc() = "Raised when a progress callback returns False to stop a long call.";
    g_cancelled = cancelled.ptr();
}

void raise(const Error& error) {
    // The core names parameters by their CLI flags; Python names them by its keywords (one table,
    // alibi/base/field_names.hpp).
    const std::string message = wordMessage(error.message, FrontEnd::Python);
    switch (error.code) {
        case ErrorCode::InvalidArgument:
        case ErrorCode::BadInput:
            throw py::value_error(message);
        case ErrorCode::TooLarge:
            PyErr_SetString(PyExc_MemoryError, message.c_str());
            throw py::error_already_set();
        case ErrorCode::Io:
            PyErr_SetString(PyExc_OSError, message.c_str());
            throw py::error_already_set();
        case ErrorCode::Cancelled:
            PyErr_SetString(g_cancelled, message.c_str());
            throw py::error_already_set();
        case ErrorCode::Internal:
            break;
    }
    throw std::runtime_error("internal error (please report it): " + message);
}

}  // namespace alibi::python
