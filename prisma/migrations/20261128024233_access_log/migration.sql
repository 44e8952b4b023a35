-- The access log (issue 36 §2): who read which transcript, append-only and hash-chained per organization,
-- and the scope transcripts:read (§1) granted to every credential that could read transcripts until now.
-- CreateTable
CREATE TABLE "AccessLogEntry" (
    "id" UUID NOT NULL,
    "orgId" UUID NOT NULL,
    "seq" INTEGER NOT NULL,
    "at" TIMESTAMP(3) NOT NULL,
    "credentialKind" TEXT NOT NULL,
    "credentialId" TEXT NOT NULL,
    "credentialName" TEXT NOT NULL,
    "conversationId" UUID NOT NULL,
    "surface" TEXT NOT NULL,
    "requestId" TEXT,
    "clientAddress" TEXT,
    "unredacted" BOOLEAN NOT NULL DEFAULT false,
    "prevHash" TEXT NOT NULL,
    "hash" TEXT NOT NULL,

    CONSTRAINT "AccessLogEntry_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "AccessLogEntry_orgId_at_idx" ON "AccessLogEntry"("orgId", "at");

-- CreateIndex
CREATE INDEX "AccessLogEntry_conversationId_idx" ON "AccessLogEntry"("conversationId");

-- CreateIndex
CREATE UNIQUE INDEX "AccessLogEntry_orgId_seq_key" ON "AccessLogEntry"("orgId", "seq");

-- Append-only: an entry is never changed nor removed through SQL (TRUNCATE, a maintenance act, is not a row
-- operation and stays possible, and the chain's verification reports what it finds broken).
-- The body is an escaped string, not $$…$$: the PostgreSQL driver adapter that applies migrations splits a script at
-- every semicolon, so the body spells its semicolons \073.
CREATE FUNCTION "access_log_append_only"() RETURNS trigger LANGUAGE plpgsql
  AS E'BEGIN RAISE EXCEPTION ''AccessLogEntry is append-only: % refused'', TG_OP\073 END\073';

CREATE TRIGGER "AccessLogEntry_append_only" BEFORE UPDATE OR DELETE ON "AccessLogEntry"
  FOR EACH ROW EXECUTE FUNCTION "access_log_append_only"();

-- Transcript text needs transcripts:read from now on: a credential that held conversations:read keeps what it
-- could do (a full API key holds every scope already).
UPDATE "ApiKey" SET "scopes" = array_append("scopes", 'transcripts:read')
  WHERE 'conversations:read' = ANY("scopes") AND NOT 'transcripts:read' = ANY("scopes");
UPDATE "OAuthClient" SET "scopes" = array_append("scopes", 'transcripts:read')
  WHERE 'conversations:read' = ANY("scopes") AND NOT 'transcripts:read' = ANY("scopes");
