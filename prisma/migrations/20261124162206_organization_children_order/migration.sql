-- DropIndex
DROP INDEX "Organization_parentId_idx";

-- CreateIndex
CREATE INDEX "Organization_parentId_createdAt_id_idx" ON "Organization"("parentId", "createdAt", "id");
