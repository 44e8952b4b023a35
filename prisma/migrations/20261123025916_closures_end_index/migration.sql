-- CreateIndex
CREATE INDEX "Closure_orgId_endAt_idx" ON "Closure"("orgId", "endAt");
