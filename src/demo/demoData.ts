// The demo data set of docs/decisions.md §6: an account organization with two clinics, and an unrelated
// organization in another tenant, each with bots, phone numbers, insurances, templates, call
// requests and conversations. No office hours and no closures are pre-set.
import { createApiKey, createOAuthClient } from '../auth/provisioning.js';
import type { Db } from '../db/client.js';
import type { Prisma } from '../generated/prisma/client.js';
import { SCOPES } from '../domain/shared/access.js';

export interface DemoData {
  organizations: {
    account: { id: string; timezone: string; apiKey: string };
    clinic: { id: string; timezone: string; apiKey: string; parentId: string };
    clinic2: { id: string; timezone: string; apiKey: string; parentId: string };
    other: { id: string; timezone: string; apiKey: string };
  };
  oauthClients: {
    clinic: { clientId: string; clientSecret: string; scopes: string[] };
    clinicReadOnly: { clientId: string; clientSecret: string; scopes: string[] };
  };
  bots: { clinic: string[]; clinic2: string[]; other: string[] };
  phoneNumbers: { clinic: string[]; other: string[] };
  insurances: { clinic: string[]; other: string[] };
  templates: { clinic: string[]; other: string[] };
  callRequests: { clinic: { queued: string; failed: string; completed: string }; other: { queued: string } };
  conversations: {
    clinic: { total: number; archived: number };
    clinic2: { total: number; archived: number };
    other: { total: number; archived: number };
  };
  oauthAudience: string;
}

export class DatabaseNotEmptyError extends Error {
  constructor() {
    super('The database already holds organizations: the demo data set is created on an empty database only.');
  }
}

/** The workflow every demo template and bot has (also the OpenAPI document's example). */
export const sampleWorkflow = (title: string) => ({
  title,
  description: `${title} for new and returning patients`,
  enabled: true,
  usageContext: 'Use when the caller asks to book, move or cancel a visit.',
  order: 1,
  steps: [
    {
      title: 'Identify the patient',
      description: 'Ask for name and date of birth.',
      instructions: 'Confirm the spelling of the last name.',
      order: 1,
      examples: ['May I have your full name?', 'What is your date of birth?'],
      action: 'COLLECT_INFO',
      actionMetadata: { templateName: 'identify', templateBody: 'Name: {{name}}, DOB: {{dob}}' },
      childSteps: [
        {
          title: 'New patient',
          description: 'Collect insurance details.',
          instructions: 'Ask for the insurance carrier and member id.',
          order: 1,
          examples: ['Which insurance do you have?'],
          action: 'COLLECT_INFO',
          actionMetadata: { templateName: 'insurance', templateBody: 'Carrier: {{carrier}}' },
        },
      ],
    },
    {
      title: 'Offer a time',
      description: 'Propose the next open slots.',
      instructions: 'Offer at most three slots.',
      order: 2,
      examples: ['I have Tuesday at 10 or Wednesday at 2.'],
      action: 'SEND_SMS',
      actionMetadata: { templateName: 'confirmation', templateBody: 'Your visit is booked for {{time}}.' },
    },
  ],
});

async function createBotWithWorkflow(
  db: Prisma.TransactionClient,
  orgId: string,
  name: string,
  withWorkflow: boolean,
  createdAt?: Date,
): Promise<string> {
  const bot = await db.bot.create({ data: { orgId, name, createdAt } });
  if (withWorkflow) {
    const wf = sampleWorkflow(`${name} scheduling`);
    const workflow = await db.workflow.create({
      data: {
        botId: bot.id,
        title: wf.title,
        description: wf.description,
        enabled: wf.enabled,
        usageContext: wf.usageContext,
        order: wf.order,
      },
    });
    for (const step of wf.steps) {
      const parent = await db.workflowStep.create({
        data: {
          workflowId: workflow.id,
          title: step.title,
          description: step.description,
          instructions: step.instructions,
          order: step.order,
          examples: step.examples,
          action: step.action,
          templateName: step.actionMetadata.templateName,
          templateBody: step.actionMetadata.templateBody,
        },
      });
      for (const child of step.childSteps ?? []) {
        await db.workflowStep.create({
          data: {
            workflowId: workflow.id,
            parentStepId: parent.id,
            title: child.title,
            description: child.description,
            instructions: child.instructions,
            order: child.order,
            examples: child.examples,
            action: child.action,
            templateName: child.actionMetadata.templateName,
            templateBody: child.actionMetadata.templateBody,
          },
        });
      }
    }
  }
  return bot.id;
}

