/** The service names of a compose file, in file order (pure; the YAML library loads on first use). */
import { yaml } from '../../core/yaml-lib.ts';

export function composeServices(compose: string): string[] {
  let data: unknown;
  try {
    data = yaml().parse(compose);
  } catch {
    return [];
  }
  const services = (data as { services?: unknown } | null)?.services;
  if (services === null || typeof services !== 'object' || Array.isArray(services)) return [];
  return Object.keys(services as Record<string, unknown>);
}
