export { ensureRunnerBundle, RUNNER_MOUNT, RunnerBundleError, type EnsureRunnerBundleOptions, type RunnerBundle } from './bundle.js';
export { NotElfError, readElfInfo, type ElfInfo } from './elf.js';
export { LibraryResolutionError, listSharedLibraries, parseLoaderList, type SharedLibrary } from './libraries.js';
export { packDirectory } from './tar.js';
