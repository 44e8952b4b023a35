-- A claim looks at each organization's first due requests in claim order (dueAt, id) only: this index
-- answers them without reading, let alone sorting, the rest of its queue.
-- CreateIndex
CREATE INDEX "CallRequest_orgId_status_dueAt_id_idx" ON "CallRequest"("orgId", "status", "dueAt", "id");
