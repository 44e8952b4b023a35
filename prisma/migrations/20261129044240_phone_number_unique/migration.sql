CREATE UNIQUE INDEX "PhoneNumber_number_key" ON "PhoneNumber"("number");
