// The scan view's words in English and Chinese: [en, zh] per key, {name} filled in by scanText. The engine's
// fixed words for an op (what moves, its note) are translated where the view knows them (keyed by the engine's
// exact English, so a reworded sentence is shown as the engine wrote it, never a stale translation); the engine's
// messages about a text that did not read stay in its English, marked as such.
export const SCAN_TEXT = {
  input: [
    'TTGIR or a log of CuTe print() output (paste, or drop a .ttgir / .mlir / .txt file)',
    'TTGIR 或 CuTe print() 输出的日志（粘贴，或拖入 .ttgir / .mlir / .txt 文件）',
  ],
  file: ['TTGIR or MLIR file', 'TTGIR 或 MLIR 文件'],
  summary: [
    '{lines} lines scanned in {ms} ms: {aliases} layouts, {ops} layout-moving ops',
    '扫描 {lines} 行，用时 {ms} ms：{aliases} 个布局，{ops} 个在布局之间搬运数据的 op',
  ],
  summaryUnknown: [', {n} unknown ops', '，{n} 个未识别的 op'],
  summaryCute: [', {n} CuTe layouts', '，{n} 个 CuTe 布局'],
  cuteCaption: ['CuTe layouts printed in the text', '文本中打印的 CuTe 布局'],
  lineColumn: ['line:column', '行:列'],
  asPrinted: ['as printed', '原样打印'],
  notation: ['notation', '记号'],
  shapeSize: ['shape (size)', 'shape（大小）'],
  openPlay: ['open in playground', '在试验场中打开'],
  atColumn: ['column {n}', '第 {n} 列'],
  line: ['line', '行'],
  op: ['op', 'op'],
  moves: ['what moves', '搬运方式'],
  layouts: ['layouts', '布局'],
  sharedB: ['shared B', '共享内存 B'],
  instruction: ['instruction', '指令'],
  wavefronts: ['wavefronts (ideal)', 'wavefront 数（理想值）'],
  conflicts: ['conflicts', 'bank 冲突'],
  note: ['note', '说明'],
  compare: ['compare', '对比'],
  triton: ['Triton', 'Triton'],
  export: ['export', '导出'],
  encoding: ['encoding', '编码'],
  encodingAuto: ['auto (the first that fits)', '自动（第一个合适的）'],
  from: ['from', '源'],
  to: ['to', '目标'],
  noShape: ['no type uses it as its layout: no shape to export it on', '没有类型以它为布局：没有可用于导出的 shape'],
  aliases: ['{n} layout aliases', '{n} 个布局别名'],
  aliasAt: ['(line {line}, {uses} types):', '（第 {line} 行，{uses} 个类型）：'],
  unknownOp: ['unknown op', '未识别的 op'],
  unknownAt: ['(line {line}, ×{count})', '（第 {line} 行，×{count}）'],
  issueAt: ['line {line}:{column}:', '第 {line} 行第 {column} 列：'],
  engineWords: ["the layout engine's words", '布局引擎的原文'],
} as const;

export type ScanKey = keyof typeof SCAN_TEXT;

export function scanText(key: ScanKey, zh: boolean, vars: Record<string, string | number> = {}): string {
  return SCAN_TEXT[key][zh ? 1 : 0].replace(/\{(\w+)\}/g, (m, k: string) => (k in vars ? String(vars[k]) : m));
}

/** What moves in an op, as the engine's scanner names it (shared/src/scan.cpp). */
const KIND_ZH: Record<string, string> = {
  unread: '未读出',
  'shared allocation': '共享内存分配',
  'tensor memory load': '张量内存加载',
  'tensor memory store': '张量内存存储',
  TMA: 'TMA',
  trivial: '无搬运',
  'register permutation': '寄存器重排',
  'warp shuffle': 'warp shuffle',
  'shared round trip': '经共享内存往返',
  'shared store': '共享内存存储',
  'shared load': '共享内存加载',
  'global to shared': '全局内存到共享内存',
};

/** The engine's notes on an op (shared/src/scan.cpp), in Chinese. */
const NOTE_ZH: Record<string, string> = {
  "no types after ':' (an op without its types, or the generic form)": '‘:’ 之后没有类型（op 未带类型，或为通用形式）',
  'an allocation without a value: nothing moves here': '没有初值的分配：此处不搬运数据',
  'tcgen05.ld/st between registers and tensor memory: no shared-memory traffic':
    'tcgen05.ld/st 在寄存器与张量内存之间搬运：没有共享内存流量',
  'the tensor-memory-access engine moves the tile: no LSU wavefronts (ncu has no bank counter for it)':
    '由 TMA 引擎搬运 tile：没有 LSU wavefront（ncu 对它没有 bank 计数器）',
  'a layout did not read': '有一个布局未能读出',
  'the two layouts are the same function: no data moves': '两个布局是同一个函数：没有数据搬运',
  'every element stays with its threads: registers are renumbered': '每个元素都留在原线程中：只是寄存器重新编号',
  'every element stays in its warps: lanes exchange registers (shfl.sync)':
    '每个元素都留在原 warp 中：各 lane 交换寄存器（shfl.sync）',
  'elements change warps: stored to and loaded from a shared scratch tile; Triton swizzles the scratch for the two layouts (optimalSwizzlingLdSt), so the ideal wavefronts (one per 128 B each way) are given':
    '元素跨 warp 移动：先存入共享内存中的临时 tile 再读出；Triton 按两个布局对临时 tile 做 swizzle（optimalSwizzlingLdSt），因此给出的是理想 wavefront 数（每个方向每 128 B 一个）',
  'not costed: a layout or the element type did not read': '未计算代价：有布局或元素类型未能读出',
  'Triton loads MMA operands with ldmatrix where the layouts allow; the LDS cost is given':
    '布局允许时 Triton 用 ldmatrix 加载 MMA 操作数；此处给出的是 LDS 的代价',
  'not costed: no lane moves 1, 2, 4, 8 or 16 contiguous bytes in both layouts':
    '未计算代价：在两个布局中都没有 lane 搬运 1、2、4、8 或 16 个连续字节',
  'the source is taken as a dense row-major tensor': '源张量按稠密的行主序处理',
  'lanes copy along dimension 0; the source is taken as dense along it (column-major)':
    '各 lane 沿第 0 维复制；源张量在该维上按稠密（列主序）处理',
  'not costed: no lane moves 4, 8 or 16 contiguous bytes in both layouts':
    '未计算代价：在两个布局中都没有 lane 搬运 4、8 或 16 个连续字节',
};

/** An engine word or sentence in the view's language, or null where the view does not know it (then it is
 * shown as the engine wrote it, marked English). */
export function engineText(kind: 'kind' | 'note', english: string, zh: boolean): string | null {
  if (!zh) return english;
  return (kind === 'kind' ? KIND_ZH : NOTE_ZH)[english] ?? null;
}
