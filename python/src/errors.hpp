// Core errors -> Python exceptions, in one place: a bad argument or bad input is ValueError, a
// request above the memory budget MemoryError, an operating-system failure OSError, a cancelled
// call alibi_explorer.Cancelled, anything else RuntimeError.
#pragma once

#include <alibi/base/error.hpp>

#include <pybind11/pybind11.h>

#include <utility>

namespace alibi::python {

// Registers alibi_explorer.Cancelled on the module.
void registerErrors(pybind11::module_& m);

// Throws the Python exception for `error` (never returns).
[[noreturn]] void raise(const Error& error);

// The value of a Result, or the matching Python exception.
template <class T>
T unwrap(Result<T>&& result) {
    if (!result) raise(result.error());
    if constexpr (!std::is_void_v<T>) return std::move(*result);
}

}  // namespace alibi::python
