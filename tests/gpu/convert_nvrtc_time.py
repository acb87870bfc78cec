#!/usr/bin/env python3
"""NVRTC compile time of generated conversion kernels under different option sets (no GPU needed).

    python3 tests/gpu/convert_nvrtc_time.py build/bin/layoutscope [repeats]

For each case the kernel text comes from `layoutscope plan --emit-cuda`; each option set compiles it to a
CUBIN for sm_90 `repeats` times, each time with one more distinct declaration appended (median printed, ms):
NVRTC answers a text that differs from an earlier one only in a comment in a fraction of the time (measured
on an H200 host: 11-17 ms against 120-180 ms for the first compile), so a comment does not make a first
compile. NVRTC 12.9 and later also keep compiled programs in ~/.nv/ComputeCache across processes: HOME is set to
a fresh folder first, so every compile here is a first compile. Loads libnvrtc.so.13 with ctypes, as the agent
does with dlopen.
"""
import ctypes
import os
import statistics
import subprocess
import sys
import tempfile
import time

CASES = [
    ("transpose_8192x8192_f32", "8192,8192", "1,0", "f32"),
    ("transpose_8192x8192_bf16", "16384,8192", "1,0", "bf16"),
    ("transpose_8192x8192_u8", "32768,8192", "1,0", "u8"),
    ("nchw_to_nhwc_64x64x128x128_u8", "256,64,128,128", "0,2,3,1", "u8"),
    ("soa_to_aos_8x8388608_u8", "32,8388608", "1,0", "u8"),
    ("random23_64x32x4x128x64x4_p145320_u8", "64,32,4,128,64,4", "1,4,5,3,2,0", "u8"),
    ("random47_8x128x64x16x8x32_p102453_u8", "8,128,64,16,8,32", "1,0,2,4,5,3", "u8"),
    ("bshd_to_bhsd_16x4096x32x32_u8", "64,4096,32,32", "0,2,1,3", "u8"),
    ("random17_1024x64x128x32_p1203_u8", "1024,64,128,32", "1,2,0,3", "u8"),
]

BASE = ["--gpu-architecture=sm_90", "--std=c++17", "-default-device"]
OPTION_SETS = {
    "-minimal (ptxas -O3)": BASE + ["-minimal"],
    "front end only (PTX, -minimal)": ["--gpu-architecture=compute_90", "--std=c++17", "-default-device", "-minimal"],
    "-minimal -Xptxas -O1 (the agent's choice)": BASE + ["-minimal", "--ptxas-options=-O1"],
    "-minimal -Xptxas -O1 --Ofast-compile=min": BASE + ["-minimal", "--ptxas-options=-O1", "--Ofast-compile=min"],
}


def main():
    os.environ["HOME"] = tempfile.mkdtemp()  # an empty NVRTC cache
    cli = sys.argv[1]
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    lib = None
    for name in ("libnvrtc.so.13", "/usr/local/cuda/lib64/libnvrtc.so.13", "libnvrtc.so"):
        try:
            lib = ctypes.CDLL(name)
            break
        except OSError:
            continue
    if lib is None:
        sys.exit("libnvrtc not found")
    lib.nvrtcGetErrorString.restype = ctypes.c_char_p

    def compile_once(text, opts):
        prog = ctypes.c_void_p()
        rc = lib.nvrtcCreateProgram(ctypes.byref(prog), text, b"k.cu", 0, None, None)
        assert rc == 0, rc
        arr = (ctypes.c_char_p * len(opts))(*[o.encode() for o in opts])
        t0 = time.perf_counter()
        rc = lib.nvrtcCompileProgram(prog, len(opts), arr)
        size = ctypes.c_size_t()
        if rc == 0 and not any(o.startswith("--gpu-architecture=compute_") for o in opts):
            lib.nvrtcGetCUBINSize(prog, ctypes.byref(size))
        dt = time.perf_counter() - t0
        if rc != 0:
            lsize = ctypes.c_size_t()
            lib.nvrtcGetProgramLogSize(prog, ctypes.byref(lsize))
            log = ctypes.create_string_buffer(lsize.value)
            lib.nvrtcGetProgramLog(prog, log)
            lib.nvrtcDestroyProgram(ctypes.byref(prog))
            return None, log.value.decode()[:300]
        lib.nvrtcDestroyProgram(ctypes.byref(prog))
        return dt, size.value

    for name, shape, perm, dtype in CASES:
        text = subprocess.run([cli, "plan", "--shape", shape, "--perm", perm, "--dtype", dtype, "--emit-cuda"],
                              check=True, capture_output=True).stdout
        for label, opts in OPTION_SETS.items():
            times, info = [], None
            for rep in range(repeats):
                # A distinct program each time (an unused declaration), so no compile reuses an earlier one's work.
                tag = f"{abs(hash(label)) % 10**8}_{rep}"
                dt, info = compile_once(text + f"__device__ int layoutscope_unused_{tag};\n".encode(), opts)
                if dt is None:
                    break
                times.append(dt)
            if not times:
                print(f"{name:28s} {label:40s} FAILED: {info}")
            else:
                print(f"{name:28s} {label:40s} {1e3 * statistics.median(times):7.1f} ms  cubin {info} B")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
