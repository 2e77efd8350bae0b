-- CreateIndex
CREATE INDEX "Change_recordId_version_idx" ON "Change"("recordId", "version");
