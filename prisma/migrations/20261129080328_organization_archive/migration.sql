ALTER TABLE "Organization" ADD COLUMN     "archivedAt" TIMESTAMP(3);
