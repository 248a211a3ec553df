// The files this run of `alibi` reads (a --config session, the tensor of `diagnose`), so that no
// output can replace one of them: `alibi diagnose in.npy -o in.npy` must not destroy its input.
#pragma once

#include <alibi/base/error.hpp>

#include <string>

namespace alibi::cli {

void noteInput(const std::string& path);
// Fails (exit status 2) when `output` is one of the noted inputs: the same device and inode,
// through any path, symbolic link or hard link.
[[nodiscard]] Result<void> checkNotAnInput(const std::string& output);

}  // namespace alibi::cli
