ALTER TABLE "Conversation" DROP CONSTRAINT "Conversation_botId_fkey";

ALTER TABLE "Bot" ADD COLUMN     "enabled" BOOLEAN NOT NULL DEFAULT true,
ADD COLUMN     "templateId" UUID,
ADD COLUMN     "templateVersion" INTEGER;

CREATE INDEX "Bot_templateId_idx" ON "Bot"("templateId");

ALTER TABLE "Bot" ADD CONSTRAINT "Bot_templateId_fkey" FOREIGN KEY ("templateId") REFERENCES "WorkflowTemplate"("id") ON DELETE NO ACTION ON UPDATE CASCADE;
