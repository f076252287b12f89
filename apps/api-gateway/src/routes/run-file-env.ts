// runFile's `env` is set by an operator, who may run a namespace's files but
// not write them. So `env` is an allowlist, not a blocklist: a name must match
// RUN_FILE_ENV.pattern (upper case letters, digits and _, starting with a
// letter) and must not be one of RUN_FILE_ENV.reserved; anything else is 422
// validation_failed with field `env.<NAME>`. A blocklist of loader variables
// let through every variable that changes where the script's traffic goes or
// whom it trusts (HTTPS_PROXY, SSL_CERT_FILE, NODE_TLS_REJECT_UNAUTHORIZED,
// PIP_INDEX_URL, GIT_SSL_NO_VERIFY): the same file, run against a registry or
// a proxy of the operator's choosing, is other code.
//
// Lower case names fail the pattern, so `http_proxy`, `npm_config_registry`
// and `ld_preload` (all read by some tools) are refused with the rest.
//
// Flow files' task `env` does not follow this rule: a flow file is written by
// an editor, who may write the code the task runs anyway (docs/hardening.md).

/** A group of reserved names: exact names, name prefixes, and why the group is reserved. */
export interface ReservedEnvGroup {
  why: string;
  names: readonly string[];
  prefixes: readonly string[];
}

/** What runFile's `env` accepts: docs/operating/security.md lists the same pattern and groups. */
export const RUN_FILE_ENV: { pattern: RegExp; reserved: readonly ReservedEnvGroup[] } = {
  pattern: /^[A-Z][A-Z0-9_]*$/,
  reserved: [
    // The runner's contract (SVC_OUTPUTS, SVC_RUN_TOKEN, ...), the interpreter lookup, and the home
    // directory that tools read their configuration from (.npmrc, .gitconfig, pip.conf, .netrc).
    { why: "the runner's own variables, the interpreter lookup and where configuration is read from", names: ['PATH', 'HOME', 'TMPDIR', 'SHELL'], prefixes: ['SVC_', 'XDG_'] },
    // The dynamic loader and the C library: LD_PRELOAD runs code in every process.
    {
      why: 'controls the dynamic loader or the C library',
      names: ['GCONV_PATH', 'HOSTALIASES', 'LOCPATH', 'NLSPATH', 'GLIBC_TUNABLES', 'RESOLV_HOST_CONF', 'LOCALDOMAIN', 'RES_OPTIONS'],
      prefixes: ['LD_', 'DYLD_', 'MALLOC_'],
    },
    // Shells evaluate these at start (BASH_ENV='$(cmd)') or change how a script's words are read.
    {
      why: 'makes a shell run or read something else',
      names: ['ENV', 'SHELLOPTS', 'BASHOPTS', 'PS1', 'PS2', 'PS4', 'PROMPT_COMMAND', 'IFS', 'CDPATH', 'GLOBIGNORE', 'EXECIGNORE', 'ZDOTDIR'],
      prefixes: ['BASH_'],
    },
    // Interpreter start-up: options, preloads and module paths (NODE_OPTIONS=--import=..., PYTHONSTARTUP, PERL5OPT=-M...).
    {
      why: 'makes an interpreter load or run something else',
      names: ['NODE_OPTIONS', 'NODE_PATH', 'NODE_REPL_EXTERNAL_MODULE', 'NODE_ICU_DATA', 'PHPRC', 'PHP_INI_SCAN_DIR', 'TCLLIBPATH', 'CLASSPATH'],
      prefixes: ['PYTHON', 'PERL', 'RUBY', 'BUN_', 'DENO_', 'LUA_', 'JAVA_', '_JAVA_', 'JDK_'],
    },
    // Proxies: they see, and may change, every request the script makes.
    {
      why: "sends the script's network traffic through a proxy",
      names: ['HTTP_PROXY', 'HTTPS_PROXY', 'ALL_PROXY', 'NO_PROXY', 'FTP_PROXY', 'RSYNC_PROXY', 'GRPC_PROXY'],
      prefixes: [],
    },
    // TLS trust: a CA bundle of the operator's, or no verification at all, lets a third party answer as any host.
    {
      why: 'changes which TLS certificates the script trusts',
      names: [
        'SSL_CERT_FILE',
        'SSL_CERT_DIR',
        'NODE_TLS_REJECT_UNAUTHORIZED',
        'NODE_EXTRA_CA_CERTS',
        'REQUESTS_CA_BUNDLE',
        'CURL_CA_BUNDLE',
        'AWS_CA_BUNDLE',
        'GRPC_DEFAULT_SSL_ROOTS_FILE_PATH',
        'WGETRC',
        'CURL_HOME',
      ],
      prefixes: ['OPENSSL_'],
    },
    // git: its hooks run commands (GIT_SSH_COMMAND, GIT_CONFIG_*), GIT_SSL_NO_VERIFY drops TLS checks; ssh's askpass and agent.
    { why: 'controls git or ssh (commands they run, what they trust)', names: [], prefixes: ['GIT_', 'SSH_'] },
    // Package indexes: an install from an index of the operator's choosing installs the operator's code.
    {
      why: 'picks the package index or registry that installs come from',
      names: ['GOPROXY', 'GOFLAGS', 'GONOSUMDB', 'GONOSUMCHECK', 'GOINSECURE', 'GOPRIVATE', 'GOSUMDB', 'GEM_HOST_API_KEY', 'GEM_HOME', 'GEM_PATH'],
      prefixes: ['PIP_', 'UV_', 'PIPENV_', 'POETRY_', 'CONDA_', 'NPM_CONFIG_', 'YARN_', 'PNPM_', 'CARGO_', 'BUNDLE_', 'COMPOSER_', 'MAVEN_', 'GRADLE_'],
    },
  ],
};

/** Why `name` may not be set through runFile's env, or null when it may. */
export function refusedEnvName(name: string): string | null {
  if (!RUN_FILE_ENV.pattern.test(name)) return `must match ${RUN_FILE_ENV.pattern.source}: upper case letters, digits and _, starting with a letter`;
  for (const g of RUN_FILE_ENV.reserved) {
    if (g.names.includes(name) || g.prefixes.some((p) => name.startsWith(p))) return `is reserved (${g.why}): it cannot be set through runFile`;
  }
  return null;
}
