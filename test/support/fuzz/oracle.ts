// What every answer must be, whatever was sent: a 2xx or a 4xx (never 5xx), JSON, and either the REST
// envelope `{success, data, message}` (data `{}` and a message on errors), a GraphQL result without an
// INTERNAL_SERVER_ERROR, or (for POST /oauth/token and /oauth/revoke) an RFC 6749 answer. Returns the problems found.
import type { FuzzTarget } from './target.js';
import { ERROR_CATALOGUE } from '../../../src/domain/shared/errorCodes.js';

export interface Answer {
  status: number;
  contentType: string;
  text: string;
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function envelopeProblems(status: number, body: Record<string, unknown>): string[] {
  const problems: string[] = [];
  const extra = Object.keys(body).filter((k) => !['success', 'data', 'message', 'code', 'errors'].includes(k));
  if (extra.length) problems.push(`envelope has unexpected keys ${extra.join(', ')}`);
  if (status < 300) {
    if (body.success !== true) problems.push('a 2xx without success: true');
    if (!('data' in body)) problems.push('a 2xx without data');
    if ('message' in body && typeof body.message !== 'string') problems.push('message is not a string');
  } else {
    if (body.success !== false) problems.push('an error without success: false');
    if (!isObject(body.data) || Object.keys(body.data).length > 0) problems.push('an error whose data is not {}');
    if (typeof body.message !== 'string' || body.message.trim() === '') problems.push('an error without a message');
    const entry = ERROR_CATALOGUE.find((e) => e.rest !== null && e.rest === body.code);
    if (!entry) problems.push(`an error without a code of the catalogue (${String(body.code)})`);
    else if (entry.status !== status) problems.push(`code ${entry.rest} answered with ${status}, not ${entry.status}`);
    if ('errors' in body) {
      const errors = body.errors;
      if (!Array.isArray(errors) || errors.some((e) => !isObject(e) || typeof e.path !== 'string' || typeof e.message !== 'string')) {
        problems.push('errors is not a list of {path, message}');
      }
    }
  }
  return problems;
}

/** The JSON results of a GraphQL answer: one document, or each event of an SSE / multipart answer. */
function graphQLResults(answer: Answer): unknown[] | undefined {
  if (answer.contentType.includes('text/event-stream')) {
    return answer.text
      .split('\n')
      .filter((l) => l.startsWith('data:'))
      .map((l) => l.slice(5).trim())
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l));
  }
  if (answer.contentType.includes('multipart/mixed')) {
    return answer.text
      .split(/\r?\n/)
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l));
  }
  const parsed = parseJson(answer.text);
  return parsed.ok ? [parsed.value] : undefined;
}

export function graphQLProblems(result: unknown): string[] {
  if (!isObject(result)) return ['a GraphQL answer that is not an object'];
  if (!('data' in result) && !('errors' in result)) return ['a GraphQL answer with neither data nor errors'];
  const problems: string[] = [];
  if ('errors' in result) {
    if (!Array.isArray(result.errors) || result.errors.length === 0) problems.push('errors is not a non-empty list');
    else {
      for (const e of result.errors) {
        if (!isObject(e) || typeof e.message !== 'string') problems.push('an error without a message');
        else if (isObject(e.extensions) && e.extensions.code === 'INTERNAL_SERVER_ERROR')
          problems.push(`INTERNAL_SERVER_ERROR: ${e.message}`);
      }
    }
  }
  return problems;
}

export function answerProblems(target: FuzzTarget, url: URL, answer: Answer): string[] {
  if (answer.status >= 500 || answer.status < 200 || (answer.status >= 300 && answer.status < 400)) return [`status ${answer.status}`];
  const json = answer.contentType.includes('json');
  // a trailing slash names the same resource (the app is not strict about it)
  const path = url.pathname.length > 1 ? url.pathname.replace(/\/$/, '') : url.pathname;
  if (target.surface === 'graphql' && path === '/graphql') {
    const results = graphQLResults(answer);
    if (!results || results.length === 0) return [`not a GraphQL answer (${answer.contentType})`];
    return results.flatMap((r) => (isObject(r) && 'success' in r ? envelopeProblems(answer.status, r) : graphQLProblems(r)));
  }
  // RFC 7009: a revocation's 200 has no body
  if (path === '/oauth/revoke' && answer.status === 200) return answer.text === '' ? [] : ['a revocation answer with a body'];
  if (!json) return [`content type ${answer.contentType || '(none)'} instead of JSON`];
  // a streamed export (NDJSON): each line a JSON object, every line ended
  if (answer.status === 200 && answer.contentType.startsWith('application/x-ndjson')) {
    if (answer.text !== '' && !answer.text.endsWith('\n')) return ['an NDJSON answer whose last line is not ended'];
    const lines = answer.text.split('\n').slice(0, -1);
    return lines.every((line) => {
      const parsed = parseJson(line);
      return parsed.ok && isObject(parsed.value);
    })
      ? []
      : ['an NDJSON line that is not a JSON object'];
  }
  const parsed = parseJson(answer.text);
  if (!parsed.ok || !isObject(parsed.value)) return ['a body that is not a JSON object'];
  const body = parsed.value;
  if ((path === '/oauth/token' || path === '/oauth/revoke') && !('success' in body)) {
    if (answer.status < 300) return typeof body.access_token === 'string' ? [] : ['a token answer without access_token'];
    return typeof body.error === 'string' ? [] : ['an OAuth error without error'];
  }
  // the start page (portal/landing.ts) answers its links, not the /v1 envelope
  if (path === '/' && answer.status === 200)
    return typeof body.name === 'string' && isObject(body.links) ? [] : ['a start page answer without its links'];
  return envelopeProblems(answer.status, body);
}
