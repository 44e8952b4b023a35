-- CreateIndex
CREATE INDEX "CallRequest_orgId_hoursTimedQueued_idx" ON "CallRequest"("orgId") WHERE (status = 'queued' AND "officeHoursOnly");
