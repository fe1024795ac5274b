// A private npm registry of a few tarballs, on 127.0.0.1, as a platform
// team's registry would serve the packages they publish: the packument of
// each package and its tarball. Yarn reaches it through `npmScopes`.
//
// It runs in a process of its own (`node registry.mjs TARBALL...` prints its
// address), so that it answers while the test waits on `yarn` synchronously.
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';

function manifestOf(tarball) {
  return JSON.parse(
    execFileSync('tar', ['-xzOf', tarball, 'package/package.json'], {
      encoding: 'utf8',
    }),
  );
}

/** Serves the tarballs in this process; resolves to its address. */
async function serve(tarballs) {
  const packages = new Map();
  const files = new Map();
  for (const tarball of tarballs) {
    const manifest = manifestOf(tarball);
    const bytes = readFileSync(tarball);
    const file = basename(tarball);
    files.set(`/-/${file}`, bytes);
    packages.set(manifest.name, { manifest, file, bytes });
  }
  const server = createServer((req, res) => {
    const path = decodeURIComponent(req.url.split('?')[0]);
    const tarball = files.get(path);
    if (tarball) {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.end(tarball);
      return;
    }
    const entry = packages.get(path.slice(1));
    if (!entry) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"error":"not found"}');
      return;
    }
    const { manifest, file, bytes } = entry;
    const url = `http://127.0.0.1:${server.address().port}/-/${file}`;
    const published = new Date().toISOString();
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        name: manifest.name,
        'dist-tags': { latest: manifest.version },
        time: {
          [manifest.version]: published,
          created: published,
          modified: published,
        },
        versions: {
          [manifest.version]: {
            ...manifest,
            dist: {
              tarball: url,
              shasum: createHash('sha1').update(bytes).digest('hex'),
              integrity: `sha512-${createHash('sha512')
                .update(bytes)
                .digest('base64')}`,
            },
          },
        },
      }),
    );
  });
  await new Promise(resolve => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${server.address().port}`;
}

/** Starts the registry in a child process; resolves to `{ url, close() }`. */
export async function startRegistry(tarballs) {
  const child = spawn(
    process.execPath,
    [fileURLToPath(import.meta.url), ...tarballs],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const url = await new Promise((resolve, reject) => {
    child.once('exit', code =>
      reject(new Error(`the registry exited with ${code}`)),
    );
    child.stdout.once('data', data => resolve(String(data).trim()));
  });
  return {
    url,
    close: () =>
      new Promise(resolve => {
        child.once('exit', resolve);
        child.kill();
      }),
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  serve(process.argv.slice(2)).then(url => process.stdout.write(`${url}\n`));
}
