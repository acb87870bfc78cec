#!/usr/bin/env python3
"""Global store sectors and requests of an unaligned tiled conversion kernel, counted from what its text does,
apart from the engine: the row-per-warp pass of full tiles (rows of 32 windows) and the thread-per-window
passes of the tile that ends group a. Sectors are the 32 B sectors a request's lanes touch; each store
instruction with a live lane is a request. Nsight Compute's l1tex__t_{sectors,requests}_pipe_lsu_mem_global_op_st
count the same things.

  count_row_stores.py CASE [--split]

--split counts the text as it was when an edge's 8 B piece was a uint2: the compiler then stored the 8 B after
a 4 B piece at byte 4 as two 4 B stores (seen in its PTX). With --split the counts are the ones Nsight Compute
measured on an H100 for that text (docs/results/h100-convert-corpus.md), to the sector.
"""
import argparse


def edge_stores(b, e, unit):
    """The pieces (at, bytes) that store bytes [b, e) of a window: upward from b, then downward from b1."""
    return [(at, n) for at, n in slot_pieces(b, e, unit) if n]


def sectors(addresses, width):
    return len({a // 32 for a in addresses} | {(a + width - 1) // 32 for a in addresses})


def count(v, ub, tile_a, tile_b, extent_a, extent_b, dst_b, batches, split):
    """v units a window, ub bytes a unit; dst_b(ib): destination offset of row ib; batches: their offsets."""
    sec = req = 0

    def store(addresses, width):
        nonlocal sec, req
        if addresses:
            sec += sectors(addresses, width)
            req += 1
    for base in batches:
        for a0 in range(0, extent_a, tile_a):
            units = min(tile_a, extent_a - a0)
            for b0 in range(0, extent_b, tile_b):
                rows = [ib for ib in range(b0, min(b0 + tile_b, extent_b))]
                if units == tile_a:
                    for ib in rows:
                        first = base + a0 + dst_b(ib)
                        s = first % v
                        win = (first - s) * ub
                        if s == 0:
                            store([win + 16 * lane for lane in range(32)], 16)
                            continue
                        store([win + 16 * (lane + 1) for lane in range(31)], 16)
                        head, tail = edge_stores(s * ub, 16, ub), edge_stores(0, s * ub, ub)
                        if split and (4, 4) in head and (8, 8) in head:
                            head = [p for p in head if p != (8, 8)] + [(8, 4), (12, 4)]
                        for at, n in head:
                            store([win + at], n)
                        for at, n in tail:
                            store([win + tile_a * ub + at], n)
                    continue
                # The shorter tile: a row's windows per warp instruction (tile_a / v = 32), then the edges,
                # 16 rows' heads and tails a warp, one instruction per piece slot.
                for ib in rows:
                    first = base + a0 + dst_b(ib)
                    s = first % v
                    store([(first - s + k * v) * ub for k in range(s != 0, tile_a // v + (s != 0))
                           if (k + 1) * v - s <= units], 16)
                for w in range(0, 2 * tile_b, 32):
                    edges = []
                    for t in range(w, min(w + 32, 2 * tile_b)):
                        ib = b0 + t // 2
                        if ib >= extent_b:
                            continue
                        first = base + a0 + dst_b(ib)
                        s = first % v
                        head_end = min(v - s if s else 0, units)
                        body_end = max((units + s) // v, 1 if s else 0)
                        tail_start = max(body_end * v - s, head_end)
                        k = 0 if t % 2 == 0 else body_end
                        lo, hi = (0, head_end) if t % 2 == 0 else (tail_start, units)
                        if lo < hi:
                            edges.append(((first - s + k * v) * ub, (lo - k * v + s) * ub, (hi - k * v + s) * ub))
                    slots = {}
                    for win, b, e in edges:
                        for i, (at, n) in enumerate(slot_pieces(b, e, ub)):
                            if n:
                                slots.setdefault(i, (n, []))[1].append(win + at)
                    for n, addresses in slots.values():
                        store(addresses, n)
    return sec, req


def slot_pieces(b, e, unit):
    """edge_stores with its empty slots kept: the generated edge code has one store instruction per slot."""
    def up(s):
        return (b + s - 1) & ~(s - 1)
    slots, b1, s = [], b, 1
    while s <= 16:
        if up(s) <= e:
            b1 = up(s)
        if unit <= s <= 8:
            slots.append((up(s), s if (up(s) & s) != 0 and up(s) + s <= e else 0))
        s *= 2
    n, s = e - b1, 8
    while s >= unit:
        slots.append((b1 + (n & ~(2 * s - 1)), s if n & s else 0))
        s //= 2
    return slots


# The corpus's tiles of 32 windows a row: (V, unit bytes, tile_a, tile_b, extent_a, extent_b, destination of
# row ib, batch offsets), as `layoutscope plan` gives them.
CASES = {
    'prime_10007x1009_u8': (16, 1, 512, 32, 10007, 1009, lambda ib: ib * 10007, [0]),
    'prime_4093x4099_bf16': (8, 2, 256, 64, 4093, 4099, lambda ib: ib * 4093, [0]),
    'prime_4099x4093_f32': (4, 4, 128, 32, 4099, 4093, lambda ib: ib * 4099, [0]),
    'x_3001x997_bf16': (8, 2, 256, 32, 3001, 997, lambda ib: ib * 3001, [0]),
    'gpt2_embedding_t_bf16': (8, 2, 256, 64, 50257, 768, lambda ib: ib * 50257, [0]),
    'vit_l14_336_k_transpose_f32': (4, 4, 128, 32, 577, 64, lambda ib: ib * 577, [36928 * i for i in range(128)]),
    'mistral_k_transpose_4097_f32': (4, 4, 128, 32, 4097, 128, lambda ib: ib * 4097,
                                     [524416 * i for i in range(8)]),
    'vit_rank4_odd_f32': (4, 4, 128, 32, 197, 832, lambda ib: ib % 13 * 197 + ib // 13 * 122928,
                          [2561 * i for i in range(48)]),
}

if __name__ == '__main__':
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('case', choices=sorted(CASES))
    ap.add_argument('--split', action='store_true', help="the text with uint2 8 B pieces")
    a = ap.parse_args()
    s, r = count(*CASES[a.case], split=a.split)
    print(f"{a.case}: {s} sectors in {r} requests, {s / r:.4f} a request")
