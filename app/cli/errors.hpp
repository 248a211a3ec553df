// The one place where the CLI turns an alibi::Error into a message on stderr and an exit status:
// 0 success, 2 bad usage or bad input, 1 an I/O or runtime failure, 128 + signal when cancelled.
#pragma once

#include <alibi/base/error.hpp>

#include <string>

namespace alibi::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitRuntime = 1;
inline constexpr int kExitUsage = 2;

// A usage error (exit status 2) whose message names the offending flag.
[[nodiscard]] Error usageError(std::string message);

// Prints "alibi: error: <message>" (or "alibi: cancelled ...") and returns the exit status.
[[nodiscard]] int reportError(const Error& error);

}  // namespace alibi::cli
