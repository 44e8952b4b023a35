-- CreateTable
CREATE TABLE "SpecialHours" (
    "id" UUID NOT NULL,
    "orgId" UUID NOT NULL,
    "date" TEXT NOT NULL,
    "description" TEXT NOT NULL,
    "isClosed" BOOLEAN NOT NULL,
    "open" TEXT,
    "close" TEXT,
    "breaks" JSONB NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "SpecialHours_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "SpecialHours_orgId_date_key" ON "SpecialHours"("orgId", "date");

-- AddForeignKey
ALTER TABLE "SpecialHours" ADD CONSTRAINT "SpecialHours_orgId_fkey" FOREIGN KEY ("orgId") REFERENCES "Organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;
