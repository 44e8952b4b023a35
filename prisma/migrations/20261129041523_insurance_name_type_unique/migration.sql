DROP INDEX "Insurance_orgId_name_idx";
CREATE UNIQUE INDEX "Insurance_orgId_name_type_key" ON "Insurance"("orgId", "name", "type");
