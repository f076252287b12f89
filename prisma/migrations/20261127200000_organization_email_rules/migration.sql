-- Organization email rules: verified senders (the `from` of POST
-- /api/v1/emails must be one of them), a daily quota per organization with
-- its per-day counter, and the mail senders' presence (so the gateway can say
-- whether email sending is configured at all).
ALTER TABLE "organizations" ADD COLUMN "daily_quota" INTEGER;

-- CreateTable
CREATE TABLE "organization_senders" (
    "id" TEXT NOT NULL,
    "organization_id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "organization_senders_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "org_email_usage" (
    "organization_id" TEXT NOT NULL,
    "day" DATE NOT NULL,
    "count" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "org_email_usage_pkey" PRIMARY KEY ("organization_id","day")
);

-- CreateTable
CREATE TABLE "mail_sender_instances" (
    "instance_id" TEXT NOT NULL,
    "seen_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "mail_sender_instances_pkey" PRIMARY KEY ("instance_id")
);

-- CreateIndex
CREATE UNIQUE INDEX "organization_senders_organization_id_value_key" ON "organization_senders"("organization_id", "value");

-- AddForeignKey
ALTER TABLE "organization_senders" ADD CONSTRAINT "organization_senders_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "org_email_usage" ADD CONSTRAINT "org_email_usage_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Retention deletes emails by age.
CREATE INDEX "emails_created_at_idx" ON "emails"("created_at");
