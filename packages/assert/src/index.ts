// The one assertNever of the repository (STYLE.md habit 2). Its users span the
// whole dependency graph down to packages with no @svc dependency at all
// (logging, state-machine, db), so it sits in a package of its own with no
// dependencies: any package can depend on it without a cycle, and none has to
// depend on an unrelated one (logging on the state machine) to get it.
export { assertNever } from './assert-never.js';
