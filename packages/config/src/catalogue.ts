// The catalogue of every SVC_* variable: the configuration table of docs/operating/configuration.md is
// generated from it and parseConfig reads variables only by these names, so the
// two cannot drift apart. Where `default` is parseable it is the very text the
// parser receives when the variable is unset; `derived` marks defaults computed
// from other values, whose text here is prose for the reader.

/** One row of the configuration table. */
export interface VariableDescription {
  /** The environment variable, e.g. `SVC_PORT`. */
  variable: string;
  /** The default as an operator would write it, or null when unset means "off" / "not used". */
  default: string | null;
  /** One line: what it does and what it accepts. */
  description: string;
}

interface CatalogueEntry extends VariableDescription {
  /** The value must never be echoed (error messages, logs). Implies `credential`. */
  secret?: true;
  /**
   * The value holds a credential (a key, a token, a password inside a URL), so
   * it can also be given as a file named by `<variable>_FILE` (secret-files.ts).
   */
  credential?: true;
  /** The default is computed from other variables or the machine; `default` is prose. */
  derived?: true;
}

export const CATALOGUE = [
  // --- server ---
  { variable: 'SVC_PORT', default: '8080', description: 'TCP port the API gateway (UI, API, runner protocol, /metrics) listens on; 0 picks a free port.' },
  { variable: 'SVC_HOST', default: '127.0.0.1', description: 'Address the API gateway binds to; 0.0.0.0 or :: to accept connections from other machines.' },
  {
    variable: 'SVC_PUBLIC_URL',
    default: 'http://SVC_HOST:SVC_PORT',
    derived: true,
    description: 'External http(s) URL of the service as browsers see it: the allowed Origin of cookie requests, and the Secure cookie flag when https.',
  },
  {
    variable: 'SVC_HEALTH_PORT',
    default: null,
    description:
      'TCP port on which the scheduler, dispatcher and maintenance processes serve GET /healthz (liveness), /readyz (database reachable, migrations matching this build, started) and /metrics, bound on SVC_HOST; 0 picks a free port. Unset: not served (the images set 9464). The API gateway serves these routes on SVC_PORT. Under npm start (svc local), maintenance takes this port, the scheduler the next and the dispatcher the one after.',
  },
  {
    variable: 'SVC_METRICS_PORT',
    default: null,
    description: 'Former name of SVC_HEALTH_PORT, read when SVC_HEALTH_PORT is unset.',
  },
  {
    variable: 'SVC_HTTP_KEEPALIVE_TIMEOUT',
    default: '75s',
    description:
      'Duration an idle keep-alive connection to the API gateway (and to the health servers) stays open (1s to 1h); keep it above the idle timeout of any proxy or load balancer in front (60s for AWS ALB, nginx and most others), or the proxy reuses connections the gateway is closing and answers 502.',
  },
  {
    variable: 'SVC_HTTP_HEADERS_TIMEOUT',
    default: 'SVC_HTTP_KEEPALIVE_TIMEOUT + 1s',
    derived: true,
    description:
      'Duration within which a client must send the headers of a request before the connection is closed; longer than SVC_HTTP_KEEPALIVE_TIMEOUT (at most 1h). Event streams and uploads are not limited by it.',
  },
  {
    variable: 'SVC_SHUTDOWN_DRAIN',
    default: '0s',
    description:
      "Duration (0s to 10m) a stopping API gateway drains before it closes: from SIGTERM its /readyz/traffic answers 503, so a load balancer that routes by it sends new requests elsewhere, while it still serves every request and event stream it gets (each answer closes its connection); then it ends its event streams (clients resume elsewhere with Last-Event-ID) and waits for the requests in flight. Set it a little longer than the balancer's health-check interval times its fall count; the shipped manifests set 10s (docs/operating/upgrades.md).",
  },
  {
    variable: 'SVC_SSE_KEEPALIVE_MS',
    default: '15000',
    description:
      'Milliseconds without data after which an event stream of the API gateway sends a keep-alive comment (10 to 3600000); shorten it for proxies with short idle timeouts.',
  },
  {
    variable: 'SVC_TRUST_PROXY',
    default: 'false',
    description:
      'Which proxies may tell the client address in X-Forwarded-For (the per-IP login limit and the audit log use it): false trusts none (the socket address counts); a number N trusts N proxy hops (an ingress, a load balancer); or a comma-separated list of loopback, linklocal, uniquelocal, IP addresses and CIDR ranges.',
  },
  {
    variable: 'SVC_BUILD_VERSION',
    default: "the repository's version (0.0.0-dev)",
    derived: true,
    description:
      "The release this instance reports (the instances list, svc_build_info on /metrics, the docker executor's guard for other runner versions). The images set it from their VERSION build argument; set it yourself only to override that.",
  },
  { variable: 'SVC_INSTANCE_NAME', default: 'the host name', derived: true, description: 'Name of this instance as listed under instances and in logs.' },
  // --- data ---
  {
    variable: 'SVC_DATA_DIR',
    default: '.svc-data under the working directory',
    derived: true,
    description: 'Directory for local state: the embedded PostgreSQL, the generated master key, and file storage by default. Relative paths resolve against the working directory.',
  },
  {
    variable: 'SVC_WORK_DIR',
    default: 'SVC_DATA_DIR/work',
    derived: true,
    description:
      "Where the process executor keeps its tasks' working directories (one per slot, brought back to the snapshot's files before each task), its extracted bundles and per-slot output directories; relative paths resolve against the working directory.",
  },
  {
    variable: 'SVC_DATABASE_URL',
    default: null,
    credential: true,
    description: 'PostgreSQL URL (postgres://USER:PASSWORD@HOST:PORT/DB). When unset, an embedded PostgreSQL is started with its data under SVC_DATA_DIR.',
  },
  {
    variable: 'SVC_DATABASE_WAIT',
    default: '60s',
    description:
      'How long a service, and the migrate command of the images, keeps trying to reach PostgreSQL at start while it is not listening, not in DNS yet or still starting up, before it exits with an error; 0s tries once. A wrong password or a missing database ends it at once.',
  },
  {
    variable: 'SVC_STORAGE_URL',
    default: 'file://SVC_DATA_DIR/objects',
    derived: true,
    credential: true,
    description: 'Object store for bundles, files, logs and artifacts: file:///ABSOLUTE/DIR, or s3://KEY:SECRET@HOST:PORT/BUCKET?ssl=true|false&region=REGION for S3 or MinIO.',
  },
  {
    variable: 'SVC_MASTER_KEYS',
    default: null,
    secret: true,
    description:
      'Comma-separated KEY_ID:BASE64 keys of 32 bytes each (openssl rand -base64 32) that encrypt builtin secrets; the first encrypts, all decrypt. Unset: secret writes are refused, except in embedded mode where a key is generated once in the data dir.',
  },
  {
    variable: 'SVC_RETENTION_DAYS',
    default: '90',
    description:
      'Days after their end that executions, with their task runs, logs, metrics, artifacts and AI insights, are kept; also ended (cancelled, done) backfills with their fire times, after their end; also the daily AI usage counters (ai_usage), after their UTC day.',
  },
  // --- auth ---
  { variable: 'SVC_SESSION_TTL', default: '168h', description: 'Lifetime of a login session after its last use, as a duration (e.g. 12h, 30m).' },
  {
    variable: 'SVC_ADMIN_EMAIL',
    default: null,
    description:
      'Email of the admin created at start when no user exists; needs SVC_ADMIN_PASSWORD. In embedded mode without it, admin@localhost is created with a printed password.',
  },
  { variable: 'SVC_ADMIN_PASSWORD', default: null, secret: true, description: 'Password of the SVC_ADMIN_EMAIL admin; needs SVC_ADMIN_EMAIL.' },
  // --- execution ---
  {
    variable: 'SVC_POOLS',
    default: 'default',
    description: 'Comma-separated pools this instance serves (lower-case letters, digits and hyphens, at most 63 characters each).',
  },
  {
    variable: 'SVC_EXECUTORS',
    default: 'process',
    description:
      'Comma-separated executor types this instance runs: process, docker, kubernetes. The inline executor is always on; "inline" alone enables only it. A dispatcher advertises docker only while its Docker engine (SVC_DOCKER_HOST) answers, and kubernetes only with a cluster configuration (SVC_K8S_API_URL, or in-cluster).',
  },
  {
    variable: 'SVC_DEFAULT_EXECUTOR',
    default: 'process',
    description:
      'Executor type of tasks whose task, flow and namespace.yaml name none: process, docker or kubernetes. Read where executions are created (the API gateway, the scheduler), not by the dispatcher: give every app the same value.',
  },
  {
    variable: 'SVC_DEFAULT_IMAGE',
    default: null,
    description: 'Container image of docker and kubernetes tasks whose task, flow and namespace.yaml name none; unset: such a task fails executor_error naming the missing image.',
  },
  {
    variable: 'SVC_WORKER_SLOTS',
    default: '8',
    description: 'Task runs one dispatcher instance runs at once for each executor type (process, docker, inline; kubernetes has SVC_K8S_MAX_JOBS).',
  },
  {
    variable: 'SVC_K8S_MAX_JOBS',
    default: '50',
    description: "Kubernetes Jobs one dispatcher instance keeps running at once (the kubernetes executor's slots; SVC_WORKER_SLOTS does not apply to it).",
  },
  {
    variable: 'SVC_HEARTBEAT_TIMEOUT',
    default: '60s',
    description:
      'Duration after which a docker or kubernetes task run whose instance is offline and whose task heartbeat is older fails with reason lost (the container may outlive its dispatcher and keeps reporting).',
  },
  {
    variable: 'SVC_RUNNER_CHECKIN_TIMEOUT',
    default: '60s',
    description:
      "Duration after its container or pod started within which a docker or kubernetes task's runner must call the API gateway (at SVC_RUNNER_URL); a runner that has not ends the task run FAILED, reason executor_error, with an error naming the address it was given, and the dispatcher's /readyz details say so (runner_url) until a runner calls in again.",
  },
  {
    variable: 'SVC_KILL_DELAY_MS',
    default: '10000',
    description: 'Milliseconds between SIGTERM and SIGKILL when the runner stops a task process group (cancel, timeout); 0 to 3600000.',
  },
  {
    variable: 'SVC_TASK_USER',
    default: 'nobody',
    description:
      "OS user (name or uid) the process executor runs task processes as when the dispatcher runs as root; its working and output directories are given to that user and the data directory is closed to it. A dedicated user (useradd --system svc-task) is better than the shared nobody. root: tasks run as root (no isolation). Ignored when the dispatcher is not root (tasks then run as the dispatcher's user).",
  },
  {
    variable: 'SVC_SPAWN_HELPER',
    default: 'auto',
    description:
      "The small process that spawns the process executor's task processes: perl (a Perl script; a fork of it costs a fraction of a Node runtime's), node (a bare Node runtime), or auto: perl when a perl is on the PATH, else node. perl without one stops the dispatcher at start.",
  },
  {
    variable: 'SVC_DOCKER_HOST',
    default: null,
    description:
      'Docker Engine API address of the docker executor: unix:///var/run/docker.sock, tcp://HOST[:PORT] (TLS with SVC_DOCKER_TLS_VERIFY, default port 2376; plain HTTP, default port 2375, only to a loopback host unless SVC_DOCKER_ALLOW_PLAINTEXT=true), https://HOST[:PORT] (always TLS), ssh://USER@HOST; unset: DOCKER_HOST, else /var/run/docker.sock. Checked at start (exit 2), before any connection.',
  },
  {
    variable: 'SVC_DOCKER_TLS_VERIFY',
    default: null,
    description:
      "true: the docker executor reaches a tcp:// engine over TLS, verifying the engine's certificate against ca.pem and presenting cert.pem and key.pem from SVC_DOCKER_CERT_PATH (the docker CLI's --tlsverify); false: plain HTTP. Unset: DOCKER_TLS_VERIFY, which, as the docker CLI reads it, turns TLS on when set to anything non-empty.",
  },
  {
    variable: 'SVC_DOCKER_CERT_PATH',
    default: null,
    description:
      "Directory holding ca.pem (the CA of the Docker engine), cert.pem and key.pem (the dispatcher's client certificate and key) for a TLS engine; unset: DOCKER_CERT_PATH, else ~/.docker. A missing, unreadable or non-PEM file stops the dispatcher at start (exit 2) naming the file.",
  },
  {
    variable: 'SVC_DOCKER_ALLOW_PLAINTEXT',
    default: 'false',
    description:
      "true: the docker executor may reach a non-loopback engine over plain HTTP (tcp:// without TLS, http://), which anyone on the path can read and drive (root on the engine's host); false: such an address stops the dispatcher at start (exit 2). A loopback engine (localhost, 127.0.0.0/8, ::1) is always allowed.",
  },
  {
    variable: 'SVC_DOCKER_NETWORK',
    default: 'svc-tasks',
    description:
      "Network of docker tasks that name none: svc-tasks (the default) is a bridge network the dispatcher creates when missing (labelled, not internal: tasks reach the outside and the gateway at SVC_RUNNER_URL, not the host's loopback); any other name must exist; host puts tasks on the host's network (no network isolation). Always allowed, whatever SVC_DOCKER_NETWORKS says.",
  },
  {
    variable: 'SVC_DOCKER_NETWORK_INTERNAL',
    default: 'false',
    description:
      "true: the svc-tasks network is created internal (Docker's --internal: no route out, tasks reach only containers attached to it, not the host, the internet or a metadata address); attach the gateway to it (docker network connect svc-tasks GATEWAY) and set SVC_RUNNER_URL to its name there, or no task can report. An existing svc-tasks that is not internal fails tasks executor_error until removed. false: created as an ordinary bridge (tasks reach the outside).",
  },
  {
    variable: 'SVC_DOCKER_NETWORKS',
    default: null,
    description:
      "Networks a flow's executor.network may name besides SVC_DOCKER_NETWORK, by namespace: PREFIX=NET|NET;PREFIX=NET (a prefix covers that namespace and its descendants, team covers team.x but not teams; * every namespace), or a comma-separated list that every namespace may use; unset: none. host and container:<id> (another container's network) are allowed only when listed literally (container:* allows every container:); a refused network fails the task run executor_error naming it and the namespace.",
  },
  {
    variable: 'SVC_DOCKER_REGISTRY_AUTH',
    default: null,
    description:
      "Credentials the docker executor pulls task images with, held as platform secrets (admin-only, never readable by flows): REGISTRY[/PATH]=PLATFORM_SECRET[@NAMESPACE|NAMESPACE];... The image prefix is a registry host as image references spell it (ghcr.io, registry.example.com:5000, docker.io for Docker Hub), optionally with a repository path prefix (ghcr.io/acme); the platform secret holds username:password; @ lists the namespace prefixes the entry serves (team covers team.x but not teams; none or * every namespace). The longest covering prefix that serves the task's namespace is used; a task of a namespace no covering entry serves pulls anonymously, even when the image is already on the engine (so a copy another namespace pulled is no way round the registry). Unset: every pull is anonymous. A pull that fails ends the run image_pull_failed naming the image, the registry and the platform secret, never its value.",
  },
  {
    variable: 'SVC_DOCKER_PIDS_LIMIT',
    default: '1024',
    description: 'Most processes and threads one docker task container may run at once (Docker PidsLimit): a fork bomb stays inside its container.',
  },
  {
    variable: 'SVC_RUNNER_URL',
    default: 'SVC_PUBLIC_URL',
    derived: true,
    description:
      'Base URL at which runners inside docker and kubernetes tasks reach the API gateway (its /api/runner/v1); a loopback address works only for docker tasks on SVC_DOCKER_NETWORK=host; tasks on a bridge network (the default svc-tasks) and in a cluster need an address their containers can reach.',
  },
  {
    variable: 'SVC_RUNNER_IMAGE',
    default: null,
    description:
      "Image of the kubernetes executor's init container, holding the runner bundle at /.svc-runner, which it copies into the pod for inject_runner; unset: svc-runner:<bundle hash>, the image infra/ builds.",
  },
  {
    variable: 'SVC_K8S_API_URL',
    default: null,
    description:
      'Kubernetes API server URL of the kubernetes executor; unset: the in-cluster service account when the dispatcher runs in a pod (KUBERNETES_SERVICE_HOST), else no kubernetes executor is advertised.',
  },
  { variable: 'SVC_K8S_NAMESPACE', default: 'default', description: 'Kubernetes namespace in which task Jobs are created.' },
  {
    variable: 'SVC_K8S_TOKEN',
    default: null,
    secret: true,
    description: 'Bearer token for SVC_K8S_API_URL (a service account token with rights on Jobs and Pods in SVC_K8S_NAMESPACE).',
  },
  {
    variable: 'SVC_K8S_TASK_SERVICE_ACCOUNT',
    default: 'svc-task',
    description:
      "Service account of kubernetes task pods whose flow names none; give it no Role: its token is never mounted (automountServiceAccountToken: false). Must exist in SVC_K8S_NAMESPACE, and must not be the dispatcher's own (SVC_K8S_DISPATCHER_SERVICE_ACCOUNT).",
  },
  {
    variable: 'SVC_K8S_SERVICE_ACCOUNTS',
    default: null,
    description:
      "Service accounts a flow's executor.kubernetes.service_account may name (their token is mounted), by namespace: PREFIX=SA|SA;PREFIX=SA (a prefix covers that namespace and its descendants, team covers team.x but not teams; * every namespace), or a comma-separated list that every namespace may use; unset: none, and such a task run fails executor_error naming the account, the namespace and this setting. The dispatcher's own service account is refused here and at run time.",
  },
  {
    variable: 'SVC_K8S_IMAGE_PULL_SECRETS',
    default: null,
    description:
      "Kubernetes Secrets (in SVC_K8S_NAMESPACE) a flow's executor.kubernetes.image_pull_secrets may name, by namespace: PREFIX=SECRET|SECRET;PREFIX=SECRET (a prefix covers that namespace and its descendants, team covers team.x but not teams; * every namespace), or a comma-separated list that every namespace may use; unset: none. A task run naming one its namespace may not use fails executor_error naming it, the namespace and this setting, before any Job exists (the check is at run time: the API that saves flows cannot see the dispatcher's settings).",
  },
  {
    variable: 'SVC_K8S_DISPATCHER_SERVICE_ACCOUNT',
    default: 'svc-dispatcher',
    description:
      "Name of the dispatcher's own service account (the one with rights on Jobs), which no task may use; in a pod, the name in the mounted service account token is refused as well.",
  },
  {
    variable: 'SVC_K8S_RUN_AS_NON_ROOT',
    default: 'false',
    description:
      "true: kubernetes task pods get runAsNonRoot: true, so the kubelet refuses a task image (and the runner image) whose user is root or not numeric. Every task container already runs without privilege escalation, with no capabilities and the runtime's default seccomp profile.",
  },
  // --- triggers and maintenance ---
  { variable: 'SVC_SCHEDULER_TICK_MS', default: '1000', description: 'Milliseconds between two checks of the scheduler for due schedules (10 to 3600000).' },
  {
    variable: 'SVC_SCHEDULER_SYNC_MS',
    default: '2000',
    description: 'Milliseconds between two checks of the scheduler for changed flows and triggers, which then re-sync the schedules (10 to 3600000).',
  },
  {
    variable: 'SVC_SCHEDULER_SWEEP_MS',
    default: '5000',
    description: 'Milliseconds between two sweeps of the scheduler for flow triggers of recently ended executions that did not fire (10 to 3600000).',
  },
  {
    variable: 'SVC_GIT_SYNC_TICK_MS',
    default: '2000',
    description:
      "Milliseconds between two checks of the scheduler's git sync worker for requested syncs and git sources due a poll (10 to 3600000); a sync request also wakes it at once.",
  },
  {
    variable: 'SVC_RETENTION_CRON',
    default: '0 * * * *',
    description:
      'When the maintenance lease holder runs retention (and deletes old emails), besides once when it takes the lease: a cron expression of 5 fields, or 6 with seconds first (node-cron: `*/30 * * * * *` is every 30 seconds), in UTC; only the instance holding the lease runs it. The default is every hour.',
  },
  {
    variable: 'SVC_STORAGE_CLEANUP_CRON',
    default: '0 * * * *',
    description:
      'When the maintenance lease holder checks whether the storage cleanup is due (it runs at most once in 24 hours), besides once when it takes the lease: a cron expression as for SVC_RETENTION_CRON, in UTC. The default is every hour.',
  },
  {
    variable: 'SVC_WATCHDOG_MS',
    default: '5000',
    description: "Milliseconds between two runs of the maintenance lease holder's watchdog (flow and task timeouts, lost task runs); 10 to 3600000.",
  },
  // --- limits ---
  { variable: 'SVC_MAX_FILE_BYTES', default: '10MiB', description: 'Largest namespace file accepted; a byte size (plain bytes, or with B, KB, MB, GB, KiB, MiB, GiB).' },
  { variable: 'SVC_MAX_BUNDLE_BYTES', default: '100MiB', description: 'Largest namespace snapshot (bundle) a task can receive; a byte size.' },
  {
    variable: 'SVC_MAX_ARTIFACT_BYTES',
    default: '100MiB',
    description: 'Largest artifact or output file a task can upload (uploads stream; past it 413 too_large, and an output file over it fails the task); a byte size.',
  },
  {
    variable: 'SVC_MAX_INPUT_FILE_BYTES',
    default: '100MiB',
    description: 'Largest file uploaded for a flow input of type file (createUpload streams; past it 413 too_large and nothing is kept); a byte size.',
  },
  { variable: 'SVC_MAX_BODY_BYTES', default: '10MiB', description: 'Largest JSON request body; larger bodies get 413 body_too_large. A byte size.' },
  {
    variable: 'SVC_ORG_RATE_LIMIT',
    default: '10',
    description:
      'Requests per second to POST /api/v1/emails shared by all API keys of one organization, across every api-gateway instance (a token bucket in PostgreSQL holding one second of requests); past it 429 rate_limit_exceeded with Retry-After.',
  },
  {
    variable: 'SVC_ORG_DAILY_QUOTA',
    default: '10000',
    description:
      'Emails one organization may have accepted per UTC day (0 or more), across every api-gateway instance, unless `svc org quota set` gives it its own; past it POST /api/v1/emails answers 429 rate_limit_exceeded with Retry-After until the next UTC midnight.',
  },
  // --- AI ---
  {
    variable: 'SVC_AI_TRIAGE_PER_HOUR',
    default: '20',
    description: 'Automatic AI triages (provider auto_triage on) started per hour at most, across every api-gateway instance; failures past it wait for a manual requestTriage.',
  },
  {
    variable: 'SVC_AI_TRIAGE_POLL_MS',
    default: '15000',
    description: 'Milliseconds between two looks of an api-gateway for new FAILED or TIMED_OUT executions to triage automatically (10 to 3600000).',
  },
  {
    variable: 'SVC_AI_USER_REQUESTS_PER_DAY',
    default: '200',
    description: 'AI requests (assistant turns and triages) one user may start per UTC day; past it 429 rate_limited with Retry-After until midnight UTC.',
  },
  {
    variable: 'SVC_AI_USER_TOKENS_PER_DAY',
    default: '1000000',
    description: 'AI provider tokens (input and output) one user may use per UTC day; past it 429 rate_limited, and a turn in progress stops before its next model call.',
  },
  {
    variable: 'SVC_AI_TOTAL_REQUESTS_PER_DAY',
    default: '2000',
    description: 'AI requests per UTC day for the whole deployment (every user and automatic triage together); past it 429 rate_limited and automatic triage waits.',
  },
  {
    variable: 'SVC_AI_TOTAL_TOKENS_PER_DAY',
    default: '10000000',
    description: 'AI provider tokens per UTC day for the whole deployment; past it 429 rate_limited and automatic triage waits.',
  },
  // --- email ---
  {
    variable: 'SVC_SMTP_URL',
    default: null,
    credential: true,
    description:
      'SMTP server the maintenance processes deliver the organization emails through, smtp://USER:PASSWORD@HOST:PORT or smtps:// for implicit TLS; unset: emails stay queued.',
  },
  {
    variable: 'SVC_SMTP_REQUIRE_TLS',
    default: 'true, false when the SVC_SMTP_URL host is loopback',
    derived: true,
    description:
      'true: an smtp:// server must offer STARTTLS and the mail sender upgrades to TLS before sending credentials or mail; a server without it fails the email with the reason recorded on it. false: plain SMTP is accepted (a relay on the same host).',
  },
  {
    variable: 'SVC_EMAIL_RETENTION_DAYS',
    default: '30',
    description: 'Days organization emails (whatever their status) and their daily quota counters are kept; the maintenance lease holder deletes older ones every hour.',
  },
  // --- http tasks ---
  {
    variable: 'SVC_HTTP_TASK_ALLOW_PRIVATE_TARGETS',
    default: 'false',
    description:
      "true: http tasks (sent by the dispatcher, from inside the deployment's network) may reach loopback, private, link-local (the cloud metadata address), unique-local and other non-public addresses. false: the host is resolved once, every address must be public (or listed in SVC_HTTP_TASK_ALLOWED_HOSTS), the connection goes to the checked address, and a redirect to a refused address is not followed; a refused target fails the task run http_error naming the host and why. npm start on your own machine: SVC_HTTP_TASK_ALLOWED_HOSTS=127.0.0.1,::1,localhost reaches local servers.",
  },
  {
    variable: 'SVC_HTTP_TASK_ALLOWED_HOSTS',
    default: null,
    description:
      'Comma-separated host names (exact, as the task URL writes them), IP addresses and CIDR ranges (10.1.0.0/16, fd00::/8) http tasks may reach although they are not public, when SVC_HTTP_TASK_ALLOW_PRIVATE_TARGETS is false; a listed name may resolve to any address (still resolved once and pinned). Unset: none.',
  },
  // --- alerts ---
  {
    variable: 'SVC_ALERT_ALLOW_PRIVATE_TARGETS',
    default: 'false',
    description:
      'true: alert webhook and Slack channels may point at loopback, private, link-local, unique-local and other non-public addresses (an on-premise receiver). false: the API refuses such a literal address or localhost, and maintenance refuses to send where the host resolves to one (against server-side request forgery).',
  },
  {
    variable: 'SVC_ALERT_RULES_PER_NAMESPACE',
    default: '100',
    description:
      'Alert rules one namespace may hold (1 to 100000; rules of its child namespaces count apart), counted under a lock across every api-gateway instance; past it creating or moving a rule there answers 422 validation_failed on namespace.',
  },
  // --- backfills ---
  {
    variable: 'SVC_BACKFILL_MAX_IN_FLIGHT_PER_FLOW',
    default: '100',
    description:
      "Backfill executions of one flow not ended at a time, all its backfills together (1 to 100000), held by the schedulers across every instance; a backfill's max_in_flight above it answers 422. Set it on the gateways and schedulers alike.",
  },
  {
    variable: 'SVC_BACKFILL_MAX_IN_FLIGHT_PER_NAMESPACE',
    default: '200',
    description:
      "Backfill executions of one namespace's flows not ended at a time, all their backfills together (1 to 100000; child namespaces count apart), held by the schedulers across every instance; a backfill's max_in_flight above it answers 422.",
  },
  // --- logging ---
  { variable: 'SVC_LOG_LEVEL', default: 'info', description: 'Lowest level logged: debug, info, warn or error.' },
  { variable: 'SVC_LOG_FORMAT', default: 'json', description: 'Server log format: json (one object per line) or text (one readable line per entry).' },
  // --- Tracing (docs/operating/tracing.md; read by @svc/service tracing.ts and the OpenTelemetry SDK) ---
  {
    variable: 'OTEL_EXPORTER_OTLP_ENDPOINT',
    default: null,
    description:
      'Turns on OpenTelemetry tracing in the gateway, scheduler, dispatcher and maintenance: base URL of an OTLP receiver (traces go to <url>/v1/traces). Unset (and OTEL_EXPORTER_OTLP_TRACES_ENDPOINT unset): no tracing, and no OpenTelemetry SDK is loaded.',
  },
  {
    variable: 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
    default: null,
    description:
      'Full URL traces are sent to (e.g. http://collector:4318/v1/traces); set alone, it also turns tracing on. Takes precedence over OTEL_EXPORTER_OTLP_ENDPOINT for traces.',
  },
  {
    variable: 'OTEL_EXPORTER_OTLP_PROTOCOL',
    default: 'http/protobuf',
    derived: true,
    description: 'With tracing on: http/protobuf, http/json or grpc (read by the OpenTelemetry SDK, like its other OTEL_* variables: headers, timeouts, sampler, batch delays).',
  },
  { variable: 'OTEL_SDK_DISABLED', default: null, description: 'true: tracing stays off even with an OTLP endpoint set.' },
  // --- CLI ---
  { variable: 'SVC_URL', default: 'http://127.0.0.1:8080', description: 'CLI: base URL of the service.' },
  { variable: 'SVC_TOKEN', default: null, secret: true, description: 'CLI: API token (svc_...) sent as a bearer token.' },
] as const satisfies readonly CatalogueEntry[];

