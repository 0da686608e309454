CREATE TABLE `mover_settings` (
	`id` integer PRIMARY KEY NOT NULL,
	`enabled` integer NOT NULL,
	`time` text NOT NULL,
	`verify` text NOT NULL,
	`updated_at` text NOT NULL,
	CONSTRAINT "mover_settings_singleton" CHECK("mover_settings"."id" = 1)
) STRICT;
