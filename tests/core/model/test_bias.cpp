// Tests for <alibi/bias.hpp>: every mode, mask, layout and dtype against a reference written
// here from REFERENCES.md's table (plain loops in double), plus hand-written small matrices.
#include <alibi/model/bias.hpp>
#include <alibi/model/slopes.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

using namespace alibi;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// REFERENCES.md, "Bias forms", evaluated literally.
// Zeros are +0.0 (an integer zero times the slope), as frameworks store them.
double referenceCell(BiasMode mode, double m, long p, long j, long K, double mask) {
    switch (mode) {
        case BiasMode::Causal:
            return j <= p ? m * static_cast<double>(j - p) : mask;
        case BiasMode::Symmetric:
            return m * static_cast<double>(-std::labs(p - j));
        case BiasMode::Clamped:
            return m * static_cast<double>(-std::max(p - j, 0L));
        case BiasMode::Bloom:
            return j <= p ? m * static_cast<double>(j) : mask;
        case BiasMode::Mpt:
            return j <= p ? m * static_cast<double>(j - (K - 1)) : mask;
    }
    return 0;
}

BiasParams params(int heads, long q, long k, BiasMode mode, Layout layout = Layout::Hqk, DType dtype = DType::F32) {
    BiasParams p;
    p.slopes.heads = heads;
    p.queries = q;
    p.keys = k;
    p.mode = mode;
    p.layout = layout;
    p.dtype = dtype;
    return p;
}

// Compares the built tensor to the reference, element by element, bit for bit (after the
// reference is rounded to the dtype); -0.0 and 0.0 compare equal, NaN never occurs.
void expectMatchesReference(const BiasParams& p) {
    auto t = buildBias(p);
    ASSERT_TRUE(t) << t.error().message;
    const auto slopes = *computeSlopes(p.slopes);
    const long H = p.slopes.heads, Q = p.queries, K = p.keyCount();
    const double mask = maskDouble(p.mask, p.dtype);
    ASSERT_EQ(t->size(), static_cast<std::uint64_t>(H * Q * K));
    for (long h = 0; h < H; ++h)
        for (long i = 0; i < Q; ++i)
            for (long j = 0; j < K; ++j) {
                const long pos = i + (K - Q);
                const double want = roundTo(p.dtype, referenceCell(p.mode, slopes[h], pos, j, K, mask));
                const std::uint64_t idx = p.layout == Layout::Qkh ? (i * K + j) * H + h : (h * Q + i) * K + j;
                ASSERT_EQ(t->at(idx), want) << modeName(p.mode) << " " << layoutName(p.layout) << " "
                                            << dtypeName(p.dtype) << " h=" << h << " i=" << i << " j=" << j;
            }
}

}  // namespace

TEST(Bias, PaperFigure3) {
    // H = 1 at T = 5: rows [0], [-1, 0], [-2, -1, 0], ... times m = 1/256, above the diagonal -1e9.
    auto t = buildBias(params(1, 5, 0, BiasMode::Causal));
    ASSERT_TRUE(t);
    const auto v = t->as<float>();
    EXPECT_EQ(v[0], 0.0f);
    EXPECT_EQ(v[1], -1e9f);
    EXPECT_EQ(v[5 * 4 + 0], -4.0f / 256);
    EXPECT_EQ(v[5 * 4 + 3], -1.0f / 256);
    EXPECT_EQ(v[5 * 4 + 4], 0.0f);
    EXPECT_EQ(t->shape(), (Shape{1, 5, 5}));
}

TEST(Bias, Seed000ExampleH2) {
    auto t = buildBias(params(2, 3, 0, BiasMode::Causal, Layout::Flat));
    ASSERT_TRUE(t);
    const std::vector<float> want{0, -1e9f, -1e9f, -1.f / 16,  0, -1e9f, -2.f / 16,  -1.f / 16,  0,
                                  0, -1e9f, -1e9f, -1.f / 256, 0, -1e9f, -2.f / 256, -1.f / 256, 0};
    ASSERT_EQ(t->shape(), Shape{18});
    for (std::size_t k = 0; k < want.size(); ++k) EXPECT_EQ(t->as<float>()[k], want[k]) << k;
}

