// Which service a synced table's rows came from, as the meta table records it beside the
// point: the gateway's base URL, the data prefix and the scope (the account asked for), as one
// text such as `https://api.example.com/dap` or `https://api.example.com/dap?scope=acct-7`.
// Changes from one service cannot be applied on top of rows from another, so an incremental
// sync compares the stored source with its own first. Never a credential: the URL's user part
// is dropped (the client refuses one anyway), and the client ID and secret are not part of it.

/** The parts of a connection that say whose data it reads. */
export interface SyncSourceParts {
  baseUrl: string;
  dataPrefix: string;
  /** the account asked for; empty or missing means the credentials' own */
  scope?: string;
}

/**
 * The source as stored and compared: the base URL without user part, trailing slashes, query
 * or fragment (host and scheme in lower case, a default port left out), then the data prefix,
 * then `?scope=` when one is asked for. Equal for every way of writing the same service.
 */
export function sourceIdentity(parts: SyncSourceParts): string {
  let base = parts.baseUrl.trim();
  try {
    const url = new URL(base);
    // no user part, query or fragment: only what names the service
    base = `${url.protocol}//${url.host}${url.pathname}`;
  } catch {
    // not a URL: compared as written (the client would have refused it before any sync)
  }
  base = base.replace(/\/+$/, '');
  const prefix = parts.dataPrefix.trim().replace(/^\/+|\/+$/g, '');
  const scope = parts.scope || undefined; // as the client sends it
  return `${base}${prefix ? `/${prefix}` : ''}${scope ? `?scope=${encodeURIComponent(scope)}` : ''}`;
}
