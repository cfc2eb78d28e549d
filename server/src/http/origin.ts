// Origins, as a browser names the page a request comes from in its Origin header (RFC 6454): a scheme, a host and
// a port, nothing more.

/**
 * The origin `text` is, written as a browser writes it (`https://chat.example.com`: scheme and host in lowercase,
 * no default port; `chrome-extension://<id>` for an extension's pages), or null when it is no origin alone: a
 * URL with a path, query, fragment or user, no host (`file:///x`), not a URL, or `null` (a sandboxed page's).
 */
export function originOf(text: string): string | null {
  if (!URL.canParse(text) || /[?#]$/.test(text)) return null;
  const url = new URL(text);
  const bare =
    url.host !== '' &&
    url.username === '' &&
    url.password === '' &&
    url.search === '' &&
    url.hash === '' &&
    (url.pathname === '' || url.pathname === '/');
  return bare ? `${url.protocol}//${url.host}` : null;
}
