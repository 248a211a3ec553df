// See interrupt.hpp.
#include <alibi/base/interrupt.hpp>

#include <atomic>

namespace alibi {
namespace {

std::atomic<bool> g_interrupt{false};
static_assert(std::atomic<bool>::is_always_lock_free, "set from a signal handler");

}  // namespace

void requestInterrupt() noexcept {
    g_interrupt.store(true, std::memory_order_relaxed);
}
bool interruptRequested() noexcept {
    return g_interrupt.load(std::memory_order_relaxed);
}
void clearInterrupt() noexcept {
    g_interrupt.store(false, std::memory_order_relaxed);
}

}  // namespace alibi
