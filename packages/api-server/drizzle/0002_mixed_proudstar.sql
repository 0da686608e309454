CREATE TABLE `generated_files` (
	`path` text PRIMARY KEY NOT NULL,
	`sha256` text NOT NULL,
	`content` text,
	`written_at` text NOT NULL
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
