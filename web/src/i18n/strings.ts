// Labels in English and Chinese (the chapter is Chinese). Numbers and derivations come from the engine and
// are the same in both languages.
export type Lang = 'en' | 'zh';

const STRINGS = {
  exportSvg: ['Export SVG', '导出 SVG'],
  exportPng: ['Export PNG', '导出 PNG'],
  exportJson: ['Export JSON', '导出 JSON'],
  loading: ['Loading the layout engine…', '正在加载布局引擎…'],
  noSelection: [
    'Nothing selected. Arrow keys move, Enter selects, Esc clears.',
    '未选择。方向键移动，Enter 选择，Esc 清除。',
  ],
  logical: ['Logical', '逻辑'],
  physical: ['Physical', '物理'],
  memory: ['Memory', '内存'],
  memoryStrip: ['Memory strip (@m)', '内存条带 (@m)'],
  element: ['element', '元素'],
  cell: ['cell', '单元'],
  tile: ['tile', 'tile'],
  lane: ['lane', 'lane'],
  slot: ['slot', 'slot'],
  row: ['row', '行'],
  col: ['col', '列'],
  lanes: ['Warp lanes × slots', 'Warp lanes × slots'],
  logical88: ['Logical 8×8 matrix', 'Logical 8×8 矩阵'],
  physicalMem: ['Physical memory (8 per row)', '物理内存（每行 8 个）'],
  heldBy: ['held by', '持有者'],
  elementsOfLane: ['elements held by lane', '该 lane 持有的元素'],
  tmemTitle: ['TMEM: 128 lanes × 512 columns (32-bit cells)', 'TMEM：128 lanes × 512 columns（32-bit 单元）'],
  datapath: ['Layout', '布局'],
  emptyCell: ['not used by this layout', '此布局未使用'],
  sfaTitle: ['SFA 128×4 (1 byte each)', 'SFA 128×4（每个 1 byte）'],
  tmemPart: ['TMEM lanes × (TCol, byte)', 'TMEM lanes ×（TCol, byte）'],
  mgroup: ['Mgroup (packing, along TCol)', 'Mgroup（打包，沿 TCol）'],
  partition: ['partition (replica, along TLane)', 'partition（副本，沿 TLane）'],
  twoFours: [
    'Two different “fours”: 4 Mgroups pack 128 rows along TCol; 4 partitions are copies along TLane.',
    '两个互不相关的“四组”：4 个 Mgroup 沿 TCol 打包 128 行；4 个 partition 是沿 TLane 的物理副本。',
  ],
  mode: ['Mode', '模式'],
  fullySharded: ['fully sharded', 'fully-sharded'],
  shardReplica: ['shard + replica', 'shard + replica'],
  shardOffset: ['shard + offset', 'shard + offset'],
  devices: ['devices', '设备'],
  device: ['device', '设备'],
  localOffset: ['local offset', '局部偏移'],
  logicalTensor: ['Logical tensor (y, row, col)', '逻辑张量 (y, row, col)'],
  mesh: ['2×2 GPU mesh: local memory of each device', '2×2 GPU mesh：每个设备的局部内存'],
  toy: ['8×8 toy (8 banks)', '8×8 示例（8 个 banks）'],
  real: ['SWIZZLE_128B, fp16 (32 banks, 16 B sectors)', 'SWIZZLE_128B，fp16（32 banks，16 B sectors）'],
  readColumn: ['Read column', '读取列'],
  padded: ['32×32 fp32, padded to 33 words', '32×32 fp32，填充到每行 33 words'],
  laneAccess: ['The given lane accesses', '给定的各 lane 访问'],
  readRow: ['Read row', '读取行'],
  width: ['Access width', '访问宽度'],
  rowMajor: ['Row-major', '行主序（row-major）'],
  swizzled: ['XOR swizzle', 'XOR 重排（swizzle）'],
  cycles: ['cycles', '个周期'],
  wavefronts: ['wavefronts', '个 wavefront'],
  way: ['-way conflict', ' 路 bank 冲突'],
  conflictFree: ['conflict-free', '无冲突'],
  step: ['Step', '单步'],
  play: ['Play', '播放'],
  pause: ['Pause', '暂停'],
  reset: ['Reset', '重置'],
  cycle: ['cycle', 'cycle'],
  bank: ['bank', 'bank'],
  bankColumn: ['bank column', 'bank 列'],
  atomMode: ['Swizzle mode', 'Swizzle 模式'],
  dtype: ['Data type', '数据类型'],
  before: ['Logical (before swizzle)', '逻辑位置（swizzle 前）'],
  after: ['Physical (after swizzle)', '物理位置（swizzle 后）'],
  remapped: ['remapped to', '重映射到'],
  inBytes: ['in bytes', '按字节'],
  inElements: ['in elements', '按元素'],
  layout: ['Layout', 'Layout'],
  shape: ['Logical shape', '逻辑 shape'],
  findings: ['Validator findings', '校验结果'],
  noFindings: ['No findings: the layout is valid for this shape.', '无问题：该 layout 对此 shape 有效。'],
  apply: ['Apply', '应用'],
  derivation: ['Derivation', '推导'],
  compare: ['Compare with', '对比'],
  compareHint: ['optional second layout', '可选：第二个 layout'],
  rowWidth: ['Row width', '每行宽度'],
  banksWidth: ['32 banks × 4 B', '32 banks × 4 B'],
  tileWidth: ['tile width', 'tile 宽度'],
  colourBy: ['Colour', '颜色'],
  byCol: ['logical column', '逻辑列'],
  byRow: ['logical row', '逻辑行'],
  byIndex: ['logical index', '逻辑序号'],
  numbersAre: ['numbers: logical index x', '数字：逻辑序号 x'],
  emptyPos: ['no element here', '此处无元素'],
  outOfRange: ['outside the axis range', '超出轴的取值范围'],
  memoryRows: ['Memory (@m) in rows of', '内存 (@m)，每行'],
  elements: ['elements', '个元素'],
  progressTable: ['Large layout: the engine tabulates it in the background…', '大型布局：引擎正在后台计算其表…'],
  progressDraw: ['Large layout: drawing…', '大型布局：正在绘制…'],
  hoverHint: ['Hover a cell for its positions; click to select.', '悬停查看位置；点击选择。'],
  replicas: ['replicas', '副本'],
  inRowsOf: ['in rows of', '每行'],
  checking: ['Checking the layout…', '正在校验 layout…'],
  ranking: ['Ranking the candidate layouts…', '正在为候选 layout 排序…'],
  fragLegend: [
    'Left: T = lane (thread) and V = slot (value) holding the cell, as CUTLASS and PTX draw fragments.',
    '左：T = lane（线程），V = 持有该格的 slot（值），与 CUTLASS 和 PTX 的画法相同。',
  ],
  fragLegend2: [
    'Right: each lane and the logical index x in each of its slots. Colour: lane mod 8.',
    '右：每个 lane 及其各 slot 中的逻辑序号 x。颜色：lane mod 8。',
  ],
  detected: ['read as (detected)', '识别为'],
  readAs: ['read as', '按此格式读取'],
  exportTo: ['Export to', '导出为'],
  format: ['Format', '格式'],
  autoDetect: ['detect', '自动识别'],
  meshAxes: ['Mesh', 'Mesh'],
  candidates: ['Candidates, best first', '候选布局（最优在前）'],
  layoutName: ['layout', '布局'],
  writeWf: ['write', '写入'],
  readWf: ['read', '读取'],
  sharedBytes: ['shared bytes', '共享内存字节'],
  readBanks: ['read: wavefronts per bank', '读取：每个 bank 的 wavefronts'],
  ideal: ['ideal', '理想'],
  advisorLegend: [
    'Numbers: wavefronts (L1 shared wavefronts, as Nsight Compute counts them). Bars: wavefronts a bank needs (green: one; orange: more, a conflict).',
    '数字：wavefronts（Nsight Compute 统计的 L1 共享内存 wavefront）。条形：每个 bank 需要的 wavefront 数（绿色：一个；橙色：多于一个，即冲突）。',
  ],
  floorNote: [
    'No layout of the {n} searched is conflict-free here: the best possible is {w} write (ideal {wi}) and {r} read (ideal {ri}) wavefronts, {k}× the ideal; {t} layouts reach it, so they tie.',
    '搜索的 {n} 种布局都无法在此无冲突：最好也要 {w} 个写入（理想 {wi}）和 {r} 个读取（理想 {ri}）wavefront，为理想值的 {k} 倍；有 {t} 种布局达到这一下限，因此并列。',
  ],
  tiesNote: [
    '“=”: the same wavefronts and bytes as the rank it shares; ties are listed simplest first (TMA, then a swizzle, then padding).',
    '“=”：与并列名次的 wavefront 数和字节数相同；并列者按最简单的在前排列（TMA、swizzle、填充）。',
  ],
  instruction: ['instruction', '指令'],
  noBankCounter: [
    'No bank counter for this access (TMA writes bypass the LSU).',
    '此访问没有 bank 计数（TMA 写入不经过 LSU）。',
  ],
  stepLegend: [
    'Columns: the 32 banks; rows: the wavefronts of one instruction. A cell holds the lane served there (n+: several lanes read one word); colour: the lane.',
    '列：32 个 bank；行：一条指令的各个 wavefront。格中是在此被服务的 lane（n+：多个 lane 读同一个 word）；颜色：lane。',
  ],
  measuring: ['starting…', '正在启动…'],
  writer: ['Writer', '写入方'],
  reader: ['Reader', '读取方'],
  access: ['Access', '访问'],
  prevWave: ['previous', '上一个'],
  nextWave: ['next wavefront', '下一个 wavefront'],
  allWaves: ['all', '全部'],
  measureGpu: ['Measure on GPU', '在 GPU 上测量'],
  notMeasured: ['not measured', '未测量'],
  noAgentAdvisor: [
    'Connect an agent in the benchmark panel to measure a candidate on the GPU.',
    '在 Benchmarks 面板连接 agent 后，可在 GPU 上测量候选布局。',
  ],
  counter: ['counter', '计数器'],
  measuredCol: ['measured', '实测'],
  predictedCol: ['predicted', '预测'],
  lgTile: ['colour: the tile the element belongs to', '颜色：元素所在的 tile'],
  lgAddrVsIndex: [
    'numbers: left grid, the address (@m) of the element; right grid and strip, the logical index x stored there',
    '数字：左边网格是该元素的地址 (@m)；右边网格和条带是存放在此处的逻辑序号 x',
  ],
  lgSelected: ['the selected element', '选中的元素'],
  lgSameTile: ['the other elements of its tile', '同一 tile 中的其他元素'],
  lgTmemBand: [
    'colour: band of 16 logical rows (the same colour repeats every 8 bands)',
    '颜色：每 16 个逻辑行一个色带（每 8 个色带重复）',
  ],
  lgMeshColour: [
    'colour: the device (x, y) holding the element first; its replicas keep that colour',
    '颜色：首先持有该元素的设备 (x, y)；它的副本保持同一颜色',
  ],
  lgMeshNumbers: [
    'numbers: the logical index x; on a device, the cell is its local offset m (8 a row)',
    '数字：逻辑序号 x；在设备内，格子的位置是局部偏移 m（每行 8 个）',
  ],
  lgMeshHolds: ['the selected element, on every device holding it', '选中的元素，在每个持有它的设备上'],
  lgAtomChunk: ['colour: the 16-byte chunk of the logical column', '颜色：逻辑列所在的 16 字节块'],
  lgAtomNumbers: [
    'numbers: the logical column (left: where it starts; right: where the swizzle puts it)',
    '数字：逻辑列（左：原位置；右：swizzle 之后的位置）',
  ],
  lgBankNumbers: [
    'numbers: the logical column; a cell stands in the column of its bank',
    '数字：逻辑列；格子位于其 bank 所在的列',
  ],
  lgBankRead: ['read by the warp (served in a later cycle)', '被 warp 读取（在之后的 cycle 中服务）'],
  lgBankNow: ['served in the current cycle', '在当前 cycle 中服务'],
  big64: ['64×64 fp32, padded to 65 words', '64×64 fp32，填充到每行 65 words'],
  cellsRead: ['cells read', '个被读取的格子'],
  lgBlock: [
    'overview: 8×8 blocks of 8 rows × 8 bank columns; the number is how many cells of the block the warp reads',
    '总览：8×8 个块，每块 8 行 × 8 个 bank 列；数字是该块中被 warp 读取的格子数',
  ],
  lgBlockOpen: [
    'the block drawn in full below (click or Enter on another block to open it)',
    '下方完整绘制的块（点击或在其他块上按 Enter 打开）',
  ],
  reshardTo: ['Reshard to', '重新分片为'],
  beforeReshard: ['Before', '之前'],
  afterReshard: ['After', '之后'],
  planSteps: ['Plan', '计划'],
  along: ['along', '沿'],
  localStep: ['local, no communication', '本地，无通信'],
  perDevice: ['per device', '每个设备'],
  send: ['send', '发送'],
  recv: ['receive', '接收'],
  example: ['Example', '示例'],
} as const;

export type StringKey = keyof typeof STRINGS;

export function t(lang: Lang, key: StringKey): string {
  return STRINGS[key][lang === 'zh' ? 1 : 0];
}

/** The singular of the counted nouns (English only: Chinese counts without a plural). */
const ONE: Partial<Record<StringKey, string>> = { cycles: 'cycle', wavefronts: 'wavefront' };

/** "1 cycle", "8 cycles", "8 个周期": a count and its noun in the language. */
export function counted(lang: Lang, n: number, key: 'cycles' | 'wavefronts'): string {
  const word = lang === 'en' && n === 1 ? ONE[key]! : t(lang, key);
  return `${n} ${word}`;
}

export function resolveLang(attr: string | null | undefined): Lang {
  if (attr === 'en' || attr === 'zh') return attr;
  const page = document.documentElement.dataset.lsLang;
  if (page === 'zh' || page === 'en') return page;
  // a host page that declares Chinese (<html lang="zh-CN">) gets Chinese labels
  return /^zh\b/i.test(document.documentElement.lang) ? 'zh' : 'en';
}
