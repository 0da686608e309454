/**
 * The server's one error map: which HTTP status each package refusal code gets (issue 33 item 3).
 * A package's core throws `Refusal` (a code, a sentence, details) and names no transport; the
 * server decides the status here. Refusals thrown as `AppError` carry their own status and never
 * reach this map. A code not listed is a refusal of the request in the current state: 409.
 */
const STATUS: Readonly<Record<string, number>> = {
  // 400: the request itself is wrong
  bad_request: 400,
  duplicate_grant: 400,
  // @appliance/accounts: a missing, wrong or ended credential
  unauthorized: 401,
  session_ended: 401,
  login_failed: 401,
  // @appliance/accounts: a role or an account kind that may not
  forbidden: 403,
  cannot_modify_admin: 403,
  cross_site_refused: 403,
  share_only_no_api_token: 403,
  share_only_no_web_ui: 403,
  token_role_exceeds_caller: 403,
  // 404: it names something that does not exist
  not_found: 404,
  catalog_source_not_found: 404,
  notification_channel_not_found: 404,
  share_not_found: 404,
  user_not_found: 404,
  group_not_found: 404,
  token_not_found: 404,
  // @appliance/backups: a plan that names what is not here, a snapshot or path a restore names
  backup_plan_not_found: 404,
  external_disk_not_found: 404,
  stack_not_found: 404,
  // @appliance/array-planner: a removal state for a mountpoint that is no slot
  disk_slot_not_found: 404,
  snapshot_not_found: 404,
  path_not_in_snapshot: 404,
  // @appliance/watchers: the SMART report of a disk that is not present
  disk_not_found: 404,
  // 409: the current state refuses it (the default)
  // 429: the login lock-out (@appliance/accounts)
  rate_limited: 429,
  // 500: an operation's tool failed (the backup jobs' errors)
  backup_failed: 500,
  drill_failed: 500,
  restore_failed: 500,
  retention_failed: 500,
  repository_init_failed: 500,
  // 501: a host tool or a setting this operation needs is absent
  not_configured: 501,
  // 502: the operation ran and failed
  catalog_refresh_failed: 502,
  snapshot_failed: 502,
  // @appliance/accounts: the Samba account could not be updated
  samba_password_failed: 502,
  samba_account_failed: 502,
  // 502: a tool answered, but not with what was asked
  repository_unreadable: 502,
  // 503: a dependency is down for now; retry later
  docker_unavailable: 503,
  // @appliance/accounts: the password-hash queue is full
  too_busy: 503,
};

/** The HTTP status of a package refusal code. */
export function refusalStatus(code: string): number {
  return STATUS[code] ?? 409;
}
