// drizzle-kit cannot declare STRICT tables (00 §4 asks for them where possible): after
// `drizzle-kit generate`, append STRICT to every CREATE TABLE of a migration that lacks it.
// Idempotent; shipped migrations already carry STRICT and are left byte-identical.
import fs from 'node:fs';
import path from 'node:path';

const dir = path.join(import.meta.dirname, '..', 'drizzle');
for (const name of fs.readdirSync(dir).filter((f) => f.endsWith('.sql'))) {
  const file = path.join(dir, name);
  const text = fs.readFileSync(file, 'utf8');
  const next = text.replace(/(CREATE TABLE [^;]*?\n\))(;)/g, (_m, body, semi) => `${body} STRICT${semi}`);
  if (next !== text) {
    fs.writeFileSync(file, next);
    console.log(`strict: ${name}`);
  }
}
