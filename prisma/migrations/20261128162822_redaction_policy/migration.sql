-- AlterTable
ALTER TABLE "ConversationMessage" ADD COLUMN     "original" TEXT;

-- CreateTable
CREATE TABLE "RedactionPolicy" (
    "orgId" UUID NOT NULL,
    "emails" BOOLEAN,
    "phones" BOOLEAN,
    "keepOriginals" BOOLEAN,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "RedactionPolicy_pkey" PRIMARY KEY ("orgId")
);

-- AddForeignKey
ALTER TABLE "RedactionPolicy" ADD CONSTRAINT "RedactionPolicy_orgId_fkey" FOREIGN KEY ("orgId") REFERENCES "Organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;
