// The bias tensor. Every row of a head is a slice of one per-head template (distance modes)
// or a prefix of it followed by the mask (bloom, mpt), so rows are memory copies; every
// template entry is computed once by biasValue's formula, so the fast path and the formula
// agree bit for bit.
#include <alibi/model/arith.hpp>
#include <alibi/model/bias.hpp>
#include <alibi/model/slopes.hpp>

#include <alibi/base/parallel.hpp>

#include <fmt/format.h>
#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <mutex>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <immintrin.h>
#define ALIBI_BIAS_X86 1
#endif

namespace alibi {

// ---------------------------------------------------------------------------
// Cell formula

std::optional<std::int64_t> biasMultiplier(BiasMode mode, std::int64_t queryPos, std::int64_t key,
                                           std::int64_t keyCount) {
    const std::int64_t d = queryPos - key;
    switch (mode) {
        case BiasMode::Causal:
            if (d < 0) return std::nullopt;
            return -d;
        case BiasMode::Symmetric:
            return d < 0 ? d : -d;
        case BiasMode::Clamped:
            return -std::max<std::int64_t>(d, 0);
        case BiasMode::Bloom:
            if (d < 0) return std::nullopt;
            return key;
        case BiasMode::Mpt:
            if (d < 0) return std::nullopt;
            return -(keyCount - 1 - key);
    }
    return std::nullopt;
}

std::optional<double> biasCell(BiasMode mode, double slope, std::int64_t queryPos, std::int64_t key,
                               std::int64_t keyCount) {
    const auto n = biasMultiplier(mode, queryPos, key, keyCount);
    if (!n) return std::nullopt;
    // slope * n with n a signed integer: a zero distance gives +0.0, as every framework stores it.
    return slope * static_cast<double>(*n);
}

namespace {

// The low part of head `head`'s exact slope when `slope` is that head's slope (see
// exactSlopeTails); zero otherwise. Cached per thread: biasValue is called cell by cell.
double slopeTail(const SlopeParams& params, double slope, std::int64_t head) {
    if (params.arith != Arith::Exact ||
        (params.scheme != SlopeScheme::Press && params.scheme != SlopeScheme::Geometric))
        return 0.0;
    thread_local SlopeParams key{0, SlopeScheme::Press, 0.0, {}, Arith::Exact};
    thread_local std::vector<double> slopes, tails;
    if (key.heads != params.heads || key.scheme != params.scheme || key.maxBias != params.maxBias) {
        auto computed = computeSlopes(params);
        if (!computed) return 0.0;
        key = params;
        slopes = std::move(*computed);
        tails = exactSlopeTails(params);
    }
    const auto h = static_cast<std::size_t>(head);
    return h < slopes.size() && slopes[h] == slope ? tails[h] : 0.0;
}

}  // namespace

std::optional<double> biasAllowedValue(const BiasParams& params, double slope, std::int64_t head, std::int64_t queryPos,
                                       std::int64_t key) {
    const auto n = biasMultiplier(params.mode, queryPos, key, params.keyCount());
    if (!n) return std::nullopt;
    return arithProduct(params.slopes.arith, params.dtype, slope, slopeTail(params.slopes, slope, head), *n);
}

double biasValue(const BiasParams& params, double slope, std::int64_t head, std::int64_t query, std::int64_t key) {
    const auto v = biasAllowedValue(params, slope, head, params.queryPosition(query), key);
    return v ? *v : roundTo(params.dtype, maskDouble(params.mask, params.dtype));
}

Shape biasShape(const BiasParams& params) {
    const std::int64_t h = params.slopes.heads, q = params.queries, k = params.keyCount();
    switch (params.layout) {
        case Layout::Hqk:
            return {h, q, k};
        case Layout::Qkh:
            return {q, k, h};
        case Layout::OneHqk:
            return {1, h, q, k};
        case Layout::Flat:
            return {h * q * k};
    }
    return {h, q, k};
}

std::uint64_t layoutIndex(Layout layout, std::int64_t heads, std::int64_t queries, std::int64_t keys, std::int64_t h,
                          std::int64_t i, std::int64_t j) {
    if (layout == Layout::Qkh) return (static_cast<std::uint64_t>(i) * keys + j) * heads + h;
    return (static_cast<std::uint64_t>(h) * queries + i) * keys + j;
}

Result<std::vector<double>> validateBias(const BiasParams& params) {
    // Every range first (params.hpp); the custom slopes' count and the rest below.
    if (auto ok = checkBiasLimits(params); !ok) return std::unexpected(ok.error());
    auto slopes = computeSlopes(params.slopes);
    if (!slopes) return slopes;
    if (params.queries < 1 || params.queries > kMaxLength)
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("--seq must be between 1 and {}, got {}", kMaxLength, params.queries), Field::Seq);
    if (params.keys < 0 || params.keys > kMaxLength)
        return fail(
            ErrorCode::InvalidArgument,
            fmt::format("--keys must be between 1 and {} (or omitted to equal --seq), got {}", kMaxLength, params.keys),
            Field::Keys);
    if (params.mask.kind == MaskValue::Kind::Finite && !std::isfinite(params.mask.value))
        return fail(ErrorCode::InvalidArgument, "--mask must be -1e9, -inf, min or a finite number", Field::Mask);
    return slopes;
}

