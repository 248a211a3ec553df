// A trained model's saved attention maps, opened without reading them whole: a .npy array of
// shape (H, Q, K), (L, H, Q, K) or (B, L, H, Q, K), or a .safetensors file with one (H, Q, K) or
// (B, H, Q, K) tensor per layer (Hugging Face's `output_attentions=True` gives (B, H, Q, K) per
// layer). The file is kept open and only the rows asked for are read (with pread: a file that
// shrinks or changes while open makes a read fail with "the file changed on disk; reopen it",
// never a crash). Values may be
// probabilities (rows sum to 1) or pre-softmax scores; which one is detected from a sample of
// rows and may be overridden.
#pragma once

#include <alibi/base/dtype.hpp>
#include <alibi/base/error.hpp>
#include <alibi/base/progress.hpp>
#include <alibi/base/tensor.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace alibi {

enum class AttentionValues { Probabilities, Scores };
// "probabilities", "scores".
[[nodiscard]] std::string_view attentionValuesName(AttentionValues values);
[[nodiscard]] std::optional<AttentionValues> parseAttentionValues(std::string_view name);

// How far an open has come, for a progress bar: an open reads the header (a legal safetensors
// header may be 100 MB), parses it, then reads and checks a sample of rows.
struct AttentionOpenProgress {
    enum class Stage { ReadingHeader, ParsingHeader, SamplingRows };
    Stage stage = Stage::ReadingHeader;
    std::uint64_t done = 0, total = 0;  // header bytes read or parsed; sampled rows checked

    // The fraction of the whole open, 0 to 1, never going back: each stage is a third.
    [[nodiscard]] double fraction() const;
    // "reading the header: 12.0 MiB of 95.4 MiB", "checking sampled rows: 12 of 128".
    [[nodiscard]] std::string text() const;
};
using AttentionOpenProgressFn = std::function<bool(const AttentionOpenProgress&)>;

struct AttentionOpenOptions {
    std::string tensor;                     // .safetensors: open only this tensor (one layer); empty: every layer
    int batch = 0;                          // which element of a batched array (B, ...) to read
    std::optional<AttentionValues> values;  // nullopt: detect
    // Asked now and then while the header is read (a legal safetensors header may be 100 MB):
    // true stops the open with ErrorCode::Cancelled. The user's Ctrl+C (base/interrupt.hpp) does too.
    std::function<bool()> cancelled;
    // Called as the open goes (after every MiB of header read, every few thousand JSON events
    // parsed, every sampled row), from the thread that opens; false stops the open with
    // ErrorCode::Cancelled, as `cancelled` does.
    AttentionOpenProgressFn progress;
};

struct AttentionLayerInfo {
    std::string name;  // the safetensors tensor name; "" for a stacked array
    int number = 0;    // the layer number: from 0 in file order for a stacked array, the number
                       // in the tensor's name for a safetensors file (file order when names carry none)
};

// Hard limits on what is accepted (checked before any row is read).
inline constexpr int kMaxAttentionLayers = 4096;
inline constexpr int kMaxAttentionHeads = 4096;
inline constexpr std::int64_t kMaxAttentionLength = std::int64_t{1} << 21;

class AttentionMaps {
public:
    // Opens a file by path (its format from the magic bytes or the extension).
    [[nodiscard]] static Result<AttentionMaps> open(const std::string& path, const AttentionOpenOptions& options = {});
    // The same over bytes someone else owns (they must outlive the maps): tests and fuzzers.
    // `safetensors` chooses the format.
    [[nodiscard]] static Result<AttentionMaps> fromBytes(std::span<const std::byte> bytes, bool safetensors,
                                                         const AttentionOpenOptions& options = {});

    AttentionMaps(AttentionMaps&&) noexcept;
    AttentionMaps& operator=(AttentionMaps&&) noexcept;
    ~AttentionMaps();

    [[nodiscard]] int layers() const { return static_cast<int>(m_layers.size()); }
    [[nodiscard]] const std::vector<AttentionLayerInfo>& layerInfo() const { return m_info; }
    // The index of the layer numbered `number`; an error listing the layers' numbers when none is.
    [[nodiscard]] Result<int> layerIndexOf(std::int64_t number) const;
    [[nodiscard]] int heads() const { return m_heads; }
    [[nodiscard]] std::int64_t queries() const { return m_queries; }
    [[nodiscard]] std::int64_t keys() const { return m_keys; }
    [[nodiscard]] int batches() const { return m_batches; }
    [[nodiscard]] int batch() const { return m_batch; }
    [[nodiscard]] DType dtype() const { return m_dtype; }
    [[nodiscard]] std::uint64_t fileBytes() const { return m_fileBytes; }
    // The bytes of the maps this object reads (one batch element, every layer).
    [[nodiscard]] std::uint64_t mapBytes() const;
    // "(24, 16, 2048, 2048) f32 .npy" as the file stores it.
    [[nodiscard]] const std::string& layoutText() const { return m_layoutText; }

    [[nodiscard]] AttentionValues values() const { return m_values; }
    [[nodiscard]] bool valuesDetected() const { return m_valuesDetected; }
    // Why: "rows sum to 1 (64 sampled rows)", "negative values: pre-softmax scores", "given".
    [[nodiscard]] const std::string& valuesReason() const { return m_valuesReason; }
    // True when the sampled rows put no mass on keys after their query (query i at position
    // i + K - Q, the KV-cache alignment): distances are then i - j, otherwise |i - j|.
    [[nodiscard]] bool causal() const { return m_causal; }

