// The CLI end to end: JSON on stdout, exit 2 with a JSON error that points at the column.
// Expected values come from the chapter (docs/worked-examples.md), not from the program.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const bin = process.env.LAYOUTSCOPE_BIN ?? 'build/bin/layoutscope';

function run(...args) {
  const r = spawnSync(bin, args, { encoding: 'utf8' });
  const lines = r.stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  return { code: r.status, lines, stderr: r.stderr };
}

test('eval: fragment cell 43 is lane 21 slot 1', () => {
  const { code, lines } = run('eval', 'S[(8,4,2):(4@laneid,1@laneid,1@reg)]', '--shape', '8,8', '43', '5,3');
  assert.equal(code, 0);
  for (const l of lines) {
    assert.equal(l.index, 43);
    assert.deepEqual(l.coord, [5, 3]);
    assert.deepEqual(l.split, [5, 1, 1]);
    assert.deepEqual(l.positions, [{ laneid: 21, reg: 1 }]);
    assert.match(l.derivation, /unflatten\(43; 8,4,2\) = \(5,1,1\)/);
  }
});

test('eval: mesh element (1,2,3) with replica and offset', () => {
  const base = 'S[(2,4,8):(1@gpuid_y,8@m,1@m)]';
  const r = run('eval', `${base} + R[2:1@gpuid_x]`, '--shape', '2,4,8', '1,2,3');
  assert.deepEqual(r.lines[0].positions, [
    { gpuid_y: 1, m: 19, gpuid_x: 0 },
    { gpuid_y: 1, m: 19, gpuid_x: 1 },
  ]);
  const o = run('eval', `${base} + O[1@gpuid_x]`, '--shape', '2,4,8', '1,2,3');
  assert.deepEqual(o.lines[0].positions, [{ gpuid_y: 1, m: 19, gpuid_x: 1 }]);
});

test('table: tile rows 0 and 1', () => {
  const { code, lines } = run('table', 'S[(4,2,2,4):(16,4,8,1)]', '--shape', '8,8');
  assert.equal(code, 0);
  assert.equal(lines.length, 1 + 64); // the header, then a line per element
  const m = lines.slice(1).map((r) => r.positions[0].m);
  assert.deepEqual(m.slice(0, 8), [0, 1, 2, 3, 8, 9, 10, 11]);
  assert.deepEqual(m.slice(8, 16), [4, 5, 6, 7, 12, 13, 14, 15]);
});

test('inverse: TMEM lane 32, column 2, byte 2 holds SFA[64,2] as partition 1', () => {
  const { lines } = run(
    'inverse',
    'S[(4,32,4):(1@TCol,1@TLane,1@byte)] + R[4:32@TLane]',
    '--shape',
    '128,4',
    'TLane=32',
    'TCol=2',
    'byte=2',
  );
  assert.equal(lines[0].count, 1);
  assert.deepEqual(lines[0].hits[0].coord, [64, 2]);
  assert.equal(lines[0].hits[0].replica, 1);
});

test('check: exit 1 and a finding on the offending axis', () => {
  const { code, lines } = run('check', 'S[(8,4):(4@laneid,1@laneid)] + O[8@laneid]', '--shape', '8,4');
  assert.equal(code, 1);
  assert.equal(lines[0].ok, false);
  assert.ok(lines[0].findings.some((f) => f.code === 'hardware-range' && f.where === 'axis laneid'));
});

test('canon: contiguous modes fuse', () => {
  assert.equal(run('canon', 'S[(2,3,6):(18,6,1)]').lines[0].canonical, 'S[36:1]');
  assert.equal(run('canon', 'S[(8,4):(4@laneid,1@laneid)]').lines[0].canonical, 'S[32:1@laneid]');
});

