#!/usr/bin/env python3
"""NCCL on one GPU without the agent: ncclCommInitAll over device 0, one in-place-free ncclAllReduce of 1 Mi
floats (a one-rank sum is the input itself), checked element by element. ctypes over libnccl.so.2 and
libcudart; standard library only. Usage: nccl_smoke.py LIBNCCL [LIBCUDART]"""
import ctypes
import struct
import sys


def main():
    nccl = ctypes.CDLL(sys.argv[1])
    cudart = None
    for name in sys.argv[2:] + ["libcudart.so", "libcudart.so.13", "libcudart.so.12"]:
        try:
            cudart = ctypes.CDLL(name)
            break
        except OSError:
            continue
    if cudart is None:
        print("nccl_smoke: no libcudart found")
        return 1
    version = ctypes.c_int()
    assert nccl.ncclGetVersion(ctypes.byref(version)) == 0
    print("NCCL version code", version.value)
    n = 1 << 20
    assert cudart.cudaSetDevice(0) == 0
    send, recv = ctypes.c_void_p(), ctypes.c_void_p()
    assert cudart.cudaMalloc(ctypes.byref(send), n * 4) == 0
    assert cudart.cudaMalloc(ctypes.byref(recv), n * 4) == 0
    host = (ctypes.c_float * n)(*[float(i % 1000 + 1) for i in range(n)])
    assert cudart.cudaMemcpy(send, host, n * 4, 1) == 0  # cudaMemcpyHostToDevice
    comm = ctypes.c_void_p()
    devs = (ctypes.c_int * 1)(0)
    rc = nccl.ncclCommInitAll(ctypes.byref(comm), 1, devs)
    print("ncclCommInitAll(1 device):", rc)
    assert rc == 0
    # ncclAllReduce(send, recv, count, ncclFloat32 = 7, ncclSum = 0, comm, stream 0)
    rc = nccl.ncclAllReduce(send, recv, ctypes.c_size_t(n), 7, 0, comm, ctypes.c_void_p(0))
    print("ncclAllReduce:", rc)
    assert rc == 0
    assert cudart.cudaDeviceSynchronize() == 0
    out = (ctypes.c_float * n)()
    assert cudart.cudaMemcpy(out, recv, n * 4, 2) == 0  # cudaMemcpyDeviceToHost
    bad = sum(1 for i in range(n) if out[i] != host[i])
    print(f"all_reduce over 1 rank: {n - bad} of {n} elements equal the input")
    nccl.ncclCommDestroy(comm)
    return 0 if bad == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
