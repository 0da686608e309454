/** The service's version (the API's `info.version`, the configuration archive's and the backups' producer). */
export const VERSION = '0.1.0';