std::map<std::string, std::string> biasMetadata(const BiasParams& params) {
    std::map<std::string, std::string> m;
    m["format"] = "alibi-explorer";
    m["heads"] = std::to_string(params.slopes.heads);
    m["queries"] = std::to_string(params.queries);
    m["keys"] = std::to_string(params.keyCount());
    m["scheme"] = std::string(schemeName(params.slopes.scheme));
    m["max_bias"] = fmt::format("{}", params.slopes.maxBias);
    if (params.slopes.scheme == SlopeScheme::Custom) {
        std::string s;
        for (std::size_t h = 0; h < params.slopes.custom.size(); ++h)
            s += fmt::format("{}{}", h ? "," : "", params.slopes.custom[h]);
        m["slopes"] = s;
    }
    m["mode"] = std::string(modeName(params.mode));
    m["mask"] = maskName(params.mask);
    m["layout"] = std::string(layoutName(params.layout));
    if (params.slopes.arith != Arith::Exact) m["arith"] = std::string(arithName(params.slopes.arith));
    m["dtype"] = std::string(dtypeName(params.dtype));
    return m;
}

// ---------------------------------------------------------------------------
// Row copies
//
// A whole bias tensor is written once and is far larger than the caches, so its rows are
// copied with streaming (non-temporal) stores: a normal store first reads each destination
// cache line (read-for-ownership), which spends half the memory bandwidth on data that is
// about to be overwritten. The source of every copy is a per-head template of a few KiB to
// a few MiB that stays in the caches, so unaligned loads from it are cheap; the destination
// is aligned with a short plain head and finished with a plain tail. The widest store the CPU
// has is picked at run time, so the default build still runs on any x86-64.

