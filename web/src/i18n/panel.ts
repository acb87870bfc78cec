// The benchmark panel's words in English and Chinese: [en, zh] per key, {name} filled in by panelText. Agent
// messages keep the agent's wording behind a translated prefix (agentError).
export const PANEL_TEXT = {
  agents: ['Agents', 'Agent 列表'],
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
  chooseFile: ['Choose a results file…', '选择结果文件…'],
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
    'Dashed: the sector-model ratio (AoS moves the engine’s sectors per request once per element, SoA t times its own: 8/t), which is the speedup when both kernels are DRAM-bound. It is drawn only where the AoS kernel moves at least {f}% of the copy ceiling (ratio × its useful GB/s).',
    '虚线：sector 模型的比值（AoS 每个元素搬运引擎算出的每请求 sectors 一次，SoA 搬运自己的 t 次：8/t），即两个 kernel 都受 DRAM 带宽限制时的加速比。只在 AoS kernel 的搬运量达到 copy 上限的 {f}% 以上（比值 × 其有效 GB/s）时绘制。',
  ],
  capRatioMissing: [
    ' Where it is missing ({missing}), AoS is limited by its load instructions and may beat the ratio.',
    '缺失处（{missing}）AoS 受加载指令数限制，可能超过该比值。',
  ],
  fieldsIn: ['{kernel} at {touch} fields in {source}', '{source} 中 {touch} 个字段的 {kernel}'],
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
  engineWalkRows: [
    "These results predate the accesses' per-lane elements: the lanes drawn are the first instruction of the engine's walk along the rows of {layout}, whose cost is the {n} the results recorded.",
    '这些结果早于逐 lane 元素的记录：图中的 lane 是引擎沿 {layout} 的行遍历的第一条指令，其代价正是结果中记录的 {n}。',
  ],
  engineWalkColumns: [
    "These results predate the accesses' per-lane elements: the lanes drawn are the first instruction of the engine's walk down the columns of {layout}, whose cost is the {n} the results recorded.",
    '这些结果早于逐 lane 元素的记录：图中的 lane 是引擎沿 {layout} 的列遍历的第一条指令，其代价正是结果中记录的 {n}。',
  ],
  engineWalkChunks: [
    "These results predate the accesses' per-lane elements: the lanes drawn are the first instruction of the engine's walk down the columns of square chunks of {layout} ({bytes} B wide and as many rows tall as a lane holds elements; each lane reads its chunk's first row), whose cost is the {n} the results recorded.",
    '这些结果早于逐 lane 元素的记录：图中的 lane 是引擎沿 {layout} 中方块的列遍历的第一条指令（块宽 {bytes} B，行数等于一个 lane 的元素数；每个 lane 读其块的第一行），其代价正是结果中记录的 {n}。',
  ],
  engineWalkColumnVectors: [
    "These results predate the accesses' per-lane elements: the lanes drawn are the first instruction of the engine's walk down the columns of {layout}, each lane moving {bytes} B of consecutive elements of one column, whose cost is the {n} the results recorded.",
    '这些结果早于逐 lane 元素的记录：图中的 lane 是引擎沿 {layout} 的列遍历的第一条指令，每个 lane 搬运同一列中连续元素的 {bytes} B，其代价正是结果中记录的 {n}。',
  ],
  engineWalkBulk: [
    'A bulk copy (TMA) is issued by one thread, not by 32 lanes: the numbered boxes are the {lanes} chunks of {bytes} B it writes, placed by the engine along the first row of {layout}; together they cost the {n} sectors the results recorded.',
    '批量拷贝（TMA）由一个线程发出，不是 32 个 lane：带编号的方格是它写出的 {lanes} 个 {bytes} B 块，由引擎沿 {layout} 的第一行放置；它们合计的代价正是结果中记录的 {n} 个 sector。',
  ],
  loadingEngine: ['loading the engine…', '正在加载引擎…'],
  atColumn: ['column {n}', '第 {n} 列'],
  costGlobal: [
    '{lanes} lanes × {bytes} B: {n} sectors of 32 B per request',
    '{lanes} 个 lane × {bytes} B：每请求 {n} 个 32 B sector',
  ],
  costShared: [
    '{n} wavefront{s:n} per instruction (ideal {ideal}, {conflicts} conflict{s:conflicts})',
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
  agent: ['Agent', 'Agent'],
  device: ['Device', '设备'],
  benchmark: ['benchmark', 'benchmark'],
  agentError: ['Agent error', 'Agent 报错'],
  agentWording: ["the agent's own words", 'agent 的原文'],
  retryAfter: [' — try again in about {s} s', ' —— 约 {s} 秒后重试'],
  refused: ['The agent refused the parameters', 'Agent 拒绝了这些参数'],
  cancel: ['Cancel', '取消'],
  progress: ['run progress', '运行进度'],
  runX: ['Run {name}', '运行 {name}'],
  history: ['History ({n}{more} runs)', '历史（{n}{more} 次运行）'],
  run: ['run', '运行'],
  status: ['status', '状态'],
  finished: ['finished', '结束时间'],
  load: ['Load', '载入'],
  loadMore: ['Load more', '加载更多'],
  st_queued: ['queued', '排队中'],
  st_running: ['running', '运行中'],
  st_succeeded: ['succeeded', '成功'],
  st_failed: ['failed', '失败'],
  st_cancelled: ['cancelled', '已取消'],
  st_interrupted: ['interrupted', '已中断'],
  bench_aos_soa_title: ['AoS vs SoA touch_fields sweep (B-09)', 'AoS 与 SoA 的 touch_fields 扫描（B-09）'],
  bench_aos_soa_desc: [
    'n elements of 8 fp32 fields, as an array of structures or a structure of arrays; each kernel reads and writes touch_fields of the fields of every element.',
    'n 个元素，每个 8 个 fp32 字段，按结构体数组（AoS）或数组结构体（SoA）存放；每个 kernel 读写每个元素的 touch_fields 个字段。',
  ],
  bench_transpose_title: ['Matrix transpose (fp32)', '矩阵转置（fp32）'],
  bench_transpose_desc: [
    'A dim × dim fp32 matrix transposed by each variant: a float4 copy (the ceiling), naive, a 32 × 32 shared tile, the padded tile, and the 64 × 64 tiles with 16 B accesses (padded or XOR-swizzled).',
    '各变体转置一个 dim × dim 的 fp32 矩阵：float4 copy（上限）、朴素实现、32 × 32 共享内存 tile、填充的 tile，以及 16 B 访问的 64 × 64 tile（填充或 XOR swizzle）。',
  ],
  bench_smem_access_title: [
    "one warp's shared-memory access: the engine's wavefronts against the GPU's",
    '一个 warp 的共享内存访问：引擎预测的 wavefront 与 GPU 实测对比',
  ],
  bench_smem_access_desc: [
    "A layout, a shape, a dtype and an instruction (LDS/STS, ldmatrix/stmatrix, cp.async), or a writer/reader pair and one of the advisor's candidates: the kernel generated from the engine's access, compiled with NVRTC, run by one warp, every element checked through the layout, timed; with profile the per-op ncu wavefront and conflict counters beside the prediction. CPU: the same access on the host executor (no counters).",
    '给定布局、形状、dtype 和指令（LDS/STS、ldmatrix/stmatrix、cp.async），或一对写/读访问加上 advisor 的一个候选：由引擎的访问描述生成 kernel，用 NVRTC 编译，由一个 warp 运行，按布局逐元素校验并计时；开启 profile 时，ncu 按操作统计的 wavefront 与 bank 冲突计数与预测并列。CPU：同一访问在主机执行器上运行（无硬件计数）。',
  ],
  bench_global_access_title: [
    "one warp's global-memory access: the engine's sectors against the GPU's",
    '一个 warp 的全局内存访问：引擎预测的 sector 与 GPU 实测对比',
  ],
  bench_global_access_desc: [
    'A layout, a shape, a dtype and LDG/STG 1/2/4/8/16 B, run as smem_access is; with profile the ncu global sectors and requests of the op beside the prediction.',
    '给定布局、形状、dtype 和 LDG/STG 1/2/4/8/16 B，运行方式同 smem_access；开启 profile 时，ncu 统计的全局 sector 与 request 与预测并列。',
  ],
  bench_reshard_title: [
    "a tensor moved from one mesh layout to another: the engine's plan on NCCL",
    '把张量从一种 mesh 布局搬到另一种：引擎的计划在 NCCL 上执行',
  ],
  bench_reshard_desc: [
    'The engine plans the collectives and local steps; cuda: one NCCL communicator per group of devices along each mesh axis, every step cold and timed, every device checked after every step; cpu: the host executor on simulated devices (no timing of collectives). Predicted time per step from the measured (or given) busbw and copy speed.',
    '引擎规划集合通信与本地步骤；cuda：沿每个 mesh 轴的每组设备一个 NCCL communicator，每步冷启动计时，每步之后校验每个设备；cpu：主机执行器在模拟设备上运行（集合通信不计时）。每步的预测时间来自实测（或给定）的 busbw 与拷贝速度。',
  ],
  bench_collective_title: [
    "one NCCL collective over the machine's GPUs (nccl-tests' conventions)",
    '在本机 GPU 上运行一个 NCCL 集合通信（沿用 nccl-tests 的约定）',
  ],
  bench_collective_desc: [
    'algbw = S / t, busbw = algbw x (n-1)/n (x 2(n-1)/n for all_reduce); needs at least 2 GPUs.',
    'algbw = S / t，busbw = algbw × (n-1)/n（all_reduce 为 × 2(n-1)/n）；至少需要 2 块 GPU。',
  ],
  cvTitle: ['Convert a layout', '布局转换'],
  cvNote: [
    'The engine plans the conversion from the source layout to the destination layout, the agent generates its kernel, runs it, checks every element and times it.',
    '引擎规划从源布局到目标布局的转换，agent 生成 kernel、运行、逐元素校验并计时。',
  ],
  cvMode: ['what to convert', '转换内容'],
  cvLayouts: ['two layouts', '两个布局'],
  cvPerm: ['shape + permutation', '形状 + 置换'],
  cvSuite: ['the permutation suite', '置换测试集'],
  cvSrc: ['source layout', '源布局'],
  cvDst: ['destination layout', '目标布局'],
  cvShape: ['shape', '形状'],
  cvPermLabel: ['permutation', '置换'],
  cvSuiteNote: [
    'The 8 permutations of the suite × {f32, bf16, u8}: 256 MiB each way on a GPU, at most 1 MiB per case on the CPU backend.',
    '测试集的 8 个置换 × {f32, bf16, u8}：GPU 上每个方向 256 MiB，CPU 后端每个用例最多 1 MiB。',
  ],
  cvRun: ['Run convert', '运行转换'],
  cvResults: ['Layout conversion (convert)', '布局转换（convert）'],
  cvCase: ['case', '用例'],
  cvPlan: ['plan', '计划'],
  cvSectors: ['predicted sectors / request (load / store)', '预测 sectors / 请求（读 / 写）'],
  cvWavefronts: ['predicted smem wavefronts (store / load)', '预测共享内存 wavefronts（写 / 读）'],
  medianMs: ['median time (ms)', '中位时间（ms）'],
  usefulGbps: ['useful GB/s', '有效 GB/s'],
  fractionCopy: ['fraction of copy', 'copy 占比'],
  verified: ['verified', '已校验'],
  no: ['NO', '否'],
  series: ['series', '系列'],
  cvOurs: ['layoutscope (this run)', 'layoutscope（本次运行）'],
  cvCopy: ['copy speed (1)', 'copy 速度（1）'],
  cvSuiteCaption: [
    'Each case as a fraction of a plain copy of the same bytes (1: copy speed). Ours: this run on {device}, against its own float4 copy. {peers}',
    '每个用例相对同字节数普通 copy 的比例（1：copy 速度）。我们的：本次运行（{device}），相对其自身的 float4 copy。{peers}',
  ],
  cvPeersLoaded: [
    'Peers: PyTorch eager, torch.compile and CuPy on an NVIDIA H200 at 256 MiB per case (docs/results/h200-convert-peers.json), each against torch copy_ there; the CPU backend runs the cases smaller, so compare the pattern across cases, not the devices.',
    '对手：NVIDIA H200 上每用例 256 MiB 的 PyTorch eager、torch.compile 和 CuPy（docs/results/h200-convert-peers.json），各自相对那里的 torch copy_；CPU 后端的用例更小，请比较用例之间的规律，而非设备。',
  ],
  cvPeersMissing: [
    'The peers file (results/h200-convert-peers.json) could not be loaded: ours only.',
    '无法加载对手数据（results/h200-convert-peers.json）：只显示我们的。',
  ],
  cvPlanOf: ['The plan of {name}', '{name} 的计划'],
  cvSource: ['source', '源'],
  cvDestination: ['destination', '目标'],
  cvLoad: ['global load: {n} sectors per request, {b} B per lane', '全局读：每请求 {n} 个 sector，每 lane {b} B'],
  cvStore: ['global store: {n} sectors per request, {b} B per lane', '全局写：每请求 {n} 个 sector，每 lane {b} B'],
  cvTile: ['shared staging tile', '共享内存中转 tile'],
  cvRegisters: ['registers only', '仅寄存器'],
  cvTileShape: [
    '{a} × {b} units of {unit} B, rows of {row} B, {bytes} B in all',
    '{a} × {b} 个 {unit} B 单元，每行 {row} B，共 {bytes} B',
  ],
  cvSwizzle: ['swizzle: {s}', 'swizzle：{s}'],
  cvSmem: [
    'shared store {w} wavefronts (ideal {wi}) of {sb} B lanes, shared load {r} (ideal {ri}) of {lb} B lanes',
    '共享内存写 {w} 个 wavefront（理想 {wi}，每 lane {sb} B），读 {r} 个（理想 {ri}，每 lane {lb} B）',
  ],
  cvBlock: ['{blk} register block per thread', '每线程 {blk} 寄存器块'],
  cvVector: [
    'no staging tile: {v} B vectors from source to destination (common vector {c} elements)',
    '无中转 tile：{v} B 向量直接从源到目标（公共向量 {c} 个元素）',
  ],
  cvGrid: ['{t} threads × {b} blocks', '{t} 线程 × {b} 块'],
  noResult: ['Run {id} has no result (status {status}).', '运行 {id} 没有结果（状态：{status}）。'],
  fetchFailed: [
    'Could not fetch {url}: {why}. The page may only fetch from its own origin and loopback agents (its Content-Security-Policy), and the server must allow CORS; download the file and drop it here instead.',
    '无法获取 {url}：{why}。页面只能从自身来源和本机 agent 获取（其 Content-Security-Policy），且服务器必须允许 CORS；请下载该文件并拖到这里。',
  ],
  connecting: ['connecting…', '连接中…'],
  ready: ['ready', '就绪'],
  notReady: ['not ready', '未就绪'],
  error: ['error', '错误'],
  backend: ['backend', '后端'],
  noBackend: ['No backend can run', '没有可运行的后端'],
  deviceN: ['device {n}', '设备 {n}'],
  hwThreads: ['hardware threads', '个硬件线程'],
  showHide: ['show or hide in the plots', '在图中显示或隐藏'],
  cannotOpen: ['Cannot open the results', '无法打开结果'],
  badAddress: ['Agent address', 'Agent 地址'],
  plotSpeedup: ['SoA / AoS speedup', 'SoA / AoS 加速比'],
  ofCopy: ['of copy', '倍 copy'],
  thisRun: ['this run', '本次运行'],
  peakAttr: ['peak (attributes)', '峰值（设备属性）'],
  ariaAosBandwidth: [
    'Useful GB/s per layout and touch_fields, with the q1 to q3 spread and the copy ceiling',
    '各布局与 touch_fields 的有效 GB/s，含 q1 到 q3 的离散范围和 copy 上限',
  ],
  ariaAosSpeedup: [
    'SoA over AoS speedup against touch_fields per kernel pair, with the sector-model ratio where the DRAM-bound model applies',
    '各 kernel 对的 SoA 相对 AoS 加速比随 touch_fields 的变化，在 DRAM 受限模型适用处附 sector 模型比值',
  ],
  ariaTransposeBandwidth: [
    'Transpose: useful GB/s per variant and dim, with the q1 to q3 spread and copy as the ceiling',
    '转置：各变体与 dim 的有效 GB/s，含 q1 到 q3 的离散范围，以 copy 为上限',
  ],
  ariaTransposeFraction: ['Transpose: fraction of copy per variant and dim', '转置：各变体与 dim 的 copy 占比'],
  kindTiled: ['tiled', '分块'],
  kindVector: ['vector', '向量'],
  smem: ['smem', '共享内存'],
  spaceGlobal: ['global', '全局'],
  spaceShared: ['shared', '共享'],
} as const;