TEST(Bias, ZerosArePositiveLikeFrameworks) {
    // llm-foundry and HF store an integer 0 times a positive slope: +0.0, in every mode.
    for (const BiasMode mode :
         {BiasMode::Causal, BiasMode::Symmetric, BiasMode::Clamped, BiasMode::Bloom, BiasMode::Mpt})
        for (const DType dtype : {DType::F32, DType::F64, DType::F16, DType::BF16}) {
            auto p = params(2, 3, 0, mode);
            p.dtype = dtype;
            auto t = buildBias(p);
            ASSERT_TRUE(t);
            for (std::uint64_t k = 0; k < t->size(); ++k)
                if (t->at(k) == 0) {
                    EXPECT_FALSE(std::signbit(t->at(k))) << modeName(mode) << " " << dtypeName(dtype);
                }
        }
}

TEST(Bias, ExactProfileRoundsTheExactProductOnce) {
    // slope 2^-0.5 (H = 12, head 8): compare with a 64-bit long double product; the result must
    // be the double nearest to it (ties cannot happen for an irrational slope).
    auto p = params(12, 1, 0, BiasMode::Bloom);
    p.keys = 4000;
    p.dtype = DType::F64;
    auto t = buildBias(p);
    ASSERT_TRUE(t);
    const long double m = std::sqrt(0.5L);
    int naiveMisses = 0;
    for (long j = 0; j < 4000; ++j) {
        const long double exact = m * j;
        const double got = t->at(static_cast<std::uint64_t>(8 * 4000 + j));
        const double below = std::nextafter(got, 0.0), above = std::nextafter(got, 1e300);
        EXPECT_LE(std::fabs(static_cast<long double>(got) - exact), std::fabs(static_cast<long double>(below) - exact))
            << j;
        EXPECT_LE(std::fabs(static_cast<long double>(got) - exact), std::fabs(static_cast<long double>(above) - exact))
            << j;
        naiveMisses += std::sqrt(0.5) * static_cast<double>(j) != got;
    }
    EXPECT_GT(naiveMisses, 0);  // double(m) * j alone is not correctly rounded somewhere
}

TEST(Bias, FrameworkProducts) {
    // fairseq, H = 12, head 8, j = 9: round32(round32(2^-0.5) * 9) (issue 11's example).
    auto p = params(12, 10, 0, BiasMode::Bloom);
    p.slopes.arith = Arith::Fairseq;
    auto t = buildBias(p);
    ASSERT_TRUE(t);
    const float m32 = static_cast<float>(std::sqrt(0.5));
    EXPECT_EQ(t->at((8 * 10 + 9) * 10 + 9), static_cast<double>(m32 * 9.0f));
    EXPECT_EQ(static_cast<float>(t->at((8 * 10 + 9) * 10 + 9)), 6.36396074f);
    // Falcon: positions become bfloat16, so key 257 counts as 256.
    p = params(1, 1, 0, BiasMode::Bloom);
    p.keys = 300;
    p.slopes.arith = Arith::HfFalcon;
    t = buildBias(p);
    ASSERT_TRUE(t);
    EXPECT_EQ(t->at(257), 256.0 / 256);
    EXPECT_EQ(t->at(256), 256.0 / 256);
}

TEST(Bias, EveryModeLayoutDtypeMatchesReference) {
    for (BiasMode mode : {BiasMode::Causal, BiasMode::Symmetric, BiasMode::Clamped, BiasMode::Bloom, BiasMode::Mpt})
        for (Layout layout : {Layout::Hqk, Layout::Qkh, Layout::OneHqk, Layout::Flat})
            for (DType dtype : {DType::F32, DType::F64, DType::F16, DType::BF16})
                expectMatchesReference(params(3, 7, 0, mode, layout, dtype));
}

TEST(Bias, KeysLongerAndShorterThanQueries) {
    for (BiasMode mode : {BiasMode::Causal, BiasMode::Symmetric, BiasMode::Clamped, BiasMode::Bloom, BiasMode::Mpt}) {
        expectMatchesReference(params(5, 3, 11, mode));
        expectMatchesReference(params(5, 9, 4, mode, Layout::Qkh));
    }
}

