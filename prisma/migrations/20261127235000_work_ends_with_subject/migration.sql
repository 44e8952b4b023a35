-- Work ends with its subject (issue 39 §1, docs/decisions.md): a call request's expiry job is named by the
-- request's id and its lease's end by the lease's id, so that the transition to a final state deletes them.
-- Jobs written before carry random ids: those whose subject has ended go now (they would only have run to
-- find nothing to do), and the others take the name they would have today.
DELETE FROM "Job" j USING "CallRequest" c
WHERE j."kind" IN ('call_request.expire', 'call_request.lease')
  AND j."failedAt" IS NULL
  AND c."id"::text = j."payload"->>'callRequestId'
  AND (c."status" IN ('completed', 'failed', 'canceled', 'expired')
    OR (j."kind" = 'call_request.lease' AND c."leaseId"::text IS DISTINCT FROM j."payload"->>'leaseId'));

UPDATE "Job" SET "id" = ("payload"->>'callRequestId')::uuid
WHERE "kind" = 'call_request.expire' AND "failedAt" IS NULL AND "payload"->>'callRequestId' ~ '^[0-9a-f-]{36}$';

UPDATE "Job" SET "id" = ("payload"->>'leaseId')::uuid
WHERE "kind" = 'call_request.lease' AND "failedAt" IS NULL AND "payload"->>'leaseId' ~ '^[0-9a-f-]{36}$';
