// One set of rules for the URLs a person gives: the gateway's base URL (CLI flag, extension
// setting and input box, client option) and any http(s) URL the client is about to call.

export type ParsedUrl = { url: URL; problem?: undefined } | { url?: undefined; problem: string };

/** An absolute http or https URL; otherwise a sentence saying how to fix it. */
export function parseHttpUrl(raw: string): ParsedUrl {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return { problem: 'Enter a full URL such as https://api.example.com.' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return { problem: `The URL must start with https:// (or http:// for a local service), not ${url.protocol}//.` };
  }
  return { url };
}

/** A gateway base URL: http(s), no query string or fragment, no credentials. */
export function parseBaseUrl(raw: string): ParsedUrl {
  const parsed = parseHttpUrl(raw);
  const { url } = parsed;
  if (!url) return parsed;
  if (url.search || url.hash) return { problem: 'The base URL must not contain a query string or fragment.' };
  if (url.username || url.password) {
    return { problem: 'Do not put credentials in the URL; the client ID and secret are given separately and kept secret.' };
  }
  return { url };
}