namespace {

using CopyFn = void (*)(std::byte* dst, const std::byte* src, std::size_t bytes);

void copyPlain(std::byte* dst, const std::byte* src, std::size_t bytes) {
    std::memcpy(dst, src, bytes);
}

// Up to this size a tensor stays in the cores' L2 caches, where plain stores keep it cached for
// its reader. Above it streaming stores win even where the tensor would fit in L3: on the
// machines of issue 5 (2 MiB L2 per core, a VM reporting 480 MiB of L3), a 32 MiB fill ran
// about 1.5x faster streamed than with rep movsb and 2x faster than with memcpy's stores.
constexpr std::uint64_t kStreamingThreshold = std::uint64_t{4} << 20;

#ifdef ALIBI_BIAS_X86

// Bytes from dst to its next `align` boundary, at most `bytes`.
std::size_t headBytes(const std::byte* dst, std::size_t align, std::size_t bytes) {
    const auto mis = static_cast<std::size_t>(reinterpret_cast<std::uintptr_t>(dst) & (align - 1));
    return std::min(bytes, mis ? align - mis : 0);
}

void copyStreamSse2(std::byte* dst, const std::byte* src, std::size_t bytes) {
    const std::size_t head = headBytes(dst, 16, bytes);
    std::memcpy(dst, src, head);
    dst += head, src += head, bytes -= head;
    for (; bytes >= 64; bytes -= 64, dst += 64, src += 64) {
        const auto* s = reinterpret_cast<const __m128i*>(src);
        auto* d = reinterpret_cast<__m128i*>(dst);
        const __m128i a = _mm_loadu_si128(s), b = _mm_loadu_si128(s + 1);
        const __m128i c = _mm_loadu_si128(s + 2), e = _mm_loadu_si128(s + 3);
        _mm_stream_si128(d, a);
        _mm_stream_si128(d + 1, b);
        _mm_stream_si128(d + 2, c);
        _mm_stream_si128(d + 3, e);
    }
    for (; bytes >= 16; bytes -= 16, dst += 16, src += 16)
        _mm_stream_si128(reinterpret_cast<__m128i*>(dst), _mm_loadu_si128(reinterpret_cast<const __m128i*>(src)));
    std::memcpy(dst, src, bytes);
}

__attribute__((target("avx2"))) void copyStreamAvx2(std::byte* dst, const std::byte* src, std::size_t bytes) {
    const std::size_t head = headBytes(dst, 32, bytes);
    std::memcpy(dst, src, head);
    dst += head, src += head, bytes -= head;
    for (; bytes >= 128; bytes -= 128, dst += 128, src += 128) {
        const auto* s = reinterpret_cast<const __m256i*>(src);
        auto* d = reinterpret_cast<__m256i*>(dst);
        const __m256i a = _mm256_loadu_si256(s), b = _mm256_loadu_si256(s + 1);
        const __m256i c = _mm256_loadu_si256(s + 2), e = _mm256_loadu_si256(s + 3);
        _mm256_stream_si256(d, a);
        _mm256_stream_si256(d + 1, b);
        _mm256_stream_si256(d + 2, c);
        _mm256_stream_si256(d + 3, e);
    }
    for (; bytes >= 32; bytes -= 32, dst += 32, src += 32)
        _mm256_stream_si256(reinterpret_cast<__m256i*>(dst), _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src)));
    std::memcpy(dst, src, bytes);
}

__attribute__((target("avx512f"))) void copyStreamAvx512(std::byte* dst, const std::byte* src, std::size_t bytes) {
    const std::size_t head = headBytes(dst, 64, bytes);
    std::memcpy(dst, src, head);
    dst += head, src += head, bytes -= head;
    for (; bytes >= 128; bytes -= 128, dst += 128, src += 128) {
        const __m512i a = _mm512_loadu_si512(src), b = _mm512_loadu_si512(src + 64);
        _mm512_stream_si512(reinterpret_cast<__m512i*>(dst), a);
        _mm512_stream_si512(reinterpret_cast<__m512i*>(dst + 64), b);
    }
    if (bytes >= 64) {
        _mm512_stream_si512(reinterpret_cast<__m512i*>(dst), _mm512_loadu_si512(src));
        dst += 64, src += 64, bytes -= 64;
    }
    std::memcpy(dst, src, bytes);
}

// `rep movsb` on CPUs with fast strings (ERMS) writes whole cache lines without reading them
// first, like memset's `rep stosb`, yet leaves them cached: the right copy while the tensor
// fits in the cache.
void copyRepMovsb(std::byte* dst, const std::byte* src, std::size_t bytes) {
    if (bytes < 512) {  // short rows: the string instruction's start-up costs more than the copy
        std::memcpy(dst, src, bytes);
        return;
    }
    asm volatile("rep movsb" : "+D"(dst), "+S"(src), "+c"(bytes) : : "memory");
}

