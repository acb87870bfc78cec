// Figure state in the URL fragment, as URLSearchParams: #tile.sel=46&tmem.dp=D&fig=tmem.
// Each element owns the keys under its prefix; replaceState keeps history clean and the page from jumping.
// Another part of the fragment (agent=...&token=...) is left untouched.

export function readFragment(): URLSearchParams {
  return new URLSearchParams(location.hash.replace(/^#/, ''));
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
  const hash = params.toString();
  const url = location.pathname + location.search + (hash ? '#' + hash : '');
  history.replaceState(history.state, '', url);
}

export function writeKey(key: string, value: string | null) {
  const params = readFragment();
  if (value === null) params.delete(key);
  else params.set(key, value);
  const hash = params.toString();
  history.replaceState(history.state, '', location.pathname + location.search + (hash ? '#' + hash : ''));
}