async function createConversations(
  db: Prisma.TransactionClient,
  orgId: string,
  botIds: string[],
  total: number,
  archived: number,
  base: Date,
): Promise<void> {
  const mediums = ['CHAT', 'PHONE', 'SMS', 'GHL'] as const;
  await db.conversation.createMany({
    data: Array.from({ length: total }, (_, i) => {
      // every seventh conversation shares its start with the previous one, so ordering ties occur
      const minutesAgo = i - (i % 7 === 6 ? 1 : 0);
      const startTime = new Date(base.getTime() - minutesAgo * 3_600_000);
      return {
        orgId,
        botId: botIds[i % botIds.length] ?? null,
        tags: i % 3 === 0 ? ['appointment'] : i % 3 === 1 ? ['billing', 'insurance'] : [],
        medium: mediums[i % mediums.length]!,
        toNumber: '+15550100',
        fromNumber: `+1555020${String(i).padStart(2, '0')}`,
        summary: `Conversation ${i + 1}`,
        topic: i % 2 ? 'Scheduling' : 'Billing',
        duration: 30 + i * 7,
        startTime,
        endTime: new Date(startTime.getTime() + (30 + i * 7) * 1000),
        status: i % 5 === 0 ? 'OPEN' : 'CLOSED',
        archived: i >= total - archived,
      };
    }),
  });
}

/**
 * Writes the demo data set in one transaction: a process killed half-way (the first `npm start`)
 * leaves an empty database, which the next start fills, never a partial set it would take for done.
 */
export async function createDemoData(db: Db, oauthAudience: string, now = new Date()): Promise<DemoData> {
  return db.$transaction((tx) => writeDemoData(tx, oauthAudience, now), { maxWait: 60_000, timeout: 60_000 });
}

