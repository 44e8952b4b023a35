-- AlterTable
ALTER TABLE "Bot" ADD COLUMN     "workflowsVersion" INTEGER NOT NULL DEFAULT 1;
