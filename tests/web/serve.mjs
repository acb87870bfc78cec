// A static server for web/dist on 127.0.0.1 with a strict CSP header (the page must need nothing more than
// script-src 'self' 'wasm-unsafe-eval'). It serves the build's precompressed x.br / x.gz when the request accepts
// them (as the agent does), content-hashed assets/ as immutable and everything else no-cache.
// start() -> { url, close }.
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize, resolve } from 'node:path';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
};
export const CSP =
  "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; img-src 'self' data: blob:; object-src 'none'; base-uri 'self'";

export function start(dir) {
  const root = resolve(dir);
  const server = createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    const file = normalize(join(root, path === '/' ? 'index.html' : path));
    if (!file.startsWith(root)) {
      res.writeHead(403).end();
      return;
    }
    try {
      const headers = {
        'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream',
        'Content-Security-Policy': CSP,
        'Cache-Control': path.startsWith('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache',
        Vary: 'Accept-Encoding',
      };
      const accept = String(req.headers['accept-encoding'] ?? '');
      let body;
      for (const [enc, ext] of [
        ['br', '.br'],
        ['gzip', '.gz'],
      ]) {
        if (!new RegExp(`\\b${enc}\\b`).test(accept)) continue;
        body = await readFile(file + ext).catch(() => undefined);
        if (body) {
          headers['Content-Encoding'] = enc;
          break;
        }
      }
      body ??= await readFile(file);
      res.writeHead(200, headers);
      res.end(body);
    } catch {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
    }
  });
  return new Promise((ok) =>
    server.listen(0, '127.0.0.1', () =>
      ok({ url: `http://127.0.0.1:${server.address().port}/`, close: () => new Promise((d) => server.close(d)) }),
    ),
  );
}
