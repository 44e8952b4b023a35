-- AlterEnum
ALTER TYPE "CallRequestStatus" ADD VALUE 'canceled';

-- AlterTable
ALTER TABLE "CallRequest" ADD COLUMN     "attempts" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "botId" UUID,
ADD COLUMN     "dueAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
ADD COLUMN     "leaseId" UUID,
ADD COLUMN     "leaseUntil" TIMESTAMP(3),
ADD COLUMN     "metadata" JSONB NOT NULL DEFAULT '{}',
ADD COLUMN     "notBefore" TIMESTAMP(3),
ADD COLUMN     "officeHoursOnly" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "phoneNumberId" UUID,
ADD COLUMN     "startedAt" TIMESTAMP(3),
ADD COLUMN     "to" TEXT NOT NULL DEFAULT '';

-- CreateTable
CREATE TABLE "ConversationMessage" (
    "id" UUID NOT NULL,
    "conversationId" UUID NOT NULL,
    "seq" INTEGER NOT NULL,
    "role" TEXT NOT NULL,
    "text" TEXT NOT NULL,
    "at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "ConversationMessage_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "ConversationMessage_conversationId_seq_key" ON "ConversationMessage"("conversationId", "seq");

-- CreateIndex
CREATE INDEX "CallRequest_status_dueAt_idx" ON "CallRequest"("status", "dueAt");

-- CreateIndex
CREATE INDEX "CallRequest_orgId_createdAt_id_idx" ON "CallRequest"("orgId", "createdAt" DESC, "id");

-- AddForeignKey
ALTER TABLE "ConversationMessage" ADD CONSTRAINT "ConversationMessage_conversationId_fkey" FOREIGN KEY ("conversationId") REFERENCES "Conversation"("id") ON DELETE CASCADE ON UPDATE CASCADE;
