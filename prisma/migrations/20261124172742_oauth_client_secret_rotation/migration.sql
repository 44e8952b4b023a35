-- AlterTable
ALTER TABLE "OAuthClient" ADD COLUMN     "previousSecretExpiresAt" TIMESTAMP(3),
ADD COLUMN     "previousSecretHash" TEXT;
