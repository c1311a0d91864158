// What a proxy's refusal to open a tunnel looks like. undici reports it as an AbortError
// ("Proxy response (407) !== 200 when HTTP Tunneling"), the same name a cancel has; the
// proxy dispatcher turns it into a ProxyRefusalError naming the proxy, and both forms are
// told apart from a cancel here.

/** A proxy answered a tunnel (CONNECT) request with something other than 200. */
export class ProxyRefusalError extends Error {
  readonly code = 'DQ_PROXY_REFUSED';

  /**
   * @param status the proxy's answer to the tunnel request
   * @param proxy the proxy as a message may show it (no user or password)
   * @param target the host:port the tunnel was for
   */
  constructor(
    readonly status: number,
    readonly proxy: string,
    readonly target: string,
  ) {
    super(`The proxy ${proxy} answered HTTP ${status} when asked for a tunnel to ${target}`);
    this.name = 'ProxyRefusalError';
  }
}

const UNDICI_REFUSAL = /^Proxy response \((\d{3})\) !== 200 when HTTP Tunneling/;

/** The status of a proxy's tunnel refusal, in either form, or undefined for any other failure. */
export function proxyRefusalStatus(err: unknown): number | undefined {
  if (err instanceof ProxyRefusalError) return err.status;
  if (!(err instanceof Error)) return undefined;
  const m = UNDICI_REFUSAL.exec(err.message);
  return m ? Number(m[1]) : undefined;
}
