#!/usr/bin/env node
// `svc`, the process inside every container task (`svc exec`, `svc install-runner`),
// deployable on its own. Its code is @svc/runner's src/exec/ (see its README):
// the CLI's `svc exec` runs the same module, and the runner bundle ships it
// bundled into one file (dist/svc.cjs of @svc/runner).
import '@svc/runner/exec-main';
