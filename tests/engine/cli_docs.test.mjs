// What a shell user gets besides the JSON: `help COMMAND`, the completion scripts and the manual page the program
// writes from its own command definitions, `cmake --install` of the binaries with them, and `table` as JSON lines
// that a line reader takes one element at a time. The commands expected are the README's command table (the
// documentation a user reads), not the program's own list.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const bin = process.env.LAYOUTSCOPE_BIN ?? join(root, 'build', 'bin', 'layoutscope');
const buildDir = process.env.LAYOUTSCOPE_BUILD_DIR ?? resolve(dirname(bin), '..');
const has = (tool) => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0;

function run(args, options = {}) {
  const r = spawnSync(bin, args, { encoding: 'utf8', maxBuffer: 1 << 30, ...options });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

// `| \`eval EXPR ...\` | ...` rows of README.md's command table
const README_COMMANDS = [...readFileSync(join(root, 'README.md'), 'utf8').matchAll(/^\| `([a-z]+) [^|]*\|/gm)]
  .map((m) => m[1])
  .filter((c, i, all) => all.indexOf(c) === i);

test('the README documents the commands the tests expect', () => {
  for (const c of ['eval', 'table', 'inverse', 'check', 'canon', 'swizzle', 'banks', 'import', 'plan', 'reshard'])
    assert.ok(README_COMMANDS.includes(c), `${c} in ${README_COMMANDS}`);
});

test('help eval prints the help of eval, the same as eval --help; help of an unknown command is an error', () => {
  const help = run(['help', 'eval']);
  assert.equal(help.code, 0);
  assert.match(help.out, /^Forward map/);
  assert.match(help.out, /Usage: layoutscope eval \[OPTIONS\] EXPR QUERY\.\.\./);
  assert.match(help.out, /--shape R,C/);
  assert.doesNotMatch(help.out, /ommands:/); // not the program's list
  assert.equal(help.out, run(['eval', '--help']).out);
  const bad = run(['help', 'evl']);
  assert.equal(bad.code, 2);
  const { error } = JSON.parse(bad.out);
  assert.equal(error.field, 'command');
  assert.match(error.message, /no command 'evl' \(eval, table/);
  // plain help is still the program's
  assert.match(run(['help']).out, /ommands:\n {2}eval /);
});

test('table streams JSON lines: a header, then one line per element, each a few dozen bytes', () => {
  // 256 x 256 row-major: element x = 256 r + c sits at m = x, so line 1 + x reads {"index": x, "positions": [{"m": x}]}
  const r = run(['table', 'S[(256,256):(256,1)]', '--shape', '256,256']);
  assert.equal(r.code, 0);
  const lines = r.out.split('\n');
  assert.equal(lines.pop(), '');
  assert.equal(lines.length, 1 + 65536);
  assert.deepEqual(JSON.parse(lines[0]), {
    layout: 'S[(256,256):(256,1)]',
    shape: [256, 256],
    axes: ['m'],
    elements: 65536,
    replicas: 1,
  });
  for (const x of [0, 1, 257, 65535]) assert.deepEqual(JSON.parse(lines[1 + x]), { index: x, positions: [{ m: x }] });
  assert.ok(Math.max(...lines.slice(1).map((l) => l.length)) < 64);
  // batch mode: each layout's header comes before its rows
  const batch = run(['table', '-'], { input: 'S[2:1]\nS[(2,2):(1,2)]\n' });
  assert.deepEqual(
    batch.out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).index ?? JSON.parse(l).layout),
    ['S[2:1]', 0, 1, 'S[(2,2):(1,2)]', 0, 1, 2, 3],
  );
});

// The bash script's answer to the words typed so far (the last one being completed).
function bashComplete(script, words) {
  const cword = words.length - 1;
  const line = `source ${JSON.stringify(script)}
COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${cword}
_layoutscope; printf '%s\\n' "\${COMPREPLY[@]}"`;
  const r = spawnSync('bash', ['--norc', '-c', line], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.split('\n').filter(Boolean).sort();
}

test('completion bash: commands, each command options, help and completion arguments', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ls-completion-'));
  try {
    const script = join(dir, 'layoutscope.bash');
    const r = run(['completion', 'bash']);
    assert.equal(r.code, 0);
    writeFileSync(script, r.out);
    const all = bashComplete(script, ['layoutscope', '']);
    for (const c of README_COMMANDS) assert.ok(all.includes(c), `${c} completes: ${all}`);
    assert.ok(all.includes('help') && all.includes('completion') && all.includes('--help'));
    assert.ok(!all.includes('man-page'), 'the hidden command is not offered');
    assert.deepEqual(bashComplete(script, ['layoutscope', 'ta']), ['table']);
    assert.deepEqual(bashComplete(script, ['layoutscope', 'table', '--sh']), ['--shape']);
    assert.deepEqual(bashComplete(script, ['layoutscope', 'eval', '--f']), ['--from']);
    assert.deepEqual(bashComplete(script, ['layoutscope', 'help', 'ev']), ['eval']);
    assert.deepEqual(bashComplete(script, ['layoutscope', 'completion', '']), ['bash', 'fish', 'zsh']);
    // an option's value is not completed as an option
    assert.deepEqual(bashComplete(script, ['layoutscope', 'table', '--shape', '--']), []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test(
  'completion zsh and fish: scripts the shells parse, naming every command',
  { skip: !has('zsh') && !has('fish') },
  () => {
    const dir = mkdtempSync(join(tmpdir(), 'ls-completion-'));
    try {
      for (const [shell, check] of [
        ['zsh', ['-n']],
        ['fish', ['--no-execute']],
      ]) {
        const r = run(['completion', shell]);
        assert.equal(r.code, 0);
        for (const c of README_COMMANDS) assert.match(r.out, new RegExp(`\\b${c}\\b`), `${shell}: ${c}`);
        if (!has(shell)) continue;
        const file = join(dir, `layoutscope.${shell}`);
        writeFileSync(file, r.out);
        const parsed = spawnSync(shell, [...check, file], { encoding: 'utf8' });
        assert.equal(parsed.status, 0, `${shell}: ${parsed.stderr}`);
      }
      if (has('fish')) {
        // fish's own completion engine, given the script
        const file = join(dir, 'layoutscope.fish');
        const r = spawnSync('fish', ['--no-config', '-c', `source ${file}; complete -C 'layoutscope table --sh'`], {
          encoding: 'utf8',
        });
        assert.match(r.stdout, /^--shape\t/m, r.stderr);
      }
      const bad = run(['completion', 'tcsh']);
      assert.equal(bad.code, 2);
      assert.equal(JSON.parse(bad.out).error.field, 'shell');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);

test('man-page: a manual page man renders, with every command and its options', () => {
  const page = run(['man-page']);
  assert.equal(page.code, 0);
  assert.match(page.out, /^\.TH LAYOUTSCOPE 1 /);
  if (has('groff')) {
    const lint = spawnSync('groff', ['-man', '-Tutf8', '-ww', '-z'], { input: page.out, encoding: 'utf8' });
    assert.equal(lint.stderr, '', 'groff has no warning');
  }
  if (!has('man')) return;
  const text = spawnSync('man', ['-l', '-'], {
    input: page.out,
    encoding: 'utf8',
    env: { ...process.env, MANWIDTH: '100', MAN_KEEP_FORMATTING: '', PAGER: 'cat' },
  }).stdout.replace(new RegExp('.' + String.fromCharCode(8), 'g'), ''); // man's overstrike bold
  for (const c of README_COMMANDS) assert.match(text, new RegExp(`layoutscope ${c}\\b`), c);
  assert.match(text, /--shape R,C\n\s+Logical shape/);
  assert.match(text, /layoutscope eval 'S\[\(8,4,2\):\(4@laneid,1@laneid,1@reg\)\]' --shape 8,8 43 5,3/);
});

test('cmake --install puts the binaries, the manual page and the completions under the prefix', () => {
  const prefix = mkdtempSync(join(tmpdir(), 'ls-install-'));
  try {
    const components = ['cli', ...(existsSync(join(buildDir, 'bin', 'layoutscope-agent')) ? ['agent'] : [])];
    for (const component of components) {
      const r = spawnSync('cmake', ['--install', buildDir, '--prefix', prefix, '--component', component], {
        encoding: 'utf8',
      });
      assert.equal(r.status, 0, r.stderr);
    }
    for (const f of [
      'bin/layoutscope',
      'share/man/man1/layoutscope.1',
      'share/bash-completion/completions/layoutscope',
      'share/zsh/site-functions/_layoutscope',
      'share/fish/vendor_completions.d/layoutscope.fish',
      ...(components.includes('agent') ? ['bin/layoutscope-agent'] : []),
    ])
      assert.ok(existsSync(join(prefix, f)), f);
    const installed = spawnSync(join(prefix, 'bin', 'layoutscope'), ['--version'], { encoding: 'utf8' });
    assert.match(installed.stdout, /^layoutscope \d+\.\d+\.\d+/);
    assert.equal(readFileSync(join(prefix, 'share/man/man1/layoutscope.1'), 'utf8'), run(['man-page']).out);
    if (has('man')) {
      const found = spawnSync('man', ['-w', 'layoutscope'], {
        encoding: 'utf8',
        env: { ...process.env, MANPATH: join(prefix, 'share', 'man') },
      });
      assert.equal(found.stdout.trim(), join(prefix, 'share/man/man1/layoutscope.1'));
    }
  } finally {
    rmSync(prefix, { recursive: true, force: true });
  }
});
