// What the scripts of bench/act/ share: where the repository and its build are, and `--name value`
// arguments.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const here = path.dirname(fileURLToPath(import.meta.url));
export const root = path.resolve(here, '..', '..');
export const targetDir = process.env.CARGO_TARGET_DIR || path.join(root, 'target');
// The value after `--name`, or `fallback`.
export const arg = (name, fallback) => {
  const i = process.argv.indexOf('--' + name);
  return i > 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1] : fallback;
};
