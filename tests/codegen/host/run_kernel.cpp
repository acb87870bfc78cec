// Runs a generated conversion kernel (the file KERNEL names) on the host over a tensor of a permutation case
// and compares every byte of the output buffer with x.permute(perm).contiguous() worked out here directly.
//   run_kernel THREADS BLOCKS ELEM_BYTES RANK SHAPE... PERM...
// Prints "bad N of M" (bytes that differ, bytes of the tensor); exit status 0 only where N is 0. The 16 bytes
// past the tensor must keep their fill: a kernel writes nothing outside it.
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "host_cuda.hpp"
#include KERNEL

int main(int argc, char** argv) {
  if (argc < 5) return 2;
  const int threads = std::atoi(argv[1]), eb = std::atoi(argv[3]), rank = std::atoi(argv[4]);
  const long long blocks = std::atoll(argv[2]);
  if (argc != 5 + 2 * rank) return 2;
  std::vector<long long> shape(rank), perm(rank), stride(rank);
  long long n = 1;
  for (int i = 0; i < rank; ++i) shape[i] = std::atoll(argv[5 + i]), perm[i] = std::atoll(argv[5 + rank + i]);
  for (int d = rank - 1; d >= 0; --d) stride[d] = n, n *= shape[d];
  const long long bytes = n * eb;
  // 16 B aligned buffers, as cudaMalloc's are, and 16 B of fill past each tensor.
  std::vector<uint4> in_words(bytes / 16 + 2), out_words(bytes / 16 + 2), want_words(bytes / 16 + 2);
  auto* in = reinterpret_cast<unsigned char*>(in_words.data());
  auto* out = reinterpret_cast<unsigned char*>(out_words.data());
  auto* want = reinterpret_cast<unsigned char*>(want_words.data());
  for (long long i = 0; i < bytes; ++i) in[i] = static_cast<unsigned char>(i * 131 + (i >> 8) * 7 + 1);
  std::memset(out, 0xA5, bytes + 16);
  std::memset(want, 0xA5, bytes + 16);
  for (long long o = 0; o < n; ++o) {
    long long r = o, s = 0;
    for (int d = rank - 1; d >= 0; --d) {
      const long long e = shape[perm[d]];
      s += r % e * stride[perm[d]];
      r /= e;
    }
    std::memcpy(want + o * eb, in + s * eb, eb);
  }
  HostBlock block;
  block.block = std::make_unique<std::barrier<>>(threads);
  for (int w = 0; w < (threads + 31) / 32; ++w)
    block.warps.push_back(std::make_unique<std::barrier<>>(std::min(32, threads - 32 * w)));
  block.lanes.resize(threads);
  host_block = &block;
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      threadIdx.x = t;
      for (long long b = 0; b < blocks; ++b) {
        blockIdx.x = static_cast<unsigned>(b);
        layoutscope_convert(in, out);
        block.block->arrive_and_wait();  // the next block's shared memory is this one's
      }
    });
  }
  for (std::thread& t : pool) t.join();
  long long bad = 0;
  for (long long i = 0; i < bytes + 16; ++i) {
    if (out[i] == want[i]) continue;
    if (bad++ < 4) std::printf("byte %lld: %d, want %d\n", i, out[i], want[i]);
  }
  std::printf("bad %lld of %lld\n", bad, bytes);
  return bad == 0 ? 0 : 1;
}
