// Errors the core reports: a code a front end can branch on and a message a person can act on.
// The core never lets an exception cross its API; every fallible call returns Result<T>.
#pragma once

#include <alibi/base/field_names.hpp>

#include <expected>
#include <optional>
#include <string>
#include <utility>

namespace alibi {

enum class ErrorCode {
    InvalidArgument,  // a parameter is out of range or malformed (CLI exit status 2)
    BadInput,         // a file's content is malformed (CLI exit status 2)
    TooLarge,         // the request exceeds the memory budget or a hard limit (CLI exit status 2)
    Io,               // the operating system refused a read or write (CLI exit status 1)
    Cancelled,        // the progress callback asked to stop
    Internal,         // a bug; the message says what to report
};

struct Error {
    ErrorCode code = ErrorCode::Internal;
    std::string message;
    // The parameter the error is about, when it is one: the explorers show the message at that
    // field, and every front end names it in its own words (base/field_names.hpp).
    std::optional<Field> field = {};
};

template <class T>
using Result = std::expected<T, Error>;

// Shorthand for `return fail(ErrorCode::X, "...")` inside functions returning Result<T>.
[[nodiscard]] inline std::unexpected<Error> fail(ErrorCode code, std::string message) {
    return std::unexpected<Error>(Error{code, std::move(message)});
}

// The same, about one parameter.
[[nodiscard]] inline std::unexpected<Error> fail(ErrorCode code, std::string message, Field field) {
    return std::unexpected<Error>(Error{code, std::move(message), field});
}

// True for the codes a CLI reports as "bad usage or bad input" (exit status 2).
[[nodiscard]] constexpr bool isUserError(ErrorCode code) {
    return code == ErrorCode::InvalidArgument || code == ErrorCode::BadInput || code == ErrorCode::TooLarge;
}

}  // namespace alibi
