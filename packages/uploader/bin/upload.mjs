#!/usr/bin/env node
// upload FILE… — sends each file to the image host's upload action and prints its URL, one per line,
// in the order given. No dependencies: Node's own fetch, FormData and fs.openAsBlob (the file is read
// from disk as it is sent, not loaded first).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';

const USAGE = `usage: upload [--markdown] [--config FILE] [--category ID] FILE…

Prints one URL per line (with --markdown, one ![name](url) per line).
Server and token: IMAGES_SERVER and IMAGES_TOKEN, else the config file
(--config, IMAGES_UPLOADER_CONFIG, or ~/.config/image-uploader/config.json):
  {"server": "https://img.example.com", "token": "…"}
Exit status: 0 all uploaded, 1 a file was refused (the service's message on stderr), 2 usage or setup.`;

function fail(message, status) {
  process.stderr.write(`${message}\n`);
  process.exit(status);
}

/** Server and token: the environment first, then the config file. */
function loadSettings(configPath) {
  const file = configPath ?? process.env.IMAGES_UPLOADER_CONFIG ?? path.join(os.homedir(), '.config', 'image-uploader', 'config.json');
  let fromFile = {};
  if (fs.existsSync(file)) {
    try {
      fromFile = JSON.parse(fs.readFileSync(file, 'utf8'));
    } catch (error) {
      fail(`error: ${file} is not valid JSON (${error.message})`, 2);
    }
  } else if (configPath) {
    fail(`error: no config file at ${configPath}`, 2);
  }
  const server = process.env.IMAGES_SERVER || fromFile.server;
  const token = process.env.IMAGES_TOKEN || fromFile.token;
  if (!server || !token) fail(`error: set IMAGES_SERVER and IMAGES_TOKEN, or "server" and "token" in ${file}`, 2);
  return { server: String(server).replace(/\/+$/, ''), token: String(token) };
}

async function uploadOne(settings, file, categoryId) {
  const form = new FormData();
  if (categoryId) form.append('category_id', categoryId);
  form.append('file', await fs.openAsBlob(file), path.basename(file));
  const response = await fetch(`${settings.server}/api/image.php?action=upload`, { method: 'POST', headers: { 'X-API-Token': settings.token }, body: form });
  const text = await response.text();
  let answer;
  try {
    answer = JSON.parse(text);
  } catch {
    throw new Error(`HTTP ${response.status} from ${settings.server} (not the image host's answer)`);
  }
  if (answer.code !== 0) throw new Error(answer.msg ?? `HTTP ${response.status}`);
  return answer.data;
}

async function main() {
  let parsed;
  try {
    parsed = parseArgs({
      allowPositionals: true,
      options: { markdown: { type: 'boolean', short: 'm' }, config: { type: 'string', short: 'c' }, category: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    });
  } catch (error) {
    fail(`error: ${error.message}\n${USAGE}`, 2);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (positionals.length === 0) fail(USAGE, 2);
  const settings = loadSettings(values.config);
  let refused = 0;
  for (const file of positionals) {
    try {
      if (!fs.statSync(file, { throwIfNoEntry: false })?.isFile()) throw new Error('no such file');
      const image = await uploadOne(settings, file, values.category);
      process.stdout.write(`${values.markdown ? image.links.markdown : image.url}\n`);
    } catch (error) {
      refused += 1;
      process.stderr.write(`${file}: ${error.cause?.code ? `${error.message} (${error.cause.code})` : error.message}\n`);
    }
  }
  if (refused > 0) process.exitCode = 1;
}

await main();