#endif  // ALIBI_BIAS_X86

CopyFn cachedCopy() {
#ifdef ALIBI_BIAS_X86
    static const CopyFn picked = [] {
        unsigned a = 0, b = 0, c = 0, d = 0;
        const bool erms = __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & (1U << 9)) != 0;
        return erms ? &copyRepMovsb : &copyPlain;
    }();
    return picked;
#else
    return &copyPlain;
#endif
}

CopyFn streamingCopy() {
#ifdef ALIBI_BIAS_X86
    static const CopyFn picked = [] {
        __builtin_cpu_init();
        if (__builtin_cpu_supports("avx512f")) return &copyStreamAvx512;
        if (__builtin_cpu_supports("avx2")) return &copyStreamAvx2;
        return &copyStreamSse2;
    }();
    return picked;
#else
    return &copyPlain;
#endif
}

// Streaming stores are weakly ordered: each writer fences before its thread is joined, so the
// joining thread sees every byte.
void streamingFence() {
#ifdef ALIBI_BIAS_X86
    _mm_sfence();
#endif
}

// ---------------------------------------------------------------------------
// Row templates

bool isDistanceMode(BiasMode mode) {
    return mode == BiasMode::Causal || mode == BiasMode::Symmetric || mode == BiasMode::Clamped;
}

// The encoded template of one head.
//  distance modes: u[n] is the cell at distance d = (K - 1) - n, n in [0, Q + K - 1); the row at
//                  position p is u[K - 1 - p .. K - 1 - p + K).
//  key modes:      u[j] is the allowed value of key j for j in [0, K), followed by K mask
//                  values; a row at position p is u[0 .. p] followed by the mask, both copies.
class HeadTemplate {
public:
    HeadTemplate(const BiasParams& params, double slope, double slopeLo)
        : m_params(params), m_es(dtypeSize(params.dtype)), m_keys(params.keyCount()) {
        const double mask = roundTo(params.dtype, maskDouble(params.mask, params.dtype));
        storeAs(params.dtype, mask, m_mask.data());
        const std::int64_t k = m_keys;
        const std::int64_t n = isDistanceMode(params.mode) ? params.queries + k - 1 : k;
        m_bytes.resize(static_cast<std::size_t>(isDistanceMode(params.mode) ? n : 2 * k) * m_es);
        for (std::int64_t x = 0; x < n; ++x) {
            // A query at position K - 1 facing key x: distance modes see d = K - 1 - x (x may pass
            // K - 1, giving the negative distances of earlier rows); key modes see key x.
            const auto n = biasMultiplier(params.mode, k - 1, x, k);
            const double v = n ? arithProduct(params.slopes.arith, params.dtype, slope, slopeLo, *n) : mask;
            storeAs(params.dtype, v, m_bytes.data() + static_cast<std::size_t>(x) * m_es);
        }
        if (!isDistanceMode(params.mode))
            for (std::int64_t x = k; x < 2 * k; ++x)
                std::memcpy(m_bytes.data() + static_cast<std::size_t>(x) * m_es, m_mask.data(), m_es);
    }

    // Writes keys [jBegin, jEnd) of query row i to out.
    void writeRow(std::int64_t i, std::int64_t jBegin, std::int64_t jEnd, std::byte* out,
                  CopyFn copy = &copyPlain) const {
        const std::int64_t p = m_params.queryPosition(i);
        if (isDistanceMode(m_params.mode)) {
            const std::int64_t start = (m_keys - 1 - p) + jBegin;
            copy(out, m_bytes.data() + static_cast<std::size_t>(start) * m_es,
                 static_cast<std::size_t>(jEnd - jBegin) * m_es);
            return;
        }
        const std::int64_t allowedEnd = std::clamp<std::int64_t>(p + 1, jBegin, jEnd);
        copy(out, m_bytes.data() + static_cast<std::size_t>(jBegin) * m_es,
             static_cast<std::size_t>(allowedEnd - jBegin) * m_es);
        copy(out + static_cast<std::size_t>(allowedEnd - jBegin) * m_es,
             m_bytes.data() + static_cast<std::size_t>(m_keys) * m_es,
             static_cast<std::size_t>(jEnd - allowedEnd) * m_es);
    }

