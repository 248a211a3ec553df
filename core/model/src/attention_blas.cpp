// See attention_blas.hpp: OpenBLAS through dlopen, its core type chosen here from CPUID.
#include <alibi/model/detail/attention_blas.hpp>

#include <dlfcn.h>

#include <fmt/format.h>
#include <cstdlib>
#include <optional>
#include <string>

namespace alibi::detail {
namespace {

// CBLAS's enum values (cblas.h), so no header is needed at build time.
constexpr int kRowMajor = 101, kNoTrans = 111, kTrans = 112;

using SgemmFn = void (*)(int, int, int, int, int, int, float, const float*, int, const float*, int, float, float*, int);
using DgemmFn = void (*)(int, int, int, int, int, int, double, const double*, int, const double*, int, double, double*,
                         int);
using NameFn = char* (*)();
using SetThreadsFn = void (*)(int);

struct Blas {
    SgemmFn sgemm = nullptr;
    DgemmFn dgemm = nullptr;
    std::string description;
};

// The OpenBLAS core type whose kernels use the widest vector unit this CPU and OS support.
// __builtin_cpu_supports also checks that the OS saves the vector registers (XCR0).
struct CoreChoice {
    const char* core;
    const char* why;
};
std::optional<CoreChoice> chooseCore() {
#if defined(__x86_64__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
        __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512cd"))
        return CoreChoice{"SkylakeX", "AVX-512"};
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return CoreChoice{"Haswell", "AVX2+FMA"};
    if (__builtin_cpu_supports("avx")) return CoreChoice{"Sandybridge", "AVX"};
#endif
    return std::nullopt;  // let OpenBLAS decide
}

// Sets name=value for the lifetime of the object unless the user already set it, then
// restores the environment.
class ScopedEnv {
public:
    ScopedEnv(const char* name, const char* value) : m_name(name) {
        if (std::getenv(name) == nullptr && value != nullptr) m_set = setenv(name, value, 0) == 0;
    }
    ~ScopedEnv() {
        if (m_set) unsetenv(m_name);
    }
    ScopedEnv(const ScopedEnv&) = delete;
    ScopedEnv& operator=(const ScopedEnv&) = delete;
    [[nodiscard]] bool set() const { return m_set; }

private:
    const char* m_name;
    bool m_set = false;
};

Blas load() {
    Blas b;
    const auto choice = chooseCore();
    void* lib = nullptr;
    bool chose = false;
    {
        const ScopedEnv core("OPENBLAS_CORETYPE", choice ? choice->core : nullptr);
        const ScopedEnv threads("OPENBLAS_NUM_THREADS", "1");
        chose = core.set();
        for (const char* name : {"libopenblas.so.0", "libopenblas.so"})
            if ((lib = dlopen(name, RTLD_NOW | RTLD_LOCAL)) != nullptr) break;
    }
    if (lib != nullptr) {
        b.sgemm = reinterpret_cast<SgemmFn>(dlsym(lib, "cblas_sgemm"));
        b.dgemm = reinterpret_cast<DgemmFn>(dlsym(lib, "cblas_dgemm"));
        if (auto setThreads = reinterpret_cast<SetThreadsFn>(dlsym(lib, "openblas_set_num_threads"))) setThreads(1);
    }
    if (b.sgemm == nullptr || b.dgemm == nullptr) {
        b = Blas{};
        b.description = "built-in loops (OpenBLAS's libopenblas.so.0 not found)";
        return b;
    }
    std::string version = "OpenBLAS";
    if (auto config = reinterpret_cast<NameFn>(dlsym(lib, "openblas_get_config"))) {
        // "OpenBLAS 0.3.21 DYNAMIC_ARCH NO_AFFINITY SkylakeX MAX_THREADS=64": the first two words.
        const std::string text = config();
        const auto first = text.find(' ');
        const auto second = first == std::string::npos ? first : text.find(' ', first + 1);
        version = text.substr(0, second);
    }
    std::string core = "?";
    if (auto name = reinterpret_cast<NameFn>(dlsym(lib, "openblas_get_corename"))) core = name();
    b.description = fmt::format("{}, {} kernels ({}), single-threaded", version, core,
                                chose    ? fmt::format("core type chosen from CPUID: {}", choice->why)
                                : choice ? std::string("core type from OPENBLAS_CORETYPE")
                                         : std::string("core type detected by OpenBLAS"));
    return b;
}

const Blas& blas() {
    static const Blas b = load();
    return b;
}

template <class T>
void gemmLoops(int m, int n, int k, const T* a, const T* b, T* c, int ldc) {
    for (int i = 0; i < m; ++i)
        for (int j = 0; j < n; ++j) {
            T sum = 0;
            for (int x = 0; x < k; ++x) sum += a[i * k + x] * b[j * k + x];
            c[i * ldc + j] = sum;
        }
}

}  // namespace

void gemmNT(int m, int n, int k, const float* a, const float* b, float* c, int ldc) {
    if (const auto f = blas().sgemm) return f(kRowMajor, kNoTrans, kTrans, m, n, k, 1.0f, a, k, b, k, 0.0f, c, ldc);
    gemmLoops(m, n, k, a, b, c, ldc);
}

void gemmNT(int m, int n, int k, const double* a, const double* b, double* c, int ldc) {
    if (const auto f = blas().dgemm) return f(kRowMajor, kNoTrans, kTrans, m, n, k, 1.0, a, k, b, k, 0.0, c, ldc);
    gemmLoops(m, n, k, a, b, c, ldc);
}

std::string blasDescription() {
    return blas().description;
}

}  // namespace alibi::detail
