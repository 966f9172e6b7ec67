// A package README starts the way a user starts: an install line (`npm i <packages>`) and a first
// TypeScript example that runs as it stands in a new project. The registry test installs from the
// install line's packages and runs the example; this finds both.

/** The install line's packages and the first `ts` example of one README. */
export interface ReadmeQuickStart {
  readonly installedPackages: readonly string[];
  readonly example: string;
}

const fencedBlock = /^```(\w*)\n([\s\S]*?)^```$/gm;

/** The README's first `sh` block's `npm i` line and its first `ts` block, or the problem. */
export function readmeQuickStart(readme: string, packageName: string): ReadmeQuickStart {
  let installedPackages: string[] | undefined;
  let example: string | undefined;
  for (const [, language, body = ''] of readme.matchAll(fencedBlock)) {
    if (installedPackages === undefined && language === 'sh') {
      const installLine = body.split('\n').find((line) => /^npm i(nstall)? /.test(line.trim()));
      installedPackages = installLine?.trim().split(/\s+/).slice(2);
    }
    if (example === undefined && language === 'ts') example = body;
  }
  if (installedPackages === undefined || !installedPackages.includes(packageName)) {
    throw new Error(`${packageName}: the README's first sh block has no \`npm i ${packageName}\` line`);
  }
  if (example === undefined) throw new Error(`${packageName}: the README has no ts example`);
  return { installedPackages, example };
}
