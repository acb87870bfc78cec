// cp.async 16 B as Nsight Compute's ldgsts counters see it, in five PTX forms: k<0> .cg, k<1> .cg with an
// immediate src-size, k<2> .cg with a register src-size (Triton's form), k<3> .ca, k<4> .cg.L2::128B. One
// warp, 64 instructions a kernel, lane l copying bytes 16l..16l+15 of a 512 B row into the same place of a
// shared row (conflict-free). Built and profiled by tests/gpu/cp_async_ncu.sh; results in
// docs/results/h200-cp-async-ncu.md.
#include <cstdio>
__device__ unsigned sa(const void* p) { return (unsigned)__cvta_generic_to_shared(p); }
template <int F>
__global__ void k(const char* in, int* out) {
  __shared__ __align__(128) char t[64 * 512];
  int l = threadIdx.x;
  for (int i = 0; i < 64; ++i) {
    unsigned d = sa(t + i * 512 + l * 16);
    const char* s = in + i * 512 + l * 16;
    if (F == 0) asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(d), "l"(s) : "memory");
    if (F == 1) asm volatile("cp.async.cg.shared.global [%0], [%1], 16, 16;" ::"r"(d), "l"(s) : "memory");
    if (F == 2) {
      int n = l < 32 ? 16 : 0;
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(d), "l"(s), "r"(n) : "memory");
    }
    if (F == 3) asm volatile("cp.async.ca.shared.global [%0], [%1], 16;" ::"r"(d), "l"(s) : "memory");
    if (F == 4)
      asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16;" ::"r"(d), "l"(s) : "memory");
  }
  asm volatile("cp.async.wait_all;" ::: "memory");
  __syncwarp();
  out[l] = t[l * 16 + 3];
}
int main() {
  char* in;
  int* o;
  cudaMalloc(&in, 64 * 512);
  cudaMalloc(&o, 128);
  k<0><<<1, 32>>>(in, o);
  k<1><<<1, 32>>>(in, o);
  k<2><<<1, 32>>>(in, o);
  k<3><<<1, 32>>>(in, o);
  k<4><<<1, 32>>>(in, o);
  printf("%s\n", cudaGetErrorString(cudaDeviceSynchronize()));
}