test('swizzle: SWIZZLE_128B fp16 in elements is Swizzle<3,3,3>', () => {
  // Element 64 = row 1, col 0: the 16 B chunk index 0 is XORed with row 1 -> col 8 (element 72).
  const { lines } = run('swizzle', '--mode', '128B', '--dtype', 'f16', '64', '0');
  assert.equal(lines[0].bytes, 'Swizzle<3,4,3>');
  assert.equal(lines[0].elements, 'Swizzle<3,3,3>');
  assert.equal(lines[0].results[0].swizzled, 72);
  assert.equal(lines[0].results[0].swizzled_byte, 144);
  assert.equal(lines[0].results[1].swizzled, 0);
});

test('banks: 8-way toy column vs XOR-swizzled column', () => {
  const col = [0, 1, 2, 3, 4, 5, 6, 7].map((r) => String((r * 8 + 3) * 4));
  const swz = [0, 1, 2, 3, 4, 5, 6, 7].map((r) => String((r * 8 + (3 ^ r)) * 4));
  assert.equal(run('banks', '--width', '4', '--banks', '8', ...col).lines[0].cycles, 8);
  assert.equal(run('banks', '--width', '4', '--banks', '8', ...swz).lines[0].cycles, 1);
});

test('banks: padded 32x33 tile column read is conflict-free, unpadded is 32-way', () => {
  const padded = run('banks', '--width', '4', '--layout', 'S[(32,32):(33,1)]', '--shape', '32,32', '--step', '32');
  const plain = run('banks', '--width', '4', '--layout', 'S[(32,32):(32,1)]', '--shape', '32,32', '--step', '32');
  assert.equal(padded.lines[0].wavefronts, 1);
  assert.equal(plain.lines[0].wavefronts, 32);
});

test('sectors: AoS 32 vs SoA 4', () => {
  const aos = run('sectors', '--width', '4', '--layout', 'S[(64,8):(8,1)]', '--shape', '64,8', '--step', '8');
  const soa = run('sectors', '--width', '4', '--layout', 'S[(8,64):(64,1)]', '--shape', '8,64');
  assert.equal(aos.lines[0].sectors, 32);
  assert.equal(soa.lines[0].sectors, 4);
});

