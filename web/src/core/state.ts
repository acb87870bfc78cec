// Figure state in the URL fragment, as URLSearchParams: #tile.sel=46&tmem.dp=D&fig=tmem.
// Each element owns the keys under its prefix; replaceState keeps history clean and the page from jumping.
// Another part of the fragment (agent=...&token=...) is left untouched.

export function readFragment(): URLSearchParams {
  return new URLSearchParams(pending ?? location.hash.replace(/^#/, ''));
}

// history.replaceState costs several milliseconds in Chromium (the browser process records the new URL), which a
// click would pay before its highlight is painted: writes are kept here and given to history after the next frame.
// Reads see them at once; leaving the page writes what is pending.
let pending: string | null = null;
let scheduled = false;

function write(params: URLSearchParams) {
  pending = params.toString();
  if (scheduled) return;
  scheduled = true;
  requestAnimationFrame(() => setTimeout(flushFragment, 0));
  // a hidden page gets no frames
  setTimeout(flushFragment, 100);
}

/** Gives pending fragment writes to history now (tests and code that read location.hash call it first). */
export function flushFragment() {
  scheduled = false;
  if (pending === null) return;
  const hash = pending;
  pending = null;
  const url = location.pathname + location.search + (hash ? '#' + hash : '');
  if (url !== location.pathname + location.search + location.hash) history.replaceState(history.state, '', url);
}
// (no window when the module is imported by a server-side render: nothing to listen to there)
if (typeof window !== 'undefined') {
  addEventListener('pagehide', flushFragment);
  // a fragment the user navigates to replaces what was pending
  addEventListener('hashchange', () => {
    pending = null;
  });
}

export function readState(prefix: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of readFragment()) if (k.startsWith(prefix + '.')) out[k.slice(prefix.length + 1)] = v;
  return out;
}

export function writeState(prefix: string, values: Record<string, string | number | null | undefined>) {
  const params = readFragment();
  for (const key of [...params.keys()]) if (key.startsWith(prefix + '.')) params.delete(key);
  for (const [k, v] of Object.entries(values))
    if (v !== null && v !== undefined && v !== '') params.set(`${prefix}.${k}`, String(v));
  write(params);
}

export function writeKey(key: string, value: string | null) {
  const params = readFragment();
  if (value === null) params.delete(key);
  else params.set(key, value);
  write(params);
}
