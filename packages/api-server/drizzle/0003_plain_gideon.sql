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
	`forgotten_since_prune` integer DEFAULT 0 NOT NULL,
	`stale_raised` integer DEFAULT 0 NOT NULL
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
CREATE INDEX `backup_snapshots_plan` ON `backup_snapshots` (`plan`);