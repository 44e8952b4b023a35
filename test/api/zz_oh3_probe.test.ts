import { it } from 'vitest';
import { useTestApp } from '../support/testApp.js';
const t = useTestApp({ env: { LOG_LEVEL: 'error' } });
it('probe', async () => {
  const r = await t.gql(`mutation($orgId: ID!, $input: CreateClosureInput!) { createClosure(orgId: $orgId, input: $input) { id } }`, { orgId: t.demo.organizations.clinic.id, input: { description: 'x', color: 'red' } });
  console.log(r.status, JSON.stringify(r.body));
});
