"""Triton fixtures for the layout importer and the scanner, made on a machine with Triton (and a GPU for the
kernels that run). Three parts, each written under OUT as it finishes:

  ttgir-*.mlir           the TTGIR of small kernels: a matmul (sm_90, and sm_80 for MMA v2), a fused attention,
                         a layer norm, a transpose, and a matmul compiled for sm_100 without running it
  triton-linear.json     Triton's own linear layout (reg/lane/warp/block or offset bases) of a list of Gluon
                         layouts, each computed in a child process (some conversions abort inside Triton)
  ncu-shared.csv         Nsight Compute's shared-memory wavefronts and instructions of the kernels that run

  python3 tests/gpu/triton_fixtures.py all          (OUT defaults to build-triton-out/)
  python3 tests/gpu/triton_fixtures.py run NAME     one launch of kernel NAME (what ncu profiles)
  python3 tests/gpu/triton_fixtures.py dumps NAME... the TTGIR of the named kernels only
"""

import json
import os
import subprocess
import sys
import time
import traceback

OUT = os.environ.get("OUT", "build-triton-out")

import triton  # noqa: E402
import triton.language as tl  # noqa: E402


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for _ in range(0, K, BLOCK_K):
        a = tl.load(a_ptrs)
        b = tl.load(b_ptrs)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    tl.store(c_ptrs, acc.to(tl.float16))


@triton.jit
def attention_kernel(Q, K, V, O, sm_scale, N_CTX, HEAD: tl.constexpr, BLOCK_M: tl.constexpr,
                     BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    bh = tl.program_id(1)
    offs_m = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD)
    base = bh * N_CTX * HEAD
    q = tl.load(Q + base + offs_m[:, None] * HEAD + offs_d[None, :])
    m_i = tl.full([BLOCK_M], float("-inf"), tl.float32)
    l_i = tl.zeros([BLOCK_M], tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD], tl.float32)
    for start in range(0, N_CTX, BLOCK_N):
        k = tl.load(K + base + (start + offs_n)[None, :] * HEAD + offs_d[:, None])
        qk = tl.dot(q, k) * sm_scale
        m_new = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.exp(qk - m_new[:, None])
        alpha = tl.exp(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None]
        v = tl.load(V + base + (start + offs_n)[:, None] * HEAD + offs_d[None, :])
        acc = tl.dot(p.to(tl.float16), v, acc)
        m_i = m_new
    acc = acc / l_i[:, None]
    tl.store(O + base + offs_m[:, None] * HEAD + offs_d[None, :], acc.to(tl.float16))


