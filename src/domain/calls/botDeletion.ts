// Deleting a bot (docs/decisions.md §18). It lives with the calls because what stands in its way is calls: a bot is
// refused (409, saying what) while phone numbers are attached to it or call requests are queued for it, unless
// `force` detaches the numbers and cancels the requests, each with its own event, in the transaction of the delete.
// A call already started is never cut off: while one runs the bot is not deleted, forced or not.
//
// The bot's row is locked first: an attach waits for it and then finds no bot; a claim passes over its requests
// while they are locked here. A call placed at the very instant of the delete may still be queued for it (placing
// reads the bot without a lock, in one statement); such a request is never handed out (a claim hands out only
// the calls of bots that exist and are enabled) and expires.
import { z } from 'zod';
import type { ScheduleDeps } from '../schedule/deps.js';
import { type Actor, reaches, requireScope } from '../shared/access.js';
import { Conflict, NotFound, parseInput } from '../shared/errors.js';
import { uuidParam } from '../shared/ids.js';
import { booleanParam, withoutNulls } from '../shared/inputParams.js';
import { viewSchema } from '../shared/viewSchema.js';
import { recordEvent } from '../events/log.js';
import { botView } from '../catalog/bots.js';
import { detachLockedNumber } from '../catalog/phoneNumbers.js';
import { botWithParent, lockLiveCallsOfBot, lockPhoneNumber } from '../catalog/sql.js';
import { cancelable, cancelLockedCallRequest } from './callRequests.js';

/** Query of DELETE /v1/bots/{botId} and the arguments of GraphQL deleteBot. */
export const deleteBotInput = z.strictObject({
  force: booleanParam.describe(
    'Detach its phone numbers and cancel its call requests not yet started, rather than refuse (409) while it has any.',
  ),
});

export interface BotDeletion {
  id: string;
  deleted: true;
  /** The numbers `force` detached (they stay registered, answering for no bot). */
  detachedPhoneNumbers: string[];
  /** The call requests `force` canceled. */
  canceledCallRequests: string[];
}

export const botDeletionResponse = viewSchema<BotDeletion>()(
  z.object({
    id: z.uuid(),
    deleted: z.literal(true),
    detachedPhoneNumbers: z.array(z.uuid()).describe('The phone numbers `force` detached; they stay registered.'),
    canceledCallRequests: z.array(z.uuid()).describe('The call requests `force` canceled.'),
  }),
);

const TRANSACTION_OPTIONS = { maxWait: 20_000, timeout: 60_000 };

const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/**
 * Deletes a bot within reach with its workflows. Past conversations and calls keep its id. Scope bots:write; what
 * `force` does takes the scopes of doing it by hand too (phone-numbers:write, call-requests:write). Event bot.deleted.
 */
export async function deleteBot(deps: ScheduleDeps, actor: Actor, botId: string, input: unknown = {}): Promise<BotDeletion> {
  requireScope(actor, 'bots:write');
  const id = uuidParam('botId', botId);
  const { force } = parseInput(deleteBotInput, withoutNulls(input));
  const now = deps.clock();
  const { answer, orgId } = await deps.db.$transaction(async (tx) => {
    const [bot] = await botWithParent(tx, id, true);
    if (!bot || !reaches(actor, { id: bot.orgId, parentId: bot.parentId })) throw new NotFound('Bot');
    const numbers = await tx.phoneNumber.findMany({
      where: { botId: id },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      select: { id: true },
    });
    const callIds = (await lockLiveCallsOfBot(tx, bot.orgId, id)).map((c) => c.id);
    const calls = callIds.length
      ? await tx.callRequest.findMany({ where: { id: { in: callIds } }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] })
      : [];
    const started = calls.filter((c) => c.status === 'in_progress' && c.startedAt !== null).length;
    if (started > 0)
      throw new Conflict(`${count(started, 'call of this bot is', 'calls of this bot are')} in progress; delete it once they have ended`);
    const toCancel = calls.filter((c) => cancelable(c, now));
    if (!force && (numbers.length > 0 || toCancel.length > 0)) {
      const what = [
        numbers.length ? `${count(numbers.length, 'phone number', 'phone numbers')} attached` : '',
        toCancel.length ? `${count(toCancel.length, 'call request', 'call requests')} queued` : '',
      ].filter(Boolean);
      throw new Conflict(`Bot ${id} has ${what.join(' and ')}; detach and cancel them first, or delete with force=true`);
    }
    if (numbers.length > 0) requireScope(actor, 'phone-numbers:write');
    if (toCancel.length > 0) requireScope(actor, 'call-requests:write');

    const detachedPhoneNumbers: string[] = [];
    for (const { id: numberId } of numbers) {
      const [number] = await lockPhoneNumber(tx, numberId);
      // detached or moved meanwhile by the number's own writes: nothing left to do for this bot
      if (!number || number.botId !== id) continue;
      detachedPhoneNumbers.push((await detachLockedNumber(tx, deps, actor, number)).id);
    }
    const canceledCallRequests: string[] = [];
    for (const call of toCancel) canceledCallRequests.push((await cancelLockedCallRequest(tx, deps, actor, call, now)).callRequestId);
    await tx.bot.delete({ where: { id } });
    const answer: BotDeletion = { id, deleted: true, detachedPhoneNumbers, canceledCallRequests };
    const { parentId: _parentId, ...row } = bot;
    await recordEvent(tx, deps, actor, {
      type: 'bot.deleted',
      orgId: bot.orgId,
      subject: { type: 'bot', id },
      data: { ...botView(row), detachedPhoneNumbers, canceledCallRequests },
    });
    return { answer, orgId: bot.orgId };
  }, TRANSACTION_OPTIONS);
  if (answer.detachedPhoneNumbers.length > 0) deps.changes.publish({ kind: 'phoneNumbers', orgId });
  return answer;
}