TEST(Bias, BottomRightAlignment) {
    // Q = 2, K = 5: query 0 sits at position 3, so it sees keys 0..3 and key 4 is masked.
    auto t = buildBias(params(1, 2, 5, BiasMode::Causal));
    ASSERT_TRUE(t);
    const auto v = t->as<float>();
    EXPECT_EQ(v[0], -3.0f / 256);
    EXPECT_EQ(v[3], 0.0f);
    EXPECT_EQ(v[4], -1e9f);
    EXPECT_EQ(v[5 + 4], 0.0f);
}

TEST(Bias, MaskValues) {
    auto p = params(1, 3, 0, BiasMode::Causal);
    p.mask = *parseMask("-inf");
    EXPECT_EQ(buildBias(p)->at(1), -kInf);
    p.mask = *parseMask("min");
    EXPECT_EQ(buildBias(p)->at(1), -static_cast<double>(std::numeric_limits<float>::max()));
    p.dtype = DType::F16;
    EXPECT_EQ(buildBias(p)->at(1), -65504.0);
    p.mask = *parseMask("-10000");
    EXPECT_EQ(buildBias(p)->at(1), -10000.0);
    // -1e9 in f16 overflows to -inf: visible in the tensor, not hidden.
    p.mask = *parseMask("-1e9");
    EXPECT_EQ(buildBias(p)->at(1), -kInf);
}

TEST(Bias, ShapesPerLayout) {
    EXPECT_EQ(biasShape(params(4, 3, 5, BiasMode::Causal, Layout::Hqk)), (Shape{4, 3, 5}));
    EXPECT_EQ(biasShape(params(4, 3, 5, BiasMode::Causal, Layout::Qkh)), (Shape{3, 5, 4}));
    EXPECT_EQ(biasShape(params(4, 3, 5, BiasMode::Causal, Layout::OneHqk)), (Shape{1, 4, 3, 5}));
    EXPECT_EQ(biasShape(params(4, 3, 5, BiasMode::Causal, Layout::Flat)), (Shape{60}));
}

TEST(Bias, ManyHeadCountsMatchReference) {
    for (int heads : {1, 2, 3, 5, 8, 12, 16, 40, 112}) expectMatchesReference(params(heads, 6, 0, BiasMode::Causal));
}

TEST(Bias, ThreadCountDoesNotChangeBits) {
    auto p = params(7, 33, 0, BiasMode::Bloom, Layout::Hqk, DType::BF16);
    auto a = buildBias(p, kDefaultMemoryBudget, 1);
    auto b = buildBias(p, kDefaultMemoryBudget, 5);
    ASSERT_TRUE(a && b);
    EXPECT_EQ(std::memcmp(a->bytes(), b->bytes(), a->byteSize()), 0);
}

TEST(Bias, StreamingSourceMatchesTensorForAnyChunking) {
    for (Layout layout : {Layout::Hqk, Layout::Qkh}) {
        auto p = params(3, 5, 7, BiasMode::Mpt, layout, DType::F16);
        auto whole = buildBias(p);
        auto src = biasSource(p);
        ASSERT_TRUE(whole && src);
        const std::size_t es = 2;
        std::vector<std::byte> got(whole->byteSize());
        // Odd chunk sizes that cut rows in the middle.
        std::uint64_t at = 0;
        for (std::uint64_t chunk = 1; at < whole->size(); chunk = chunk * 3 % 17 + 1) {
            const std::uint64_t n = std::min<std::uint64_t>(chunk, whole->size() - at);
            ASSERT_TRUE((*src)->read(at, n, got.data() + at * es));
            at += n;
        }
        EXPECT_EQ(std::memcmp(got.data(), whole->bytes(), got.size()), 0) << layoutName(layout);
    }
}

