// A template's version under concurrent updates (docs/decisions.md §3): it grows by exactly one per update that
// changes the stored workflow definition, never otherwise; no bump is lost or doubled.
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/testApp.js';
import { graphql } from '../generated/index.js';

const t = useTestApp();

const workflow = (title: string) => ({ title, steps: [{ title: 'Greet', order: 1, childSteps: [{ title: 'Ask', order: 1 }] }] });

async function version(id: string): Promise<number> {
  const res = await t.gql(
    graphql(`
      query TemplatesConcurrencyTemplates {
        templates {
          id
          version
        }
      }
    `),
  );
  return (res.body.data.templates as { id: string; version: number }[]).find((tpl) => tpl.id === id)!.version;
}

describe('concurrent template updates', () => {
  it('20 concurrent PUTs that each change the workflow raise the version by exactly 20', async () => {
    const id = t.demo.templates.clinic[0]!;
    expect(await version(id)).toBe(1);
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => t.rest('PUT', `/v1/templates/${id}`, { json: { workflow: workflow(`Variant ${i}`) } })),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
    // each update saw its predecessor's bump: the answered versions are 2..21, each once
    expect(answers.map((a) => a.body.data.version).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 2));
    expect(await version(id)).toBe(21);
  });

  it('20 concurrent changes through both surfaces raise the version by exactly 20', async () => {
    const id = t.demo.templates.clinic[1]!;
    const mutation = 'mutation($id: ID!, $input: TemplateInput!) { updateTemplate(id: $id, input: $input) { version } }';
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        i % 2
          ? t.rest('PUT', `/v1/templates/${id}`, { json: { workflow: workflow(`REST ${i}`) } }).then((r) => r.body.data.version as number)
          : t
              .gql(mutation, { id, input: { workflow: workflow(`GraphQL ${i}`) } })
              .then((r) => r.body.data.updateTemplate.version as number),
      ),
    );
    expect(answers.sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 2));
    expect(await version(id)).toBe(21);
  });

  it('10 concurrent PUTs of the workflow already stored leave the version alone', async () => {
    const id = t.demo.templates.clinic[0]!;
    const stored = (
      await t.gql(
        '{ templates { id workflow { title description enabled usageContext order steps { title description instructions order examples action actionMetadata { templateName templateBody } childSteps { title description instructions order examples action actionMetadata { templateName templateBody } } } } } }',
      )
    ).body.data.templates.find((tpl: { id: string }) => tpl.id === id).workflow;
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => t.rest('PUT', `/v1/templates/${id}`, { json: { workflow: stored } })),
    );
    expect(answers.map((a) => [a.status, a.body.data.version])).toEqual(Array(10).fill([200, 1]));
    expect(await version(id)).toBe(1);
  });

  it('10 concurrent PUTs of one new workflow raise the version once', async () => {
    const id = t.demo.templates.clinic[0]!;
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => t.rest('PUT', `/v1/templates/${id}`, { json: { workflow: workflow('Same for all') } })),
    );
    expect(answers.every((a) => a.status === 200 && a.body.data.version === 2)).toBe(true);
    expect(await version(id)).toBe(2);
  });

  it('concurrent updates without a workflow keep the version', async () => {
    const id = t.demo.templates.clinic[2]!;
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => t.rest('PUT', `/v1/templates/${id}`, { json: { name: `Name ${i}` } })),
    );
    expect(answers.every((a) => a.status === 200 && a.body.data.version === 1)).toBe(true);
    expect(await version(id)).toBe(1);
  });
});
