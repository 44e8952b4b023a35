// A request target (`/path?query`) as node:http hands it over, read without building a URL.

/** The path of a request target (its query left out). */
export function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query < 0 ? url : url.slice(0, query);
}