export type PanelKey = keyof typeof PANEL_TEXT;

/** The text of key in English or Chinese, each {name} replaced by vars[name]. */
// {name} is the value of vars.name; {s:name} is the English plural's "s" unless vars.name is 1.
export function panelText(key: PanelKey, zh: boolean, vars: Record<string, string | number> = {}): string {
  return PANEL_TEXT[key][zh ? 1 : 0].replace(/\{(s:)?(\w+)\}/g, (m, s: string | undefined, k: string) =>
    !(k in vars) ? m : s ? (Number(vars[k]) === 1 ? '' : 's') : String(vars[k]),
  );
}

/** The agent's fixed sentences in Chinese: the descriptions of the accesses it declares for each kernel (every
 * result carries them, agent/bench/predict.cpp) and of the benchmarks' parameters (GET /v1/benchmarks). Keyed by
 * the agent's exact English, so a sentence the agent rewords is shown as the agent wrote it, never a stale
 * translation. */
const AGENT_ZH: Record<string, string> = {
  // accesses (results: benchmarks[].states[].predicted.*[].access)
  'lane i loads (and stores) field k of element i': 'lane i 加载（并存储）元素 i 的字段 k',
  'lane i loads (and stores) field k of elements 4i..4i+3 as one 16 B access':
    'lane i 以一次 16 B 访问加载（并存储）元素 4i..4i+3 的字段 k',
  'lane i loads (and stores) fields 0-3 of element i as one 16 B access (4-7 likewise at t = 8)':
    'lane i 以一次 16 B 访问加载（并存储）元素 i 的字段 0-3（t = 8 时 4-7 同样）',
  'load: lane i reads 16 B at element 4i': '加载：lane i 读取元素 4i 处的 16 B',
  'store: lane i writes 16 B at element 4i': '存储：lane i 写入元素 4i 处的 16 B',
  'load: lane i reads in(r, c0 + i) (a row)': '加载：lane i 读取 in(r, c0 + i)（一行）',
  'store: lane i writes out(c0 + i, r) (a column)': '存储：lane i 写入 out(c0 + i, r)（一列）',
  'store: lane i writes out(r, c0 + i) (a row)': '存储：lane i 写入 out(r, c0 + i)（一行）',
  'shared store: lane i writes tile[r][i] (a row)': '共享内存存储：lane i 写入 tile[r][i]（一行）',
  'shared load: lane i reads tile[i][c] (a column)': '共享内存加载：lane i 读取 tile[i][c]（一列）',
  'load: lane l reads 16 B at in(r + l / 16, c0 + 4 (l % 16))':
    '加载：lane l 读取 in(r + l / 16, c0 + 4 (l % 16)) 处的 16 B',
  'store: one bulk copy (TMA) writes a 256 B output row piece out(c0 + j, r0 .. r0 + 63), shown as its 16 chunks of 16 B':
    '存储：一次批量拷贝（TMA）写入 256 B 的输出行片段 out(c0 + j, r0 .. r0 + 63)，显示为 16 个 16 B 的块',
  'shared store: lane l writes 16 B at tile(l / 16, 4 (l % 16)) (rows)':
    '共享内存存储：lane l 写入 tile(l / 16, 4 (l % 16)) 处的 16 B（按行）',
  'shared load: lane l reads 16 B at tile(4 (l % 16), 4 (l / 16)) (a column of chunks)':
    '共享内存加载：lane l 读取 tile(4 (l % 16), 4 (l / 16)) 处的 16 B（一列块）',
  "shared store: lane l writes 16 B at staging(4 (l / 16) + j, 4 (l % 16)) (the transposed tile's rows)":
    '共享内存存储：lane l 写入 staging(4 (l / 16) + j, 4 (l % 16)) 处的 16 B（转置后 tile 的行）',
  'reference, not run: the same column read from a row-major 64x64 tile without pad or swizzle':
    '参考，未运行：从没有 pad 或 swizzle 的行优先 64x64 tile 读取同一列',
  // the kinds before the colon (the access buttons show them alone)
  load: '加载',
  store: '存储',
  'shared load': '共享内存加载',
  'shared store': '共享内存存储',
  'reference, not run': '参考，未运行',
  // parameters (GET /v1/benchmarks: parameters.*.description)
  'cold: before each sample, persisting (evict-last) L2 lines are reset to normal and a buffer of twice the L2 (CPU: last-level cache) is overwritten':
    'cold：每个样本之前，把持久化（evict-last）的 L2 行恢复为普通行，并覆写两倍 L2 大小的缓冲区（CPU：末级缓存）',
  'adaptive sampling: at most this many kept samples per state': '自适应采样：每个状态最多保留这么多样本',
  'adaptive sampling: stop after this many seconds per state (once min_samples are kept)':
    '自适应采样：每个状态在保留 min_samples 个样本后，超过这么多秒即停止',
  'adaptive sampling: at least this many kept samples per state': '自适应采样：每个状态至少保留这么多样本',
  'adaptive sampling: stop once the relative IQR of the kept samples is at most this':
    '自适应采样：保留样本的相对 IQR 不超过此值时停止',
  'include every sample time and per-sample SM clock in the result': '在结果中包含每个样本的时间和 SM 时钟',
  'exactly this many kept samples per state (no adaptive stop); absent: adaptive':
    '每个状态恰好保留这么多样本（不做自适应停止）；缺省：自适应',
  'seed of the random verification input; random when absent (echoed in the result)':
    '随机验证输入的种子；缺省时随机（写回结果中）',
  'untimed launches before the samples': '采样前不计时的启动次数',
  "aos / soa: the document's scalar kernels; aos_vec: the struct read with 16 B loads; soa_vec: field arrays as float4":
    'aos / soa：文档中的标量 kernel；aos_vec：以 16 B 加载读取结构体；soa_vec：字段数组按 float4 访问',
  'elements of struct { float f[8]; } (32 B each); an array runs a size sweep (e.g. across the L2 size)':
    'struct { float f[8]; } 的元素个数（每个 32 B）；给出数组则做尺寸扫描（例如跨越 L2 大小）',
  'fields incremented per element; an array runs a sweep': '每个元素递增的字段数；给出数组则做扫描',
  'fp32 matrix is dim x dim; any dim (edges are handled)': 'fp32 矩阵为 dim x dim；任意 dim 均可（边缘已处理）',
  'copy (float4), naive, tiled (32x32 shared tile), pad (tile[32][33]), tile64_pad and tile64_swizzle (64x64 tile, 16 B accesses, padded or XOR-swizzled shared tile)':
    'copy（float4）、naive、tiled（32x32 共享内存 tile）、pad（tile[32][33]）、tile64_pad 与 tile64_swizzle（64x64 tile，16 B 访问，共享 tile 填充或 XOR swizzle）',
  'destination layout (dense: a bijection onto [0, size))': '目标布局（稠密：到 [0, size) 的双射）',
  'element type': '元素类型',
  'x.permute(perm).contiguous() of a row-major tensor of shape':
    '对形状为 shape 的行优先张量做 x.permute(perm).contiguous()',
  "logical shape (with perm: the row-major source tensor's shape)": '逻辑形状（与 perm 同用时：行优先源张量的形状）',
  'source layout in the notation, e.g. "S[(4096,4096):(4096,1)]" (with dst)':
    '源布局，以本记号书写，例如 "S[(4096,4096):(4096,1)]"（与 dst 同用）',
  "the 8 permutations x {f32, bf16, u8} and 50 random permutations of rank 3-6 (fixed seed): 256 MiB each way on the GPU, at most 1 MiB per case on the CPU (each shape's largest dimension halved)":
    '8 种置换 × {f32, bf16, u8}，以及 50 个秩为 3-6 的随机置换（固定种子）：GPU 上每个方向 256 MiB，CPU 上每例至多 1 MiB（每个形状的最大维度减半）',
  "collective busbw (GB/s) for the prediction; absent: measured in the run (cuda) or the engine's default (cpu)":
    '用于预测的集合通信 busbw（GB/s）；缺省：在运行中测得（cuda）或引擎的默认值（cpu）',
  'source mesh layout, e.g. "S[(8,64):(1@gpuid_x,1)]" (S, R, P and O terms)':
    '源 mesh 布局，例如 "S[(8,64):(1@gpuid_x,1)]"（S、R、P 与 O 项）',
  'mesh axes outermost first with their sizes, "gpuid_x=2,gpuid_y=4"; device d is the row-major index of its coordinates; cuda: needs that many GPUs':
    'mesh 轴及其大小，最外层在前，"gpuid_x=2,gpuid_y=4"；设备 d 是其坐标按行优先的序号；cuda：需要同样多的 GPU',
  'logical shape of the tensor': '张量的逻辑形状',
  'destination mesh layout': '目标 mesh 布局',
  'ranks (devices 0..gpus-1); absent: every GPU': 'rank 数（设备 0..gpus-1）；缺省：所有 GPU',
  'the NCCL collective (all_to_all = grouped ncclSend/ncclRecv)':
    'NCCL 集合通信（all_to_all = 成组的 ncclSend/ncclRecv）',
  "S in bytes (nccl-tests' size); absent: 1 MiB to 4 GiB, doubling":
    'S，单位字节（nccl-tests 的 size）；缺省：1 MiB 到 4 GiB，逐次加倍',
  'a pair: the name of one of the advisor\'s candidates ("Swizzle<4,1,4>", "TMA 128B", "pad 16 B", "row-major"); the writer and the reader run on its layout':
    '一对访问：布局顾问的某个候选的名称（"Swizzle<4,1,4>"、"TMA 128B"、"pad 16 B"、"row-major"）；写入方和读取方都在它的布局上运行',
  'the instruction: LDS/STS.32/64/128, ldmatrix/stmatrix.x1/x2/x4[.trans], cp.async.4/8/16 (smem_access); LDG/STG.8/16/32/64/128 (global_access)':
    '指令：LDS/STS.32/64/128、ldmatrix/stmatrix.x1/x2/x4[.trans]、cp.async.4/8/16（smem_access）；LDG/STG.8/16/32/64/128（global_access）',
  'which element each lane starts at: default, rows, columns, matrices, a thread layout or a list ("0,64/8,72"), as `layoutscope access --lanes` takes it':
    '每个 lane 起始的元素：default、rows、columns、matrices、一个线程布局或一个列表（"0,64/8,72"），与 `layoutscope access --lanes` 相同',
  'the tile in memory, in the notation, e.g. "S[(32,32):(33,1)]" (one access)':
    '内存中的 tile，以本记号书写，例如 "S[(32,32):(33,1)]"（单次访问）',
  'a pair: "LANES;INSTR" reading it': '一对访问：读取它的 "LANES;INSTR"',
  'logical shape; rows are the last extent (one access)': '逻辑形状；每行是最后一维（单次访问）',
  "cp.async: the global source's layout (default dense row-major)": 'cp.async：全局内存源的布局（默认为稠密行优先）',
  "a pair: the tile's shape": '一对访问：tile 的形状',
  'a pair: "LANES;INSTR" writing the shared tile, as `layoutscope advise --writer`':
    '一对访问：写入共享 tile 的 "LANES;INSTR"，与 `layoutscope advise --writer` 相同',
};

