/** Identifier patterns of 02 §1–§2. */
export const TEMPLATE_ID = /^[a-z0-9]+(-[a-z0-9]+)*$/;
export const TEMPLATE_ID_MAX = 63;
export const SOURCE_ID = /^[a-z0-9]+(-[a-z0-9]+)*$/;
export const SOURCE_ID_MAX = 32;
export const STACK_NAME = /^[a-z0-9][a-z0-9_-]{0,62}$/;
export const INPUT_NAME = /^[A-Z][A-Z0-9_]{0,63}$/;
export const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
export const CATEGORY = /^[a-z0-9]+(-[a-z0-9]+)*$/;
export const SERVICE_NAME = /^[a-z0-9][a-z0-9_.-]{0,62}$/;
export const NETWORK_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

export const isTemplateId = (id: string): boolean => id.length <= TEMPLATE_ID_MAX && TEMPLATE_ID.test(id);
export const isSourceId = (id: string): boolean => id.length <= SOURCE_ID_MAX && SOURCE_ID.test(id);
export const isStackName = (name: string): boolean => STACK_NAME.test(name);

/** Rule 7 of 02 §1.2: names the compose tool or the shell own. */
export function isReservedName(name: string): boolean {
  return (
    ['PATH', 'HOME', 'LANG', 'LC_ALL', 'XDG_RUNTIME_DIR'].includes(name) ||
    name.startsWith('DOCKER_') ||
    name.startsWith('COMPOSE_')
  );
}

/** Byte order of UTF-8 strings (code-unit order equals it for the ASCII names used here). */
export const byteOrder = (a: string, b: string): number => Buffer.compare(Buffer.from(a), Buffer.from(b));
