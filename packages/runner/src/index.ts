// @svc/runner: runs one task run. Used inside the dispatcher process (process
// executor, direct transport) and as `svc exec` in containers (HTTP transport).
export type { Completion, CompletionReason, CompletionState, LogLine, Metric, RunnerSpec, RunnerTransport, RunnerEvent, RunOptions, Runtime } from './types.js';
export { runTask } from './run-task.js';
export { reopenFileStream } from './artifacts.js';
export { BundleCache, type BundleCacheOptions, type BundleEntry, type ManifestItem } from './bundle-cache.js';
export { WorkdirPool, type WorkdirLease, type WorkdirPoolOptions } from './workdir-pool.js';
export { SpawnHelper, type SpawnHelperOptions } from './spawn-helper.js';
export { directSpawn, type SpawnedChild, type SpawnFn, type SpawnOpts } from './process.js';
export { lookupUser, openTaskFile, TaskUserNotFoundError, type TaskUser } from './task-user.js';
export { createHttpTransport, type HttpTransportOptions } from './http-transport.js';
export { cutUtf8, LineSplitter, type LineSplitterOptions, MAX_LINE_BYTES } from './lines.js';
export { parseOutputs, type ParsedOutputs } from './outputs.js';
export { RUNTIME_CANDIDATES } from './resolve.js';
export { BundleTooLargeError, CompletionDeliveryError, errorMessage, PrepareError, RunnerHttpError, UnsafePathError } from './errors.js';
