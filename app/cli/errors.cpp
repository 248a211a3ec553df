// Exit statuses and error messages, decided in one place so every subcommand agrees.
#include "errors.hpp"

#include "cancel.hpp"

#include <fmt/format.h>
#include <csignal>
#include <cstdio>

namespace alibi::cli {

Error usageError(std::string message) {
    return Error{ErrorCode::InvalidArgument, std::move(message)};
}

int reportError(const Error& error) {
    // A signal wins over whatever error the interrupted call produced (EINTR, Cancelled): the
    // user asked to stop, and the core has already removed any temporary file.
    if (const int sig = interruptSignal(); sig != 0 || error.code == ErrorCode::Cancelled) {
        const char* name = sig == SIGTERM ? "SIGTERM" : sig == SIGINT ? "SIGINT" : sig == SIGHUP ? "SIGHUP" : nullptr;
        fmt::print(stderr, "alibi: cancelled{}; no partial file was left behind\n",
                   name ? fmt::format(" by {}", name) : std::string());
        return sig != 0 ? 128 + sig : kExitRuntime;
    }
    const char* kind = error.code == ErrorCode::Internal ? "internal error" : "error";
    fmt::print(stderr, "alibi: {}: {}\n", kind, error.message);
    if (error.code == ErrorCode::Internal)
        fmt::print(stderr, "alibi: this is a bug; please report it with the command line above\n");
    return isUserError(error.code) ? kExitUsage : kExitRuntime;
}

}  // namespace alibi::cli