// The source fills a chunk on several threads (split by cache lines, across rows and heads):
// any thread count and chunk size gives the tensor's bytes.
TEST(Bias, StreamingSourceOnThreadsMatchesTensor) {
    for (Layout layout : {Layout::Hqk, Layout::Qkh}) {
        for (BiasMode mode : {BiasMode::Causal, BiasMode::Bloom}) {
            auto p = params(5, 37, 41, mode, layout, DType::F32);
            auto whole = buildBias(p);
            ASSERT_TRUE(whole);
            for (unsigned threads : {1U, 2U, 3U, 7U}) {
                auto src = biasSource(p, threads);
                ASSERT_TRUE(src);
                std::vector<std::byte> got(whole->byteSize());
                std::uint64_t at = 0;
                for (std::uint64_t chunk = 3001; at < whole->size(); chunk = chunk * 7 % 4099 + 513) {
                    const std::uint64_t n = std::min<std::uint64_t>(chunk, whole->size() - at);
                    ASSERT_TRUE((*src)->read(at, n, got.data() + at * 4));
                    at += n;
                }
                EXPECT_EQ(std::memcmp(got.data(), whole->bytes(), got.size()), 0)
                    << layoutName(layout) << " " << modeName(mode) << " threads " << threads;
            }
        }
    }
}

TEST(Bias, BudgetRefusesWithSizeAndSuggestion) {
    auto p = params(64, 8192, 0, BiasMode::Causal);
    auto t = buildBias(p);
    ASSERT_FALSE(t);
    EXPECT_EQ(t.error().code, ErrorCode::TooLarge);
    EXPECT_NE(t.error().message.find("16.0 GiB"), std::string::npos) << t.error().message;
    EXPECT_NE(t.error().message.find("stream"), std::string::npos);
}

TEST(Bias, InvalidLengths) {
    EXPECT_FALSE(buildBias(params(2, 0, 0, BiasMode::Causal)));
    EXPECT_FALSE(buildBias(params(2, 1000000000, 0, BiasMode::Causal)));
    EXPECT_FALSE(buildBias(params(2, 4, -3, BiasMode::Causal)));
}

// ---------------------------------------------------------------------------
// The fast path (row copies, with streaming stores for tensors larger than the cache, split
// by cache lines across threads) against the plain formula, on shapes that do not divide the
// vector width, the cache line or the thread count, with each store mode forced.

namespace {

// Every cell of a filled buffer against referenceCell, bit for bit, in hqk order.
void expectBufferMatchesReference(const BiasParams& p, const std::byte* buffer) {
    const auto slopes = *computeSlopes(p.slopes);
    const long H = p.slopes.heads, Q = p.queries, K = p.keyCount();
    const double mask = maskDouble(p.mask, p.dtype);
    const std::size_t es = dtypeSize(p.dtype);
    std::array<std::byte, 8> want{};
    for (long h = 0; h < H; ++h)
        for (long i = 0; i < Q; ++i)
            for (long j = 0; j < K; ++j) {
                storeAs(p.dtype, referenceCell(p.mode, slopes[h], i + (K - Q), j, K, mask), want.data());
                const std::size_t at = static_cast<std::size_t>((h * Q + i) * K + j) * es;
                ASSERT_EQ(std::memcmp(buffer + at, want.data(), es), 0)
                    << modeName(p.mode) << " " << dtypeName(p.dtype) << " H=" << H << " Q=" << Q << " K=" << K
                    << " h=" << h << " i=" << i << " j=" << j;
            }
}

// A buffer whose first byte sits `offset` bytes past a cache line, with guard bytes after.
struct OffsetBuffer {
    OffsetBuffer(std::size_t bytes, std::size_t offset) : storage(bytes + 64 + offset + 64), size(bytes) {
        base = reinterpret_cast<std::byte*>((reinterpret_cast<std::uintptr_t>(storage.data()) + 63) / 64 * 64) + offset;
    }
    void poison() { std::fill(storage.begin(), storage.end(), std::byte{0x5A}); }
    [[nodiscard]] bool guardIntact() const {
        const auto end = static_cast<std::size_t>(base - storage.data()) + size;
        return std::all_of(storage.begin() + static_cast<std::ptrdiff_t>(end), storage.end(),
                           [](std::byte b) { return b == std::byte{0x5A}; });
    }
    std::vector<std::byte> storage;
    std::size_t size;
    std::byte* base;
};

}  // namespace

