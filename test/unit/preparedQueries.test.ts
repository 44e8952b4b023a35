// The store of compiled queries is bounded (least recently used out) and keyed by document and operation.
import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { PreparedQueries } from '../../src/graphql/preparedQueries.js';
import { schema } from '../../src/graphql/schema/index.js';

const documents = ['{ viewer { scopes } }', '{ viewer { organization { id } } }', '{ viewer { scopes organization { id } } }'];

describe('PreparedQueries', () => {
  it('keeps at most maxEntries, dropping the least recently used', () => {
    const store = new PreparedQueries(schema, 2);
    store.prepare(documents[0]!, parse(documents[0]!), undefined);
    store.prepare(documents[1]!, parse(documents[1]!), undefined);
    expect(store.get(documents[0]!, undefined)).toBeDefined(); // used: documents[1] is now the oldest
    store.prepare(documents[2]!, parse(documents[2]!), undefined);
    expect(store.size).toBe(2);
    expect(store.get(documents[0]!, undefined)).toBeDefined();
    expect(store.get(documents[1]!, undefined)).toBeUndefined();
    expect(store.get(documents[2]!, undefined)).toBeDefined();
  });

  it('keys by operation as well as by document, with its own metrics label and root fields', () => {
    const text = 'query Viewer { viewer { scopes } } query Other { a: viewer { organization { id } } b: viewer { scopes } }';
    const store = new PreparedQueries(schema);
    const viewer = store.prepare(text, parse(text), 'Viewer')!;
    expect(store.get(text, 'Other')).toBeUndefined();
    const other = store.prepare(text, parse(text), 'Other')!;
    expect(other).not.toBe(viewer);
    expect(store.get(text, 'Viewer')).toBe(viewer);
    expect([viewer.label, other.label]).toEqual(['Viewer', 'other']);
    expect([...other.rootKeys]).toEqual(['a', 'b']);
  });
});
