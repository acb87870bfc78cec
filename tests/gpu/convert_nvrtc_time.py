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

    python3 tests/gpu/convert_nvrtc_time.py CLI REPEATS --against OTHER_CLI --cases LAB.jsonl

compares two builds of the generator under the host's same conditions instead: for every case of a lab run
(`convert_lab` output: case, shape, perm, dtype) it compiles OTHER_CLI's text and CLI's text alternately, REPEATS
times each, with the agent's options (NVRTC's time drifts by tens of percent from one minute to the next on one
host, so only a paired run compares two generators), and prints each case's medians and a summary per dtype.
"""
import argparse
import ctypes
import json
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


AGENT_OPTIONS = "-minimal -Xptxas -O1 (the agent's choice)"


def kernel_text(cli, shape, perm, dtype):
    return subprocess.run([cli, "plan", "--shape", shape, "--perm", perm, "--dtype", dtype, "--emit-cuda"],
                          check=True, capture_output=True).stdout


def main():
    ap = argparse.ArgumentParser(description="NVRTC first-compile time of generated conversion kernels")
    ap.add_argument("cli", help="a build of the layoutscope command line")
    ap.add_argument("repeats", type=int, nargs="?", default=5, help="compiles per text and option set")
    ap.add_argument("--against", metavar="OTHER_CLI", help="another build: compare the two, case by case")
    ap.add_argument("--cases", metavar="LAB.jsonl", help="with --against: the cases of this lab run")
    args = ap.parse_args()
    if bool(args.against) != bool(args.cases):
        ap.error("--against and --cases go together")
    os.environ["HOME"] = tempfile.mkdtemp()  # an empty NVRTC cache
    cli, repeats = args.cli, args.repeats
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

    # NVRTC loads its builtins at the process's first compile: an empty kernel takes that time out of every case.
    compile_once(b'extern "C" __global__ void layoutscope_warm() {}\n', OPTION_SETS[AGENT_OPTIONS])

    def first_compile(text, opts, tag):
        # A distinct program each time (an unused declaration), so no compile reuses an earlier one's work.
        return compile_once(text + f"__device__ int layoutscope_unused_{tag};\n".encode(), opts)

    if args.against:
        paired(args, compile_once=first_compile)
        return
    for name, shape, perm, dtype in CASES:
        text = kernel_text(cli, shape, perm, dtype)
        for label, opts in OPTION_SETS.items():
            times, info = [], None
            for rep in range(repeats):
                dt, info = first_compile(text, opts, f"{abs(hash(label)) % 10**8}_{rep}")
                if dt is None:
                    break
                times.append(dt)
            if not times:
                print(f"{name:28s} {label:40s} FAILED: {info}")
            else:
                print(f"{name:28s} {label:40s} {1e3 * statistics.median(times):7.1f} ms  cubin {info} B")
        sys.stdout.flush()


def paired(args, compile_once):
    opts = OPTION_SETS[AGENT_OPTIONS]
    clis = [args.against, args.cli]
    results = []  # (case, dtype, same text, [median ms per cli])
    for line in open(args.cases):
        if not line.startswith("{"):
            continue
        c = json.loads(line)
        shape, perm = ",".join(map(str, c["shape"])), ",".join(map(str, c["perm"]))
        texts = [kernel_text(x, shape, perm, c["dtype"]) for x in clis]
        times = [[], []]
        for rep in range(args.repeats):
            for i, text in enumerate(texts):
                dt, info = compile_once(text, opts, f"{i}_{rep}")
                if dt is None:
                    sys.exit(f"{c['case']}: {clis[i]}'s kernel does not compile: {info}")
                times[i].append(1e3 * dt)
        medians = [statistics.median(t) for t in times]
        results.append((c["case"], c["dtype"], texts[0] == texts[1], medians))
        print(f"{c['case']:44s} {medians[0]:7.1f} {medians[1]:7.1f} ms{'  (same text)' if texts[0] == texts[1] else ''}")
        sys.stdout.flush()
    print(f"# columns: case, median of {args.repeats} first compiles of {args.against}'s text, of {args.cli}'s")
    for dtype in sorted({r[1] for r in results}):
        rows = [r for r in results if r[1] == dtype]
        for i, who in enumerate(clis):
            ms = [r[3][i] for r in rows]
            print(f"# {dtype}: {len(rows)} cases, {who}: median {statistics.median(ms):.1f} ms, max {max(ms):.1f} ms, "
                  f"{sum(m > 100 for m in ms)} over 100 ms")


if __name__ == "__main__":
    main()
