// Which repository paths a push-back (pushNamespaceBranch) may write. The
// push is made with the source's credential, usually an admin's or a bot's,
// so an editor of the namespace must not reach further than the namespace:
//   - every path lands under the mapping's repo_path (namespace paths are
//     joined onto it and may not hold `..`);
//   - CI configuration is never written, wherever it sits: a workflow file
//     runs with the repository's CI secrets as soon as the branch is pushed,
//     before any review. No setting opens it: a CI change is made by someone
//     with write access to the repository, not through svc's credential;
//   - when the source has `push_paths` (globs from the repository root), a
//     path must also match one of them.
// Pure: no I/O.

/**
 * Path segments that are CI configuration (compared without regard to case).
 * A segment anywhere in the path counts: GitLab, Jenkins and Azure Pipelines
 * can be pointed at a file below the root.
 */
export const CI_PATH_SEGMENTS: readonly string[] = [
  '.github', // GitHub Actions workflows, CODEOWNERS, dependabot
  '.gitlab', // GitLab CI includes and templates
  '.gitlab-ci.yml',
  '.gitlab-ci.yaml',
  '.gitea', // Gitea Actions
  '.forgejo', // Forgejo Actions
  '.circleci',
  '.buildkite',
  '.woodpecker',
  '.woodpecker.yml',
  '.drone.yml',
  '.drone.yaml',
  '.travis.yml',
  'azure-pipelines.yml',
  'azure-pipelines.yaml',
  'bitbucket-pipelines.yml',
  '.cirrus.yml',
  'appveyor.yml',
  '.appveyor.yml',
];

/** `Jenkinsfile` and its variants (`Jenkinsfile.release`). */
const JENKINSFILE = /^jenkinsfile(\..*)?$/i;

/** Whether a repository path is (or is inside) CI configuration. */
export function isCiPath(repoPath: string): boolean {
  return repoPath.split('/').some((s) => CI_PATH_SEGMENTS.includes(s.toLowerCase()) || JENKINSFILE.test(s));
}

/**
 * A glob as a RegExp over a whole repository path: `*` and `?` stay within a
 * segment, `**` spans segments (`a/**` is everything under a; `** /x` is x at
 * any depth). Everything else is literal.
 */
export function globToRegExp(glob: string): RegExp {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*' && glob[i + 1] === '*') {
      const slashAfter = glob[i + 2] === '/';
      out += slashAfter ? '(?:.*/)?' : '.*';
      i += slashAfter ? 2 : 1;
    } else if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else out += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${out}$`);
}

/** Checks a `push_paths` glob; the problem, or null. */
export function pushPathProblem(glob: string): string | null {
  if (!glob) return 'must not be empty';
  if (glob.length > 512) return 'must be at most 512 characters long';
  // eslint-disable-next-line no-control-regex
  if (/[\\\u0000-\u001f\u007f]/.test(glob)) return 'must use / as the separator and hold no control characters';
  if (glob.startsWith('/')) return 'is relative to the repository root: no leading /';
  if (glob.split('/').some((s) => s === '..' || s === '.')) return 'must not contain . or .. segments';
  return null;
}

/** Why a push may not write `repoPath` (a path from the repository root), or null when it may. */
export function pushPathRefusal(repoPath: string, pushPaths: readonly string[]): string | null {
  if (isCiPath(repoPath)) return `${repoPath} is CI configuration, which a push from svc never writes`;
  if (pushPaths.length && !pushPaths.some((g) => globToRegExp(g).test(repoPath))) {
    return `${repoPath} matches none of the git source's push_paths (${pushPaths.join(', ')})`;
  }
  return null;
}
