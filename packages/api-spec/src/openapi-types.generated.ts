// Generated from the OpenAPI document by openapi-typescript: do not edit.
// Regenerate: node --import tsx packages/api-spec/scripts/generate-types.ts
// (src/openapi-types.test.ts fails while this file is stale).
/* eslint-disable */

export interface paths {
    "/api/v1/auth/login": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Sign in with email and password; sets the svc_session cookie */
        post: operations["login"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/auth/logout": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Delete the current session */
        post: operations["logout"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/auth/me": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The principal of the credential */
        get: operations["getMe"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /** Update the own profile */
        patch: operations["updateMe"];
        trace?: never;
    };
    "/api/v1/auth/password": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Change the own password (also clears a temporary password) */
        post: operations["changePassword"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/auth/sessions/revoke-others": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Sign out every other session of the own account */
        post: operations["revokeOtherSessions"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/tokens": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the own API tokens (an admin may pass all=true to see every user's) */
        get: operations["listTokens"];
        put?: never;
        /**
         * Create an API token; the secret is shown once
         * @description The effective role of a token is the lower of its role and the current role of its owner. `role` defaults to the role of the caller (for a session, the current role of the user) and may not exceed it (403 `forbidden`), so a token cannot mint a stronger one.
         */
        post: operations["createToken"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/tokens/{tokenId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Revoke an own API token */
        delete: operations["revokeToken"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/users": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List users */
        get: operations["listUsers"];
        put?: never;
        /** Create a user */
        post: operations["createUser"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/users/{userId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /** Change the name, role or disabled flag of a user */
        patch: operations["updateUser"];
        trace?: never;
    };
    "/api/v1/users/{userId}/reset-password": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Give a user a temporary password */
        post: operations["resetUserPassword"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/executions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List executions, newest first */
        get: operations["listExecutions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/executions/{executionId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** An execution with its task runs */
        get: operations["getExecution"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/executions/{executionId}/artifacts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Artifacts uploaded by the task runs of an execution */
        get: operations["listExecutionArtifacts"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/executions/{executionId}/artifacts/{artifactId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Download one artifact */
        get: operations["downloadArtifact"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/executions/{executionId}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Cancel an execution (QUEUED: at once; RUNNING: via CANCELLING)
         * @description Writes the audit event `execution.cancel`.
         */
        post: operations["cancelExecution"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/executions/{executionId}/tasks/{taskKey}/approve": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Approve a task waiting at its approval gate (an extension): it runs
         * @description The task run waiting with reason `awaiting_approval` is queued at once. Records who, when, the form values and the comment (`tasks.<id>.approval` downstream). Allowed to a caller whose role on the flow's namespace reaches the gate's `approvers.role`, or who is in one of its `approvers.groups`; never through the AI assistant or MCP. Writes the audit event `execution.approve`.
         */
        post: operations["approveTaskRun"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/executions/{executionId}/tasks/{taskKey}/reject": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Reject a task waiting at its approval gate (an extension): it ends FAILED `rejected`
         * @description Same approvers as approveTaskRun. Tasks with `run_if: failure` downstream then run. Writes the audit event `execution.reject`.
         */
        post: operations["rejectTaskRun"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/executions/{executionId}/pause": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Pause a running execution (an extension): no new task run starts until it is resumed
         * @description Running task runs finish; queued ones wait; the execution stays RUNNING with reason `paused` and still counts against its flow's concurrency limit. Cancel still works. Pausing a paused execution changes nothing. Writes the audit event `execution.pause`.
         */
        post: operations["pauseExecution"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/executions/{executionId}/resume": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Resume a paused execution (an extension): it goes on where it stopped
         * @description Resuming an execution that is not paused changes nothing. Writes the audit event `execution.resume`.
         */
        post: operations["resumeExecution"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/executions/{executionId}/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Event stream of execution state changes
         * @description Sends `execution` events (data: the execution detail; id: a hash of the states) on each state change of the execution or a task run, `: keep-alive` after about 15 seconds without data, and `event: end` with data `{}` when the execution has ended. Resume with `Last-Event-ID`.
         */
        get: operations["streamExecutionEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/executions/{executionId}/insights": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** AI triage results of an execution */
        get: operations["listExecutionInsights"];
        put?: never;
        /** Ask the AI assistant to triage an execution */
        post: operations["requestTriage"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/executions/{executionId}/logs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A page of log lines */
        get: operations["getExecutionLogs"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/executions/{executionId}/logs/download": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** All log lines as text */
        get: operations["downloadExecutionLogs"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/executions/{executionId}/logs/stream": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Event stream of log lines
         * @description Sends `line` events (data: a LogLine; id: the read position of each task run), `: keep-alive` after about 15 seconds without data, and `event: end` with data `{}` when the execution has ended. With `Last-Event-ID`, only lines after that position are sent.
         */
        get: operations["streamExecutionLogs"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/executions/{executionId}/metrics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Custom metrics reported by the tasks of an execution */
        get: operations["listExecutionMetrics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/executions/{executionId}/rerun": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Run the same snapshot, definition, inputs and labels again; all tasks run
         * @description Allowed from SUCCESS, FAILED, TIMED_OUT, CANCELLED. Writes the audit event `execution.rerun`.
         */
        post: operations["rerunExecution"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/executions/{executionId}/restart": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Restart from failed: SUCCESS task runs are reused, the others run
         * @description Allowed from FAILED, TIMED_OUT, CANCELLED. Writes the audit event `execution.restart`.
         */
        post: operations["restartExecution"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/executions/{executionId}/replay": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Replay an ended execution (an extension): changed inputs and labels, from a task, on the pinned or latest revision
         * @description Allowed from SUCCESS, FAILED, TIMED_OUT, CANCELLED. With `from`, the tasks of the chosen revision that are neither `from` nor downstream of it and whose run in the original was SUCCESS are copied (reason `reused`, `reused_from_id` set); every other task runs. Without `from`, every task runs. The new execution has `trigger_type` `replay`, `replay_of` the original, and `trigger_payload.replay_of`. Writes the audit event `execution.replay` with the changed input ids (never their values).
         */
        post: operations["replayExecution"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/executions/bulk": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Cancel, rerun or restart the executions a filter selects (at most 1,000), or count them with dry_run
         * @description Acts only on the executions whose namespace the caller holds the operator role on (its global role, or role bindings); the others are neither touched nor counted, so a caller bound operator on some namespaces only may call it. A filter matching more than 1,000 executions is refused (422, naming the count): the dry run tells the count first. Each execution goes through the single operation (cancelExecution, rerunExecution, restartExecution) and writes its audit event (`execution.cancel`, `execution.rerun`, `execution.restart`); one more event, `execution.bulk`, records the request. An execution whose state refuses the action (a cancel of an ended one, a restart of a SUCCESS one) is reported with the single operation's error code and does not fail the others.
         */
        post: operations["bulkExecutions"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/flows": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List flows */
        get: operations["listFlows"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/flows/{namespace}/{flowId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A flow with its source and parsed definition */
        get: operations["getFlow"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Enable or disable a flow
         * @description A disabled flow gets 409 `flow_disabled` on trigger; its schedules and webhooks do not fire.
         */
        patch: operations["updateFlow"];
        trace?: never;
    };
    "/api/v1/flows/{namespace}/{flowId}/diff": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Diff between two revisions of a flow */
        get: operations["diffFlowRevisions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/flows/{namespace}/{flowId}/executions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Start an execution of a flow
         * @description Inputs are validated against the flow inputs at trigger time. Extension: the value of an input of `type: file` is the id of an upload of the flow's namespace (createUpload); an upload that is unknown there (another namespace's included) or expired is refused (422 on `inputs.<id>`). Each file input is listed in listExecutionArtifacts as kind `input`, named `<input id>/<file name>` (docs/using/files.md).
         */
        post: operations["triggerFlow"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/flows/{namespace}/{flowId}/executions/batch": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Start up to 1,000 executions of a flow in one request, each with its own inputs and labels
         * @description All or nothing: every item is validated as triggerFlow validates its body, and the executions are created in one transaction. A bad item fails the whole request (422 `validation_failed`, each problem named `items[<i>].inputs.<input>`) and nothing is created. The flow's concurrency rule applies to each item in order, as if each were triggered after the one before: an execution that finds the limit full is QUEUED (behavior `queue`) or SKIPPED (`skip`). Each execution writes its `execution.trigger` audit event, with `batch_size` and `batch_index` in its details. With `dry_run`, the flow and every item are checked the same way and nothing is created (200). More than 1,000 items is refused (422, field `items`); a body over the server's limit (SVC_MAX_BODY_BYTES) gets 413.
         */
        post: operations["triggerFlowBatch"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/flows/{namespace}/{flowId}/metrics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A custom metric over the last 50 executions, one series per `group_by` tag value */
        get: operations["getFlowMetrics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/flows/{namespace}/{flowId}/revisions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Revisions of a flow, newest first */
        get: operations["listFlowRevisions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/flows/{namespace}/{flowId}/revisions/{revisionId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One revision of a flow */
        get: operations["getFlowRevision"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/flows/{namespace}/{flowId}/stats": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The last 50 executions of the flow with state and duration */
        get: operations["getFlowStats"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/flows/{namespace}/{flowId}/triggers/{triggerId}/webhook-key": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Replace the key of a webhook trigger */
        post: operations["rotateWebhookKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/schedules/upcoming": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Next fire times of the active schedules */
        get: operations["listUpcomingSchedules"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/schemas/flow.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** JSON Schema (draft 2020-12) of a flow file */
        get: operations["getFlowSchema"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/stats/dashboard": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** KPIs, buckets, running executions and recent failures */
        get: operations["getDashboard"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/namespaces": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List namespaces */
        get: operations["listNamespaces"];
        put?: never;
        /** Create a namespace */
        post: operations["createNamespace"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/namespaces/{namespace}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A namespace */
        get: operations["getNamespace"];
        put?: never;
        post?: never;
        /** Delete a namespace with its files, secrets and variables */
        delete: operations["deleteNamespace"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/namespaces/{namespace}/allowed-callers": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Replace the namespaces whose flows may start this namespace's flows as subflows and listen to its executions
         * @description Extension (docs/operating/roles.md). A flow reaches its own namespace and its children only; each namespace listed here (covering its children) may reach this one too. Admins only; audited as `namespace.allowed_callers`.
         */
        put: operations["setNamespaceAllowedCallers"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/namespaces/{namespace}/changes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Save a change set of files as a new namespace version
         * @description A change set that leaves an invalid `*.flow.yaml` is refused with 422 `flow_invalid` (details use field `<path>:<json-pointer>`). So is a new or changed flow that names what its namespace may not reach: a subflow or flow trigger into a namespace that is neither its own nor a child, unless that namespace lists it in `allowed_callers`, or a `secret()` through a provider that does not serve the namespace.
         */
        post: operations["saveChanges"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/namespaces/{namespace}/diff": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Diff between two namespace versions */
        get: operations["diffVersions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/namespaces/{namespace}/file": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One file of a namespace version */
        get: operations["getFile"];
        /** Upload one file (raw bytes) as a new namespace version */
        put: operations["uploadFile"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/namespaces/{namespace}/files": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Files of a namespace version */
        get: operations["listFiles"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/namespaces/{namespace}/git": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The git source a namespace is mapped from, if any */
        get: operations["getNamespaceGit"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/namespaces/{namespace}/git/push": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Push a change set to a new branch of the mapped git repository
         * @description Commits the change set on top of the head of the mapped branch, in a new branch named from the message and a short id, and pushes it. The namespace itself is not changed.
         */
        post: operations["pushNamespaceBranch"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/namespaces/{namespace}/revert": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Save the files of an older version as a new version */
        post: operations["revertVersion"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/namespaces/{namespace}/run": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Run a namespace file as an execution with flow_id null */
        post: operations["runFile"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/namespaces/{namespace}/validate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Validate a file (a flow file against the flow schema and semantic rules) */
        post: operations["validateFile"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/namespaces/{namespace}/versions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Versions of a namespace, newest first */
        get: operations["listVersions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/namespaces/{namespace}/uploads": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Upload a file for a flow input of type file (raw bytes, streamed)
         * @description Extension (docs/using/files.md). The body is streamed to the object store, its size and sha256 computed on the way. With an `x-svc-sha256` header (64 hex digits), a body with another sha256 is refused (422 on that field) and nothing is kept; past SVC_MAX_INPUT_FILE_BYTES, 413 `too_large` and nothing is kept. The answer names the upload: trigger a flow of this namespace with its id as the value of a `file` input. An upload no execution used expires after 24 hours.
         */
        post: operations["createUpload"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/namespaces/{namespace}/secrets": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Keys of the secrets of a namespace (never values) */
        get: operations["listNamespaceSecrets"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/namespaces/{namespace}/secrets/{key}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /** Create or replace a namespace secret */
        put: operations["putNamespaceSecret"];
        post?: never;
        /** Delete a namespace secret */
        delete: operations["deleteNamespaceSecret"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/namespaces/{namespace}/secrets/{key}/check": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Check that a secret resolves from this namespace (namespace, parents, global) or its provider reference; says from which scope, never the value */
        post: operations["checkNamespaceSecret"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/namespaces/{namespace}/variables": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Variables of a namespace */
        get: operations["listNamespaceVariables"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/namespaces/{namespace}/variables/{key}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /** Create or replace a namespace variable */
        put: operations["putNamespaceVariable"];
        post?: never;
        /** Delete a namespace variable */
        delete: operations["deleteNamespaceVariable"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/secrets": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Keys of the global secrets (never values) */
        get: operations["listGlobalSecrets"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/secrets/{key}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /** Create or replace a global secret */
        put: operations["putGlobalSecret"];
        post?: never;
        /** Delete a global secret */
        delete: operations["deleteGlobalSecret"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/secrets/{key}/check": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Check that a global secret (or a provider reference) resolves; never the value */
        post: operations["checkGlobalSecret"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/variables": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Global variables */
        get: operations["listGlobalVariables"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/variables/{key}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /** Create or replace a global variable */
        put: operations["putGlobalVariable"];
        post?: never;
        /** Delete a global variable */
        delete: operations["deleteGlobalVariable"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/secret-providers": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Configured secret providers */
        get: operations["listSecretProviders"];
        put?: never;
        /** Add a secret provider */
        post: operations["createSecretProvider"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/secret-providers/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /** Replace the settings of a secret provider */
        put: operations["updateSecretProvider"];
        post?: never;
        /** Remove a secret provider */
        delete: operations["deleteSecretProvider"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/secret-providers/{name}/check": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Check that a secret provider answers */
        post: operations["checkSecretProvider"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/platform-secrets": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Names of the platform secrets (never values), and whether a flow-readable global secret has the same name */
        get: operations["listPlatformSecrets"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/platform-secrets/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /** Create or replace a platform secret (a credential of the git sources or single sign-on; no flow can read it) */
        put: operations["putPlatformSecret"];
        post?: never;
        /** Delete a platform secret (a git source or the SSO settings naming it stop authenticating) */
        delete: operations["deletePlatformSecret"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/git-sources": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Git sources */
        get: operations["listGitSources"];
        put?: never;
        /**
         * Add a git source and its namespace mappings
         * @description Missing mapped namespaces are created; the first sync is queued. Credentials are named (global secret keys), never sent.
         */
        post: operations["createGitSource"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/git-sources/{sourceId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A git source */
        get: operations["getGitSource"];
        /** Replace the settings of a git source */
        put: operations["updateGitSource"];
        post?: never;
        /** Remove a git source (its namespaces become writable) */
        delete: operations["deleteGitSource"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/git-sources/{sourceId}/runs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Sync runs of a git source, newest first */
        get: operations["listGitSyncRuns"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/git-sources/{sourceId}/sync": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Request a sync now
         * @description Queues a sync run (a run already queued for the source is returned instead); a sync worker runs it.
         */
        post: operations["syncGitSource"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/instances": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Instances with pools, executors and heartbeat (Online within 60 seconds) */
        get: operations["listInstances"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/storage": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Object store kind, usage and last cleanup */
        get: operations["getStorageStatus"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/audit": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Audit events, newest first (kept 365 days) */
        get: operations["listAuditEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/audit/export": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Every audit event the filters select, newest first, as NDJSON
         * @description The filters of listAuditEvents, without paging: one AuditEvent per line (`application/x-ndjson`), streamed as the events are read (keyset batches, so the export is never held in memory), as an attachment named `audit-<time>.ndjson`.
         */
        get: operations["exportAuditEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/ai/conversations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The own AI conversations */
        get: operations["listAIConversations"];
        put?: never;
        /** Start a conversation with the assistant */
        post: operations["createAIConversation"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/ai/conversations/{conversationId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A conversation with its messages */
        get: operations["getAIConversation"];
        put?: never;
        post?: never;
        /** Delete a conversation */
        delete: operations["deleteAIConversation"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/ai/conversations/{conversationId}/messages": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Send a message; the assistant turn comes back as an event stream */
        post: operations["sendAIMessage"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/ai/conversations/{conversationId}/actions/{actionId}/confirm": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Confirm an action the assistant proposed; it runs with the own role */
        post: operations["confirmAIAction"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/ai/conversations/{conversationId}/actions/{actionId}/reject": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Reject an action the assistant proposed */
        post: operations["rejectAIAction"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/ai/provider": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The AI provider settings (the API key is a secret reference) */
        get: operations["getAIProvider"];
        /** Configure the AI provider */
        put: operations["putAIProvider"];
        post?: never;
        /** Remove the AI provider (disables the assistant) */
        delete: operations["deleteAIProvider"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/ai/provider/test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Send a test prompt to the configured (or given) provider */
        post: operations["testAIProvider"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/ai/usage": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** AI usage of one UTC day (default today) per user and in total, with the daily limits */
        get: operations["getAIUsage"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/ai/status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Whether the assistant is enabled */
        get: operations["getAIStatus"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/organizations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Organizations of the email interface by name: keys (never the keys themselves), senders, quota and today's use, rate limit */
        get: operations["listOrganizations"];
        put?: never;
        /** Create an organization (as `svc org create`) */
        post: operations["createOrganization"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/organizations/{organization}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /** Set the organization's daily quota (0 stops its email; null for SVC_ORG_DAILY_QUOTA) and the namespaces whose alert rules may send as it (the whole list; each covers its children) */
        patch: operations["updateOrganization"];
        trace?: never;
    };
    "/api/v1/organizations/{organization}/keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Create a `svc_live_` key; the answer holds the key, shown this once */
        post: operations["createOrganizationKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/organizations/{organization}/keys/{keyId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Revoke a key at once (its next request is 401 on every gateway) */
        delete: operations["revokeOrganizationKey"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/organizations/{organization}/senders": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Add a verified sender: a domain (acme.example, not its subdomains) or an address */
        post: operations["addOrganizationSender"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/organizations/{organization}/senders/{sender}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Remove a verified sender (the next email from it is refused) */
        delete: operations["removeOrganizationSender"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/organizations/{organization}/emails": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Emails the organization sent, newest first, with their delivery status (not their text) */
        get: operations["listOrganizationEmails"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/alerts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Alert rules, newest first */
        get: operations["listAlertRules"];
        put?: never;
        /** Create an alert rule: a scope (a namespace and its children, or one flow), events and channels */
        post: operations["createAlertRule"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/alerts/{ruleId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One alert rule */
        get: operations["getAlertRule"];
        put?: never;
        post?: never;
        /** Delete an alert rule and its deliveries (pending ones are not sent) */
        delete: operations["deleteAlertRule"];
        options?: never;
        head?: never;
        /** Change an alert rule (the fields given) */
        patch: operations["updateAlertRule"];
        trace?: never;
    };
    "/api/v1/alerts/{ruleId}/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Deliveries of a rule, newest first, each with its attempts */
        get: operations["listAlertDeliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/flows/{namespace}/{flowId}/backfills": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The flow's backfills, newest first, with their progress */
        get: operations["listBackfills"];
        put?: never;
        /** Run a schedule trigger over a past range (or preview its fire times with dry_run); every execution is labelled `backfill:<id>` */
        post: operations["createBackfill"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/backfills/{backfillId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A backfill with its progress (done, running, failed, left) */
        get: operations["getBackfill"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/backfills/{backfillId}/pause": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Pause a running backfill: no new execution until resumed (those in flight go on) */
        post: operations["pauseBackfill"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/backfills/{backfillId}/resume": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Resume a paused backfill */
        post: operations["resumeBackfill"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/backfills/{backfillId}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Cancel a running or paused backfill: its fire times left are dropped and its executions in flight cancelled */
        post: operations["cancelBackfill"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/role-bindings": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Role bindings, by namespace, optionally of one namespace, user or group */
        get: operations["listRoleBindings"];
        put?: never;
        /** Give a user or an IdP group a role on a namespace and its children */
        post: operations["createRoleBinding"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/role-bindings/{bindingId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Delete a role binding */
        delete: operations["deleteRoleBinding"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/sso/status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Whether single sign-on is offered, and the name on its button (for the login page) */
        get: operations["getSsoStatus"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/sso/oidc": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The OpenID Connect settings (the client secret is named by its secret reference, never shown) */
        get: operations["getOidcSettings"];
        /** Write the OpenID Connect settings; the issuer's discovery document is read first (audited) */
        put: operations["putOidcSettings"];
        post?: never;
        /** Remove the OpenID Connect settings (SSO users keep their accounts; audited) */
        delete: operations["deleteOidcSettings"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/sso/oidc/link": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The IdP identities linked to the caller's own account */
        get: operations["getOidcLink"];
        put?: never;
        /** Start linking an IdP identity to the caller's own account (a browser session): answers the IdP's authorization URL; the callback links the identity that signs in there to this signed-in user (audited as user.sso_link) */
        post: operations["startOidcLink"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/sso/oidc/logout": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Sign out: ends the svc session, and names the IdP's logout URL when it has one */
        post: operations["oidcLogout"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/runner/v1/task-runs/{taskRunId}/spec": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** What to run: command, env, files, limits, values to mask */
        get: operations["runnerGetSpec"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/runner/v1/task-runs/{taskRunId}/bundle": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The namespace files of the pinned snapshot as an archive */
        get: operations["runnerGetBundle"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/runner/v1/task-runs/{taskRunId}/heartbeat": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** The runner is alive; the answer says whether to cancel */
        post: operations["runnerHeartbeat"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/runner/v1/task-runs/{taskRunId}/logs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Append log lines (already masked by the runner) */
        post: operations["runnerPostLogs"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/runner/v1/task-runs/{taskRunId}/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Report outputs, metrics and progress events */
        post: operations["runnerPostEvents"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/runner/v1/task-runs/{taskRunId}/artifacts/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Upload one artifact or output file (raw bytes, streamed)
         * @description The body is streamed to the object store, its size and sha256 computed on the way. With an `x-svc-sha256` header (64 hex digits), a body with another sha256 is refused (422 on that field) and nothing is kept; past SVC_MAX_ARTIFACT_BYTES, 413 and nothing is kept. `kind=output` stores an output file of the task (docs/using/files.md).
         */
        put: operations["runnerPutArtifact"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/runner/v1/task-runs/{taskRunId}/files/{artifactId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One file the task run reads: an output file of an upstream task or a file input (raw bytes, streamed)
         * @description Streamed from the object store, with `Content-Length` and `x-svc-sha256` (the sha256 recorded when it was stored). Only a file of the task run's own execution (or of the execution it was restarted or replayed from, for a reused task) is served: any other id answers 404, whatever namespace it belongs to. The runner checks the size and sha256 of what it received before the command starts (docs/using/files.md).
         */
        get: operations["runnerGetFile"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/runner/v1/task-runs/{taskRunId}/complete": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Report the end of the task process */
        post: operations["runnerComplete"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/hooks/{key}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Start the flow of a webhook trigger
         * @description The key in the path authorizes the call. Trigger inputs read `trigger.body` (this JSON body) and `trigger.headers`.
         */
        post: operations["webhookStart"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/hooks/git/{sourceId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Request a sync of a git source from a push notification
         * @description Authorized by a signature over the body made with the source’s webhook secret.
         */
        post: operations["gitPushWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /** @description The request was accepted */
        Acknowledged: {
            ok: boolean;
        } & {
            [key: string]: unknown;
        };
        /** @description An action the assistant proposed; it runs only when its user confirms it */
        AIAction: {
            id: string;
            /** @description save_flow, trigger_flow, cancel_execution, rerun_execution, restart_execution or replay_execution */
            tool: string;
            summary: string;
            /** @description The input of the tool */
            arguments: {
                [key: string]: unknown;
            };
            /** @description save_flow: the unified diff of the file, secret values masked */
            diff?: string;
            status: components["schemas"]["AIActionStatus"];
            /** @description The answer of the operation it ran (succeeded), masked */
            result?: unknown;
            /** @description Why it failed: `<code>: <message>` */
            error?: string;
            /** Format: date-time */
            created_at: string;
            /**
             * Format: date-time
             * @description When it was confirmed or rejected
             */
            decided_at: string | null;
        } & {
            [key: string]: unknown;
        };
        /** @description A confirmed action that ran */
        AIActionOutcome: {
            id: string;
            tool: string;
            /** @enum {string} */
            status: "succeeded";
            /** @description The answer of the operation it ran, masked */
            result: unknown;
        } & {
            [key: string]: unknown;
        };
        /**
         * @description `confirmed` while it runs
         * @enum {string}
         */
        AIActionStatus: "pending" | "confirmed" | "succeeded" | "failed" | "rejected";
        AIConversation: {
            id: string;
            title: string;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at?: string;
            /** @description getAIConversation and createAIConversation; not in lists */
            messages?: components["schemas"]["AIMessage"][];
            /** @description getAIConversation and createAIConversation; not in lists */
            actions?: components["schemas"]["AIAction"][];
        } & {
            [key: string]: unknown;
        };
        /** @description A message of a conversation */
        AIMessage: {
            id: string;
            /** @description Order in the conversation */
            seq: number;
            /** @enum {string} */
            role: "user" | "assistant" | "tool";
            /** @description The text; empty for tool messages */
            content: string;
            /** @description assistant: the tools it called; tool: what they answered */
            parts: components["schemas"]["AIMessagePart"][];
            /** @description assistant: the model that wrote it */
            model?: string;
            /** Format: date-time */
            created_at: string;
        } & {
            [key: string]: unknown;
        };
        /** @description A part of a stored message: a tool call of the assistant, or the answer of a tool */
        AIMessagePart: ({
            /** @enum {string} */
            type: "tool_call";
            id: string;
            /** @description The tool */
            name: string;
            /** @description The arguments as JSON text */
            arguments: string;
        } & {
            [key: string]: unknown;
        }) | ({
            /** @enum {string} */
            type: "tool_result";
            tool_call_id: string;
            /** @description The tool */
            name: string;
            /** @description What the tool answered, secret values masked (JSON text, or a truncated text) */
            content: string;
        } & {
            [key: string]: unknown;
        });
        AIProvider: {
            /** @description For example openai or anthropic */
            type: string;
            model: string;
            base_url?: string;
            /** @description Key of the global secret that holds the API key */
            api_key_secret?: string;
            /** @description Whether an API key is stored (it is never returned) */
            has_api_key?: boolean;
            auto_triage?: boolean;
        } & {
            [key: string]: unknown;
        };
        AIProviderRequest: {
            type: string;
            model: string;
            /** @description Base URL of an OpenAI-compatible or Anthropic endpoint; default the provider's own */
            base_url?: string;
            /** @description Write-only: stored sealed with the master key, never returned; null removes it, absent keeps it */
            api_key?: string | null;
            /** @description Key of a global secret holding the API key, instead of `api_key` */
            api_key_secret?: string;
            /** @description Triage FAILED and TIMED_OUT executions without being asked */
            auto_triage?: boolean;
        } & {
            [key: string]: unknown;
        };
        AIStatus: {
            enabled: boolean;
            provider?: string | null;
            model?: string | null;
            /** @description FAILED and TIMED_OUT executions are triaged without being asked */
            auto_triage?: boolean;
        } & {
            [key: string]: unknown;
        };
        /** @description AI requests (assistant turns, triages) and provider tokens of one UTC day, per user and in total, with the daily limits */
        AIUsage: {
            /** @description The UTC day, YYYY-MM-DD */
            day: string;
            /**
             * Format: date-time
             * @description When the day ends and its counts no longer apply
             */
            resets_at: string;
            /** @description SVC_AI_USER_REQUESTS_PER_DAY, SVC_AI_USER_TOKENS_PER_DAY, SVC_AI_TOTAL_REQUESTS_PER_DAY, SVC_AI_TOTAL_TOKENS_PER_DAY */
            limits: {
                user_requests: number;
                user_tokens: number;
                total_requests: number;
                total_tokens: number;
            };
            total: {
                requests: number;
                tokens: number;
            };
            users: ({
                /** @description A user's id, or 'auto' for automatic triage */
                user_id: string;
                email: string | null;
            } & {
                requests: number;
                tokens: number;
            })[];
        } & {
            [key: string]: unknown;
        };
        AlertDelivery: {
            /** @description Also X-Svc-Alert-Delivery of a webhook, and the id of an email */
            id: string;
            rule_id: string;
            /** @description `failed`, `timed_out`: an execution ended so; `recovered`: the first success of a flow after a failure; `late`: an execution still running `late_after_seconds` after its start, or a schedule `schedule_grace_seconds` past its due fire time; `approval_requested`: a task run started waiting for approval (an approval gate, an extension), with a link to the execution page */
            event: "failed" | "timed_out" | "recovered" | "late" | "approval_requested";
            /** @description The execution id, or `schedule:<namespace>/<flow>/<trigger>@<due time>` */
            subject: string;
            execution_id: string | null;
            namespace: string;
            flow_id: string | null;
            /** @description The index of the channel in the rule */
            channel: number;
            channel_type: "email" | "webhook" | "slack";
            /** @description Where it goes, without secrets: an address, a URL without its query, a secret name */
            target: string;
            status: "pending" | "sending" | "delivered" | "failed" | "suppressed";
            attempts: number;
            /** @description The last error, masked; empty when none */
            error: string;
            /**
             * Format: date-time
             * @description When a pending delivery is tried next
             */
            next_attempt_at: string | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            delivered_at: string | null;
            attempt_log: components["schemas"]["AlertDeliveryAttempt"][];
        };
        AlertDeliveryAttempt: {
            number: number;
            /** Format: date-time */
            at: string;
            ok: boolean;
            /** @description A webhook answer; null for an email */
            http_status: number | null;
            /** @description The answer or the error, masked */
            detail: string;
            duration_ms: number;
            /** @description The maintenance instance that tried */
            instance_id: string;
        };
        AlertEmailChannel: {
            /** @constant */
            type: "email";
            /** @description The organization of the email interface that sends it (its verified senders and daily quota apply) */
            organization: string;
            /** @description A verified sender of the organization */
            from: string;
            to: string;
        };
        AlertRule: {
            id: string;
            name: string;
            /** @description Dot-separated labels of lower case letters, digits, hyphens; at most 128 chars */
            namespace: string;
            /** @description Lower case letters, digits, hyphens; starts with a letter or digit */
            flow_id: string | null;
            events: ("failed" | "timed_out" | "recovered" | "late" | "approval_requested")[];
            /** @description late: how long an execution may run */
            late_after_seconds: number | null;
            /** @description late: how long past its due time a schedule may not have fired */
            schedule_grace_seconds: number | null;
            channels: (components["schemas"]["AlertEmailChannel"] | components["schemas"]["AlertWebhookChannel"] | components["schemas"]["AlertSlackChannel"])[];
            /** @description Alerts per hour; past it, further ones are recorded `suppressed` and not sent */
            rate_limit_per_hour: number;
            enabled: boolean;
            created_by: string;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
        };
        AlertSlackChannel: {
            /** @constant */
            type: "slack";
            /** @description The secret that holds the Slack-compatible incoming webhook URL (the URL is a credential) */
            url_secret: string;
        };
        AlertWebhookChannel: {
            /** @constant */
            type: "webhook";
            /** @description Receives a POST of the JSON message. A host that is or resolves to a loopback, private, link-local or other non-public address is refused (422 for a literal address or localhost, a failed delivery for a name) unless SVC_ALERT_ALLOW_PRIVATE_TARGETS is set; redirects are not followed */
            url: string;
            /** @description The secret whose value keys X-Svc-Alert-Signature: `sha256=` and the hex HMAC-SHA256 of `<X-Svc-Alert-Timestamp>.<body>` */
            signing_secret: string;
        };
        /** @description An API token without its secret */
        ApiToken: {
            id: string;
            name: string;
            role: components["schemas"]["Role"];
            /** @description The first 12 characters of the secret (`svc_` and 8 more), to tell tokens apart */
            prefix: string;
            /** @description The owner */
            user_id: string;
            user_email: string;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            expires_at: string | null;
            /** Format: date-time */
            last_used_at?: string | null;
            /** Format: date-time */
            revoked_at: string | null;
            /** @description Neither revoked nor expired */
            active: boolean;
        } & {
            [key: string]: unknown;
        };
        /** @description A new API token, with its secret shown this once */
        ApiTokenCreated: {
            id: string;
            name: string;
            role: components["schemas"]["Role"];
            /** @description The first 12 characters of the secret (`svc_` and 8 more), to tell tokens apart */
            prefix: string;
            /** @description The owner */
            user_id: string;
            user_email: string;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            expires_at: string | null;
            /** Format: date-time */
            last_used_at?: string | null;
            /** Format: date-time */
            revoked_at: string | null;
            /** @description Neither revoked nor expired */
            active: boolean;
            /** @description `svc_` + 43 base62 characters; shown only once */
            secret: string;
        } & {
            [key: string]: unknown;
        };
        Artifact: {
            id: string;
            /** @description The task run that made it; absent for a file input (kind `input`) */
            task_run_id?: string;
            /** @description The task that made it; absent for a file input (kind `input`) */
            task_key?: string;
            /** @description Its path; for a file input, `<input id>/<file name>` */
            name: string;
            /** Format: int64 */
            size: number;
            content_type?: string;
            /**
             * @description Extension: `artifact`, a file the task left in $SVC_ARTIFACTS_DIR; `output`, a file its `output_files` matched; `input`, a file input of the execution (the upload a trigger named; docs/using/files.md)
             * @enum {string}
             */
            kind?: "artifact" | "output" | "input";
            /** @description Extension: the sha256 (hex) of the content, computed as it was stored */
            sha256?: string;
            /** Format: date-time */
            created_at: string;
        } & {
            [key: string]: unknown;
        };
        AuditEvent: {
            id: string;
            /** @description For example execution.cancel */
            action: string;
            /** @description The actor's email, else its id, else its type */
            actor: string;
            actor_id: string | null;
            actor_type: string;
            /** @description `<type>:<id>`; absent when the action has no target */
            target?: string;
            payload?: {
                [key: string]: unknown;
            };
            /** @description Client address of the request; empty when none */
            ip: string;
            /** @description X-Request-Id of the request that did it */
            request_id: string;
            /** Format: date-time */
            created_at: string;
        } & {
            [key: string]: unknown;
        };
        Backfill: {
            id: string;
            namespace: string;
            flow_id: string;
            trigger_id: string;
            cron: string;
            timezone: string;
            /** Format: date-time */
            from: string;
            /** Format: date-time */
            to: string;
            max_in_flight: number;
            /** @enum {string} */
            state: "running" | "paused" | "cancelled" | "done";
            /** @description The label every execution of the backfill carries, as `key:value` (a listExecutions `label` filter) */
            label: string;
            progress: components["schemas"]["BackfillProgress"];
            created_by: string;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
            /** Format: date-time */
            ended_at: string | null;
        };
        BackfillPreview: {
            namespace: string;
            flow_id: string;
            trigger_id: string;
            cron: string;
            timezone: string;
            /** Format: date-time */
            from: string;
            /** Format: date-time */
            to: string;
            /** @description Fire times the backfill would create */
            total: number;
            /** @description The fire times in UTC, oldest first; the first 1000 when there are more */
            fire_times: string[];
        };
        BackfillProgress: {
            total: number;
            /** @description Executions ended SUCCESS (or SKIPPED by the flow concurrency rule) */
            done: number;
            /** @description Executions not ended (QUEUED, RUNNING, CANCELLING) */
            running: number;
            /** @description Executions ended FAILED, TIMED_OUT or CANCELLED, and fire times that made no execution */
            failed: number;
            /** @description Fire times with no execution yet */
            left: number;
            /** @description Fire times cancelled before they had an execution */
            cancelled: number;
        };
        /**
         * @description viewer < operator < editor < admin
         * @enum {string}
         */
        BindingRole: "viewer" | "operator" | "editor" | "admin";
        /**
         * @description What to do with each execution: as cancelExecution, rerunExecution or restartExecution
         * @enum {string}
         */
        BulkAction: "cancel" | "rerun" | "restart";
        /** @description At least one field must be set: an empty filter is refused (422), so that nothing acts on every execution by accident */
        BulkExecutionFilter: {
            /** @description Selects the namespace and its children */
            namespace?: string;
            /** @description A flow id, or `namespace/flow id` for one namespace's flow (as listExecutions' `flow`) */
            flow_id?: string;
            /** @description Any of these states */
            state?: components["schemas"]["ExecutionState"][];
            /** @description Every label must have this value */
            labels?: {
                [key: string]: string;
            };
            /**
             * Format: date-time
             * @description Created at or after this instant
             */
            from?: string;
            /**
             * Format: date-time
             * @description Created before this instant
             */
            to?: string;
        };
        /** @description One execution: `ok` with its state after a cancel or the new execution of a rerun or restart, or the error that refused it */
        BulkExecutionOutcome: {
            execution_id: string;
            ok: boolean;
            state?: components["schemas"]["ExecutionState"];
            /** @description rerun and restart: the execution created */
            new_execution_id?: string;
            /** @description Why the action was refused or failed on this execution */
            error?: {
                /** @description As the single action would answer it, e.g. `execution_ended`, `not_restartable` */
                code: string;
                message: string;
            };
        };
        BulkExecutionsRequest: {
            action: components["schemas"]["BulkAction"];
            filter: components["schemas"]["BulkExecutionFilter"];
            /**
             * @description Only count what the filter matches and what the action would refuse; change nothing
             * @default false
             */
            dry_run?: boolean;
        };
        BulkExecutionsResult: {
            action: components["schemas"]["BulkAction"];
            dry_run: boolean;
            /** @description Executions the filter selects among those the caller may act on (operator on their namespace) */
            matched: number;
            /** @description Most executions one bulk action acts on (1000) */
            limit: number;
            /** @description Of the matched, those whose state allows the action */
            eligible: number;
            /** @description Dry run only: the matched executions whose state refuses the action, newest first (among the newest 1000 matched) */
            ineligible?: components["schemas"]["BulkIneligibleExecution"][];
            /** @description Not on a dry run: one per matched execution, newest first */
            results?: components["schemas"]["BulkExecutionOutcome"][];
        };
        BulkIneligibleExecution: {
            execution_id: string;
            namespace: string;
            flow_id: string | null;
            state: components["schemas"]["ExecutionState"];
            /** @description The error code the single action would answer: `execution_ended` (cancel), `not_restartable` (rerun, restart) */
            reason: string;
            message: string;
        };
        ChangePasswordRequest: {
            current_password: string;
            new_password: string;
        };
        CreateAIConversationRequest: {
            title?: string;
        } & {
            [key: string]: unknown;
        };
        CreateAlertRuleRequest: {
            name: string;
            /** @description Dot-separated labels of lower case letters, digits, hyphens; at most 128 chars */
            namespace: string;
            /** @description Lower case letters, digits, hyphens; starts with a letter or digit */
            flow_id?: string | null;
            events: ("failed" | "timed_out" | "recovered" | "late" | "approval_requested")[];
            /** @description late: how long an execution may run */
            late_after_seconds?: number | null;
            /** @description late: how long past its due time a schedule may not have fired */
            schedule_grace_seconds?: number | null;
            channels: (components["schemas"]["AlertEmailChannel"] | components["schemas"]["AlertWebhookChannel"] | components["schemas"]["AlertSlackChannel"])[];
            /**
             * @description Alerts per hour (default 20); past it, further ones are recorded `suppressed` and not sent
             * @default 20
             */
            rate_limit_per_hour?: number;
            /** @default true */
            enabled?: boolean;
        };
        CreateBackfillRequest: {
            /** @description A `schedule` trigger of the flow; optional when the flow has exactly one */
            trigger_id?: string;
            /**
             * Format: date-time
             * @description Start of the range (included)
             */
            from: string;
            /**
             * Format: date-time
             * @description End of the range (included); not in the future
             */
            to: string;
            /**
             * @description Executions of the backfill not ended at any time, at most
             * @default 10
             */
            max_in_flight?: number;
            /**
             * @description Only preview the fire times (200), create nothing
             * @default false
             */
            dry_run?: boolean;
        };
        CreatedOrganizationKey: {
            id: string;
            /** @description The key, `svc_live_` and 43 characters: returned this once, stored only as its hash */
            key: string;
            prefix: string;
            name: string;
        };
        CreateNamespaceRequest: {
            /** @description Dot-separated labels of lower case letters, digits, hyphens; at most 128 chars */
            name: string;
            description?: string;
        } & {
            [key: string]: unknown;
        };
        CreateRoleBindingRequest: {
            /** @description Dot-separated labels of lower case letters, digits, hyphens; at most 128 chars */
            namespace: string;
            /** @description A user id or email; exactly one of `user` and `group` */
            user?: string;
            /** @description An IdP group name; exactly one of `user` and `group` */
            group?: string;
            role: components["schemas"]["BindingRole"];
        };
        CreateTokenRequest: {
            name: string;
            role?: components["schemas"]["Role"];
            expires_in_days?: number;
        };
        CreateUserRequest: {
            /** Format: email */
            email: string;
            name?: string;
            role: components["schemas"]["Role"];
            /** @description Default: a generated temporary password */
            password?: string;
        } & {
            [key: string]: unknown;
        };
        Dashboard: {
            /** @enum {string} */
            range: "24h" | "7d" | "30d";
            /** Format: date-time */
            from: string;
            /** Format: date-time */
            to: string;
            bucket_seconds: number;
            kpis: {
                executions: number;
                succeeded: number;
                failed: number;
                timed_out: number;
                cancelled: number;
                skipped: number;
                /** @description RUNNING or CANCELLING now; the range does not apply */
                running: number;
                /** @description SUCCESS / (SUCCESS + FAILED + TIMED_OUT) in the window; null when no execution ended SUCCESS, FAILED or TIMED_OUT */
                success_rate: number | null;
                /** @description Median (percentile_cont 0.5) of the durations of executions ended SUCCESS, FAILED or TIMED_OUT in the window; null without any */
                median_duration_ms: number | null;
            } & {
                [key: string]: unknown;
            };
            buckets: ({
                /**
                 * Format: date-time
                 * @description Start of the bucket (UTC); the bucket holds the executions whose end falls in [start, start + bucket_seconds)
                 */
                start: string;
                success: number;
                failed: number;
                timed_out: number;
                cancelled: number;
                skipped: number;
                /** @description percentile_cont 0.5 of the durations of SUCCESS, FAILED and TIMED_OUT executions; absent without any */
                p50_ms?: number;
                /** @description percentile_cont 0.95 of the same durations; absent without any */
                p95_ms?: number;
            } & {
                [key: string]: unknown;
            })[];
            /** @description Up to 20 in RUNNING or CANCELLING, oldest start first; the range does not apply */
            running: components["schemas"]["ExecutionSummary"][];
            /** @description Last 10 executions ended FAILED or TIMED_OUT; the range does not apply */
            recent_failures: ({
                id: string;
                state: components["schemas"]["ExecutionState"];
                namespace: string;
                flow_id?: string | null;
                /** @description The commit of the git sync that produced the flow revision; absent when a user saved it */
                git_sha?: string;
                /** Format: date-time */
                started_at?: string | null;
                /** Format: date-time */
                ended_at?: string | null;
                /** Format: int64 */
                duration_ms?: number | null;
                /** @description Summary of the latest finished AI triage; null until one exists */
                triage_summary: string | null;
            } & {
                [key: string]: unknown;
            })[];
        } & {
            [key: string]: unknown;
        };
        ErrorDetail: {
            /** @description Query or path parameter name, `body`, or a readable body path such as `changes[3].path` */
            field: string;
            message: string;
        };
        /** @description Every error response body */
        ErrorEnvelope: {
            error: {
                /** @description Stable machine-readable code, e.g. `not_found`, `validation_failed` */
                code: string;
                /** @description Human-readable message */
                message: string;
                /** @description Present only when the error has details */
                details?: components["schemas"]["ErrorDetail"][];
            };
        };
        /** @description One run of a flow (or of a namespace file) */
        Execution: {
            id: string;
            state: components["schemas"]["ExecutionState"];
            reason: string;
            error: string;
            namespace: string;
            /** @description Null for file runs */
            flow_id?: string | null;
            flow_revision_id?: string | null;
            git_sha?: string;
            snapshot_id: string;
            /** Format: int64 */
            snapshot_version?: number | null;
            /** @description Free-form input values */
            inputs: {
                [key: string]: unknown;
            };
            labels: {
                [key: string]: string;
            };
            outputs?: {
                [key: string]: unknown;
            } | null;
            parent_execution_id?: string | null;
            restart_of_id?: string | null;
            /** Format: int64 */
            chain_depth: number;
            children: components["schemas"]["ExecutionChild"][];
            /** Format: date-time */
            created_at: string;
            created_by: string;
            /** Format: date-time */
            started_at?: string | null;
            /** Format: date-time */
            ended_at?: string | null;
            /** Format: int64 */
            duration_ms?: number | null;
            secret_keys_used: string[];
            trigger_type: string;
            trigger_payload: {
                [key: string]: unknown;
            };
            task_runs: components["schemas"]["TaskRun"][];
            /** @description The execution is paused: no new task run starts until it is resumed (its reason is `paused`) */
            paused?: boolean;
            /** Format: date-time */
            paused_at?: string | null;
            paused_by?: string | null;
            /** @description The execution this one replays (replayExecution), else null */
            replay_of?: string | null;
        } & {
            [key: string]: unknown;
        };
        /** @description A child execution started by a subflow task */
        ExecutionChild: {
            id: string;
            state: string;
            /** Format: date-time */
            created_at: string;
        } & {
            [key: string]: unknown;
        };
        /** @description The execution a webhook started */
        ExecutionRef: {
            id: string;
            state: components["schemas"]["ExecutionState"];
        } & {
            [key: string]: unknown;
        };
        /**
         * @description Execution state
         * @enum {string}
         */
        ExecutionState: "QUEUED" | "RUNNING" | "CANCELLING" | "SUCCESS" | "FAILED" | "TIMED_OUT" | "CANCELLED" | "SKIPPED";
        ExecutionSummary: {
            id: string;
            state: components["schemas"]["ExecutionState"];
            namespace: string;
            flow_id?: string | null;
            /** @description The commit of the git sync that produced the flow revision; absent when a user saved it */
            git_sha?: string;
            /** Format: date-time */
            started_at?: string | null;
            /** Format: date-time */
            ended_at?: string | null;
            /** Format: int64 */
            duration_ms?: number | null;
        } & {
            [key: string]: unknown;
        };
        FileChange: {
            /** @enum {string} */
            op: "put" | "delete" | "rename";
            path: string;
            /** @description put only: UTF-8 text */
            content?: string;
            /** @description put only: binary content as base64, used instead of `content` */
            content_base64?: string;
            executable?: boolean;
            /** @description rename only */
            new_path?: string;
        };
        FileContent: {
            path: string;
            /** Format: int64 */
            size: number;
            executable: boolean;
            /** @description SHA-256 of the content, lower-case hex */
            sha256: string;
            /** @description UTF-8 text, when the file is text */
            content?: string;
            /** @description Binary content, when the file is not UTF-8 */
            content_base64?: string;
            /**
             * @description Which of `content` and `content_base64` is set
             * @enum {string}
             */
            encoding?: "utf8" | "base64";
            version?: number | null;
        } & {
            [key: string]: unknown;
        };
        /** @description One changed file of a namespace diff */
        FileDiff: {
            path: string;
            /** @enum {string} */
            status: "added" | "deleted" | "modified" | "mode_changed";
            /** @description One side is not UTF-8 text: no `diff` */
            binary: boolean;
            /** @description The executable flag on each side; null on the side where the file does not exist */
            executable: {
                from: boolean | null;
                to: boolean | null;
            } & {
                [key: string]: unknown;
            };
            /** @description Unified diff; absent for binary files, mode-only changes and `too_large` ones */
            diff?: string;
            /** @description The texts were too large or too different for a line diff: no `diff` */
            too_large?: boolean;
        } & {
            [key: string]: unknown;
        };
        FileEntry: {
            path: string;
            /** Format: int64 */
            size: number;
            executable: boolean;
            /** @description SHA-256 of the content, lower-case hex */
            sha256: string;
        } & {
            [key: string]: unknown;
        };
        /** @description A page of the files of a namespace version */
        FilePage: {
            items: components["schemas"]["FileEntry"][];
            /** @description Present when more rows follow; pass it back as `cursor`. */
            next_cursor?: string;
            /** @description Extension: the namespace version the files are of (the head unless `version` was asked); 0 before the first save */
            version: number;
        };
        Flow: {
            namespace: string;
            id: string;
            /** @description Path of the `*.flow.yaml` file in the namespace */
            path?: string;
            description?: string;
            labels?: {
                [key: string]: string;
            };
            enabled: boolean;
            /** @description Number of the current revision; null without one */
            revision?: number | null;
            revision_id?: string | null;
            task_count?: number;
            triggers?: components["schemas"]["FlowTrigger"][];
            /** Format: date-time */
            created_at?: string;
            /** Format: date-time */
            updated_at?: string | null;
            /** @description The YAML text of the flow file (getFlow); absent while the flow has no revision */
            source?: string;
            definition?: components["schemas"]["FlowFile"];
        } & {
            [key: string]: unknown;
        };
        FlowMetrics: {
            metric: string;
            /** @enum {string} */
            agg: "sum" | "avg" | "max";
            group_by?: string;
            series: ({
                tag_value: string | null;
                points: ({
                    execution_id: string;
                    /** Format: date-time */
                    created_at: string;
                    value: number;
                } & {
                    [key: string]: unknown;
                })[];
            } & {
                [key: string]: unknown;
            })[];
        } & {
            [key: string]: unknown;
        };
        FlowRevision: {
            id: string;
            /** @description Number of the revision in its flow */
            revision: number;
            /** @description Hash of the flow file text */
            hash: string;
            /** @description The namespace version that saved it; null when that version is gone */
            namespace_version?: number | null;
            created_by: string;
            /** Format: date-time */
            created_at: string;
            /** @description The YAML text (getFlowRevision; not in lists) */
            source?: string;
            definition?: components["schemas"]["FlowFile"];
        } & {
            [key: string]: unknown;
        };
        /** @description The line diff between two revisions of a flow */
        FlowRevisionDiff: {
            from: {
                id: string;
                revision: number;
            } & {
                [key: string]: unknown;
            };
            to: {
                id: string;
                revision: number;
            } & {
                [key: string]: unknown;
            };
            /** @description Unified diff of the two flow file texts */
            diff?: string;
            /** @description The texts were too large (over 1 MiB) or too different for a line diff: no `diff` */
            too_large?: boolean;
        } & {
            [key: string]: unknown;
        };
        FlowStats: {
            /** @description The last 50 executions, newest first */
            items: ({
                execution_id: string;
                state: components["schemas"]["ExecutionState"];
                /** Format: int64 */
                duration_ms: number | null;
                /** Format: date-time */
                created_at: string;
                /** Format: date-time */
                started_at: string | null;
                /** Format: date-time */
                ended_at: string | null;
            } & {
                [key: string]: unknown;
            })[];
        } & {
            [key: string]: unknown;
        };
        FlowSummary: {
            namespace: string;
            id: string;
            /** @description Path of the `*.flow.yaml` file in the namespace */
            path?: string;
            description?: string;
            labels?: {
                [key: string]: string;
            };
            enabled: boolean;
            /** @description Number of the current revision; null without one */
            revision?: number | null;
            revision_id?: string | null;
            task_count?: number;
            triggers?: components["schemas"]["FlowTrigger"][];
            /** Format: date-time */
            created_at?: string;
            /** Format: date-time */
            updated_at?: string | null;
        } & {
            [key: string]: unknown;
        };
        FlowTrigger: {
            id: string;
            /** @description `schedule`, `webhook` or `flow` */
            type: string;
            /** @description webhook triggers, editors and above (getFlow): the key of /hooks/{key}; null while the key is kept hashed only */
            webhook_key?: string | null;
            /** @description webhook triggers, editors and above (getFlow): the full URL of /hooks/{key}; null with the key */
            webhook_url?: string | null;
        } & {
            [key: string]: unknown;
        };
        /** @description A git repository synchronized into namespaces */
        GitSource: {
            id: string;
            name: string;
            repo_url: string;
            branch: string;
            auth_type: string;
            credential_secret_key: string;
            known_hosts: string;
            webhook_secret_key: string;
            webhook_url: string;
            last_error: string;
            last_sync_status: string;
            last_synced_sha: string;
            /** Format: int64 */
            poll_interval: number;
            /** @description Globs from the repository root (`*` and `?` within a segment, `**` across segments) that a branch push (pushNamespaceBranch) may write; empty: anything under the mapping's repo_path. CI configuration (.github/, .gitlab-ci.yml, .gitlab/, .circleci/, Jenkinsfile, .buildkite/, azure-pipelines.yml, .drone.yml, bitbucket-pipelines.yml, ...) is refused whatever they say */
            push_paths: string[];
            /** Format: date-time */
            last_sync_at?: string | null;
            mappings: components["schemas"]["GitSourceMapping"][];
        } & {
            [key: string]: unknown;
        };
        GitSourceMapping: {
            namespace: string;
            /** @description Directory in the repository; empty means the repository root */
            repo_path: string;
        };
        GitSourceRequest: {
            name: string;
            /** @description https://, http://, ssh://, git:// or file:// URL, or user@host:path; no credentials in it (an http(s) URL with user info is 422): name a platform secret in credential_secret_key */
            repo_url: string;
            /** @default main */
            branch?: string;
            /** @description For example none, token, ssh */
            auth_type?: string;
            /** @description The platform secret (PUT /api/v1/platform-secrets/{name}) holding the credential; a global or namespace secret, which flows can read, is 422 */
            credential_secret_key?: string;
            known_hosts?: string;
            /** @description The platform secret whose value signs push notifications; a global or namespace secret, which flows can read, is 422 */
            webhook_secret_key?: string;
            /**
             * Format: int64
             * @description Seconds; 0 disables polling
             */
            poll_interval?: number;
            /** @description Globs from the repository root (`*` and `?` within a segment, `**` across segments) that a branch push (pushNamespaceBranch) may write; empty: anything under the mapping's repo_path. CI configuration (.github/, .gitlab-ci.yml, .gitlab/, .circleci/, Jenkinsfile, .buildkite/, azure-pipelines.yml, .drone.yml, bitbucket-pipelines.yml, ...) is refused whatever they say */
            push_paths?: string[];
            mappings: {
                namespace: string;
                repo_path: string;
            }[];
        } & {
            [key: string]: unknown;
        };
        GitSyncRun: {
            id: string;
            source_id: string;
            /** @description `manual`, `webhook`, `poll` or `push` */
            trigger?: string;
            /** @description `queued`, `running`, `success`, `no_change` or `failed` */
            status: string;
            sha?: string;
            error?: string;
            /** Format: date-time */
            started_at?: string | null;
            /** Format: date-time */
            ended_at?: string | null;
        } & {
            [key: string]: unknown;
        };
        /** @description An AI triage of an execution */
        Insight: {
            id: string;
            execution_id: string;
            state: components["schemas"]["InsightState"];
            /** @description Set when `done` */
            summary?: string | null;
            /** @description Empty until `done` */
            probable_cause?: string;
            /** @description Empty until `done` */
            suggested_fix?: string;
            /** @description The whole answer as Markdown, with its evidence; empty until `done` */
            details?: string;
            /** @description What the triage was given, each item marked `cited` or not */
            evidence?: components["schemas"]["InsightEvidence"][];
            /** @description The model that answered; empty until it ran */
            model?: string;
            /** @description Why it `failed` */
            error?: string;
            /** @description The requesting user's id, or `auto` for automatic triage */
            requested_by?: string;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            completed_at?: string | null;
        } & {
            [key: string]: unknown;
        };
        /** @description One item of evidence a triage was given */
        InsightEvidence: {
            /** @description E1, E2, ... in the order given to the model */
            id: string;
            /** @enum {string} */
            kind: "execution" | "task_run" | "log_tail" | "flow_definition" | "changes_since_success";
            title: string;
            /** @description The text given to the model, secret values masked */
            content: string;
            /** @description The answer rests on it (every item when the model cited none) */
            cited?: boolean;
            /** @description The execution it comes from (of the last success, for changes_since_success) */
            execution_id?: string;
            /** @description task_run and log_tail: the task run */
            task_run_id?: string;
            task_key?: string;
            attempt?: number;
            /** @description log_tail: the sequence number (`n`) of each line of `content`, in order */
            lines?: number[];
        } & {
            [key: string]: unknown;
        };
        /**
         * @description `pending`: requested (by a user, or claimed by automatic triage), not started yet; `running`: its evidence is being collected and the model asked; `done`: the model answered (`summary`, `probable_cause`, `suggested_fix`, `details` and `evidence` set); `failed`: it ended without an answer, `error` says why (no provider, the model or provider failed, or a daily AI limit was reached before it ran)
         * @enum {string}
         */
        InsightState: "pending" | "running" | "done" | "failed";
        Instance: {
            id: string;
            hostname: string;
            version: string;
            /** @description The app the instance runs: `api-gateway`, `scheduler`, `dispatcher` or `maintenance` */
            kind: string;
            pools: string[];
            executors: string[];
            /** Format: date-time */
            started_at: string;
            /** Format: date-time */
            last_heartbeat_at: string;
            /**
             * Format: date-time
             * @description Set when the instance shut down cleanly; null while it runs or if it died
             */
            stopped_at: string | null;
            /** @description Last heartbeat at most 60 seconds old */
            online: boolean;
            /**
             * @description `online` as the spec words it
             * @enum {string}
             */
            status: "Online" | "Offline";
        } & {
            [key: string]: unknown;
        };
        LoginRequest: {
            email: string;
            password: string;
        };
        /** @description One log line (data of a `line` stream event) */
        LogLine: {
            task_run_id: string;
            task_key: string;
            attempt: number;
            /**
             * Format: int64
             * @description Sequence number within the task run
             */
            n: number;
            /** @description RFC 3339 timestamp with nanosecond precision */
            ts: string;
            /** @description For example `stdout` or `stderr` */
            stream: string;
            /** @description Secret values are masked with `***` */
            text: string;
        } & {
            [key: string]: unknown;
        };
        /** @description The principal of the credential */
        Me: {
            id: string;
            email: string;
            name: string;
            role: components["schemas"]["Role"];
            /**
             * @description Kind of credential of this request
             * @enum {string}
             */
            auth_type: "token" | "session";
            /** @description True while the user has a temporary password */
            must_change_password: boolean;
            /** @description Extension: the namespaces (and their children) where a role binding raises the caller above `role`, with the role it has there (for a token, at most its own); absent when there is none. For `none`, the only namespaces it may read */
            role_bindings?: {
                namespace: string;
                role: components["schemas"]["BindingRole"];
            }[];
        } & {
            [key: string]: unknown;
        };
        /** @description A custom metric reported by a task */
        MetricValue: {
            task_run_id: string;
            /** @description The task that reported it */
            task_key: string;
            name: string;
            value: number;
            tags: {
                [key: string]: string;
            };
            /**
             * Format: date-time
             * @description When the task run reported it (its end)
             */
            at: string;
        } & {
            [key: string]: unknown;
        };
        Namespace: {
            name: string;
            description?: string;
            /** @description True when mapped from a git source */
            read_only?: boolean;
            head_version?: number | null;
            /** Format: date-time */
            created_at?: string;
            /** @description Extension: namespaces, each covering its children, whose flows may start this namespace's flows as subflows and listen to its executions with flow triggers; set by admins with setNamespaceAllowedCallers */
            allowed_callers?: string[];
        } & {
            [key: string]: unknown;
        };
        /** @description The per-file diffs between two versions of a namespace */
        NamespaceDiff: {
            namespace: string;
            /** @description The version diffed from */
            from: number;
            /** @description The version diffed to (default the head) */
            to: number;
            /** @description The files whose bytes or executable flag differ, by path */
            files: components["schemas"]["FileDiff"][];
        } & {
            [key: string]: unknown;
        };
        NamespaceGit: {
            read_only: boolean;
            /** @description The git source this namespace is mapped from; null when it is not mapped */
            source?: components["schemas"]["NamespaceGitSource"] | null;
        } & {
            [key: string]: unknown;
        };
        /** @description The git source a namespace is mapped from, with its mapping and last sync (fields of the git source) */
        NamespaceGitSource: {
            id: string;
            name: string;
            repo_url: string;
            branch: string;
            /** @description The directory of the repository mapped to the namespace; empty for the root */
            repo_path: string;
            /** @description Empty before the first sync */
            last_synced_sha: string;
            /** Format: date-time */
            last_sync_at: string | null;
            last_sync_status: string;
            /** @description Empty when the last sync did not fail */
            last_error: string;
        } & {
            [key: string]: unknown;
        };
        /** @description One saved version of a namespace */
        NamespaceVersion: {
            id: string;
            version?: number | null;
            author: string;
            message: string;
            /** Format: date-time */
            created_at: string;
            file_count: number;
            manifest_hash: string;
            git_sha?: string;
        } & {
            [key: string]: unknown;
        };
        OidcSettings: {
            /** @description Whether "Sign in with <display_name>" is offered */
            enabled: boolean;
            /** @description The name on the login button */
            display_name: string;
            /** @description The issuer identifier; its /.well-known/openid-configuration is read (https, or http on a loopback address) */
            issuer_url: string;
            client_id: string;
            /** @description The name of the platform secret (PUT /api/v1/platform-secrets/{name}) that holds the client secret; a global or namespace secret or a provider reference, which flows can read, is 422. The value is never shown */
            client_secret_secret: string;
            /** @description Requested scopes; `openid` is always added */
            scopes: string[];
            /** @description The ID token or userinfo claim that holds the groups (a dotted path such as `realm_access.roles`) */
            groups_claim: string;
            /** @description Users who signed in through SSO may not sign in with a password */
            password_login_disabled: boolean;
            default_role: components["schemas"]["Role"];
            /** @description IdP group → global role; at every SSO login the user gets the highest role of their groups, else default_role */
            group_roles: {
                /** @description A value of the groups claim */
                group: string;
                role: components["schemas"]["Role"];
            }[];
            /** @description An IdP identity not linked yet whose verified email is an existing user's is linked to that user at login. Never to an admin. Off (the default): such a login is refused (`link_required`) and the user links the identity from their profile */
            link_by_email: boolean;
            /** @description Lower-case email domains (exact, no subdomains) an SSO login's email must have; empty: any */
            allowed_email_domains: string[];
            /** @description The Google Workspace domain every ID token's `hd` claim must equal; empty: not checked */
            google_hd: string;
            /** @description The Microsoft Entra tenant id every ID token's `tid` claim must equal; empty: not checked */
            entra_tid: string;
            /** @description An SSO login never creates a user: only users already linked (or linked now by email) sign in */
            existing_users_only: boolean;
            /** @description A session an SSO login creates ends this long after the login, however it is used; null: only SVC_SESSION_TTL after its last use */
            session_max_age_seconds: number | null;
            /** @description The redirect URI to register at the IdP */
            redirect_uri: string;
            updated_by: string;
            /** Format: date-time */
            updated_at: string;
        };
        /** @description Omitted fields take their defaults, except `default_role` and the sign-up controls (`link_by_email`, `allowed_email_domains`, `google_hd`, `entra_tid`, `existing_users_only`, `session_max_age_seconds`), which keep their stored values when omitted (defaults for new settings: `none`, off, empty, null) */
        OidcSettingsRequest: {
            /** @description Whether "Sign in with <display_name>" is offered */
            enabled?: boolean;
            /** @description The name on the login button */
            display_name: string;
            /** @description The issuer identifier; its /.well-known/openid-configuration is read (https, or http on a loopback address) */
            issuer_url: string;
            client_id: string;
            /** @description The name of the platform secret (PUT /api/v1/platform-secrets/{name}) that holds the client secret; a global or namespace secret or a provider reference, which flows can read, is 422. The value is never shown */
            client_secret_secret: string;
            /** @description Requested scopes; `openid` is always added */
            scopes?: string[];
            /** @description The ID token or userinfo claim that holds the groups (a dotted path such as `realm_access.roles`) */
            groups_claim?: string;
            /** @description Users who signed in through SSO may not sign in with a password */
            password_login_disabled?: boolean;
            default_role?: components["schemas"]["Role"];
            /** @description IdP group → global role; at every SSO login the user gets the highest role of their groups, else default_role */
            group_roles?: {
                /** @description A value of the groups claim */
                group: string;
                role: components["schemas"]["Role"];
            }[];
            /** @description An IdP identity not linked yet whose verified email is an existing user's is linked to that user at login. Never to an admin. Off (the default): such a login is refused (`link_required`) and the user links the identity from their profile */
            link_by_email?: boolean;
            /** @description Lower-case email domains (exact, no subdomains) an SSO login's email must have; empty: any */
            allowed_email_domains?: string[];
            /** @description The Google Workspace domain every ID token's `hd` claim must equal; empty: not checked */
            google_hd?: string;
            /** @description The Microsoft Entra tenant id every ID token's `tid` claim must equal; empty: not checked */
            entra_tid?: string;
            /** @description An SSO login never creates a user: only users already linked (or linked now by email) sign in */
            existing_users_only?: boolean;
            /** @description A session an SSO login creates ends this long after the login, however it is used; null: only SVC_SESSION_TTL after its last use */
            session_max_age_seconds?: number | null;
        };
        Organization: {
            id: string;
            name: string;
            /** Format: date-time */
            created_at: string;
            daily_quota: {
                /** @description The organization's own quota; null: SVC_ORG_DAILY_QUOTA */
                own: number | null;
                /** @description Emails per UTC day that apply */
                limit: number;
                used_today: number;
            };
            rate_limit: {
                own: number | null;
                /** @description Requests per second shared by all keys (own, else SVC_ORG_RATE_LIMIT) */
                per_second: number;
            };
            senders: components["schemas"]["OrganizationSender"][];
            /** @description Namespaces whose alert rules may send as the organization, each covering its children (`team` covers `team.etl`); empty: none */
            namespaces: string[];
            keys: components["schemas"]["OrganizationKey"][];
        };
        OrganizationEmail: {
            id: string;
            /** @description The key that sent it; null once that key is gone */
            key_id: string | null;
            from: string;
            to: string;
            subject: string;
            /** @description `queued`, `sending`, `sent` or `failed` */
            status: string;
            attempts: number;
            /** @description The last delivery error; empty when none */
            error: string;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            sent_at: string | null;
        };
        OrganizationKey: {
            id: string;
            /** @description The first characters of the key (svc_live_ and six more), to tell keys apart; the key itself is never returned again */
            prefix: string;
            name: string;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            last_used_at: string | null;
            /** Format: date-time */
            revoked_at: string | null;
        };
        OrganizationSender: {
            kind: "domain" | "address";
            value: string;
        };
        PlatformSecret: {
            name: string;
            /** @description Id of the master key that sealed the value (rotation) */
            key_id: string;
            /** @description Copied by the upgrade from the global secret of the same name and still sealed as it was; `svc secrets rewrap` seals it again as a platform secret */
            upgraded_from_global: boolean;
            /** @description A global secret of the same name exists: flows can read that one, so the credential is not out of their reach until an admin deletes it */
            global_copy: boolean;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
            /** @description Id of the user who wrote it last; empty when unknown */
            updated_by: string;
        };
        PushNamespaceBranchRequest: {
            changes: components["schemas"]["FileChange"][];
            message: string;
        };
        PushNamespaceBranchResponse: {
            branch: string;
            sha: string;
        } & {
            [key: string]: unknown;
        };
        PutPlatformSecretRequest: {
            /** @description The value; never returned, logged or audited */
            value: string;
        };
        PutSecretRequest: {
            value: string;
        } & {
            [key: string]: unknown;
        };
        PutVariableRequest: {
            value: string;
        } & {
            [key: string]: unknown;
        };
        /** @description What a replay would reuse and run */
        ReplayPlan: {
            reuse: {
                task_id: string;
                /** @description The original's run that is copied (reason `reused`) */
                task_run_id: string;
            }[];
            /** @description The tasks that run */
            run: string[];
            /** @description The inputs of the new execution (a value the original read from secret() stays `***`) */
            inputs: {
                [key: string]: unknown;
            };
            /** @description The labels of the new execution */
            labels: {
                [key: string]: string;
            };
            /** @description Input ids whose value differs from the original's */
            changed_inputs: string[];
            revision: {
                /** @enum {string} */
                kind: "pinned" | "latest";
                /** @description Null for a file run */
                flow_revision_id: string | null;
            };
        };
        ReplayRequest: {
            /** @description Merged over the original's inputs, then checked against the chosen revision's inputs as a trigger's are */
            inputs?: {
                [key: string]: unknown;
            };
            /** @description Merged over the original's labels; a label given null is removed */
            labels?: {
                [key: string]: string | null;
            };
            /** @description The task to replay from: it and the tasks downstream of it run; the other tasks whose run in the original was SUCCESS are reused. Default none: every task runs */
            from?: string;
            /**
             * @description `pinned`: the original's flow revision and snapshot; `latest`: the flow's current revision and its namespace's current snapshot
             * @default pinned
             * @enum {string}
             */
            revision?: "pinned" | "latest";
            /**
             * @description Answer the plan (200 ReplayPlan) and start nothing
             * @default false
             */
            dry_run?: boolean;
        };
        RevertVersionRequest: {
            /** @description The version whose files become the new head */
            version: number;
            message?: string;
        } & {
            [key: string]: unknown;
        };
        /**
         * @description none < viewer < operator < editor < admin; `none` (extension) reads only the namespaces a role binding opens to it
         * @enum {string}
         */
        Role: "none" | "viewer" | "operator" | "editor" | "admin";
        RoleBinding: {
            id: string;
            /** @description The binding covers this namespace and its children */
            namespace: string;
            /** @description The bound user; null for a group binding */
            user_id: string | null;
            /** @description The bound user's email; null for a group binding */
            user_email: string | null;
            /** @description The bound IdP group (as in the groups claim); null for a user binding */
            group: string | null;
            role: components["schemas"]["BindingRole"];
            /** @description Email of the admin who created it */
            created_by: string;
            /** Format: date-time */
            created_at: string;
        };
        RoleBindingList: {
            items: components["schemas"]["RoleBinding"][];
        };
        RunFileRequest: {
            path: string;
            args?: string[];
            /** @description Variables for the script. Names must match `^[A-Z][A-Z0-9_]*$` and not be reserved (the runner's SVC_*, PATH, HOME, XDG_*, the loader, shells and interpreters, proxies, TLS trust, GIT_*\/SSH_* and package indexes such as PIP_* and NPM_CONFIG_*; docs/operating/security.md lists them); any other name is 422 with field `env.<NAME>` */
            env?: {
                [key: string]: string;
            };
        };
        RunnerCompleteRequest: {
            /**
             * @description Absent: SUCCESS when exit_code is 0, else FAILED
             * @enum {string}
             */
            state?: "SUCCESS" | "FAILED" | "TIMED_OUT" | "CANCELLED";
            /** @description Empty on success; `exit_code`, `timeout`, `cancelled`, `runtime_not_found`, `executor_error`, `instance_shutdown` */
            reason?: string;
            error?: string;
            /** @description The process's exit code; 128 + signal number when a signal killed it; null when it never ran */
            exit_code?: number | null;
            outputs?: {
                [key: string]: unknown;
            };
            metrics?: components["schemas"]["RunnerMetric"][];
        } & {
            [key: string]: unknown;
        };
        /** @description A runner event: the latest `started` or `progress` event is the task run's `progress` ({type, at, message, percent}) and wakes its execution's event stream */
        RunnerEventsRequest: {
            /**
             * @description `started`: the task process started; `progress`: what the runner or task is doing; `heartbeat`: liveness, as runnerHeartbeat
             * @enum {string}
             */
            type: "started" | "progress" | "heartbeat";
            /** @description Shown on the task run as `progress.message`; masked against the run's secrets */
            message?: string;
            percent?: number;
        } & {
            [key: string]: unknown;
        };
        /** @description Runner liveness; may carry progress */
        RunnerHeartbeatRequest: {
            [key: string]: unknown;
        };
        RunnerHeartbeatResponse: {
            /** @description True when the execution is being cancelled: the runner stops the task */
            cancel: boolean;
        } & {
            [key: string]: unknown;
        };
        RunnerLogLine: {
            /** @description Sequence number, 1, 2, 3 … per task run across both streams; a repeated number is stored once. Absent: the position in the batch */
            n?: number;
            /** @description Nanoseconds since the epoch as a decimal string. Absent: the time of arrival */
            ts?: string;
            /** @description `stdout` or `stderr` */
            stream: string;
            /** @description One line without its newline, already masked by the runner */
            text: string;
        } & {
            [key: string]: unknown;
        };
        RunnerLogsRequest: {
            lines: components["schemas"]["RunnerLogLine"][];
        } & {
            [key: string]: unknown;
        };
        RunnerMetric: {
            name: string;
            value: number;
            tags?: {
                [key: string]: string;
            };
        } & {
            [key: string]: unknown;
        };
        /** @description What the runner needs to run one task run */
        RunnerSpec: {
            task_run_id: string;
            execution_id: string;
            /** @description Empty for file runs */
            flow_id: string;
            namespace: string;
            task_id: string;
            /** @description Identifies the archive of runnerGetBundle; empty when the snapshot has no files */
            bundle_hash: string;
            /** @description Working directory relative to the bundle root; empty means the root */
            workdir: string;
            attempt: number;
            /** @description argv; for script tasks `[file, ...args]`, and the runner prefixes the interpreter */
            command: string[];
            /** @description The task's whole environment (SVC_* ids and the rendered env); PATH and HOME fall back to the runner's own */
            env: {
                [key: string]: string;
            };
            /** @description Files written before the start: path relative to the bundle root to content */
            files?: {
                [key: string]: string;
            };
            /** @description Interpreter of a script task: `python`, `bash`, `bun` or `node` */
            runtime?: string;
            /** @description The task's `output_files` globs, relative to the working directory: after a success, the matching files are uploaded with `kind=output` (docs/using/files.md) */
            output_files?: string[];
            /** @description Files fetched before the command (docs/using/files.md): the output files of upstream tasks that its templates read (`tasks.<id>.files['p']`) and its file inputs. A mismatch fails the task run (executor_error, naming the file). (The contract's name `files` is the written files' map here.) */
            fetch_files?: ({
                /** @description Where the runner writes it, relative to the working directory (`.svc/files/<task>/<name>`) */
                path: string;
                /** @description Fetched with runnerGetFile */
                artifact_id: string;
                size: number;
                /** @description hex; the runner checks the bytes it received against it and against `size` before the command starts */
                sha256: string;
            } & {
                [key: string]: unknown;
            })[];
            limits: {
                /** @description Largest artifact uploaded; a larger file is skipped with a warning line. 0 or less: no limit */
                max_artifact_bytes: number;
                /** @description Largest bundle (sum of extracted file sizes); a larger one fails the run. 0 or less: no limit */
                max_bundle_bytes: number;
            } & {
                [key: string]: unknown;
            };
            /** @description Values the runner masks in logs */
            mask_values: string[];
            /** @description Seconds before the task is killed as TIMED_OUT; 0 or less: no timeout */
            timeout_seconds: number;
        } & {
            [key: string]: unknown;
        };
        SaveChangesRequest: {
            /**
             * Format: int64
             * @description 409 version_conflict when the head version differs
             */
            base_version?: number;
            changes: components["schemas"]["FileChange"][];
            message: string;
        };
        /** @description Whether a secret resolves, and from which scope; never its value */
        SecretCheck: {
            ok: boolean;
            /** @description The key or provider reference checked */
            key: string;
            /**
             * @description Where it resolved (when ok)
             * @enum {string}
             */
            scope?: "namespace" | "global" | "provider";
            /** @description The namespace it resolved from (scope `namespace`) */
            namespace?: string;
            /** @description The provider it resolved from (scope `provider`) */
            provider?: string;
            /** @description Reason when not ok: `secret_not_found`, `master_key_missing`, `secret_undecryptable`, `provider_not_found`, `provider_error`, `secret_provider_not_allowed` (the provider does not serve the namespace) */
            error?: string;
            message?: string;
        } & {
            [key: string]: unknown;
        };
        /** @description A secret, without its value (values are never readable) */
        SecretKey: {
            key: string;
            /** @description The namespace; null for a global secret */
            namespace: string | null;
            /** @description Always `builtin`: stored in the service, sealed with SVC_MASTER_KEYS */
            provider: string;
            /** @description Id of the master key that sealed the value (rotation) */
            key_id: string;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
            /** @description User id of the last writer */
            updated_by: string;
        } & {
            [key: string]: unknown;
        };
        SecretProvider: {
            name: string;
            /** @description `env` or `vault` */
            type: string;
            /** @description Settings of the type (never credentials) */
            config: {
                [key: string]: unknown;
            };
            enabled: boolean;
            /** @description Credentials are stored sealed; they are write-only */
            has_credentials: boolean;
            /** @description Extension: the namespaces whose flows may use the provider, each covering its children; `*` every namespace; empty none */
            namespaces: string[];
            /** @description Id of the master key that sealed the credentials */
            credentials_key_id: string | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
        } & {
            [key: string]: unknown;
        };
        /** @description Whether a secret provider answers with its settings */
        SecretProviderCheck: {
            ok: boolean;
            /** @description What was tried and how it went; never a secret */
            message: string;
        } & {
            [key: string]: unknown;
        };
        SecretProviderRequest: {
            /** @description Lower case letters, digits, _ and -; starts with a letter or digit; at most 63 chars */
            name: string;
            /**
             * @description env: environment variables; vault: HashiCorp Vault KV v2
             * @enum {string}
             */
            type: "env" | "vault";
            /** @description Settings of the type. env: `prefix`. vault: `address` (required), `mount` (default `secret`), `namespace` */
            config?: {
                [key: string]: unknown;
            };
            /** @description Write-only, stored sealed with SVC_MASTER_KEYS. vault: `token`. env: none */
            credentials?: {
                [key: string]: unknown;
            };
            /** @description Default true */
            enabled?: boolean;
            /** @description Extension: namespaces whose flows may use the provider, each covering its children; "*" every namespace. Default [] (no flow may use the provider until an admin lists its namespaces) */
            namespaces?: string[];
        } & {
            [key: string]: unknown;
        };
        SendAIMessageRequest: {
            content: string;
        } & {
            [key: string]: unknown;
        };
        SetAllowedCallersRequest: {
            /** @description Replaces the list: namespaces, each covering its children, whose flows may start this namespace's flows as subflows and listen to its executions; [] allows none */
            allowed_callers: string[];
        } & {
            [key: string]: unknown;
        };
        SsoLink: {
            /** @description Whether single sign-on is configured and enabled, so an identity can be linked */
            offered: boolean;
            /** @description The IdP identities linked to the caller's account */
            identities: {
                issuer: string;
                /** Format: date-time */
                linked_at: string;
                /** Format: date-time */
                last_login_at: string | null;
            }[];
        };
        SsoLinkStart: {
            /** @description The IdP's authorization URL: the browser goes there next; the answer also sets the svc_oidc cookie of the login */
            authorization_url: string;
        };
        SsoLogout: {
            /** @description The IdP's RP-initiated logout URL, when it has one: the browser goes there next */
            end_session_url?: string;
        };
        SsoStatus: {
            /** @description Whether OpenID Connect login is offered */
            oidc: boolean;
            display_name?: string;
            /** @description Where the browser goes to sign in */
            login_url?: string;
        };
        /** @description The record the maintenance lease holder writes for a storage cleanup run */
        StorageCleanup: {
            /** Format: date-time */
            started_at: string;
            /**
             * Format: date-time
             * @description Null while it runs (or when its instance died in the middle)
             */
            finished_at: string | null;
            /** Format: int64 */
            duration_ms: number | null;
            /**
             * @description `interrupted`: the instance lost the lease and stopped between steps
             * @enum {string}
             */
            outcome: "running" | "ok" | "error" | "interrupted";
            /** @description Why it ended `error` */
            error?: string;
            /** @description The maintenance instance that ran it */
            instance_id: string;
            /** @description Objects and bytes removed, by kind */
            objects: {
                files: {
                    objects: number;
                    /** Format: int64 */
                    bytes: number;
                } & {
                    [key: string]: unknown;
                };
                bundles: {
                    objects: number;
                    /** Format: int64 */
                    bytes: number;
                } & {
                    [key: string]: unknown;
                };
                artifacts: {
                    objects: number;
                    /** Format: int64 */
                    bytes: number;
                } & {
                    [key: string]: unknown;
                };
                logs: {
                    objects: number;
                    /** Format: int64 */
                    bytes: number;
                } & {
                    [key: string]: unknown;
                };
                other: {
                    objects: number;
                    /** Format: int64 */
                    bytes: number;
                } & {
                    [key: string]: unknown;
                };
            } & {
                [key: string]: unknown;
            };
            /** @description Rows removed */
            rows: {
                /** @description Snapshots no version or execution referred to, with their files */
                snapshots: number;
                /** @description file_objects rows no snapshot referred to (their objects go at the next run) */
                file_objects: number;
                /** @description Bundles forgotten because unused for 7 days */
                bundles_released: number;
            } & {
                [key: string]: unknown;
            };
            /** @description What was kept on purpose */
            kept: {
                /** @description Objects without a row left alone because younger than 1 hour */
                young_objects: number;
                /** @description File objects put back because a save was writing their row meanwhile */
                restored_files: number;
            } & {
                [key: string]: unknown;
            };
        } & {
            [key: string]: unknown;
        };
        /** @description What the object store holds, by kind, and the storage cleanup */
        StorageStatus: {
            /**
             * @description Kind of object store (SVC_OBJECT_STORE_URL)
             * @enum {string}
             */
            store: "file" | "s3";
            /** Format: date-time */
            scanned_at: string;
            /** @description False when listing the store ran out of its time budget: the counts are partial */
            complete: boolean;
            /** @description Objects and bytes by kind */
            objects: {
                files: {
                    objects: number;
                    /** Format: int64 */
                    bytes: number;
                } & {
                    [key: string]: unknown;
                };
                bundles: {
                    objects: number;
                    /** Format: int64 */
                    bytes: number;
                } & {
                    [key: string]: unknown;
                };
                artifacts: {
                    objects: number;
                    /** Format: int64 */
                    bytes: number;
                } & {
                    [key: string]: unknown;
                };
                logs: {
                    objects: number;
                    /** Format: int64 */
                    bytes: number;
                } & {
                    [key: string]: unknown;
                };
                other: {
                    objects: number;
                    /** Format: int64 */
                    bytes: number;
                } & {
                    [key: string]: unknown;
                };
            } & {
                [key: string]: unknown;
            };
            total: {
                objects: number;
                /** Format: int64 */
                bytes: number;
            } & {
                [key: string]: unknown;
            };
            /** @description The last storage cleanup (the running one while it runs); null before the first */
            last_cleanup: components["schemas"]["StorageCleanup"] | null;
            /**
             * Format: date-time
             * @description 24 hours after the last cleanup started; null before the first
             */
            next_cleanup_after: string | null;
        } & {
            [key: string]: unknown;
        };
        /** @description One attempt of one task of an execution, or of one item of a fan-out */
        TaskRun: {
            id: string;
            task_key: string;
            task_type: string;
            executor_type: string;
            pool: string;
            state: components["schemas"]["TaskRunState"];
            reason: string;
            error: string;
            /** Format: int64 */
            attempt: number;
            child_execution_id?: string | null;
            reused_from_id?: string | null;
            /** Format: int64 */
            exit_code?: number | null;
            /** Format: int64 */
            duration_ms?: number | null;
            /** Format: date-time */
            queued_at?: string | null;
            /** Format: date-time */
            started_at?: string | null;
            /** Format: date-time */
            ended_at?: string | null;
            /** @description The task's outputs; a fan-out's parent run (`fan_out` set) has the list of its items' outputs, in item order */
            outputs?: {
                [key: string]: unknown;
            } | unknown[] | null;
            /** @description The latest `started` or `progress` runner event of a task run */
            progress?: ({
                /**
                 * @description The runner event it comes from (runnerPostEvents)
                 * @enum {string}
                 */
                type: "started" | "progress";
                /**
                 * Format: date-time
                 * @description When the service recorded the event
                 */
                at: string;
                /** @description What the runner or task is doing; masked against the run's secrets */
                message?: string;
                percent?: number;
            } & {
                [key: string]: unknown;
            }) | null;
            /**
             * Format: int64
             * @description An item of a fan-out (`for_each`): its 0-based index. Absent on other task runs
             */
            item_index?: number;
            /** @description An item of a fan-out: its value, the list's element it runs for */
            item?: unknown;
            /**
             * Format: int64
             * @description A fan-out's parent run: how many items its list rendered to (null until rendered)
             */
            fan_out?: number | null;
            /** @description A fan-out's parent run: its items by the state of their latest attempt */
            item_counts?: {
                /** Format: int64 */
                total: number;
                /** Format: int64 */
                pending: number;
                /** Format: int64 */
                queued: number;
                /** Format: int64 */
                running: number;
                /** Format: int64 */
                success: number;
                /** Format: int64 */
                failed: number;
                /** Format: int64 */
                timed_out: number;
                /** Format: int64 */
                cancelled: number;
                /** Format: int64 */
                skipped: number;
            };
            /** @description An approval gate once reached (null: the task has none, or it was not reached) */
            approval?: components["schemas"]["TaskRunApproval"] | null;
        } & {
            [key: string]: unknown;
        };
        /** @description An approval gate of a task run (`approval` in the flow, an extension) and its decision */
        TaskRunApproval: {
            /**
             * @description `pending`: waiting for a decision; `approved`, `rejected`: by a person; `timed_out`: the gate's timeout applied `on_timeout`
             * @enum {string}
             */
            status: "pending" | "approved" | "rejected" | "timed_out";
            /**
             * Format: date-time
             * @description When the task run started waiting
             */
            requested_at: string;
            /**
             * Format: date-time
             * @description When the timeout applies `on_timeout`; null: no timeout
             */
            deadline: string | null;
            /** @enum {string} */
            on_timeout: "fail" | "skip" | "approve";
            approvers: {
                /** @description Minimum role on the flow's namespace */
                role: string;
                /** @description IdP groups whose members may decide */
                groups: string[];
            };
            /** @description The person who started the execution may not decide */
            forbid_self_approval: boolean;
            form: {
                id: string;
                /** @enum {string} */
                type: "string" | "number" | "boolean";
                required: boolean;
                description?: string;
            }[];
            /** @description Who decided (an email); null while pending and when the timeout decided */
            by: string | null;
            /**
             * Format: date-time
             * @description When the decision was made
             */
            at: string | null;
            /** @description The form values given with the decision */
            inputs: {
                [key: string]: unknown;
            };
            comment: string;
        } & {
            [key: string]: unknown;
        };
        /**
         * @description Task run state
         * @enum {string}
         */
        TaskRunState: "PENDING" | "QUEUED" | "RUNNING" | "SUCCESS" | "FAILED" | "TIMED_OUT" | "CANCELLED" | "SKIPPED";
        /** @description An execution the batch created: RUNNING, or QUEUED or SKIPPED when the flow's concurrency limit held it */
        TriggerFlowBatchExecution: {
            id: string;
            state: components["schemas"]["ExecutionState"];
        };
        /** @description One execution: what a triggerFlow body holds */
        TriggerFlowBatchItem: {
            /** @description Input values, validated against the flow inputs as triggerFlow does */
            inputs?: {
                [key: string]: unknown;
            };
            /** @description Added to the labels of the flow */
            labels?: {
                [key: string]: string;
            };
        };
        TriggerFlowBatchRequest: {
            /** @description 1 to 1,000 executions to create, in order */
            items: components["schemas"]["TriggerFlowBatchItem"][];
            /**
             * @description Only check the flow and every item as a real batch would (the same 404, 409 and 422); create nothing
             * @default false
             */
            dry_run?: boolean;
        };
        TriggerFlowBatchResult: {
            /** @description One per item, in item order; empty on a dry run */
            executions: components["schemas"]["TriggerFlowBatchExecution"][];
            dry_run: boolean;
            /** @description Items checked: the executions created, or that a batch would create */
            count: number;
        };
        TriggerFlowRequest: {
            /** @description Input values, validated against the flow inputs; a file input's value is the id of an upload of the flow's namespace (createUpload) */
            inputs?: {
                [key: string]: unknown;
            };
            /** @description Added to the labels of the flow */
            labels?: {
                [key: string]: string;
            };
        };
        UpcomingSchedule: {
            namespace: string;
            flow_id: string;
            trigger_id: string;
            cron: string;
            /** @description IANA time zone the cron is read in */
            timezone: string;
            /** @enum {string} */
            catch_up: "none" | "last";
            /**
             * Format: date-time
             * @description The next fire time, computed in `timezone` (daylight-saving changes included)
             */
            next_fire_at: string;
            /** Format: date-time */
            last_fired_at: string | null;
        } & {
            [key: string]: unknown;
        };
        UpdateAlertRuleRequest: {
            name?: string;
            /** @description Dot-separated labels of lower case letters, digits, hyphens; at most 128 chars */
            namespace?: string;
            /** @description Lower case letters, digits, hyphens; starts with a letter or digit */
            flow_id?: string | null;
            events?: ("failed" | "timed_out" | "recovered" | "late" | "approval_requested")[];
            /** @description late: how long an execution may run */
            late_after_seconds?: number | null;
            /** @description late: how long past its due time a schedule may not have fired */
            schedule_grace_seconds?: number | null;
            channels?: (components["schemas"]["AlertEmailChannel"] | components["schemas"]["AlertWebhookChannel"] | components["schemas"]["AlertSlackChannel"])[];
            /** @description Alerts per hour; past it, further ones are recorded `suppressed` and not sent */
            rate_limit_per_hour?: number;
            enabled?: boolean;
        };
        UpdateFlowRequest: {
            enabled: boolean;
        };
        UpdateMeRequest: {
            name?: string;
        } & {
            [key: string]: unknown;
        };
        UpdateSecretProviderRequest: {
            /**
             * @description env: environment variables; vault: HashiCorp Vault KV v2
             * @enum {string}
             */
            type?: "env" | "vault";
            /** @description Replaces the whole config; omitted keeps it (or {} when the type changes) */
            config?: {
                [key: string]: unknown;
            };
            /** @description Replaces the credentials; null removes them; omitted keeps them (none when the type changes) */
            credentials?: {
                [key: string]: unknown;
            } | null;
            enabled?: boolean;
            /** @description Extension: namespaces whose flows may use the provider, each covering its children; "*" every namespace. Replaces the list; omitted keeps it */
            namespaces?: string[];
        } & {
            [key: string]: unknown;
        };
        UpdateUserRequest: {
            name?: string;
            role?: components["schemas"]["Role"];
            disabled?: boolean;
        } & {
            [key: string]: unknown;
        };
        /** @description Extension: a file uploaded for a flow input of type file (docs/using/files.md) */
        Upload: {
            /** @description The value of a `file` input that uses it */
            id: string;
            namespace: string;
            /** @description The file name given at upload */
            name: string;
            /** Format: int64 */
            size: number;
            /** @description hex, computed as it was stored */
            sha256: string;
            /** Format: date-time */
            created_at: string;
            /**
             * Format: date-time
             * @description When it goes if no execution used it
             */
            expires_at: string;
        } & {
            [key: string]: unknown;
        };
        User: {
            id: string;
            email: string;
            name: string;
            role: components["schemas"]["Role"];
            disabled: boolean;
            must_change_password: boolean;
            /** Format: date-time */
            created_at: string;
        } & {
            [key: string]: unknown;
        };
        /** @description A file to validate without saving it */
        ValidateFileRequest: {
            /** @description Path of the file in the namespace, e.g. `flows/etl.flow.yaml`; its name decides the validator */
            path: string;
            /** @description The file text to validate (UTF-8) */
            content: string;
        };
        /** @description One problem of a file: one entry per failing field */
        ValidationProblem: {
            /** @description The failing field as a path, e.g. `tasks[3].retry.max_attempts`; empty for the whole file */
            field: string;
            /** @description JSON pointer of the failing node, e.g. `/tasks/3/retry/max_attempts` */
            pointer: string;
            /** @description What is wrong, worded for a person */
            message: string;
            /** @description 1-based line in the file */
            line?: number;
            /** @description 1-based column (UTF-16 code units) */
            column?: number;
        };
        /** @description The problems of a file; a valid file has an empty list */
        ValidationResult: {
            /** @description True when `errors` is empty */
            valid: boolean;
            /** @description `flow` for `*.flow.yaml` files (schema, semantic rules and templates checked); `unchecked` for files no validator applies to */
            kind: "flow" | "unchecked";
            errors: components["schemas"]["ValidationProblem"][];
        };
        Variable: {
            key: string;
            value: string;
            /** @description The namespace; null for a global variable */
            namespace: string | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
            /** @description User id of the last writer */
            updated_by: string;
        } & {
            [key: string]: unknown;
        };
        WebhookKey: {
            key: string;
            /** @description Full URL of /hooks/{key} */
            url: string;
        } & {
            [key: string]: unknown;
        };
        /**
         * svc flow file
         * @description A flow file (`*.flow.yaml`): inputs, variables, triggers and 1 to 200 tasks ordered by `depends_on`.
         */
        FlowFile: components["schemas"]["FlowFile.Flow"];
        /**
         * Flow
         * @description A flow file (`*.flow.yaml`): inputs, variables, triggers and 1 to 200 tasks ordered by `depends_on`.
         */
        "FlowFile.Flow": {
            /**
             * @description Flow id, unique in the namespace. At most 63 characters: lower-case letters, digits and hyphens, starting with a letter or digit.
             * @example nightly-report
             */
            id: string;
            /**
             * @description What the flow does, shown in the UI. At most 2000 characters.
             * @example Builds the nightly sales report and mails it to the team.
             */
            description?: string;
            /**
             * @description Labels carried by every execution of the flow; at most 20 entries.
             * @example {
             *       "team": "data",
             *       "tier": "gold"
             *     }
             */
            labels?: components["schemas"]["FlowFile.StringMap"];
            /**
             * @description Inputs a trigger gives to an execution; validated at trigger time and read as `inputs.<id>`.
             * @default []
             */
            inputs?: components["schemas"]["FlowFile.Input"][];
            /**
             * @description Static values read as `vars.<key>`; they take precedence over namespace and global variables.
             * @example {
             *       "bucket": "reports"
             *     }
             */
            variables?: components["schemas"]["FlowFile.StringMap"];
            /**
             * @description Environment variable templates for every task; a task `env` overrides them key by key.
             * @example {
             *       "LOG_LEVEL": "info"
             *     }
             */
            env?: components["schemas"]["FlowFile.StringMap"];
            /**
             * @description Schedules, webhooks and upstream flows that start executions. Manual triggering needs no declaration.
             * @default []
             */
            triggers?: components["schemas"]["FlowFile.Trigger"][];
            /** @description Limit on running executions of this flow. Absent means unlimited. */
            concurrency?: components["schemas"]["FlowFile.Concurrency"];
            /**
             * @description Maximum tasks of one execution running at the same time; 0 means unlimited.
             * @default 0
             * @example 4
             */
            max_parallel?: number;
            /**
             * @description Wall time limit of an execution; the execution ends TIMED_OUT when it passes. Default: no limit.
             * @example 2h
             */
            timeout?: components["schemas"]["FlowFile.Duration"];
            /** @description Default retry policy of the tasks; a task `retry` overrides it. */
            retry?: components["schemas"]["FlowFile.Retry"];
            /** @description Default executor of the tasks. Resolution order: task, flow, `namespace.yaml`, instance default. */
            executor?: components["schemas"]["FlowFile.Executor"];
            /** @description The tasks of the flow: 1 to 200 items. */
            tasks: components["schemas"]["FlowFile.Task"][];
            /**
             * @description Output templates, resolved when the execution succeeds.
             * @example {
             *       "report_url": "{{ tasks.publish.outputs.url }}"
             *     }
             */
            outputs?: components["schemas"]["FlowFile.StringMap"];
        };
        /**
         * Concurrency
         * @description How many executions of the flow may run at once, and what happens to the others.
         * @example {
         *       "limit": 1,
         *       "behavior": "skip"
         *     }
         */
        "FlowFile.Concurrency": {
            /**
             * @description Maximum running executions of the flow.
             * @example 1
             */
            limit: number;
            /**
             * @description `queue` holds new executions in QUEUED until a place is free; `skip` ends them SKIPPED.
             * @default queue
             * @enum {unknown}
             */
            behavior?: "queue" | "skip";
        };
        /**
         * Input
         * @description A value given to an execution by its trigger.
         * @example {
         *       "id": "region",
         *       "type": "select",
         *       "values": [
         *         "eu",
         *         "us"
         *       ],
         *       "default": "eu"
         *     }
         */
        "FlowFile.Input": {
            /**
             * @description Input id, read as `inputs.<id>`. At most 63 characters: a lower-case letter, then lower-case letters, digits and underscores.
             * @example report_date
             */
            id: string;
            /**
             * @description Type of the value.
             * @example string
             * @enum {unknown}
             */
            type: "string" | "int" | "number" | "boolean" | "select" | "json" | "file";
            /**
             * @description Whether a trigger must give a value when the input has no default.
             * @default false
             */
            required?: boolean;
            /** @description Value used when a trigger gives none; must match the type (and be one of `values` for a select). */
            default?: unknown;
            /** @description Help text shown on the run form. */
            description?: string;
            /**
             * @description The values a `select` input allows.
             * @example [
             *       "eu",
             *       "us"
             *     ]
             */
            values?: (string | number | boolean)[];
        };
        /**
         * Trigger
         * @description Starts executions of the flow: on a schedule, from a webhook, or when an upstream flow ends.
         * @example {
         *       "id": "nightly",
         *       "type": "schedule",
         *       "cron": "0 3 * * *",
         *       "timezone": "Europe/Paris"
         *     }
         * @example {
         *       "id": "on-ingest",
         *       "type": "flow",
         *       "flow": "company.data/ingest",
         *       "states": [
         *         "SUCCESS"
         *       ]
         *     }
         */
        "FlowFile.Trigger": {
            /**
             * @description Trigger id, unique in the flow. At most 63 characters: a lower-case letter, then lower-case letters, digits, underscores and hyphens.
             * @example nightly
             */
            id: string;
            /**
             * @description `schedule` (cron), `webhook` (POST to /hooks/{key}) or `flow` (an upstream flow ended).
             * @enum {unknown}
             */
            type: "schedule" | "webhook" | "flow";
            /**
             * @description Input templates. Webhook triggers read `trigger.body` and `trigger.headers`; flow triggers read `trigger.outputs`; schedule triggers read `trigger.date` (the fire time, RFC 3339 with the schedule's offset). All read `flow`, `execution`, `vars` and `secret()` (stored masked; tasks reading the input get the value).
             * @example {
             *       "report_date": "{{ trigger.body.date }}"
             *     }
             */
            inputs?: components["schemas"]["FlowFile.StringMap"];
            /**
             * @description schedule: five cron fields (minute hour day-of-month month day-of-week), or @hourly, @daily, @weekly, @monthly.
             * @example 0 3 * * *
             * @example *\/15 * * * MON-FRI
             * @example @daily
             */
            cron?: string;
            /**
             * @description schedule: IANA time zone the cron expression is read in.
             * @default UTC
             * @example Europe/Paris
             */
            timezone?: string;
            /**
             * @description schedule: after downtime, `none` fires no missed time; `last` fires only the latest missed time.
             * @default last
             * @enum {unknown}
             */
            catch_up?: "none" | "last";
            /**
             * @description flow trigger: upstream flow as `<namespace>/<flow_id>`.
             * @example company.data/ingest
             */
            flow?: string;
            /**
             * @description flow trigger: end states of the upstream execution that fire this trigger.
             * @example [
             *       "SUCCESS"
             *     ]
             * @example [
             *       "FAILED",
             *       "TIMED_OUT"
             *     ]
             */
            states?: ("SUCCESS" | "FAILED" | "TIMED_OUT" | "CANCELLED")[];
        };
        /**
         * Retry
         * @description How often and how soon a failed or timed-out task run is tried again.
         * @example {
         *       "max_attempts": 3,
         *       "backoff": "exponential",
         *       "initial": "30s",
         *       "max": "5m"
         *     }
         */
        "FlowFile.Retry": {
            /**
             * @description Attempts in total, counting the first one: 1 to 20.
             * @default 1
             * @example 3
             */
            max_attempts?: number;
            /**
             * @description `fixed` waits `initial` between attempts; `exponential` doubles the wait each time, up to `max`.
             * @default fixed
             * @enum {unknown}
             */
            backoff?: "fixed" | "exponential";
            /**
             * @description Wait before the second attempt.
             * @default 10s
             */
            initial?: components["schemas"]["FlowFile.Duration"];
            /**
             * @description Longest wait between two attempts.
             * @default 10m
             */
            max?: components["schemas"]["FlowFile.Duration"];
        };
        /**
         * Executor
         * @description Where and how task runs execute. Resolution order: task, flow, `namespace.yaml`, instance default.
         * @example {
         *       "type": "docker",
         *       "image": "python:3.12-slim",
         *       "resources": {
         *         "limits": {
         *           "cpu": "1",
         *           "memory": "512Mi"
         *         }
         *       }
         *     }
         * @example {
         *       "pool": "gpu"
         *     }
         */
        "FlowFile.Executor": {
            /**
             * @description Executor type. When absent it comes from the flow, `namespace.yaml` or the instance default.
             * @example docker
             * @enum {unknown}
             */
            type?: "process" | "docker" | "kubernetes";
            /**
             * @description Pool of instances that run the task: at most 63 lower-case letters, digits and hyphens.
             * @default default
             * @example gpu
             */
            pool?: string;
            /**
             * @description docker and kubernetes: container image the task runs in; required for these types.
             * @example python:3.12-slim
             */
            image?: string;
            /**
             * @description docker and kubernetes: mount the runner binary into the container. When false the runner must be on the image PATH.
             * @default true
             */
            inject_runner?: boolean;
            /**
             * @description docker: when to pull the image.
             * @default if_not_present
             * @enum {unknown}
             */
            pull?: "always" | "if_not_present" | "never";
            /**
             * @description docker: name of the network the container joins.
             * @example host
             */
            network?: string;
            /** @description docker and kubernetes: CPU and memory requests and limits (docker uses the limits). */
            resources?: components["schemas"]["FlowFile.Resources"];
            /** @description kubernetes: pod settings. */
            kubernetes?: components["schemas"]["FlowFile.Kubernetes"];
        };
        /**
         * Resources
         * @description CPU and memory of the container.
         * @example {
         *       "requests": {
         *         "cpu": "250m",
         *         "memory": "256Mi"
         *       },
         *       "limits": {
         *         "cpu": "1",
         *         "memory": "1Gi"
         *       }
         *     }
         */
        "FlowFile.Resources": {
            /** @description kubernetes: what the scheduler reserves for the pod. */
            requests?: components["schemas"]["FlowFile.ResourceList"];
            /** @description The most the container may use; docker applies only these. */
            limits?: components["schemas"]["FlowFile.ResourceList"];
        };
        /**
         * ResourceList
         * @description A CPU and a memory quantity.
         */
        "FlowFile.ResourceList": {
            /**
             * @description CPU cores as a Kubernetes quantity: a number (`2`, `0.5`, `.5`, `1e3`) with an optional suffix, usually `m` for millicores (`500m`); every suffix Kubernetes reads is accepted (n, u, m, k, M, G, T, P, E, Ki … Ei).
             * @example 500m
             * @example 2
             */
            cpu?: string;
            /**
             * @description Memory in bytes as a Kubernetes quantity: a number with an optional binary suffix Ki, Mi, Gi, Ti, Pi, Ei (powers of 1024) or decimal suffix k, M, G, T, P, E (powers of 1000; a lower-case `k`, as Kubernetes reads it), or an exponent (`1e9`).
             * @example 512Mi
             * @example 2Gi
             */
            memory?: string;
        };
        /**
         * Kubernetes
         * @description Settings of the pod a kubernetes executor creates.
         */
        "FlowFile.Kubernetes": {
            /**
             * @description Service account the pod runs as.
             * @example etl-runner
             */
            service_account?: string;
            /**
             * @description Node labels the pod must be scheduled on.
             * @example {
             *       "kubernetes.io/arch": "amd64"
             *     }
             */
            node_selector?: components["schemas"]["FlowFile.StringMap"];
            /** @description Taints the pod tolerates. */
            tolerations?: components["schemas"]["FlowFile.Toleration"][];
            /**
             * @description Names of secrets used to pull the image.
             * @example [
             *       "registry-credentials"
             *     ]
             */
            image_pull_secrets?: string[];
            /**
             * @description Labels added to the pod.
             * @example {
             *       "team": "data"
             *     }
             */
            labels?: components["schemas"]["FlowFile.StringMap"];
            /** @description Annotations added to the pod. */
            annotations?: components["schemas"]["FlowFile.StringMap"];
        };
        /**
         * Toleration
         * @description A Kubernetes toleration.
         * @example {
         *       "key": "dedicated",
         *       "operator": "Equal",
         *       "value": "etl",
         *       "effect": "NoSchedule"
         *     }
         */
        "FlowFile.Toleration": {
            /** @description Taint key the toleration applies to; empty with `Exists` matches all taints. */
            key?: string;
            /**
             * @description `Exists` matches any value; `Equal` matches `value`.
             * @default Equal
             * @enum {unknown}
             */
            operator?: "Exists" | "Equal";
            /** @description Taint value matched by `Equal`. */
            value?: string;
            /**
             * @description Taint effect matched; empty matches all effects.
             * @enum {unknown}
             */
            effect?: "NoSchedule" | "PreferNoSchedule" | "NoExecute";
            /**
             * @description `NoExecute` only: how long the pod stays bound after the taint appears.
             * @example 300
             */
            toleration_seconds?: number;
        };
        /**
         * Task
         * @description One step of the flow. Its `type` decides which other fields it takes.
         * @example {
         *       "id": "extract",
         *       "type": "script",
         *       "file": "scripts/extract.py"
         *     }
         * @example {
         *       "id": "load",
         *       "type": "command",
         *       "command": [
         *         "psql",
         *         "-f",
         *         "load.sql"
         *       ],
         *       "depends_on": [
         *         "extract"
         *       ]
         *     }
         * @example {
         *       "id": "notify",
         *       "type": "http",
         *       "method": "POST",
         *       "url": "https://hooks.example.com/done",
         *       "depends_on": [
         *         "load"
         *       ]
         *     }
         * @example {
         *       "id": "publish",
         *       "type": "subflow",
         *       "flow": "company.data/publish",
         *       "depends_on": [
         *         "load"
         *       ]
         *     }
         */
        "FlowFile.Task": {
            /**
             * @description Task id, unique in the flow. At most 63 characters: a lower-case letter, then lower-case letters, digits and underscores.
             * @example extract
             */
            id: string;
            /**
             * @description `script` runs a file of the namespace, `command` runs an argv, `http` sends a request, `subflow` starts another flow.
             * @enum {unknown}
             */
            type: "script" | "command" | "http" | "subflow";
            /**
             * @description Ids of the tasks that must end before this one starts.
             * @default []
             * @example [
             *       "extract"
             *     ]
             */
            depends_on?: string[];
            /**
             * @description `success`: every dependency succeeded; `failure`: at least one dependency failed or timed out; `always`: every dependency ended. Extension: one `{{ expression }}` (CEL over inputs, tasks, trigger, execution, flow and labels), decided once every dependency succeeded: true runs the task, false skips it (condition_not_met).
             * @default success
             * @example success
             * @example {{ inputs.env == 'prod' && tasks.check.outputs.rows > 0 }}
             */
            run_if?: string;
            /**
             * @description Wall time limit of one attempt.
             * @default 24h
             */
            timeout?: components["schemas"]["FlowFile.Duration"];
            /** @description Retry policy of this task; overrides the flow `retry`. */
            retry?: components["schemas"]["FlowFile.Retry"];
            /**
             * @description Environment variable templates; they override the flow `env` key by key.
             * @example {
             *       "TARGET_TABLE": "{{ inputs.table }}"
             *     }
             */
            env?: components["schemas"]["FlowFile.StringMap"];
            /**
             * @description Extension: run the task once per item of a list (a fan-out). A list written here (at most 10000 items), or one `{{ expression }}` that gives a JSON list when the task starts (an upstream task's output, an input, a variable). Each item is a task run of its own, with its own logs, retries, timeout and outputs; the task's templates read the item as `{{ item }}` and its 0-based index as `{{ item_index }}`. Dependents wait for every item, and `tasks.<id>.outputs` is the list of the items' outputs in item order.
             * @example {{ tasks.list.outputs.tables }}
             * @example {{ inputs.regions }}
             * @example [
             *       "eu-west-1",
             *       "us-east-1"
             *     ]
             */
            for_each?: string | unknown[];
            /**
             * @description Extension, with `for_each`: at most this many of the task's items run at once (the flow's `max_parallel` still holds). Default: no bound of its own.
             * @example 4
             */
            for_each_concurrency?: number;
            /**
             * @description Extension, with `for_each`: when an item fails, cancel the items not started yet. Default false: the other items run to their end, then the task fails.
             * @default false
             */
            fail_fast?: boolean;
            /** @description Extension: an approval gate. When its dependencies end, the task waits (reason `awaiting_approval`, the execution RUNNING, no worker slot held) until a person approves or rejects it: an approve runs it, a reject ends it FAILED `rejected` (so `run_if: failure` tasks run), the `timeout` applies `on_timeout`. Downstream templates read `tasks.<id>.approval.by`, `.at`, `.status`, `.comment` and `.inputs.<field>`. */
            approval?: components["schemas"]["FlowFile.Approval"];
            /** @description script and command: executor of this task; overrides the flow `executor`. */
            executor?: components["schemas"]["FlowFile.Executor"];
            /**
             * @description script and command: files written into the workdir before the task starts. Key: path relative to the namespace root; value: file template (`secret()` allowed). Replaces a namespace file at the same path.
             * @example {
             *       "config/settings.json": "{\"region\": \"{{ inputs.region }}\"}"
             *     }
             */
            files?: components["schemas"]["FlowFile.StringMap"];
            file?: string;
            /**
             * @description script: interpreter. Default from the file extension: .py python, .sh bash, .ts bun, .js node.
             * @enum {unknown}
             */
            runtime?: "python" | "bash" | "bun" | "node";
            /**
             * @description script: argument templates passed to the script.
             * @example [
             *       "--date",
             *       "{{ inputs.report_date }}"
             *     ]
             */
            args?: string[];
            /**
             * @description Extension, script and command: glob patterns (`*`, `**`, `?`, `[...]`, `{a,b}`) relative to the task's working directory. After the task's command ends successfully, every regular file they match is uploaded (streamed, with its sha256) and kept as an output file of the task run, at most SVC_MAX_ARTIFACT_BYTES each (a larger one fails the task). A pattern that matches nothing is no error.
             * @example [
             *       "out/*.csv",
             *       "report.json"
             *     ]
             */
            output_files?: string[];
            /**
             * @description command: argv templates, run without a shell; required for command tasks.
             * @example [
             *       "python",
             *       "-m",
             *       "etl.load",
             *       "{{ inputs.table }}"
             *     ]
             */
            command?: string[];
            /**
             * @description command: working directory relative to the namespace root. Default: the root.
             * @example etl
             */
            workdir?: string;
            /**
             * @description http: request method.
             * @default GET
             * @enum {unknown}
             */
            method?: "GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "HEAD";
            /**
             * @description http: URL template; required for http tasks.
             * @example https://api.example.com/reports/{{ inputs.report_date }}
             */
            url?: string;
            /**
             * @description http: header templates.
             * @example {
             *       "Authorization": "Bearer {{ secret('API_TOKEN') }}"
             *     }
             */
            headers?: components["schemas"]["FlowFile.StringMap"];
            /**
             * @description http: body template.
             * @example {"date": "{{ inputs.report_date }}"}
             */
            body?: string;
            /**
             * @description http: status codes that count as success. Default: 200 to 299.
             * @example [
             *       200,
             *       201,
             *       204
             *     ]
             */
            expect_status?: number[];
            /**
             * @description subflow: child flow as `<namespace>/<flow_id>`; required for subflow tasks.
             * @example company.data/load-warehouse
             */
            flow?: string;
            /**
             * @description subflow: input templates of the child flow.
             * @example {
             *       "table": "{{ tasks.extract.outputs.table }}"
             *     }
             */
            inputs?: components["schemas"]["FlowFile.StringMap"];
            /**
             * @description subflow: wait for the child execution to end (and take its outcome).
             * @default true
             */
            wait?: boolean;
        };
        /** @description An approval gate (an extension of the flow format): who may decide, how long to wait and what then, and a form. */
        "FlowFile.Approval": {
            /** @description Who may decide: a caller whose role on the flow's namespace (global role or role bindings) reaches `role`, or who is in one of `groups` (their IdP groups). The AI assistant and MCP never may. */
            approvers?: {
                /**
                 * @description Minimum role on the namespace. Default `operator`.
                 * @default operator
                 * @enum {unknown}
                 */
                role?: "viewer" | "operator" | "editor" | "admin";
                /**
                 * @description IdP groups whose members may decide, whatever their role.
                 * @example [
                 *       "release-managers"
                 *     ]
                 */
                groups?: string[];
            };
            /** @description How long to wait for a decision. Default: no limit (until a decision or a cancel). */
            timeout?: components["schemas"]["FlowFile.Duration"];
            /**
             * @description What the timeout decides: `fail` (FAILED `approval_timed_out`), `skip` (SKIPPED `approval_timed_out`), `approve`. Default `fail`.
             * @default fail
             * @enum {unknown}
             */
            on_timeout?: "fail" | "skip" | "approve";
            /**
             * @description Fields the approver fills in; required ones must be given to approve.
             * @example [
             *       {
             *         "id": "ticket",
             *         "type": "string",
             *         "required": true
             *       }
             *     ]
             */
            form?: components["schemas"]["FlowFile.ApprovalFormField"][];
            /**
             * @description Refuse the person who started the execution. Default false.
             * @default false
             */
            forbid_self_approval?: boolean;
        };
        /** @description A field of the form: the approver gives its value with an approve. */
        "FlowFile.ApprovalFormField": {
            /**
             * @description Field id, unique in the form; downstream templates read the value as `tasks.<task id>.approval.inputs.<field id>`.
             * @example ticket
             */
            id: string;
            /**
             * @description The type of the value the approver gives. Default `string`.
             * @default string
             * @enum {unknown}
             */
            type?: "string" | "number" | "boolean";
            /**
             * @description Whether the approver must give a value to approve. Default false.
             * @default false
             */
            required?: boolean;
            /** @description What the field is for, shown beside it. */
            description?: string;
        };
        /**
         * Duration
         * @description One or more groups of a decimal number and a unit (ns, us, µs, ms, s, m, h), e.g. 30s, 10m, 1h30m.
         * @example 30s
         * @example 10m
         * @example 2h
         * @example 1h30m
         */
        "FlowFile.Duration": string;
        /**
         * StringMap
         * @description An object of string to string.
         */
        "FlowFile.StringMap": {
            [key: string]: string;
        };
    };
    responses: {
        /** @description `unauthorized`: no credential, or an invalid one (revoked or expired token, disabled user) */
        Unauthorized: {
            headers: {
                "X-Request-Id": components["headers"]["XRequestId"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorEnvelope"];
            };
        };
        /** @description `forbidden` (the role is too low), `csrf_failed` (a cookie request failed the Origin check) or `password_change_required` */
        Forbidden: {
            headers: {
                "X-Request-Id": components["headers"]["XRequestId"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorEnvelope"];
            };
        };
        /** @description `not_found`: unknown API route, or an object that does not exist */
        NotFound: {
            headers: {
                "X-Request-Id": components["headers"]["XRequestId"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorEnvelope"];
            };
        };
        /** @description `body_too_large`: the JSON body is larger than 10 MiB */
        BodyTooLarge: {
            headers: {
                "X-Request-Id": components["headers"]["XRequestId"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorEnvelope"];
            };
        };
        /** @description `unsupported_media_type`: the `Content-Type` is not JSON */
        UnsupportedMediaType: {
            headers: {
                "X-Request-Id": components["headers"]["XRequestId"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorEnvelope"];
            };
        };
        /** @description `validation_failed`: `details` has one `{field, message}` entry per failing field; parameters use their own name, a body that is not JSON gives field `body` */
        ValidationFailed: {
            headers: {
                "X-Request-Id": components["headers"]["XRequestId"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorEnvelope"];
            };
        };
        /** @description `internal`: unexpected error; the server log has the cause with the request ID */
        Internal: {
            headers: {
                "X-Request-Id": components["headers"]["XRequestId"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorEnvelope"];
            };
        };
    };
    parameters: never;
    requestBodies: never;
    headers: {
        /** @description ID of the request; the server log line of the request carries the same ID (`request_id`) */
        XRequestId: string;
    };
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    login: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["LoginRequest"];
            };
        };
        responses: {
            /** @description Signed in */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    /** @description `svc_session`; HttpOnly; SameSite=Lax; Path=/ */
                    "Set-Cookie"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Me"];
                };
            };
            /** @description Wrong email or password */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            404: components["responses"]["NotFound"];
            413: components["responses"]["BodyTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            /** @description 10 failed logins for one email or 50 for one IP in 15 minutes (code `rate_limited`) */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    /** @description Seconds to wait */
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            500: components["responses"]["Internal"];
        };
    };
    logout: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Signed out; the cookie is cleared */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            500: components["responses"]["Internal"];
        };
    };
    getMe: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Me"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            500: components["responses"]["Internal"];
        };
    };
    updateMe: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["UpdateMeRequest"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Me"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["BodyTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    changePassword: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ChangePasswordRequest"];
            };
        };
        responses: {
            /** @description Password changed; other sessions end */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["BodyTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            /** @description The current password is wrong (field current_password) or the new one is refused (field new_password) */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            500: components["responses"]["Internal"];
        };
    };
    revokeOtherSessions: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        revoked: number;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            500: components["responses"]["Internal"];
        };
    };
    listTokens: {
        parameters: {
            query?: {
                /** @description Page size, 1 to 200 */
                limit?: number;
                /** @description Opaque cursor from a previous page (`next_cursor`) */
                cursor?: string;
                /** @description Admin only: tokens of every user */
                all?: boolean;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: components["schemas"]["ApiToken"][];
                        /** @description Present when more rows follow; pass it back as `cursor`. */
                        next_cursor?: string;
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    createToken: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateTokenRequest"];
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiTokenCreated"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["BodyTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    revokeToken: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                tokenId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Revoked */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    listUsers: {
        parameters: {
            query?: {
                /** @description Page size, 1 to 200 */
                limit?: number;
                /** @description Opaque cursor from a previous page (`next_cursor`) */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: components["schemas"]["User"][];
                        /** @description Present when more rows follow; pass it back as `cursor`. */
                        next_cursor?: string;
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    createUser: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateUserRequest"];
            };
        };
        responses: {
            /** @description Created; without a password in the request, a temporary one is returned once */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        email: string;
                        name: string;
                        role: components["schemas"]["Role"];
                        disabled: boolean;
                        must_change_password: boolean;
                        /** Format: date-time */
                        created_at: string;
                        temporary_password?: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            /** @description A user with this email exists */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            413: components["responses"]["BodyTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    updateUser: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                userId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["UpdateUserRequest"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["User"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            /** @description `last_admin`: the last enabled admin cannot be demoted or disabled */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            413: components["responses"]["BodyTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    resetUserPassword: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                userId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        temporary_password: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    listExecutions: {
        parameters: {
            query?: {
                /** @description Page size, 1 to 200 */
                limit?: number;
                /** @description Opaque cursor from a previous page (`next_cursor`) */
                cursor?: string;
                state?: "QUEUED" | "RUNNING" | "CANCELLING" | "SUCCESS" | "FAILED" | "TIMED_OUT" | "CANCELLED" | "SKIPPED";
                /** @description Selects the namespace and its children */
                namespace?: string;
                /** @description Flow id */
                flow?: string;
                /** @description Label filter `key:value`; repeat for several (all must match) */
                label?: string[];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: components["schemas"]["Execution"][];
                        /** @description Present when more rows follow; pass it back as `cursor`. */
                        next_cursor?: string;
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    getExecution: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                executionId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Execution"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description `execution_not_found` */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    listExecutionArtifacts: {
        parameters: {
            query?: {
                /** @description Page size, 1 to 200 */
                limit?: number;
                /** @description Opaque cursor from a previous page (`next_cursor`) */
                cursor?: string;
            };
            header?: never;
            path: {
                executionId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: components["schemas"]["Artifact"][];
                        /** @description Present when more rows follow; pass it back as `cursor`. */
                        next_cursor?: string;
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description `execution_not_found` */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    downloadArtifact: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                executionId: string;
                artifactId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The artifact bytes */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    /** @description attachment; filename of the artifact */
                    "Content-Disposition"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/octet-stream": string;
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description `execution_not_found` */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    cancelExecution: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                executionId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Execution"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description `execution_not_found` */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `execution_ended`: the execution has already ended */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    approveTaskRun: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                executionId: string;
                /** @description The task id */
                taskKey: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /** @description Values of the gate's form fields, by field id (approve only; required fields must be given) */
                    inputs?: {
                        [key: string]: unknown;
                    };
                    /** @description Recorded with the decision and the audit event */
                    comment?: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Execution"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description `forbidden`: the caller is not an approver of this gate (role on the namespace below `approvers.role` and in none of `approvers.groups`), or started the execution and `forbid_self_approval` is set, or calls through the AI assistant or MCP */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `execution_not_found`; `task_not_found`: the execution has no such task */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `not_awaiting_approval`: the task run is not waiting for approval (not reached yet, already decided, or the execution ended) */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            413: components["responses"]["BodyTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            /** @description `validation_failed`: a required form field is missing, or a value is not of its field's type */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            500: components["responses"]["Internal"];
        };
    };
    rejectTaskRun: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                executionId: string;
                /** @description The task id */
                taskKey: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /** @description Values of the gate's form fields, by field id (approve only; required fields must be given) */
                    inputs?: {
                        [key: string]: unknown;
                    };
                    /** @description Recorded with the decision and the audit event */
                    comment?: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Execution"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description `forbidden`: the caller is not an approver of this gate (role on the namespace below `approvers.role` and in none of `approvers.groups`), or started the execution and `forbid_self_approval` is set, or calls through the AI assistant or MCP */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `execution_not_found`; `task_not_found`: the execution has no such task */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `not_awaiting_approval`: the task run is not waiting for approval (not reached yet, already decided, or the execution ended) */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            413: components["responses"]["BodyTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    pauseExecution: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                executionId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Execution"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description `execution_not_found` */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `execution_ended`: the execution has ended; `not_running`: it is QUEUED or CANCELLING */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    resumeExecution: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                executionId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Execution"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description `execution_not_found` */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `execution_ended`: the execution has ended */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    streamExecutionEvents: {
        parameters: {
            query?: never;
            header?: {
                /** @description The last received event id, to resume the stream without repeats or gaps */
                "Last-Event-ID"?: string;
            };
            path: {
                executionId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description text/event-stream of `execution` and `end` events */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    /** @description Always `no` */
                    "X-Accel-Buffering"?: string;
                    /** @description Always `no-cache` */
                    "Cache-Control"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": string;
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description `execution_not_found` */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    listExecutionInsights: {
        parameters: {
            query?: {
                /** @description Page size, 1 to 200 */
                limit?: number;
                /** @description Opaque cursor from a previous page (`next_cursor`) */
                cursor?: string;
            };
            header?: never;
            path: {
                executionId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: components["schemas"]["Insight"][];
                        /** @description Present when more rows follow; pass it back as `cursor`. */
                        next_cursor?: string;
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description `execution_not_found` */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    requestTriage: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                executionId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Triage requested */
            202: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Insight"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description `execution_not_found` */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `ai_disabled`: no AI provider is configured */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            /** @description `rate_limited`: a daily AI limit (SVC_AI_*_PER_DAY) is reached; `Retry-After` gives the seconds until it resets */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            500: components["responses"]["Internal"];
        };
    };
    getExecutionLogs: {
        parameters: {
            query?: {
                /** @description Lines per page, 1 to 5000 */
                limit?: number;
                /** @description Opaque cursor from a previous page (`next_cursor`) */
                cursor?: string;
                /** @description Selects one task */
                task?: string;
                /** @description Selects one attempt (of every task, or of `task`) */
                attempt?: number;
            };
            header?: never;
            path: {
                executionId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: components["schemas"]["LogLine"][];
                        /** @description Present when more rows follow; pass it back as `cursor`. */
                        next_cursor?: string;
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description `execution_not_found` */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    downloadExecutionLogs: {
        parameters: {
            query?: {
                /** @description Selects one task */
                task?: string;
                /** @description Selects one attempt (of every task, or of `task`) */
                attempt?: number;
            };
            header?: never;
            path: {
                executionId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Plain text, one line per log line */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    /** @description attachment */
                    "Content-Disposition"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description `execution_not_found` */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    streamExecutionLogs: {
        parameters: {
            query?: {
                /** @description Selects one task */
                task?: string;
            };
            header?: {
                /** @description The last received event id, to resume the stream without repeats or gaps */
                "Last-Event-ID"?: string;
            };
            path: {
                executionId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description text/event-stream of `line` and `end` events */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    /** @description Always `no` */
                    "X-Accel-Buffering"?: string;
                    /** @description Always `no-cache` */
                    "Cache-Control"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": string;
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description `execution_not_found` */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    listExecutionMetrics: {
        parameters: {
            query?: {
                /** @description Page size, 1 to 200 */
                limit?: number;
                /** @description Opaque cursor from a previous page (`next_cursor`) */
                cursor?: string;
            };
            header?: never;
            path: {
                executionId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: components["schemas"]["MetricValue"][];
                        /** @description Present when more rows follow; pass it back as `cursor`. */
                        next_cursor?: string;
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description `execution_not_found` */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    rerunExecution: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                executionId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The new execution */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Execution"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description `execution_not_found` */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `not_restartable`: the execution has not ended */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    restartExecution: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                executionId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The new execution */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Execution"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description `execution_not_found` */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `not_restartable`: the execution is not FAILED, TIMED_OUT or CANCELLED */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    replayExecution: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                executionId: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["ReplayRequest"];
            };
        };
        responses: {
            /** @description The plan (`dry_run`): nothing was started */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ReplayPlan"];
                };
            };
            /** @description The new execution */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Execution"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description `execution_not_found`; `flow_not_found`: `latest` of a flow deleted since */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `not_restartable`: the execution has not ended; `flow_disabled`: `latest` of a disabled flow */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            413: components["responses"]["BodyTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            /** @description `validation_failed`: `from` is not a task of the chosen revision, an input is not of its type (`inputs.<id>`), or `latest` of a file run (`revision`) */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            500: components["responses"]["Internal"];
        };
    };
    bulkExecutions: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["BulkExecutionsRequest"];
            };
        };
        responses: {
            /** @description The dry run (`ineligible`), or one outcome per matched execution (`results`) */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BulkExecutionsResult"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description `forbidden`: the caller holds the operator role on no namespace */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            404: components["responses"]["NotFound"];
            413: components["responses"]["BodyTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            /** @description `validation_failed`: an empty filter, or one that matches more than 1,000 executions */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            500: components["responses"]["Internal"];
        };
    };
    listFlows: {
        parameters: {
            query?: {
                /** @description Page size, 1 to 200 */
                limit?: number;
                /** @description Opaque cursor from a previous page (`next_cursor`) */
                cursor?: string;
                /** @description Selects the namespace and its children */
                namespace?: string;
                /** @description Extension: selects the flows whose id, description or namespace contains this text, ignoring case; `%`, `_` and `\` match themselves. At most 200 characters; combines with `namespace`, and the cursor pages through the matches */
                q?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: components["schemas"]["FlowSummary"][];
                        /** @description Present when more rows follow; pass it back as `cursor`. */
                        next_cursor?: string;
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    getFlow: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Dot-separated labels of lower case letters, digits, hyphens; at most 128 chars */
                namespace: string;
                /** @description Lower case letters, digits, hyphens; starts with a letter or digit */
                flowId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Flow"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such flow */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    updateFlow: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Dot-separated labels of lower case letters, digits, hyphens; at most 128 chars */
                namespace: string;
                /** @description Lower case letters, digits, hyphens; starts with a letter or digit */
                flowId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["UpdateFlowRequest"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Flow"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such flow */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            413: components["responses"]["BodyTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    diffFlowRevisions: {
        parameters: {
            query: {
                /** @description Revision id */
                from: string;
                /** @description Revision id; default the current revision */
                to?: string;
            };
            header?: never;
            path: {
                /** @description Dot-separated labels of lower case letters, digits, hyphens; at most 128 chars */
                namespace: string;
                /** @description Lower case letters, digits, hyphens; starts with a letter or digit */
                flowId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FlowRevisionDiff"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such flow */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    triggerFlow: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Dot-separated labels of lower case letters, digits, hyphens; at most 128 chars */
                namespace: string;
                /** @description Lower case letters, digits, hyphens; starts with a letter or digit */
                flowId: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["TriggerFlowRequest"];
            };
        };
        responses: {
            /** @description The new execution */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Execution"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such flow */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `flow_disabled`: the flow is disabled */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            413: components["responses"]["BodyTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    triggerFlowBatch: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Dot-separated labels of lower case letters, digits, hyphens; at most 128 chars */
                namespace: string;
                /** @description Lower case letters, digits, hyphens; starts with a letter or digit */
                flowId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["TriggerFlowBatchRequest"];
            };
        };
        responses: {
            /** @description The dry run: every item checked, nothing created (`executions` empty) */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TriggerFlowBatchResult"];
                };
            };
            /** @description The executions created, in item order */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TriggerFlowBatchResult"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such flow */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `flow_disabled`: the flow is disabled */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `body_too_large`: the body is over the server limit (SVC_MAX_BODY_BYTES) */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            415: components["responses"]["UnsupportedMediaType"];
            /** @description `validation_failed`: no items, more than 1,000, or an item's inputs or labels are invalid */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            500: components["responses"]["Internal"];
        };
    };
    getFlowMetrics: {
        parameters: {
            query: {
                /** @description Metric name */
                metric: string;
                /** @description Tag whose values split the series */
                group_by?: string;
                agg?: "sum" | "avg" | "max";
            };
            header?: never;
            path: {
                /** @description Dot-separated labels of lower case letters, digits, hyphens; at most 128 chars */
                namespace: string;
                /** @description Lower case letters, digits, hyphens; starts with a letter or digit */
                flowId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FlowMetrics"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such flow */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    listFlowRevisions: {
        parameters: {
            query?: {
                /** @description Page size, 1 to 200 */
                limit?: number;
                /** @description Opaque cursor from a previous page (`next_cursor`) */
                cursor?: string;
            };
            header?: never;
            path: {
                /** @description Dot-separated labels of lower case letters, digits, hyphens; at most 128 chars */
                namespace: string;
                /** @description Lower case letters, digits, hyphens; starts with a letter or digit */
                flowId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: components["schemas"]["FlowRevision"][];
                        /** @description Present when more rows follow; pass it back as `cursor`. */
                        next_cursor?: string;
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such flow */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    getFlowRevision: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Dot-separated labels of lower case letters, digits, hyphens; at most 128 chars */
                namespace: string;
                /** @description Lower case letters, digits, hyphens; starts with a letter or digit */
                flowId: string;
                revisionId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FlowRevision"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such flow */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    getFlowStats: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Dot-separated labels of lower case letters, digits, hyphens; at most 128 chars */
                namespace: string;
                /** @description Lower case letters, digits, hyphens; starts with a letter or digit */
                flowId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FlowStats"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such flow */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    rotateWebhookKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Dot-separated labels of lower case letters, digits, hyphens; at most 128 chars */
                namespace: string;
                /** @description Lower case letters, digits, hyphens; starts with a letter or digit */
                flowId: string;
                triggerId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The new key (the old one stops working) */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookKey"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such flow or webhook trigger */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    listUpcomingSchedules: {
        parameters: {
            query?: {
                /** @description Page size, 1 to 200 */
                limit?: number;
                /** @description Opaque cursor from a previous page (`next_cursor`) */
                cursor?: string;
                namespace?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: components["schemas"]["UpcomingSchedule"][];
                        /** @description Present when more rows follow; pass it back as `cursor`. */
                        next_cursor?: string;
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    getFlowSchema: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The JSON Schema of `*.flow.yaml` files, served at /api/v1/schemas/flow.json (not inlined in this document) */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FlowFile"];
                };
            };
            404: components["responses"]["NotFound"];
            500: components["responses"]["Internal"];
        };
    };
    getDashboard: {
        parameters: {
            query?: {
                /** @description 24h: 1-hour buckets; 7d and 30d: 1-day buckets */
                range?: "24h" | "7d" | "30d";
                /** @description Selects the namespace and all its children */
                namespace?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Dashboard"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    listNamespaces: {
        parameters: {
            query?: {
                /** @description Page size, 1 to 200 */
                limit?: number;
                /** @description Opaque cursor from a previous page (`next_cursor`) */
                cursor?: string;
                /** @description Only this namespace and its children */
                parent?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: components["schemas"]["Namespace"][];
                        /** @description Present when more rows follow; pass it back as `cursor`. */
                        next_cursor?: string;
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    createNamespace: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateNamespaceRequest"];
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Namespace"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            /** @description The namespace exists */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            413: components["responses"]["BodyTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    getNamespace: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Dot-separated labels of lower case letters, digits, hyphens; at most 128 chars */
                namespace: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Namespace"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such namespace */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    deleteNamespace: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Dot-separated labels of lower case letters, digits, hyphens; at most 128 chars */
                namespace: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such namespace */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The namespace has children or running executions (`conflict`), or is mapped from a git source (`namespace_read_only`) */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    setNamespaceAllowedCallers: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Dot-separated labels of lower case letters, digits, hyphens; at most 128 chars */
                namespace: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SetAllowedCallersRequest"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Namespace"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such namespace */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            413: components["responses"]["BodyTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    saveChanges: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Dot-separated labels of lower case letters, digits, hyphens; at most 128 chars */
                namespace: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SaveChangesRequest"];
            };
        };
        responses: {
            /** @description The new version */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NamespaceVersion"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such namespace */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `version_conflict` (`base_version` differs from the head) or `namespace_read_only` */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            413: components["responses"]["BodyTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    diffVersions: {
        parameters: {
            query: {
                from: number;
                /** @description Default the head version */
                to?: number;
                path?: string;
            };
            header?: never;
            path: {
                /** @description Dot-separated labels of lower case letters, digits, hyphens; at most 128 chars */
                namespace: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NamespaceDiff"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such namespace */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    getFile: {
        parameters: {
            query: {
                path: string;
                /** @description Default the head version */
                version?: number;
            };
            header?: never;
            path: {
                /** @description Dot-separated labels of lower case letters, digits, hyphens; at most 128 chars */
                namespace: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FileContent"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such namespace or file */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    uploadFile: {
        parameters: {
            query: {
                path: string;
                executable?: boolean;
                message?: string;
            };
            header?: never;
            path: {
                /** @description Dot-separated labels of lower case letters, digits, hyphens; at most 128 chars */
                namespace: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/octet-stream": Blob | ArrayBuffer | Uint8Array | string;
            };
        };
        responses: {
            /** @description The new version */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NamespaceVersion"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such namespace */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `namespace_read_only`: the namespace is mapped from a git source */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Larger than SVC_MAX_FILE_BYTES */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    listFiles: {
        parameters: {
            query?: {
                /** @description Page size, 1 to 200 */
                limit?: number;
                /** @description Opaque cursor from a previous page (`next_cursor`) */
                cursor?: string;
                /** @description Default the head version (versions are int4: a larger one is 422, not a database error) */
                version?: number;
            };
            header?: never;
            path: {
                /** @description Dot-separated labels of lower case letters, digits, hyphens; at most 128 chars */
                namespace: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FilePage"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such namespace */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    getNamespaceGit: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Dot-separated labels of lower case letters, digits, hyphens; at most 128 chars */
                namespace: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NamespaceGit"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such namespace */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    pushNamespaceBranch: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Dot-separated labels of lower case letters, digits, hyphens; at most 128 chars */
                namespace: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PushNamespaceBranchRequest"];
            };
        };
        responses: {
            /** @description The pushed branch */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PushNamespaceBranchResponse"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such namespace, or it is not mapped from git */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            413: components["responses"]["BodyTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            /** @description `validation_failed` (a change does not apply) or `flow_invalid` */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            500: components["responses"]["Internal"];
            /** @description `git_failed`: the remote refused or could not be reached (the message says why, without credentials) */
            502: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    revertVersion: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Dot-separated labels of lower case letters, digits, hyphens; at most 128 chars */
                namespace: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["RevertVersionRequest"];
            };
        };
        responses: {
            /** @description The new version */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NamespaceVersion"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such namespace */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `namespace_read_only`: the namespace is mapped from a git source */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            413: components["responses"]["BodyTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    runFile: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Dot-separated labels of lower case letters, digits, hyphens; at most 128 chars */
                namespace: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["RunFileRequest"];
            };
        };
        responses: {
            /** @description The new execution */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Execution"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such namespace or file */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            413: components["responses"]["BodyTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    validateFile: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Dot-separated labels of lower case letters, digits, hyphens; at most 128 chars */
                namespace: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ValidateFileRequest"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationResult"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such namespace */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            413: components["responses"]["BodyTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    listVersions: {
        parameters: {
            query?: {
                /** @description Page size, 1 to 200 */
                limit?: number;
                /** @description Opaque cursor from a previous page (`next_cursor`) */
                cursor?: string;
            };
            header?: never;
            path: {
                /** @description Dot-separated labels of lower case letters, digits, hyphens; at most 128 chars */
                namespace: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: components["schemas"]["NamespaceVersion"][];
                        /** @description Present when more rows follow; pass it back as `cursor`. */
                        next_cursor?: string;
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such namespace */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    createUpload: {
        parameters: {
            query: {
                /** @description The file name (no directory) */
                name: string;
            };
            header?: never;
            path: {
                /** @description Dot-separated labels of lower case letters, digits, hyphens; at most 128 chars */
                namespace: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/octet-stream": Blob | ArrayBuffer | Uint8Array | string;
            };
        };
        responses: {
            /** @description The upload */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Upload"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            /** @description `too_large`: larger than SVC_MAX_INPUT_FILE_BYTES */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The body does not have the sha256 of `x-svc-sha256`, or a bad name */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            500: components["responses"]["Internal"];
        };
    };
    listNamespaceSecrets: {
        parameters: {
            query?: {
                /** @description Page size, 1 to 200 */
                limit?: number;
                /** @description Opaque cursor from a previous page (`next_cursor`) */
                cursor?: string;
            };
            header?: never;
            path: {
                /** @description Dot-separated labels of lower case letters, digits, hyphens; at most 128 chars */
                namespace: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: components["schemas"]["SecretKey"][];
                        /** @description Present when more rows follow; pass it back as `cursor`. */
                        next_cursor?: string;
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such namespace */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    putNamespaceSecret: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Dot-separated labels of lower case letters, digits, hyphens; at most 128 chars */
                namespace: string;
                key: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PutSecretRequest"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SecretKey"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such namespace */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `builtin_provider_disabled`: SVC_MASTER_KEYS is empty */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            413: components["responses"]["BodyTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    deleteNamespaceSecret: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Dot-separated labels of lower case letters, digits, hyphens; at most 128 chars */
                namespace: string;
                key: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such namespace or secret */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    checkNamespaceSecret: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Dot-separated labels of lower case letters, digits, hyphens; at most 128 chars */
                namespace: string;
                /** @description A builtin key, or `<provider>:<path>[#field]` */
                key: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SecretCheck"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such namespace */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    listNamespaceVariables: {
        parameters: {
            query?: {
                /** @description Page size, 1 to 200 */
                limit?: number;
                /** @description Opaque cursor from a previous page (`next_cursor`) */
                cursor?: string;
            };
            header?: never;
            path: {
                /** @description Dot-separated labels of lower case letters, digits, hyphens; at most 128 chars */
                namespace: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: components["schemas"]["Variable"][];
                        /** @description Present when more rows follow; pass it back as `cursor`. */
                        next_cursor?: string;
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such namespace */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    putNamespaceVariable: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Dot-separated labels of lower case letters, digits, hyphens; at most 128 chars */
                namespace: string;
                key: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PutVariableRequest"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Variable"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such namespace */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            413: components["responses"]["BodyTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    deleteNamespaceVariable: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Dot-separated labels of lower case letters, digits, hyphens; at most 128 chars */
                namespace: string;
                key: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such namespace or variable */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    listGlobalSecrets: {
        parameters: {
            query?: {
                /** @description Page size, 1 to 200 */
                limit?: number;
                /** @description Opaque cursor from a previous page (`next_cursor`) */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: components["schemas"]["SecretKey"][];
                        /** @description Present when more rows follow; pass it back as `cursor`. */
                        next_cursor?: string;
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    putGlobalSecret: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                key: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PutSecretRequest"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SecretKey"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            /** @description `builtin_provider_disabled`: SVC_MASTER_KEYS is empty */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            413: components["responses"]["BodyTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    deleteGlobalSecret: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                key: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such secret */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    checkGlobalSecret: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A builtin key, or `<provider>:<path>[#field]` */
                key: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SecretCheck"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    listGlobalVariables: {
        parameters: {
            query?: {
                /** @description Page size, 1 to 200 */
                limit?: number;
                /** @description Opaque cursor from a previous page (`next_cursor`) */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: components["schemas"]["Variable"][];
                        /** @description Present when more rows follow; pass it back as `cursor`. */
                        next_cursor?: string;
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    putGlobalVariable: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                key: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PutVariableRequest"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Variable"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["BodyTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    deleteGlobalVariable: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                key: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such variable */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    listSecretProviders: {
        parameters: {
            query?: {
                /** @description Page size, 1 to 200 */
                limit?: number;
                /** @description Opaque cursor from a previous page (`next_cursor`) */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: components["schemas"]["SecretProvider"][];
                        /** @description Present when more rows follow; pass it back as `cursor`. */
                        next_cursor?: string;
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    createSecretProvider: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SecretProviderRequest"];
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SecretProvider"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            /** @description A provider with this name exists (`conflict`), or credentials while SVC_MASTER_KEYS is empty (`builtin_provider_disabled`) */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            413: components["responses"]["BodyTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    updateSecretProvider: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Lower case letters, digits, _ and -; starts with a letter or digit; at most 63 chars */
                name: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["UpdateSecretProviderRequest"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SecretProvider"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such provider */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `builtin_provider_disabled` (credentials while SVC_MASTER_KEYS is empty) or `master_key_missing` (kept credentials sealed with an unlisted key) */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            413: components["responses"]["BodyTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    deleteSecretProvider: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Lower case letters, digits, _ and -; starts with a letter or digit; at most 63 chars */
                name: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such provider */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    checkSecretProvider: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Lower case letters, digits, _ and -; starts with a letter or digit; at most 63 chars */
                name: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SecretProviderCheck"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such provider */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    listPlatformSecrets: {
        parameters: {
            query?: {
                /** @description Page size, 1 to 200 */
                limit?: number;
                /** @description Opaque cursor from a previous page (`next_cursor`) */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: components["schemas"]["PlatformSecret"][];
                        /** @description Present when more rows follow; pass it back as `cursor`. */
                        next_cursor?: string;
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    putPlatformSecret: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A platform secret name (the characters of a builtin secret key) */
                name: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PutPlatformSecretRequest"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PlatformSecret"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            /** @description `builtin_provider_disabled`: SVC_MASTER_KEYS is empty */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            413: components["responses"]["BodyTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    deletePlatformSecret: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A platform secret name (the characters of a builtin secret key) */
                name: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such platform secret */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    listGitSources: {
        parameters: {
            query?: {
                /** @description Page size, 1 to 200 */
                limit?: number;
                /** @description Opaque cursor from a previous page (`next_cursor`) */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: components["schemas"]["GitSource"][];
                        /** @description Present when more rows follow; pass it back as `cursor`. */
                        next_cursor?: string;
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    createGitSource: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["GitSourceRequest"];
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["GitSource"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            /** @description The name is taken, or a mapped namespace is mapped by another source */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            413: components["responses"]["BodyTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    getGitSource: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                sourceId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["GitSource"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such git source */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    updateGitSource: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                sourceId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["GitSourceRequest"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["GitSource"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such git source */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The name is taken, or a mapped namespace is mapped by another source */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            413: components["responses"]["BodyTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    deleteGitSource: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                sourceId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such git source */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    listGitSyncRuns: {
        parameters: {
            query?: {
                /** @description Page size, 1 to 200 */
                limit?: number;
                /** @description Opaque cursor from a previous page (`next_cursor`) */
                cursor?: string;
            };
            header?: never;
            path: {
                sourceId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: components["schemas"]["GitSyncRun"][];
                        /** @description Present when more rows follow; pass it back as `cursor`. */
                        next_cursor?: string;
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such git source */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    syncGitSource: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                sourceId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Sync requested */
            202: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["GitSyncRun"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such git source */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    listInstances: {
        parameters: {
            query?: {
                /** @description Page size, 1 to 200 */
                limit?: number;
                /** @description Opaque cursor from a previous page (`next_cursor`) */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: components["schemas"]["Instance"][];
                        /** @description Present when more rows follow; pass it back as `cursor`. */
                        next_cursor?: string;
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    getStorageStatus: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StorageStatus"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            500: components["responses"]["Internal"];
        };
    };
    listAuditEvents: {
        parameters: {
            query?: {
                /** @description Page size, 1 to 200 */
                limit?: number;
                /** @description Opaque cursor from a previous page (`next_cursor`) */
                cursor?: string;
                /** @description Only this action, for example execution.cancel; a trailing `*` matches a prefix (`user.*`) */
                action?: string;
                /** @description Only events of this actor: a user id or email */
                actor?: string;
                /** @description Only events on this resource: a type (`execution`) or a type and id (`execution:01J...`), as the events' `target` shows it */
                resource?: string;
                /** @description Only events in this namespace or one below it (their `payload.namespace`): namespace, file, flow and execution events */
                namespace?: string;
                /** @description Only events at or after this time */
                from?: string;
                /** @description Only events before this time */
                to?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: components["schemas"]["AuditEvent"][];
                        /** @description Present when more rows follow; pass it back as `cursor`. */
                        next_cursor?: string;
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    exportAuditEvents: {
        parameters: {
            query?: {
                /** @description Only this action, for example execution.cancel; a trailing `*` matches a prefix (`user.*`) */
                action?: string;
                /** @description Only events of this actor: a user id or email */
                actor?: string;
                /** @description Only events on this resource: a type (`execution`) or a type and id (`execution:01J...`), as the events' `target` shows it */
                resource?: string;
                /** @description Only events in this namespace or one below it (their `payload.namespace`): namespace, file, flow and execution events */
                namespace?: string;
                /** @description Only events at or after this time */
                from?: string;
                /** @description Only events before this time */
                to?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description application/x-ndjson: one AuditEvent object per line */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    /** @description attachment */
                    "Content-Disposition"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/x-ndjson": string;
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    listAIConversations: {
        parameters: {
            query?: {
                /** @description Page size, 1 to 200 */
                limit?: number;
                /** @description Opaque cursor from a previous page (`next_cursor`) */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: components["schemas"]["AIConversation"][];
                        /** @description Present when more rows follow; pass it back as `cursor`. */
                        next_cursor?: string;
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    createAIConversation: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["CreateAIConversationRequest"];
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AIConversation"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            /** @description `ai_disabled`: no AI provider is configured */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            413: components["responses"]["BodyTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    getAIConversation: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                conversationId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AIConversation"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such conversation */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    deleteAIConversation: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                conversationId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such conversation */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    sendAIMessage: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                conversationId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SendAIMessageRequest"];
            };
        };
        responses: {
            /** @description text/event-stream of the events of one assistant turn */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    /** @description Always `no` */
                    "X-Accel-Buffering"?: string;
                    /** @description Always `no-cache` */
                    "Cache-Control"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": string;
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such conversation */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `ai_disabled`: no AI provider is configured */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            413: components["responses"]["BodyTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            /** @description `rate_limited`: a daily AI limit (SVC_AI_*_PER_DAY) is reached; `Retry-After` gives the seconds until it resets */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            500: components["responses"]["Internal"];
        };
    };
    confirmAIAction: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                conversationId: string;
                actionId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AIActionOutcome"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such conversation or action */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The action was already decided */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    rejectAIAction: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                conversationId: string;
                actionId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Acknowledged"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such conversation or action */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The action was already decided */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    getAIProvider: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AIProvider"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No provider is configured */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            500: components["responses"]["Internal"];
        };
    };
    putAIProvider: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AIProviderRequest"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AIProvider"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["BodyTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    deleteAIProvider: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            500: components["responses"]["Internal"];
        };
    };
    testAIProvider: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["AIProviderRequest"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        ok: boolean;
                        error?: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            /** @description `ai_disabled`: no AI provider is configured */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            413: components["responses"]["BodyTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    getAIUsage: {
        parameters: {
            query?: {
                /** @description A UTC day, YYYY-MM-DD; default today */
                day?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AIUsage"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    getAIStatus: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AIStatus"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            500: components["responses"]["Internal"];
        };
    };
    listOrganizations: {
        parameters: {
            query?: {
                /** @description Page size, 1 to 200 */
                limit?: number;
                /** @description Opaque cursor from a previous page (`next_cursor`) */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: components["schemas"]["Organization"][];
                        /** @description Present when more rows follow; pass it back as `cursor`. */
                        next_cursor?: string;
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    createOrganization: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name: string;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Organization"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            /** @description An organization of that name exists */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            413: components["responses"]["BodyTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    updateOrganization: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                organization: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Emails per UTC day */
                    daily_quota?: number | null;
                    /** @description Replaces the list: namespaces whose alert rules may name the organization in an email channel, each with its children; [] allows none */
                    namespaces?: string[];
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Organization"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such organization */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            413: components["responses"]["BodyTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    createOrganizationKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                organization: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    name?: string;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CreatedOrganizationKey"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such organization */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            413: components["responses"]["BodyTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    revokeOrganizationKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                organization: string;
                keyId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Revoked */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such organization or key */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    addOrganizationSender: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                organization: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    value: string;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OrganizationSender"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such organization */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            413: components["responses"]["BodyTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    removeOrganizationSender: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                organization: string;
                sender: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Removed */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such organization or sender */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    listOrganizationEmails: {
        parameters: {
            query?: {
                /** @description Page size, 1 to 200 */
                limit?: number;
                /** @description Opaque cursor from a previous page (`next_cursor`) */
                cursor?: string;
            };
            header?: never;
            path: {
                organization: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: components["schemas"]["OrganizationEmail"][];
                        /** @description Present when more rows follow; pass it back as `cursor`. */
                        next_cursor?: string;
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such organization */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    listAlertRules: {
        parameters: {
            query?: {
                /** @description Page size, 1 to 200 */
                limit?: number;
                /** @description Opaque cursor from a previous page (`next_cursor`) */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: components["schemas"]["AlertRule"][];
                        /** @description Present when more rows follow; pass it back as `cursor`. */
                        next_cursor?: string;
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    createAlertRule: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateAlertRuleRequest"];
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AlertRule"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["BodyTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    getAlertRule: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                ruleId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AlertRule"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such alert rule */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    deleteAlertRule: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                ruleId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such alert rule */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    updateAlertRule: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                ruleId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["UpdateAlertRuleRequest"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AlertRule"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such alert rule */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            413: components["responses"]["BodyTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    listAlertDeliveries: {
        parameters: {
            query?: {
                /** @description Page size, 1 to 200 */
                limit?: number;
                /** @description Opaque cursor from a previous page (`next_cursor`) */
                cursor?: string;
            };
            header?: never;
            path: {
                ruleId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: components["schemas"]["AlertDelivery"][];
                        /** @description Present when more rows follow; pass it back as `cursor`. */
                        next_cursor?: string;
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such alert rule */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    listBackfills: {
        parameters: {
            query?: {
                /** @description Page size, 1 to 200 */
                limit?: number;
                /** @description Opaque cursor from a previous page (`next_cursor`) */
                cursor?: string;
            };
            header?: never;
            path: {
                /** @description Dot-separated labels of lower case letters, digits, hyphens; at most 128 chars */
                namespace: string;
                /** @description Lower case letters, digits, hyphens; starts with a letter or digit */
                flowId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: components["schemas"]["Backfill"][];
                        /** @description Present when more rows follow; pass it back as `cursor`. */
                        next_cursor?: string;
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such flow */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    createBackfill: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Dot-separated labels of lower case letters, digits, hyphens; at most 128 chars */
                namespace: string;
                /** @description Lower case letters, digits, hyphens; starts with a letter or digit */
                flowId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateBackfillRequest"];
            };
        };
        responses: {
            /** @description The preview (dry_run): nothing created */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BackfillPreview"];
                };
            };
            /** @description Created */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Backfill"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such flow or trigger */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            413: components["responses"]["BodyTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            /** @description Not a schedule trigger, no fire time in the range, too many, or a range in the future */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            500: components["responses"]["Internal"];
        };
    };
    getBackfill: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                backfillId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Backfill"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such backfill */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    pauseBackfill: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                backfillId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Backfill"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such backfill */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Not running */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    resumeBackfill: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                backfillId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Backfill"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such backfill */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Not paused */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    cancelBackfill: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                backfillId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Backfill"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such backfill */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Already cancelled or done */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    listRoleBindings: {
        parameters: {
            query?: {
                /** @description Dot-separated labels of lower case letters, digits, hyphens; at most 128 chars */
                namespace?: string;
                /** @description A user id or email */
                user?: string;
                group?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RoleBindingList"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    createRoleBinding: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateRoleBindingRequest"];
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RoleBinding"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such user */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The user or group already has a binding on this namespace */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            413: components["responses"]["BodyTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    deleteRoleBinding: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                bindingId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such role binding */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    getSsoStatus: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SsoStatus"];
                };
            };
            404: components["responses"]["NotFound"];
            500: components["responses"]["Internal"];
        };
    };
    getOidcSettings: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OidcSettings"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description Not configured */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            500: components["responses"]["Internal"];
        };
    };
    putOidcSettings: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["OidcSettingsRequest"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OidcSettings"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["BodyTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            /** @description Invalid settings, an unknown secret, or an issuer whose discovery document cannot be read */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            500: components["responses"]["Internal"];
        };
    };
    deleteOidcSettings: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Removed */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description Not configured */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            500: components["responses"]["Internal"];
        };
    };
    getOidcLink: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SsoLink"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            500: components["responses"]["Internal"];
        };
    };
    startOidcLink: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SsoLinkStart"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            /** @description Single sign-on is not configured, or the caller is not signed in with a browser session */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            500: components["responses"]["Internal"];
        };
    };
    oidcLogout: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SsoLogout"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            500: components["responses"]["Internal"];
        };
    };
    runnerGetSpec: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                taskRunId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RunnerSpec"];
                };
            };
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    runnerGetBundle: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                taskRunId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Archive bytes; `bundle_hash` of the spec identifies it */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/octet-stream": string;
                };
            };
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    runnerHeartbeat: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                taskRunId: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["RunnerHeartbeatRequest"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RunnerHeartbeatResponse"];
                };
            };
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            /** @description The task run has ended (the runner should stop) */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            413: components["responses"]["BodyTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    runnerPostLogs: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                taskRunId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["RunnerLogsRequest"];
            };
        };
        responses: {
            /** @description Stored */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            /** @description The task run has ended (the runner should stop) */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            413: components["responses"]["BodyTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    runnerPostEvents: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                taskRunId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["RunnerEventsRequest"];
            };
        };
        responses: {
            /** @description Stored */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            /** @description The task run has ended (the runner should stop) */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            413: components["responses"]["BodyTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    runnerPutArtifact: {
        parameters: {
            query?: {
                /** @description `output`: a file matched by the task's `output_files` */
                kind?: "artifact" | "output";
            };
            header?: never;
            path: {
                taskRunId: string;
                name: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/octet-stream": Blob | ArrayBuffer | Uint8Array | string;
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        [key: string]: unknown;
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            /** @description The task run has ended (the runner should stop) */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Larger than SVC_MAX_ARTIFACT_BYTES */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The body does not have the sha256 of `x-svc-sha256` */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            500: components["responses"]["Internal"];
        };
    };
    runnerGetFile: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                taskRunId: string;
                artifactId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The bytes of the file */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/octet-stream": string;
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description No such file in this execution (or its content is gone from the object store) */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The task run has ended (the runner should stop) */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    runnerComplete: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                taskRunId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["RunnerCompleteRequest"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        [key: string]: unknown;
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            /** @description The task run has ended (the runner should stop) */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            413: components["responses"]["BodyTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    webhookStart: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                key: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "*/*": unknown;
            };
        };
        responses: {
            /** @description The execution started */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ExecutionRef"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description Unknown key */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `flow_disabled`: the flow is disabled */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
    gitPushWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                sourceId: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": unknown;
            };
        };
        responses: {
            /** @description Accepted */
            202: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        [key: string]: unknown;
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description Unknown source */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            413: components["responses"]["BodyTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["Internal"];
        };
    };
}
/** Per operation, the query parameters with a default: the server fills them in before a handler runs. */
export interface queryDefaults {
    getDashboard: "range";
    getExecutionLogs: "limit";
    getFlowMetrics: "agg";
    listAIConversations: "limit";
    listAlertDeliveries: "limit";
    listAlertRules: "limit";
    listAuditEvents: "limit";
    listBackfills: "limit";
    listExecutionArtifacts: "limit";
    listExecutionInsights: "limit";
    listExecutionMetrics: "limit";
    listExecutions: "limit";
    listFiles: "limit";
    listFlowRevisions: "limit";
    listFlows: "limit";
    listGitSources: "limit";
    listGitSyncRuns: "limit";
    listGlobalSecrets: "limit";
    listGlobalVariables: "limit";
    listInstances: "limit";
    listNamespaceSecrets: "limit";
    listNamespaceVariables: "limit";
    listNamespaces: "limit";
    listOrganizationEmails: "limit";
    listOrganizations: "limit";
    listPlatformSecrets: "limit";
    listSecretProviders: "limit";
    listTokens: "limit";
    listUpcomingSchedules: "limit";
    listUsers: "limit";
    listVersions: "limit";
    runnerPutArtifact: "kind";
    uploadFile: "executable";
}
/** Per operation, its `x-min-role`: the minimum role, or the kind of credential outside the role table. */
export interface minRoles {
    addOrganizationSender: "admin";
    approveTaskRun: "viewer";
    bulkExecutions: "operator";
    cancelBackfill: "operator";
    cancelExecution: "operator";
    changePassword: "viewer";
    checkGlobalSecret: "admin";
    checkNamespaceSecret: "editor";
    checkSecretProvider: "admin";
    confirmAIAction: "viewer";
    createAIConversation: "viewer";
    createAlertRule: "editor";
    createBackfill: "operator";
    createGitSource: "admin";
    createNamespace: "admin";
    createOrganization: "admin";
    createOrganizationKey: "admin";
    createRoleBinding: "admin";
    createSecretProvider: "admin";
    createToken: "viewer";
    createUpload: "operator";
    createUser: "admin";
    deleteAIConversation: "viewer";
    deleteAIProvider: "admin";
    deleteAlertRule: "editor";
    deleteGitSource: "admin";
    deleteGlobalSecret: "admin";
    deleteGlobalVariable: "admin";
    deleteNamespace: "admin";
    deleteNamespaceSecret: "editor";
    deleteNamespaceVariable: "editor";
    deleteOidcSettings: "admin";
    deletePlatformSecret: "admin";
    deleteRoleBinding: "admin";
    deleteSecretProvider: "admin";
    diffFlowRevisions: "viewer";
    diffVersions: "viewer";
    downloadArtifact: "viewer";
    downloadExecutionLogs: "viewer";
    exportAuditEvents: "admin";
    getAIConversation: "viewer";
    getAIProvider: "viewer";
    getAIStatus: "viewer";
    getAIUsage: "admin";
    getAlertRule: "viewer";
    getBackfill: "viewer";
    getDashboard: "viewer";
    getExecution: "viewer";
    getExecutionLogs: "viewer";
    getFile: "viewer";
    getFlow: "viewer";
    getFlowMetrics: "viewer";
    getFlowRevision: "viewer";
    getFlowSchema: "public";
    getFlowStats: "viewer";
    getGitSource: "viewer";
    getMe: "viewer";
    getNamespace: "viewer";
    getNamespaceGit: "viewer";
    getOidcLink: "viewer";
    getOidcSettings: "admin";
    getSsoStatus: "public";
    getStorageStatus: "admin";
    gitPushWebhook: "signature";
    listAIConversations: "viewer";
    listAlertDeliveries: "viewer";
    listAlertRules: "viewer";
    listAuditEvents: "admin";
    listBackfills: "viewer";
    listExecutionArtifacts: "viewer";
    listExecutionInsights: "viewer";
    listExecutionMetrics: "viewer";
    listExecutions: "viewer";
    listFiles: "viewer";
    listFlowRevisions: "viewer";
    listFlows: "viewer";
    listGitSources: "viewer";
    listGitSyncRuns: "viewer";
    listGlobalSecrets: "viewer";
    listGlobalVariables: "viewer";
    listInstances: "admin";
    listNamespaceSecrets: "viewer";
    listNamespaceVariables: "viewer";
    listNamespaces: "viewer";
    listOrganizationEmails: "admin";
    listOrganizations: "admin";
    listPlatformSecrets: "admin";
    listRoleBindings: "admin";
    listSecretProviders: "viewer";
    listTokens: "viewer";
    listUpcomingSchedules: "viewer";
    listUsers: "admin";
    listVersions: "viewer";
    login: "public";
    logout: "viewer";
    oidcLogout: "viewer";
    pauseBackfill: "operator";
    pauseExecution: "operator";
    pushNamespaceBranch: "editor";
    putAIProvider: "admin";
    putGlobalSecret: "admin";
    putGlobalVariable: "admin";
    putNamespaceSecret: "editor";
    putNamespaceVariable: "editor";
    putOidcSettings: "admin";
    putPlatformSecret: "admin";
    rejectAIAction: "viewer";
    rejectTaskRun: "viewer";
    removeOrganizationSender: "admin";
    replayExecution: "operator";
    requestTriage: "operator";
    rerunExecution: "operator";
    resetUserPassword: "admin";
    restartExecution: "operator";
    resumeBackfill: "operator";
    resumeExecution: "operator";
    revertVersion: "editor";
    revokeOrganizationKey: "admin";
    revokeOtherSessions: "viewer";
    revokeToken: "viewer";
    rotateWebhookKey: "editor";
    runFile: "operator";
    runnerComplete: "run_token";
    runnerGetBundle: "run_token";
    runnerGetFile: "run_token";
    runnerGetSpec: "run_token";
    runnerHeartbeat: "run_token";
    runnerPostEvents: "run_token";
    runnerPostLogs: "run_token";
    runnerPutArtifact: "run_token";
    saveChanges: "editor";
    sendAIMessage: "viewer";
    setNamespaceAllowedCallers: "admin";
    startOidcLink: "viewer";
    streamExecutionEvents: "viewer";
    streamExecutionLogs: "viewer";
    syncGitSource: "admin";
    testAIProvider: "admin";
    triggerFlow: "operator";
    triggerFlowBatch: "operator";
    updateAlertRule: "editor";
    updateFlow: "editor";
    updateGitSource: "admin";
    updateMe: "viewer";
    updateOrganization: "admin";
    updateSecretProvider: "admin";
    updateUser: "admin";
    uploadFile: "editor";
    validateFile: "editor";
    webhookStart: "webhook_key";
}
