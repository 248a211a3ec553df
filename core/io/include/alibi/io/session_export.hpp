// What an explorer exports for a session: the bias it shows, as a source plus the export request
// (so plan and export agree), a session with a `batch` section giving the whole (B, H, T, T)
// batch exactly as `alibi bias --config session.alibi.json` writes it.
#pragma once

#include <alibi/base/tensor.hpp>
#include <alibi/io/export_plan.hpp>
#include <alibi/io/session.hpp>

#include <memory>
#include <string>

namespace alibi {

struct SessionExport {
    std::unique_ptr<TensorSource> source;
    ExportRequest request;
};

// The bias: with a batch, built in memory within session.maxMemory on the first read (layout
// bhqk, padding and document boundaries holding the mask; planning costs nothing); otherwise
// streamed (H, Q, K) in the session's layout.
[[nodiscard]] Result<SessionExport> sessionBiasExport(const Session& session, std::string path, FileFormat format);

// The attention probabilities: streamed (H, Q, K); with a batch, the (B, H, T, T) softmax of each
// batch row (masked keys at the mask value, computed in double, rounded once to the dtype), built
// whole on the first read within session.maxMemory.
[[nodiscard]] Result<SessionExport> sessionAttentionExport(const Session& session, std::string path, FileFormat format);

}  // namespace alibi