    // One cell, encoded (for the qkh gather).
    [[nodiscard]] const std::byte* cell(std::int64_t i, std::int64_t j) const {
        const std::int64_t p = m_params.queryPosition(i);
        if (isDistanceMode(m_params.mode)) return m_bytes.data() + static_cast<std::size_t>(m_keys - 1 - p + j) * m_es;
        return j <= p ? m_bytes.data() + static_cast<std::size_t>(j) * m_es : m_mask.data();
    }

private:
    const BiasParams& m_params;
    std::size_t m_es;
    std::int64_t m_keys;
    std::array<std::byte, 8> m_mask{};
    std::vector<std::byte> m_bytes;
};

// Writes elements [first, end) of an (H, Q, K)-ordered tensor; element e goes to
// out + (e - origin) * es. templateOf(h) gives head h's template.
template <class TemplateOf>
void writeElements(const TemplateOf& templateOf, std::int64_t Q, std::int64_t K, std::size_t es, std::uint64_t first,
                   std::uint64_t end, std::uint64_t origin, std::byte* out, CopyFn copy) {
    std::uint64_t e = first;
    while (e < end) {
        const std::uint64_t row = e / static_cast<std::uint64_t>(K);
        const auto h = static_cast<std::int64_t>(row / static_cast<std::uint64_t>(Q));
        const auto i = static_cast<std::int64_t>(row % static_cast<std::uint64_t>(Q));
        const auto jBegin = static_cast<std::int64_t>(e % static_cast<std::uint64_t>(K));
        const auto jEnd = static_cast<std::int64_t>(std::min<std::uint64_t>(K, jBegin + (end - e)));
        templateOf(h).writeRow(i, jBegin, jEnd, out + (e - origin) * es, copy);
        e += static_cast<std::uint64_t>(jEnd - jBegin);
    }
}

// Writes elements [first, end) of an (H, Q, K)-ordered tensor to out (element `first` at out)
// on up to `threads` threads. The split is by 64-byte lines of the output, not by rows, so the
// pieces have equal byte counts whatever H, Q and K are (one long row is split too), and every
// piece after the first starts on a cache line of out (es divides 64, so line boundaries are
// element boundaries). The threads claim pieces one at a time, so a pool thread that wakes late
// (a busy machine) still takes its share instead of leaving the whole chunk to the caller.
template <class TemplateOf>
void writeElementsParallel(const TemplateOf& templateOf, std::int64_t Q, std::int64_t K, std::size_t es,
                           std::uint64_t first, std::uint64_t end, std::byte* out, CopyFn copy, bool streaming,
                           unsigned threads) {
    constexpr std::uint64_t kLine = 64;
    const std::uint64_t lines = ((end - first) * es + kLine - 1) / kLine;
    const unsigned workers = detail::resolveThreads(threads);
    // Pieces of at least 64 KiB, about 8 per worker.
    const std::uint64_t piece = std::max<std::uint64_t>(1024, lines / (8 * std::uint64_t{workers}) + 1);
    const std::uint64_t pieces = (lines + piece - 1) / piece;
    std::atomic<std::uint64_t> next{0};
    detail::parallelFor(std::min<std::uint64_t>(pieces, workers), workers, 1, [&](std::uint64_t, std::uint64_t) {
        for (std::uint64_t k = next.fetch_add(1, std::memory_order_relaxed); k < pieces;
             k = next.fetch_add(1, std::memory_order_relaxed)) {
            const std::uint64_t lb = k * piece, le = std::min(lines, lb + piece);
            const std::uint64_t b = first + lb * kLine / es, e = std::min(end, first + le * kLine / es);
            writeElements(templateOf, Q, K, es, b, e, first, out, copy);
        }
        if (streaming) streamingFence();
    });
}

}  // namespace

