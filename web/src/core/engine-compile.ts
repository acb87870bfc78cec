// The engine's WebAssembly module, fetched and compiled once. The page's entry starts this before any figure's
// code is evaluated, so that the compile (off the main thread) overlaps the figures' script; engine.ts
// instantiates the compiled module when the first figure asks for the engine.
//
//   compileEngine();                        // the page's entry: start now
//   const m = await compileEngine();        // engine.ts: the same promise, a WebAssembly.Module
//
// The URL is this chunk's own reference to the .wasm (Vite emits it once under assets/, content-hashed, and the
// page preloads it), so the fetch is answered from the preload.

const url = new URL('../generated/layoutscope.wasm', import.meta.url);
let compiled: Promise<WebAssembly.Module> | undefined;

async function compileFromBytes(): Promise<WebAssembly.Module> {
  const r = await fetch(url, { credentials: 'same-origin' });
  if (!r.ok) throw new Error(`${url.pathname}: HTTP ${r.status}`);
  return WebAssembly.compile(await r.arrayBuffer());
}

export function compileEngine(): Promise<WebAssembly.Module> {
  // compileStreaming needs the server to send application/wasm; any other type falls back to the bytes
  compiled ??=
    typeof WebAssembly.compileStreaming === 'function'
      ? WebAssembly.compileStreaming(fetch(url, { credentials: 'same-origin' })).catch(compileFromBytes)
      : compileFromBytes();
  return compiled;
}
