-- The credential that claimed a key: only it is answered a replay (idempotency/idempotentRequests.ts).
-- AlterTable
ALTER TABLE "IdempotencyKey" ADD COLUMN     "credential" TEXT;

-- Until now a stored answer held the secrets it showed (an API key, a client secret, a signing secret) in
-- clear for 24 h. From here on a replay answers the object without its secret, and the answers stored before
-- that hold a secret are replaced by a short answer saying the request was done (the write still never
-- runs twice). Matched by the secrets' shapes, so a GraphQL answer under any alias is found too.
UPDATE "IdempotencyKey"
SET
  "body" = CASE
    WHEN "request" LIKE 'POST /graphql%' THEN json_build_object(
      'data', NULL,
      'errors', json_build_array(json_build_object(
        'message', 'Done by request ' || "requestId" || ' (its answer showed a secret, which is shown only once): query the result to see the rest',
        'extensions', json_build_object('code', 'REPLAY_WITHHELD', 'requestId', "requestId")
      ))
    )::text
    ELSE json_build_object(
      'success', true,
      'data', NULL,
      'message', 'Done by request ' || "requestId" || ' (its answer showed a secret, which is shown only once): read the resource to see the rest'
    )::text
  END,
  "contentType" = 'application/json'
WHERE "body" ~ '(svc-sk-v[0-9]-[0-9A-Za-z]{43}|whsec_[A-Za-z0-9+/]{43}=|"[0-9A-Za-z]{48}")';