TEST(BiasFastPath, EveryStoreModeModeAndDtypeMatchesReference) {
    // Rows of 4 * 251 bytes start at every alignment modulo 64; 3 rows of 20011 keys put the
    // split between threads inside a row; the destination starts 8 bytes past a cache line.
    struct Case {
        int heads;
        long q, k;
    };
    for (Case c : {Case{3, 97, 251}, Case{1, 3, 20011}, Case{2, 1, 1}})
        for (BiasMode mode : {BiasMode::Causal, BiasMode::Symmetric, BiasMode::Clamped, BiasMode::Bloom, BiasMode::Mpt})
            for (DType dtype : {DType::F32, DType::F64, DType::F16, DType::BF16})
                for (StoreMode stores : {StoreMode::Cached, StoreMode::Streaming, StoreMode::Auto})
                    for (unsigned threads : {1U, 2U, 3U}) {
                        auto p = params(c.heads, c.q, c.k, mode, Layout::Hqk, dtype);
                        OffsetBuffer buffer(static_cast<std::size_t>(c.heads * c.q * c.k) * dtypeSize(dtype), 8);
                        buffer.poison();
                        auto ok = fillBias(p, {buffer.base, buffer.size}, threads, stores);
                        ASSERT_TRUE(ok) << ok.error().message;
                        expectBufferMatchesReference(p, buffer.base);
                        if (HasFatalFailure()) return;
                        EXPECT_TRUE(buffer.guardIntact()) << "wrote past the end";
                    }
}

TEST(BiasFastPath, EveryDestinationAlignmentAndSmallShapes) {
    for (std::size_t offset : {0, 2, 4, 12, 36})
        for (long t : {1L, 2L, 7L, 16L, 17L, 33L, 65L, 129L})
            for (StoreMode stores : {StoreMode::Cached, StoreMode::Streaming}) {
                auto p = params(3, t, t + 2, BiasMode::Causal, Layout::Hqk, offset % 4 ? DType::F16 : DType::F32);
                OffsetBuffer buffer(static_cast<std::size_t>(3 * t * (t + 2)) * dtypeSize(p.dtype), offset);
                buffer.poison();
                ASSERT_TRUE(fillBias(p, {buffer.base, buffer.size}, 2, stores));
                expectBufferMatchesReference(p, buffer.base);
                if (HasFatalFailure()) return;
                EXPECT_TRUE(buffer.guardIntact()) << "wrote past the end";
            }
}

TEST(BiasFastPath, LargeTensorTakesTheAutomaticPathWithSameBits) {
    // 7 * 1531 * 2047 f32 is 88 MB, above any cache clamp: Auto streams; thread counts that
    // divide nothing in it give the same bytes as one thread with plain stores.
    auto p = params(7, 1531, 2047, BiasMode::Mpt, Layout::OneHqk, DType::F32);
    const std::size_t bytes = std::size_t{7} * 1531 * 2047 * 4;
    std::vector<std::byte> plain(bytes), fast(bytes);
    ASSERT_TRUE(fillBias(p, plain, 1, StoreMode::Cached));
    for (unsigned threads : {2U, 3U, 5U}) {
        std::fill(fast.begin(), fast.end(), std::byte{0});
        ASSERT_TRUE(fillBias(p, fast, threads));
        EXPECT_EQ(std::memcmp(plain.data(), fast.data(), bytes), 0) << threads;
    }
    // And the plain single-thread fill is itself the formula (spot check along one head).
    const auto slopes = *computeSlopes(p.slopes);
    float v = 0;
    std::memcpy(&v, plain.data() + ((std::size_t{6} * 1531 + 1000) * 2047 + 3) * 4, 4);
    EXPECT_EQ(v, static_cast<float>(-(slopes[6] * static_cast<double>(2047 - 1 - 3))));
}

TEST(BiasFastPath, WrongBufferSizeIsRefused) {
    auto p = params(2, 4, 0, BiasMode::Causal);
    std::vector<std::byte> small(2 * 4 * 4 * 4 - 1);
    auto ok = fillBias(p, small, 2);
    ASSERT_FALSE(ok);
    EXPECT_NE(ok.error().message.find("needs 128"), std::string::npos) << ok.error().message;
}
