-- AlterTable
ALTER TABLE "ConversationMessage" ADD COLUMN     "keyVersion" INTEGER;

-- CreateTable
CREATE TABLE "TranscriptDataKey" (
    "orgId" UUID NOT NULL,
    "version" INTEGER NOT NULL,
    "masterKeyId" TEXT NOT NULL,
    "wrapped" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "TranscriptDataKey_pkey" PRIMARY KEY ("orgId","version")
);

-- CreateIndex
CREATE INDEX "TranscriptDataKey_masterKeyId_idx" ON "TranscriptDataKey"("masterKeyId");

-- AddForeignKey
ALTER TABLE "TranscriptDataKey" ADD CONSTRAINT "TranscriptDataKey_orgId_fkey" FOREIGN KEY ("orgId") REFERENCES "Organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;
