// The progress-and-cancel callback every long-running core function accepts.
#pragma once

#include <cstdint>
#include <functional>

namespace alibi {

// Called with the work done so far and the total (same unit, usually bytes or rows).
// Return false to cancel; the function then stops soon and returns ErrorCode::Cancelled.
// An empty function means "no progress reporting, never cancel".
using ProgressFn = std::function<bool(std::uint64_t done, std::uint64_t total)>;

}  // namespace alibi
