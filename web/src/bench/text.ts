// The benchmark panel's words in English and Chinese: [en, zh] per key, {name} filled in by panelText. Agent
// messages keep the agent's wording behind a translated prefix (agentError).
export const PANEL_TEXT = {
  agents: ['Agents', 'Agents'],
  agentUrl: ['Agent URL', 'Agent URL'],
  token: ['Token (if not in the URL)', 'Token（URL 中没有时）'],
  remember: ['remember on this device', '在此设备上记住'],
  addAgent: ['Add agent', '添加 agent'],
  refresh: ['Refresh', '刷新'],
  remove: ['Remove', '移除'],
  runBench: ['Run a benchmark', '运行 benchmark'],
  openFile: ['Open a results file (offline)', '打开结果文件（离线）'],
  orUrl: ['or a URL', '或 URL'],
  open: ['Open', '打开'],
  openRef: ['Open the H200 reference runs', '打开 H200 参考结果'],
  results: ['Results', '结果'],
  logScale: ['log scale', '对数坐标'],
  aosTitle: ['AoS vs SoA (touch_fields sweep)', 'AoS 与 SoA（touch_fields 扫描）'],
  transposeTitle: ['Transpose (fp32)', '转置（fp32）'],
  noAgent1: ['No agent yet. Start ', '还没有 agent。在有 GPU 的机器上启动 '],
  noAgent2: [
    ' on a machine with a GPU and open the URL it prints, or paste that URL here.',
    '，打开它打印的 URL，或把该 URL 粘贴到这里。',
  ],
  drop1: ["Drop a results JSON here (from an agent's export or ", '把结果 JSON 拖到这里（agent 导出的文件或 '],
  drop2: ['), or', '），或'],
  chooseFile: ['choose a file', '选择文件'],
  refNote1: ['measured on an NVIDIA H200 and committed in ', '在 NVIDIA H200 上测得并提交在 '],
  refNote2: [
    ': transpose and AoS/SoA, and their Nsight Compute profiles',
    ' 中：转置与 AoS/SoA，以及它们的 Nsight Compute profile',
  ],
  capCeiling: ['Dashed: the copy ceiling.', '虚线：copy 上限。'],
  capNoCeiling: [
    'No copy ceiling: the run measured no copy; load a transpose run of the same device, or a device with a known peak.',
    '没有 copy 上限：该次运行没有测 copy；请加载同一设备的转置结果，或使用已知峰值带宽的设备。',
  ],
  capWhiskers: ['Whiskers: the first to third quartile of the samples.', '须线：样本的第一到第三四分位数。'],
  capRatio: [
    'Dashed: the sector-model ratio (AoS moves the engine’s sectors per request once per element, SoA t times its own: 8/t), which is the speedup when both kernels are DRAM-bound. It is drawn only where the AoS kernel moves at least {f}% of the copy ceiling (ratio × its useful GB/s); where it is missing (scalar AoS at 4 and 8 fields on the H200), AoS is limited by its load instructions and may beat the ratio.',
    '虚线：sector 模型的比值（AoS 每个元素搬运引擎算出的每请求 sectors 一次，SoA 搬运自己的 t 次：8/t），即两个 kernel 都受 DRAM 带宽限制时的加速比。只在 AoS kernel 的搬运量达到 copy 上限的 {f}% 以上（比值 × 其有效 GB/s）时绘制；缺失处（H200 上 4 和 8 个字段的标量 AoS）AoS 受 load 指令限制，可能超过该比值。',
  ],
  capTransposeCopy: [
    'Dashed: copy of the same run and size (the ceiling). Whiskers: the first to third quartile of the samples.',
    '虚线：同一次运行、同一尺寸的 copy（上限）。须线：样本的第一到第三四分位数。',
  ],
  capFraction: ['Fraction of copy: copy time / variant time.', 'copy 占比：copy 时间 / 该变体时间。'],
  measuredRatio: ['SoA/AoS measured', 'SoA/AoS 实测'],
  modelRatio: ['sector-model ratio', 'sector 模型比值'],
  kernels: ['kernels', 'kernels'],
  applies: ['DRAM-bound model applies', 'DRAM 受限模型适用'],
  yes: ['yes', '是'],
  notApplies: ['no: AoS below the DRAM ceiling', '否：AoS 低于 DRAM 上限'],
  predTitle: ['Predicted vs measured', '预测与实测'],
  predNote: [
    "The engine's prediction of each kernel's warp accesses, as the agent wrote it into the results, next to the Nsight Compute counters of a profile run (✓: within 5 %). Click a variant to see its lanes in memory and to try another layout or instruction (the page's engine re-costs the edit).",
    '引擎对每个 kernel 的 warp 访问的预测（由 agent 写入结果）与 profile 运行的 Nsight Compute 计数并列（✓：相差 5% 以内）。点击一个变体，查看其 lane 在内存中的位置，并可尝试其他布局或指令（页面中的引擎重新计算代价）。',
  ],
  source: ['source', '来源'],
  variant: ['variant', '变体'],
  access32: ['access (32 lanes)', '访问（32 个 lane）'],
  layout: ['layout', '布局'],
  predSectors: ['predicted sectors / request', '预测 sectors / 请求'],
  predWavefronts: ['predicted smem wavefronts', '预测共享内存 wavefronts'],
  measuredGbps: ['measured useful GB/s', '实测有效 GB/s'],
  ncuCounters: ['ncu: sectors / request (ld / st)', 'ncu：sectors / 请求（ld / st）'],
  vsNcu: ['prediction vs ncu', '预测与 ncu 对比'],
  engineError: ['engine', '引擎'],
  noAccesses: ['no accesses in the results', '结果中没有访问'],
  notMeasured: ['not measured', '未测量'],
  noProfile: ['no profile run', '没有 profile 运行'],
  noCounters: ['no counters (run with profile)', '没有计数（请用 profile 运行）'],
  noRequests: ['no LSU requests counted', '未计到 LSU 请求'],
  noLanes: [
    "These results predate the accesses' per-lane elements (written before the agent recorded them): the predicted numbers are shown above, there are no lanes to draw.",
    '这些结果早于逐 lane 元素的记录（agent 记录它们之前写成）：上方显示预测数值，没有可绘制的 lane。',
  ],
  loadingEngine: ['loading the engine…', '正在加载引擎…'],
  atColumn: ['column {n}', '第 {n} 列'],
  costGlobal: [
    '{lanes} lanes × {bytes} B: {n} sectors of 32 B per request',
    '{lanes} 个 lane × {bytes} B：每请求 {n} 个 32 B sector',
  ],
  costShared: [
    '{n} wavefronts per instruction (ideal {ideal}, {conflicts} conflicts)',
    '每条指令 {n} 个 wavefront（理想 {ideal}，冲突 {conflicts}）',
  ],
  whatIf: ['what-if (engine, this page)', '假设（本页引擎计算）'],
  fromResults: ['predicted (results)', '预测（结果中）'],
  laneFigure: ['lanes in memory: {access}', 'lane 在内存中的位置：{access}'],
  instruction: ['instruction', '指令'],
  recost: ['Re-cost', '重新计算'],
  reset: ['Reset', '还原'],
  accessPattern: ['Access pattern', '访问模式'],
  close: ['Close', '关闭'],
} as const;

export type PanelKey = keyof typeof PANEL_TEXT;

/** The text of key in English or Chinese, each {name} replaced by vars[name]. */
export function panelText(key: PanelKey, zh: boolean, vars: Record<string, string | number> = {}): string {
  return PANEL_TEXT[key][zh ? 1 : 0].replace(/\{(\w+)\}/g, (m, k: string) => (k in vars ? String(vars[k]) : m));
}
