// Security headers on every answer (OWASP's secure-headers set for an API):
//
// - `X-Content-Type-Options: nosniff`: a browser never reads a JSON answer as HTML or script;
// - `X-Frame-Options: DENY` and CSP `frame-ancestors 'none'`: no page of another site frames ours
//   (clickjacking on GraphiQL or the docs, whose pages act with the credential typed into them);
// - `Referrer-Policy: no-referrer`: URLs (ids) do not travel to other sites;
// - `Content-Security-Policy`: an API answer (JSON) may load nothing (`default-src 'none'`); an HTML page
//   (GraphiQL, /v1/docs) gets its own policy from pages.ts, which allows exactly its inline scripts.

export const API_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/** The headers of every JSON answer (the transport sets them on every answer: transport.ts). */
export const API_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Content-Security-Policy': API_CSP,
};
