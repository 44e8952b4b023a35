// GraphiQL on a browser GET of /graphql: served from node_modules (@graphql-yoga/render-graphiql inlines
// the editor, so no CDN is needed), opened on example operations. The page needs no credential, so it holds
// none: the user puts a key into its headers. Only with GRAPHIQL_DEMO_KEY, on the embedded demo database, and
// for a browser on this machine (http/loopback.ts) are the Downtown clinic's key and ids already there.
import type { GraphiQLOptions } from 'graphql-yoga';

export const GRAPHIQL_EXAMPLES = `# Office Communications Service — GraphQL
#
# Every field needs a credential: put yours into the Headers tab below,
#   {"Authorization": "Bearer <API key or OAuth access token>"}
# (the demo's keys are in data/demo-credentials.json, e.g.
# organizations.clinic.apiKey). Run an operation with the run button (▶).
# On the demo database, in a browser on the machine it runs on, the
# Variables tab already holds the Downtown clinic's id and this week's
# range; elsewhere the first operation gives the ids to put there.

# Who am I: the credential's organization, its children and scopes.
query Viewer {
  viewer {
    scopes
    organization {
      id
      name
      timezone
      isAccount
      childCount
      childrenConnection(first: 20) { edges { node { id name timezone } } pageInfo { hasNextPage endCursor } }
    }
  }
}

# One organization: its parent (null outside your reach),
# office hours and closures.
query Organization($id: ID!) {
  organization(id: $id) {
    id
    name
    communicationsEnabled
    parent { id name }
    officeHours { dayOfWeek isClosed open close breaks { start end reason greeting } }
    specialHours { id date description isClosed open close breaks { start end reason } }
    closures { id description startAt endAt annualDate { month day } chatGreeting phoneGreeting }
  }
}

# Is the office open now for phone calls; what does a caller hear?
query Availability($id: ID!) {
  organization(id: $id) {
    availability(medium: PHONE) {
      state
      officeOpen
      closure { description }
      specialHours { description }
      break { reason }
      greeting
      nextChangeAt
      availableTemplates { id name }
    }
  }
}

# A week view in one call: the intervals covering [from, to), in UTC,
# exact across daylight-saving changes (at most 31 days). On the demo,
# the Variables hold three weeks: the training afternoon (CLOSURE) and
# the flu-shot Saturday (its special hours) are in them.
query Week($id: ID!, $from: DateTime!, $to: DateTime!) {
  organization(id: $id) {
    availabilityTimeline(from: $from, to: $to, medium: PHONE) {
      timezone
      intervals { start end state greeting break { start end reason } closure { description } specialHours { description } }
    }
  }
}

# Live: the availability now, then again whenever it changes (at each
# nextChangeAt, and after every write to office hours, closures,
# templates…). Run it and leave it running; change the office hours in
# another tab and watch the next answer arrive (Server-Sent Events).
subscription LiveAvailability($id: ID!) {
  availabilityChanged(orgId: $id, medium: PHONE) {
    at
    state
    greeting
    nextChangeAt
  }
}

# The newest conversations, 20 at a time.
query Conversations {
  conversations(offset: 0, limit: 20) {
    items { conversationId medium status topic startTime }
    pagination { offset limit totalCount }
  }
}

# The same list by cursor (a Relay connection): run it, then put
# pageInfo.endCursor into the Variables tab as {"after": "…"} for the
# next page. A page deep in the list costs what the first one costs.
query ConversationsByCursor($after: String) {
  conversationsConnection(first: 20, after: $after) {
    totalCount
    edges { node { conversationId medium status topic startTime } }
    pageInfo { hasNextPage endCursor }
  }
}

# Workflow templates of your organization.
query Templates {
  templates { id name version applicableMediums officeHoursAvailability }
}

# Close the office every year on a holiday. To make a retry safe, add
#   "Idempotency-Key": "<any new id>"
# to the Headers: the same mutation sent again with that key answers the
# first result (Idempotent-Replayed: true) instead of a second closure.
mutation CreateClosure($id: ID!) {
  createClosure(
    orgId: $id
    input: {
      description: "Independence Day"
      annualDate: { month: 7, day: 4 }
      chatGreeting: null
      phoneGreeting: "We are closed for Independence Day."
    }
  ) {
    id
    description
  }
}
`;

/** The page's options: `demoApiKey` and `demoVariables` only for a browser that may have them (graphql/yoga.ts). */
export function graphiqlOptions(demoApiKey: string | undefined, demoVariables?: Record<string, string>): GraphiQLOptions {
  const headers = JSON.stringify(demoApiKey ? { Authorization: `Bearer ${demoApiKey}` } : { Authorization: 'Bearer <API key>' }, null, 2);
  const variables = JSON.stringify(
    demoVariables ?? { id: '<organization id, e.g. from Viewer>', from: '2026-03-09T00:00:00Z', to: '2026-03-16T00:00:00Z' },
    null,
    2,
  );
  return {
    title: 'Office Communications Service — GraphiQL',
    defaultQuery: GRAPHIQL_EXAMPLES,
    headers,
    // one tab with the examples, the headers and the variables every example takes (so ▶ alone runs each)
    defaultTabs: [{ query: GRAPHIQL_EXAMPLES, variables, headers }],
    // the editor's initial content (GraphiQL's own prop, passed through by yoga, like `headers`)
    ...({ variables } as Partial<GraphiQLOptions>),
    defaultEditorToolsVisibility: 'variables',
  };
}