/** One of the agent's sentences in the page's language: in Chinese the translation when the panel knows the
 * sentence (known: true), else the agent's own English (known: false, to be marked lang="en"). */
export function agentSentence(text: string, zh: boolean): { text: string; known: boolean } {
  if (!zh) return { text, known: true };
  const t = AGENT_ZH[text.trim()];
  return t ? { text: t, known: true } : { text, known: false };
}

/** The Chinese names of the agent's benchmark parameters (GET /v1/benchmarks); the form shows the agent's own
 * name beside them, since that is what a request and a results file carry. */
const PARAM_ZH: Record<string, string> = {
  n: '元素数',
  touch_fields: '访问字段数',
  layouts: '布局',
  dim: '维度',
  variants: '变体',
  repetitions: '重复次数',
  warmup: '预热次数',
  seed: '随机种子',
  min_samples: '最少样本数',
  max_samples: '最多样本数',
  max_time_s: '最长时间（秒）',
  noise: '噪声阈值',
  raw_samples: '保留原始样本',
  cache: '缓存',
  layout: '布局',
  shape: '形状',
  dtype: '数据类型',
  instr: '指令',
  lanes: 'lanes',
  source: '来源',
  writer: '写入方',
  reader: '读取方',
  tile: 'tile',
  candidate: '候选',
  from: '源布局',
  to: '目标布局',
  mesh: '设备网格',
  busbw_gbps: '总线带宽（GB/s）',
  op: '操作',
  sizes: '大小',
  gpus: 'GPU 数',
};

/** A parameter's label in the panel's language: in Chinese its Chinese name, else null (the agent's name alone). */
export function paramName(name: string, zh: boolean): string | null {
  return zh ? (PARAM_ZH[name] ?? null) : null;
}