// ---------------------------------------------------------------------------
// Whole-tensor fill

Result<void> fillBias(const BiasParams& params, std::span<std::byte> out, unsigned threads) {
    return fillBias(params, out, threads, StoreMode::Auto);
}

Result<void> fillBias(const BiasParams& params, std::span<std::byte> out, unsigned threads, StoreMode stores) {
    auto slopes = validateBias(params);
    if (!slopes) return std::unexpected(slopes.error());
    const std::int64_t H = params.slopes.heads, Q = params.queries, K = params.keyCount();
    const std::size_t es = dtypeSize(params.dtype);
    const std::uint64_t total = static_cast<std::uint64_t>(H) * Q * K;
    if (out.size() != total * es)
        return fail(ErrorCode::Internal,
                    fmt::format("fillBias: buffer holds {} bytes, the tensor needs {}", out.size(), total * es));
    std::vector<HeadTemplate> templates;
    templates.reserve(static_cast<std::size_t>(H));
    const std::vector<double> tails = exactSlopeTails(params.slopes);
    for (std::int64_t h = 0; h < H; ++h) templates.emplace_back(params, (*slopes)[h], tails[h]);

    if (params.layout == Layout::Qkh) {
        detail::parallelFor(static_cast<std::uint64_t>(Q) * K, threads, 4096, [&](std::uint64_t b, std::uint64_t e) {
            for (std::uint64_t cell = b; cell < e; ++cell) {
                const auto i = static_cast<std::int64_t>(cell / K), j = static_cast<std::int64_t>(cell % K);
                std::byte* dst = out.data() + cell * H * es;
                for (std::int64_t h = 0; h < H; ++h) std::memcpy(dst + h * es, templates[h].cell(i, j), es);
            }
        });
        return {};
    }
    const std::uint64_t bytes = total * es;
    const bool streaming = stores == StoreMode::Streaming || (stores == StoreMode::Auto && bytes > kStreamingThreshold);
    const CopyFn copy = streaming ? streamingCopy() : cachedCopy();
    const auto templateOf = [&](std::int64_t h) -> const HeadTemplate& {
        return templates[static_cast<std::size_t>(h)];
    };
    writeElementsParallel(templateOf, Q, K, es, 0, total, out.data(), copy, streaming, threads);
    return {};
}

Result<Tensor> buildBias(const BiasParams& params, std::uint64_t budget, unsigned threads) {
    if (auto ok = validateBias(params); !ok) return std::unexpected(ok.error());
    auto tensor = Tensor::allocate(biasShape(params), params.dtype, budget, "bias tensor");
    if (!tensor) return tensor;
    if (auto ok = fillBias(params, tensor->byteSpan(), threads); !ok) return std::unexpected(ok.error());
    tensor->metadata = biasMetadata(params);
    return tensor;
}

// ---------------------------------------------------------------------------
// Streaming source

namespace {

// Chunks are filled on the pool's threads like fillBias (the export's buffers are reused and
// stay cached, so the copies are plain, not streaming). Only the templates of the heads a chunk
// touches are kept, so memory stays O(heads per chunk * (Q + K)).
class BiasSource final : public TensorSource {
public:
    BiasSource(BiasParams params, std::vector<double> slopes, unsigned threads)
        : m_params(std::move(params)),
          m_slopes(std::move(slopes)),
          m_tails(exactSlopeTails(m_params.slopes)),
          m_threads(detail::resolveThreads(threads)) {}

