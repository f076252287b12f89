-- Live log streams resume from one number whatever the number of task runs:
-- each line gets `seq`, its place in the order its execution's lines were
-- stored. `log_sequences` holds each execution's last number; a batch takes
-- its numbers from that row, whose lock it holds until it commits, so the
-- lines of one execution commit in `seq` order and a reader that sees a line
-- sees every line numbered below it (no gap on resume).
CREATE TABLE "log_sequences" (
    "execution_id" TEXT NOT NULL,
    "seq" BIGINT NOT NULL,

    CONSTRAINT "log_sequences_pkey" PRIMARY KEY ("execution_id")
);

ALTER TABLE "log_sequences" ADD CONSTRAINT "log_sequences_execution_id_fkey" FOREIGN KEY ("execution_id") REFERENCES "executions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

ALTER TABLE "log_lines" ADD COLUMN "seq" BIGINT;

-- Lines stored before this migration are numbered in the log's order.
UPDATE "log_lines" l SET "seq" = o.seq
FROM (SELECT task_run_id, n, row_number() OVER (PARTITION BY execution_id ORDER BY ts, task_run_id, n) AS seq FROM "log_lines") o
WHERE l.task_run_id = o.task_run_id AND l.n = o.n;

INSERT INTO "log_sequences" ("execution_id", "seq")
SELECT l.execution_id, max(l.seq) FROM "log_lines" l JOIN "executions" e ON e.id = l.execution_id GROUP BY l.execution_id;

ALTER TABLE "log_lines" ALTER COLUMN "seq" SET NOT NULL;

-- The stream reads by (execution_id, seq); the old (execution_id, task_run_id, n) index served nothing the primary key does not.
DROP INDEX "log_lines_execution_id_task_run_id_n_idx";
CREATE INDEX "log_lines_execution_id_seq_idx" ON "log_lines"("execution_id", "seq");
