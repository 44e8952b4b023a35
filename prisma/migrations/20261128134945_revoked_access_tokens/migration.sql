-- CreateTable
CREATE TABLE "RevokedAccessToken" (
    "jti" UUID NOT NULL,
    "clientId" TEXT NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "RevokedAccessToken_pkey" PRIMARY KEY ("jti")
);

-- CreateIndex
CREATE INDEX "RevokedAccessToken_clientId_expiresAt_idx" ON "RevokedAccessToken"("clientId", "expiresAt");

-- AddForeignKey
ALTER TABLE "RevokedAccessToken" ADD CONSTRAINT "RevokedAccessToken_clientId_fkey" FOREIGN KEY ("clientId") REFERENCES "OAuthClient"("clientId") ON DELETE CASCADE ON UPDATE CASCADE;
