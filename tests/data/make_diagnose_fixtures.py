# Generates tests/data/diagnose_*.npy with NumPy's own float arithmetic (independent of the core).
import numpy as np

def press(n, B=8.0):
    def pow2(c):
        return [2.0 ** (-B * (h + 1) / c) for h in range(c)]
    c = 1 << (n.bit_length() - 1)
    s = pow2(c)
    return np.array(s + pow2(2 * c)[0::2][: n - c])

# 1. seed 003 style: get_bias returns [seq, seq, heads] (qkh); float32 arithmetic throughout; mask -inf.
#    Slopes in the ggml form (powers of m0 and m1 in float32), which land an ulp or so away from
#    correctly rounded values: the diagnosis must tolerate that.
T, H = 8, 12
n2 = 8
m0 = np.float32(2.0 ** (-8.0 / n2))
m1 = np.float32(2.0 ** (-4.0 / n2))
slopes = np.array([m0 ** np.float32(h + 1) if h < n2 else m1 ** np.float32(2 * (h - n2) + 1) for h in range(H)],
                  dtype=np.float32)
i = np.arange(T, dtype=np.float32)[:, None]
j = np.arange(T, dtype=np.float32)[None, :]
dist = (i - j).astype(np.float32)
bias = -(dist[:, :, None] * slopes[None, None, :])   # (Q, K, H), float32 products
bias[np.broadcast_to((j > i)[:, :, None], bias.shape)] = -np.inf
np.save("diagnose_qkh_numpy_f32.npy", bias.astype(np.float32))

# 2. The layout mix-up: the same data reshaped (not transposed) to (H, Q, K).
np.save("diagnose_qkh_reshaped_as_hqk.npy", bias.reshape(H, T, T).astype(np.float32))

# 3. Half precision as a framework does it: -1e9 cast to f16 overflows to -inf; H = 6 (press, non power of two).
H6 = 6
s6 = press(H6)
b = -(s6[:, None, None] * np.maximum(i - j, 0)[None, :, :])
b = np.where((j > i)[None, :, :], -1e9, b)
with np.errstate(over="ignore"):
    np.save("diagnose_f16_overflow.npy", b.astype(np.float16))
