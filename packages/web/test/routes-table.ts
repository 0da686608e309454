/**
 * The facts behind `packages/web/ROUTES.md`, read from the sources (no browser, no server):
 * the operations of the OpenAPI document (its generated types, which the client's drift test keeps
 * equal to `GET /api/v1/openapi.json`), the routes the web UI calls (the `api.*` call sites of
 * `packages/web/src`, read with the TypeScript compiler API) and the rows of the table.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const here = path.dirname(new URL(import.meta.url).pathname);
export const webDir = path.resolve(here, '..');
export const srcDir = path.join(webDir, 'src');
export const testDir = path.join(webDir, 'test');
export const tablePath = path.join(webDir, 'ROUTES.md');
const clientDir = path.resolve(webDir, '../client/src');
const generatedPath = path.join(clientDir, 'generated/openapi.ts');
export const browserClientPath = path.join(clientDir, 'browser.ts');

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'] as const;
const PREFIX = '/api/v1';

/** `METHOD /path` of every operation of the document, without the `/api/v1` prefix, in document order. */
export function openapiOperations(): string[] {
  const source = ts.createSourceFile(
    generatedPath,
    fs.readFileSync(generatedPath, 'utf8'),
    ts.ScriptTarget.Latest,
  );
  const paths = source.statements.find(
    (s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === 'paths',
  );
  if (!paths) throw new Error(`${generatedPath} has no "paths" interface`);
  const ops: string[] = [];
  for (const member of paths.members) {
    if (!ts.isPropertySignature(member) || !member.type || !ts.isTypeLiteralNode(member.type)) continue;
    const route = (member.name as ts.StringLiteral).text;
    if (!route.startsWith(PREFIX)) throw new Error(`${route} is outside ${PREFIX}`);
    for (const m of member.type.members) {
      if (!ts.isPropertySignature(m) || m.questionToken) continue; // `get?: never`: no such operation
      const method = (m.name as ts.Identifier).text;
      if ((METHODS as readonly string[]).includes(method))
        ops.push(`${method.toUpperCase()} ${route.slice(PREFIX.length)}`);
    }
  }
  return ops;
}

/** The browser client's helpers that call a route of their own (see `@appliance/client/browser`). */
const HELPERS: Record<string, (paths: string[]) => string[]> = {
  get: (p) => p.map((x) => `GET ${x}`),
  post: (p) => p.map((x) => `POST ${x}`),
  put: (p) => p.map((x) => `PUT ${x}`),
  patch: (p) => p.map((x) => `PATCH ${x}`),
  delete: (p) => p.map((x) => `DELETE ${x}`),
  download: (p) => p.map((x) => `POST ${x}`),
  upload: (p) => p.map((x) => `POST ${x}`),
  getFile: (p) => p.map((x) => `GET ${x}`),
  events: () => ['GET /events'],
  stackLogs: () => ['GET /stacks/{name}/logs'],
};

function sourceFiles(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) =>
      e.isDirectory()
        ? sourceFiles(path.join(dir, e.name))
        : /\.tsx?$/.test(e.name)
          ? [path.join(dir, e.name)]
          : [],
    )
    .sort();
}

/** The route strings an argument can be: a literal, either branch of `a ? b : c`, or a const of the file. */
function routeStrings(expr: ts.Expression, file: ts.SourceFile, where: string): string[] {
  if (ts.isStringLiteral(expr) || ts.isNoSubstitutionTemplateLiteral(expr)) return [expr.text];
  if (ts.isParenthesizedExpression(expr)) return routeStrings(expr.expression, file, where);
  if (ts.isConditionalExpression(expr))
    return [...routeStrings(expr.whenTrue, file, where), ...routeStrings(expr.whenFalse, file, where)];
  if (ts.isIdentifier(expr)) {
    const found: ts.Expression[] = [];
    const visit = (n: ts.Node) => {
      if (
        ts.isVariableDeclaration(n) &&
        ts.isIdentifier(n.name) &&
        n.name.text === expr.text &&
        n.initializer
      )
        found.push(n.initializer);
      ts.forEachChild(n, visit);
    };
    visit(file);
    if (found.length === 1) return routeStrings(found[0]!, file, where);
  }
  throw new Error(
    `${where}: the route of this api call cannot be read; pass a literal path or a const of one`,
  );
}

/** Route (`METHOD /path`) → the files of `packages/web/src` (relative, `/`-separated) that call it. */
export function pageCalls(): Map<string, Set<string>> {
  const calls = new Map<string, Set<string>>();
  for (const file of sourceFiles(srcDir)) {
    const rel = path.relative(srcDir, file).split(path.sep).join('/');
    const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (n: ts.Node) => {
      if (
        ts.isCallExpression(n) &&
        ts.isPropertyAccessExpression(n.expression) &&
        ts.isIdentifier(n.expression.expression) &&
        n.expression.expression.text === 'api'
      ) {
        const helper = Object.hasOwn(HELPERS, n.expression.name.text)
          ? HELPERS[n.expression.name.text]
          : undefined;
        const line = source.getLineAndCharacterOfPosition(n.getStart()).line + 1;
        if (!helper) throw new Error(`${rel}:${line}: api.${n.expression.name.text} is not a known call`);
        const name = n.expression.name.text;
        const arg = n.arguments[0];
        const fixed = name === 'events' || name === 'stackLogs';
        if (!fixed && !arg) throw new Error(`${rel}:${line}: api.${name} without a route`);
        const routes = helper(fixed ? [] : routeStrings(arg!, source, `${rel}:${line}`));
        for (const r of routes) {
          if (!calls.has(r)) calls.set(r, new Set());
          calls.get(r)!.add(rel);
        }
      }
      ts.forEachChild(n, visit);
    };
    visit(source);
  }
  return calls;
}

export interface Row {
  operation: string;
  callSites: string[];
  screens: string;
  tests: string[];
  /** The browser test cell as written (`none (…)` where no test drives the screen). */
  testCell: string;
  why: string;
  line: number;
}

const ticked = (cell: string, pattern: RegExp): string[] =>
  [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!).filter((t) => pattern.test(t));

/** The rows of the table whose first cell is an operation (`` `GET /path` ``). */
export function tableRows(text = fs.readFileSync(tablePath, 'utf8')): Row[] {
  const rows: Row[] = [];
  text.split('\n').forEach((raw, i) => {
    const m = /^\|\s*`([A-Z]+ \/[^`]*)`\s*\|(.*)\|\s*$/.exec(raw);
    if (!m) return;
    const cells = m[2]!.split('|').map((c) => c.trim());
    if (cells.length !== 4) throw new Error(`ROUTES.md:${i + 1}: a row has 5 cells`);
    const [callSites, screens, tests, why] = cells as [string, string, string, string];
    rows.push({
      operation: m[1]!,
      callSites: ticked(callSites, /\.tsx?$/),
      screens,
      tests: ticked(tests, /\.test\.ts$/),
      testCell: tests,
      why,
      line: i + 1,
    });
  });
  return rows;
}

/** The kinds of reason a route has no page (the first bold word(s) of the last cell). */
export const NO_PAGE_REASONS = [
  /** Only on the Unix socket: a browser must never reach it. */
  'socket',
  /** For the CLI or token scripts only. */
  'CLI',
  /** For monitors polling the box. */
  'monitoring',
  /** The page shows the same facts through another operation. */
  'another read covers it',
  /** An owner needs it and has no page yet. */
  'missing',
] as const;

export const reasonOf = (why: string): string | null => /^\*\*([^*]+)\*\*/.exec(why)?.[1] ?? null;
