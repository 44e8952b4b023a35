-- The calls in progress per organization and per family (issue 34 §6), so that claims check their cap against a
-- row locked for the last moment of their transaction instead of under a family-wide lock held throughout
-- (docs/decisions.md "Calls at once: counters kept by the database"). Triggers keep the rows in every
-- transaction that changes a request's status, whichever code path does it.

-- CreateTable
CREATE TABLE "CallLoad" (
    "orgId" UUID NOT NULL,
    "inProgress" INTEGER NOT NULL DEFAULT 0,
    "familyInProgress" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "CallLoad_pkey" PRIMARY KEY ("orgId")
);

-- AddForeignKey
ALTER TABLE "CallLoad" ADD CONSTRAINT "CallLoad_orgId_fkey" FOREIGN KEY ("orgId") REFERENCES "Organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- every organization has its row, with the calls in progress now
INSERT INTO "CallLoad" ("orgId", "inProgress", "familyInProgress")
SELECT o."id",
  (SELECT count(*) FROM "CallRequest" c WHERE c."orgId" = o."id" AND c."status" = 'in_progress')::int,
  CASE WHEN o."parentId" IS NULL THEN (
    SELECT count(*) FROM "CallRequest" c JOIN "Organization" m ON m."id" = c."orgId"
    WHERE (m."id" = o."id" OR m."parentId" = o."id") AND c."status" = 'in_progress')::int ELSE 0 END
FROM "Organization" o;

-- and every new one gets its row when it is created (a claim never has to create one: no lock order to break)
CREATE FUNCTION "call_load_for_new_organization"() RETURNS trigger LANGUAGE plpgsql AS E'
BEGIN
  INSERT INTO "CallLoad" ("orgId") VALUES (NEW."id") ON CONFLICT DO NOTHING\073
  RETURN NULL\073
END';

CREATE TRIGGER "call_load_for_new_organization" AFTER INSERT ON "Organization"
  FOR EACH ROW EXECUTE FUNCTION "call_load_for_new_organization"();

-- The function bodies are E'' strings with each semicolon written \073: the PostgreSQL driver adapter of the migration
-- engine splits a migration at every semicolon, dollar quotes or not.

-- A request entering or leaving in_progress moves its organization's count and its family's, in the
-- transaction of that change. Every writer locks the family's row first, then the organization's: two
-- transactions of one family never hold them in opposite orders (no deadlock).
CREATE FUNCTION "call_load_follows_status"() RETURNS trigger LANGUAGE plpgsql AS E'
DECLARE
  delta int\073
  org uuid\073
  root uuid\073
BEGIN
  IF TG_OP = ''INSERT'' THEN
    delta := 1\073 org := NEW."orgId"\073
  ELSIF TG_OP = ''DELETE'' THEN
    delta := -1\073 org := OLD."orgId"\073
  ELSIF OLD."status" = ''in_progress'' THEN
    delta := -1\073 org := OLD."orgId"\073
  ELSE
    delta := 1\073 org := NEW."orgId"\073
  END IF\073
  SELECT COALESCE(o."parentId", o."id") INTO root FROM "Organization" o WHERE o."id" = org\073
  IF root IS NULL THEN
    RETURN NULL\073 -- the organization is being deleted (its row goes with it)
  ELSIF root = org THEN
    UPDATE "CallLoad" SET "inProgress" = "inProgress" + delta, "familyInProgress" = "familyInProgress" + delta WHERE "orgId" = org\073
  ELSE
    UPDATE "CallLoad" SET "familyInProgress" = "familyInProgress" + delta WHERE "orgId" = root\073
    UPDATE "CallLoad" SET "inProgress" = "inProgress" + delta WHERE "orgId" = org\073
  END IF\073
  RETURN NULL\073
END';

CREATE TRIGGER "call_load_on_insert" AFTER INSERT ON "CallRequest"
  FOR EACH ROW WHEN (NEW."status" = 'in_progress') EXECUTE FUNCTION "call_load_follows_status"();
CREATE TRIGGER "call_load_on_delete" AFTER DELETE ON "CallRequest"
  FOR EACH ROW WHEN (OLD."status" = 'in_progress') EXECUTE FUNCTION "call_load_follows_status"();
CREATE TRIGGER "call_load_on_status" AFTER UPDATE OF "status" ON "CallRequest"
  FOR EACH ROW WHEN ((OLD."status" = 'in_progress') <> (NEW."status" = 'in_progress')) EXECUTE FUNCTION "call_load_follows_status"();
