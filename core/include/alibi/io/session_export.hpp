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

// The attention probabilities (streamed); a session with a batch is refused with a message that
// says what to export instead (the batch's attention is shown, not yet exported).
[[nodiscard]] Result<SessionExport> sessionAttentionExport(const Session& session, std::string path,
                                                           FileFormat format);

}  // namespace alibi
