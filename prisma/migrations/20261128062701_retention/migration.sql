-- CreateTable
CREATE TABLE "RetentionPolicy" (
    "orgId" UUID NOT NULL,
    "transcriptsDays" INTEGER,
    "conversationsDays" INTEGER,
    "callRequestsDays" INTEGER,
    "eventsDays" INTEGER,
    "webhookDeliveriesDays" INTEGER,
    "requestLogsDays" INTEGER,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "RetentionPolicy_pkey" PRIMARY KEY ("orgId")
);

-- CreateIndex
CREATE INDEX "CallRequest_orgId_createdAt_idx" ON "CallRequest"("orgId", "createdAt");

-- CreateIndex
CREATE INDEX "Conversation_orgId_startTime_id_idx" ON "Conversation"("orgId", "startTime", "id");

-- CreateIndex
CREATE INDEX "Event_orgId_occurredAt_idx" ON "Event"("orgId", "occurredAt");

-- AddForeignKey
ALTER TABLE "RetentionPolicy" ADD CONSTRAINT "RetentionPolicy_orgId_fkey" FOREIGN KEY ("orgId") REFERENCES "Organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;
