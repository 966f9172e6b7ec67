// A throw-away npm registry (verdaccio) on 127.0.0.1 with no uplinks, its storage in a temporary
// folder, and an npm set up to use only it: a temporary userconfig and globalconfig (never the
// user's ~/.npmrc), an empty cache, and none of the npm_config_* variables pnpm passes down.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { runServer } from 'verdaccio';
import { readJson } from './workspace.js';

const execFileAsync = promisify(execFile);

/** npm runs are bounded: an install from a local registry takes seconds, not minutes. */
const NPM_TIMEOUT_MS = 240_000;
const NPM_OUTPUT_LIMIT_BYTES = 16 * 1024 * 1024;
/** Published tarballs travel base64 inside one JSON document; the native binaries are a few MiB. */
const MAX_PUBLISH_BODY = '64mb';
const USER_NAME = 'kraft-registry-test';

/** A running local registry and the npm configured for it. */
export interface LocalRegistry {
  /** `http://127.0.0.1:<port>/` */
  readonly url: string;
  /** The environment that points npm (and pnpm) at this registry only, with its login. */
  readonly environment: NodeJS.ProcessEnv;
  /** Runs npm against this registry only; resolves with its stdout, rejects with its output. */
  npm(args: readonly string[], cwd: string): Promise<string>;
  /**
   * Publishes the folder `<parent>/package` as it is, through the registry's publish API
   * without npm (no lifecycle, no publishConfig): quicker for copies of third-party packages.
   */
  putPackage(packagePath: string): Promise<void>;
  /** Stops the server and deletes its storage, npm's cache and config. */
  stop(): Promise<void>;
}

function registryConfig(directory: string): string {
  // No uplinks and no proxy entry: a package that was not published here is a 404.
  return [
    `storage: ${JSON.stringify(join(directory, 'storage'))}`,
    'auth:',
    '  htpasswd:',
    `    file: ${JSON.stringify(join(directory, 'htpasswd'))}`,
    '    max_users: 1',
    'uplinks: {}',
    'packages:',
    "  '**':",
    '    access: $all',
    '    publish: $authenticated',
    `max_body_size: ${MAX_PUBLISH_BODY}`,
    'web:',
    '  enable: false',
    'log: { type: stdout, format: pretty, level: error }',
    '',
  ].join('\n');
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return (server.address() as AddressInfo).port;
}

async function addUser(url: string): Promise<string> {
  const response = await fetch(`${url}-/user/org.couchdb.user:${USER_NAME}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: USER_NAME, password: 'local-registry-only' }),
  });
  const body = (await response.json()) as { token?: unknown };
  if (!response.ok || typeof body.token !== 'string') {
    throw new Error(`the local registry refused the test user: ${response.status} ${JSON.stringify(body)}`);
  }
  return body.token;
}

async function putPackage(url: string, token: string, packagePath: string): Promise<void> {
  if (basename(packagePath) !== 'package')
    throw new Error(`${packagePath}: the folder must be named package`);
  const manifest = readJson<{ name: string; version: string }>(join(packagePath, 'package.json'));
  const tarballPath = `${packagePath}.tgz`;
  await execFileAsync('tar', ['-czf', tarballPath, '-C', dirname(packagePath), 'package']);
  const tarball = readFileSync(tarballPath);
  const fileName = `${manifest.name.split('/').at(-1)}-${manifest.version}.tgz`;
  const dist = {
    shasum: createHash('sha1').update(tarball).digest('hex'),
    integrity: `sha512-${createHash('sha512').update(tarball).digest('base64')}`,
    tarball: `${url}${manifest.name}/-/${fileName}`,
  };
  const document = {
    _id: manifest.name,
    name: manifest.name,
    'dist-tags': { latest: manifest.version },
    versions: { [manifest.version]: { ...manifest, _id: `${manifest.name}@${manifest.version}`, dist } },
    _attachments: {
      [fileName]: {
        content_type: 'application/octet-stream',
        data: tarball.toString('base64'),
        length: tarball.length,
      },
    },
  };
  const response = await fetch(`${url}${manifest.name.replace('/', '%2f')}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(document),
  });
  if (!response.ok) {
    throw new Error(
      `publishing ${manifest.name}@${manifest.version} failed: ${response.status} ${await response.text()}`,
    );
  }
}

/** The environment without npm or pnpm settings inherited from the process that started the test. */
function cleanEnvironment(directory: string, url: string): NodeJS.ProcessEnv {
  const environment: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^(npm|pnpm)_/i.test(key)) environment[key] = value;
  }
  return {
    ...environment,
    npm_config_userconfig: join(directory, 'npmrc'),
    npm_config_globalconfig: join(directory, 'global-npmrc'),
    npm_config_cache: join(directory, 'npm-cache'),
    npm_config_registry: url,
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
  };
}

/** Starts verdaccio on 127.0.0.1 at a port the system picks, with a user npm is logged in as. */
export async function startLocalRegistry(): Promise<LocalRegistry> {
  const directory = mkdtempSync(join(tmpdir(), 'kraft-registry-'));
  let server: Server | undefined;
  try {
    writeFileSync(join(directory, 'config.yaml'), registryConfig(directory));
    server = (await runServer(join(directory, 'config.yaml'))) as Server;
    const port = await listen(server);
    const url = `http://127.0.0.1:${port}/`;
    const token = await addUser(url);
    writeFileSync(join(directory, 'npmrc'), `registry=${url}\n//127.0.0.1:${port}/:_authToken=${token}\n`);
    writeFileSync(join(directory, 'global-npmrc'), '');
    const environment = cleanEnvironment(directory, url);
    const running = server;
    return {
      url,
      environment,
      async npm(args, cwd) {
        try {
          const { stdout } = await execFileAsync('npm', [...args, '--registry', url], {
            cwd,
            env: environment,
            timeout: NPM_TIMEOUT_MS,
            maxBuffer: NPM_OUTPUT_LIMIT_BYTES,
          });
          return stdout;
        } catch (error) {
          const failed = error as { stdout?: string; stderr?: string };
          throw new Error(
            `npm ${args.join(' ')} failed in ${cwd}:\n${failed.stdout ?? ''}${failed.stderr ?? ''}`,
            {
              cause: error,
            },
          );
        }
      },
      putPackage: (packagePath) => putPackage(url, token, packagePath),
      async stop() {
        running.closeAllConnections();
        await new Promise<void>((resolve) => running.close(() => resolve()));
        rmSync(directory, { recursive: true, force: true });
      },
    };
  } catch (error) {
    server?.close();
    rmSync(directory, { recursive: true, force: true });
    throw error;
  }
}
