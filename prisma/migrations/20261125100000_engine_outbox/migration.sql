-- Durable follow-ups: the work an engine change causes outside the rows it
-- locked (the parent of an ended subflow child, the next queued execution of
-- a flow with a concurrency limit, the children of a cancelled execution,
-- flow triggers). Written in the transaction of the change that causes it;
-- drained by any instance with FOR UPDATE SKIP LOCKED, each row deleted in
-- the transaction that did its work.
CREATE TABLE "engine_outbox" (
    "id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "engine_outbox_pkey" PRIMARY KEY ("id")
);
