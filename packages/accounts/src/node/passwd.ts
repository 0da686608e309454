import fs from 'node:fs';

/** 08 §4.1: whether `username` (lowercased) names an account of the host's passwd file. */
export function hostAccountExists(passwdFile: string, username: string): boolean {
  let text: string;
  try {
    text = fs.readFileSync(passwdFile, 'utf8');
  } catch {
    return false;
  }
  const lower = username.toLowerCase();
  return text.split('\n').some((line) => line.split(':')[0] === lower);
}
