// The main dashboard operations, as typed documents (codegen from schema.graphql): a schema change that
// breaks one of them breaks `npm run typecheck`, and these cases check what each answers on the demo data.
import { describe, expect, it } from 'vitest';
import { graphql } from '../generated/index.js';
import { useTestApp } from '../support/testApp.js';

const t = useTestApp();

const ViewerQuery = graphql(`
  query DashboardViewer {
    viewer {
      scopes
      organization {
        id
        name
        timezone
        isAccount
        communicationsEnabled
        children {
          id
          name
        }
      }
    }
  }
`);

const OrganizationTreeQuery = graphql(`
  query DashboardOrganizationTree($id: ID!) {
    organization(id: $id) {
      id
      name
      isAccount
      parent {
        id
        name
      }
      children {
        id
        name
        parent {
          id
        }
      }
    }
  }
`);

const TemplatesQuery = graphql(`
  query DashboardTemplates {
    templates {
      id
      name
      version
      applicableMediums
      officeHoursAvailability
      variables {
        name
        type
      }
      workflow {
        title
        steps {
          title
          order
          childSteps {
            title
          }
        }
      }
    }
  }
`);

const ConversationsQuery = graphql(`
  query DashboardConversations($offset: Int, $limit: Int, $includeChildren: Boolean) {
    conversations(offset: $offset, limit: $limit, includeChildren: $includeChildren) {
      items {
        conversationId
        orgId
        medium
        status
        startTime
      }
      pagination {
        offset
        limit
        totalCount
      }
    }
  }
`);

const CallRequestQuery = graphql(`
  query DashboardCallRequest($id: ID!) {
    callRequest(id: $id) {
      callRequestId
      status
      finishedAt
      error {
        category
        code
        message
      }
    }
  }
`);

const SetOfficeHoursMutation = graphql(`
  mutation DashboardSetOfficeHours($orgId: ID!, $input: SetOfficeHoursInput!) {
    setOfficeHours(orgId: $orgId, input: $input) {
      dayOfWeek
      isClosed
      open
      close
      breaks {
        start
        end
      }
    }
  }
`);

const CreateClosureMutation = graphql(`
  mutation DashboardCreateClosure($orgId: ID!, $input: CreateClosureInput!) {
    createClosure(orgId: $orgId, input: $input) {
      id
      description
      annualDate {
        month
        day
      }
    }
  }
`);

const OfficeStatusQuery = graphql(`
  query DashboardOfficeStatus($id: ID!, $at: DateTime, $phoneNumberId: ID) {
    organization(id: $id) {
      officeHours(dayOfWeek: MONDAY) {
        dayOfWeek
        isClosed
        open
        close
        breaks {
          start
          end
          reason
        }
      }
      closures {
        id
        description
      }
      availability(at: $at, medium: PHONE, phoneNumberId: $phoneNumberId) {
        state
        officeOpen
        localTime
        greeting
        nextChangeAt
        break {
          start
          end
        }
        closure {
          id
        }
        availableTemplates {
          name
        }
      }
    }
  }
`);

const OrganizationResourcesQuery = graphql(`
  query DashboardOrganizationResources($id: ID!) {
    organization(id: $id) {
      bots {
        id
        name
      }
      phoneNumbers {
        id
        number
        botId
        customGreeting
      }
      insurances {
        id
        name
        type
        status
      }
    }
  }
`);

const BotWorkflowsQuery = graphql(`
  query DashboardBotWorkflows($id: ID!) {
    bot(id: $id) {
      name
      workflows {
        title
        enabled
        steps {
          title
          childSteps {
            title
          }
        }
      }
    }
  }
`);

