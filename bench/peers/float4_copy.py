"""The peers' loop's copy ceiling, `copy16`: 16 B a lane, four words a thread, blocks of 256 threads, as the lab's
float4 copy (tests/gpu/convert_lab.cpp). Standard library only; CuPy is imported when a copy is built.

source(load, store) writes the same kernel with other statements for the load of word x[u] from src + i and
its store to dst + i (bench/peers/l2_state.py's cache-hint variants)."""

LOAD = "x[u] = __ldg(src + i);"
STORE = "dst[i] = x[u];"
_TEMPLATE = r"""extern "C" __global__ void __launch_bounds__(256) copy16(const uint4* __restrict__ src,
    uint4* __restrict__ dst, long long n) {
  const long long first = (long long)blockIdx.x * 1024 + threadIdx.x;
  uint4 x[4];
#pragma unroll
  for (int u = 0; u < 4; ++u) { const long long i = first + u * 256; if (i < n) LOAD }
#pragma unroll
  for (int u = 0; u < 4; ++u) { const long long i = first + u * 256; if (i < n) STORE }
}"""


def source(load=LOAD, store=STORE):
    """The copy's CUDA source with these load and store statements."""
    return _TEMPLATE.replace("LOAD", load).replace("STORE", store)


COPY16 = source()


def copy16(nbytes, text=COPY16):
    """A launch of the copy (text: its source) over the first nbytes // 16 words of two new buffers, the source
    all ones and the destination zeros; the launch's `dst` is the destination buffer."""
    import cupy
    words = nbytes // 16
    src, dst = cupy.ones(words * 16 + 16, dtype=cupy.uint8), cupy.zeros(words * 16 + 16, dtype=cupy.uint8)
    kernel = cupy.RawKernel(text, "copy16", options=("--std=c++17",))
    grid = ((words + 1023) // 1024,)

    def launch():
        kernel(grid, (256,), (src, dst, cupy.int64(words)))

    launch.dst = dst
    return launch
