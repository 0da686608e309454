/** Time zone names (02 §5.1): pattern, length, and known to the runtime's zone database. */
const ZONE = /^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/;

export function isValidZoneName(zone: string): boolean {
  if (zone.length > 64 || !ZONE.test(zone)) return false;
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}
