// Talking to layoutscope-agent instances from the page: the bearer token from the URL the agent printed, every
// failure turned into a message a user can act on (unreachable, wrong token, origin refused, the browser's
// Local Network Access permission denied), and the progress stream read with fetch (EventSource cannot send
// the Authorization header).

export type AgentProblem = 'unreachable' | 'unauthorized' | 'origin' | 'lna-denied' | 'http' | 'bad-url';

export class AgentError extends Error {
  constructor(
    readonly kind: AgentProblem,
    message: string,
    readonly status = 0,
    readonly field = '',
    readonly retryAfter = 0,
  ) {
    super(message);
  }
}

export interface AgentAddress {
  base: string;
  token: string;
}

/** The agent's printed URL ("http://127.0.0.1:8765/#token=...") -> base and token; never the query string. */
export function parseAgentUrl(text: string, token = ''): AgentAddress {
  let u: URL;
  const t = text.trim();
  try {
    u = new URL(/^[a-z]+:\/\//i.test(t) ? t : `http://${t}`);
  } catch {
    throw new AgentError(
      'bad-url',
      `"${t}" is not a URL; paste the line the agent printed (http://127.0.0.1:8765/#token=…)`,
    );
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    throw new AgentError('bad-url', `${u.protocol} is not http or https`);
  if (u.search && new URLSearchParams(u.search).has('token'))
    throw new AgentError(
      'bad-url',
      'the token belongs in the URL fragment (#token=…), not in the query string (?token=…), which would reach server logs',
    );
  const fromHash = new URLSearchParams(u.hash.replace(/^#/, '')).get('token') ?? '';
  const tok = (token || fromHash).trim();
  if (!tok)
    throw new AgentError('bad-url', 'no token: the agent prints its URL with #token=… at the end; paste all of it');
  if (!/^[0-9A-Za-z_-]{16,256}$/.test(tok))
    throw new AgentError('bad-url', 'the token has characters an agent token never has');
  return { base: u.origin, token: tok };
}

export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '[::1]' || /^127\./.test(host);
}

/** Chrome's Local Network Access permission for this page ("denied", "granted", "prompt"), or null where the
 * browser has no such permission. The name changed between Chrome versions: try each. */
export async function localNetworkPermission(): Promise<PermissionState | null> {
  for (const name of ['loopback-network', 'local-network-access', 'local-network']) {
    try {
      const st = await navigator.permissions.query({ name } as unknown as PermissionDescriptor);
      return st.state;
    } catch {
      /* not a permission this browser knows */
    }
  }
  return null;
}

async function diagnose(base: string): Promise<AgentError> {
  const pageLoopback = isLoopback(location.hostname);
  const target = new URL(base);
  if (!pageLoopback && isLoopback(target.hostname) && (await localNetworkPermission()) === 'denied')
    return new AgentError(
      'lna-denied',
      `The browser blocked this page from reaching ${base}: the Local Network Access permission is denied for ${location.origin}. ` +
        `Allow it in the site settings (the icon left of the address bar → Local network access → Allow) and reload, ` +
        `or open the page the agent serves itself (${base}/).`,
    );
  // An opaque request shows whether anything answers at all; a CORS failure with an answer means the agent
  // refused this page's Origin (403 without CORS headers).
  const answered = await fetch(`${base}/healthz`, { mode: 'no-cors', cache: 'no-store' }).then(
    () => true,
    () => false,
  );
  if (answered)
    return new AgentError(
      'origin',
      `${base} answers but does not allow calls from this page (${location.origin}). Start the agent with --allowed-origin ${location.origin}, ` +
        `or open the page it serves (${base}/).`,
    );
  if (!pageLoopback && isLoopback(target.hostname))
    return new AgentError(
      'unreachable',
      `No answer from ${base}. Is layoutscope-agent running on this machine (it prints its URL on start)? If it is, the browser may be asking for ` +
        `the Local Network Access permission: allow it and retry.`,
    );
  return new AgentError(
    'unreachable',
    `No answer from ${base}. Is layoutscope-agent running there? Start it and paste the URL it prints.`,
  );
}

export class AgentClient {
  constructor(readonly address: AgentAddress) {}
  get base() {
    return this.address.base;
  }

  /** fetch with the token; throws AgentError for every failure, with the API's own message when it sent one. */
  async request(path: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    headers.set('Authorization', `Bearer ${this.address.token}`);
    let res: Response;
    try {
      res = await fetch(this.base + path, {
        ...init,
        headers,
        cache: 'no-store',
        credentials: 'omit',
        // Chrome's Local Network Access: a public page calling loopback says so (ignored elsewhere)
        ...({ targetAddressSpace: isLoopback(new URL(this.base).hostname) ? 'loopback' : undefined } as object),
      });
    } catch (err) {
      if ((err as Error).name === 'AbortError') throw err;
      throw await diagnose(this.base);
    }
    if (res.ok) return res;
    let code = '',
      message = '',
      field = '';
    try {
      const body = await res.json();
      code = body?.error?.code ?? '';
      message = body?.error?.message ?? '';
      field = body?.error?.field ?? '';
    } catch {
      /* not JSON */
    }
    if (res.status === 401)
      throw new AgentError(
        'unauthorized',
        `${this.base} refused the token (401). Copy the whole URL the agent printed: the token is after #token= and changes when the token file is recreated.`,
        401,
      );
    const retry = Number(res.headers.get('Retry-After') ?? 0);
    throw new AgentError(
      'http',
      `${res.status} ${code || res.statusText}: ${message || 'no message'}${field ? ` (field ${field})` : ''}`,
      res.status,
      field,
      retry,
    );
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the agent's JSON; callers name its type
  async json<T = any>(path: string, init: RequestInit = {}): Promise<T> {
    return (await this.request(path, init)).json();
  }

  /** Server-sent events of a run, read from a fetch stream: yields { event, data } until "end". */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each event's JSON, read by the caller per event name
  async *events(id: string, signal?: AbortSignal): AsyncGenerator<{ event: string; data: any }> {
    const res = await this.request(`/v1/runs/${encodeURIComponent(id)}/events`, { signal });
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let buf = '';
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        buf += value;
        let cut: number;
        while ((cut = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, cut);
          buf = buf.slice(cut + 2);
          let event = 'message';
          const data: string[] = [];
          for (const line of block.split('\n')) {
            if (line.startsWith('event:')) event = line.slice(6).trim();
            else if (line.startsWith('data:')) data.push(line.slice(5).trim());
          }
          if (!data.length) continue; // a keep-alive comment
          const parsed = JSON.parse(data.join('\n'));
          yield { event, data: parsed };
          if (event === 'end') return;
        }
      }
    } finally {
      reader.releaseLock();
    }
  }
}
