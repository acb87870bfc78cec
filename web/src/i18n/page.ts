// The page's own text in Chinese (index.html's data-i18n keys; the HTML holds the English).
export const PAGE_ZH: Record<string, string> = {
  skip: '跳到图',
  subtitle: '数据布局及其记号 —— 由 C++ 布局引擎（WebAssembly）驱动的交互图',
  'nav.tile': '1 Tile 布局',
  'nav.fragment': '2 寄存器 fragment',
  'nav.tmem': '3 张量内存 TMEM',
  'nav.sf': '4 缩放因子',
  'nav.atom5': '4b tcgen05 原子',
  'nav.bs': '4c 块缩放',
  'nav.mesh': '5 GPU 网格',
  'nav.banks': '6 Bank 冲突',
  'nav.advisor': '7 布局顾问',
  'nav.atom': '8 Swizzle 原子',
  'nav.play': '9 试验场',
  'nav.bench': '10 基准测试',
  'h.bench': '10. Benchmarks：实测与预测',
  'p.bench':
    '连接 layoutscope-agent（打开它打印的 URL，或粘贴到下方），运行文档中的 AoS/SoA 扫描与转置，并把 GPU 的实测结果与布局引擎的预测对照。也可以拖入结果 JSON 文件离线查看。',
  'h.tile': '1. Tile 布局：8×8 划分为 2×4 tiles',
  'p.tile': '点击任意 cell：显示它所在的 tile、unflatten 过程和 f_D(x)，两个网格联动高亮。',
  'h.fragment': '2. Register fragment（m8n8）',
  'p.fragment': '点击 cell 43 = (5, 3)：lane 21，slot 1。点击 lane 编号：该 lane 持有的元素。',
  'h.tmem': '3. TMEM：lanes × columns',
  'p.tmem': '完整绘制 128 lanes × 512 columns。点击 TMEM cell：显示位于该处的逻辑元素。',
  'h.sf': '4. TMEM 中的 Scale factors（.warpx4）',
  'p.sf': '点击 SFA[64, 2]：四个副本 (0,2,2) (32,2,2) (64,2,2) (96,2,2)，即 (TLane, TCol, byte)。',
  'h.scan': '扫描 Triton dump',
  'p.scan':
    '粘贴或拖入 kernel 的 TTGIR：列出其中每个布局，以及每个在布局之间搬运数据的 op 与其 shared memory 代价，代价高的在前。CuTe print() 输出的日志则列出其中打印的每个布局及其行号、列号与记法。',
  'h.atom5': '4b. tcgen05.ld / tcgen05.st：线程 × 寄存器 对 TMEM',
  'p.atom5':
    '选择 shape、重复次数 .xN 和 TMEM lane：左边每个寄存器、右边每个 TMEM 单元联动高亮；下方显示哪些 warp 可以发出该指令。',
  'c.atom5':
    '读图：左边是一个 warp 的 32 个线程 × 寄存器，格中为它持有的 TMEM (lane, column)；右边是该指令访问的 TMEM lanes × 32-bit columns，格中 “T6.1” 表示线程 6 的寄存器 1。颜色为线程 mod 8。warp w 只能访问 32·(w%4) 起的 32 个 lane。',
  'h.bs': '4c. Block-scaled MMA：一个 scale factor 从 (M, K) 到 TMEM',
  'p.bs':
    '点击任意 scale factor：它在共享内存中的 byte、tcgen05.cp.32x128b.warpx4 后在 TMEM 中的四个副本，以及读取它的 MMA 和 sf_id。',
  'c.bs':
    '读图：左边是逻辑 scale 矩阵（128 行 × K/vec），中间是共享内存中 512 B 的 128×4 atom（每行 16 B），右边是 TMEM lanes ×（column, byte），四个 32-lane 分区是 .warpx4 的副本。颜色为 atom 内的 TCol（即 M group）。',
  'h.mesh': '5. GPU mesh：分片、副本与偏移',
  'p.mesh': '切换模式并点击 cell：显示持有它的设备和局部偏移。',
  'h.banks': '6. Bank conflict 与 XOR swizzle',
  'p.banks': '点击列（或行）标题：由引擎计算周期数，逐步查看 wavefront。',
  'h.atom': '8. Swizzle atom',
  'h.advisor': '7. 布局顾问：哪种共享内存布局没有 bank conflict',
  'p.advisor':
    '给出写入方与读取方（lanes;指令）、数据类型和 tile：由引擎对共享内存布局排序。点击其中一个，逐步查看它的 wavefronts。',
  'c.advisor':
    '读图：每一行是共享 tile 的一种候选布局（row-major、元素偏移上的 XOR swizzle、TMA 模式、行填充），最优在前，列出写入和读取各需的 wavefronts（括号内为理想值）和占用的字节数；条带显示读取的第一条指令中 32 个 bank 各需几个 wavefront（橙色：多于一个）。下方是所选候选的该指令，按 bank × wavefront 排列：格中数字是在此处被服务的 lane。默认例子是按行写入、按列读取的 16×32 fp32 tile，其中与两倍行号做 XOR 无冲突。',
  'p.atom': '选择模式和数据类型；悬停或选择单元格，查看它被重映射到的位置。',
  'h.play': '9. Playground',
  'p.play': '输入任意 layout 和逻辑 shape。',
  'c.tile':
    '读图：左边是逻辑 8×8 矩阵，右边是按每行 8 个地址排列的内存；两边格子里的数字都是逻辑序号 x，颜色表示所在的 tile，所以左边一个颜色块对应右边 16 个连续地址。下方的条带是同一段内存排成一行。',
  'c.fragment':
    '读图：左边是 m8n8 操作数的 8×8 tile，格子按 CUTLASS 与 PTX ISA 的方式标注：“T21 V1” 表示 lane（线程）21、slot（值）1。右边是一个 warp 的 32 个 lane 及每个 slot 中的逻辑序号 x。颜色为 lane mod 8，标注区分同色的 lane。',
  'c.tmem':
    '读图：每个像素是一个 32-bit TMEM 单元，lane 向下、column 向右；颜色表示布局占用的列带，灰色表示该布局未使用。点击单元查看该处的逻辑元素。',
  'c.sf':
    '读图：左边是 SFA 矩阵（128 行 × 4 个 scale factor，每个 1 byte），右边是 TMEM lanes ×（column, byte）。颜色表示 Mgroup（沿 TCol 打包）；沿 TLane 的四个 partition 是副本，所以每个 scale factor 以同一颜色出现四次。',
  'c.mesh':
    '读图：左边是逻辑张量，右边是 2×2 mesh 中每个设备的局部内存。被复制的元素在持有它的每个设备上用同一颜色绘制；offset 会移动设备内元素的起始位置。',
  'c.banks':
    '读图：每个网格是共享内存，每列是一个 bank；格子中的数字是逻辑列，位置是引擎算出的 bank。读取一列时高亮一个 warp 访问的格子；落在同一 bank 的格子在不同周期中服务（徽标给出周期数）。填充的情形每行存 33 个 word，使第 r 行移到 bank r。',
  'c.atom':
    '读图：左边是 atom 中按逻辑顺序的元素，右边是 swizzle 之后的位置。颜色表示逻辑列所在的 16 字节块：未 swizzle 时是竖条纹，swizzle 后每行的块被重新排列。',
  'c.play':
    '读图：逻辑视图与布局的物理视图并排，物理视图使用布局自己的坐标（按 32 banks × 4 B 成行的内存、lanes × 寄存器、TMEM lanes × columns、设备 × 局部内存）。颜色表示逻辑列（或行、序号），数字是逻辑序号，空格表示无元素，红色虚线格超出轴的取值范围。悬停查看位置和 bank；填入第二个 layout 进行对比。以 CuTe、CuTe DSL、Triton、TIRx、JAX、Shardy、XLA HLO 或 DTensor 语法粘贴的 layout 会被自动识别并转换为本记号（表单下方一行说明如何读取），“导出为”可将其写成引擎支持的各种语法。',
  copyLink: '复制链接',
  help: '快捷键 (?)',
  'help.title': '键盘',
  'help.tab': '在各图（每图一个焦点）及其控件之间移动',
  'help.arrows': '在图内移动光标',
  'help.home': '本行第一个 / 最后一个单元',
  'help.enter': '选择光标处的单元',
  'help.esc': '清除选择（或关闭本帮助）',
  'help.q': '本帮助',
  'help.link': '地址中保存了每个图的状态：“复制链接”分享的正是当前视图。',
  'help.close': '关闭',
  footer: '本页所有数字均由编译为 WebAssembly 的 layoutscope 引擎计算。',
};