export type VariableName = (typeof CATALOGUE)[number]['variable'];

const BY_NAME: ReadonlyMap<string, CatalogueEntry> = new Map(CATALOGUE.map((e) => [e.variable, e]));

export function catalogueEntry(name: VariableName): CatalogueEntry {
  return BY_NAME.get(name)!;
}

/** Variables whose values are never shown in messages. */
export function isSecret(name: string): boolean {
  return BY_NAME.get(name)?.secret === true;
}

/** Variables holding a credential, which can also be given as a file (`<variable>_FILE`). */
export function hasFileForm(name: string): boolean {
  const entry = BY_NAME.get(name);
  return entry?.secret === true || entry?.credential === true;
}

function fileFormRow(variable: string): VariableDescription {
  return {
    variable: `${variable}_FILE`,
    default: null,
    description: `Path of a file holding ${variable} (a mounted Docker or Kubernetes secret); its content less one trailing newline is the value. Setting both is an error.`,
  };
}

/**
 * Every configuration variable with its default and a one-line description,
 * in a reading order grouped by concern (server, data, auth, execution,
 * triggers and maintenance, limits, email, logging, CLI); a variable holding
 * a credential is followed by its `_FILE` form.
 */
export function describeConfig(): VariableDescription[] {
  return CATALOGUE.flatMap(({ variable, default: def, description }) => {
    const row = { variable, default: def, description };
    return hasFileForm(variable) ? [row, fileFormRow(variable)] : [row];
  });
}

/** One variable the runner sets for each task process (the task runtime contract, docs/operating/configuration.md). */
export interface TaskVariableDescription {
  variable: string;
  description: string;
}

/**
 * The SVC_* variables a task receives from the runner. They are outputs of the
 * service, not configuration, and parseConfig ignores them.
 */
export function describeTaskEnvironment(): TaskVariableDescription[] {
  return [
    { variable: 'SVC_EXECUTION_ID', description: 'ID of the execution.' },
    { variable: 'SVC_TASK_RUN_ID', description: 'ID of the task run.' },
    { variable: 'SVC_TASK_ID', description: 'Task id within the flow.' },
    { variable: 'SVC_ATTEMPT', description: 'Attempt number, from 1.' },
    { variable: 'SVC_NAMESPACE', description: 'Namespace of the flow.' },
    { variable: 'SVC_FLOW_ID', description: 'Flow id; empty for runFile executions.' },
    { variable: 'SVC_OUTPUTS', description: 'Path of a JSON Lines file: {"outputs": {...}} merges outputs, {"metrics": [...]} records metrics.' },
    { variable: 'SVC_ARTIFACTS_DIR', description: 'Directory whose files are uploaded as artifacts when the task ends.' },
  ];
}
