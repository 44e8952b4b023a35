-- CreateTable
CREATE TABLE "WebhookDispatch" (
    "id" INTEGER NOT NULL DEFAULT 1,
    "cursor" BIGINT NOT NULL DEFAULT 0,
    "owner" TEXT,
    "leaseUntil" TIMESTAMP(3),

    CONSTRAINT "WebhookDispatch_pkey" PRIMARY KEY ("id")
);

-- The dispatcher starts after the events recorded so far: those were fanned out to pending delivery rows
-- in their own transactions (the design before this one), which the deliveries lane goes on delivering.
INSERT INTO "WebhookDispatch" ("id", "cursor") SELECT 1, COALESCE(max("seq"), 0) FROM "Event";

-- Delivery rows are now written once, when a first attempt ends, and updated again only for a retry:
-- the room fillfactor 50 left on each page for claims of just-inserted rows is no longer used.
ALTER TABLE "WebhookDelivery" RESET (fillfactor);