describe('dashboard GraphQL operations', () => {
  it('viewer: the credential owner, its children and scopes', async () => {
    const { organizations } = t.demo;
    const res = await t.gql(ViewerQuery, {}, { token: organizations.account.apiKey });
    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
    const viewer = res.body.data.viewer;
    expect(viewer.organization).toMatchObject({
      id: organizations.account.id,
      name: 'Bright Smiles Dental Group',
      isAccount: true,
      communicationsEnabled: true,
    });
    expect(viewer.organization.children.map((c) => c.id).sort()).toEqual([organizations.clinic.id, organizations.clinic2.id].sort());
    expect(viewer.scopes).toContain('conversations:read');
  });

  it('organization: a child reads its parent as null, the account reads both directions', async () => {
    const { organizations } = t.demo;
    const fromClinic = await t.gql(OrganizationTreeQuery, { id: organizations.clinic.id });
    expect(fromClinic.body.data.organization).toEqual({
      id: organizations.clinic.id,
      name: 'Bright Smiles Downtown',
      isAccount: false,
      parent: null,
      children: [],
    });

    const fromAccount = await t.gql(OrganizationTreeQuery, { id: organizations.account.id }, { token: organizations.account.apiKey });
    const account = fromAccount.body.data.organization!;
    expect(account.parent).toBeNull();
    expect(account.children).toHaveLength(2);
    expect(account.children.every((c) => c.parent?.id === organizations.account.id)).toBe(true);

    const child = await t.gql(OrganizationTreeQuery, { id: organizations.clinic2.id }, { token: organizations.account.apiKey });
    expect(child.body.data.organization?.parent).toEqual({ id: organizations.account.id, name: 'Bright Smiles Dental Group' });
  });

  it('organization: another tenant reads as NOT_FOUND, like a missing one', async () => {
    const res = await t.gql(OrganizationTreeQuery, { id: t.demo.organizations.other.id });
    expect(res.body.data.organization).toBeNull();
    expect(res.body.errors[0].extensions.code).toBe('NOT_FOUND');
  });

  it('organization { bots phoneNumbers insurances } and bot { workflows }', async () => {
    const { bots, phoneNumbers, insurances, organizations } = t.demo;
    const res = await t.gql(OrganizationResourcesQuery, { id: organizations.clinic.id });
    expect(res.body.errors).toBeUndefined();
    const org = res.body.data.organization!;
    expect(org.bots.map((b) => b.id).sort()).toEqual([...bots.clinic].sort());
    expect(org.phoneNumbers.map((p) => p.id).sort()).toEqual([...phoneNumbers.clinic].sort());
    expect(org.phoneNumbers.find((p) => p.id === phoneNumbers.clinic[0])).toMatchObject({ number: '+15550101', botId: bots.clinic[0] });
    expect(org.insurances.map((i) => i.id).sort()).toEqual([...insurances.clinic].sort());

    const bot = await t.gql(BotWorkflowsQuery, { id: bots.clinic[0]! });
    expect(bot.body.errors).toBeUndefined();
    expect(bot.body.data.bot?.workflows.length).toBeGreaterThan(0);
    expect(bot.body.data.bot?.workflows.some((w) => w.steps.some((step) => step.childSteps.length > 0))).toBe(true);

    const foreign = await t.gql(BotWorkflowsQuery, { id: bots.other[0]! });
    expect(foreign.body.errors[0].extensions.code).toBe('NOT_FOUND');
  });

  it('templates: the organization’s templates with their workflows', async () => {
    const res = await t.gql(TemplatesQuery);
    expect(res.body.errors).toBeUndefined();
    const templates = res.body.data.templates;
    expect(templates.map((x) => x.id).sort()).toEqual([...t.demo.templates.clinic].sort());
    const booking = templates.find((x) => x.name === 'Book an appointment')!;
    expect(booking).toMatchObject({
      version: 1,
      applicableMediums: [],
      officeHoursAvailability: 'OPEN',
      variables: [{ name: 'patientName', type: 'STRING' }],
    });
    expect(booking.workflow?.title).toBe('Book an appointment');
    expect(booking.workflow?.steps[0]?.childSteps.length).toBeGreaterThan(0);
  });

  it('conversations: one page, the same as the REST twin', async () => {
    const res = await t.gql(ConversationsQuery, { offset: 5, limit: 10 });
    expect(res.body.errors).toBeUndefined();
    const page = res.body.data.conversations;
    expect(page.pagination).toEqual({
      offset: 5,
      limit: 10,
      totalCount: t.demo.conversations.clinic.total - t.demo.conversations.clinic.archived,
    });
    expect(page.items).toHaveLength(10);
    expect(page.items.every((c) => c.orgId === t.demo.organizations.clinic.id)).toBe(true);

    const rest = await t.rest('GET', '/v1/conversations?offset=5&limit=10');
    expect(rest.body.data.conversations.map((c: { conversationId: string }) => c.conversationId)).toEqual(
      page.items.map((c) => c.conversationId),
    );
  });

  it('conversations: includeChildren gathers the account’s children', async () => {
    const { conversations, organizations } = t.demo;
    const res = await t.gql(ConversationsQuery, { includeChildren: true, limit: 100 }, { token: organizations.account.apiKey });
    expect(res.body.data.conversations.pagination.totalCount).toBe(
      conversations.clinic.total - conversations.clinic.archived + conversations.clinic2.total,
    );
  });

  it('callRequest: a failed request is data with its public error', async () => {
    const res = await t.gql(CallRequestQuery, { id: t.demo.callRequests.clinic.failed });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.callRequest).toMatchObject({
      callRequestId: t.demo.callRequests.clinic.failed,
      status: 'failed',
      error: { category: 'request', code: 'target_unavailable' },
    });
    expect(res.body.data.callRequest?.finishedAt).toEqual(expect.any(String));
  });

  it('organization { officeHours closures availability }: the office status a dashboard shows', async () => {
    const orgId = t.demo.organizations.clinic.id;
    const set = await t.gql(SetOfficeHoursMutation, {
      orgId,
      input: {
        dayOfWeek: 'MONDAY',
        isClosed: false,
        open: '9:00',
        close: '17:00',
        breaks: [{ start: '12:00', end: '13:00', reason: 'Lunch', greeting: 'We are at lunch until 1 pm.' }],
      },
    });
    expect(set.body.errors).toBeUndefined();
    expect(set.body.data.setOfficeHours).toEqual({
      dayOfWeek: 'MONDAY',
      isClosed: false,
      open: '09:00',
      close: '17:00',
      breaks: [{ start: '12:00', end: '13:00' }],
    });
    const closure = await t.gql(CreateClosureMutation, {
      orgId,
      input: {
        description: 'Independence Day',
        annualDate: { month: 7, day: 4 },
        chatGreeting: null,
        phoneGreeting: 'Closed for the holiday.',
      },
    });
    expect(closure.body.data.createClosure).toMatchObject({ description: 'Independence Day', annualDate: { month: 7, day: 4 } });

    // Monday 9 March 2026, 09:30 in New York (EDT since 8 March)
    const res = await t.gql(OfficeStatusQuery, { id: orgId, at: '2026-03-09T13:30:00Z', phoneNumberId: t.demo.phoneNumbers.clinic[0]! });
    expect(res.body.errors).toBeUndefined();
    const org = res.body.data.organization!;
    expect(org.officeHours).toEqual([
      { dayOfWeek: 'MONDAY', isClosed: false, open: '09:00', close: '17:00', breaks: [{ start: '12:00', end: '13:00', reason: 'Lunch' }] },
    ]);
    expect(org.closures).toEqual([{ id: closure.body.data.createClosure.id, description: 'Independence Day' }]);
    expect(org.availability).toMatchObject({
      state: 'OPEN',
      officeOpen: true,
      localTime: '2026-03-09T09:30',
      greeting: 'Thanks for calling Downtown main line, how can I help?',
      nextChangeAt: '2026-03-09T16:00:00Z',
      break: null,
      closure: null,
    });
    expect(org.availability.availableTemplates.map((x) => x.name).sort()).toEqual(['Book an appointment']);
  });
});
