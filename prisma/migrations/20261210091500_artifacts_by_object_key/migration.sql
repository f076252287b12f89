-- Output files of reused task runs (restart, replay) are artifact rows of the new execution pointing at
-- the same object: storage cleanup and retention ask whether any row still points at a key.
CREATE INDEX "artifacts_object_key_idx" ON "artifacts"("object_key");