async function writeDemoData(db: Prisma.TransactionClient, oauthAudience: string, now: Date): Promise<DemoData> {
  if ((await db.organization.count()) > 0) throw new DatabaseNotEmptyError();

  // creation times a millisecond apart, in the order below: organizations, bots, phone numbers and templates are
  // listed by creation time, and inserts in one transaction may otherwise share one millisecond (then their order
  // would be the random ids' order: seen as flaky lists of children and of templates on PostgreSQL)
  let tick = 0;
  const created = () => new Date(now.getTime() + tick++);
  const account = await db.organization.create({
    data: { name: 'Bright Smiles Dental Group', timezone: 'America/New_York', isAccount: true, createdAt: created() },
  });
  const clinic = await db.organization.create({
    data: { name: 'Bright Smiles Downtown', timezone: 'America/New_York', parentId: account.id, createdAt: created() },
  });
  const clinic2 = await db.organization.create({
    data: { name: 'Bright Smiles Lakeside', timezone: 'America/Chicago', parentId: account.id, createdAt: created() },
  });
  const other = await db.organization.create({ data: { name: 'Praxis am Park', timezone: 'Europe/Berlin', createdAt: created() } });

  const keys = {
    account: await createApiKey(db, account.id, 'Demo key'),
    clinic: await createApiKey(db, clinic.id, 'Demo key'),
    clinic2: await createApiKey(db, clinic2.id, 'Demo key'),
    other: await createApiKey(db, other.id, 'Demo key'),
  };
  const clinicClient = await createOAuthClient(db, clinic.id, SCOPES, 'Demo client');
  const readOnlyClient = await createOAuthClient(
    db,
    clinic.id,
    SCOPES.filter((s) => s.endsWith(':read')),
    'Demo read-only client',
  );

  const bots = {
    clinic: [
      await createBotWithWorkflow(db, clinic.id, 'Front desk', true, created()),
      await createBotWithWorkflow(db, clinic.id, 'After hours', true, created()),
    ],
    clinic2: [await createBotWithWorkflow(db, clinic2.id, 'Lakeside desk', true, created())],
    other: [await createBotWithWorkflow(db, other.id, 'Rezeption', true, created())],
  };

  const phone = (orgId: string, botId: string | null, number: string, name: string, greetings: boolean) =>
    db.phoneNumber.create({
      data: {
        orgId,
        botId,
        number,
        name,
        outbound: true,
        verifiedCallerId: number,
        callbackForwardingNumber: '+15550199',
        customGreeting: greetings ? `Thanks for calling ${name}, how can I help?` : '',
        customClosedGreeting: greetings ? `${name} is closed right now; leave a message and we will call you back.` : '',
        createdAt: created(),
      },
    });
  const phoneNumbers = {
    clinic: [
      (await phone(clinic.id, bots.clinic[0]!, '+15550101', 'Downtown main line', true)).id,
      (await phone(clinic.id, null, '+15550102', 'Downtown billing', true)).id,
    ],
    other: [(await phone(other.id, bots.other[0]!, '+4930555010', 'Praxis Hauptnummer', false)).id],
  };

  const insurance = (orgId: string, name: string, type: 'PPO' | 'HMO' | 'MEDICARE', status: 'IN_NETWORK' | 'ACCEPTED' | 'CAN_FILE') =>
    db.insurance.create({ data: { orgId, name, type, status, notes: `${name} notes`, createdAt: created() } });
  const insurances = {
    clinic: [
      (await insurance(clinic.id, 'Delta Dental', 'PPO', 'IN_NETWORK')).id,
      (await insurance(clinic.id, 'Aetna', 'HMO', 'ACCEPTED')).id,
    ],
    other: [(await insurance(other.id, 'AOK', 'MEDICARE', 'CAN_FILE')).id],
  };

  const template = (orgId: string, name: string, mediums: ('CHAT' | 'PHONE' | 'SMS' | 'GHL')[], availability: 'OPEN' | 'CLOSED' | null) =>
    db.workflowTemplate.create({
      data: {
        orgId,
        name,
        description: `${name} template`,
        variables: [{ name: 'patientName', type: 'STRING', description: 'The patient name' }],
        workflow: sampleWorkflow(name),
        applicableMediums: mediums,
        officeHoursAvailability: availability,
        createdAt: created(),
      },
    });
  const templates = {
    clinic: [
      (await template(clinic.id, 'Book an appointment', [], 'OPEN')).id,
      (await template(clinic.id, 'Take a message', ['PHONE', 'SMS'], 'CLOSED')).id,
      (await template(clinic.id, 'Answer billing questions', ['CHAT'], null)).id,
    ],
    other: [(await template(other.id, 'Termin buchen', [], null)).id],
  };

  const inOneHour = new Date(now.getTime() + 3_600_000);
  // placed as an integrator places one: a bot, its caller id and a destination (the simulated runtime's test numbers,
  // docs/calls.md: +15005550006 answers and talks, +15005550001 is unreachable)
  const placedBy = (orgId: string, botId: string, phoneNumberId: string, to: string) => ({ orgId, botId, phoneNumberId, to });
  const clinicCall = (to: string) => placedBy(clinic.id, bots.clinic[0]!, phoneNumbers.clinic[0]!, to);
  const callRequests = {
    clinic: {
      queued: (await db.callRequest.create({ data: { ...clinicCall('+15005550006'), status: 'queued', expiresAt: inOneHour } })).id,
      failed: (
        await db.callRequest.create({
          data: {
            ...clinicCall('+15005550001'),
            status: 'failed',
            expiresAt: inOneHour,
            finishedAt: now,
            errorCategory: 'request',
            errorCode: 'target_unavailable',
            errorMessage: 'The number called did not answer.',
          },
        })
      ).id,
      completed: '',
    },
    other: {
      queued: (
        await db.callRequest.create({
          data: { ...placedBy(other.id, bots.other[0]!, phoneNumbers.other[0]!, '+493055501099'), status: 'queued', expiresAt: inOneHour },
        })
      ).id,
    },
  };
  const base = new Date(Date.UTC(2026, 9, 1, 15, 0, 0));
  await createConversations(db, clinic.id, bots.clinic, 45, 5, base);
  await createConversations(db, clinic2.id, bots.clinic2, 7, 0, base);
  await createConversations(db, other.id, bots.other, 3, 0, base);
  const firstConversation = await db.conversation.findFirstOrThrow({ where: { orgId: clinic.id }, orderBy: { startTime: 'desc' } });
  callRequests.clinic.completed = (
    await db.callRequest.create({
      data: {
        ...clinicCall('+15005550006'),
        status: 'completed',
        expiresAt: inOneHour,
        finishedAt: now,
        conversationId: firstConversation.id,
      },
    })
  ).id;

  return {
    organizations: {
      account: { id: account.id, timezone: account.timezone, apiKey: keys.account.apiKey },
      clinic: { id: clinic.id, timezone: clinic.timezone, apiKey: keys.clinic.apiKey, parentId: account.id },
      clinic2: { id: clinic2.id, timezone: clinic2.timezone, apiKey: keys.clinic2.apiKey, parentId: account.id },
      other: { id: other.id, timezone: other.timezone, apiKey: keys.other.apiKey },
    },
    oauthClients: {
      clinic: { clientId: clinicClient.clientId, clientSecret: clinicClient.clientSecret, scopes: clinicClient.scopes },
      clinicReadOnly: { clientId: readOnlyClient.clientId, clientSecret: readOnlyClient.clientSecret, scopes: readOnlyClient.scopes },
    },
    bots,
    phoneNumbers,
    insurances,
    templates,
    callRequests,
    conversations: { clinic: { total: 45, archived: 5 }, clinic2: { total: 7, archived: 0 }, other: { total: 3, archived: 0 } },
    oauthAudience,
  };
}