    // Row q of (layer index, head) as probabilities in double (scores go through a softmax,
    // -inf entries become 0). An error names the layer, head, row and key of a NaN, a negative
    // or above-1 probability, or a row that does not sum to 1. A row that is all zeros (a
    // padding query, or one with every key masked) is returned as zeros: callers skip it.
    [[nodiscard]] Result<void> probabilities(int layer, int head, std::int64_t q, std::span<double> out) const;
    // Row q as the file stores it (converted to double, no check, no softmax, no renormalising):
    // what a read-out quotes as "the file's value".
    [[nodiscard]] Result<void> storedRow(int layer, int head, std::int64_t q, std::span<double> out) const {
        return decode(layer, head, q, out);
    }
    // The tokens the maps were computed on, one per key position: a safetensors file's
    // __metadata__ "tokens" (a JSON list of strings, each one token's text as
    // scripts/save_attention_maps.py and `alibi run` write it) and "token_ids" (a JSON list of
    // ids, optional). Empty when the file names none, or when they do not match its keys
    // (tokensNote() then says why; the maps open all the same).
    [[nodiscard]] const std::vector<std::string>& tokens() const { return m_tokens; }
    [[nodiscard]] const std::vector<std::int64_t>& tokenIds() const { return m_tokenIds; }
    [[nodiscard]] const std::string& tokensNote() const { return m_tokensNote; }
    // The token at key j, and the one at query row q's position (q + K - Q); nullptr when the
    // file names no tokens or the index is outside the maps.
    [[nodiscard]] const std::string* keyToken(std::int64_t key) const;
    [[nodiscard]] const std::string* queryToken(std::int64_t query) const;
    // The id of key j's token; nullopt when the file gives none.
    [[nodiscard]] std::optional<std::int64_t> keyTokenId(std::int64_t key) const;

    // The slopes the maps were computed with, one per head: a safetensors file's __metadata__
    // "slopes" (a JSON list of positive numbers, as `alibi run` and the explorers' model runs
    // write it: the slope each head's attention actually has). Empty when the file names none,
    // or when they do not fit its heads (fileSlopesNote() then says why).
    [[nodiscard]] const std::vector<double>& fileSlopes() const { return m_fileSlopes; }
    [[nodiscard]] const std::string& fileSlopesNote() const { return m_fileSlopesNote; }

    // Gives the pages of a layer (or of one head of it) back to the kernel once they have been
    // read, so a pass over a file larger than memory keeps a bounded resident size.
    void release(int layer, int head = -1) const;

private:
    AttentionMaps() = default;
    struct Mapping;
    struct Layer {
        std::uint64_t offset = 0;  // of this batch element's (H, Q, K) block, from the file's start
    };
    [[nodiscard]] static Result<AttentionMaps> build(std::shared_ptr<Mapping> mapping, bool safetensors,
                                                     const AttentionOpenOptions& options);
    [[nodiscard]] Result<void> detect(const AttentionOpenOptions& options);
    [[nodiscard]] Result<void> checkRowIndex(int layer, int head, std::int64_t q, std::size_t size) const;
    [[nodiscard]] std::uint64_t rowOffset(int layer, int head, std::int64_t q) const;  // index checked
    // The row's stored bytes, read into this thread's buffer (valid until its next read).
    [[nodiscard]] Result<const std::byte*> readRow(int layer, int head, std::int64_t q) const;
    [[nodiscard]] Result<void> decode(int layer, int head, std::int64_t q, std::span<double> out) const;

    std::shared_ptr<Mapping> m_mapping;
    std::vector<Layer> m_layers;
    std::vector<AttentionLayerInfo> m_info;
    int m_heads = 0, m_batches = 1, m_batch = 0;
    std::int64_t m_queries = 0, m_keys = 0;
    DType m_dtype = DType::F32;
    bool m_byteSwap = false;
    std::uint64_t m_fileBytes = 0;
    std::string m_layoutText;
    AttentionValues m_values = AttentionValues::Probabilities;
    bool m_valuesDetected = true;
    std::string m_valuesReason;
    bool m_causal = true;
    std::vector<std::string> m_tokens;
    std::vector<std::int64_t> m_tokenIds;
    std::string m_tokensNote;
    std::vector<double> m_fileSlopes;
    std::string m_fileSlopesNote;
    void readTokens(const std::map<std::string, std::string>& metadata);
    void readSlopes(const std::map<std::string, std::string>& metadata);
};

// The __metadata__ keys of the tokens (see AttentionMaps::tokens()).
inline constexpr std::string_view kTokensMetadataKey = "tokens";
inline constexpr std::string_view kTokenIdsMetadataKey = "token_ids";
// The __metadata__ key of the slopes (see AttentionMaps::fileSlopes()).
inline constexpr std::string_view kSlopesMetadataKey = "slopes";

// The layer number a tensor name carries: its last run of digits ("model.layers.7.attn" -> 7,
// "attentions.3" -> 3); nullopt when it has none.
[[nodiscard]] std::optional<int> layerNumberFromName(std::string_view name);

}  // namespace alibi