test('errors: exit 2, JSON error with column and field, caret on stderr', () => {
  const bad = run('eval', 'S[(8,4):(4,1]', '3');
  assert.equal(bad.code, 2);
  assert.equal(bad.lines[0].error.column, 13);
  assert.match(bad.stderr, /\n {2}S\[\(8,4\):\(4,1\]\n {14}\^/);
  const shape = run('eval', 'S[8:1]', '--shape', '4,a', '1');
  assert.equal(shape.code, 2);
  assert.equal(shape.lines[0].error.field, 'shape');
  assert.equal(shape.lines[0].error.column, 3);
  const range = run('eval', 'S[8:1]', '64');
  assert.equal(range.lines[0].error.field, 'index');
  assert.equal(run('frobnicate').code, 2);
  assert.equal(run('banks', '--width', '3', '0').lines[0].error.field, 'width');
});

// Strict arguments. Each case below was answered wrongly (exit 0) or refused with the wrong reason by a
// hand-written parser; the expected numbers come from the bank formula bank = (addr / 4) % 32.

function runInput(input, ...args) {
  const r = spawnSync(bin, args, { input });
  const text = r.stdout.toString('utf8');
  const lines = text
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  return { code: r.status, lines, stdout: r.stdout, stderr: r.stderr };
}

function assertError(r, field, pattern) {
  assert.equal(r.code, 2, `exit status 2 expected, got ${r.code}: ${JSON.stringify(r.lines)}`);
  assert.equal(r.lines.length, 1);
  assert.equal(r.lines[0].error.field, field);
  if (pattern) assert.match(r.lines[0].error.message, pattern);
}

test('numbers are decimal: 0200 and 0x80 are refused, 200 and 128 are read as written', () => {
  // Byte 128 is word 32, bank 0 like byte 0: two words in one bank, 2 wavefronts. Byte 200 is word 50,
  // bank 18: no conflict, 1 wavefront.
  assert.equal(run('banks', '--width', '4', '0', '128').lines[0].wavefronts, 2);
  assert.equal(run('banks', '--width', '4', '0', '200').lines[0].wavefronts, 1);
  const octal = run('banks', '--width', '4', '0', '0200');
  assertError(octal, 'addrs', /leading zero.*'200'/);
  assert.equal(octal.lines[0].error.column, 1);
  assert.equal(octal.lines[0].error.input, '0200');
  assertError(run('banks', '--width', '4', '0', '0x80'), 'addrs', /hexadecimal/);
  assertError(run('banks', '--width', '4', '0', '+128'), 'addrs', /'\+'/);
  assertError(run('banks', '--width', '04', '0'), 'width', /leading zero/);
  const junk = run('banks', '--width', '4', '0', '128abc');
  assertError(junk, 'addrs', /unexpected 'a'/);
  assert.equal(junk.lines[0].error.column, 4);
  assertError(run('eval', 'S[8:1]', '--shape', '08', '1'), 'shape', /leading zero/);
  assertError(run('eval', 'S[(8,8):(8,1)]', '--shape', '8,8', '5,03'), 'query', /leading zero/);
  assertError(run('inverse', 'S[8:1]', 'm=010'), 'm', /leading zero/);
});

test('unknown options are errors that name the option', () => {
  const stpe = run('banks', '--width', '4', '--layout', 'S[(32,32):(32,1)]', '--shape', '32,32', '--stpe', '32');
  assertError(stpe, 'stpe', /'--stpe'.*did you mean --step\?/);
  assertError(run('banks', '--width', '4', '--bank', '16', '0', '64'), 'bank', /'--bank'/);
  assertError(run('eval', 'S[8:1]', '--shap', '8', '3'), 'shap', /'--shap'/);
  assertError(run('canon', 'S[8:1]', '-x'), 'x', /'-x'/);
  assertError(run('--frobnicate', 'canon', 'S[8:1]'), 'frobnicate', /'--frobnicate'/);
});

test("arguments beyond a command's own are errors", () => {
  assertError(run('canon', 'S[8:1]', 'S[4:1]'), 'arguments', /unexpected argument 'S\[4:1\]'/);
  assertError(run('table', 'S[8:1]', '3'), 'arguments', /unexpected argument '3'/);
  // Addresses and --layout together: one of them would be ignored.
  assertError(run('banks', '--width', '4', '--layout', 'S[32:1]', '0', '4'), 'addrs', /not both/);
  assertError(run('banks', '--width', '4', '--step', '2', '0', '4'), 'step', /needs --layout/);
});

test('an option or an inverse axis given twice is an error', () => {
  assertError(run('inverse', 'S[(8,8):(8,1)]', 'm=5', 'm=6'), 'm', /axis m is queried twice/);
  assertError(run('banks', '--width', '4', '--width', '8', '0'), 'width', /--width is given 2 times/);
  assertError(run('eval', 'S[8:1]', '--shape', '8', '--shape=2,4', '3'), 'shape', /given 2 times/);
});

test('inverse: an axis the layout does not have is an error naming it', () => {
  const r = run('inverse', 'S[(8,4):(4@laneid,1@laneid)]', '--shape', '8,4', 'lane=5');
  assertError(r, 'lane', /no axis 'lane' \(its axes: laneid\)/);
  // The axis it does have: lane 5 holds element 5 = (1,1) of the 8x4 shape.
  const ok = run('inverse', 'S[(8,4):(4@laneid,1@laneid)]', '--shape', '8,4', 'laneid=5');
  assert.equal(ok.code, 0);
  assert.deepEqual(
    ok.lines[0].hits.map((h) => h.coord),
    [[1, 1]],
  );
});

test('integers too large for their option are errors, not truncated', () => {
  // 4294967300 = 2^32 + 4 and 4294967328 = 2^32 + 32: a cast to 32 bits would read 4 and 32.
  assertError(run('banks', '--width', '4294967300', '0'), 'width', /outside \[1, 1024\]/);
  assertError(run('banks', '--width', '4', '--banks', '4294967328', '0', '4'), 'banks', /outside \[1, 64\]/);
  const elem = run('sectors', '--width', '4', '--layout', 'S[64:1]', '--elem-bytes', '4294967300');
  assertError(elem, 'elem-bytes', /outside \[1, 1024\]/);
  assertError(run('eval', 'S[8:1]', '99999999999999999999'), 'query', /outside/);
  assertError(run('table', 'S[8:1]', '--limit', '7'), 'shape', /more than the limit of 7 cells/);
  assert.equal(run('table', 'S[8:1]', '--limit', '8').code, 0);
});

test("COMMAND --help: exit 0, the command's usage and an example", () => {
  for (const command of ['eval', 'table', 'inverse', 'check', 'canon', 'swizzle', 'banks', 'sectors']) {
    const r = spawnSync(bin, [command, '--help'], { encoding: 'utf8' });
    assert.equal(r.status, 0, command);
    assert.match(r.stdout, new RegExp(`Usage: layoutscope ${command} `), command);
    assert.match(r.stdout, new RegExp(`Examples:\\n {2}layoutscope ${command} `), command);
  }
  const top = spawnSync(bin, ['--help'], { encoding: 'utf8' });
  assert.equal(top.status, 0);
  assert.match(top.stdout, /eval/);
  assert.equal(spawnSync(bin, ['help'], { encoding: 'utf8' }).status, 0);
  assert.equal(spawnSync(bin, [], { encoding: 'utf8' }).status, 2);
});

test('--version: the project version and the commit it was built from', () => {
  const r = spawnSync(bin, ['--version'], { encoding: 'utf8' });
  assert.equal(r.status, 0);
  const m = r.stdout.trim().match(/^layoutscope (\S+) \(commit (\S+)\)$/);
  assert.ok(m, r.stdout);
  const cmake = readFileSync(new URL('../../CMakeLists.txt', import.meta.url), 'utf8');
  assert.equal(m[1], cmake.match(/project\(layoutscope VERSION (\S+)/)[1]);
  if (m[2] !== 'unknown') {
    const hash = m[2].replace(/-dirty$/, '').replace(/^.*-g(?=[0-9a-f]+$)/, '');
    const git = spawnSync('git', ['cat-file', '-t', hash], { cwd: new URL('.', import.meta.url), encoding: 'utf8' });
    if (git.status !== null && !git.error) assert.equal(git.stdout.trim(), 'commit');
  }
});

test('- reads layouts from stdin: a JSON line per line, an error line naming the line, exit 2 after all', () => {
  // S[8:1] maps element 3 to m = 3, S[8:2] to m = 6, S[4:1] to m = 3.
  const r = runInput('S[8:1]\nS[8:2]\nS[(8,4):(4,1]\nS[4:1]\r\n', 'eval', '-', '3');
  assert.equal(r.code, 2);
  assert.equal(r.lines.length, 4);
  assert.deepEqual(r.lines[0].positions, [{ m: 3 }]);
  assert.deepEqual(r.lines[1].positions, [{ m: 6 }]);
  assert.equal(r.lines[2].error.line, 3);
  assert.equal(r.lines[2].error.column, 13);
  assert.equal(r.lines[2].error.input, 'S[(8,4):(4,1]');
  assert.deepEqual(r.lines[3].positions, [{ m: 3 }]);
  assert.match(r.stderr.toString(), /line 3: /);
  const canon = runInput('S[(2,3,6):(18,6,1)]\nS[(8,4):(4@laneid,1@laneid)]\n', 'canon', '-');
  assert.equal(canon.code, 0);
  assert.deepEqual(
    canon.lines.map((l) => l.canonical),
    ['S[36:1]', 'S[32:1@laneid]'],
  );
  // check: 1 when a layout has an error finding (lane 39 > 31), 2 when a line cannot be read.
  const check = runInput('S[(8,4):(4@laneid,1@laneid)]\nS[(8,4):(4@laneid,1@laneid)] + O[8@laneid]\n', 'check', '-');
  assert.equal(check.code, 1);
  assert.deepEqual(
    check.lines.map((l) => l.ok),
    [true, false],
  );
  // banks --layout -: the padded tile is conflict-free, the plain one 32-way.
  const banks = runInput(
    'S[(32,32):(33,1)]\nS[(32,32):(32,1)]\n',
    'banks',
    '--width',
    '4',
    '--layout',
    '-',
    '--shape',
    '32,32',
    '--step',
    '32',
  );
  assert.deepEqual(
    banks.lines.map((l) => l.wavefronts),
    [1, 32],
  );
});

test('-- ends the options', () => {
  assert.deepEqual(run('eval', '--', 'S[8:1]', '3').lines[0].positions, [{ m: 3 }]);
  // After the command's first address too: 0 and 128 share bank 0.
  assert.equal(run('banks', '--width', '4', '0', '--', '128').lines[0].wavefronts, 2);
  // An option-looking argument after -- is a query, and not a number.
  assertError(run('eval', 'S[8:1]', '--', '--shape'), 'query', /'--shape'/);
  // A negative query is the engine's range error, not an unknown option.
  assertError(run('eval', 'S[8:1]', '--', '-1'), 'index', /outside \[0, 8\)/);
});

test('control bytes and invalid UTF-8 from the input never reach the terminal raw', () => {
  const esc = spawnSync(bin, ['eval', 'S[8:1]\x1b[31m', '3'], { encoding: 'buffer' });
  assert.equal(esc.status, 2);
  assert.ok(!esc.stderr.includes(0x1b) && !esc.stdout.includes(0x1b));
  // The caret sits under the ESC, now shown as the two characters \e: column 7, after 2 + 6 spaces.
  assert.match(esc.stderr.toString(), /\n {2}S\[8:1\]\\e\[31m\n {8}\^/);
  assert.equal(JSON.parse(esc.stdout.toString()).error.input, 'S[8:1]\x1b[31m');
  const cr = spawnSync(bin, ['eval', 'S[8:\r#]', '3'], { encoding: 'buffer' });
  assert.ok(!cr.stderr.includes(0x0d));
  assert.match(cr.stderr.toString(), /\n {2}S\[8:\\r#\]\n {8}\^/);
  const opt = spawnSync(bin, ['eval', 'S[8:1]', '--\x1b]0;x\x07', '3'], { encoding: 'buffer' });
  assert.equal(opt.status, 2);
  assert.ok(!opt.stderr.includes(0x1b) && !opt.stderr.includes(0x07));
  // U+009B is CSI in 8-bit terminals: JSON spells it \u009b, stderr \u009b too.
  const c1 = spawnSync(bin, ['eval', 'S[8:1]\u009b', '3'], { encoding: 'buffer' });
  assert.ok(!c1.stdout.includes(Buffer.from('\u009b')) && !c1.stderr.includes(Buffer.from('\u009b')));
  assert.equal(JSON.parse(c1.stdout.toString()).error.input, 'S[8:1]\u009b');
  const bad = runInput(Buffer.from([0x53, 0x5b, 0xff, 0x5d, 0x0a]), 'canon', '-');
  assert.equal(bad.code, 2);
  assert.ok(!bad.stderr.includes(0xff));
  assert.match(bad.stderr.toString(), /S\[\\xff\]\n {4}\^/);
});

test('table: every replica of every element, a header line and one line per element', () => {
  // x = 2*c0 + c1; laneid = c0 + 2r, m = 4*c1.
  const { code, lines } = run('table', 'S[(2,2):(1@laneid,4@m)] + R[2:2@laneid]');
  assert.equal(code, 0);
  const rows = [
    [0, 0],
    [0, 4],
    [1, 0],
    [1, 4],
  ].map(([lane, m], index) => ({
    index,
    positions: [
      { laneid: lane, m },
      { laneid: lane + 2, m },
    ],
  }));
  assert.deepEqual(lines, [
    {
      layout: 'S[(2,2):(1@laneid,4)] + R[2:2@laneid]',
      shape: [4],
      axes: ['laneid', 'm'],
      elements: 4,
      replicas: 2,
    },
    ...rows,
  ]);
});
