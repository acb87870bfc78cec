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
  rowMajor: ['Row-major', 'Row-major'],
  swizzled: ['XOR swizzle', 'XOR swizzle'],
  cycles: ['cycles', 'cycles'],
  wavefronts: ['wavefronts', 'wavefronts'],
  way: ['-way conflict', '-way bank conflict'],
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
  hoverHint: ['Hover a cell for its positions; click to select.', '悬停查看位置；点击选择。'],
  replicas: ['replicas', '副本'],
  inRowsOf: ['in rows of', '每行'],
  checking: ['Checking the layout…', '正在校验 layout…'],
  fragLegend: [
    'Left: T = lane (thread) and V = slot (value) holding the cell, as CUTLASS and PTX draw fragments.',
    '左：T = lane（线程），V = 持有该格的 slot（值），与 CUTLASS 和 PTX 的画法相同。',
  ],
  fragLegend2: [
    'Right: each lane and the logical index x in each of its slots. Colour: lane mod 8.',
    '右：每个 lane 及其各 slot 中的逻辑序号 x。颜色：lane mod 8。',
  ],
} as const;

export type StringKey = keyof typeof STRINGS;

export function t(lang: Lang, key: StringKey): string {
  return STRINGS[key][lang === 'zh' ? 1 : 0];
}

export function resolveLang(attr: string | null | undefined): Lang {
  if (attr === 'en' || attr === 'zh') return attr;
  const page = document.documentElement.dataset.lsLang;
  if (page === 'zh' || page === 'en') return page;
  // a host page that declares Chinese (<html lang="zh-CN">) gets Chinese labels
  return /^zh\b/i.test(document.documentElement.lang) ? 'zh' : 'en';
}
