// A Hugging Face model folder opened for running: config.json (config.hpp), and the weights in
// model.safetensors or in the shards model.safetensors.index.json names. Opening validates
// everything before a weight is read: the config, every shard's header (a truncated shard is
// refused), that the index's files exist and hold what it says, and that every tensor the
// architecture needs is present with the shape the config implies. Weights are then read tensor
// by tensor (pread, converted to float32 from F32, F16, BF16 or F64), so a forward pass holds
// one layer at a time. A .bin (pickle) checkpoint is never opened: pickles can run code.
#pragma once

#include <alibi/base/error.hpp>
#include <alibi/base/tensor.hpp>
#include <alibi/lm/config.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace alibi {
class SafetensorsFile;
struct SafetensorsEntry;
}  // namespace alibi

namespace alibi::lm {

// A tensor the architecture reads, by its name without the "transformer." prefix.
struct WeightSpec {
    std::string name;
    Shape shape;
    bool required = true;
};

// Every tensor a model of this config reads, in the order a forward pass needs them.
[[nodiscard]] std::vector<WeightSpec> expectedWeights(const LmConfig& config);

class Checkpoint {
public:
    [[nodiscard]] static Result<Checkpoint> open(const std::string& folder,
                                                 const std::function<bool()>& cancelled = {});

    Checkpoint(Checkpoint&&) noexcept;
    Checkpoint& operator=(Checkpoint&&) noexcept;
    ~Checkpoint();

    [[nodiscard]] const LmConfig& config() const { return m_config; }
    [[nodiscard]] const std::string& folder() const { return m_folder; }
    // The stored dtypes of the weights read, e.g. "bf16" or "f32, f16".
    [[nodiscard]] const std::string& dtypes() const { return m_dtypes; }
    // How many safetensors files hold the weights.
    [[nodiscard]] int shards() const { return static_cast<int>(m_files.size()); }
    // The stored bytes of every tensor the model reads.
    [[nodiscard]] std::uint64_t weightBytes() const { return m_weightBytes; }

    [[nodiscard]] bool has(std::string_view name) const;
    // The whole tensor `name` in float32 (row-major).
    [[nodiscard]] Result<std::vector<float>> read(std::string_view name) const;
    // Rows [first, first + count) of the 2-D tensor `name` into `out` (count * columns floats).
    [[nodiscard]] Result<void> readRows(std::string_view name, std::int64_t first, std::int64_t count,
                                        std::span<float> out) const;

private:
    Checkpoint() = default;
    struct Located {
        const SafetensorsFile* file = nullptr;
        const SafetensorsEntry* entry = nullptr;
    };
    [[nodiscard]] Result<Located> locate(std::string_view name) const;

    LmConfig m_config;
    std::string m_folder;
    std::string m_dtypes;
    std::uint64_t m_weightBytes = 0;
    std::vector<std::unique_ptr<SafetensorsFile>> m_files;
    std::map<std::string, Located, std::less<>> m_tensors;
};

}  // namespace alibi::lm