    Shape shape() const override { return biasShape(m_params); }
    DType dtype() const override { return m_params.dtype; }
    std::map<std::string, std::string> metadata() const override { return biasMetadata(m_params); }
    std::uint64_t preferredChunk() const override {
        const std::uint64_t inner = m_params.layout == Layout::Qkh ? static_cast<std::uint64_t>(m_params.slopes.heads)
                                                                   : static_cast<std::uint64_t>(m_params.keyCount());
        return std::max<std::uint64_t>(inner, (std::uint64_t{4} << 20) / inner * inner);
    }

    Result<void> read(std::uint64_t first, std::uint64_t count, std::byte* out) const override {
        const std::int64_t H = m_params.slopes.heads, Q = m_params.queries, K = m_params.keyCount();
        const std::size_t es = dtypeSize(m_params.dtype);
        if (first + count > static_cast<std::uint64_t>(H) * Q * K)
            return fail(ErrorCode::Internal, "bias source: read past the end");
        if (count == 0) return {};
        std::lock_guard lock(m_mutex);
        const auto templateOf = [&](std::int64_t h) -> const HeadTemplate& {
            return *m_templates[static_cast<std::size_t>(h)];
        };
        if (m_params.layout == Layout::Qkh) {
            ensureTemplates(0, H - 1);
            detail::parallelFor(count, m_threads, 4096, [&](std::uint64_t b, std::uint64_t e) {
                for (std::uint64_t x = first + b; x < first + e; ++x) {
                    const std::uint64_t cell = x / H;
                    const auto h = static_cast<std::int64_t>(x % H);
                    std::memcpy(
                        out + (x - first) * es,
                        templateOf(h).cell(static_cast<std::int64_t>(cell / K), static_cast<std::int64_t>(cell % K)),
                        es);
                }
            });
            return {};
        }
        const std::uint64_t headSize = static_cast<std::uint64_t>(Q) * K;
        ensureTemplates(static_cast<std::int64_t>(first / headSize),
                        static_cast<std::int64_t>((first + count - 1) / headSize));
        writeElementsParallel(templateOf, Q, K, es, first, first + count, out, &copyPlain, false, m_threads);
        return {};
    }

private:
    // Keeps the templates of heads [h0, h1] (all heads for qkh), building the missing ones on the
    // pool's threads, and drops the others.
    void ensureTemplates(std::int64_t h0, std::int64_t h1) const {
        if (m_templates.empty()) m_templates.resize(static_cast<std::size_t>(m_params.slopes.heads));
        for (std::size_t h = 0; h < m_templates.size(); ++h)
            if (static_cast<std::int64_t>(h) < h0 || static_cast<std::int64_t>(h) > h1) m_templates[h].reset();
        std::vector<std::int64_t> missing;
        for (std::int64_t h = h0; h <= h1; ++h)
            if (!m_templates[static_cast<std::size_t>(h)]) missing.push_back(h);
        detail::parallelFor(missing.size(), m_threads, 1, [&](std::uint64_t b, std::uint64_t e) {
            for (std::uint64_t k = b; k < e; ++k) {
                const auto h = static_cast<std::size_t>(missing[k]);
                m_templates[h] = std::make_unique<HeadTemplate>(m_params, m_slopes[h], m_tails[h]);
            }
        });
    }

    BiasParams m_params;
    std::vector<double> m_slopes;
    std::vector<double> m_tails;
    unsigned m_threads = 1;
    mutable std::mutex m_mutex;
    mutable std::vector<std::unique_ptr<HeadTemplate>> m_templates;
};

}  // namespace

Result<std::unique_ptr<TensorSource>> biasSource(const BiasParams& params, unsigned threads) {
    auto slopes = validateBias(params);
    if (!slopes) return std::unexpected(slopes.error());
    return std::make_unique<BiasSource>(params, std::move(*slopes), threads);
}

}  // namespace alibi
