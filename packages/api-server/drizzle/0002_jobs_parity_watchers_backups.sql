CREATE TABLE `backup_plan_state` (
	`plan` text PRIMARY KEY NOT NULL,
	`since` text NOT NULL,
	`last_scheduled_at` text,
	`last_run_job_id` text,
	`last_run_at` text,
	`last_run_state` text,
	`first_success_at` text,
	`last_success_at` text,
	`last_drill_scheduled_at` text,
	`last_drill_job_id` text,
	`last_drill_at` text,
	`last_drill_state` text,
	`drill_count` integer DEFAULT 0 NOT NULL,
	`last_retention_at` text,
	`last_prune_at` text,
	`forgotten_since_prune` integer DEFAULT 0 NOT NULL
) STRICT;
--> statement-breakpoint
CREATE TABLE `backup_plans` (
	`name` text PRIMARY KEY NOT NULL,
	`enabled` integer NOT NULL,
	`destination` text NOT NULL,
	`configuration` integer NOT NULL,
	`stacks` text NOT NULL,
	`shares` text NOT NULL,
	`schedule_kind` text NOT NULL,
	`schedule_weekday` text,
	`schedule_time` text NOT NULL,
	`keep_daily` integer NOT NULL,
	`keep_weekly` integer NOT NULL,
	`keep_monthly` integer NOT NULL,
	`drill_enabled` integer NOT NULL,
	`drill_every_days` integer NOT NULL,
	`drill_time` text NOT NULL,
	`repo_password` blob,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	CONSTRAINT "backup_plans_schedule_check" CHECK("backup_plans"."schedule_kind" in ('daily', 'weekly')),
	CONSTRAINT "backup_plans_weekday_check" CHECK(("backup_plans"."schedule_kind" = 'daily' and "backup_plans"."schedule_weekday" is null) or ("backup_plans"."schedule_kind" = 'weekly' and "backup_plans"."schedule_weekday" is not null))
) STRICT;
--> statement-breakpoint
CREATE TABLE `backup_snapshots` (
	`id` text PRIMARY KEY NOT NULL,
	`plan` text NOT NULL,
	`part` text NOT NULL,
	`time` text NOT NULL,
	`size_bytes` integer,
	`data_added_bytes` integer,
	`files` integer
) STRICT;
--> statement-breakpoint
CREATE INDEX `backup_snapshots_plan` ON `backup_snapshots` (`plan`);--> statement-breakpoint
CREATE TABLE `generated_files` (
	`path` text PRIMARY KEY NOT NULL,
	`sha256` text NOT NULL,
	`content` text,
	`written_at` text NOT NULL
) STRICT;
--> statement-breakpoint
CREATE TABLE `jobs` (
	`id` text PRIMARY KEY NOT NULL,
	`type` text NOT NULL,
	`target` text NOT NULL,
	`state` text NOT NULL,
	`phase` text,
	`percent` real,
	`bytes_done` integer,
	`bytes_total` integer,
	`eta_seconds` integer,
	`cancellable` integer DEFAULT 0 NOT NULL,
	`trigger` text NOT NULL,
	`actor` text NOT NULL,
	`params` text DEFAULT '{}' NOT NULL,
	`result` text,
	`error` text,
	`output` text DEFAULT '[]' NOT NULL,
	`pid` integer,
	`created_at` text NOT NULL,
	`started_at` text,
	`ended_at` text,
	CONSTRAINT "jobs_state_check" CHECK("jobs"."state" in ('queued', 'running', 'succeeded', 'failed', 'cancelled', 'interrupted', 'blocked')),
	CONSTRAINT "jobs_trigger_check" CHECK("jobs"."trigger" in ('request', 'schedule'))
) STRICT;
--> statement-breakpoint
CREATE INDEX `jobs_type_created` ON `jobs` (`type`,`created_at`);--> statement-breakpoint
CREATE INDEX `jobs_state` ON `jobs` (`state`);--> statement-breakpoint
CREATE TABLE `parity_settings` (
	`id` integer PRIMARY KEY NOT NULL,
	`sync_enabled` integer NOT NULL,
	`sync_time` text NOT NULL,
	`scrub_enabled` integer NOT NULL,
	`scrub_time` text NOT NULL,
	`scrub_every_days` integer NOT NULL,
	`scrub_percent` integer NOT NULL,
	`scrub_older_than_days` integer NOT NULL,
	`delete_threshold` integer NOT NULL,
	`update_threshold` integer,
	`auto_sync_after_blocked_days` integer,
	`touch_before_sync` integer NOT NULL,
	`updated_at` text NOT NULL,
	CONSTRAINT "parity_settings_singleton" CHECK("parity_settings"."id" = 1)
) STRICT;
--> statement-breakpoint
CREATE TABLE `parity_state` (
	`id` integer PRIMARY KEY NOT NULL,
	`last_diff` text,
	`last_status` text,
	`blocked_since` text,
	CONSTRAINT "parity_state_singleton" CHECK("parity_state"."id" = 1)
) STRICT;
--> statement-breakpoint
CREATE TABLE `schedule_runs` (
	`name` text PRIMARY KEY NOT NULL,
	`last_due_at` text NOT NULL,
	`last_run_at` text NOT NULL,
	`job_id` text
) STRICT;
--> statement-breakpoint
CREATE TABLE `smart_readings` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`disk_key` text NOT NULL,
	`device` text NOT NULL,
	`at` text NOT NULL,
	`passed` integer,
	`temperature_c` integer,
	`power_on_hours` integer,
	`counters` text NOT NULL
) STRICT;
--> statement-breakpoint
CREATE INDEX `smart_readings_disk_at` ON `smart_readings` (`disk_key`,`at`);--> statement-breakpoint
CREATE TABLE `watcher_conditions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`key` text NOT NULL,
	`event_type` text NOT NULL,
	`source` text NOT NULL,
	`subject` text NOT NULL,
	`value` text,
	`title` text NOT NULL,
	`message` text NOT NULL,
	`since` text NOT NULL,
	`updated_at` text NOT NULL,
	`cleared_at` text,
	`alert_id` integer
) STRICT;
--> statement-breakpoint
CREATE UNIQUE INDEX `watcher_conditions_open_key` ON `watcher_conditions` (`key`) WHERE cleared_at is null;--> statement-breakpoint
CREATE INDEX `watcher_conditions_cleared` ON `watcher_conditions` (`cleared_at`);--> statement-breakpoint
CREATE TABLE `watcher_settings` (
	`id` integer PRIMARY KEY NOT NULL,
	`settings` text NOT NULL,
	`updated_at` text NOT NULL,
	CONSTRAINT "watcher_settings_singleton" CHECK("watcher_settings"."id" = 1)
) STRICT;
