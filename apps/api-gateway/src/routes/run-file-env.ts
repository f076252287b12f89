// runFile's `env` is set by an operator, who may run a namespace's files but
// not write them. Variables that make the dynamic loader, a shell or an
// interpreter load or run something else would turn that into running any
// code: `BASH_ENV='$(cmd)'` (bash evaluates it at start), `NODE_OPTIONS=
// --import=data:...`, `LD_PRELOAD=...`, `PYTHONSTARTUP`, `PERL5OPT=-M...`. So
// those names are refused (422 validation_failed, field `env.<NAME>`).
//
// Names are compared without regard to case: the loaders read only the
// upper-case spellings on Linux, but Windows reads environment names
// case-insensitively, and no legitimate script needs `ld_preload` either.
// The runner's own `SVC_*` variables (the runtime contract) are refused too,
// as is `PATH`, which picks the interpreter itself.

/** Refused names (upper case). */
const EXACT = new Set([
  // the task's interpreter lookup and the runner's contract
  'PATH',
  // shells (bash, sh, zsh)
  'BASH_ENV', 'ENV', 'SHELLOPTS', 'BASHOPTS', 'PS4', 'PS1', 'PROMPT_COMMAND', 'IFS', 'CDPATH', 'GLOBIGNORE', 'EXECIGNORE',
  'BASH_XTRACEFD', 'BASH_LOADABLES_PATH', 'ZDOTDIR',
  // glibc
  'GCONV_PATH', 'HOSTALIASES', 'LOCPATH', 'NLSPATH', 'GLIBC_TUNABLES', 'RESOLV_HOST_CONF',
  // Node.js
  'NODE_OPTIONS', 'NODE_PATH', 'NODE_EXTRA_CA_CERTS', 'NODE_REPL_EXTERNAL_MODULE', 'NODE_TLS_REJECT_UNAUTHORIZED',
  // Python
  'PYTHONSTARTUP', 'PYTHONPATH', 'PYTHONHOME', 'PYTHONINSPECT', 'PYTHONBREAKPOINT', 'PYTHONUSERBASE', 'PYTHONWARNINGS',
  'PYTHONEXECUTABLE', 'PYTHONPLATLIBDIR', 'PYTHONPYCACHEPREFIX',
  // Perl, Ruby, Lua, PHP, Tcl
  'PERL5OPT', 'PERL5LIB', 'PERLLIB', 'PERL5DB', 'PERLIO', 'RUBYOPT', 'RUBYLIB', 'PHPRC', 'PHP_INI_SCAN_DIR', 'TCLLIBPATH',
  // Java
  'JAVA_TOOL_OPTIONS', '_JAVA_OPTIONS', 'JDK_JAVA_OPTIONS', 'CLASSPATH',
  // OpenSSL (configuration can load engines and providers)
  'OPENSSL_CONF', 'OPENSSL_ENGINES', 'OPENSSL_MODULES',
  // git and ssh command hooks
  'GIT_SSH', 'GIT_SSH_COMMAND', 'GIT_PROXY_COMMAND', 'GIT_EXEC_PATH', 'GIT_ASKPASS', 'SSH_ASKPASS', 'GIT_EXTERNAL_DIFF',
  'GIT_CONFIG_PARAMETERS', 'GIT_CONFIG_COUNT', 'GIT_CONFIG_GLOBAL', 'GIT_CONFIG_SYSTEM', 'GIT_TEMPLATE_DIR',
]);

/** Refused prefixes (upper case). */
const PREFIXES = [
  'LD_', // the dynamic loader: LD_PRELOAD, LD_LIBRARY_PATH, LD_AUDIT, ...
  'DYLD_', // macOS's loader
  'BASH_FUNC_', // exported bash functions (BASH_FUNC_name%%)
  'MALLOC_', // glibc's allocator tuning (MALLOC_CHECK_, MALLOC_PERTURB_, ...)
  'BUN_', // bun's options and preloads
  'LUA_', // LUA_INIT runs code; LUA_PATH, LUA_CPATH pick modules
  'GIT_CONFIG_KEY_',
  'GIT_CONFIG_VALUE_',
  'SVC_', // the runner's own variables
];

/** Why `name` may not be set through runFile's env, or null when it may. */
export function refusedEnvName(name: string): string | null {
  const upper = name.toUpperCase();
  if (upper.includes('%%') || upper.startsWith('()')) return 'an exported shell function cannot be set';
  if (EXACT.has(upper) || PREFIXES.some((p) => upper.startsWith(p))) {
    return 'controls how the loader, the shell or the interpreter starts (or is the runner\'s own): it cannot be set through runFile';
  }
  return null;
}

/** The refused names and prefixes, for the README's list. */
export const REFUSED_ENV = { names: [...EXACT], prefixes: PREFIXES };