@triton.jit
def layernorm_kernel(X, Y, W, B, N, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(X + row * N + cols, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, 0) / N
    xc = tl.where(mask, x - mean, 0.0)
    var = tl.sum(xc * xc, 0) / N
    rstd = 1 / tl.sqrt(var + eps)
    w = tl.load(W + cols, mask=mask)
    b = tl.load(B + cols, mask=mask)
    tl.store(Y + row * N + cols, (xc * rstd * w + b).to(tl.float16), mask=mask)


@triton.jit
def transpose_kernel(X, Y, M, N, BLOCK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK + tl.arange(0, BLOCK)
    rn = pid_n * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(X + rm[:, None] * N + rn[None, :])
    tl.store(Y + rn[:, None] * M + rm[None, :], tl.trans(x))


def launch(name):
    """One launch of a kernel on the GPU; returns its compiled object."""
    import torch

    torch.manual_seed(0)
    dev = "cuda"
    if name == "matmul":
        M = N = K = 512
        a = torch.randn(M, K, device=dev, dtype=torch.float16)
        b = torch.randn(K, N, device=dev, dtype=torch.float16)
        c = torch.empty(M, N, device=dev, dtype=torch.float16)
        k = matmul_kernel[(M // 128, N // 128)](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0),
                                                b.stride(1), c.stride(0), c.stride(1), BLOCK_M=128, BLOCK_N=128,
                                                BLOCK_K=64, num_warps=4)
    elif name == "attention":
        BH, N_CTX, HEAD = 4, 512, 64
        q, kk, v = (torch.randn(BH, N_CTX, HEAD, device=dev, dtype=torch.float16) for _ in range(3))
        o = torch.empty_like(q)
        k = attention_kernel[(N_CTX // 128, BH)](q, kk, v, o, 0.125, N_CTX, HEAD=HEAD, BLOCK_M=128, BLOCK_N=64,
                                                 num_warps=4)
    elif name == "layernorm":
        R, N = 256, 1024
        x = torch.randn(R, N, device=dev, dtype=torch.float16)
        y = torch.empty_like(x)
        w = torch.randn(N, device=dev, dtype=torch.float16)
        b = torch.randn(N, device=dev, dtype=torch.float16)
        k = layernorm_kernel[(R,)](x, y, w, b, N, 1e-5, BLOCK=1024, num_warps=4)
    elif name == "transpose":
        M = N = 1024
        x = torch.randn(M, N, device=dev, dtype=torch.float32)
        y = torch.empty(N, M, device=dev, dtype=torch.float32)
        k = transpose_kernel[(M // 64, N // 64)](x, y, M, N, BLOCK=64, num_warps=4)
    else:
        raise SystemExit("unknown kernel " + name)
    torch.cuda.synchronize()
    return k


def compile_for(target_arch, out_name):
    """The matmul compiled for another GPU without running it."""
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    sig = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32", "N": "i32", "K": "i32",
           "stride_am": "i32", "stride_ak": "constexpr", "stride_bk": "i32", "stride_bn": "constexpr",
           "stride_cm": "i32", "stride_cn": "constexpr", "BLOCK_M": "constexpr", "BLOCK_N": "constexpr",
           "BLOCK_K": "constexpr"}
    consts = {"stride_ak": 1, "stride_bn": 1, "stride_cn": 1, "BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64}
    names = matmul_kernel.arg_names
    errors = []
    compiled = None
    # The constexpr keys are names in some Triton versions and (index,) tuples in others.
    for keyed in (consts, {(names.index(k),): v for k, v in consts.items()}):
        try:
            src = ASTSource(fn=matmul_kernel, signature=sig, constexprs=keyed)
            compiled = triton.compile(src, target=GPUTarget("cuda", target_arch, 32), options={"num_warps": 4})
            break
        except Exception as e:
            errors.append(repr(e)[-300:])
    if compiled is None:
        raise RuntimeError("; ".join(errors))
    with open(os.path.join(OUT, out_name), "w") as f:
        f.write(compiled.asm["ttgir"])


# ---- Triton's own linear layouts ---------------------------------------------------------------------------

# (name, shape, the TTGIR text of the layout, a Python expression building the Gluon layout)
LAYOUTS = [
    ("blocked_64x64", [64, 64],
     "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>",
     "gl.BlockedLayout([1, 4], [8, 4], [4, 1], [1, 0])"),
    ("blocked_col_32x128", [32, 128],
     "#ttg.blocked<{sizePerThread = [2, 2], threadsPerWarp = [4, 8], warpsPerCTA = [2, 2], order = [0, 1]}>",
     "gl.BlockedLayout([2, 2], [4, 8], [2, 2], [0, 1])"),
    ("blocked_small_16x8", [16, 8],
     "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>",
     "gl.BlockedLayout([1, 4], [8, 4], [4, 1], [1, 0])"),
    ("slice0_blocked_64", [64],
     "#ttg.slice<{dim = 0, parent = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], "
     "warpsPerCTA = [4, 1], order = [1, 0]}>}>",
     "gl.SliceLayout(0, gl.BlockedLayout([1, 4], [8, 4], [4, 1], [1, 0]))"),
    ("slice1_blocked_64", [64],
     "#ttg.slice<{dim = 1, parent = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], "
     "warpsPerCTA = [4, 1], order = [1, 0]}>}>",
     "gl.SliceLayout(1, gl.BlockedLayout([1, 4], [8, 4], [4, 1], [1, 0]))"),
    ("mma2_64x64", [64, 64],
     "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]}>",
     "gl.NVMMADistributedLayout(version=[2, 0], warps_per_cta=[4, 1], instr_shape=[16, 8])"),
    ("mma2_w22_128x128", [128, 128],
     "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>",
     "gl.NVMMADistributedLayout(version=[2, 0], warps_per_cta=[2, 2], instr_shape=[16, 8])"),
    ("mma3_128x64", [128, 64],
     "#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>",
     "gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1], instr_shape=[16, 64, 16])"),
    ("mma3_w42_128x256", [128, 256],
     "#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 2], instrShape = [16, 128, 16]}>",
     "gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 2], instr_shape=[16, 128, 16])"),
    ("dot0_mma2_k2_64x32", [64, 32],
     "#ttg.dot_op<{opIdx = 0, parent = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], "
     "instrShape = [16, 8]}>, kWidth = 2}>",
     "gl.DotOperandLayout(0, gl.NVMMADistributedLayout(version=[2, 0], warps_per_cta=[4, 1], instr_shape=[16, 8]), 2)"),
    ("dot1_mma2_k2_32x64", [32, 64],
     "#ttg.dot_op<{opIdx = 1, parent = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], "
     "instrShape = [16, 8]}>, kWidth = 2}>",
     "gl.DotOperandLayout(1, gl.NVMMADistributedLayout(version=[2, 0], warps_per_cta=[4, 1], instr_shape=[16, 8]), 2)"),
    ("dot0_mma2_w22_k4_64x64", [64, 64],
     "#ttg.dot_op<{opIdx = 0, parent = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], "
     "instrShape = [16, 8]}>, kWidth = 4}>",
     "gl.DotOperandLayout(0, gl.NVMMADistributedLayout(version=[2, 0], warps_per_cta=[2, 2], instr_shape=[16, 8]), 4)"),
    ("dot1_mma2_w22_k1_32x32", [32, 32],
     "#ttg.dot_op<{opIdx = 1, parent = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], "
     "instrShape = [16, 8]}>, kWidth = 1}>",
     "gl.DotOperandLayout(1, gl.NVMMADistributedLayout(version=[2, 0], warps_per_cta=[2, 2], instr_shape=[16, 8]), 1)"),
    ("dot0_mma3_k2_128x64", [128, 64],
     "#ttg.dot_op<{opIdx = 0, parent = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], "
     "instrShape = [16, 64, 16]}>, kWidth = 2}>",
     "gl.DotOperandLayout(0, gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1], instr_shape=[16, 64, 16]), 2)"),
    ("dot0_blocked_32x16", [32, 16],
     "#ttg.dot_op<{opIdx = 0, parent = #ttg.blocked<{sizePerThread = [2, 2], threadsPerWarp = [4, 8], "
     "warpsPerCTA = [2, 2], order = [1, 0]}>}>",
     "gl.DotOperandLayout(0, gl.BlockedLayout([2, 2], [4, 8], [2, 2], [1, 0]), 0)"),
    ("slice1_mma3_128", [128],
     "#ttg.slice<{dim = 1, parent = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], "
     "instrShape = [16, 64, 16]}>}>",
     "gl.SliceLayout(1, gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1], instr_shape=[16, 64, 16]))"),
    ("slice0_mma2_64", [64],
     "#ttg.slice<{dim = 0, parent = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], "
     "instrShape = [16, 8]}>}>",
     "gl.SliceLayout(0, gl.NVMMADistributedLayout(version=[2, 0], warps_per_cta=[2, 2], instr_shape=[16, 8]))"),
    ("mfma32_64x64", [64, 64],
     "#ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32, 8], isTransposed = true}>",
     "gl.amd.AMDMFMALayout(version=3, instr_shape=[32, 32, 8], transposed=True, warps_per_cta=[2, 2])"),
    ("mfma16_64x64", [64, 64],
     "#ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [16, 16, 16], isTransposed = false}>",
     "gl.amd.AMDMFMALayout(version=3, instr_shape=[16, 16, 16], transposed=False, warps_per_cta=[2, 2])"),
    ("wmma2_32x32", [32, 32],
     "#ttg.amd_wmma<{version = 2, isTranspose = false, warpsPerCTA = [2, 2]}>",
     "gl.amd.AMDWMMALayout(version=2, transposed=False, warps_per_cta=[2, 2])"),
    ("swizzled_64x64", [64, 64],
     "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>",
     "gl.SwizzledSharedLayout(8, 1, 8, [1, 0])"),
    ("swizzled_col_32x64", [32, 64],
     "#ttg.swizzled_shared<{vec = 4, perPhase = 2, maxPhase = 4, order = [0, 1]}>",
     "gl.SwizzledSharedLayout(4, 2, 4, [0, 1])"),
    ("nvmma128_16_64x64", [64, 64],
     "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>",
     "gl.NVMMASharedLayout(swizzle_byte_width=128, element_bitwidth=16, rank=2)"),
    ("nvmma64_16_32x64", [32, 64],
     "#ttg.nvmma_shared<{swizzlingByteWidth = 64, transposed = false, elementBitWidth = 16}>",
     "gl.NVMMASharedLayout(swizzle_byte_width=64, element_bitwidth=16, rank=2)"),
    ("nvmma128_8_t_128x64", [128, 64],
     "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = true, elementBitWidth = 8}>",
     "gl.NVMMASharedLayout(swizzle_byte_width=128, element_bitwidth=8, rank=2, transposed=True)"),
    ("padded_64x64", [64, 64],
     "#ttg.padded_shared<[32:+4] {order = [1, 0], shape = [64, 64]}>",
     "gl.PaddedSharedLayout.with_identity_for([[32, 4]], [64, 64], [1, 0])"),
]


def one_layout(expr, shape):
    """Triton's linear layout of one Gluon layout, as plain lists (run in a child process)."""
    import triton.experimental.gluon.language as gl  # noqa: F401
    from triton._C.libtriton import gluon_ir, ir

    try:
        import triton.experimental.gluon.language.amd as _amd  # noqa: F401

        gl.amd = _amd
    except Exception:
        pass
    ctx = ir.context()
    ir.load_dialects(ctx)
    builder = gluon_ir.GluonOpBuilder(ctx)
    layout = eval(expr, {"gl": gl})
    attr = layout._to_ir(builder)
    ll = builder.to_linear_layout(attr, shape)
    out = {"repr": repr(layout)}
    try:
        out["attr"] = str(attr)
    except Exception:
        pass
    for key in ("reg_bases", "lane_bases", "warp_bases", "block_bases", "offset_bases", "shape"):
        if hasattr(ll, key):
            out[key] = [list(b) if isinstance(b, (list, tuple)) else b for b in getattr(ll, key)]
    return out


def triton_layouts():
    results = []
    for name, shape, text, expr in LAYOUTS:
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(r)
            try:
                payload = json.dumps({"ok": one_layout(expr, shape)})
            except BaseException:
                payload = json.dumps({"error": traceback.format_exc()[-600:]})
            os.write(w, payload.encode())
            os._exit(0)
        os.close(w)
        data = b""
        while True:
            chunk = os.read(r, 65536)
            if not chunk:
                break
            data += chunk
        _, status = os.waitpid(pid, 0)
        entry = {"name": name, "shape": shape, "ttgir": text, "gluon": expr}
        try:
            entry.update(json.loads(data.decode()) if data else {"error": "child ended with status %d" % status})
        except ValueError:
            entry["error"] = "unreadable child output"
        results.append(entry)
        print(name, "ok" if "ok" in entry else "error", flush=True)
    with open(os.path.join(OUT, "triton-linear.json"), "w") as f:
        json.dump({"triton": triton.__version__, "layouts": results}, f, indent=1)


def main():
    if len(sys.argv) > 2 and sys.argv[1] == "run":
        launch(sys.argv[2])
        return
    if len(sys.argv) > 2 and sys.argv[1] == "dumps":  # only the TTGIR of the named kernels
        os.makedirs(OUT, exist_ok=True)
        for name in sys.argv[2:]:
            with open(os.path.join(OUT, "ttgir-%s-sm90.mlir" % name), "w") as f:
                f.write(launch(name).asm["ttgir"])
        return
    os.makedirs(OUT, exist_ok=True)
    t0 = time.time()
    triton_layouts()
    print("layouts", round(time.time() - t0, 1), "s", flush=True)
    for name in ("matmul", "attention", "layernorm", "transpose"):
        try:
            k = launch(name)
            with open(os.path.join(OUT, "ttgir-%s-sm90.mlir" % name), "w") as f:
                f.write(k.asm["ttgir"])
        except Exception:
            traceback.print_exc()
    for arch, out_name in ((100, "ttgir-matmul-sm100.mlir"), (80, "ttgir-matmul-sm80.mlir")):
        try:
            compile_for(arch, out_name)
        except Exception:
            traceback.print_exc()
    print("kernels", round(time.time() - t0, 1), "s", flush=True)
    ncu = subprocess.run(["bash", "-c", "command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu | tail -1"],
                         capture_output=True, text=True).stdout.strip()
    if ncu:
        metrics = ",".join("sm__sass_%s_mem_shared_op_%s.sum" % (kind, op)
                           for kind in ("l1tex_data_pipe_lsu_wavefronts", "l1tex_data_bank_conflicts_pipe_lsu")
                           for op in ("ld", "st", "ldsm", "stsm", "ldgsts"))
        metrics += ",smsp__sass_inst_executed_op_shared_ld.sum,smsp__sass_inst_executed_op_shared_st.sum"
        metrics += ",smsp__sass_inst_executed_op_ldsm.sum,smsp__sass_inst_executed_op_ldgsts.sum"
        with open(os.path.join(OUT, "ncu-shared.csv"), "w") as f:
            for name in ("matmul", "attention", "layernorm", "transpose"):
                try:
                    r = subprocess.run([ncu, "--clock-control", "none", "--csv", "--page", "raw", "--launch-count",
                                        "1", "--kernel-name", "regex:" + name, "--metrics", metrics, sys.executable,
                                        os.path.abspath(__file__), "run", name],
                                       capture_output=True, text=True, timeout=60)
                    rows = [line for line in r.stdout.splitlines() if line.startswith('"')]
                    f.write("# " + name + "\n" + "\n".join(rows) + "\n")
                    if not rows:
                        f.write("# no rows: " + r.stderr[-400:].replace("\n", " ") + "\n")
                except Exception as e:
                    f.write("# %s failed: %s\n" % (name, e))
                f.flush()
    print("done", round(time.time() - t0, 1), "s", flush=True)


if __name__ == "__main__":
    main()
