-- File inputs (docs/using/files.md): a file uploaded for a flow input of type
-- file, kept under uploads/ in the object store until an execution uses it or
-- it expires.
CREATE TABLE "uploads" (
    "id" TEXT NOT NULL,
    "namespace" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "object_key" TEXT NOT NULL,
    "size" BIGINT NOT NULL,
    "sha256" TEXT NOT NULL,
    "created_by" TEXT,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(6) NOT NULL,

    CONSTRAINT "uploads_pkey" PRIMARY KEY ("id")
);

CREATE INDEX "uploads_expires_at_idx" ON "uploads"("expires_at");
