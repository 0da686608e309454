CREATE TABLE `system_updates` (
	`id` integer PRIMARY KEY NOT NULL,
	`checked_at` text,
	`upgradable` text DEFAULT '[]' NOT NULL,
	`check_error` text,
	`reboot_at` text,
	`reboot_by` text,
	CONSTRAINT "system_updates_singleton" CHECK("system_updates"."id" = 1)
) STRICT;
