// The write side of availability.changed (availabilityEvents.ts looks): a write that can change what an
// organization's availability answers asks for a look at once, in the statement that records its event
// (events.ts recordEvent), so that a committed change is looked at even if the process dies the next
// instant. One row per organization ("AvailabilityStatus"): asking while a look is pending changes
// nothing. An organization a write asks for first gets an empty record: what it said last is then taken
// as CLOSED, what an organization without hours answers.

/** The event families whose writes can change an organization's availability state. */
export const AVAILABILITY_INPUTS: ReadonlySet<string> = new Set(['office_hours.*', 'special_hours.*', 'closure.*']);
