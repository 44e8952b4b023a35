-- AlterTable
ALTER TABLE "Conversation" ADD COLUMN     "lastSeq" INTEGER NOT NULL DEFAULT 0;
