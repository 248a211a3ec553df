// AsyncView: the worker, mailbox and bookkeeping of one view's core computation. The Explorer
// submits the view's request every frame; only a request that differs from the last one starts
// work (the running job is cancelled), and the newest finished result is kept on screen, marked
// stale while a newer one computes.
#pragma once

#include "mailbox.hpp"
#include "model.hpp"
#include "worker.hpp"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>

namespace alibi::imgui {

template <class Request, class Result>
class AsyncView {
public:
    using Compute = std::function<std::shared_ptr<const Result>(const Request&, const CancelFlag&)>;

    AsyncView(Compute compute, std::function<void()> wake, int niceness = 6)
        : m_compute(std::move(compute)), m_wake(std::move(wake)), m_worker(niceness) {}

    // Starts work for `request` unless it is what was asked for last.
    void submit(const Request& request) {
        if (m_last && *m_last == request) return;
        m_last = request;
        const std::uint64_t generation = ++m_generation;
        m_pending = true;
        m_worker.submit([this, request, generation](const CancelFlag& cancel) {
            if (auto result = m_compute(request, cancel)) {
                m_box.put(generation, std::move(result));
                if (m_wake) m_wake();
            }
        });
    }

    // Takes the newest finished result, if any arrived.
    void collect() {
        std::uint64_t generation = 0;
        if (auto result = m_box.take(generation)) {
            m_result = std::move(result);
            m_pending = generation != m_generation;
        }
    }

    [[nodiscard]] const std::shared_ptr<const Result>& result() const { return m_result; }
    [[nodiscard]] bool pending() const { return m_pending; }

private:
    Compute m_compute;
    std::function<void()> m_wake;
    std::optional<Request> m_last;
    std::uint64_t m_generation = 0;
    std::shared_ptr<const Result> m_result;
    bool m_pending = false;
    Mailbox<Result> m_box;
    LatestWorker m_worker;  // last: joined first, before the mailbox its jobs write to
};

}  // namespace alibi::imgui
