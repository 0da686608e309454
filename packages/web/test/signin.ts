import type { Page } from 'playwright-core';

/** Signs in through the page (the service already has its administrator) and waits for the shell. */
export async function signIn(page: Page, url: string, username: string, password: string): Promise<void> {
  await page.goto(`${url}/`);
  await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { level: 1, name: 'Dashboard' }).waitFor();
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Picks `option` in the React Aria select labelled `label` (its button is named by value and label). */
export async function choose(page: Page, label: string, option: string): Promise<void> {
  await page.getByRole('button', { name: new RegExp(`${escapeRegExp(label)}\\b`) }).click();
  await page.getByRole('option', { name: option, exact: true }).click();
}
